// Storage checks on what an operator update writes: '$'-prefixed top-level names and depth.

import type { UpdateCase } from './types.js';
import { nestedDepth } from './shared.js';

const storage =
  'mongod src/mongo/db/update/storage_validation.cpp (via ModifierNode::validateUpdate)';
const docs = 'MongoDB manual, Dollar-Prefixed Field Names';
const dollarMessage = (name: string): string =>
  `The dollar ($) prefixed field '${name}' in '${name}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`;

const housing = {
  _id: 'E123',
  address: { $number: 123, $street: 'Elm Road' },
  $rooms: { br: 2, bath: 1 },
};

export const validationCases: UpdateCase[] = [
  {
    name: '$set of a top-level $-prefixed field on a stored document fails',
    source: docs,
    doc: { _id: 1 },
    update: { $set: { $hotel: 1 } },
    expect: { error: 52, message: dollarMessage('$hotel') },
  },
  {
    name: '$set of a nested $-prefixed field is allowed',
    source: docs,
    doc: housing,
    update: { $set: { 'address.$street': 'Elm Ave' } },
    expect: { doc: { ...housing, address: { $number: 123, $street: 'Elm Ave' } }, modified: true },
  },
  {
    name: '$set of an existing top-level $-prefixed field fails',
    source: docs,
    doc: housing,
    update: { $set: { $rooms: { br: 3 } } },
    expect: { error: 52, message: dollarMessage('$rooms') },
  },
  {
    name: '$set below an existing top-level $-prefixed field checks only what it changed',
    source: `${storage}: only the modified element and what is below it are checked`,
    doc: housing,
    update: { $set: { '$rooms.br': 3 } },
    expect: { doc: { ...housing, $rooms: { br: 3, bath: 1 } }, modified: true },
  },
  {
    name: '$set of a value holding $-prefixed fields is allowed',
    source: storage,
    doc: { _id: 1 },
    update: { $set: { a: { $b: 1 } } },
    expect: { doc: { _id: 1, a: { $b: 1 } }, modified: true },
  },
  {
    name: '$set of a top-level field with a dot in a value name is allowed',
    source: 'MongoDB manual, Field Names with Periods',
    doc: { _id: 1 },
    update: { $set: { a: { 'b.c': 1 } } },
    expect: { doc: { _id: 1, a: { 'b.c': 1 } }, modified: true },
  },
  {
    name: '$rename to a top-level $-prefixed name fails',
    source: storage,
    doc: { _id: 1, a: 1 },
    update: { $rename: { a: '$b' } },
    expect: { error: 52, message: dollarMessage('$b') },
  },
  {
    name: '$inc of a new top-level $-prefixed field fails',
    source: storage,
    doc: { _id: 1 },
    update: { $inc: { $x: 1 } },
    expect: { error: 52 },
  },
  {
    name: '$unset of a top-level $-prefixed field is allowed',
    source: 'mongod src/mongo/db/update/unset_node.cpp (removals are not validated)',
    doc: { _id: 1, $x: 1 },
    update: { $unset: { $x: 1 } },
    expect: { doc: { _id: 1 }, modified: true },
  },
  {
    name: '$set of a value nested 100 deep (counting the field) is allowed',
    source: storage,
    doc: { _id: 1 },
    update: { $set: { a: nestedDepth(100) } },
    expect: { doc: { _id: 1, a: nestedDepth(100) }, modified: true },
  },
  {
    name: '$set of a value nested 101 deep fails',
    source: storage,
    doc: { _id: 1 },
    update: { $set: { a: nestedDepth(101) } },
    expect: { error: 15, message: 'Document exceeds maximum nesting depth of 100' },
  },
  {
    name: '$set deep inside a document counts the existing levels',
    source: storage,
    doc: { _id: 1, a: nestedDepth(99, {}) },
    update: { $set: { [`${'a.'.repeat(99)}x`]: { y: 1 } } },
    expect: { error: 15 },
  },
  {
    name: '$push of a value that is too deep fails',
    source: storage,
    doc: { _id: 1, a: [] },
    update: { $push: { a: nestedDepth(100) } },
    expect: { error: 15 },
  },
  {
    name: '$push of a value exactly at the limit is allowed',
    source: storage,
    doc: { _id: 1, a: [] },
    update: { $push: { a: nestedDepth(99) } },
    expect: { doc: { _id: 1, a: [nestedDepth(99)] }, modified: true },
  },
];
