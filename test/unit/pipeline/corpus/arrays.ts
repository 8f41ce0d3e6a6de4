// Array, set and object operators, and the accumulators used as expressions.
// Sources: MongoDB manual pages of each operator and expression.cpp / accumulator_multi.cpp.

import { MISSING, int, dbl, long, dec } from './helpers.js';
import type { Family } from './helpers.js';

const docs = 'MongoDB manual, aggregation operator page';

export const arrays: Family = {
  values: [
    {
      name: '$arrayElemAt first',
      expr: { $arrayElemAt: [[int(1), int(2), int(3)], int(0)] },
      expected: int(1),
      source: '$arrayElemAt example',
    },
    {
      name: '$arrayElemAt last',
      expr: { $arrayElemAt: [[int(1), int(2), int(3)], int(-1)] },
      expected: int(3),
      source: '$arrayElemAt example',
    },
    {
      name: '$arrayElemAt out of range is missing',
      expr: { $arrayElemAt: [[int(1), int(2), int(3)], int(15)] },
      expected: MISSING,
      source: '$arrayElemAt example',
    },
    {
      name: '$arrayElemAt null',
      expr: { $arrayElemAt: [null, int(0)] },
      expected: null,
      source: docs,
    },
    {
      name: '$first',
      expr: { $first: [[int(1), int(2)]] },
      expected: int(1),
      source: '$first (array)',
    },
    {
      name: '$last',
      expr: { $last: '$a' },
      doc: { a: [int(1), int(2)] },
      expected: int(2),
      source: '$last (array)',
    },
    {
      name: '$first empty array is missing',
      expr: { $first: [[]] },
      expected: MISSING,
      source: '$first (array)',
    },
    {
      name: '$concatArrays',
      expr: { $concatArrays: [['hello', ' '], ['world']] },
      expected: ['hello', ' ', 'world'],
      source: '$concatArrays example',
    },
    {
      name: '$concatArrays null',
      expr: { $concatArrays: [[int(1)], null] },
      expected: null,
      source: docs,
    },
    {
      name: '$filter',
      expr: {
        $filter: { input: '$items', as: 'item', cond: { $gte: ['$$item.price', int(100)] } },
      },
      doc: { items: [{ price: int(110) }, { price: int(5) }] },
      expected: [{ price: int(110) }],
      source: '$filter example',
    },
    {
      name: '$filter limit',
      expr: {
        $filter: {
          input: [int(1), int(2), int(3)],
          cond: { $gt: ['$$this', int(1)] },
          limit: int(1),
        },
      },
      expected: [int(2)],
      source: '$filter limit (5.2)',
    },
    {
      name: '$filter null',
      expr: { $filter: { input: null, cond: true } },
      expected: null,
      source: docs,
    },
    {
      name: '$map',
      expr: { $map: { input: '$q', as: 'g', in: { $add: ['$$g', int(2)] } } },
      doc: { q: [int(5), int(6), int(7)] },
      expected: [int(7), int(8), int(9)],
      source: '$map example',
    },
    {
      name: '$map default this',
      expr: { $map: { input: [int(1)], in: '$$this' } },
      expected: [int(1)],
      source: docs,
    },
    {
      name: '$map missing becomes null',
      expr: { $map: { input: [int(1)], in: '$$REMOVE' } },
      expected: [null],
      source: 'ExpressionMap::evaluate',
    },
    {
      name: '$reduce sum',
      expr: {
        $reduce: {
          input: [int(1), int(2), int(3), int(4)],
          initialValue: int(0),
          in: { $add: ['$$value', '$$this'] },
        },
      },
      expected: int(10),
      source: '$reduce example',
    },
    {
      name: '$reduce concat',
      expr: {
        $reduce: {
          input: ['a', 'b', 'c'],
          initialValue: '',
          in: { $concat: ['$$value', '$$this'] },
        },
      },
      expected: 'abc',
      source: '$reduce example',
    },
    {
      name: '$reduce null',
      expr: { $reduce: { input: null, initialValue: int(0), in: int(1) } },
      expected: null,
      source: docs,
    },
    {
      name: '$in',
      expr: { $in: [long(2), [int(1), int(2), int(3)]] },
      expected: true,
      source: docs,
    },
    {
      name: '$in not found',
      expr: { $in: ['abc', ['xyz', 'abc ']] },
      expected: false,
      source: docs,
    },
    {
      name: '$indexOfArray',
      expr: { $indexOfArray: [['a', 'abc', 'b'], 'b'] },
      expected: int(2),
      source: '$indexOfArray example',
    },
    {
      name: '$indexOfArray start/end',
      expr: { $indexOfArray: [[int(1), int(2), int(1)], int(1), int(1), int(3)] },
      expected: int(2),
      source: docs,
    },
    {
      name: '$indexOfArray null',
      expr: { $indexOfArray: [null, int(1)] },
      expected: null,
      source: docs,
    },
    { name: '$isArray', expr: { $isArray: [[int(1)]] }, expected: true, source: docs },
    { name: '$isArray missing', expr: { $isArray: '$nope' }, expected: false, source: docs },
    {
      name: '$range',
      expr: { $range: [int(0), int(10), int(2)] },
      expected: [int(0), int(2), int(4), int(6), int(8)],
      source: '$range example',
    },
    {
      name: '$range descending',
      expr: { $range: [int(10), int(0), int(-2)] },
      expected: [int(10), int(8), int(6), int(4), int(2)],
      source: '$range example',
    },
    {
      name: '$range empty',
      expr: { $range: [int(0), int(10), int(-1)] },
      expected: [],
      source: '$range example',
    },
    {
      name: '$reverseArray',
      expr: { $reverseArray: [[int(1), int(2), int(3)]] },
      expected: [int(3), int(2), int(1)],
      source: docs,
    },
    { name: '$size', expr: { $size: [[int(1), int(2)]] }, expected: int(2), source: docs },
    {
      name: '$slice count',
      expr: { $slice: [[int(1), int(2), int(3)], int(1)] },
      expected: [int(1)],
      source: '$slice example',
    },
    {
      name: '$slice negative',
      expr: { $slice: [[int(1), int(2), int(3)], int(-2)] },
      expected: [int(2), int(3)],
      source: '$slice example',
    },
    {
      name: '$slice position',
      expr: { $slice: [[int(1), int(2), int(3)], int(1), int(1)] },
      expected: [int(2)],
      source: '$slice example',
    },
    {
      name: '$slice past end',
      expr: { $slice: [[int(1), int(2), int(3)], int(15), int(2)] },
      expected: [],
      source: '$slice example',
    },
    {
      name: '$zip',
      expr: {
        $zip: {
          inputs: [
            ['a', 'b'],
            [int(1), int(2), int(3)],
          ],
        },
      },
      expected: [
        ['a', int(1)],
        ['b', int(2)],
      ],
      source: '$zip example',
    },
    {
      name: '$zip longest with defaults',
      expr: {
        $zip: {
          inputs: [[int(1)], [int(1), int(2)]],
          useLongestLength: true,
          defaults: ['x', 'y'],
        },
      },
      expected: [
        [int(1), int(1)],
        ['x', int(2)],
      ],
      source: '$zip example',
    },
    {
      name: '$sortArray numbers',
      expr: { $sortArray: { input: [int(3), int(1), int(2)], sortBy: int(1) } },
      expected: [int(1), int(2), int(3)],
      source: '$sortArray example',
    },
    {
      name: '$sortArray by field',
      expr: { $sortArray: { input: [{ a: int(2) }, { a: int(1) }], sortBy: { a: int(-1) } } },
      expected: [{ a: int(2) }, { a: int(1) }],
      source: '$sortArray example',
    },
    {
      name: '$arrayToObject pairs',
      expr: {
        $arrayToObject: [
          [
            ['item', 'abc123'],
            ['qty', int(25)],
          ],
        ],
      },
      expected: { item: 'abc123', qty: int(25) },
      source: '$arrayToObject example',
    },
    {
      name: '$arrayToObject kv',
      expr: { $arrayToObject: [[{ k: 'item', v: 'abc123' }]] },
      expected: { item: 'abc123' },
      source: '$arrayToObject example',
    },
    {
      name: '$arrayToObject last wins',
      expr: {
        $arrayToObject: [
          [
            ['a', int(1)],
            ['a', int(2)],
          ],
        ],
      },
      expected: { a: int(2) },
      source: docs,
    },
    {
      name: '$objectToArray',
      expr: { $objectToArray: { $literal: { a: int(1), b: 'x' } } },
      expected: [
        { k: 'a', v: int(1) },
        { k: 'b', v: 'x' },
      ],
      source: '$objectToArray example',
    },
    { name: '$objectToArray null', expr: { $objectToArray: null }, expected: null, source: docs },
    {
      name: '$mergeObjects',
      expr: { $mergeObjects: [{ a: int(1) }, null, { a: int(2), b: int(3) }] },
      expected: { a: int(2), b: int(3) },
      source: '$mergeObjects example',
    },
    {
      name: '$getField',
      expr: { $getField: 'a.b' },
      doc: { 'a.b': int(1) },
      expected: int(1),
      source: '$getField example',
    },
    {
      name: '$getField input',
      expr: { $getField: { field: { $literal: '$x' }, input: { $literal: { $x: int(5) } } } },
      expected: int(5),
      source: '$getField: $-prefixed names',
    },
    {
      name: '$getField missing input',
      expr: { $getField: { field: 'a', input: '$nope' } },
      expected: MISSING,
      source: 'expression.cpp ExpressionGetField',
    },
    {
      name: '$setField',
      expr: { $setField: { field: 'a.b', input: { x: int(1) }, value: int(2) } },
      expected: { x: int(1), 'a.b': int(2) },
      source: '$setField example',
    },
    {
      name: '$unsetField',
      expr: { $unsetField: { field: 'x', input: { x: int(1), y: int(2) } } },
      expected: { y: int(2) },
      source: '$unsetField example',
    },
    {
      name: '$setUnion sorted',
      expr: {
        $setUnion: [
          ['b', 'a'],
          ['c', 'a'],
        ],
      },
      expected: ['a', 'b', 'c'],
      source: 'ValueSet ordering',
    },
    { name: '$setUnion null', expr: { $setUnion: [['a'], null] }, expected: null, source: docs },
    {
      name: '$setIntersection',
      expr: {
        $setIntersection: [
          ['a', 'b', 'c'],
          ['b', 'c', 'd'],
        ],
      },
      expected: ['b', 'c'],
      source: '$setIntersection example',
    },
    {
      name: '$setIntersection numbers of mixed types',
      expr: { $setIntersection: [[int(1), dbl(2)], [long(2)]] },
      expected: [dbl(2)],
      source: 'Value comparison',
    },
    {
      name: '$setDifference',
      expr: { $setDifference: [['a', 'b', 'a', 'c'], ['c']] },
      expected: ['a', 'b'],
      source: '$setDifference example',
    },
    {
      name: '$setEquals',
      expr: {
        $setEquals: [
          ['a', 'b', 'a'],
          ['b', 'a'],
        ],
      },
      expected: true,
      source: '$setEquals example',
    },
    {
      name: '$setIsSubset',
      expr: { $setIsSubset: [['a'], ['a', 'b']] },
      expected: true,
      source: docs,
    },
    {
      name: '$anyElementTrue',
      expr: { $anyElementTrue: [[true, false]] },
      expected: true,
      source: docs,
    },
    {
      name: '$anyElementTrue empty',
      expr: { $anyElementTrue: [[]] },
      expected: false,
      source: docs,
    },
    {
      name: '$allElementsTrue empty',
      expr: { $allElementsTrue: [[]] },
      expected: true,
      source: docs,
    },
    {
      name: '$allElementsTrue zero',
      expr: { $allElementsTrue: [[int(1), int(0)]] },
      expected: false,
      source: docs,
    },
    {
      name: '$sum array',
      expr: { $sum: '$a' },
      doc: { a: [int(1), int(2), 'x', long(3)] },
      expected: long(6),
      source: '$sum (expression): non-numbers ignored',
    },
    { name: '$sum operands', expr: { $sum: [int(1), dbl(2.5)] }, expected: dbl(3.5), source: docs },
    {
      name: '$sum nothing numeric',
      expr: { $sum: '$nope' },
      expected: int(0),
      source: '$sum: missing field',
    },
    {
      name: '$sum decimal',
      expr: { $sum: [dec('1.1'), int(1)] },
      expected: dec('2.1'),
      source: 'accumulator_sum.cpp',
    },
    {
      name: '$avg',
      expr: { $avg: [[int(1), int(2), int(3), int(4)]] },
      expected: dbl(2.5),
      source: docs,
    },
    { name: '$avg none', expr: { $avg: [['a']] }, expected: null, source: docs },
    {
      name: '$min',
      expr: { $min: [[int(4), null, int(2)]] },
      expected: int(2),
      source: '$min ignores null',
    },
    {
      name: '$max mixed types',
      expr: { $max: [int(1), 'a'] },
      expected: 'a',
      source: 'BSON comparison order',
    },
    { name: '$max none', expr: { $max: [[]] }, expected: null, source: docs },
    {
      name: '$stdDevPop',
      expr: { $stdDevPop: [[int(75), int(64), int(83), int(90)]] },
      expected: dbl(9.669539802906858),
      source: '$stdDevPop example (quiz scores)',
    },
    { name: '$stdDevSamp single', expr: { $stdDevSamp: [[int(1)]] }, expected: null, source: docs },
    {
      name: '$firstN',
      expr: { $firstN: { n: int(2), input: [int(3), int(1), int(2)] } },
      expected: [int(3), int(1)],
      source: '$firstN (array operator)',
    },
    {
      name: '$lastN',
      expr: { $lastN: { n: int(2), input: [int(3), int(1), int(2)] } },
      expected: [int(1), int(2)],
      source: '$lastN (array operator)',
    },
    {
      name: '$maxN',
      expr: { $maxN: { n: int(2), input: [int(3), null, int(1), int(7)] } },
      expected: [int(7), int(3)],
      source: '$maxN (array operator)',
    },
    {
      name: '$median',
      expr: {
        $median: { input: [int(5), int(1), int(3), 'x', int(2), int(4)], method: 'approximate' },
      },
      expected: dbl(3),
      source: '$median (7.0), nearest rank',
    },
    {
      name: '$percentile',
      expr: {
        $percentile: {
          input: [int(1), int(2), int(3), int(4), int(5), int(6), int(7), int(8), int(9), int(10)],
          p: [dbl(0.5), dbl(0.9)],
          method: 'approximate',
        },
      },
      expected: [dbl(5), dbl(9)],
      source: '$percentile (7.0), nearest rank',
    },
    {
      name: '$median no numbers',
      expr: { $median: { input: ['a'], method: 'approximate' } },
      expected: null,
      source: '$median',
    },
    {
      name: '$minN',
      expr: { $minN: { n: int(2), input: [int(3), null, int(1), int(7)] } },
      expected: [int(1), int(3)],
      source: '$minN (array operator)',
    },
  ],
  errors: [
    {
      name: '$arrayElemAt non-array',
      expr: { $arrayElemAt: ['a', int(0)] },
      code: 28689,
      source: 'expression.cpp',
    },
    {
      name: '$arrayElemAt non-integral',
      expr: { $arrayElemAt: [[int(1)], dbl(0.5)] },
      code: 28691,
      source: 'expression.cpp',
    },
    {
      name: '$concatArrays non-array',
      expr: { $concatArrays: [[int(1)], int(1)] },
      code: 28664,
      source: 'expression.cpp',
    },
    {
      name: '$filter missing input',
      expr: { $filter: { cond: true } },
      code: 28648,
      source: 'expression.cpp',
    },
    {
      name: '$filter missing cond',
      expr: { $filter: { input: [] } },
      code: 28650,
      source: 'expression.cpp',
    },
    {
      name: '$filter non-array',
      expr: { $filter: { input: int(1), cond: true } },
      code: 28651,
      source: 'expression.cpp',
    },
    {
      name: '$filter zero limit',
      expr: { $filter: { input: [int(1)], cond: true, limit: int(0) } },
      code: 327392,
      source: 'expression.cpp',
    },
    {
      name: '$map missing in',
      expr: { $map: { input: [] } },
      code: 16882,
      source: 'expression.cpp',
    },
    {
      name: '$map non-array',
      expr: { $map: { input: 'a', in: int(1) } },
      code: 16883,
      source: 'expression.cpp',
    },
    {
      name: '$reduce missing initialValue',
      expr: { $reduce: { input: [], in: int(1) } },
      code: 40078,
      source: 'expression.cpp',
    },
    { name: '$in non-array', expr: { $in: [int(1), 'a'] }, code: 40081, source: 'expression.cpp' },
    {
      name: '$size non-array',
      expr: { $size: 'a' },
      code: 17124,
      message: 'The argument to $size must be an array, but was of type: string',
      source: 'expression.cpp',
    },
    { name: '$size missing', expr: { $size: '$nope' }, code: 17124, source: 'expression.cpp' },
    {
      name: '$range zero step',
      expr: { $range: [int(0), int(1), int(0)] },
      code: 34449,
      source: 'expression.cpp',
    },
    {
      name: '$range non-integral',
      expr: { $range: [dbl(0.5), int(1)] },
      code: 34444,
      source: 'expression.cpp',
    },
    {
      name: '$slice zero count',
      expr: { $slice: [[int(1)], int(0), int(0)] },
      code: 28729,
      source: 'expression.cpp',
    },
    {
      name: '$zip no inputs',
      expr: { $zip: { inputs: [] } },
      code: 34465,
      source: 'expression.cpp',
    },
    {
      name: '$zip defaults without longest',
      expr: { $zip: { inputs: [[int(1)]], defaults: [int(1)] } },
      code: 34466,
      source: 'expression.cpp',
    },
    {
      name: '$sortArray bad sortBy',
      expr: { $sortArray: { input: [], sortBy: int(2) } },
      code: 2942506,
      source: 'expression.cpp',
    },
    {
      name: '$arrayToObject bad element',
      expr: { $arrayToObject: [[int(1)]] },
      code: 40398,
      source: 'expression.cpp',
    },
    {
      name: '$arrayToObject non-string key',
      expr: { $arrayToObject: [[[int(1), int(2)]]] },
      code: 40395,
      source: 'expression.cpp',
    },
    {
      name: '$objectToArray non-object',
      expr: { $objectToArray: int(1) },
      code: 40390,
      source: 'expression.cpp',
    },
    {
      name: '$mergeObjects non-object',
      expr: { $mergeObjects: [{ a: int(1) }, 'x'] },
      code: 40400,
      source: 'accumulator_merge_objects.cpp',
    },
    {
      name: '$getField field path',
      expr: { $getField: { field: '$a', input: {} } },
      code: 5654600,
      source: 'expression.cpp',
    },
    {
      name: '$setField non-object input',
      expr: { $setField: { field: 'a', input: int(1), value: int(1) } },
      code: 4161105,
      source: 'expression.cpp',
    },
    {
      name: '$setUnion non-array',
      expr: { $setUnion: [['a'], 'b'] },
      code: 17043,
      source: 'expression.cpp',
    },
    {
      name: '$setDifference non-array',
      expr: { $setDifference: ['a', []] },
      code: 17048,
      source: 'expression.cpp',
    },
    {
      name: '$setEquals one argument',
      expr: { $setEquals: [[int(1)]] },
      code: 17045,
      source: 'expression.cpp',
    },
    {
      name: '$setIsSubset non-array',
      expr: { $setIsSubset: [[int(1)], int(1)] },
      code: 17042,
      source: 'expression.cpp',
    },
    {
      name: '$allElementsTrue non-array',
      expr: { $allElementsTrue: [int(1)] },
      code: 17040,
      source: 'expression.cpp',
    },
    {
      name: '$percentile p out of range',
      expr: { $percentile: { input: [int(1)], p: [dbl(1.5)], method: 'approximate' } },
      code: 7750301,
      source: 'accumulator_percentile.cpp',
    },
    {
      name: '$median bad method',
      expr: { $median: { input: [int(1)], method: 'exact' } },
      code: 2,
      source:
        "accumulator_percentile.idl: 'method' is an enum (7.0: approximate only); IDL enum errors are BadValue",
    },
    {
      name: '$firstN missing n',
      expr: { $firstN: { input: [] } },
      code: 5787906,
      source: 'accumulator_multi.cpp',
    },
    {
      name: '$firstN n not positive',
      expr: { $firstN: { n: int(0), input: [] } },
      code: 5787908,
      source: 'accumulator_multi.cpp',
    },
    {
      name: '$firstN input not array',
      expr: { $firstN: { n: int(1), input: int(1) } },
      code: 5788200,
      source: 'accumulator_multi.cpp',
    },
  ],
};
