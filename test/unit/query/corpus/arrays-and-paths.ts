// Dotted paths, implicit array traversal, array equality and numeric path components.

import type { MatchCase } from './types.js';
import { values } from './types.js';

const MANUAL_ARRAY = 'MongoDB manual, Query an Array (tutorial/query-arrays) inventory examples';
const MANUAL_ARRAY_DOCS =
  'MongoDB manual, Query an Array of Embedded Documents (tutorial/query-array-of-documents)';
const MANUAL_NESTED =
  'MongoDB manual, Query on Embedded/Nested Documents (tutorial/query-embedded-documents)';
const PATH_CPP = 'mongod src/mongo/db/matcher/path.cpp (BSONElementIterator)';

const inventory = [
  { _id: 'journal', qty: 25, tags: ['blank', 'red'], dim_cm: [14, 21] },
  { _id: 'notebook', qty: 50, tags: ['red', 'blank'], dim_cm: [14, 21] },
  { _id: 'paper', qty: 100, tags: ['red', 'blank', 'plain'], dim_cm: [14, 21] },
  { _id: 'planner', qty: 75, tags: ['blank', 'red'], dim_cm: [22.85, 30] },
  { _id: 'postcard', qty: 45, tags: ['blue'], dim_cm: [10, 15.25] },
];

const instock = [
  {
    _id: 'journal',
    instock: [
      { warehouse: 'A', qty: 5 },
      { warehouse: 'C', qty: 15 },
    ],
  },
  { _id: 'notebook', instock: [{ warehouse: 'C', qty: 5 }] },
  {
    _id: 'paper',
    instock: [
      { warehouse: 'A', qty: 60 },
      { warehouse: 'B', qty: 15 },
    ],
  },
  {
    _id: 'planner',
    instock: [
      { warehouse: 'A', qty: 40 },
      { warehouse: 'B', qty: 5 },
    ],
  },
  {
    _id: 'postcard',
    instock: [
      { warehouse: 'B', qty: 15 },
      { warehouse: 'C', qty: 35 },
    ],
  },
];

const sizes = [
  { _id: 'journal', qty: 25, size: { h: 14, w: 21, uom: 'cm' }, status: 'A' },
  { _id: 'notebook', qty: 50, size: { h: 8.5, w: 11, uom: 'in' }, status: 'A' },
  { _id: 'paper', qty: 100, size: { h: 8.5, w: 11, uom: 'in' }, status: 'D' },
  { _id: 'planner', qty: 75, size: { h: 22.85, w: 30, uom: 'cm' }, status: 'D' },
  { _id: 'postcard', qty: 45, size: { h: 10, w: 15.25, uom: 'cm' }, status: 'A' },
];

export const arrayAndPathCases: MatchCase[] = [
  {
    name: 'exact array',
    filter: { tags: ['red', 'blank'] },
    docs: inventory,
    expected: ['notebook'],
    source: MANUAL_ARRAY,
  },
  {
    name: 'array contains element',
    filter: { tags: 'red' },
    docs: inventory,
    expected: ['journal', 'notebook', 'paper', 'planner'],
    source: MANUAL_ARRAY,
  },
  {
    name: 'element $gt',
    filter: { dim_cm: { $gt: 25 } },
    docs: inventory,
    expected: ['planner'],
    source: MANUAL_ARRAY,
  },
  {
    name: 'compound conditions may be met by different elements',
    filter: { dim_cm: { $gt: 15, $lt: 20 } },
    docs: inventory,
    expected: ['journal', 'notebook', 'paper', 'postcard'],
    source: MANUAL_ARRAY,
  },
  {
    name: '$elemMatch needs one element',
    filter: { dim_cm: { $elemMatch: { $gt: 22, $lt: 30 } } },
    docs: inventory,
    expected: ['planner'],
    source: MANUAL_ARRAY,
  },
  {
    name: 'array index path',
    filter: { 'dim_cm.1': { $gt: 25 } },
    docs: inventory,
    expected: ['planner'],
    source: MANUAL_ARRAY,
  },
  {
    name: '$size',
    filter: { tags: { $size: 3 } },
    docs: inventory,
    expected: ['paper'],
    source: MANUAL_ARRAY,
  },
  {
    name: 'embedded document equality in array',
    filter: { instock: { warehouse: 'A', qty: 5 } },
    docs: instock,
    expected: ['journal'],
    source: MANUAL_ARRAY_DOCS,
  },
  {
    name: 'embedded document equality is field-order sensitive',
    filter: { instock: { qty: 5, warehouse: 'A' } },
    docs: instock,
    expected: [],
    source: MANUAL_ARRAY_DOCS,
  },
  {
    name: 'index then field',
    filter: { 'instock.0.qty': { $lte: 20 } },
    docs: instock,
    expected: ['journal', 'notebook', 'postcard'],
    source: MANUAL_ARRAY_DOCS,
  },
  {
    name: 'field through array',
    filter: { 'instock.qty': { $lte: 20 } },
    docs: instock,
    expected: ['journal', 'notebook', 'paper', 'planner', 'postcard'],
    source: MANUAL_ARRAY_DOCS,
  },
  {
    name: '$elemMatch object',
    filter: { instock: { $elemMatch: { qty: 5, warehouse: 'A' } } },
    docs: instock,
    expected: ['journal'],
    source: MANUAL_ARRAY_DOCS,
  },
  {
    name: '$elemMatch range on one element',
    filter: { instock: { $elemMatch: { qty: { $gt: 10, $lte: 20 } } } },
    docs: instock,
    expected: ['journal', 'paper', 'postcard'],
    source: MANUAL_ARRAY_DOCS,
  },
  {
    name: 'range over several elements',
    filter: { 'instock.qty': { $gt: 10, $lte: 20 } },
    docs: instock,
    expected: ['journal', 'paper', 'planner', 'postcard'],
    source: MANUAL_ARRAY_DOCS,
  },
  {
    name: 'two fields, different elements',
    filter: { 'instock.qty': 5, 'instock.warehouse': 'A' },
    docs: instock,
    expected: ['journal', 'planner'],
    source: MANUAL_ARRAY_DOCS,
  },
  {
    name: 'embedded document equality',
    filter: { size: { h: 14, w: 21, uom: 'cm' } },
    docs: sizes,
    expected: ['journal'],
    source: MANUAL_NESTED,
  },
  {
    name: 'embedded document field order matters',
    filter: { size: { w: 21, h: 14, uom: 'cm' } },
    docs: sizes,
    expected: [],
    source: MANUAL_NESTED,
  },
  {
    name: 'dotted equality',
    filter: { 'size.uom': 'in' },
    docs: sizes,
    expected: ['notebook', 'paper'],
    source: MANUAL_NESTED,
  },
  {
    name: 'dotted $lt',
    filter: { 'size.h': { $lt: 15 } },
    docs: sizes,
    expected: ['journal', 'notebook', 'paper', 'postcard'],
    source: MANUAL_NESTED,
  },
  {
    name: 'implicit AND of dotted conditions',
    filter: { 'size.h': { $lt: 15 }, 'size.uom': 'in', status: 'D' },
    docs: sizes,
    expected: ['paper'],
    source: MANUAL_NESTED,
  },
  {
    name: 'array value matches whole array or an element',
    filter: { a: [1, 2] },
    docs: values([1, 2], [[1, 2], 3], [2, 1], [[[1, 2]]], 1),
    expected: [0, 1],
    source: PATH_CPP,
  },
  {
    name: 'nested arrays are not traversed twice',
    filter: { a: 1 },
    docs: values([[1]], [1], 1, [[1], 1]),
    expected: [1, 2, 3],
    source: PATH_CPP,
  },
  {
    name: 'arrays in the middle of a path reach subdocuments only',
    filter: { 'a.b': 1 },
    docs: values([{ b: 1 }], [[{ b: 1 }]], { b: [1] }, [{ b: [1] }], [1], { b: 1 }),
    expected: [0, 2, 3, 5],
    source: PATH_CPP,
  },
  {
    name: 'numeric component: array position or field name',
    filter: { 'a.0': 1 },
    docs: values([1, 2], [2, 1], { '0': 1 }, [{ '0': 1 }], [[1]], [{ b: 1 }]),
    expected: [0, 2, 3],
    source: PATH_CPP,
  },
  {
    name: 'numeric component then field',
    filter: { 'a.0.b': 1 },
    docs: values(
      [{ b: 1 }],
      [{ b: 2 }, { b: 1 }],
      { '0': { b: 1 } },
      [[{ b: 1 }]],
      [{ '0': { b: 1 } }],
    ),
    expected: [0, 2, 3, 4],
    source: PATH_CPP,
  },
  {
    name: 'non-canonical index is only a field name',
    filter: { 'a.01': 1 },
    docs: values([5, 1], { '01': 1 }),
    expected: [1],
    source: PATH_CPP,
  },
  {
    name: '__proto__ is a plain field name',
    filter: { ['__proto__']: 1 },
    docs: [{ _id: 0, ['__proto__']: 1 }, { _id: 1 }],
    expected: [0],
    source: 'CONTRIBUTING.md: documents may carry __proto__ as data',
  },
  {
    name: 'constructor is not inherited',
    filter: { constructor: { $exists: true } },
    docs: [{ _id: 0 }, { _id: 1, constructor: 1 }],
    expected: [1],
    source: 'CONTRIBUTING.md: documents may carry constructor as data',
  },
  {
    name: 'empty field name',
    filter: { '': 1 },
    docs: [{ _id: 0, '': 1 }, { _id: 1 }],
    expected: [0],
    source: 'mongod expression_parser.cpp (any field name is a path)',
  },
  {
    name: 'empty filter matches everything',
    filter: {},
    docs: values(1, [], null),
    expected: [0, 1, 2],
    source: 'MongoDB manual, db.collection.find()',
  },
];
