// $group and every accumulator, $bucket and $bucketAuto (granularity included).

import type { Document } from 'mongodb';
import { Double } from 'mongodb';
import { d, date, dec, jstest, l, manual, mongodSource } from './types.js';
import type { StageCase } from './types.js';

const sales: Document[] = [
  { _id: 1, item: 'abc', price: dec('10'), quantity: 2, date: date('2014-03-01T08:00:00Z') },
  { _id: 2, item: 'jkl', price: dec('20'), quantity: 1, date: date('2014-03-01T09:00:00Z') },
  { _id: 3, item: 'xyz', price: dec('5'), quantity: 10, date: date('2014-03-15T09:00:00Z') },
  { _id: 4, item: 'xyz', price: dec('5'), quantity: 20, date: date('2014-04-04T11:21:39.736Z') },
  { _id: 5, item: 'abc', price: dec('10'), quantity: 10, date: date('2014-04-04T21:23:13.331Z') },
  { _id: 6, item: 'def', price: dec('7.5'), quantity: 5, date: date('2015-06-04T05:08:13Z') },
  { _id: 7, item: 'def', price: dec('7.5'), quantity: 10, date: date('2015-09-10T08:43:00Z') },
  { _id: 8, item: 'abc', price: dec('10'), quantity: 5, date: date('2016-02-06T20:20:13Z') },
];

const books: Document[] = [
  { _id: 8751, title: 'The Banquet', author: 'Dante', copies: 2 },
  { _id: 8752, title: 'Divine Comedy', author: 'Dante', copies: 1 },
  { _id: 8645, title: 'Eclogues', author: 'Dante', copies: 2 },
  { _id: 7000, title: 'The Odyssey', author: 'Homer', copies: 10 },
  { _id: 7020, title: 'Iliad', author: 'Homer', copies: 10 },
];

const gamescores: Document[] = [
  { _id: 1, playerId: 'PlayerA', gameId: 'G1', score: 31 },
  { _id: 2, playerId: 'PlayerB', gameId: 'G1', score: 33 },
  { _id: 3, playerId: 'PlayerC', gameId: 'G1', score: 99 },
  { _id: 4, playerId: 'PlayerD', gameId: 'G1', score: 1 },
  { _id: 5, playerId: 'PlayerA', gameId: 'G2', score: 10 },
  { _id: 6, playerId: 'PlayerB', gameId: 'G2', score: 14 },
  { _id: 7, playerId: 'PlayerC', gameId: 'G2', score: 66 },
  { _id: 8, playerId: 'PlayerD', gameId: 'G2', score: 80 },
];

const quizzes: Document[] = [
  { _id: 1, name: 'dave123', quiz: 1, score: 85 },
  { _id: 2, name: 'dave2', quiz: 1, score: 90 },
  { _id: 3, name: 'ahn', quiz: 1, score: 71 },
  { _id: 4, name: 'li', quiz: 2, score: 96 },
  { _id: 5, name: 'annT', quiz: 2, score: 77 },
  { _id: 6, name: 'ty', quiz: 2, score: 82 },
];

/** One group over `values` in field v (missing where undefined). */
const over = (values: readonly unknown[]): Document[] =>
  values.map((v, n) => (v === undefined ? { _id: n + 1 } : { _id: n + 1, v }));

const group: StageCase[] = [
  {
    name: '$group $count of the collection',
    source: manual('operator/aggregation/group') + ' (Count the Number of Documents)',
    docs: sales,
    pipeline: [{ $group: { _id: null, count: { $count: {} } } }],
    expected: [{ _id: null, count: 8 }],
  },
  {
    name: '$group distinct values',
    source: manual('operator/aggregation/group') + ' (Retrieve Distinct Values)',
    docs: sales,
    pipeline: [{ $group: { _id: '$item' } }],
    expected: [{ _id: 'abc' }, { _id: 'jkl' }, { _id: 'xyz' }, { _id: 'def' }],
    unordered: true,
  },
  {
    name: '$group $sum of decimal products, then $match (having)',
    source: manual('operator/aggregation/group') + ' (Group by Item Having)',
    docs: sales,
    pipeline: [
      {
        $group: { _id: '$item', totalSaleAmount: { $sum: { $multiply: ['$price', '$quantity'] } } },
      },
      { $match: { totalSaleAmount: { $gte: 100 } } },
    ],
    expected: [
      { _id: 'abc', totalSaleAmount: dec('170') },
      { _id: 'xyz', totalSaleAmount: dec('150') },
      { _id: 'def', totalSaleAmount: dec('112.5') },
    ],
    unordered: true,
  },
  {
    name: '$group by day: $sum, $avg (a double), count',
    source: manual('operator/aggregation/group') + ' (Calculate Count, Sum, and Average)',
    docs: sales,
    pipeline: [
      {
        $match: { date: { $gte: date('2014-01-01T00:00:00Z'), $lt: date('2015-01-01T00:00:00Z') } },
      },
      {
        $group: {
          _id: { $dateToString: { format: '%Y-%m-%d', date: '$date' } },
          totalSaleAmount: { $sum: { $multiply: ['$price', '$quantity'] } },
          averageQuantity: { $avg: '$quantity' },
          count: { $sum: 1 },
        },
      },
      { $sort: { totalSaleAmount: -1 } },
    ],
    expected: [
      { _id: '2014-04-04', totalSaleAmount: dec('200'), averageQuantity: d(15), count: 2 },
      { _id: '2014-03-15', totalSaleAmount: dec('50'), averageQuantity: d(10), count: 1 },
      { _id: '2014-03-01', totalSaleAmount: dec('40'), averageQuantity: 1.5, count: 2 },
    ],
  },
  {
    name: '$group _id null totals',
    source: manual('operator/aggregation/group') + ' (Group by null)',
    docs: sales,
    pipeline: [
      {
        $group: {
          _id: null,
          totalSaleAmount: { $sum: { $multiply: ['$price', '$quantity'] } },
          averageQuantity: { $avg: '$quantity' },
          count: { $sum: 1 },
        },
      },
    ],
    expected: [{ _id: null, totalSaleAmount: dec('452.5'), averageQuantity: 7.875, count: 8 }],
  },
  {
    name: '$group $push pivots titles by author',
    source: manual('operator/aggregation/group') + ' (Pivot Data)',
    docs: books,
    pipeline: [{ $group: { _id: '$author', books: { $push: '$title' } } }],
    expected: [
      { _id: 'Dante', books: ['The Banquet', 'Divine Comedy', 'Eclogues'] },
      { _id: 'Homer', books: ['The Odyssey', 'Iliad'] },
    ],
    unordered: true,
  },
  {
    name: '$group $push $$ROOT then sum the copies',
    source: manual('operator/aggregation/group') + ' (Group Documents by author)',
    docs: books,
    pipeline: [
      { $group: { _id: '$author', books: { $push: '$$ROOT' } } },
      { $addFields: { totalCopies: { $sum: '$books.copies' } } },
      { $project: { books: 0 } },
    ],
    expected: [
      { _id: 'Dante', totalCopies: 5 },
      { _id: 'Homer', totalCopies: 20 },
    ],
    unordered: true,
  },
  {
    name: '$group by a document key: missing fields are left out of the key',
    source: jstest('aggregation/sources/group/groupMissing.js'),
    docs: [
      { _id: 1, a: null, b: 1 },
      { _id: 2, b: 1 },
      { _id: 3, b: 1 },
    ],
    pipeline: [{ $group: { _id: { a: '$a', b: '$b' }, n: { $sum: 1 } } }],
    expected: [
      { _id: { a: null, b: 1 }, n: 1 },
      { _id: { b: 1 }, n: 2 },
    ],
    unordered: true,
  },
  {
    name: '$group: 1, 1.0 and NumberLong(1) are one group, missing and null another',
    source:
      manual('operator/aggregation/group') +
      ' (the _id groups by value); ' +
      jstest('aggregation/sources/group/groupMissing.js'),
    docs: [
      { _id: 1, k: 1 },
      { _id: 2, k: d(1) },
      { _id: 3, k: l(1) },
      { _id: 4, k: null },
      { _id: 5 },
    ],
    pipeline: [
      { $group: { _id: '$k', n: { $sum: 1 } } },
      { $project: { n: 1, isNull: { $eq: ['$_id', null] } } },
    ],
    expected: [
      { _id: 1, n: 3, isNull: false },
      { _id: null, n: 2, isNull: true },
    ],
    unordered: true,
  },
  {
    name: '$group not an object',
    source: mongodSource('pipeline/document_source_group.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $group: 1 }],
    error: 15947,
  },
  {
    name: '$group without _id',
    source: mongodSource('pipeline/document_source_group.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $group: { x: { $sum: 1 } } }],
    error: 15955,
  },
  {
    name: '$group field not an accumulator object',
    source: mongodSource('pipeline/accumulation_statement.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $group: { _id: null, x: 1 } }],
    error: 40234,
  },
  {
    name: '$group dotted field name',
    source: mongodSource('pipeline/accumulation_statement.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $group: { _id: null, 'a.b': { $sum: 1 } } }],
    error: 40235,
  },
  {
    name: '$group $-prefixed field name',
    source: mongodSource('pipeline/accumulation_statement.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $group: { _id: null, $a: { $sum: 1 } } }],
    error: 40236,
  },
  {
    name: '$group unary accumulator given an array',
    source: mongodSource('pipeline/accumulation_statement.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $group: { _id: null, a: { $sum: [1, 2] } } }],
    error: 40237,
  },
  {
    name: '$group two accumulators in one field',
    source: mongodSource('pipeline/accumulation_statement.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $group: { _id: null, a: { $sum: 1, $avg: 1 } } }],
    error: 40238,
  },
  {
    name: '$group unknown accumulator',
    source: mongodSource('pipeline/accumulation_statement.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $group: { _id: null, a: { $foo: 1 } } }],
    error: 15952,
  },
];

const accumulatorsInGroup: StageCase[] = [
  {
    name: '$sum: int overflow becomes a long',
    source:
      manual('operator/aggregation/sum') +
      ' (result type); ' +
      mongodSource('pipeline/accumulator_sum.cpp'),
    docs: over([2147483647, 1]),
    pipeline: [{ $group: { _id: null, s: { $sum: '$v' } } }],
    expected: [{ _id: null, s: l(2147483648) }],
  },
  {
    name: '$sum: long overflow becomes a double',
    source: mongodSource('pipeline/accumulator_sum.cpp'),
    docs: over([l(9223372036854775807n), l(1)]),
    pipeline: [{ $group: { _id: null, s: { $sum: '$v' } } }],
    expected: [{ _id: null, s: d(9223372036854775808) }],
  },
  {
    name: '$sum: widest type wins (int + long, int + double, decimals)',
    source: manual('operator/aggregation/sum'),
    docs: [
      { _id: 1, g: 'il', v: 1 },
      { _id: 2, g: 'il', v: l(2) },
      { _id: 3, g: 'id', v: 1 },
      { _id: 4, g: 'id', v: 2.5 },
      { _id: 5, g: 'dd', v: dec('1.5') },
      { _id: 6, g: 'dd', v: dec('2.5') },
    ],
    pipeline: [{ $group: { _id: '$g', s: { $sum: '$v' } } }],
    expected: [
      { _id: 'il', s: l(3) },
      { _id: 'id', s: 3.5 },
      { _id: 'dd', s: dec('4.0') },
    ],
    unordered: true,
  },
  {
    name: '$sum ignores non-numbers, null and missing; nothing numeric is 0',
    source: manual('operator/aggregation/sum') + ' (Non-Numeric or Non-Existent Fields)',
    docs: [
      { _id: 1, g: 'a', v: 'x' },
      { _id: 2, g: 'a', v: null },
      { _id: 3, g: 'a' },
      { _id: 4, g: 'b', v: 5 },
      { _id: 5, g: 'b', v: [1, 2] },
    ],
    pipeline: [{ $group: { _id: '$g', s: { $sum: '$v' } } }],
    expected: [
      { _id: 'a', s: 0 },
      { _id: 'b', s: 5 },
    ],
    unordered: true,
  },
  {
    name: '$avg: double mean, decimal with a decimal input, null without numbers',
    source: manual('operator/aggregation/avg'),
    docs: [
      { _id: 1, g: 'i', v: 1 },
      { _id: 2, g: 'i', v: 2 },
      { _id: 3, g: 'dec', v: dec('1') },
      { _id: 4, g: 'dec', v: dec('2') },
      { _id: 5, g: 'none', v: 'x' },
      { _id: 6, g: 'none' },
    ],
    pipeline: [{ $group: { _id: '$g', a: { $avg: '$v' } } }],
    expected: [
      { _id: 'i', a: 1.5 },
      { _id: 'dec', a: dec('1.5') },
      { _id: 'none', a: null },
    ],
    unordered: true,
  },
  {
    name: '$min and $max ignore null and missing, compare across types',
    source: manual('operator/aggregation/min') + '; ' + manual('operator/aggregation/max'),
    docs: over([3, null, undefined, 'a', l(1), { x: 1 }]),
    pipeline: [{ $group: { _id: null, min: { $min: '$v' }, max: { $max: '$v' } } }],
    expected: [{ _id: null, min: l(1), max: { x: 1 } }],
  },
  {
    name: '$min and $max of only nulls and missing are null',
    source: manual('operator/aggregation/min') + ' (Null and Missing Values)',
    docs: over([null, undefined]),
    pipeline: [{ $group: { _id: null, min: { $min: '$v' }, max: { $max: '$v' } } }],
    expected: [{ _id: null, min: null, max: null }],
  },
  {
    name: '$first and $last after $sort; a missing value is null',
    source:
      manual('operator/aggregation/first') +
      ' (Missing Data); ' +
      manual('operator/aggregation/last'),
    docs: [
      { _id: 1, item: 'abc', price: 10, quantity: 2 },
      { _id: 2, item: 'abc', price: 10 },
      { _id: 3, item: 'xyz', price: 5, quantity: 10 },
      { _id: 4, item: 'xyz', price: 5, quantity: 20 },
    ],
    pipeline: [
      { $sort: { item: 1, _id: 1 } },
      { $group: { _id: '$item', first: { $first: '$quantity' }, last: { $last: '$quantity' } } },
      { $sort: { _id: 1 } },
    ],
    expected: [
      { _id: 'abc', first: 2, last: null },
      { _id: 'xyz', first: 10, last: 20 },
    ],
  },
  {
    name: '$push keeps null, skips missing',
    source: mongodSource('pipeline/accumulator_push.cpp'),
    docs: over([1, null, undefined, [2]]),
    pipeline: [{ $group: { _id: null, p: { $push: '$v' } } }],
    expected: [{ _id: null, p: [1, null, [2]] }],
  },
  {
    name: '$addToSet keeps distinct values (1 and 1.0 once), skips missing',
    source:
      manual('operator/aggregation/addToSet') +
      '; ' +
      mongodSource('pipeline/accumulator_add_to_set.cpp'),
    docs: over([1, d(1), 'a', undefined, null, 'a', [1], [1]]),
    pipeline: [
      { $group: { _id: null, s: { $addToSet: '$v' } } },
      {
        $project: {
          n: { $size: '$s' },
          hasNull: { $in: [null, '$s'] },
          hasArray: { $in: [[1], '$s'] },
        },
      },
    ],
    expected: [{ _id: null, n: 4, hasNull: true, hasArray: true }],
  },
  {
    name: '$addToSet by day ($addToSet manual example)',
    source: manual('operator/aggregation/addToSet'),
    docs: [
      { _id: 1, item: 'abc', day: 1 },
      { _id: 2, item: 'jkl', day: 1 },
      { _id: 3, item: 'xyz', day: 2 },
      { _id: 4, item: 'xyz', day: 2 },
      { _id: 5, item: 'abc', day: 2 },
    ],
    pipeline: [
      { $group: { _id: '$day', items: { $addToSet: '$item' } } },
      { $project: { items: { $sortArray: { input: '$items', sortBy: 1 } } } },
    ],
    expected: [
      { _id: 1, items: ['abc', 'jkl'] },
      { _id: 2, items: ['abc', 'xyz'] },
    ],
    unordered: true,
  },
  {
    name: '$stdDevPop per quiz',
    source: manual('operator/aggregation/stdDevPop'),
    docs: quizzes,
    pipeline: [{ $group: { _id: '$quiz', stdDev: { $stdDevPop: '$score' } } }],
    expected: [
      { _id: 1, stdDev: 8.04155872120988 },
      { _id: 2, stdDev: 8.04155872120988 },
    ],
    unordered: true,
  },
  {
    name: '$stdDevSamp per quiz; one value and no numbers give null',
    source:
      manual('operator/aggregation/stdDevSamp') +
      ' (sample standard deviation; null for a single value)',
    docs: [...quizzes, { _id: 7, quiz: 3, score: 50 }, { _id: 8, quiz: 4, score: 'x' }],
    pipeline: [
      {
        $group: { _id: '$quiz', stdDev: { $stdDevSamp: '$score' }, pop: { $stdDevPop: '$score' } },
      },
    ],
    expected: [
      { _id: 1, stdDev: 9.848857801796104, pop: 8.04155872120988 },
      { _id: 2, stdDev: 9.848857801796104, pop: 8.04155872120988 },
      { _id: 3, stdDev: null, pop: d(0) },
      { _id: 4, stdDev: null, pop: null },
    ],
    unordered: true,
  },
  {
    name: '$mergeObjects accumulator',
    source: manual('operator/aggregation/mergeObjects') + ' ($mergeObjects as an Accumulator)',
    docs: [
      { _id: 1, year: 2017, item: 'A', quantity: { '2017Q1': 500, '2017Q2': 500 } },
      {
        _id: 2,
        year: 2016,
        item: 'A',
        quantity: { '2016Q1': 400, '2016Q2': 300, '2016Q3': 0, '2016Q4': 0 },
      },
      { _id: 3, year: 2017, item: 'B', quantity: { '2017Q1': 300 } },
      { _id: 4, year: 2016, item: 'B', quantity: { '2016Q3': 100, '2016Q4': 250 } },
    ],
    pipeline: [{ $group: { _id: '$item', mergedSales: { $mergeObjects: '$quantity' } } }],
    expected: [
      {
        _id: 'A',
        mergedSales: {
          '2017Q1': 500,
          '2017Q2': 500,
          '2016Q1': 400,
          '2016Q2': 300,
          '2016Q3': 0,
          '2016Q4': 0,
        },
      },
      { _id: 'B', mergedSales: { '2017Q1': 300, '2016Q3': 100, '2016Q4': 250 } },
    ],
    unordered: true,
  },
  {
    name: '$mergeObjects of a non-document fails',
    source: mongodSource('pipeline/accumulator_merge_objects.cpp'),
    docs: over([{ a: 1 }, 5]),
    pipeline: [{ $group: { _id: null, m: { $mergeObjects: '$v' } } }],
    error: 40400,
  },
  {
    name: '$top of one game',
    source: manual('operator/aggregation/top'),
    docs: gamescores,
    pipeline: [
      { $match: { gameId: 'G1' } },
      {
        $group: {
          _id: '$gameId',
          playerId: { $top: { output: ['$playerId', '$score'], sortBy: { score: -1 } } },
        },
      },
    ],
    expected: [{ _id: 'G1', playerId: ['PlayerC', 99] }],
  },
  {
    name: '$bottom per game',
    source: manual('operator/aggregation/bottom'),
    docs: gamescores,
    pipeline: [
      {
        $group: {
          _id: '$gameId',
          playerId: { $bottom: { output: ['$playerId', '$score'], sortBy: { score: -1 } } },
        },
      },
    ],
    expected: [
      { _id: 'G1', playerId: ['PlayerD', 1] },
      { _id: 'G2', playerId: ['PlayerA', 10] },
    ],
    unordered: true,
  },
  {
    name: '$topN per game',
    source: manual('operator/aggregation/topN'),
    docs: gamescores,
    pipeline: [
      {
        $group: {
          _id: '$gameId',
          playerId: { $topN: { output: ['$playerId', '$score'], sortBy: { score: -1 }, n: 3 } },
        },
      },
    ],
    expected: [
      {
        _id: 'G1',
        playerId: [
          ['PlayerC', 99],
          ['PlayerB', 33],
          ['PlayerA', 31],
        ],
      },
      {
        _id: 'G2',
        playerId: [
          ['PlayerD', 80],
          ['PlayerC', 66],
          ['PlayerB', 14],
        ],
      },
    ],
    unordered: true,
  },
  {
    name: '$bottomN per game',
    source: manual('operator/aggregation/bottomN'),
    docs: gamescores,
    pipeline: [
      {
        $group: {
          _id: '$gameId',
          playerId: { $bottomN: { output: ['$playerId', '$score'], sortBy: { score: -1 }, n: 3 } },
        },
      },
    ],
    expected: [
      {
        _id: 'G1',
        playerId: [
          ['PlayerB', 33],
          ['PlayerA', 31],
          ['PlayerD', 1],
        ],
      },
      {
        _id: 'G2',
        playerId: [
          ['PlayerC', 66],
          ['PlayerB', 14],
          ['PlayerA', 10],
        ],
      },
    ],
    unordered: true,
  },
  {
    name: '$topN with n computed from the group key document',
    source:
      manual('operator/aggregation/topN') + ' (Computing n Based on the Group Key for $group)',
    docs: gamescores,
    pipeline: [
      {
        $group: {
          _id: { gameId: '$gameId' },
          gamescores: {
            $topN: {
              output: '$score',
              n: { $cond: { if: { $eq: ['$gameId', 'G2'] }, then: 1, else: 3 } },
              sortBy: { score: -1 },
            },
          },
        },
      },
    ],
    expected: [
      { _id: { gameId: 'G1' }, gamescores: [99, 33, 31] },
      { _id: { gameId: 'G2' }, gamescores: [80] },
    ],
    unordered: true,
  },
  {
    name: 'n is evaluated against the group key only when it is a document',
    source:
      mongodSource('pipeline/group_processor_base.cpp') +
      ' (initializer evaluated against the expanded _id when it is an object, else an empty document)',
    docs: gamescores,
    pipeline: [
      {
        $group: {
          _id: '$gameId',
          s: {
            $firstN: {
              input: '$score',
              n: { $cond: { if: { $eq: ['$_id', 'G2'] }, then: 1, else: 2 } },
            },
          },
        },
      },
    ],
    expected: [
      { _id: 'G1', s: [31, 33] },
      { _id: 'G2', s: [10, 14] },
    ],
    unordered: true,
  },
  {
    name: '$firstN and $lastN per game (missing values are null)',
    source: manual('operator/aggregation/firstN') + '; ' + manual('operator/aggregation/lastN'),
    docs: [...gamescores, { _id: 9, playerId: 'PlayerE', gameId: 'G2' }],
    pipeline: [
      { $sort: { _id: 1 } },
      {
        $group: {
          _id: '$gameId',
          first: { $firstN: { input: '$score', n: 2 } },
          last: { $lastN: { input: '$score', n: 2 } },
        },
      },
    ],
    expected: [
      { _id: 'G1', first: [31, 33], last: [99, 1] },
      { _id: 'G2', first: [10, 14], last: [80, null] },
    ],
    unordered: true,
  },
  {
    name: '$maxN and $minN skip null and missing',
    source: manual('operator/aggregation/maxN') + '; ' + manual('operator/aggregation/minN'),
    docs: [...gamescores, { _id: 9, gameId: 'G1', score: null }, { _id: 10, gameId: 'G1' }],
    pipeline: [
      {
        $group: {
          _id: '$gameId',
          max: { $maxN: { input: '$score', n: 3 } },
          min: { $minN: { input: '$score', n: 3 } },
        },
      },
    ],
    expected: [
      { _id: 'G1', max: [99, 33, 31], min: [1, 31, 33] },
      { _id: 'G2', max: [80, 66, 14], min: [10, 14, 66] },
    ],
    unordered: true,
  },
  {
    name: '$maxN with n larger than the group',
    source: manual('operator/aggregation/maxN'),
    docs: over([3, 1]),
    pipeline: [{ $group: { _id: null, m: { $maxN: { input: '$v', n: 5 } } } }],
    expected: [{ _id: null, m: [3, 1] }],
  },
  {
    name: '$firstN n not integral',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $firstN: { input: '$v', n: 1.5 } } } }],
    error: 5787903,
  },
  {
    name: '$firstN n zero',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $firstN: { input: '$v', n: 0 } } } }],
    error: 5787908,
  },
  {
    name: '$lastN n not a number',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $lastN: { input: '$v', n: 'a' } } } }],
    error: 5787902,
  },
  {
    name: '$minN without n',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $minN: { input: '$v' } } } }],
    error: 5787906,
  },
  {
    name: '$maxN without input',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $maxN: { n: 1 } } } }],
    error: 5787907,
  },
  {
    name: '$maxN unknown argument',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $maxN: { n: 1, input: '$v', x: 1 } } } }],
    error: 5787901,
  },
  {
    name: '$topN without sortBy',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $topN: { n: 1, output: '$v' } } } }],
    error: 5788005,
  },
  {
    name: '$bottomN without n',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $bottomN: { output: '$v', sortBy: { v: 1 } } } } }],
    error: 5788003,
  },
  {
    name: '$top without output',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $top: { sortBy: { v: 1 } } } } }],
    error: 5788004,
  },
  {
    name: '$bottom with n',
    source: mongodSource('pipeline/accumulator_multi.cpp'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, m: { $bottom: { n: 1, output: '$v', sortBy: { v: 1 } } } } }],
    error: 5788002,
  },
  {
    name: '$percentile and $median (approximate) of test scores',
    source:
      manual('operator/aggregation/percentile') +
      ' (Calculate a Single Value as an Accumulator); ' +
      manual('operator/aggregation/median'),
    docs: [
      { _id: 1, studentId: '2345', test01: 62, test02: 81, test03: 80 },
      { _id: 2, studentId: '2356', test01: 60, test02: 83, test03: 79 },
      { _id: 3, studentId: '2358', test01: 67, test02: 82, test03: 78 },
      { _id: 4, studentId: '2367', test01: 64, test02: 72, test03: 77 },
      { _id: 5, studentId: '2369', test01: 60, test02: 53, test03: 72 },
    ],
    pipeline: [
      {
        $group: {
          _id: null,
          p: {
            $percentile: { input: '$test01', p: [0.5, 0.75, 0.9, 0.95], method: 'approximate' },
          },
          m: { $median: { input: '$test01', method: 'approximate' } },
        },
      },
    ],
    expected: [{ _id: null, p: [d(62), d(64), d(67), d(67)], m: d(62) }],
  },
  {
    name: '$median of no numbers is null, $percentile an array of nulls',
    source: manual('operator/aggregation/percentile') + ' (non-numeric values are ignored)',
    docs: over(['a', null]),
    pipeline: [
      {
        $group: {
          _id: null,
          p: { $percentile: { input: '$v', p: [0.5], method: 'approximate' } },
          m: { $median: { input: '$v', method: 'approximate' } },
        },
      },
    ],
    expected: [{ _id: null, p: [null], m: null }],
  },
  {
    name: '$percentile p out of range',
    source: mongodSource('pipeline/accumulator_percentile.cpp'),
    docs: over([1]),
    pipeline: [
      {
        $group: { _id: null, p: { $percentile: { input: '$v', p: [1.5], method: 'approximate' } } },
      },
    ],
    error: 7750301,
  },
  {
    name: '$median without method',
    source: mongodSource('pipeline/accumulator_percentile.idl'),
    docs: over([1]),
    pipeline: [{ $group: { _id: null, p: { $median: { input: '$v' } } } }],
    error: 40414,
  },
  {
    name: '$count accumulator with an argument',
    source: mongodSource('pipeline/accumulator.cpp') + ' ($count)',
    docs: over([1]),
    pipeline: [{ $group: { _id: null, c: { $count: { x: 1 } } } }],
    error: 40481,
  },
  {
    name: '$accumulator sums in JavaScript',
    source:
      manual('operator/aggregation/accumulator') +
      ' (Use $accumulator to Implement the $avg Operator, reduced to a sum)',
    docs: over([1, 2, 4]),
    pipeline: [
      {
        $group: {
          _id: null,
          a: {
            $accumulator: {
              init: 'function() { return 0 }',
              accumulate: 'function(s, v) { return s + v }',
              accumulateArgs: ['$v'],
              merge: 'function(a, b) { return a + b }',
              lang: 'js',
            },
          },
        },
      },
    ],
    // A JavaScript number comes back as a double, as from mongod's engine.
    expected: [{ _id: null, a: new Double(7) }],
  },
];

const artists: Document[] = [
  {
    _id: 1,
    last_name: 'Bernard',
    first_name: 'Emil',
    year_born: 1868,
    year_died: 1941,
    nationality: 'France',
  },
  {
    _id: 2,
    last_name: 'Rippl-Ronai',
    first_name: 'Joszef',
    year_born: 1861,
    year_died: 1927,
    nationality: 'Hungary',
  },
  {
    _id: 3,
    last_name: 'Ostroumova',
    first_name: 'Anna',
    year_born: 1871,
    year_died: 1955,
    nationality: 'Russia',
  },
  {
    _id: 4,
    last_name: 'Van Gogh',
    first_name: 'Vincent',
    year_born: 1853,
    year_died: 1890,
    nationality: 'Holland',
  },
  {
    _id: 5,
    last_name: 'Maurer',
    first_name: 'Alfred',
    year_born: 1868,
    year_died: 1932,
    nationality: 'USA',
  },
  {
    _id: 6,
    last_name: 'Munch',
    first_name: 'Edvard',
    year_born: 1863,
    year_died: 1944,
    nationality: 'Norway',
  },
  {
    _id: 7,
    last_name: 'Redon',
    first_name: 'Odilon',
    year_born: 1840,
    year_died: 1916,
    nationality: 'France',
  },
  {
    _id: 8,
    last_name: 'Diriks',
    first_name: 'Edvard',
    year_born: 1855,
    year_died: 1930,
    nationality: 'Norway',
  },
];

const bucket: StageCase[] = [
  {
    name: '$bucket with default and output, then $match',
    source:
      manual('operator/aggregation/bucket') + ' (Bucket by Year and Filter by Bucket Results)',
    docs: artists,
    pipeline: [
      {
        $bucket: {
          groupBy: '$year_born',
          boundaries: [1840, 1850, 1860, 1870, 1880],
          default: 'Other',
          output: {
            count: { $sum: 1 },
            artists: {
              $push: {
                name: { $concat: ['$first_name', ' ', '$last_name'] },
                year_born: '$year_born',
              },
            },
          },
        },
      },
      { $match: { count: { $gt: 3 } } },
    ],
    expected: [
      {
        _id: 1860,
        count: 4,
        artists: [
          { name: 'Emil Bernard', year_born: 1868 },
          { name: 'Joszef Rippl-Ronai', year_born: 1861 },
          { name: 'Alfred Maurer', year_born: 1868 },
          { name: 'Edvard Munch', year_born: 1863 },
        ],
      },
    ],
  },
  {
    name: '$bucket default output is a count, buckets in boundary order, default bucket last',
    source: manual('operator/aggregation/bucket'),
    docs: [...artists, { _id: 9, year_born: 1900 }, { _id: 10 }],
    pipeline: [
      {
        $bucket: {
          groupBy: '$year_born',
          boundaries: [1840, 1850, 1860, 1870, 1880],
          default: 'Other',
        },
      },
    ],
    expected: [
      { _id: 1840, count: 1 },
      { _id: 1850, count: 2 },
      { _id: 1860, count: 4 },
      { _id: 1870, count: 1 },
      { _id: 'Other', count: 2 },
    ],
  },
  {
    name: '$bucket value outside the boundaries without default',
    source:
      manual('operator/aggregation/bucket') +
      ' (default: if unspecified, each input document must resolve into a bucket)',
    docs: [{ _id: 1, v: 100 }],
    pipeline: [{ $bucket: { groupBy: '$v', boundaries: [0, 10] } }],
    error: 40066,
  },
  {
    name: '$bucket not an object',
    source: mongodSource('pipeline/document_source_bucket.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucket: 1 }],
    error: 40201,
  },
  {
    name: '$bucket unknown option',
    source: mongodSource('pipeline/document_source_bucket.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucket: { groupBy: '$v', boundaries: [0, 1], x: 1 } }],
    error: 40197,
  },
  {
    name: '$bucket without boundaries',
    source: mongodSource('pipeline/document_source_bucket.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucket: { groupBy: '$v' } }],
    error: 40198,
  },
  {
    name: '$bucket one boundary',
    source: mongodSource('pipeline/document_source_bucket.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucket: { groupBy: '$v', boundaries: [0] } }],
    error: 40192,
  },
  {
    name: '$bucket boundaries of mixed types',
    source: mongodSource('pipeline/document_source_bucket.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucket: { groupBy: '$v', boundaries: [0, 'a'] } }],
    error: 40193,
  },
  {
    name: '$bucket unsorted boundaries',
    source: mongodSource('pipeline/document_source_bucket.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucket: { groupBy: '$v', boundaries: [5, 1] } }],
    error: 40194,
  },
  {
    name: '$bucket default inside the range',
    source: mongodSource('pipeline/document_source_bucket.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucket: { groupBy: '$v', boundaries: [0, 10], default: 5 } }],
    error: 40199,
  },
  {
    name: '$bucket groupBy not an expression',
    source: mongodSource('pipeline/document_source_bucket.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucket: { groupBy: 'v', boundaries: [0, 10] } }],
    error: 40202,
  },
];

const artwork: Document[] = [
  {
    _id: 1,
    title: 'The Pillars of Society',
    artist: 'Grosz',
    year: 1926,
    price: dec('199.99'),
    dimensions: { height: 39, width: 21, units: 'in' },
  },
  {
    _id: 2,
    title: 'Melancholy III',
    artist: 'Munch',
    year: 1902,
    price: dec('280.00'),
    dimensions: { height: 49, width: 32, units: 'in' },
  },
  {
    _id: 3,
    title: 'Dancer',
    artist: 'Miro',
    year: 1925,
    price: dec('76.04'),
    dimensions: { height: 25, width: 20, units: 'in' },
  },
  {
    _id: 4,
    title: 'The Great Wave off Kanagawa',
    artist: 'Hokusai',
    price: dec('167.30'),
    dimensions: { height: 24, width: 36, units: 'in' },
  },
  {
    _id: 5,
    title: 'The Persistence of Memory',
    artist: 'Dali',
    year: 1931,
    price: dec('483.00'),
    dimensions: { height: 20, width: 24, units: 'in' },
  },
  {
    _id: 6,
    title: 'Composition VII',
    artist: 'Kandinsky',
    year: 1913,
    price: dec('385.00'),
    dimensions: { height: 30, width: 46, units: 'in' },
  },
  {
    _id: 7,
    title: 'The Scream',
    artist: 'Munch',
    price: dec('159.00'),
    dimensions: { height: 24, width: 18, units: 'in' },
  },
  {
    _id: 8,
    title: 'Blue Flower',
    artist: "O'Keefe",
    year: 1918,
    price: dec('118.42'),
    dimensions: { height: 24, width: 20, units: 'in' },
  },
];

const hundred: Document[] = Array.from({ length: 100 }, (_, n) => ({ _id: n }));

const bucketAuto: StageCase[] = [
  {
    name: '$bucketAuto by price into four buckets',
    source: manual('operator/aggregation/bucketAuto') + ' (Single Facet Aggregation)',
    docs: artwork,
    pipeline: [{ $bucketAuto: { groupBy: '$price', buckets: 4 } }],
    expected: [
      { _id: { min: dec('76.04'), max: dec('159.00') }, count: 2 },
      { _id: { min: dec('159.00'), max: dec('199.99') }, count: 2 },
      { _id: { min: dec('199.99'), max: dec('385.00') }, count: 2 },
      { _id: { min: dec('385.00'), max: dec('483.00') }, count: 2 },
    ],
  },
  {
    name: '$bucketAuto with missing values (null) and output accumulators',
    source: manual('operator/aggregation/bucketAuto') + ' (Multi-Faceted Aggregation: year)',
    docs: artwork,
    pipeline: [
      {
        $bucketAuto: {
          groupBy: '$year',
          buckets: 3,
          output: { count: { $sum: 1 }, years: { $push: '$year' } },
        },
      },
    ],
    expected: [
      { _id: { min: null, max: 1913 }, count: 3, years: [1902] },
      { _id: { min: 1913, max: 1926 }, count: 3, years: [1913, 1918, 1925] },
      { _id: { min: 1926, max: 1931 }, count: 2, years: [1926, 1931] },
    ],
  },
  {
    name: '$bucketAuto keeps equal values in one bucket',
    source: manual('operator/aggregation/bucketAuto') + ' (Multi-Faceted Aggregation: area)',
    docs: artwork,
    pipeline: [
      {
        $bucketAuto: {
          groupBy: { $multiply: ['$dimensions.height', '$dimensions.width'] },
          buckets: 4,
          output: { count: { $sum: 1 }, titles: { $push: '$title' } },
        },
      },
    ],
    expected: [
      {
        _id: { min: 432, max: 500 },
        count: 3,
        titles: ['The Scream', 'The Persistence of Memory', 'Blue Flower'],
      },
      { _id: { min: 500, max: 864 }, count: 2, titles: ['Dancer', 'The Pillars of Society'] },
      {
        _id: { min: 864, max: 1568 },
        count: 2,
        titles: ['The Great Wave off Kanagawa', 'Composition VII'],
      },
      { _id: { min: 1568, max: 1568 }, count: 1, titles: ['Melancholy III'] },
    ],
  },
  {
    name: '$bucketAuto granularity R20',
    source:
      manual('operator/aggregation/bucketAuto') +
      ' (Granularity: R20); ' +
      mongodSource('pipeline/granularity_rounder_preferred_numbers.cpp'),
    docs: hundred,
    pipeline: [{ $bucketAuto: { groupBy: '$_id', buckets: 5, granularity: 'R20' } }],
    expected: [
      { _id: { min: 0, max: d(20) }, count: 20 },
      { _id: { min: d(20), max: d(40) }, count: 20 },
      { _id: { min: d(40), max: d(63) }, count: 23 },
      { _id: { min: d(63), max: d(90) }, count: 27 },
      { _id: { min: d(90), max: d(100) }, count: 10 },
    ],
  },
  {
    name: '$bucketAuto granularity E12: a bucket starts at the previous rounded max',
    source:
      mongodSource('pipeline/document_source_bucket_auto.cpp') +
      ' (min is the previous max); ' +
      mongodSource('pipeline/granularity_rounder_preferred_numbers.cpp'),
    docs: [
      { _id: 1, v: 11 },
      { _id: 2, v: 13 },
      { _id: 3, v: 30 },
      { _id: 4, v: 31 },
    ],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 2, granularity: 'E12' } }],
    expected: [
      { _id: { min: d(10), max: d(15) }, count: 2 },
      { _id: { min: d(15), max: d(33) }, count: 2 },
    ],
  },
  {
    name: '$bucketAuto granularity R40 and E48 series',
    source: mongodSource('pipeline/granularity_rounder_preferred_numbers.cpp'),
    docs: [
      { _id: 1, v: 101 },
      { _id: 2, v: 103 },
    ],
    pipeline: [
      {
        $facet: {
          r40: [{ $bucketAuto: { groupBy: '$v', buckets: 1, granularity: 'R40' } }],
          e48: [{ $bucketAuto: { groupBy: '$v', buckets: 1, granularity: 'E48' } }],
        },
      },
    ],
    expected: [
      {
        r40: [{ _id: { min: d(100), max: d(106) }, count: 2 }],
        e48: [{ _id: { min: d(100), max: d(105) }, count: 2 }],
      },
    ],
  },
  {
    name: '$bucketAuto granularity on decimals rounds in decimal',
    source:
      mongodSource('pipeline/granularity_rounder_preferred_numbers.cpp') + ' (Decimal128 branch)',
    docs: [
      { _id: 1, v: dec('12') },
      { _id: 2, v: dec('17') },
    ],
    pipeline: [
      { $bucketAuto: { groupBy: '$v', buckets: 1, granularity: '1-2-5' } },
      {
        $project: {
          _id: 0,
          minType: { $type: '$_id.min' },
          maxType: { $type: '$_id.max' },
          min: { $toDouble: '$_id.min' },
          max: { $toDouble: '$_id.max' },
        },
      },
    ],
    expected: [{ minType: 'decimal', maxType: 'decimal', min: d(10), max: d(20) }],
  },
  {
    name: '$bucketAuto granularity POWERSOF2 (integral results for integral input)',
    source: mongodSource('pipeline/granularity_rounder_powers_of_two.cpp'),
    docs: [
      { _id: 1, v: 3 },
      { _id: 2, v: 5 },
      { _id: 3, v: 9 },
      { _id: 4, v: 17 },
    ],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 2, granularity: 'POWERSOF2' } }],
    expected: [
      { _id: { min: 2, max: 8 }, count: 2 },
      { _id: { min: 8, max: 32 }, count: 2 },
    ],
  },
  {
    name: '$bucketAuto more buckets than documents',
    source:
      mongodSource('pipeline/document_source_bucket_auto.cpp') + ' (approxBucketSize at least 1)',
    docs: [
      { _id: 1, v: 1 },
      { _id: 2, v: 2 },
    ],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 5 } }],
    expected: [
      { _id: { min: 1, max: 2 }, count: 1 },
      { _id: { min: 2, max: 2 }, count: 1 },
    ],
  },
  {
    name: '$bucketAuto granularity on a non-number',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1, v: 'a' }],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 1, granularity: 'R5' } }],
    error: 40258,
  },
  {
    name: '$bucketAuto granularity on a negative number',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1, v: -1 }],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 1, granularity: 'R5' } }],
    error: 40260,
  },
  {
    name: '$bucketAuto unknown granularity',
    source: mongodSource('pipeline/granularity_rounder.cpp'),
    docs: [{ _id: 1, v: 1 }],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 1, granularity: 'X' } }],
    error: 40257,
  },
  {
    name: '$bucketAuto not an object',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucketAuto: 1 }],
    error: 40240,
  },
  {
    name: '$bucketAuto groupBy not an expression',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucketAuto: { groupBy: 'v', buckets: 1 } }],
    error: 40239,
  },
  {
    name: '$bucketAuto buckets not a number',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 'a' } }],
    error: 40241,
  },
  {
    name: '$bucketAuto buckets fractional',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 1.5 } }],
    error: 40242,
  },
  {
    name: '$bucketAuto buckets zero',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 0 } }],
    error: 40243,
  },
  {
    name: '$bucketAuto output not an object',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 1, output: 1 } }],
    error: 40244,
  },
  {
    name: '$bucketAuto unknown option',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 1, x: 1 } }],
    error: 40245,
  },
  {
    name: '$bucketAuto without buckets',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucketAuto: { groupBy: '$v' } }],
    error: 40246,
  },
  {
    name: '$bucketAuto granularity not a string',
    source: mongodSource('pipeline/document_source_bucket_auto.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $bucketAuto: { groupBy: '$v', buckets: 1, granularity: 1 } }],
    error: 40261,
  },
];

export const groupCases: readonly StageCase[] = [
  ...group,
  ...accumulatorsInGroup,
  ...bucket,
  ...bucketAuto,
];
