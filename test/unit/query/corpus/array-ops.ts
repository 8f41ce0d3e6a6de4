// $all, $elemMatch (value and object forms) and $size.

import type { MatchCase } from './types.js';
import { values } from './types.js';
import { dbl } from './values.js';

const ALL_MANUAL = 'MongoDB manual, $all';
const EM_MANUAL = 'MongoDB manual, $elemMatch (query)';
const EM_VALUE = 'mongodb/mongo jstests/core/query/elemmatch/elemmatch_value.js';
const EM_OBJECT = 'mongodb/mongo jstests/core/query/elemmatch/elemmatch_object.js';
const SIZE_MANUAL = 'MongoDB manual, $size';

const allInventory = [
  {
    _id: 'xyz',
    tags: ['school', 'book', 'bag', 'headphone', 'appliance'],
    qty: [
      { size: 'S', num: 10, color: 'blue' },
      { size: 'M', num: 45, color: 'blue' },
      { size: 'L', num: 100, color: 'green' },
    ],
  },
  {
    _id: 'abc',
    tags: ['appliance', 'school', 'book'],
    qty: [
      { size: '6', num: 100, color: 'green' },
      { size: '6', num: 50, color: 'blue' },
      { size: '8', num: 100, color: 'brown' },
    ],
  },
  {
    _id: 'efg',
    tags: ['school', 'book'],
    qty: [
      { size: 'S', num: 10, color: 'blue' },
      { size: 'M', num: 100, color: 'blue' },
      { size: 'L', num: 100, color: 'green' },
    ],
  },
  { _id: 'ijk', tags: ['electronics', 'school'], qty: [{ size: 'M', num: 100, color: 'green' }] },
];

const survey = [
  {
    _id: 1,
    results: [
      { product: 'abc', score: 10 },
      { product: 'xyz', score: 5 },
    ],
  },
  {
    _id: 2,
    results: [
      { product: 'abc', score: 8 },
      { product: 'xyz', score: 7 },
    ],
  },
  {
    _id: 3,
    results: [
      { product: 'abc', score: 7 },
      { product: 'xyz', score: 8 },
    ],
  },
  {
    _id: 4,
    results: [
      { product: 'abc', score: 7 },
      { product: 'def', score: 8 },
    ],
  },
];

const emValueDocs = values(
  5,
  [5],
  [3, 7],
  [[5]],
  [[3, 7]],
  [[[5]]],
  [[[3, 7]]],
  { b: 5 },
  { b: [5] },
  { b: [3, 7] },
  [{ b: 5 }],
  [{ b: 3 }, { b: 7 }],
  [{ b: [5] }],
  [{ b: [3, 7] }],
  [[{ b: 5 }]],
  [[{ b: 3 }, { b: 7 }]],
  [[{ b: [5] }]],
  [[{ b: [3, 7] }]],
);
const inRange = { $lt: 6, $gt: 4 };

const emObjectDocs = values(
  { b: 1, c: 4 },
  [{ b: 1, c: 4 }],
  [{ b: 2, c: 3 }],
  [
    { b: 1, c: 2 },
    { b: 3, c: 4 },
  ],
  [
    { b: 1, c: 2 },
    { b: 3, c: 4 },
    { b: 1, c: 4 },
  ],
  [{ b: [], c: [] }],
  [{ b: [12, 2], c: [13, 3] }],
  [{ b: [11, 1], c: [14, 4] }],
  [{ b: { w: 1, x: 2 }, c: { y: 3, z: 4 } }],
  [
    {
      b: [
        { w: 5, x: 6 },
        { w: 1, x: 2 },
      ],
      c: [
        { y: 7, z: 8 },
        { y: 3, z: 4 },
      ],
    },
  ],
  [
    {
      b: [
        { w: 5, x: 2 },
        { w: 1, x: 6 },
      ],
      c: [
        { y: 7, z: 4 },
        { y: 3, z: 8 },
      ],
    },
  ],
  [
    {
      b: [
        { w: 5, x: 6 },
        { w: 1, x: 2 },
      ],
      c: [
        { y: 7, z: 4 },
        { y: 3, z: 8 },
      ],
    },
  ],
  [{ b: [{ w: [11, 1], x: [12, 2] }], c: [{ y: [13, 3], z: [14, 4] }] }],
);

const emShapes = [
  { _id: 0 },
  { _id: 1, a: 1 },
  { _id: 2, a: 'foo' },
  { _id: 3, a: [] },
  { _id: 4, a: {} },
  { _id: 5, a: [1] },
  { _id: 6, a: ['foo'] },
  { _id: 7, a: [[]] },
  { _id: 8, a: [{}] },
  { _id: 9, a: [[1]] },
  { _id: 10, a: [1, []] },
  { _id: 11, a: [1, {}] },
  { _id: 12, a: [{ b: 1 }] },
];

export const arrayOperatorCases: MatchCase[] = [
  {
    name: '$all of strings',
    filter: { tags: { $all: ['appliance', 'school', 'book'] } },
    docs: allInventory,
    expected: ['xyz', 'abc'],
    source: ALL_MANUAL,
  },
  {
    name: '$all of $elemMatch',
    filter: {
      qty: {
        $all: [
          { $elemMatch: { size: 'M', num: { $gt: 50 } } },
          { $elemMatch: { num: 100, color: 'green' } },
        ],
      },
    },
    docs: allInventory,
    expected: ['efg', 'ijk'],
    source: ALL_MANUAL,
  },
  {
    name: '$all through an array of documents',
    filter: { 'qty.num': { $all: [50] } },
    docs: allInventory,
    expected: ['abc'],
    source: ALL_MANUAL,
  },
  {
    name: '$all on a scalar field',
    filter: { a: { $all: [50] } },
    docs: values(50, [50], 5),
    expected: [0, 1],
    source: ALL_MANUAL,
  },
  {
    name: '$all: [] matches nothing',
    filter: { a: { $all: [] } },
    docs: values([], [1], 1),
    expected: [],
    source: 'mongod expression_parser.cpp (empty $all is AlwaysFalse)',
  },
  {
    name: '$all with a nested array value',
    filter: { a: { $all: [[1, 2]] } },
    docs: values([[1, 2], 3], [1, 2], [1]),
    expected: [0, 1],
    source: ALL_MANUAL,
  },
  {
    name: '$all with a regex',
    filter: { tags: { $all: [/^sch/, 'book'] } },
    docs: allInventory,
    expected: ['xyz', 'abc', 'efg'],
    source: ALL_MANUAL,
  },
  {
    name: '$elemMatch value form',
    filter: { results: { $elemMatch: { $gte: 80, $lt: 85 } } },
    docs: [
      { _id: 1, results: [82, 85, 88] },
      { _id: 2, results: [75, 88, 89] },
    ],
    expected: [1],
    source: EM_MANUAL,
  },
  {
    name: '$elemMatch object form',
    filter: { results: { $elemMatch: { product: 'xyz', score: { $gte: 8 } } } },
    docs: survey,
    expected: [3],
    source: EM_MANUAL,
  },
  {
    name: '$elemMatch single condition',
    filter: { results: { $elemMatch: { product: 'xyz' } } },
    docs: survey,
    expected: [1, 2, 3],
    source: EM_MANUAL,
  },
  {
    name: 'dotted equality equivalent',
    filter: { 'results.product': 'xyz' },
    docs: survey,
    expected: [1, 2, 3],
    source: EM_MANUAL,
  },
  {
    name: '$elemMatch $ne per element',
    filter: { results: { $elemMatch: { product: { $ne: 'xyz' } } } },
    docs: survey,
    expected: [1, 2, 3, 4],
    source: EM_MANUAL,
  },
  {
    name: 'dotted $ne over the whole array',
    filter: { 'results.product': { $ne: 'xyz' } },
    docs: survey,
    expected: [4],
    source: EM_MANUAL,
  },
  {
    name: 'value $elemMatch range',
    filter: { a: { $elemMatch: inRange } },
    docs: emValueDocs,
    expected: [1],
    source: EM_VALUE,
  },
  {
    name: 'value $elemMatch on a.b',
    filter: { 'a.b': { $elemMatch: inRange } },
    docs: emValueDocs,
    expected: [8, 12],
    source: EM_VALUE,
  },
  {
    name: 'nested value $elemMatch',
    filter: { a: { $elemMatch: { $elemMatch: inRange } } },
    docs: emValueDocs,
    expected: [3],
    source: EM_VALUE,
  },
  {
    name: 'value $elemMatch $type number',
    filter: { a: { $elemMatch: { $type: 'number' } } },
    docs: emValueDocs,
    expected: [1, 2],
    source: EM_VALUE,
  },
  {
    name: 'value $elemMatch $type array',
    filter: { a: { $elemMatch: { $type: 'array' } } },
    docs: emValueDocs,
    expected: [3, 4, 5, 6, 14, 15, 16, 17],
    source: EM_VALUE,
  },
  {
    name: 'object $elemMatch with a range',
    filter: { a: { $elemMatch: { b: inRange } } },
    docs: emValueDocs,
    expected: [10, 12, 13],
    source: EM_VALUE,
  },
  {
    name: 'object $elemMatch containing value $elemMatch',
    filter: { a: { $elemMatch: { b: { $elemMatch: inRange } } } },
    docs: emValueDocs,
    expected: [12],
    source: EM_VALUE,
  },
  {
    name: 'value $elemMatch containing object $elemMatch',
    filter: { a: { $elemMatch: { $elemMatch: { b: inRange } } } },
    docs: emValueDocs,
    expected: [14, 16, 17],
    source: EM_VALUE,
  },
  {
    name: 'object $elemMatch b: 2',
    filter: { a: { $elemMatch: { b: 2 } } },
    docs: emObjectDocs,
    expected: [2, 6],
    source: EM_OBJECT,
  },
  {
    name: 'object $elemMatch b: 1',
    filter: { a: { $elemMatch: { b: 1 } } },
    docs: emObjectDocs,
    expected: [1, 3, 4, 7],
    source: EM_OBJECT,
  },
  {
    name: 'object $elemMatch b: 1, c: 4',
    filter: { a: { $elemMatch: { b: 1, c: 4 } } },
    docs: emObjectDocs,
    expected: [1, 4, 7],
    source: EM_OBJECT,
  },
  {
    name: 'object $elemMatch of empty $elemMatch',
    filter: { a: { $elemMatch: { b: { $elemMatch: {} }, c: { $elemMatch: {} } } } },
    docs: emObjectDocs,
    expected: [9, 10, 11, 12],
    source: EM_OBJECT,
  },
  {
    name: 'object $elemMatch nested one side',
    filter: { a: { $elemMatch: { b: { $elemMatch: { w: 1, x: 2 } }, c: { $elemMatch: {} } } } },
    docs: emObjectDocs,
    expected: [9, 11, 12],
    source: EM_OBJECT,
  },
  {
    name: 'object $elemMatch nested both sides',
    filter: {
      a: { $elemMatch: { b: { $elemMatch: { w: 1, x: 2 } }, c: { $elemMatch: { y: 3, z: 4 } } } },
    },
    docs: emObjectDocs,
    expected: [9, 12],
    source: EM_OBJECT,
  },
  {
    name: '$elemMatch: {} needs a document or array element',
    filter: { a: { $elemMatch: {} } },
    docs: emShapes,
    expected: [7, 8, 9, 10, 11, 12],
    source: EM_OBJECT,
  },
  {
    name: '$elemMatch with $or of empty documents',
    filter: { a: { $elemMatch: { $or: [{}, {}] } } },
    docs: emShapes,
    expected: [7, 8, 9, 10, 11, 12],
    source: EM_OBJECT,
  },
  {
    name: '$size 2',
    filter: { a: { $size: 2 } },
    docs: values(['red', 'green'], ['red'], 'ab', [[1, 2]]),
    expected: [0],
    source: SIZE_MANUAL,
  },
  {
    name: '$size 0',
    filter: { a: { $size: 0 } },
    docs: values([], [[]], null),
    expected: [0],
    source: SIZE_MANUAL,
  },
  {
    name: '$size does not enter nested arrays',
    filter: { a: { $size: 1 } },
    docs: values([[1, 2]], [1, 2]),
    expected: [0],
    source: 'mongod expression_array.cpp (array matching does not traverse the leaf array)',
  },
  {
    name: '$size through an array of documents',
    filter: { 'a.b': { $size: 2 } },
    docs: values([{ b: [1, 2] }, { b: [1] }], [{ b: [1] }], { b: [3, 4] }),
    expected: [0, 2],
    source: 'mongod path.cpp (non-leaf arrays are traversed)',
  },
  {
    name: '$size with a double 2.0',
    filter: { a: { $size: dbl(2) } },
    docs: values([1, 2], [1]),
    expected: [0],
    source: 'mongod expression_parser.cpp ($size takes an integral number)',
  },
];
