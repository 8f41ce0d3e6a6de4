// The positional `$`, the all-positional `$[]` and the filtered `$[<id>]`.

import { NumberInt } from '../values.js';
import type { UpdateCase } from './types.js';

const docsPos = 'MongoDB manual, $ (update)';
const docsAll = 'MongoDB manual, $[] (update)';
const docsFiltered = 'MongoDB manual, $[<identifier>] (update)';
const af = 'jstests/core/write/update/update_arrayFilters.js';
const objectNode = 'mongod src/mongo/db/update/update_object_node.cpp';
const arrayNode = 'mongod src/mongo/db/update/update_array_node.cpp';

export const positionalCases: UpdateCase[] = [
  // $
  {
    name: '$ updates the matched element',
    source: docsPos,
    doc: { _id: 1, grades: [85, 80, 80] },
    query: { _id: 1, grades: 80 },
    positional: 1,
    update: { $set: { 'grades.$': 82 } },
    expect: { doc: { _id: 1, grades: [85, 82, 80] }, modified: true },
  },
  {
    name: '$ updates a field of the matched document',
    source: docsPos,
    doc: {
      _id: 4,
      grades: [
        { grade: 80, mean: 75, std: 8 },
        { grade: 85, mean: 90, std: 5 },
        { grade: 85, mean: 85, std: 8 },
      ],
    },
    query: { _id: 4, 'grades.grade': 85 },
    positional: 1,
    update: { $set: { 'grades.$.std': 6 } },
    expect: {
      doc: {
        _id: 4,
        grades: [
          { grade: 80, mean: 75, std: 8 },
          { grade: 85, mean: 90, std: 6 },
          { grade: 85, mean: 85, std: 8 },
        ],
      },
      modified: true,
    },
  },
  {
    name: '$ with $inc',
    source: docsPos,
    doc: { _id: 1, a: [{ b: 1 }, { b: 2 }] },
    query: { 'a.b': 2 },
    positional: 1,
    update: { $inc: { 'a.$.b': 10 } },
    expect: { doc: { _id: 1, a: [{ b: 1 }, { b: 12 }] }, modified: true },
  },
  {
    name: '$ without a match from the query fails',
    source: objectNode,
    doc: { _id: 1, a: [1, 2] },
    update: { $set: { 'a.$': 3 } },
    expect: {
      error: 2,
      message: 'The positional operator did not find the match needed from the query.',
    },
  },
  {
    name: '$ without a match fails even when the field is missing',
    source: objectNode,
    doc: { _id: 1 },
    update: { $set: { 'a.$.b': 3 } },
    expect: {
      error: 2,
      message: 'The positional operator did not find the match needed from the query.',
    },
  },
  {
    name: '$ first in the path fails',
    source: objectNode,
    doc: { _id: 1 },
    update: { $set: { '$.a': 1 } },
    expect: {
      error: 2,
      message: "Cannot have positional (i.e. '$') element in the first position in path '$.a'",
    },
  },
  {
    name: 'two $ in a path fail',
    source: objectNode,
    doc: { _id: 1 },
    update: { $set: { 'a.$.b.$': 1 } },
    expect: {
      error: 2,
      message: "Too many positional (i.e. '$') elements found in path 'a.$.b.$'",
    },
  },
  {
    name: '$ and the same explicit index conflict',
    source: 'mongod src/mongo/db/update/update_node.cpp (createUpdateNodeByMerging)',
    doc: { _id: 1, a: [1, 2] },
    positional: 1,
    update: { $set: { 'a.$': 5, 'a.1': 6 } },
    expect: { error: 40, message: "Update created a conflict at 'a.1'" },
  },
  {
    name: '$ and another explicit index both apply',
    source: objectNode,
    doc: { _id: 1, a: [1, 2] },
    positional: 0,
    update: { $set: { 'a.$': 5, 'a.1': 6 } },
    expect: { doc: { _id: 1, a: [5, 6] }, modified: true },
  },
  {
    name: '$.x and explicit index.y merge on the same element',
    source: objectNode,
    doc: { _id: 1, a: [{ x: 1 }, { x: 2 }] },
    positional: 1,
    update: { $set: { 'a.$.x': 5, 'a.1.y': 6 } },
    expect: { doc: { _id: 1, a: [{ x: 1 }, { x: 5, y: 6 }] }, modified: true },
  },
  {
    name: '$ past the end of the array pads',
    source: objectNode,
    doc: { _id: 1, a: [1] },
    positional: 3,
    update: { $set: { 'a.$': 9 } },
    expect: { doc: { _id: 1, a: [1, null, null, 9] }, modified: true },
  },
  {
    name: '$unset with $ sets the element to null',
    source: 'MongoDB manual, $unset',
    doc: { _id: 1, a: [1, 2, 3] },
    positional: 1,
    update: { $unset: { 'a.$': '' } },
    expect: { doc: { _id: 1, a: [1, null, 3] }, modified: true },
  },

  // $[]
  {
    name: '$[] updates every element',
    source: docsAll,
    doc: { _id: 1, grades: [85, 82, 80] },
    update: { $inc: { 'grades.$[]': 10 } },
    expect: { doc: { _id: 1, grades: [95, 92, 90] }, modified: true },
  },
  {
    name: '$[] updates a field of every document',
    source: docsAll,
    doc: {
      _id: 1,
      grades: [
        { grade: 80, mean: 75, std: 8 },
        { grade: 85, mean: 90, std: 6 },
      ],
    },
    update: { $inc: { 'grades.$[].std': -2 } },
    expect: {
      doc: {
        _id: 1,
        grades: [
          { grade: 80, mean: 75, std: 6 },
          { grade: 85, mean: 90, std: 4 },
        ],
      },
      modified: true,
    },
  },
  {
    name: '$set with $[]',
    source: af,
    doc: { _id: 0, a: [2, 1, 2, 1] },
    update: { $set: { 'a.$[]': 3 } },
    expect: { doc: { _id: 0, a: [3, 3, 3, 3] }, modified: true },
  },
  {
    name: '$unset with $[]',
    source: af,
    doc: { _id: 0, a: [null, 1, null, 1] },
    update: { $unset: { 'a.$[]': true } },
    expect: { doc: { _id: 0, a: [null, null, null, null] }, modified: true },
  },
  {
    name: '$[] on an empty array is a no-op',
    source: docsAll,
    doc: { _id: 1, a: [] },
    update: { $set: { 'a.$[]': 1 } },
    expect: { doc: { _id: 1, a: [] }, modified: false },
  },
  {
    name: '$[] on a missing field fails',
    source: arrayNode,
    doc: { _id: 1 },
    update: { $set: { 'a.$[]': 1 } },
    expect: {
      error: 2,
      message: "The path 'a' must exist in the document in order to apply array updates.",
    },
  },
  {
    name: '$[] on a non-array fails',
    source: arrayNode,
    doc: { _id: 1, a: 5 },
    update: { $set: { 'a.$[]': 1 } },
    expect: { error: 2, message: 'Cannot apply array updates to non-array element a: 5.0' },
  },
  {
    name: '$[] over scalars with a sub-path fails',
    source: arrayNode,
    doc: { _id: 1, a: [1] },
    update: { $set: { 'a.$[].b': 1 } },
    expect: { error: 28, message: "Cannot create field 'b' in element {0: 1.0}" },
  },
  {
    name: '$[] first in the path fails',
    source: objectNode,
    doc: { _id: 1 },
    update: { $set: { '$[]': 1 } },
    expect: {
      error: 2,
      message:
        "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '$[]'",
    },
  },
  {
    name: 'nested $[].$[]',
    source: docsAll,
    doc: { _id: 1, a: [[1, 2], [3]] },
    update: { $inc: { 'a.$[].$[]': 1 } },
    expect: { doc: { _id: 1, a: [[2, 3], [4]] }, modified: true },
  },
  {
    name: '$ and $[] together',
    source: docsAll,
    doc: { _id: 1, a: [{ b: [1, 2] }, { b: [3, 4] }] },
    positional: 1,
    update: { $inc: { 'a.$.b.$[]': 10 } },
    expect: { doc: { _id: 1, a: [{ b: [1, 2] }, { b: [13, 14] }] }, modified: true },
  },

  // $[<id>]
  {
    name: '$[i] updates the matching scalars',
    source: af,
    doc: { _id: 0, a: [0, 1, 0, 1] },
    update: { $set: { 'a.$[i]': 2 } },
    arrayFilters: [{ i: 0 }],
    expect: { doc: { _id: 0, a: [2, 1, 2, 1] }, modified: true },
  },
  {
    name: '$unset with $[i]',
    source: af,
    doc: { _id: 0, a: [0, 1, 0, 1] },
    update: { $unset: { 'a.$[i]': true } },
    arrayFilters: [{ i: 0 }],
    expect: { doc: { _id: 0, a: [null, 1, null, 1] }, modified: true },
  },
  {
    name: '$inc with $[i]',
    source: af,
    doc: { _id: 0, a: [0, 1, 0, 1] },
    update: { $inc: { 'a.$[i]': 1 } },
    arrayFilters: [{ i: 1 }],
    expect: { doc: { _id: 0, a: [0, 2, 0, 2] }, modified: true },
  },
  {
    name: '$inc with $[]',
    source: af,
    doc: { _id: 0, a: [0, 1, 0, 1] },
    update: { $inc: { 'a.$[]': 1 } },
    expect: { doc: { _id: 0, a: [1, 2, 1, 2] }, modified: true },
  },
  {
    name: '$mul with $[i]',
    source: af,
    doc: { _id: 0, a: [0, 2, 0, 2] },
    update: { $mul: { 'a.$[i]': 3 } },
    arrayFilters: [{ i: 2 }],
    expect: { doc: { _id: 0, a: [0, 6, 0, 6] }, modified: true },
  },
  {
    name: '$mul with $[]',
    source: af,
    doc: { _id: 0, a: [1, 2, 1, 2] },
    update: { $mul: { 'a.$[]': 3 } },
    expect: { doc: { _id: 0, a: [3, 6, 3, 6] }, modified: true },
  },
  {
    name: '$rename with $[i] in the source fails',
    source: af,
    doc: { _id: 0, a: [1, 2, 3, 4] },
    update: { $rename: { 'a.$[i]': 'b' } },
    arrayFilters: [{ i: 0 }],
    expect: { error: 2, message: 'The source field for $rename may not be dynamic: a.$[i]' },
  },
  {
    name: 'an unused array filter with $rename fails',
    source: af,
    doc: { _id: 0, a: [1] },
    update: { $rename: { a: 'b' } },
    arrayFilters: [{ i: 0 }],
    expect: {
      error: 9,
      message:
        'The array filter for identifier \'i\' was not used in the update { $rename: { a: "b" } }',
    },
  },
  {
    name: '$rename of an array to a new name',
    source: af,
    doc: { _id: 0, a: [0], b: [1] },
    update: { $rename: { a: 'b' } },
    expect: { doc: { _id: 0, b: [0] }, modified: true },
  },
  {
    name: '$min with $[i] on a field',
    source: af,
    doc: {
      _id: 0,
      a: [
        { b: 0, c: 1 },
        { b: 0, c: -1 },
        { b: 1, c: 1 },
      ],
    },
    update: { $min: { 'a.$[i].c': 0 } },
    arrayFilters: [{ 'i.b': 0 }],
    expect: {
      doc: {
        _id: 0,
        a: [
          { b: 0, c: 0 },
          { b: 0, c: -1 },
          { b: 1, c: 1 },
        ],
      },
      modified: true,
    },
  },
  {
    name: '$min with $[] on a field',
    source: af,
    doc: {
      _id: 0,
      a: [
        { b: 0, c: 0 },
        { b: 0, c: -1 },
        { b: 1, c: 1 },
      ],
    },
    update: { $min: { 'a.$[].c': 0 } },
    expect: {
      doc: {
        _id: 0,
        a: [
          { b: 0, c: 0 },
          { b: 0, c: -1 },
          { b: 1, c: 0 },
        ],
      },
      modified: true,
    },
  },
  {
    name: '$max with $[i] on a field',
    source: af,
    doc: {
      _id: 0,
      a: [
        { b: 0, c: 1 },
        { b: 0, c: -1 },
        { b: 1, c: -1 },
      ],
    },
    update: { $max: { 'a.$[i].c': 0 } },
    arrayFilters: [{ 'i.b': 0 }],
    expect: {
      doc: {
        _id: 0,
        a: [
          { b: 0, c: 1 },
          { b: 0, c: 0 },
          { b: 1, c: -1 },
        ],
      },
      modified: true,
    },
  },
  {
    name: '$addToSet with $[i]',
    source: af,
    doc: { _id: 0, a: [[0], [1]] },
    update: { $addToSet: { 'a.$[i]': 2 } },
    arrayFilters: [{ i: 0 }],
    expect: { doc: { _id: 0, a: [[0, 2], [1]] }, modified: true },
  },
  {
    name: '$addToSet with $[]',
    source: af,
    doc: { _id: 0, a: [[0], [1]] },
    update: { $addToSet: { 'a.$[]': 2 } },
    expect: {
      doc: {
        _id: 0,
        a: [
          [0, 2],
          [1, 2],
        ],
      },
      modified: true,
    },
  },
  {
    name: '$pop with $[i]',
    source: af,
    doc: {
      _id: 0,
      a: [
        [0, 1],
        [1, 2],
      ],
    },
    update: { $pop: { 'a.$[i]': 1 } },
    arrayFilters: [{ i: 0 }],
    expect: { doc: { _id: 0, a: [[0], [1, 2]] }, modified: true },
  },
  {
    name: '$pop with $[]',
    source: af,
    doc: { _id: 0, a: [[0]] },
    update: { $pop: { 'a.$[]': 1 } },
    expect: { doc: { _id: 0, a: [[]] }, modified: true },
  },
  {
    name: '$pullAll with $[i]',
    source: af,
    doc: {
      _id: 0,
      a: [
        [0, 1, 2, 3],
        [1, 2, 3, 4],
      ],
    },
    update: { $pullAll: { 'a.$[i]': [0, 2] } },
    arrayFilters: [{ i: 0 }],
    expect: {
      doc: {
        _id: 0,
        a: [
          [1, 3],
          [1, 2, 3, 4],
        ],
      },
      modified: true,
    },
  },
  {
    name: '$pullAll with $[]',
    source: af,
    doc: {
      _id: 0,
      a: [
        [0, 1, 2, 3],
        [1, 2, 3, 4],
      ],
    },
    update: { $pullAll: { 'a.$[]': [0, 2] } },
    expect: {
      doc: {
        _id: 0,
        a: [
          [1, 3],
          [1, 3, 4],
        ],
      },
      modified: true,
    },
  },
  {
    name: '$pull with $[i]',
    source: af,
    doc: {
      _id: 0,
      a: [
        [0, 1],
        [1, 2],
      ],
    },
    update: { $pull: { 'a.$[i]': 1 } },
    arrayFilters: [{ i: 2 }],
    expect: { doc: { _id: 0, a: [[0, 1], [2]] }, modified: true },
  },
  {
    name: '$pull with $[]',
    source: af,
    doc: {
      _id: 0,
      a: [
        [0, 1],
        [1, 2],
      ],
    },
    update: { $pull: { 'a.$[]': 1 } },
    expect: { doc: { _id: 0, a: [[0], [2]] }, modified: true },
  },
  {
    name: '$push with $[i]',
    source: af,
    doc: {
      _id: 0,
      a: [
        [0, 1],
        [2, 3],
      ],
    },
    update: { $push: { 'a.$[i]': 4 } },
    arrayFilters: [{ i: 0 }],
    expect: {
      doc: {
        _id: 0,
        a: [
          [0, 1, 4],
          [2, 3],
        ],
      },
      modified: true,
    },
  },
  {
    name: '$push with $[]',
    source: af,
    doc: {
      _id: 0,
      a: [
        [0, 1],
        [2, 3],
      ],
    },
    update: { $push: { 'a.$[]': 4 } },
    expect: {
      doc: {
        _id: 0,
        a: [
          [0, 1, 4],
          [2, 3, 4],
        ],
      },
      modified: true,
    },
  },
  {
    name: '$bit with $[i]',
    source: af,
    doc: { _id: 0, a: [NumberInt(0), NumberInt(2)] },
    update: { $bit: { 'a.$[i]': { or: NumberInt(10) } } },
    arrayFilters: [{ i: 0 }],
    expect: { doc: { _id: 0, a: [NumberInt(10), NumberInt(2)] }, modified: true },
  },
  {
    name: '$bit with $[]',
    source: af,
    doc: { _id: 0, a: [NumberInt(0), NumberInt(2)] },
    update: { $bit: { 'a.$[]': { or: NumberInt(10) } } },
    expect: { doc: { _id: 0, a: [NumberInt(10), NumberInt(10)] }, modified: true },
  },
  {
    name: '$[i] matching nothing is a no-op',
    source: 'spec test updateOne-arrayFilters.json',
    doc: { _id: 1, y: [{ b: 3 }, { b: 1 }] },
    update: { $set: { 'y.$[i].b': 2 } },
    arrayFilters: [{ 'i.b': 4 }],
    expect: { doc: { _id: 1, y: [{ b: 3 }, { b: 1 }] }, modified: false },
  },
  {
    name: '$[i] updating documents',
    source: af,
    doc: { _id: 0, a: [{ b: 0 }, { b: 1 }] },
    update: { $set: { 'a.$[i].b': 2 } },
    arrayFilters: [{ 'i.b': 0 }],
    expect: { doc: { _id: 0, a: [{ b: 2 }, { b: 1 }] }, modified: true },
  },
  {
    name: '$[].$[j] in an array of arrays',
    source: af,
    doc: {
      _id: 0,
      a: [
        [0, 1],
        [0, 1],
      ],
    },
    update: { $set: { 'a.$[].$[j]': 2 } },
    arrayFilters: [{ j: 0 }],
    expect: {
      doc: {
        _id: 0,
        a: [
          [2, 1],
          [2, 1],
        ],
      },
      modified: true,
    },
  },
  {
    name: '$[i].c.$[j].d in nested arrays',
    source: af,
    doc: {
      _id: 0,
      a: [
        { b: 0, c: [{ d: 0 }, { d: 1 }] },
        { b: 1, c: [{ d: 0 }, { d: 1 }] },
      ],
    },
    update: { $set: { 'a.$[i].c.$[j].d': 2 } },
    arrayFilters: [{ 'i.b': 0 }, { 'j.d': 0 }],
    expect: {
      doc: {
        _id: 0,
        a: [
          { b: 0, c: [{ d: 2 }, { d: 1 }] },
          { b: 1, c: [{ d: 0 }, { d: 1 }] },
        ],
      },
      modified: true,
    },
  },
  {
    name: '$[i] with a logical filter',
    source: af,
    doc: { _id: 0, a: [0, 1, 3] },
    update: { $set: { 'a.$[i]': 2 } },
    arrayFilters: [{ $or: [{ i: 0 }, { i: 3 }] }],
    expect: { doc: { _id: 0, a: [2, 1, 2] }, modified: true },
  },
  {
    name: '$[element] with $gte',
    source: docsFiltered,
    doc: { _id: 2, grades: [98, 100, 102] },
    update: { $set: { 'grades.$[element]': 100 } },
    arrayFilters: [{ element: { $gte: 100 } }],
    expect: { doc: { _id: 2, grades: [98, 100, 100] }, modified: true },
  },
  {
    name: '$[elem] on documents with two conditions',
    source: docsFiltered,
    doc: {
      _id: 1,
      grades: [
        { grade: 80, mean: 75, std: 6 },
        { grade: 85, mean: 90, std: 4 },
        { grade: 85, mean: 85, std: 6 },
      ],
    },
    update: { $inc: { 'grades.$[elem].std': -1 } },
    arrayFilters: [{ 'elem.grade': { $gte: 85 }, 'elem.std': { $gte: 5 } }],
    expect: {
      doc: {
        _id: 1,
        grades: [
          { grade: 80, mean: 75, std: 6 },
          { grade: 85, mean: 90, std: 4 },
          { grade: 85, mean: 85, std: 5 },
        ],
      },
      modified: true,
    },
  },
  {
    name: '$[i] and $[j] on disjoint elements of one array',
    source: af,
    doc: { _id: 0, a: [0, 1, 2] },
    update: { $set: { 'a.$[i]': 5, 'a.$[j]': 6 } },
    arrayFilters: [{ i: 0 }, { j: 2 }],
    expect: { doc: { _id: 0, a: [5, 1, 6] }, modified: true },
  },
  {
    name: '$[i] and $[j] matching the same element conflict',
    source: arrayNode,
    doc: { _id: 0, a: [0, 1] },
    update: { $set: { 'a.$[i]': 5, 'a.$[j]': 6 } },
    arrayFilters: [{ i: 0 }, { j: { $lt: 1 } }],
    expect: { error: 40, message: "Update created a conflict at 'a.0'" },
  },
  {
    name: 'different leaves under overlapping filters merge',
    source: af,
    doc: { _id: 0, a: [{ x: 0, b: [{ y: 0, c: 0, d: 0 }] }] },
    update: { $set: { 'a.$[i].b.$[k].c': 1, 'a.$[j].b.$[k].d': 1 } },
    arrayFilters: [{ 'i.x': 0 }, { 'j.x': 0 }, { 'k.y': 0 }],
    expect: { doc: { _id: 0, a: [{ x: 0, b: [{ y: 0, c: 1, d: 1 }] }] }, modified: true },
  },
  {
    name: 'one leaf under overlapping filters conflicts',
    source: af,
    doc: {
      _id: 0,
      a: [
        { x: 0, b: [{ y: 0, c: 0 }] },
        { x: 1, b: [{ y: 0, c: 0 }] },
      ],
    },
    update: { $set: { 'a.$[i].b.$[k].c': 1, 'a.$[j].b.$[k].c': 2 } },
    arrayFilters: [{ 'i.x': 0 }, { 'j.x': 0 }, { 'k.y': 0 }],
    expect: { error: 40, message: "Update created a conflict at 'a.0.b.$[k].c'" },
  },
  {
    name: 'one leaf under disjoint filters applies both',
    source: af,
    doc: {
      _id: 0,
      a: [
        { x: 0, b: [{ y: 0, c: 0 }] },
        { x: 1, b: [{ y: 0, c: 0 }] },
      ],
    },
    update: { $set: { 'a.$[i].b.$[k].c': 1, 'a.$[j].b.$[k].c': 2 } },
    arrayFilters: [{ 'i.x': 0 }, { 'j.x': 1 }, { 'k.y': 0 }],
    expect: {
      doc: {
        _id: 0,
        a: [
          { x: 0, b: [{ y: 0, c: 1 }] },
          { x: 1, b: [{ y: 0, c: 2 }] },
        ],
      },
      modified: true,
    },
  },
  {
    name: 'nested filters intersecting on one element conflict',
    source: af,
    doc: {
      _id: 0,
      a: [
        { x: 0, b: [{ y: 0, c: 0 }] },
        {
          x: 1,
          b: [
            { y: 0, c: 0 },
            { y: 1, c: 0 },
          ],
        },
      ],
    },
    update: { $set: { 'a.$[i].b.$[k].c': 1, 'a.$[j].b.$[m].c': 2 } },
    arrayFilters: [{ 'i.x': 0 }, { 'j.x': 0 }, { 'k.y': 0 }, { 'm.y': 0 }],
    expect: { error: 40, message: "Update created a conflict at 'a.0.b.0.c'" },
  },
  {
    name: 'nested filters not intersecting apply',
    source: af,
    doc: {
      _id: 0,
      a: [
        { x: 0, b: [{ y: 0, c: 0 }] },
        {
          x: 1,
          b: [
            { y: 0, c: 0 },
            { y: 1, c: 0 },
          ],
        },
      ],
    },
    update: { $set: { 'a.$[i].b.$[k].c': 1, 'a.$[j].b.$[m].c': 2 } },
    arrayFilters: [{ 'i.x': 1 }, { 'j.x': 1 }, { 'k.y': 0 }, { 'm.y': 1 }],
    expect: {
      doc: {
        _id: 0,
        a: [
          { x: 0, b: [{ y: 0, c: 0 }] },
          {
            x: 1,
            b: [
              { y: 0, c: 1 },
              { y: 1, c: 2 },
            ],
          },
        ],
      },
      modified: true,
    },
  },
  {
    name: 'filters are decided on the array before any change',
    source: arrayNode,
    doc: { _id: 0, a: [1, 2] },
    update: { $inc: { 'a.$[i]': 1 } },
    arrayFilters: [{ i: { $lt: 3 } }],
    expect: { doc: { _id: 0, a: [2, 3] }, modified: true },
  },
  {
    name: 'an identifier written "$[i" is a plain field name',
    source: af,
    doc: { _id: 0, a: [0], b: [{ j: 0 }] },
    update: { $set: { 'a.$[i.j]': 1, 'b.$[i]': 1 } },
    arrayFilters: [{ 'i.j': 0 }],
    expect: { error: 28, message: "Cannot create field '$[i' in element {a: [ 0.0 ]}" },
  },
];
