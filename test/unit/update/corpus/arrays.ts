// $push (with $each, $position, $slice, $sort), $addToSet, $pop, $pull, $pullAll.

import { NumberDecimal, NumberInt, NumberLong, dbref } from '../values.js';
import type { UpdateCase } from './types.js';

const docsPush = 'MongoDB manual, $push';
const docsPosition = 'MongoDB manual, $position';
const docsSlice = 'MongoDB manual, $slice (update)';
const docsSort = 'MongoDB manual, $sort (update)';
const pushSort = 'jstests/core/query/push/push_sort.js';
const pushNode = 'mongod src/mongo/db/update/push_node.cpp';
const docsAddToSet = 'MongoDB manual, $addToSet';
const addToSetTest = 'jstests/core/write/update/update_addToSet.js';
const popTest = 'jstests/core/write/update/update_modifier_pop.js';
const docsPop = 'MongoDB manual, $pop';
const docsPull = 'MongoDB manual, $pull';
const pullNode = 'mongod src/mongo/db/update/pull_node.cpp';

const doc = (fields: Record<string, unknown>): unknown => ({ _id: 1, ...fields });

export const arrayCases: UpdateCase[] = [
  // $push
  {
    name: '$push appends a value',
    source: docsPush,
    doc: doc({ scores: [44, 78, 38, 80] }),
    update: { $push: { scores: 89 } },
    expect: { doc: doc({ scores: [44, 78, 38, 80, 89] }), modified: true },
  },
  {
    name: '$push $each appends several values',
    source: docsPush,
    doc: doc({ scores: [44, 78, 38, 80, 89] }),
    update: { $push: { scores: { $each: [90, 92, 85] } } },
    expect: { doc: doc({ scores: [44, 78, 38, 80, 89, 90, 92, 85] }), modified: true },
  },
  {
    name: '$push $each with $sort and $slice',
    source: docsPush,
    doc: {
      _id: 5,
      quizzes: [
        { wk: 1, score: 10 },
        { wk: 2, score: 8 },
        { wk: 3, score: 5 },
        { wk: 4, score: 6 },
      ],
    },
    update: {
      $push: {
        quizzes: {
          $each: [
            { wk: 5, score: 8 },
            { wk: 6, score: 7 },
            { wk: 7, score: 6 },
          ],
          $sort: { score: -1 },
          $slice: 3,
        },
      },
    },
    expect: {
      doc: {
        _id: 5,
        quizzes: [
          { wk: 1, score: 10 },
          { wk: 2, score: 8 },
          { wk: 5, score: 8 },
        ],
      },
      modified: true,
    },
  },
  {
    name: '$push of an array pushes it as one element',
    source: docsPush,
    doc: doc({ a: [1] }),
    update: { $push: { a: [2, 3] } },
    expect: { doc: doc({ a: [1, [2, 3]] }), modified: true },
  },
  {
    name: '$push to a missing field creates the array',
    source: docsPush,
    doc: doc({}),
    update: { $push: { a: 1 } },
    expect: { doc: doc({ a: [1] }), modified: true },
  },
  {
    name: '$push $each to a missing field',
    source: docsPush,
    doc: doc({}),
    update: { $push: { 'a.b': { $each: [1, 2] } } },
    expect: { doc: doc({ a: { b: [1, 2] } }), modified: true },
  },
  {
    name: '$push to a non-array fails',
    source: pushNode,
    doc: doc({ a: 1 }),
    update: { $push: { a: 2 } },
    expect: {
      error: 2,
      message: "The field 'a' must be an array but is of type double in document {_id: 1.0}",
    },
  },
  {
    name: '$push $each of nothing is a no-op',
    source: pushNode,
    doc: doc({ a: [1] }),
    update: { $push: { a: { $each: [] } } },
    expect: { doc: doc({ a: [1] }), modified: false },
  },
  {
    name: '$push $position 0',
    source: docsPosition,
    doc: doc({ scores: [100] }),
    update: { $push: { scores: { $each: [50, 60, 70], $position: 0 } } },
    expect: { doc: doc({ scores: [50, 60, 70, 100] }), modified: true },
  },
  {
    name: '$push $position 2',
    source: docsPosition,
    doc: doc({ scores: [50, 60, 70, 100] }),
    update: { $push: { scores: { $each: [20, 30], $position: 2 } } },
    expect: { doc: doc({ scores: [50, 60, 20, 30, 70, 100] }), modified: true },
  },
  {
    name: '$push negative $position counts from the end',
    source: docsPosition,
    doc: doc({ scores: [50, 60, 20, 30, 70, 100] }),
    update: { $push: { scores: { $each: [90, 80], $position: -2 } } },
    expect: { doc: doc({ scores: [50, 60, 20, 30, 90, 80, 70, 100] }), modified: true },
  },
  {
    name: '$push $position past the end appends',
    source: pushNode,
    doc: doc({ a: [1, 2] }),
    update: { $push: { a: { $each: [3], $position: NumberInt(10) } } },
    expect: { doc: doc({ a: [1, 2, 3] }), modified: true },
  },
  {
    name: '$push negative $position beyond the start prepends',
    source: pushNode,
    doc: doc({ a: [1, 2] }),
    update: { $push: { a: { $each: [3], $position: NumberLong(-5) } } },
    expect: { doc: doc({ a: [3, 1, 2] }), modified: true },
  },
  {
    name: '$push $position must be an integer',
    source: pushNode,
    doc: doc({ a: [] }),
    update: { $push: { a: { $each: [1], $position: 'x' } } },
    expect: {
      error: 2,
      message: 'The value for $position must be an integer value, not of type: string',
    },
  },
  {
    name: '$push $position as an integral decimal',
    source: pushNode,
    doc: doc({ a: [1, 2] }),
    update: { $push: { a: { $each: [9], $position: NumberDecimal('1') } } },
    expect: { doc: doc({ a: [1, 9, 2] }), modified: true },
  },
  {
    name: '$push $slice -5 keeps the last 5',
    source: docsSlice,
    doc: doc({ scores: [40, 50, 60] }),
    update: { $push: { scores: { $each: [80, 78, 86], $slice: -5 } } },
    expect: { doc: doc({ scores: [50, 60, 80, 78, 86] }), modified: true },
  },
  {
    name: '$push $slice 3 keeps the first 3',
    source: docsSlice,
    doc: { _id: 2, scores: [89, 90] },
    update: { $push: { scores: { $each: [100, 20], $slice: 3 } } },
    expect: { doc: { _id: 2, scores: [89, 90, 100] }, modified: true },
  },
  {
    name: '$push $each [] with $slice trims',
    source: docsSlice,
    doc: { _id: 3, scores: [89, 70, 100, 20] },
    update: { $push: { scores: { $each: [], $slice: -3 } } },
    expect: { doc: { _id: 3, scores: [70, 100, 20] }, modified: true },
  },
  {
    name: '$push $slice 0 empties the array',
    source: docsSlice,
    doc: doc({ a: [1, 2] }),
    update: { $push: { a: { $each: [3], $slice: 0 } } },
    expect: { doc: doc({ a: [] }), modified: true },
  },
  {
    name: '$push $each [] with a $slice larger than the array is a no-op',
    source: pushNode,
    doc: doc({ a: [1, 2] }),
    update: { $push: { a: { $each: [], $slice: 5 } } },
    expect: { doc: doc({ a: [1, 2] }), modified: false },
  },
  {
    name: '$push $sort by a field (ties keep their order)',
    source: docsSort,
    doc: doc({
      quizzes: [
        { id: 1, score: 6 },
        { id: 2, score: 9 },
      ],
    }),
    update: {
      $push: {
        quizzes: {
          $each: [
            { id: 3, score: 8 },
            { id: 4, score: 7 },
            { id: 5, score: 6 },
          ],
          $sort: { score: 1 },
        },
      },
    },
    expect: {
      doc: doc({
        quizzes: [
          { id: 1, score: 6 },
          { id: 5, score: 6 },
          { id: 4, score: 7 },
          { id: 3, score: 8 },
          { id: 2, score: 9 },
        ],
      }),
      modified: true,
    },
  },
  {
    name: '$push $sort 1 sorts whole values',
    source: docsSort,
    doc: { _id: 2, tests: [89, 70, 89, 50] },
    update: { $push: { tests: { $each: [40, 60], $sort: 1 } } },
    expect: { doc: { _id: 2, tests: [40, 50, 60, 70, 89, 89] }, modified: true },
  },
  {
    name: '$push $each [] with $sort -1 only sorts',
    source: docsSort,
    doc: { _id: 3, tests: [89, 70, 100, 20] },
    update: { $push: { tests: { $each: [], $sort: -1 } } },
    expect: { doc: { _id: 3, tests: [100, 89, 70, 20] }, modified: true },
  },
  {
    name: '$push $sort of an already sorted array counts as a change',
    source: `${pushNode} (a $sort always reports a change; mutable BSON re-inserts the children)`,
    doc: doc({ a: [1, 2, 3] }),
    update: { $push: { a: { $each: [], $sort: 1 } } },
    expect: { doc: doc({ a: [1, 2, 3] }), modified: true },
  },
  {
    name: '$push sort with $slice too large to trim',
    source: pushSort,
    doc: doc({ x: [{ a: 1 }, { a: 2 }] }),
    update: { $push: { x: { $each: [{ a: 3 }], $slice: -5, $sort: { a: 1 } } } },
    expect: { doc: doc({ x: [{ a: 1 }, { a: 2 }, { a: 3 }] }), modified: true },
  },
  {
    name: '$push sort then slice -2',
    source: pushSort,
    doc: { _id: 2, x: [{ a: 1 }, { a: 3 }] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2, $sort: { a: 1 } } } },
    expect: { doc: { _id: 2, x: [{ a: 2 }, { a: 3 }] }, modified: true },
  },
  {
    name: '$push sort descending',
    source: pushSort,
    doc: { _id: 3, x: [{ a: 1 }, { a: 3 }] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -5, $sort: { a: -1 } } } },
    expect: { doc: { _id: 3, x: [{ a: 3 }, { a: 2 }, { a: 1 }] }, modified: true },
  },
  {
    name: '$push sort descending then slice -2',
    source: pushSort,
    doc: { _id: 4, x: [{ a: 1 }, { a: 3 }] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2, $sort: { a: -1 } } } },
    expect: { doc: { _id: 4, x: [{ a: 2 }, { a: 1 }] }, modified: true },
  },
  {
    name: '$push sort by one of several fields',
    source: pushSort,
    doc: {
      _id: 5,
      x: [
        { a: 1, b: 2 },
        { a: 3, b: 1 },
      ],
    },
    update: { $push: { x: { $each: [{ a: 2, b: 3 }], $slice: -2, $sort: { b: 1 } } } },
    expect: {
      doc: {
        _id: 5,
        x: [
          { a: 1, b: 2 },
          { a: 2, b: 3 },
        ],
      },
      modified: true,
    },
  },
  {
    name: '$push sort by a dotted field',
    source: pushSort,
    doc: { _id: 6, x: [{ a: { b: 2 } }, { a: { b: 1 } }] },
    update: { $push: { x: { $each: [{ a: { b: 3 } }], $slice: -5, $sort: { 'a.b': 1 } } } },
    expect: {
      doc: { _id: 6, x: [{ a: { b: 1 } }, { a: { b: 2 } }, { a: { b: 3 } }] },
      modified: true,
    },
  },
  {
    name: '$push sort by a dotted field then slice',
    source: pushSort,
    doc: { _id: 7, x: [{ a: { b: 2 } }, { a: { b: 1 } }] },
    update: { $push: { x: { $each: [{ a: { b: 3 } }], $slice: -2, $sort: { 'a.b': 1 } } } },
    expect: { doc: { _id: 7, x: [{ a: { b: 2 } }, { a: { b: 3 } }] }, modified: true },
  },
  {
    name: '$push of a document with $sort but no $each pushes the document',
    source: pushSort,
    doc: { _id: 8, x: [{ a: 1 }, { a: 2 }] },
    update: { $push: { x: { $sort: { a: -1 } } } },
    expect: { doc: { _id: 8, x: [{ a: 1 }, { a: 2 }, { $sort: { a: -1 } }] }, modified: true },
  },
  {
    name: '$push sort by field puts non-documents first (their sort key is null)',
    source: `${pushSort} (accepted); order from ${pushNode} (PatternElementCmp)`,
    doc: { _id: 100, x: [{ a: 1 }] },
    update: { $push: { x: { $each: [{ a: 2 }, 1], $slice: -2, $sort: { a: 1 } } } },
    expect: { doc: { _id: 100, x: [{ a: 1 }, { a: 2 }] }, modified: true },
  },
  {
    name: '$push $sort {} fails',
    source: pushSort,
    doc: { _id: 100, x: [] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2, $sort: {} } } },
    expect: { error: 2, message: 'The sort pattern is empty when it should be a set of fields.' },
  },
  {
    name: '$push $slice must be an integer',
    source: pushSort,
    doc: { _id: 100, x: [] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2.1, $sort: { a: 1 } } } },
    expect: {
      error: 2,
      message: 'The value for $slice must be an integer value but was given type: double',
    },
  },
  {
    name: '$push $sort value must be 1 or -1',
    source: pushSort,
    doc: { _id: 100, x: [] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2, $sort: { a: -2 } } } },
    expect: { error: 2, message: 'The sort element value must be either 1 or -1' },
  },
  {
    name: '$push $sort field with an empty part fails',
    source: pushSort,
    doc: { _id: 100, x: [] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2, $sort: { 'a.': 1 } } } },
    expect: { error: 2, message: 'The sort field is a dotted field but has an empty part: a.' },
  },
  {
    name: '$push $sort on an empty field name fails',
    source: pushSort,
    doc: { _id: 100, x: [] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2, $sort: { '': 1 } } } },
    expect: { error: 2, message: 'The sort field cannot be empty' },
  },
  {
    name: '$push unknown clause fails',
    source: pushSort,
    doc: { _id: 100, x: [] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2, $xxx: { s: 1 } } } },
    expect: { error: 2, message: 'Unrecognized clause in $push: $xxx' },
  },
  {
    name: '$push whole-value $sort of mixed types',
    source: pushSort,
    doc: { _id: 100, x: [{ a: 1 }, 1] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2, $sort: 1 } } },
    expect: { doc: { _id: 100, x: [{ a: 1 }, { a: 2 }] }, modified: true },
  },
  {
    name: '$push $sort by field over non-documents',
    source: pushSort,
    doc: { _id: 100, x: [1, 'foo'] },
    update: { $push: { x: { $each: [{ a: 2 }], $slice: -2, $sort: { a: 1 } } } },
    expect: { doc: { _id: 100, x: ['foo', { a: 2 }] }, modified: true },
  },
  {
    name: '$push $sort must be a number or a document',
    source: pushNode,
    doc: doc({ x: [] }),
    update: { $push: { x: { $each: [1], $sort: 'up' } } },
    expect: {
      error: 2,
      message:
        'The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields',
    },
  },
  {
    name: '$push whole-value $sort must be 1 or -1',
    source: pushNode,
    doc: doc({ x: [] }),
    update: { $push: { x: { $each: [1], $sort: 2 } } },
    expect: { error: 2, message: 'The $sort element value must be either 1 or -1' },
  },
  {
    name: '$push $each must be an array',
    source: pushNode,
    doc: doc({ x: [] }),
    update: { $push: { x: { $each: 1 } } },
    expect: {
      error: 2,
      message: 'The argument to $each in $push must be an array but it was of type: double',
    },
  },
  {
    name: '$push $sort by a missing field sorts it as null',
    source: pushNode,
    doc: doc({ x: [{ a: 2 }, { b: 1 }] }),
    update: { $push: { x: { $each: [], $sort: { a: 1 } } } },
    expect: { doc: doc({ x: [{ b: 1 }, { a: 2 }] }), modified: true },
  },
  {
    name: '$push $sort by a numeric path into arrays',
    source: pushNode,
    doc: doc({ x: [{ a: [5, 1] }, { a: [2, 9] }] }),
    update: { $push: { x: { $each: [], $sort: { 'a.0': 1 } } } },
    expect: { doc: doc({ x: [{ a: [2, 9] }, { a: [5, 1] }] }), modified: true },
  },

  // $addToSet
  {
    name: '$addToSet appends a new value',
    source: addToSetTest,
    doc: doc({ a: [2, 1] }),
    update: { $addToSet: { a: 3 } },
    expect: { doc: doc({ a: [2, 1, 3] }), modified: true },
  },
  {
    name: '$addToSet of a present value is a no-op',
    source: addToSetTest,
    doc: doc({ a: [2, 1, 3] }),
    update: { $addToSet: { a: 3 } },
    expect: { doc: doc({ a: [2, 1, 3] }), modified: false },
  },
  {
    name: '$addToSet $each adds the missing ones',
    source: addToSetTest,
    doc: doc({ a: [2, 1, 3] }),
    update: { $addToSet: { a: { $each: [3, 5, 6] } } },
    expect: { doc: doc({ a: [2, 1, 3, 5, 6] }), modified: true },
  },
  {
    name: '$addToSet $each of present values is a no-op',
    source: addToSetTest,
    doc: doc({ a: [3, 5, 6] }),
    update: { $addToSet: { a: { $each: [3, 5, 6] } } },
    expect: { doc: doc({ a: [3, 5, 6] }), modified: false },
  },
  {
    name: '$addToSet $each to a missing field drops duplicates',
    source: addToSetTest,
    doc: doc({}),
    update: { $addToSet: { a: { $each: [1, 2, 2, 1] } } },
    expect: { doc: doc({ a: [1, 2] }), modified: true },
  },
  {
    name: '$addToSet $each with duplicates to an existing array',
    source: addToSetTest,
    doc: doc({ a: [1, 2] }),
    update: { $addToSet: { a: { $each: [3, 2, 2, 3, 3] } } },
    expect: { doc: doc({ a: [1, 2, 3] }), modified: true },
  },
  {
    name: '$addToSet of an array adds it as one element',
    source: docsAddToSet,
    doc: doc({ letters: ['a', 'b'] }),
    update: { $addToSet: { letters: ['c', 'd'] } },
    expect: { doc: doc({ letters: ['a', 'b', ['c', 'd']] }), modified: true },
  },
  {
    name: '$addToSet a new tag',
    source: docsAddToSet,
    doc: doc({ item: 'polarizing_filter', tags: ['electronics', 'camera'] }),
    update: { $addToSet: { tags: 'accessories' } },
    expect: {
      doc: doc({ item: 'polarizing_filter', tags: ['electronics', 'camera', 'accessories'] }),
      modified: true,
    },
  },
  {
    name: '$addToSet an existing tag',
    source: docsAddToSet,
    doc: doc({ item: 'polarizing_filter', tags: ['electronics', 'camera'] }),
    update: { $addToSet: { tags: 'camera' } },
    expect: {
      doc: doc({ item: 'polarizing_filter', tags: ['electronics', 'camera'] }),
      modified: false,
    },
  },
  {
    name: '$addToSet $each of tags',
    source: docsAddToSet,
    doc: { _id: 2, item: 'cable', tags: ['electronics', 'supplies'] },
    update: { $addToSet: { tags: { $each: ['camera', 'electronics', 'accessories'] } } },
    expect: {
      doc: { _id: 2, item: 'cable', tags: ['electronics', 'supplies', 'camera', 'accessories'] },
      modified: true,
    },
  },
  {
    name: '$addToSet to a non-array fails',
    source: docsAddToSet,
    doc: doc({ colors: 'blue, green, red' }),
    update: { $addToSet: { colors: 'mauve' } },
    expect: {
      error: 2,
      message:
        "Cannot apply $addToSet to non-array field. Field named 'colors' has non-array type string",
    },
  },
  {
    name: '$addToSet compares numbers by value (int32 1 equals 1.0)',
    source: 'mongod src/mongo/db/update/addtoset_node.cpp (compareWithBSONElement)',
    doc: doc({ a: [1] }),
    update: { $addToSet: { a: NumberInt(1) } },
    expect: { doc: doc({ a: [1] }), modified: false },
  },
  {
    name: '$addToSet compares documents by field order',
    source: 'mongod src/mongo/db/update/addtoset_node.cpp',
    doc: doc({ a: [{ x: 1, y: 2 }] }),
    update: { $addToSet: { a: { y: 2, x: 1 } } },
    expect: {
      doc: doc({
        a: [
          { x: 1, y: 2 },
          { y: 2, x: 1 },
        ],
      }),
      modified: true,
    },
  },
  {
    name: '$addToSet of a document with a $-prefixed field',
    source: addToSetTest,
    doc: doc({ a: [1, 2] }),
    update: { $addToSet: { a: { $bad: 'bad' } } },
    expect: { doc: doc({ a: [1, 2, { $bad: 'bad' }] }), modified: true },
  },
  {
    name: '$addToSet of a document with a dotted field name',
    source: addToSetTest,
    doc: doc({ a: [1, 2] }),
    update: { $addToSet: { a: { 'x.$.y': 'bad' } } },
    expect: { doc: doc({ a: [1, 2, { 'x.$.y': 'bad' }] }), modified: true },
  },
  {
    name: '$addToSet of a DBRef',
    source: addToSetTest,
    doc: doc({ a: [1, 2] }),
    update: { $addToSet: { a: { reference: dbref('coll', 7, 'db') } } },
    expect: { doc: doc({ a: [1, 2, { reference: dbref('coll', 7, 'db') }] }), modified: true },
  },
  {
    name: '$addToSet $each must be an array',
    source: 'mongod src/mongo/db/update/addtoset_node.cpp',
    doc: doc({ a: [] }),
    update: { $addToSet: { a: { $each: 1 } } },
    expect: {
      error: 14,
      message: 'The argument to $each in $addToSet must be an array but it was of type double',
    },
  },
  {
    name: '$addToSet fields after $each fail',
    source: 'mongod src/mongo/db/update/addtoset_node.cpp',
    doc: doc({ a: [] }),
    update: { $addToSet: { a: { $each: [1], x: 1 } } },
    expect: {
      error: 2,
      message: 'Found unexpected fields after $each in $addToSet: { $each: [ 1.0 ], x: 1.0 }',
    },
  },
  {
    name: '$addToSet of a document whose $each is not first adds the document',
    source: 'mongod src/mongo/db/update/addtoset_node.cpp',
    doc: doc({ a: [] }),
    update: { $addToSet: { a: { x: 1, $each: [1] } } },
    expect: { doc: doc({ a: [{ x: 1, $each: [1] }] }), modified: true },
  },

  // $pop
  {
    name: '$pop 0 fails to parse',
    source: popTest,
    doc: { _id: 0 },
    update: { $pop: { 'a.b': 0 } },
    expect: { error: 9, message: '$pop expects 1 or -1, found: 0' },
  },
  {
    name: '$pop -2 fails to parse',
    source: popTest,
    doc: { _id: 0 },
    update: { $pop: { 'a.b': -2 } },
    expect: { error: 9 },
  },
  {
    name: '$pop 2.5 fails to parse',
    source: popTest,
    doc: { _id: 0 },
    update: { $pop: { 'a.b': 2.5 } },
    expect: { error: 9, message: 'Expected an integer: a.b: 2.5' },
  },
  {
    name: '$pop 1.1 fails to parse',
    source: popTest,
    doc: { _id: 0 },
    update: { $pop: { 'a.b': 1.1 } },
    expect: { error: 9 },
  },
  {
    name: '$pop of a document fails to parse',
    source: popTest,
    doc: { _id: 0 },
    update: { $pop: { a: { b: 1 } } },
    expect: { error: 9, message: 'Expected a number in: a: { b: 1.0 }' },
  },
  {
    name: '$pop of a missing path is a no-op',
    source: popTest,
    doc: { _id: 0 },
    update: { $pop: { 'a.b': 1 } },
    expect: { doc: { _id: 0 }, modified: false },
  },
  {
    name: '$pop of a partly missing path is a no-op',
    source: popTest,
    doc: { _id: 0, a: { c: 1 } },
    update: { $pop: { 'a.b': 1 } },
    expect: { doc: { _id: 0, a: { c: 1 } }, modified: false },
  },
  {
    name: '$pop through a scalar fails',
    source: popTest,
    doc: { _id: 0, a: { b: 1 } },
    update: { $pop: { 'a.b.c': 1 } },
    expect: {
      error: 28,
      message: 'Cannot use the part (c) of (a.b.c) to traverse the element ({b: 1.0})',
    },
  },
  {
    name: '$pop through an array by field name fails',
    source: popTest,
    doc: { _id: 0, a: { b: [1, 2] } },
    update: { $pop: { 'a.b.c': 1 } },
    expect: { error: 28 },
  },
  {
    name: '$pop of a non-array fails',
    source: popTest,
    doc: { _id: 0, a: { b: { c: 1 } } },
    update: { $pop: { 'a.b': 1 } },
    expect: { error: 14, message: "Path 'a.b' contains an element of non-array type 'object'" },
  },
  {
    name: '$pop of an empty array is a no-op',
    source: popTest,
    doc: { _id: 0, a: { b: [] } },
    update: { $pop: { 'a.b': 1 } },
    expect: { doc: { _id: 0, a: { b: [] } }, modified: false },
  },
  {
    name: '$pop 1 removes the last element',
    source: popTest,
    doc: { _id: 0, a: { b: [1, 2, 3] } },
    update: { $pop: { 'a.b': 1 } },
    expect: { doc: { _id: 0, a: { b: [1, 2] } }, modified: true },
  },
  {
    name: '$pop -1 removes the first element',
    source: popTest,
    doc: { _id: 0, a: { b: [1, 2] } },
    update: { $pop: { 'a.b': -1 } },
    expect: { doc: { _id: 0, a: { b: [2] } }, modified: true },
  },
  {
    name: '$pop with the positional operator',
    source: popTest,
    doc: { _id: 0, a: [{ b: [1, 2, 3] }, { b: [4, 5, 6] }] },
    query: { _id: 0, 'a.b': 5 },
    positional: 1,
    update: { $pop: { 'a.$.b': 1 } },
    expect: { doc: { _id: 0, a: [{ b: [1, 2, 3] }, { b: [4, 5] }] }, modified: true },
  },
  {
    name: '$pop with arrayFilters',
    source: popTest,
    doc: { _id: 0, a: [{ b: [1, 2] }, { b: [4, 5] }, { b: [2, 3] }] },
    update: { $pop: { 'a.$[i].b': -1 } },
    arrayFilters: [{ 'i.b': 2 }],
    expect: { doc: { _id: 0, a: [{ b: [2] }, { b: [4, 5] }, { b: [3] }] }, modified: true },
  },
  {
    name: '$pop from a nested array',
    source: popTest,
    doc: { _id: 0, a: [1, [2, 3, 4]] },
    update: { $pop: { 'a.1': 1 } },
    expect: { doc: { _id: 0, a: [1, [2, 3]] }, modified: true },
  },
  {
    name: '$pop of a missing array element is a no-op',
    source: popTest,
    doc: { _id: 0, a: [{ b: 0 }, { b: 1 }] },
    update: { $pop: { 'a.2.b': 1 } },
    expect: { doc: { _id: 0, a: [{ b: 0 }, { b: 1 }] }, modified: false },
  },
  {
    name: '$pop -1 of scores',
    source: docsPop,
    doc: doc({ scores: [8, 9, 10] }),
    update: { $pop: { scores: -1 } },
    expect: { doc: doc({ scores: [9, 10] }), modified: true },
  },
  {
    name: '$pop 1 of scores',
    source: docsPop,
    doc: { _id: 10, scores: [9, 10] },
    update: { $pop: { scores: 1 } },
    expect: { doc: { _id: 10, scores: [9] }, modified: true },
  },
  {
    name: '$pop with an int64 argument',
    source: 'mongod src/mongo/db/update/pop_node.cpp (parseIntegerElementToLong)',
    doc: doc({ a: [1, 2] }),
    update: { $pop: { a: NumberLong(-1) } },
    expect: { doc: doc({ a: [2] }), modified: true },
  },

  // $pull
  {
    name: '$pull with $in and with a value',
    source: docsPull,
    doc: doc({
      fruits: ['apples', 'pears', 'oranges', 'grapes', 'bananas'],
      vegetables: ['carrots', 'celery', 'squash', 'carrots'],
    }),
    update: { $pull: { fruits: { $in: ['apples', 'oranges'] }, vegetables: 'carrots' } },
    expect: {
      doc: doc({ fruits: ['pears', 'grapes', 'bananas'], vegetables: ['celery', 'squash'] }),
      modified: true,
    },
  },
  {
    name: '$pull with $gte on scalars',
    source: docsPull,
    doc: doc({ votes: [3, 5, 6, 7, 7, 8] }),
    update: { $pull: { votes: { $gte: 6 } } },
    expect: { doc: doc({ votes: [3, 5] }), modified: true },
  },
  {
    name: '$pull documents matching all fields of a query',
    source: docsPull,
    doc: doc({
      results: [
        { item: 'A', score: 5 },
        { item: 'B', score: 8 },
      ],
    }),
    update: { $pull: { results: { score: 8, item: 'B' } } },
    expect: { doc: doc({ results: [{ item: 'A', score: 5 }] }), modified: true },
  },
  {
    name: '$pull documents with $elemMatch on a nested array',
    source: docsPull,
    doc: doc({
      results: [
        {
          item: 'A',
          score: 5,
          answers: [
            { q: 1, a: 4 },
            { q: 2, a: 6 },
          ],
        },
        {
          item: 'B',
          score: 8,
          answers: [
            { q: 1, a: 8 },
            { q: 2, a: 9 },
          ],
        },
      ],
    }),
    update: { $pull: { results: { answers: { $elemMatch: { q: 2, a: { $gte: 8 } } } } } },
    expect: {
      doc: doc({
        results: [
          {
            item: 'A',
            score: 5,
            answers: [
              { q: 1, a: 4 },
              { q: 2, a: 6 },
            ],
          },
        ],
      }),
      modified: true,
    },
  },
  {
    name: '$pull a value',
    source: 'jstests/core/query/pull/pull.js',
    doc: doc({ a: [1, 2, 3] }),
    update: { $pull: { a: 2 } },
    expect: { doc: doc({ a: [1, 3] }), modified: true },
  },
  {
    name: '$pull a missing value is a no-op',
    source: 'jstests/core/query/pull/pull.js',
    doc: doc({ a: [1, 3] }),
    update: { $pull: { a: 6 } },
    expect: { doc: doc({ a: [1, 3] }), modified: false },
  },
  {
    name: '$pull the last value leaves an empty array',
    source: 'jstests/core/query/pull/pull.js',
    doc: doc({ a: [2] }),
    update: { $pull: { a: 2 } },
    expect: { doc: doc({ a: [] }), modified: true },
  },
  {
    name: '$pull on a missing dotted path creates nothing',
    source: 'jstests/core/query/pull/pull.js',
    doc: doc({ m: 1 }),
    update: { $pull: { 'a.b': [1] } },
    expect: { doc: doc({ m: 1 }), modified: false },
  },
  {
    name: '$pull a document matches documents with more fields',
    source: 'jstests/core/query/pull/pull2.js',
    doc: doc({ a: [{ x: 1 }, { x: 1, b: 2 }] }),
    update: { $pull: { a: { x: 1 } } },
    expect: { doc: doc({ a: [] }), modified: true },
  },
  {
    name: '$pull with a condition on a field',
    source: 'jstests/core/query/pull/pull2.js',
    doc: doc({
      a: [
        { x: 1, b: 2 },
        { x: 2, b: 2 },
        { x: 3, b: 2 },
        { x: 4, b: 2 },
      ],
    }),
    update: { $pull: { a: { x: { $lt: 3 } } } },
    expect: {
      doc: doc({
        a: [
          { x: 3, b: 2 },
          { x: 4, b: 2 },
        ],
      }),
      modified: true,
    },
  },
  {
    name: '$pull with $exists',
    source: 'jstests/core/query/pull/pull_or.js',
    doc: { _id: 1, a: { b: [{ x: 1 }, { y: 'y' }, { x: 2 }, { z: 'z' }] } },
    update: { $pull: { 'a.b': { y: { $exists: true } } } },
    expect: { doc: { _id: 1, a: { b: [{ x: 1 }, { x: 2 }, { z: 'z' }] } }, modified: true },
  },
  {
    name: '$pull with $or',
    source: 'jstests/core/query/pull/pull_or.js',
    doc: { _id: 1, a: { b: [{ x: 1 }, { y: 'y' }, { x: 2 }, { z: 'z' }] } },
    update: { $pull: { 'a.b': { $or: [{ y: { $exists: true } }, { z: { $exists: true } }] } } },
    expect: { doc: { _id: 1, a: { b: [{ x: 1 }, { x: 2 }] } }, modified: true },
  },
  {
    name: '$pull with $in on a field',
    source: 'jstests/core/query/pull/pullall2.js',
    doc: doc({
      a: [
        { x: 0, y: 0 },
        { x: 1, y: 1 },
        { x: 2, y: 2 },
        { x: 4, y: 4 },
      ],
    }),
    update: { $pull: { a: { x: { $in: [1, 4] } } } },
    expect: {
      doc: doc({
        a: [
          { x: 0, y: 0 },
          { x: 2, y: 2 },
        ],
      }),
      modified: true,
    },
  },
  {
    name: '$pull with {} removes every document',
    source: `${pullNode} (ObjectMatcher of an empty query)`,
    doc: doc({ a: [1, { b: 1 }, [2], {}, 'x'] }),
    update: { $pull: { a: {} } },
    expect: { doc: doc({ a: [1, [2], 'x'] }), modified: true },
  },
  {
    name: '$pull a document query ignores scalars',
    source: pullNode,
    doc: doc({ a: [1, { b: 1 }] }),
    update: { $pull: { a: { b: 1 } } },
    expect: { doc: doc({ a: [1] }), modified: true },
  },
  {
    name: '$pull an array value by equality',
    source: pullNode,
    doc: doc({ a: [[1, 2], [1], 1] }),
    update: { $pull: { a: [1, 2] } },
    expect: { doc: doc({ a: [[1], 1] }), modified: true },
  },
  {
    name: '$pull an operator condition traverses element arrays',
    source: `${pullNode} (the element is matched as {"": element})`,
    doc: doc({ a: [[0, 2], [0], 5] }),
    update: { $pull: { a: { $gt: 1 } } },
    expect: { doc: doc({ a: [[0]] }), modified: true },
  },
  {
    name: '$pull equality compares numbers by value',
    source: pullNode,
    doc: doc({ a: [NumberInt(1), 1, NumberLong(1), 2] }),
    update: { $pull: { a: 1 } },
    expect: { doc: doc({ a: [2] }), modified: true },
  },
  {
    name: '$pull on a non-array fails',
    source: 'mongod src/mongo/db/update/array_culling_node.cpp',
    doc: doc({ a: 1 }),
    update: { $pull: { a: 1 } },
    expect: { error: 2, message: 'Cannot apply $pull to a non-array value' },
  },
  {
    name: '$pull through a scalar fails',
    source: 'mongod src/mongo/db/update/update_leaf_node.cpp (checkViability)',
    doc: doc({ a: 1 }),
    update: { $pull: { 'a.b': 1 } },
    expect: { error: 28 },
  },
  {
    name: '$pull on a missing field is a no-op',
    source: docsPull,
    doc: doc({}),
    update: { $pull: { a: 1 } },
    expect: { doc: doc({}), modified: false },
  },

  // $pullAll
  {
    name: '$pullAll removes every listed value',
    source: 'MongoDB manual, $pullAll',
    doc: doc({ scores: [0, 2, 5, 5, 1, 0] }),
    update: { $pullAll: { scores: [0, 5] } },
    expect: { doc: doc({ scores: [2, 1] }), modified: true },
  },
  {
    name: '$pullAll of documents by equality',
    source: 'jstests/core/query/pull/pull2.js',
    doc: doc({ a: [{ x: 1 }, { x: 1, b: 2 }] }),
    update: { $pullAll: { a: [{ x: 1 }] } },
    expect: { doc: doc({ a: [{ x: 1, b: 2 }] }), modified: true },
  },
  {
    name: '$pullAll needs an array',
    source: 'mongod src/mongo/db/update/pullall_node.cpp',
    doc: doc({ a: [1] }),
    update: { $pullAll: { a: 1 } },
    expect: { error: 2, message: '$pullAll requires an array argument but was given a double' },
  },
  {
    name: '$pullAll of values not present is a no-op',
    source: 'MongoDB manual, $pullAll',
    doc: doc({ a: [1, 2] }),
    update: { $pullAll: { a: [3] } },
    expect: { doc: doc({ a: [1, 2] }), modified: false },
  },
  {
    name: '$pullAll on a non-array fails with the $pull message',
    source: 'mongod src/mongo/db/update/array_culling_node.cpp',
    doc: doc({ a: 'x' }),
    update: { $pullAll: { a: ['x'] } },
    expect: { error: 2, message: 'Cannot apply $pull to a non-array value' },
  },
];
