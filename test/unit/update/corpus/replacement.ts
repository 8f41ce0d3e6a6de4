// Replacement-style updates.

import { NumberInt, regex, ts } from '../values.js';
import type { UpdateCase } from './types.js';
import { NEXT_TS, nestedDepth } from './shared.js';

const executor = 'mongod src/mongo/db/update/object_replace_executor.cpp';
const storage = 'mongod src/mongo/db/update/storage_validation.cpp';
const docsReplace = 'MongoDB manual, db.collection.replaceOne()';

export const replacementCases: UpdateCase[] = [
  {
    name: 'replacement keeps _id and drops the other fields',
    source: docsReplace,
    doc: { _id: 1, a: 1, b: 2 },
    update: { c: 3 },
    expect: { doc: { _id: 1, c: 3 }, modified: true },
  },
  {
    name: 'replacement of a restaurant document',
    source: docsReplace,
    doc: { _id: 1, name: 'Central Perk Cafe', Borough: 'Manhattan' },
    update: { name: 'Central Pork Cafe', Borough: 'Manhattan' },
    expect: { doc: { _id: 1, name: 'Central Pork Cafe', Borough: 'Manhattan' }, modified: true },
  },
  {
    name: 'an identical replacement with _id is a no-op',
    source: executor,
    doc: { _id: 1, a: 1 },
    update: { _id: 1, a: 1 },
    expect: { doc: { _id: 1, a: 1 }, modified: false },
  },
  {
    name: 'an identical replacement without _id still counts as a change',
    source: `${executor} (no-op only when the whole stored document equals the replacement byte for byte)`,
    doc: { _id: 1, a: 1 },
    update: { a: 1 },
    expect: { doc: { _id: 1, a: 1 }, modified: true },
  },
  {
    name: 'replacement with the same _id',
    source: docsReplace,
    doc: { _id: 1, a: 1 },
    update: { _id: 1, b: 2 },
    expect: { doc: { _id: 1, b: 2 }, modified: true },
  },
  {
    name: 'replacement moves _id first',
    source: 'mongod src/mongo/db/exec/update_stage.cpp (_ensureIdFieldIsFirst)',
    doc: { _id: 1, a: 1 },
    update: { b: 2, _id: 1 },
    expect: { doc: { _id: 1, b: 2 }, modified: true },
  },
  {
    name: 'replacement may give _id an equal value of another type',
    source: `${executor} (_id compared by value)`,
    doc: { _id: 1, a: 1 },
    update: { _id: NumberInt(1), a: 2 },
    expect: { doc: { _id: NumberInt(1), a: 2 }, modified: true },
  },
  {
    name: 'replacement may not change _id',
    source: executor,
    doc: { _id: 1, a: 1 },
    update: { _id: 2, a: 1 },
    expect: {
      error: 66,
      message:
        "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2.0",
    },
  },
  {
    name: 'an empty replacement keeps only _id',
    source: executor,
    doc: { _id: 1, a: 1 },
    update: {},
    expect: { doc: { _id: 1 }, modified: true },
  },
  {
    name: 'replacement with nested $-prefixed fields is fine (5.0+)',
    source: 'MongoDB manual, Dollar-Prefixed Field Names',
    doc: { _id: 1 },
    update: { a: { $b: 1 } },
    expect: { doc: { _id: 1, a: { $b: 1 } }, modified: true },
  },
  {
    name: 'replacement with dotted field names is fine (5.0+)',
    source: 'MongoDB manual, Field Names with Periods',
    doc: { _id: 1 },
    update: { 'a.b': 1 },
    expect: { doc: { _id: 1, 'a.b': 1 }, modified: true },
  },
  {
    name: 'replacement with a top-level $-prefixed field fails',
    source: storage,
    doc: { _id: 1 },
    update: { a: 1, $b: 1 },
    expect: {
      error: 52,
      message:
        "The dollar ($) prefixed field '$b' in '$b' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.",
    },
  },
  {
    name: 'replacement with a top-level DBRef is fine',
    source: storage,
    doc: { _id: 1 },
    update: { a: 1, $ref: 'c', $id: 2 },
    expect: { doc: { _id: 1, a: 1, $ref: 'c', $id: 2 }, modified: true },
  },
  {
    name: 'replacement with $id before $ref fails',
    source: storage,
    doc: { _id: 1 },
    update: { a: 1, $id: 2, $ref: 'c' },
    expect: { error: 55, message: 'Found $id field without a $ref before it, which is invalid.' },
  },
  {
    name: 'replacement with an array _id fails',
    source: storage,
    doc: { _id: 1 },
    update: { _id: [1], a: 1 },
    expect: { error: 53, message: "The '_id' value cannot be of type array" },
  },
  {
    name: 'replacement with a regex _id fails',
    source: storage,
    doc: { _id: 1 },
    update: { _id: regex('a'), a: 1 },
    expect: { error: 53, message: "The '_id' value cannot be of type regex" },
  },
  {
    name: 'replacement with a $-prefixed field inside _id fails',
    source: storage,
    doc: { _id: { a: 1 } },
    update: { _id: { $a: 1 } },
    expect: {
      error: 52,
      message: "_id fields may not contain '$'-prefixed fields: $a is not valid for storage.",
    },
  },
  {
    name: 'replacement nested 100 deep is fine',
    source: storage,
    doc: { _id: 1 },
    update: { a: nestedDepth(100) },
    expect: { doc: { _id: 1, a: nestedDepth(100) }, modified: true },
  },
  {
    name: 'replacement nested 101 deep fails',
    source: storage,
    doc: { _id: 1 },
    update: { a: nestedDepth(101) },
    expect: { error: 15, message: 'Document exceeds maximum nesting depth of 100' },
  },
  {
    name: 'replacement fills top-level zero timestamps',
    source: `${executor} (zero-valued timestamps get the current cluster time)`,
    doc: { _id: 1 },
    update: { a: ts(0, 0), b: { c: ts(0, 0) } },
    expect: { doc: { _id: 1, a: ts(NEXT_TS.t, NEXT_TS.i), b: { c: ts(0, 0) } }, modified: true },
  },
];
