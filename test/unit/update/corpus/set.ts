// $set, $setOnInsert, $unset.

import { NumberInt, NumberLong, NumberDecimal } from '../values.js';
import type { UpdateCase } from './types.js';

const docsSet = 'MongoDB manual, $set (update operator)';
const docsUnset = 'MongoDB manual, $unset';
const setNode =
  'mongod src/mongo/db/update/set_node.cpp (no-op only when the BSON value bytes are equal)';
const set7 = 'jstests/core/query/set/set7.js';

const product = {
  _id: 100,
  quantity: 250,
  instock: true,
  reorder: false,
  details: { model: '14QQ', make: 'Clothes Corp' },
  tags: ['apparel', 'clothing'],
  ratings: [{ by: 'Customer007', rating: 4 }],
};

export const setCases: UpdateCase[] = [
  {
    name: '$set top-level fields replaces them in place',
    source: docsSet,
    doc: product,
    update: {
      $set: {
        quantity: 500,
        details: { model: '2600', make: 'Fashionaires' },
        tags: ['coats', 'outerwear', 'clothing'],
      },
    },
    expect: {
      doc: {
        ...product,
        quantity: 500,
        details: { model: '2600', make: 'Fashionaires' },
        tags: ['coats', 'outerwear', 'clothing'],
      },
      modified: true,
    },
  },
  {
    name: '$set a field in an embedded document',
    source: docsSet,
    doc: product,
    update: { $set: { 'details.make': 'Kustom Kidz' } },
    expect: {
      doc: { ...product, details: { model: '14QQ', make: 'Kustom Kidz' } },
      modified: true,
    },
  },
  {
    name: '$set elements in arrays by index',
    source: docsSet,
    doc: product,
    update: { $set: { 'tags.1': 'rain gear', 'ratings.0.rating': 2 } },
    expect: {
      doc: {
        ...product,
        tags: ['apparel', 'rain gear'],
        ratings: [{ by: 'Customer007', rating: 2 }],
      },
      modified: true,
    },
  },
  {
    name: '$set adds a missing field at the end',
    source: docsSet,
    doc: { _id: 1, a: 1 },
    update: { $set: { b: 2 } },
    expect: { doc: { _id: 1, a: 1, b: 2 }, modified: true },
  },
  {
    name: '$set creates embedded documents for a dotted path',
    source: docsSet,
    doc: { _id: 1 },
    update: { $set: { 'a.b.c': 1 } },
    expect: { doc: { _id: 1, a: { b: { c: 1 } } }, modified: true },
  },
  {
    name: '$set of an equal value of the same type is a no-op',
    source: setNode,
    doc: { _id: 1, a: 1, b: { c: 'x' } },
    update: { $set: { a: 1, b: { c: 'x' } } },
    expect: { doc: { _id: 1, a: 1, b: { c: 'x' } }, modified: false },
  },
  {
    name: '$set of int32 1 over double 1.0 changes the type',
    source: setNode,
    doc: { _id: 1, a: 1 },
    update: { $set: { a: NumberInt(1) } },
    expect: { doc: { _id: 1, a: NumberInt(1) }, modified: true },
  },
  {
    name: '$set of int64 over int32 with the same value changes the type',
    source: setNode,
    doc: { _id: 1, a: NumberInt(5) },
    update: { $set: { a: NumberLong(5) } },
    expect: { doc: { _id: 1, a: NumberLong(5) }, modified: true },
  },
  {
    name: '$set of decimal 1.0 over decimal 1.00 changes the representation',
    source: setNode,
    doc: { _id: 1, a: NumberDecimal('1.00') },
    update: { $set: { a: NumberDecimal('1.0') } },
    expect: { doc: { _id: 1, a: NumberDecimal('1.0') }, modified: true },
  },
  {
    name: '$set of -0.0 over 0.0 is a change (bytes differ)',
    source: setNode,
    doc: { _id: 1, a: 0 },
    update: { $set: { a: -0 } },
    expect: { doc: { _id: 1, a: -0 }, modified: true },
  },
  {
    name: '$set of a document with the same fields in another order is a change',
    source: setNode,
    doc: { _id: 1, a: { x: 1, y: 2 } },
    update: { $set: { a: { y: 2, x: 1 } } },
    expect: { doc: { _id: 1, a: { y: 2, x: 1 } }, modified: true },
  },
  {
    name: '$set an existing array index',
    source: set7,
    doc: { _id: 1, a: [0, 1, 2, 3] },
    update: { $set: { 'a.0': 2 } },
    expect: { doc: { _id: 1, a: [2, 1, 2, 3] }, modified: true },
  },
  {
    name: '$set the next array index appends',
    source: set7,
    doc: { _id: 1, a: [2, 1, 2, 3] },
    update: { $set: { 'a.4': 5 } },
    expect: { doc: { _id: 1, a: [2, 1, 2, 3, 5] }, modified: true },
  },
  {
    name: '$set past the end pads the array with nulls',
    source: set7,
    doc: { _id: 1, a: [2, 1, 2, 3, 5] },
    update: { $set: { 'a.9': 9 } },
    expect: { doc: { _id: 1, a: [2, 1, 2, 3, 5, null, null, null, null, 9] }, modified: true },
  },
  {
    name: '$set two indexes past the end applies them in numeric order',
    source: set7,
    doc: { _id: 1, a: [0, 1, 2, 3] },
    update: { $set: { 'a.9': 9, 'a.7': 7 } },
    expect: { doc: { _id: 1, a: [0, 1, 2, 3, null, null, null, 7, null, 9] }, modified: true },
  },
  {
    name: '$set index 11 and 2 (numeric order, not lexicographic)',
    source: set7,
    doc: { _id: 1, a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
    update: { $set: { 'a.11': 11, 'a.2': -2 } },
    expect: { doc: { _id: 1, a: [0, 1, -2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }, modified: true },
  },
  {
    name: '$set a numeric part on a missing field creates a document, not an array',
    source: set7,
    doc: { _id: 1 },
    update: { $set: { 'a.0': 4 } },
    expect: { doc: { _id: 1, a: { '0': 4 } }, modified: true },
  },
  {
    name: '$set two fields of one missing array element builds it once',
    source: set7,
    doc: { _id: 1, a: [] },
    update: { $set: { 'a.2.b': 1, 'a.2.c': 1 } },
    expect: { doc: { _id: 1, a: [null, null, { b: 1, c: 1 }] }, modified: true },
  },
  {
    name: '$set a field name on an array fails (PathNotViable)',
    source: set7,
    doc: { _id: 1, a: [] },
    update: { $set: { 'a.f': 1 } },
    expect: { error: 28, message: "Cannot create field 'f' in element {a: []}" },
  },
  {
    name: '$set through an array of documents by field name fails',
    source: 'jstests/core/write/update/update_arrayFilters.js',
    doc: { _id: 0, a: [{ b: 0 }] },
    update: { $set: { 'a.b': 1 } },
    expect: { error: 28, message: "Cannot create field 'b' in element {a: [ { b: 0.0 } ]}" },
  },
  {
    name: '$set through a scalar fails',
    source: 'mongod src/mongo/db/update/path_support.cpp (createPathAt)',
    doc: { _id: 1, a: 1 },
    update: { $set: { 'a.b': 1 } },
    expect: { error: 28, message: "Cannot create field 'b' in element {a: 1.0}" },
  },
  {
    name: '$set through a string fails',
    source: 'mongod src/mongo/db/update/path_support.cpp (createPathAt)',
    doc: { _id: 1, a: { b: 'x' } },
    update: { $set: { 'a.b.c': 1 } },
    expect: { error: 28, message: 'Cannot create field \'c\' in element {b: "x"}' },
  },
  {
    name: '$set padding beyond 1500000 elements fails',
    source: set7,
    doc: { _id: 1, a: [] },
    update: { $set: { 'a.1500001': 1 } },
    expect: { error: 34, message: "can't backfill more than 1500000 elements" },
  },
  {
    name: '$set far beyond the padding limit fails',
    source: set7,
    doc: { _id: 1, a: [] },
    update: { $set: { 'a.1000000000': 1 } },
    expect: { error: 34 },
  },
  {
    name: '$set a field under an existing array element',
    source: docsSet,
    doc: { _id: 1, a: [{ b: 1 }, { b: 2 }] },
    update: { $set: { 'a.1.c': 3 } },
    expect: { doc: { _id: 1, a: [{ b: 1 }, { b: 2, c: 3 }] }, modified: true },
  },
  {
    name: '$set with an index with leading zeros names an existing element',
    source: 'mongod src/mongo/util/str.cpp (parseUnsignedBase10Integer accepts leading zeros)',
    doc: { _id: 1, a: [0, 1] },
    update: { $set: { 'a.01': 5 } },
    expect: { doc: { _id: 1, a: [0, 5] }, modified: true },
  },
  {
    name: '$set the same value on an unchanged _id is allowed',
    source:
      'mongod src/mongo/db/update/modifier_node.cpp (immutable check only after a real change)',
    doc: { _id: 1, a: 1 },
    update: { $set: { _id: 1, a: 2 } },
    expect: { doc: { _id: 1, a: 2 }, modified: true },
  },
  {
    name: '$set a different _id fails',
    source: 'mongod src/mongo/db/update/modifier_node.cpp',
    doc: { _id: 1 },
    update: { $set: { _id: 2 } },
    expect: {
      error: 66,
      message: "Performing an update on the path '_id' would modify the immutable field '_id'",
    },
  },
  {
    name: '$set _id to an equal value of another type fails (not a byte-level no-op)',
    source: 'mongod src/mongo/db/update/modifier_node.cpp',
    doc: { _id: 1 },
    update: { $set: { _id: NumberInt(1) } },
    expect: { error: 66 },
  },
  {
    name: '$set a field inside a document _id fails',
    source: 'mongod src/mongo/db/update/modifier_node.cpp',
    doc: { _id: { a: 1 } },
    update: { $set: { '_id.a': 2 } },
    expect: {
      error: 66,
      message: "Performing an update on the path '_id.a' would modify the immutable field '_id'",
    },
  },
  {
    name: '$set a new field inside a document _id fails',
    source: 'mongod src/mongo/db/update/modifier_node.cpp',
    doc: { _id: { a: 1 } },
    update: { $set: { '_id.b': 2 } },
    expect: {
      error: 66,
      message:
        "Updating the path '_id' to _id: { a: 1.0, b: 2.0 } would modify the immutable field '_id'",
    },
  },
  {
    name: '$set field names __proto__ and constructor are data',
    source: 'project rule: documents may carry any key',
    doc: JSON.parse('{"_id": 1, "__proto__": {"x": 1}}'),
    update: { $set: JSON.parse('{"__proto__.y": 2, "constructor": 3}') },
    expect: {
      doc: JSON.parse('{"_id": 1, "__proto__": {"x": 1, "y": 2}, "constructor": 3}'),
      modified: true,
    },
  },

  // $setOnInsert
  {
    name: '$setOnInsert does nothing on an update of an existing document',
    source: 'MongoDB manual, $setOnInsert',
    doc: { _id: 1, item: 'apple' },
    update: { $setOnInsert: { defaultQty: 100 } },
    expect: { doc: { _id: 1, item: 'apple' }, modified: false },
  },
  {
    name: '$setOnInsert alongside $set applies only the $set',
    source: 'MongoDB manual, $setOnInsert',
    doc: { _id: 1, item: 'pear' },
    update: { $set: { item: 'apple' }, $setOnInsert: { defaultQty: 100 } },
    expect: { doc: { _id: 1, item: 'apple' }, modified: true },
  },

  // $unset
  {
    name: '$unset removes fields (the value is ignored)',
    source: docsUnset,
    doc: { _id: 1, item: 'chisel', sku: 'C001', quantity: 4, instock: true },
    update: { $unset: { quantity: '', instock: '' } },
    expect: { doc: { _id: 1, item: 'chisel', sku: 'C001' }, modified: true },
  },
  {
    name: '$unset of a missing field does nothing',
    source: docsUnset,
    doc: { _id: 1, a: 1 },
    update: { $unset: { b: 1 } },
    expect: { doc: { _id: 1, a: 1 }, modified: false },
  },
  {
    name: '$unset of an array element sets it to null',
    source: docsUnset,
    doc: { _id: 1, a: [1, 2, 3] },
    update: { $unset: { 'a.1': 1 } },
    expect: { doc: { _id: 1, a: [1, null, 3] }, modified: true },
  },
  {
    name: '$unset of a nested field',
    source: docsUnset,
    doc: { _id: 1, a: { b: 1, c: 2 } },
    update: { $unset: { 'a.b': 1 } },
    expect: { doc: { _id: 1, a: { c: 2 } }, modified: true },
  },
  {
    name: '$unset through a scalar is a no-op',
    source: 'mongod src/mongo/db/update/unset_node.h (allowNonViablePath)',
    doc: { _id: 1, a: 1 },
    update: { $unset: { 'a.b': 1 } },
    expect: { doc: { _id: 1, a: 1 }, modified: false },
  },
  {
    name: '$unset of a field name through an array is a no-op',
    source: 'mongod src/mongo/db/update/unset_node.h (allowNonViablePath)',
    doc: { _id: 1, a: [{ b: 1 }] },
    update: { $unset: { 'a.b': 1 } },
    expect: { doc: { _id: 1, a: [{ b: 1 }] }, modified: false },
  },
  {
    name: '$unset past the end of an array is a no-op',
    source: 'mongod src/mongo/db/update/unset_node.h',
    doc: { _id: 1, a: [1] },
    update: { $unset: { 'a.5': 1 } },
    expect: { doc: { _id: 1, a: [1] }, modified: false },
  },
  {
    name: '$unset _id fails',
    source: 'mongod src/mongo/db/update/modifier_node.cpp',
    doc: { _id: 1, a: 1 },
    update: { $unset: { _id: 1 } },
    expect: {
      error: 66,
      message: "Performing an update on the path '_id' would modify the immutable field '_id'",
    },
  },
  {
    name: '$unset and $set on different fields',
    source: docsUnset,
    doc: { _id: 1, a: 1, b: 2 },
    update: { $unset: { a: 1 }, $set: { c: 3 } },
    expect: { doc: { _id: 1, b: 2, c: 3 }, modified: true },
  },
];
