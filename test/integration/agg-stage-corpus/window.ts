// $setWindowFields with every accumulator and every window-only function (documents and range
// windows, time units), and the gap-filling stages $densify and $fill.

import type { Document } from 'mongodb';
import { d, date, dec, jstest, l, manual, mongodSource } from './types.js';
import type { StageCase } from './types.js';

const cakeSales: Document[] = [
  {
    _id: 0,
    type: 'chocolate',
    orderDate: date('2020-05-18T14:10:30Z'),
    state: 'CA',
    price: 13,
    quantity: 120,
  },
  {
    _id: 1,
    type: 'chocolate',
    orderDate: date('2021-03-20T11:30:05Z'),
    state: 'WA',
    price: 14,
    quantity: 140,
  },
  {
    _id: 2,
    type: 'vanilla',
    orderDate: date('2021-01-11T06:31:15Z'),
    state: 'CA',
    price: 12,
    quantity: 145,
  },
  {
    _id: 3,
    type: 'vanilla',
    orderDate: date('2020-02-08T13:13:23Z'),
    state: 'WA',
    price: 13,
    quantity: 104,
  },
  {
    _id: 4,
    type: 'strawberry',
    orderDate: date('2019-05-18T16:09:01Z'),
    state: 'CA',
    price: 41,
    quantity: 162,
  },
  {
    _id: 5,
    type: 'strawberry',
    orderDate: date('2019-01-08T06:12:03Z'),
    state: 'WA',
    price: 43,
    quantity: 134,
  },
];

/** The cake sales reduced to _id and the output field, in the given _id order. */
const ids = (order: readonly number[], field: string, values: readonly unknown[]): Document[] =>
  order.map((id, n) => ({ _id: id, [field]: values[n] }));
const keep = (field: string): Document => ({ $project: { [field]: 1 } });

/** A window function over the cake sales by state, ordered by orderDate (CA: 4 0 2, WA: 5 3 1). */
const byStateDate = (field: string, spec: Document): Document[] => [
  {
    $setWindowFields: {
      partitionBy: '$state',
      sortBy: { orderDate: 1 },
      output: { [field]: spec },
    },
  },
  keep(field),
];
const stateDateOrder = [4, 0, 2, 5, 3, 1];

const sum = manual('operator/aggregation/setWindowFields');

const windows: StageCase[] = [
  {
    name: '$setWindowFields cumulative $sum per state (documents window)',
    source: sum + ' (Use Documents Window to Obtain Cumulative Quantity for Each State)',
    docs: cakeSales,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$state',
          sortBy: { orderDate: 1 },
          output: {
            cumulativeQuantityForState: {
              $sum: '$quantity',
              window: { documents: ['unbounded', 'current'] },
            },
          },
        },
      },
    ],
    expected: [
      { ...cakeSales[4], cumulativeQuantityForState: 162 },
      { ...cakeSales[0], cumulativeQuantityForState: 282 },
      { ...cakeSales[2], cumulativeQuantityForState: 427 },
      { ...cakeSales[5], cumulativeQuantityForState: 134 },
      { ...cakeSales[3], cumulativeQuantityForState: 238 },
      { ...cakeSales[1], cumulativeQuantityForState: 378 },
    ],
  },
  {
    name: '$setWindowFields partitioned by an expression ($year)',
    source: sum + ' (Use Documents Window to Obtain Cumulative Quantity for Each Year)',
    docs: cakeSales,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: { $year: '$orderDate' },
          sortBy: { orderDate: 1 },
          output: { c: { $sum: '$quantity', window: { documents: ['unbounded', 'current'] } } },
        },
      },
      keep('c'),
    ],
    expected: ids([5, 4, 3, 0, 2, 1], 'c', [134, 296, 104, 224, 145, 285]),
  },
  {
    name: '$avg over a moving documents window [-1, 0]',
    source: sum + ' (Use Documents Window to Obtain Moving Average Quantity for Each Year)',
    docs: cakeSales,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: { $year: '$orderDate' },
          sortBy: { orderDate: 1 },
          output: { averageQuantity: { $avg: '$quantity', window: { documents: [-1, 0] } } },
        },
      },
      keep('averageQuantity'),
    ],
    expected: ids([5, 4, 3, 0, 2, 1], 'averageQuantity', [
      d(134),
      d(148),
      d(104),
      d(112),
      d(145),
      142.5,
    ]),
  },
  {
    name: '$max over the whole partition',
    source: sum + ' (Use Documents Window to Obtain Cumulative and Maximum Quantity for Each Year)',
    docs: cakeSales,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: { $year: '$orderDate' },
          sortBy: { orderDate: 1 },
          output: { m: { $max: '$quantity', window: { documents: ['unbounded', 'unbounded'] } } },
        },
      },
      keep('m'),
    ],
    expected: ids([5, 4, 3, 0, 2, 1], 'm', [162, 162, 120, 120, 145, 145]),
  },
  {
    name: 'range window of values [-10, 10]',
    source: sum + ' (Range Window Example)',
    docs: cakeSales,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$state',
          sortBy: { price: 1 },
          output: { q: { $sum: '$quantity', window: { range: [-10, 10] } } },
        },
      },
      keep('q'),
    ],
    expected: ids([2, 0, 4, 3, 1, 5], 'q', [265, 265, 162, 244, 244, 134]),
  },
  {
    name: 'range window with a time unit',
    source: sum + ' (Use a Time Range Window with a Positive Upper Bound)',
    docs: cakeSales,
    pipeline: byStateDate('recentOrders', {
      $push: '$orderDate',
      window: { range: ['unbounded', 10], unit: 'month' },
    }),
    expected: ids(stateDateOrder, 'recentOrders', [
      [date('2019-05-18T16:09:01Z')],
      [date('2019-05-18T16:09:01Z'), date('2020-05-18T14:10:30Z'), date('2021-01-11T06:31:15Z')],
      [date('2019-05-18T16:09:01Z'), date('2020-05-18T14:10:30Z'), date('2021-01-11T06:31:15Z')],
      [date('2019-01-08T06:12:03Z')],
      [date('2019-01-08T06:12:03Z'), date('2020-02-08T13:13:23Z')],
      [date('2019-01-08T06:12:03Z'), date('2020-02-08T13:13:23Z'), date('2021-03-20T11:30:05Z')],
    ]),
  },
  {
    name: 'range window with a negative time bound (empty windows push nothing)',
    source: sum + ' (Use a Time Range Window with a Negative Upper Bound)',
    docs: cakeSales,
    pipeline: byStateDate('recentOrders', {
      $push: '$orderDate',
      window: { range: ['unbounded', -10], unit: 'month' },
    }),
    expected: ids(stateDateOrder, 'recentOrders', [
      [],
      [date('2019-05-18T16:09:01Z')],
      [date('2019-05-18T16:09:01Z')],
      [],
      [date('2019-01-08T06:12:03Z')],
      [date('2019-01-08T06:12:03Z'), date('2020-02-08T13:13:23Z')],
    ]),
  },
  {
    name: 'no window: the whole partition, no sortBy needed',
    source: sum + ' (window defaults to the whole partition)',
    docs: cakeSales,
    pipeline: [
      { $setWindowFields: { partitionBy: '$state', output: { total: { $sum: '$quantity' } } } },
      keep('total'),
      { $sort: { _id: 1 } },
    ],
    expected: ids([0, 1, 2, 3, 4, 5], 'total', [427, 378, 427, 378, 427, 378]),
  },
  {
    name: 'empty windows: $sum 0, $avg null, $min null',
    source: sum + ' (window bounds outside the partition)',
    docs: cakeSales,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$state',
          sortBy: { orderDate: 1 },
          output: {
            w: { $sum: '$quantity', window: { documents: [5, 6] } },
            a: { $avg: '$quantity', window: { documents: [5, 6] } },
            m: { $min: '$quantity', window: { documents: [5, 6] } },
          },
        },
      },
      { $project: { w: 1, a: 1, m: 1 } },
      { $limit: 1 },
    ],
    expected: [{ _id: 4, w: 0, a: null, m: null }],
  },
  {
    name: 'a dotted output field',
    source: sum + ' (output fields may be dotted paths)',
    docs: [{ _id: 1, x: 1, s: { keep: true } }],
    pipeline: [{ $setWindowFields: { output: { 's.total': { $sum: '$x' } } } }],
    expected: [{ _id: 1, x: 1, s: { keep: true, total: 1 } }],
  },
  {
    name: '$setWindowFields not an object',
    source: mongodSource('pipeline/document_source_set_window_fields.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $setWindowFields: 1 }],
    error: 9,
  },
  {
    name: '$setWindowFields without output',
    source: mongodSource('pipeline/document_source_set_window_fields.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $setWindowFields: { sortBy: { a: 1 } } }],
    error: 40414,
  },
  {
    name: '$setWindowFields unknown field',
    source: mongodSource('pipeline/document_source_set_window_fields.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $setWindowFields: { output: {}, x: 1 } }],
    error: 40415,
  },
  {
    name: 'documents window without sortBy',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $setWindowFields: {
          output: { x: { $sum: '$a', window: { documents: ['unbounded', 'current'] } } },
        },
      },
    ],
    error: 5339901,
  },
  {
    name: 'range window without sortBy',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [{ $setWindowFields: { output: { x: { $sum: '$a', window: { range: [-2, 2] } } } } }],
    error: 5339902,
  },
  {
    name: 'range window with two sortBy fields',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { a: 1, b: 1 },
          output: { x: { $sum: '$a', window: { range: [-2, 2] } } },
        },
      },
    ],
    error: 5339902,
  },
  {
    name: 'partitionBy a constant array',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [
      { $setWindowFields: { partitionBy: { $const: [] }, output: { x: { $sum: '$a' } } } },
    ],
    error: 14,
  },
  {
    name: 'partitionBy evaluating to an array',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1, array: [] }],
    pipeline: [{ $setWindowFields: { partitionBy: '$array', output: { x: { $sum: '$a' } } } }],
    error: 14,
  },
  {
    name: 'unknown window function',
    source: mongodSource('pipeline/window_function/window_function_expression.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $setWindowFields: { output: { x: { $foo: '$a' } } } }],
    error: 9,
  },
];

const stockPrices: Document[] = [
  { _id: 1, stock: 'ABC', date: date('2020-05-18T20:00:00Z'), price: 13 },
  { _id: 2, stock: 'ABC', date: date('2020-05-19T20:00:00Z'), price: 15.4 },
  { _id: 3, stock: 'ABC', date: date('2020-05-20T20:00:00Z'), price: 12 },
  { _id: 4, stock: 'ABC', date: date('2020-05-21T20:00:00Z'), price: 11.7 },
  { _id: 5, stock: 'DEF', date: date('2020-05-18T20:00:00Z'), price: 82 },
  { _id: 6, stock: 'DEF', date: date('2020-05-19T20:00:00Z'), price: 94 },
  { _id: 7, stock: 'DEF', date: date('2020-05-20T20:00:00Z'), price: 112 },
  { _id: 8, stock: 'DEF', date: date('2020-05-21T20:00:00Z'), price: 97.3 },
];

const sparse: Document[] = [
  { _id: 1, time: date('2021-03-08T09:00:00Z'), price: 500 },
  { _id: 2, time: date('2021-03-08T10:00:00Z') },
  { _id: 3, time: date('2021-03-08T11:00:00Z'), price: 515 },
  { _id: 4, time: date('2021-03-08T12:00:00Z') },
  { _id: 5, time: date('2021-03-08T13:00:00Z'), price: null },
  { _id: 6, time: date('2021-03-08T14:00:00Z'), price: 485 },
];

const fleet: Document[] = [
  { _id: 1, truckID: '1', timeStamp: date('2020-05-18T14:10:30Z'), miles: 1295.1 },
  { _id: 2, truckID: '1', timeStamp: date('2020-05-18T14:11:00Z'), miles: 1295.63 },
  { _id: 3, truckID: '1', timeStamp: date('2020-05-18T14:11:30Z'), miles: 1296.25 },
  { _id: 4, truckID: '1', timeStamp: date('2020-05-18T14:12:00Z'), miles: 1296.76 },
  { _id: 5, truckID: '2', timeStamp: date('2020-05-18T14:10:30Z'), miles: 10234.1 },
  { _id: 6, truckID: '2', timeStamp: date('2020-05-18T14:11:00Z'), miles: 10234.33 },
  { _id: 7, truckID: '2', timeStamp: date('2020-05-18T14:11:30Z'), miles: 10234.73 },
  { _id: 8, truckID: '2', timeStamp: date('2020-05-18T14:12:00Z'), miles: 10235.13 },
];

const power: Document[] = [
  { _id: 1, powerMeterID: '1', timeStamp: date('2020-05-18T14:10:30Z'), kilowatts: 2.95 },
  { _id: 2, powerMeterID: '1', timeStamp: date('2020-05-18T14:11:00Z'), kilowatts: 2.7 },
  { _id: 3, powerMeterID: '1', timeStamp: date('2020-05-18T14:11:30Z'), kilowatts: 2.6 },
  { _id: 4, powerMeterID: '1', timeStamp: date('2020-05-18T14:12:00Z'), kilowatts: 2.98 },
];

const windowFunctions: StageCase[] = [
  {
    name: '$rank and $denseRank with ties, per state',
    source: manual('operator/aggregation/rank') + '; ' + manual('operator/aggregation/denseRank'),
    docs: [
      ...cakeSales,
      { _id: 6, state: 'CA', quantity: 145, orderDate: date('2021-06-01T00:00:00Z') },
    ],
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$state',
          sortBy: { quantity: -1 },
          output: { r: { $rank: {} }, dr: { $denseRank: {} } },
        },
      },
      { $project: { r: 1, dr: 1 } },
      { $sort: { _id: 1 } },
    ],
    expected: [
      { _id: 0, r: 4, dr: 3 },
      { _id: 1, r: 1, dr: 1 },
      { _id: 2, r: 2, dr: 2 },
      { _id: 3, r: 3, dr: 3 },
      { _id: 4, r: 1, dr: 1 },
      { _id: 5, r: 2, dr: 2 },
      { _id: 6, r: 2, dr: 2 },
    ],
  },
  {
    name: '$documentNumber per state',
    source: manual('operator/aggregation/documentNumber'),
    docs: cakeSales,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$state',
          sortBy: { quantity: -1 },
          output: { n: { $documentNumber: {} } },
        },
      },
      keep('n'),
    ],
    expected: ids([4, 2, 0, 1, 5, 3], 'n', [1, 2, 3, 1, 2, 3]),
  },
  {
    name: '$rank: null and missing sort values tie',
    source:
      mongodSource('pipeline/accumulator_rank.cpp') + ' (isSameValue: nullish values are the same)',
    docs: [{ _id: 1, v: null }, { _id: 2 }, { _id: 3, v: 1 }],
    pipeline: [
      { $setWindowFields: { sortBy: { v: 1 }, output: { r: { $rank: {} } } } },
      keep('r'),
      { $sort: { _id: 1 } },
    ],
    expected: ids([1, 2, 3], 'r', [1, 1, 3]),
  },
  {
    name: '$shift by 1 and -1 with a default',
    source: manual('operator/aggregation/shift'),
    docs: cakeSales,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$state',
          sortBy: { quantity: -1 },
          output: {
            next: { $shift: { output: '$quantity', by: 1, default: 'Not available' } },
            prev: { $shift: { output: '$quantity', by: -1, default: 'Not available' } },
          },
        },
      },
      { $project: { next: 1, prev: 1 } },
    ],
    expected: [
      { _id: 4, next: 145, prev: 'Not available' },
      { _id: 2, next: 120, prev: 162 },
      { _id: 0, next: 'Not available', prev: 145 },
      { _id: 1, next: 134, prev: 'Not available' },
      { _id: 5, next: 104, prev: 140 },
      { _id: 3, next: 'Not available', prev: 134 },
    ],
  },
  {
    name: '$shift without default gives null',
    source: manual('operator/aggregation/shift') + ' (default: null)',
    docs: cakeSales,
    pipeline: [
      { $match: { state: 'CA' } },
      {
        $setWindowFields: {
          sortBy: { quantity: -1 },
          output: { next: { $shift: { output: '$quantity', by: 2 } } },
        },
      },
      keep('next'),
    ],
    expected: [
      { _id: 4, next: 120 },
      { _id: 2, next: null },
      { _id: 0, next: null },
    ],
  },
  {
    name: '$expMovingAvg with N',
    source: manual('operator/aggregation/expMovingAvg') + ' (Exponential Moving Average Using N)',
    docs: stockPrices,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$stock',
          sortBy: { date: 1 },
          output: { e: { $expMovingAvg: { input: '$price', N: 2 } } },
        },
      },
      keep('e'),
    ],
    expected: ids([1, 2, 3, 4, 5, 6, 7, 8], 'e', [
      d(13),
      14.6,
      12.866666666666667,
      12.088888888888889,
      d(82),
      d(90),
      104.66666666666667,
      99.75555555555556,
    ]),
  },
  {
    name: '$expMovingAvg with alpha',
    source:
      manual('operator/aggregation/expMovingAvg') + ' (Exponential Moving Average Using alpha)',
    docs: stockPrices,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$stock',
          sortBy: { date: 1 },
          output: { e: { $expMovingAvg: { input: '$price', alpha: 0.75 } } },
        },
      },
      keep('e'),
    ],
    expected: ids([1, 2, 3, 4, 5, 6, 7, 8], 'e', [
      d(13),
      14.8,
      12.7,
      11.95,
      d(82),
      d(91),
      106.75,
      99.6625,
    ]),
  },
  {
    name: '$derivative over a 30 second range, per hour',
    source: manual('operator/aggregation/derivative'),
    docs: fleet,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$truckID',
          sortBy: { timeStamp: 1 },
          output: {
            truckAverageSpeed: {
              $derivative: { input: '$miles', unit: 'hour' },
              window: { range: [-30, 0], unit: 'second' },
            },
          },
        },
      },
      { $match: { truckAverageSpeed: { $gt: 50 } } },
      { $project: { s: { $round: ['$truckAverageSpeed', 6] } } },
    ],
    expected: [
      { _id: 2, s: 63.6 },
      { _id: 3, s: 74.4 },
      { _id: 4, s: 61.2 },
    ],
  },
  {
    name: '$integral over a cumulative range, in hours',
    source: manual('operator/aggregation/integral'),
    docs: power,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$powerMeterID',
          sortBy: { timeStamp: 1 },
          output: {
            kwh: {
              $integral: { input: '$kilowatts', unit: 'hour' },
              window: { range: ['unbounded', 'current'], unit: 'hour' },
            },
          },
        },
      },
      { $project: { kwh: { $round: [{ $toDouble: '$kwh' }, 9] } } },
    ],
    expected: [
      { _id: 1, kwh: d(0) },
      { _id: 2, kwh: 0.023541667 },
      { _id: 3, kwh: 0.045625 },
      { _id: 4, kwh: 0.068875 },
    ],
  },
  {
    name: '$covariancePop and $covarianceSamp, cumulative',
    source:
      manual('operator/aggregation/covariancePop') +
      '; ' +
      manual('operator/aggregation/covarianceSamp'),
    docs: cakeSales,
    pipeline: [
      {
        $setWindowFields: {
          partitionBy: '$state',
          sortBy: { orderDate: 1 },
          output: {
            p: {
              $covariancePop: [{ $year: '$orderDate' }, '$quantity'],
              window: { documents: ['unbounded', 'current'] },
            },
            s: {
              $covarianceSamp: [{ $year: '$orderDate' }, '$quantity'],
              window: { documents: ['unbounded', 'current'] },
            },
          },
        },
      },
      { $project: { p: { $round: ['$p', 9] }, s: { $round: ['$s', 9] } } },
    ],
    expected: [
      { _id: 4, p: d(0), s: null },
      { _id: 0, p: -10.5, s: d(-21) },
      { _id: 2, p: -5.666666667, s: -8.5 },
      { _id: 5, p: d(0), s: null },
      { _id: 3, p: -7.5, s: d(-15) },
      { _id: 1, p: d(2), s: d(3) },
    ],
  },
  {
    name: '$locf fills null and missing with the last value',
    source: manual('operator/aggregation/locf'),
    docs: sparse,
    pipeline: [
      { $setWindowFields: { sortBy: { time: 1 }, output: { price: { $locf: '$price' } } } },
      keep('price'),
    ],
    expected: ids([1, 2, 3, 4, 5, 6], 'price', [500, 500, 515, 515, 515, 485]),
  },
  {
    name: '$linearFill interpolates by the sortBy field',
    source: manual('operator/aggregation/linearFill'),
    docs: sparse,
    pipeline: [
      { $setWindowFields: { sortBy: { time: 1 }, output: { price: { $linearFill: '$price' } } } },
      keep('price'),
    ],
    expected: ids([1, 2, 3, 4, 5, 6], 'price', [500, 507.5, 515, d(505), d(495), 485]),
  },
  {
    name: '$linearFill leaves leading and trailing gaps null',
    source: manual('operator/aggregation/linearFill') + ' (no value before or after)',
    docs: [
      { _id: 1, t: 1 },
      { _id: 2, t: 2, v: 10 },
      { _id: 3, t: 3, v: 20 },
      { _id: 4, t: 4 },
    ],
    pipeline: [
      { $setWindowFields: { sortBy: { t: 1 }, output: { v: { $linearFill: '$v' } } } },
      keep('v'),
    ],
    expected: ids([1, 2, 3, 4], 'v', [null, 10, 20, null]),
  },
  {
    name: '$count window function',
    source: manual('operator/aggregation/count-accumulator') + ' ($count in $setWindowFields)',
    docs: cakeSales,
    pipeline: byStateDate('n', { $count: {}, window: { documents: ['unbounded', 'current'] } }),
    expected: ids(stateDateOrder, 'n', [1, 2, 3, 1, 2, 3]),
  },
  {
    name: '$rank with a window',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { a: 1 },
          output: { x: { $rank: {}, window: { documents: [-1, 1] } } },
        },
      },
    ],
    error: 5371601,
  },
  {
    name: '$denseRank without sortBy',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [{ $setWindowFields: { output: { x: { $denseRank: {} } } } }],
    error: 5371602,
  },
  {
    name: '$documentNumber with two sortBy fields',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [
      { $setWindowFields: { sortBy: { a: 1, b: 1 }, output: { x: { $documentNumber: {} } } } },
    ],
    error: 5371602,
  },
  {
    name: '$rank with an argument',
    source: mongodSource('pipeline/window_function/window_function_expression.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $setWindowFields: { sortBy: { a: 1 }, output: { x: { $rank: { a: 1 } } } } }],
    error: 5371603,
  },
  {
    name: '$shift with a window',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { a: 1 },
          output: { x: { $shift: { output: '$a', by: 1 }, window: { documents: [-1, 1] } } },
        },
      },
    ],
    error: 9,
  },
  {
    name: '$shift without sortBy',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [{ $setWindowFields: { output: { x: { $shift: { output: '$a', by: 1 } } } } }],
    error: 9,
  },
  {
    name: '$expMovingAvg with a window',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { a: 1 },
          output: { x: { $expMovingAvg: { input: '$a', N: 3 }, window: { documents: [-1, 1] } } },
        },
      },
    ],
    error: 9,
  },
  {
    name: '$expMovingAvg without sortBy',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [
      { $setWindowFields: { output: { x: { $expMovingAvg: { input: '$a', alpha: 0.1 } } } } },
    ],
    error: 9,
  },
  {
    name: '$derivative without a window',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [
      { $setWindowFields: { sortBy: { a: 1 }, output: { x: { $derivative: { input: '$a' } } } } },
    ],
    error: 9,
  },
  {
    name: '$integral without sortBy',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [{ _id: 1 }],
    pipeline: [{ $setWindowFields: { output: { x: { $integral: { input: '$a' } } } } }],
    error: 9,
  },
  {
    name: '$derivative with a unit over a non-date sortBy',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ],
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { a: 1 },
          output: {
            x: {
              $derivative: { input: '$a', unit: 'millisecond' },
              window: { documents: [-1, 0] },
            },
          },
        },
      },
    ],
    error: 5624900,
  },
  {
    name: '$derivative over a date sortBy without a unit',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [
      { _id: 1, a: 1, t: date('2020-01-01T00:00:00Z') },
      { _id: 2, a: 2, t: date('2020-01-02T00:00:00Z') },
    ],
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { t: 1 },
          output: { x: { $derivative: { input: '$a' }, window: { documents: [-1, 0] } } },
        },
      },
    ],
    error: 5624901,
  },
  {
    name: '$integral with a unit over a non-date sortBy',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ],
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { a: 1 },
          output: { x: { $integral: { input: '$a', unit: 'millisecond' } } },
        },
      },
    ],
    error: 5423901,
  },
  {
    name: '$integral over a date sortBy without a unit',
    source: jstest('aggregation/sources/setWindowFields (window function parse matrix)'),
    docs: [
      { _id: 1, a: 1, t: date('2020-01-01T00:00:00Z') },
      { _id: 2, a: 2, t: date('2020-01-02T00:00:00Z') },
    ],
    pipeline: [
      { $setWindowFields: { sortBy: { t: 1 }, output: { x: { $integral: { input: '$a' } } } } },
    ],
    error: 5423902,
  },
];

/** Every accumulator as a window function, over one partition ordered by t: v = 3, 1, 2. */
const abc: Document[] = [
  { _id: 1, t: 1, v: 3, o: { a: 1 } },
  { _id: 2, t: 2, v: 1, o: { b: 2 } },
  { _id: 3, t: 3, v: 2, o: { a: 3 } },
];
const cumulative = { documents: ['unbounded', 'current'] };
const accumulatorWindows: StageCase[] = [
  {
    name: 'accumulators as cumulative window functions: $sum $avg $min $max $first $last $push $addToSet',
    source:
      sum +
      ' (window operators: the accumulators); ' +
      manual('operator/aggregation/first') +
      ' ($first in $setWindowFields)',
    docs: abc,
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { t: 1 },
          output: {
            sum: { $sum: '$v', window: cumulative },
            avg: { $avg: '$v', window: cumulative },
            min: { $min: '$v', window: cumulative },
            max: { $max: '$v', window: cumulative },
            first: { $first: '$v', window: { documents: ['current', 'unbounded'] } },
            last: { $last: '$v', window: cumulative },
            push: { $push: '$v', window: cumulative },
            set: { $addToSet: { $gt: ['$v', 1] }, window: cumulative },
          },
        },
      },
      { $project: { v: 0, o: 0, t: 0 } },
      { $set: { set: { $size: '$set' } } },
    ],
    expected: [
      { _id: 1, sum: 3, avg: d(3), min: 3, max: 3, first: 3, last: 3, push: [3], set: 1 },
      { _id: 2, sum: 4, avg: d(2), min: 1, max: 3, first: 1, last: 1, push: [3, 1], set: 2 },
      { _id: 3, sum: 6, avg: d(2), min: 1, max: 3, first: 2, last: 2, push: [3, 1, 2], set: 2 },
    ],
  },
  {
    name: 'accumulators as window functions: $stdDevPop $stdDevSamp $mergeObjects $median $percentile',
    source:
      manual('operator/aggregation/stdDevPop') +
      ' (in $setWindowFields); ' +
      manual('operator/aggregation/mergeObjects') +
      '; ' +
      manual('operator/aggregation/median'),
    docs: abc,
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { t: 1 },
          output: {
            pop: { $stdDevPop: '$v', window: cumulative },
            samp: { $stdDevSamp: '$v', window: cumulative },
            merged: { $mergeObjects: '$o', window: cumulative },
            median: { $median: { input: '$v', method: 'approximate' }, window: cumulative },
            pct: {
              $percentile: { input: '$v', p: [1], method: 'approximate' },
              window: cumulative,
            },
          },
        },
      },
      { $project: { v: 0, o: 0, t: 0 } },
    ],
    expected: [
      { _id: 1, pop: d(0), samp: null, merged: { a: 1 }, median: d(3), pct: [d(3)] },
      {
        _id: 2,
        pop: d(1),
        samp: 1.4142135623730951,
        merged: { a: 1, b: 2 },
        median: d(1),
        pct: [d(3)],
      },
      {
        _id: 3,
        pop: 0.816496580927726,
        samp: d(1),
        merged: { a: 3, b: 2 },
        median: d(2),
        pct: [d(3)],
      },
    ],
  },
  {
    name: 'accumulators as window functions: $firstN $lastN $maxN $minN $top $bottom $topN $bottomN',
    source:
      manual('operator/aggregation/topN') +
      ' ($topN in $setWindowFields); ' +
      manual('operator/aggregation/firstN'),
    docs: abc,
    pipeline: [
      {
        $setWindowFields: {
          sortBy: { t: 1 },
          output: {
            firstN: { $firstN: { input: '$v', n: 2 }, window: cumulative },
            lastN: { $lastN: { input: '$v', n: 2 }, window: cumulative },
            maxN: { $maxN: { input: '$v', n: 2 }, window: cumulative },
            minN: { $minN: { input: '$v', n: 2 }, window: cumulative },
            top: { $top: { output: '$_id', sortBy: { v: 1 } }, window: cumulative },
            bottom: { $bottom: { output: '$_id', sortBy: { v: 1 } }, window: cumulative },
            topN: { $topN: { n: 2, output: '$_id', sortBy: { v: -1 } }, window: cumulative },
            bottomN: { $bottomN: { n: 2, output: '$_id', sortBy: { v: -1 } }, window: cumulative },
          },
        },
      },
      { $project: { v: 0, o: 0, t: 0 } },
    ],
    expected: [
      {
        _id: 1,
        firstN: [3],
        lastN: [3],
        maxN: [3],
        minN: [3],
        top: 1,
        bottom: 1,
        topN: [1],
        bottomN: [1],
      },
      {
        _id: 2,
        firstN: [3, 1],
        lastN: [3, 1],
        maxN: [3, 1],
        minN: [1, 3],
        top: 2,
        bottom: 1,
        topN: [1, 2],
        bottomN: [1, 2],
      },
      {
        _id: 3,
        firstN: [3, 1],
        lastN: [1, 2],
        maxN: [3, 2],
        minN: [1, 2],
        top: 2,
        bottom: 1,
        topN: [1, 3],
        bottomN: [3, 2],
      },
    ],
  },
];

const weather: Document[] = [
  {
    _id: 1,
    metadata: { sensorId: 5578, type: 'temperature' },
    timestamp: date('2021-05-18T00:00:00Z'),
    temp: 12,
  },
  {
    _id: 2,
    metadata: { sensorId: 5578, type: 'temperature' },
    timestamp: date('2021-05-18T04:00:00Z'),
    temp: 11,
  },
  {
    _id: 3,
    metadata: { sensorId: 5578, type: 'temperature' },
    timestamp: date('2021-05-18T08:00:00Z'),
    temp: 11,
  },
  {
    _id: 4,
    metadata: { sensorId: 5578, type: 'temperature' },
    timestamp: date('2021-05-18T12:00:00Z'),
    temp: 12,
  },
];

const coffee: Document[] = [
  { _id: 1, altitude: 600, variety: 'Arabica Typica', score: 68.3 },
  { _id: 2, altitude: 750, variety: 'Arabica Typica', score: 69.5 },
  { _id: 3, altitude: 950, variety: 'Arabica Typica', score: 70.5 },
  { _id: 4, altitude: 1250, variety: 'Gesha', score: 88.15 },
  { _id: 5, altitude: 1700, variety: 'Gesha', score: 88.5 },
  { _id: 6, altitude: 1600, variety: 'SL28', score: 85.5 },
  { _id: 7, altitude: 1800, variety: 'SL28', score: 85 },
  { _id: 8, altitude: 1950, variety: 'SL28', score: 85 },
];
/** Densified coffee as [variety, altitude, original _id or null]. */
const shape = { $replaceWith: { v: '$variety', a: '$altitude', id: { $ifNull: ['$_id', null] } } };
const cof = (v: string, pairs: Array<[number, number | null]>): Document[] =>
  pairs.map(([a, id]) => ({ v, a, id }));

const densify: StageCase[] = [
  {
    name: '$densify a time series with explicit bounds',
    source: manual('operator/aggregation/densify') + ' (Densify Time Series Data)',
    docs: weather,
    pipeline: [
      {
        $densify: {
          field: 'timestamp',
          range: {
            step: 1,
            unit: 'hour',
            bounds: [date('2021-05-18T00:00:00Z'), date('2021-05-18T08:00:00Z')],
          },
        },
      },
      { $project: { timestamp: 1 } },
    ],
    expected: [
      { _id: 1, timestamp: date('2021-05-18T00:00:00Z') },
      { timestamp: date('2021-05-18T01:00:00Z') },
      { timestamp: date('2021-05-18T02:00:00Z') },
      { timestamp: date('2021-05-18T03:00:00Z') },
      { _id: 2, timestamp: date('2021-05-18T04:00:00Z') },
      { timestamp: date('2021-05-18T05:00:00Z') },
      { timestamp: date('2021-05-18T06:00:00Z') },
      { timestamp: date('2021-05-18T07:00:00Z') },
      { _id: 3, timestamp: date('2021-05-18T08:00:00Z') },
      { _id: 4, timestamp: date('2021-05-18T12:00:00Z') },
    ],
  },
  {
    name: '$densify full bounds per partition',
    source: manual('operator/aggregation/densify') + ' (Densification with Partitions)',
    docs: coffee,
    pipeline: [
      {
        $densify: {
          field: 'altitude',
          partitionByFields: ['variety'],
          range: { bounds: 'full', step: 200 },
        },
      },
      shape,
    ],
    expected: [
      ...cof('Arabica Typica', [
        [600, 1],
        [750, 2],
        [800, null],
        [950, 3],
        [1000, null],
        [1200, null],
        [1400, null],
        [1600, null],
        [1800, null],
      ]),
      ...cof('Gesha', [
        [600, null],
        [800, null],
        [1000, null],
        [1200, null],
        [1250, 4],
        [1400, null],
        [1600, null],
        [1700, 5],
        [1800, null],
      ]),
      ...cof('SL28', [
        [600, null],
        [800, null],
        [1000, null],
        [1200, null],
        [1400, null],
        [1600, 6],
        [1800, 7],
        [1950, 8],
      ]),
    ],
    unordered: true,
  },
  {
    name: '$densify partition bounds',
    source:
      manual('operator/aggregation/densify') +
      ' (Densification with Partitions: bounds "partition")',
    docs: coffee,
    pipeline: [
      {
        $densify: {
          field: 'altitude',
          partitionByFields: ['variety'],
          range: { bounds: 'partition', step: 200 },
        },
      },
      shape,
    ],
    expected: [
      ...cof('Arabica Typica', [
        [600, 1],
        [750, 2],
        [800, null],
        [950, 3],
      ]),
      ...cof('Gesha', [
        [1250, 4],
        [1450, null],
        [1650, null],
        [1700, 5],
      ]),
      ...cof('SL28', [
        [1600, 6],
        [1800, 7],
        [1950, 8],
      ]),
    ],
    unordered: true,
  },
  {
    name: '$densify of decimals keeps the decimal type',
    source: jstest('aggregation/sources/densify/decimal.js'),
    docs: [
      { _id: 1, v: dec('1.0') },
      { _id: 2, v: dec('2.0') },
    ],
    pipeline: [
      { $densify: { field: 'v', range: { step: dec('0.5'), bounds: 'full' } } },
      { $project: { _id: 0, t: { $type: '$v' }, v: { $toDouble: '$v' } } },
    ],
    expected: [
      { t: 'decimal', v: d(1) },
      { t: 'decimal', v: 1.5 },
      { t: 'decimal', v: d(2) },
    ],
  },
  {
    name: '$densify without field',
    source: mongodSource('pipeline/document_source_densify.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { range: { step: 1, bounds: 'full' } } }],
    error: 40414,
  },
  {
    name: '$densify without range',
    source: mongodSource('pipeline/document_source_densify.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: 'a' } }],
    error: 40414,
  },
  {
    name: '$densify without bounds',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: 'a', range: { step: 1.0 } } }],
    error: 40414,
  },
  {
    name: '$densify field not a string',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: 1.0, range: { step: 1.0, bounds: 'full' } } }],
    error: 14,
  },
  {
    name: '$densify step not a number',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: 'a', range: { step: 'invalid', bounds: 'full' } } }],
    error: 14,
  },
  {
    name: '$densify partitionByFields not an array',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $densify: {
          field: 'a',
          partitionByFields: 'incorrect',
          range: { step: 1.0, bounds: 'full' },
        },
      },
    ],
    error: 14,
  },
  {
    name: '$densify unit not a string',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $densify: {
          field: 'a',
          range: {
            step: 1.0,
            bounds: [date('2020-01-01T00:00:00Z'), date('2020-01-02T00:00:00Z')],
            unit: 1000,
          },
        },
      },
    ],
    error: 14,
  },
  {
    name: '$densify one bound',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $densify: {
          field: 'a',
          range: { step: 1.0, bounds: [date('2020-01-01T00:00:00Z')], unit: 'second' },
        },
      },
    ],
    error: 5733403,
  },
  {
    name: '$densify three bounds',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: 'a', range: { step: 1.0, bounds: [0, 1, 2] } } }],
    error: 5733403,
  },
  {
    name: '$densify negative step',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: 'a', range: { step: -1.0, bounds: [0, 1] } } }],
    error: 5733401,
  },
  {
    name: '$densify $-prefixed field',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: '$a', range: { step: 1.0, bounds: [0, 1] } } }],
    error: 16410,
  },
  {
    name: '$densify $-prefixed partition field',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      { $densify: { field: 'a', partitionByFields: ['$b'], range: { step: 1.0, bounds: [0, 1] } } },
    ],
    error: 16410,
  },
  {
    name: '$densify partition bounds without partitionByFields',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $densify: { field: 'a', partitionByFields: [], range: { step: 1.0, bounds: 'partition' } },
      },
    ],
    error: 5733408,
  },
  {
    name: '$densify descending bounds',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: 'a', range: { step: 1.0, bounds: [2, 1] } } }],
    error: 5733402,
  },
  {
    name: '$densify descending date bounds',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $densify: {
          field: 'a',
          range: {
            step: 1.0,
            bounds: [date('2020-01-01T00:00:00Z'), date('2019-01-01T00:00:00Z')],
            unit: 'second',
          },
        },
      },
    ],
    error: 5733402,
  },
  {
    name: '$densify unit with numeric bounds',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: 'a', range: { step: 1.0, bounds: [1, 2], unit: 'second' } } }],
    error: 5733409,
  },
  {
    name: '$densify a number then a date',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      { $densify: { field: 'a', range: { step: 1.0, bounds: [1, date('2020-01-01T00:00:00Z')] } } },
    ],
    error: 5733406,
  },
  {
    name: '$densify a date then a number',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $densify: {
          field: 'a',
          range: { step: 1.0, bounds: [date('2020-01-01T00:00:00Z'), 1], unit: 'second' },
        },
      },
    ],
    error: 5733402,
  },
  {
    name: '$densify fractional step over dates',
    source: jstest('aggregation/sources/densify/libs/parse_util.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $densify: {
          field: 'a',
          range: {
            step: 1.1,
            bounds: [date('2020-01-01T00:00:00Z'), date('2020-01-03T00:00:00Z')],
            unit: 'second',
          },
        },
      },
    ],
    error: 6586400,
  },
  {
    name: '$densify unknown field',
    source: mongodSource('pipeline/document_source_densify.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $densify: { field: 'a', range: { step: 1, bounds: 'full' }, x: 1 } }],
    error: 40415,
  },
];

const fill: StageCase[] = [
  {
    name: '$fill with a constant value per field',
    source:
      manual('operator/aggregation/fill') + ' (Fill Missing Field Values with a Constant Value)',
    docs: [
      {
        _id: 1,
        date: date('2022-02-02T00:00:00Z'),
        bootsSold: 10,
        sandalsSold: 20,
        sneakersSold: 12,
      },
      { _id: 2, date: date('2022-02-03T00:00:00Z'), bootsSold: 7, sneakersSold: 18 },
      { _id: 3, date: date('2022-02-04T00:00:00Z'), sneakersSold: 5 },
    ],
    pipeline: [
      {
        $fill: {
          output: {
            bootsSold: { value: 0 },
            sandalsSold: { value: 0 },
            sneakersSold: { value: 0 },
          },
        },
      },
    ],
    expected: [
      {
        _id: 1,
        date: date('2022-02-02T00:00:00Z'),
        bootsSold: 10,
        sandalsSold: 20,
        sneakersSold: 12,
      },
      {
        _id: 2,
        date: date('2022-02-03T00:00:00Z'),
        bootsSold: 7,
        sneakersSold: 18,
        sandalsSold: 0,
      },
      { _id: 3, date: date('2022-02-04T00:00:00Z'), sneakersSold: 5, bootsSold: 0, sandalsSold: 0 },
    ],
  },
  {
    name: '$fill locf',
    source:
      manual('operator/aggregation/fill') +
      ' (Fill Missing Field Values Based on the Last Observed Value)',
    docs: [
      { _id: 1, date: date('2021-03-08T00:00:00Z'), score: 90 },
      { _id: 2, date: date('2021-03-09T00:00:00Z'), score: 92 },
      { _id: 3, date: date('2021-03-10T00:00:00Z') },
      { _id: 4, date: date('2021-03-11T00:00:00Z') },
      { _id: 5, date: date('2021-03-12T00:00:00Z'), score: 85 },
      { _id: 6, date: date('2021-03-13T00:00:00Z') },
    ],
    pipeline: [
      { $fill: { sortBy: { date: 1 }, output: { score: { method: 'locf' } } } },
      keep('score'),
    ],
    expected: ids([1, 2, 3, 4, 5, 6], 'score', [90, 92, 92, 92, 85, 85]),
  },
  {
    name: '$fill linear',
    source:
      manual('operator/aggregation/fill') +
      ' (Fill Missing Field Values with Linear Interpolation)',
    docs: sparse,
    pipeline: [
      { $fill: { sortBy: { time: 1 }, output: { price: { method: 'linear' } } } },
      keep('price'),
    ],
    expected: ids([1, 2, 3, 4, 5, 6], 'price', [500, 507.5, 515, d(505), d(495), 485]),
  },
  {
    name: '$fill locf per partition (partitionByFields)',
    source: manual('operator/aggregation/fill') + ' (partitionByFields)',
    docs: [
      { _id: 1, g: 'a', t: 1, v: 1 },
      { _id: 2, g: 'b', t: 1, v: 10 },
      { _id: 3, g: 'a', t: 2 },
      { _id: 4, g: 'b', t: 2 },
    ],
    pipeline: [
      { $fill: { partitionByFields: ['g'], sortBy: { t: 1 }, output: { v: { method: 'locf' } } } },
      keep('v'),
      { $sort: { _id: 1 } },
    ],
    expected: ids([1, 2, 3, 4], 'v', [1, 10, 1, 10]),
  },
  {
    name: '$fill without output',
    source: mongodSource('pipeline/document_source_fill.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $fill: { sortBy: { a: 1 } } }],
    error: 40414,
  },
  {
    name: '$fill unknown field',
    source: mongodSource('pipeline/document_source_fill.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $fill: { output: { a: { value: 1 } }, x: 1 } }],
    error: 40415,
  },
  {
    name: '$fill not an object',
    source: jstest('aggregation/sources/fill/fill_parse.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $fill: 'test' }],
    error: 9,
  },
  {
    name: '$fill empty output',
    source: jstest('aggregation/sources/fill/fill_parse.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $fill: { output: {} } }],
    error: 6050203,
  },
  {
    name: '$fill unknown method',
    source: jstest('aggregation/sources/fill/fill_parse.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $fill: { output: { test: { method: 'random' } } } }],
    error: 6050202,
  },
  {
    name: '$fill output field not an object',
    source: jstest('aggregation/sources/fill/fill_parse.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $fill: { output: { test: 'random' } } }],
    error: 6050200,
  },
  {
    name: '$fill output field with an unknown key',
    source: jstest('aggregation/sources/fill/fill_parse.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $fill: { output: { test: { method: 'locf', second: 'locf' } } } }],
    error: 40415,
  },
  {
    name: '$fill partitionBy and partitionByFields',
    source: jstest('aggregation/sources/fill/fill_parse.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $fill: {
          output: { test: { method: 'locf' } },
          partitionBy: { test: '$test' },
          partitionByFields: ['$test'],
        },
      },
    ],
    error: 6050204,
  },
  {
    name: '$fill linear without sortBy',
    source: jstest('aggregation/sources/fill/fill_parse.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $fill: {
          output: { test: { method: 'linear' } },
          partitionBy: { part: '$part', partTwo: '$partTwo' },
        },
      },
    ],
    error: 605001,
  },
];

void l;

export const windowCases: readonly StageCase[] = [
  ...windows,
  ...windowFunctions,
  ...accumulatorWindows,
  ...densify,
  ...fill,
];
