// $in, $nin, $and, $or, $nor, $not.

import type { MatchCase } from './types.js';
import { values } from './types.js';
import { dbl, long, re } from './values.js';

const IN_MANUAL = 'MongoDB manual, $in / $nin';
const LEAF = 'mongod src/mongo/db/matcher/expression_leaf.cpp (InMatchExpression)';
const TREE = 'MongoDB manual, $and / $or / $nor / $not';
const WHOLE_ARRAY = 'mongodb/mongo jstests/core/query/expressions_matching_whole_array.js';

const inventory = [
  { _id: 1, item: 'Pens', quantity: 350, tags: ['school', 'office'] },
  { _id: 2, item: 'Erasers', quantity: 15, tags: ['school', 'home'] },
  { _id: 3, item: 'Maps', tags: ['office', 'storage'] },
  { _id: 4, item: 'Books', quantity: 5, tags: ['school', 'storage', 'home'] },
];

export const inAndLogicalCases: MatchCase[] = [
  {
    name: '$in on a scalar field',
    filter: { quantity: { $in: [5, 15] } },
    docs: inventory,
    expected: [2, 4],
    source: IN_MANUAL,
  },
  {
    name: '$in on an array field',
    filter: { tags: { $in: ['home', 'school'] } },
    docs: inventory,
    expected: [1, 2, 4],
    source: IN_MANUAL,
  },
  {
    name: '$nin includes documents without the field',
    filter: { quantity: { $nin: [5, 15] } },
    docs: inventory,
    expected: [1, 3],
    source: IN_MANUAL,
  },
  {
    name: '$nin on an array field',
    filter: { tags: { $nin: ['school'] } },
    docs: inventory,
    expected: [3],
    source: IN_MANUAL,
  },
  {
    name: '$in with regexes',
    filter: { tags: { $in: [/^be/, /^st/] } },
    docs: inventory,
    expected: [3, 4],
    source: IN_MANUAL,
  },
  {
    name: '$in: [] matches nothing',
    filter: { a: { $in: [] } },
    docs: values(1, null, []),
    expected: [],
    source: LEAF,
  },
  {
    name: '$nin: [] matches everything',
    filter: { a: { $nin: [] } },
    docs: values(1, null, []),
    expected: [0, 1, 2],
    source: LEAF,
  },
  {
    name: '$in compares numbers by value',
    filter: { a: { $in: [long(2), dbl(3.5)] } },
    docs: values(2, dbl(2), 3.5, 3, '2'),
    expected: [0, 1, 2],
    source: LEAF,
  },
  {
    name: '$in with an array value matches the whole array',
    filter: { a: { $in: [[1, 2, 3]] } },
    docs: values([1, 2, 3], [1, 2]),
    expected: [0],
    source: WHOLE_ARRAY,
  },
  {
    name: '$in with [] matches an empty array',
    filter: { a: { $in: [[]] } },
    docs: values([], [1]),
    expected: [0],
    source: WHOLE_ARRAY,
  },
  {
    name: '$in regex matches regex values by pattern and flags',
    filter: { a: { $in: [re('x', 'i')] } },
    docs: values(re('x', 'i'), re('x'), 'X'),
    expected: [0, 2],
    source: LEAF,
  },
  {
    name: '$in with DBRef-like documents is equality',
    filter: { a: { $in: [{ $ref: 'c', $id: 1 }] } },
    docs: values({ $ref: 'c', $id: 1 }, { $ref: 'c', $id: 2 }),
    expected: [0],
    source: 'mongod expression_parser.cpp (DBRefs allowed in $in)',
  },
  {
    name: '$and of conditions on one field',
    filter: { $and: [{ quantity: { $ne: 15 } }, { quantity: { $exists: true } }] },
    docs: inventory,
    expected: [1, 4],
    source: TREE,
  },
  {
    name: '$or',
    filter: { $or: [{ quantity: { $lt: 10 } }, { item: 'Maps' }] },
    docs: inventory,
    expected: [3, 4],
    source: TREE,
  },
  {
    name: '$nor includes missing fields',
    filter: { $nor: [{ quantity: 15 }, { quantity: 350 }] },
    docs: inventory,
    expected: [3, 4],
    source: TREE,
  },
  {
    name: '$not includes missing fields',
    filter: { quantity: { $not: { $gt: 10 } } },
    docs: inventory,
    expected: [3, 4],
    source: TREE,
  },
  {
    name: '$not with a regex',
    filter: { item: { $not: /^p/i } },
    docs: inventory,
    expected: [2, 3, 4],
    source: TREE,
  },
  {
    name: '$not with $regex',
    filter: { item: { $not: { $regex: '^p', $options: 'i' } } },
    docs: inventory,
    expected: [2, 3, 4],
    source: TREE,
  },
  {
    name: '$not of several operators',
    filter: { quantity: { $not: { $gt: 10, $lt: 100 } } },
    docs: inventory,
    expected: [1, 3, 4],
    source: TREE,
  },
  {
    name: 'nested $or inside $and',
    filter: { $and: [{ $or: [{ item: 'Pens' }, { item: 'Books' }] }, { quantity: { $gt: 10 } }] },
    docs: inventory,
    expected: [1],
    source: TREE,
  },
  {
    name: '$or of one clause',
    filter: { $or: [{ item: 'Maps' }] },
    docs: inventory,
    expected: [3],
    source: TREE,
  },
  {
    name: '$and with an empty clause matches everything',
    filter: { $and: [{}] },
    docs: inventory,
    expected: [1, 2, 3, 4],
    source: 'mongod expression_parser.cpp (an empty document is an empty AND)',
  },
  {
    name: '$comment is ignored',
    filter: { item: 'Maps', $comment: 'find maps' },
    docs: inventory,
    expected: [3],
    source: 'MongoDB manual, $comment',
  },
  {
    name: '$alwaysTrue',
    filter: { $alwaysTrue: 1 },
    docs: inventory,
    expected: [1, 2, 3, 4],
    source: 'mongod expression_parser.cpp (parseAlwaysBoolean)',
  },
  {
    name: '$alwaysFalse',
    filter: { $alwaysFalse: 1 },
    docs: inventory,
    expected: [],
    source: 'mongod expression_parser.cpp (parseAlwaysBoolean)',
  },
  {
    name: '$sampleRate 1 matches everything',
    filter: { $sampleRate: 1 },
    docs: inventory,
    expected: [1, 2, 3, 4],
    source: 'MongoDB manual, $sampleRate',
  },
  {
    name: '$sampleRate 0 matches nothing',
    filter: { $sampleRate: 0 },
    docs: inventory,
    expected: [],
    source: 'MongoDB manual, $sampleRate',
  },
];
