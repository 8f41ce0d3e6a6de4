// Accumulators in expression form ($project/$addFields): $sum $avg $min $max $stdDevPop
// $stdDevSamp over one array operand (its elements) or over several operands, and the array
// operators $firstN $lastN $maxN $minN $median $percentile. Sources: the manual pages (each
// has a "$project" section: non-numeric values ignored by $sum/$avg/$stdDev*, $sum of nothing
// is 0, $avg of nothing is null, $min/$max skip null and missing and compare across types in
// BSON order; $firstN/$lastN keep nulls, $maxN/$minN drop them; $percentile/$median with
// method 'approximate'), jstests/aggregation/expressions/avg_and_sum.js and
// group_accumulators_as_exprs.js, and accumulator_sum.cpp (int sums widen to long on
// overflow, long sums to double; decimals make the sum decimal).

import { date, dbl, dec, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const manual = (op: string): string => `MongoDB manual, ${op} (expression form)`;
const sumCpp = 'accumulator_sum.cpp';
const quiz = {
  quizzes: [int(10), int(6), int(7)],
  labs: [int(5), int(8)],
  final: int(80),
  midterm: int(75),
};

export const accumulators: Family = {
  values: [
    {
      name: '$sum of an array field',
      expr: { $sum: '$quizzes' },
      doc: quiz,
      expected: int(23),
      source: manual('$sum'),
    },
    {
      name: '$sum of fields',
      expr: { $sum: ['$final', '$midterm'] },
      doc: quiz,
      expected: int(155),
      source: manual('$sum'),
    },
    {
      name: '$sum int overflow → long',
      expr: { $sum: [int(2147483647), int(1)] },
      expected: long(2147483648),
      source: sumCpp,
    },
    {
      name: '$sum long overflow → double',
      expr: { $sum: [long(9223372036854775807n), long(1)] },
      expected: dbl(9223372036854775808),
      source: sumCpp,
    },
    {
      name: '$sum int and long',
      expr: { $sum: [int(1), long(2)] },
      expected: long(3),
      source: sumCpp,
    },
    {
      name: '$sum with decimal',
      expr: { $sum: [dbl(1), dec('2')] },
      expected: dec('3'),
      source: sumCpp,
    },
    {
      name: '$sum of arrays in operands ignored',
      expr: { $sum: [[int(1), int(2)], int(3)] },
      expected: int(3),
      source: manual('$sum'),
    },
    {
      name: '$sum of strings',
      expr: { $sum: ['a', 'b'] },
      expected: int(0),
      source: manual('$sum'),
    },
    { name: '$sum null', expr: { $sum: null }, expected: int(0), source: manual('$sum') },
    { name: '$sum no operands', expr: { $sum: [] }, expected: int(0), source: sumCpp },
    {
      name: '$sum single number',
      expr: { $sum: dbl(2.5) },
      expected: dbl(2.5),
      source: manual('$sum'),
    },
    {
      name: '$avg of an array field',
      expr: { $avg: '$quizzes' },
      doc: quiz,
      expected: dbl(23 / 3),
      source: manual('$avg'),
    },
    {
      name: '$avg of fields',
      expr: { $avg: ['$final', '$midterm'] },
      doc: quiz,
      expected: dbl(77.5),
      source: manual('$avg'),
    },
    {
      name: '$avg decimal',
      expr: { $avg: [dec('1'), dec('2')] },
      expected: dec('1.5'),
      source: manual('$avg'),
    },
    {
      name: '$avg longs → double',
      expr: { $avg: [long(1), long(2)] },
      expected: dbl(1.5),
      source: manual('$avg'),
    },
    {
      name: '$avg ignores non-numbers',
      expr: { $avg: [int(4), 'x', null, true] },
      expected: dbl(4),
      source: manual('$avg'),
    },
    { name: '$avg missing', expr: { $avg: '$nope' }, expected: null, source: manual('$avg') },
    {
      name: '$min of an array field',
      expr: { $min: '$quizzes' },
      doc: quiz,
      expected: int(6),
      source: manual('$min'),
    },
    {
      name: '$min of fields',
      expr: { $min: ['$final', '$midterm'] },
      doc: quiz,
      expected: int(75),
      source: manual('$min'),
    },
    {
      name: '$min across types',
      expr: { $min: [int(1), 'a', { $literal: date('2020-01-01T00:00:00Z') }] },
      expected: int(1),
      source: 'BSON comparison order',
    },
    {
      name: '$min only nulls',
      expr: { $min: [null, '$nope'] },
      expected: null,
      source: manual('$min'),
    },
    {
      name: '$min keeps type',
      expr: { $min: [long(3), dbl(2.5), int(4)] },
      expected: dbl(2.5),
      source: manual('$min'),
    },
    {
      name: '$max of an array field',
      expr: { $max: '$labs' },
      doc: quiz,
      expected: int(8),
      source: manual('$max'),
    },
    {
      name: '$max of fields',
      expr: { $max: ['$final', '$midterm'] },
      doc: quiz,
      expected: int(80),
      source: manual('$max'),
    },
    {
      name: '$max array operand among operands is a value',
      expr: { $max: [int(1), [int(0)]] },
      expected: [int(0)],
      source: 'BSON comparison order (arrays > numbers)',
    },
    { name: '$max missing', expr: { $max: '$nope' }, expected: null, source: manual('$max') },
    {
      name: '$stdDevPop',
      expr: { $stdDevPop: [[int(2), int(4), int(4), int(4), int(5), int(5), int(7), int(9)]] },
      expected: dbl(2),
      source: manual('$stdDevPop'),
    },
    {
      name: '$stdDevPop single value',
      expr: { $stdDevPop: [int(5)] },
      expected: dbl(0),
      source: manual('$stdDevPop'),
    },
    {
      name: '$stdDevPop ignores strings',
      expr: { $stdDevPop: [[int(1), 'x', int(3)]] },
      expected: dbl(1),
      source: manual('$stdDevPop'),
    },
    {
      name: '$stdDevPop nothing numeric',
      expr: { $stdDevPop: [['x']] },
      expected: null,
      source: manual('$stdDevPop'),
    },
    {
      name: '$stdDevSamp',
      expr: { $stdDevSamp: [[int(1), int(3)]] },
      expected: dbl(Math.SQRT2),
      source: manual('$stdDevSamp'),
    },
    {
      name: '$stdDevSamp of fields',
      expr: { $stdDevSamp: ['$final', '$midterm'] },
      doc: quiz,
      expected: dbl(Math.sqrt(12.5)),
      source: manual('$stdDevSamp'),
    },
    {
      name: '$firstN more than the array',
      expr: { $firstN: { n: int(5), input: [int(1), int(2)] } },
      expected: [int(1), int(2)],
      source: manual('$firstN'),
    },
    {
      name: '$firstN keeps nulls',
      expr: { $firstN: { n: int(2), input: [null, int(1), int(2)] } },
      expected: [null, int(1)],
      source: manual('$firstN'),
    },
    {
      name: '$firstN long n',
      expr: { $firstN: { n: long(1), input: ['a', 'b'] } },
      expected: ['a'],
      source: manual('$firstN'),
    },
    {
      name: '$firstN n from a field',
      expr: { $firstN: { n: '$n', input: '$a' } },
      doc: { n: int(2), a: [int(10), int(20), int(30)] },
      expected: [int(10), int(20)],
      source: manual('$firstN'),
    },
    {
      name: '$lastN',
      expr: { $lastN: { n: int(3), input: [int(1), int(2), int(3), int(4)] } },
      expected: [int(2), int(3), int(4)],
      source: manual('$lastN'),
    },
    {
      name: '$lastN empty input',
      expr: { $lastN: { n: int(2), input: [] } },
      expected: [],
      source: manual('$lastN'),
    },
    {
      name: '$maxN drops nulls',
      expr: { $maxN: { n: int(3), input: [null, int(2), '$nope', int(5)] } },
      expected: [int(5), int(2)],
      source: manual('$maxN'),
    },
    {
      name: '$maxN mixed types',
      expr: { $maxN: { n: int(2), input: [int(1), 'a', dbl(2.5)] } },
      expected: ['a', dbl(2.5)],
      source: 'BSON comparison order',
    },
    {
      name: '$minN',
      expr: { $minN: { n: int(2), input: [int(9), long(3), dbl(4.5), null] } },
      expected: [long(3), dbl(4.5)],
      source: manual('$minN'),
    },
    {
      name: '$median odd count',
      expr: { $median: { input: [int(3), int(1), int(2)], method: 'approximate' } },
      expected: dbl(2),
      source: manual('$median'),
    },
    {
      name: '$median single value',
      expr: { $median: { input: [long(10)], method: 'approximate' } },
      expected: dbl(10),
      source: manual('$median'),
    },
    {
      name: '$median empty',
      expr: { $median: { input: [], method: 'approximate' } },
      expected: null,
      source: manual('$median'),
    },
    {
      name: '$median of fields',
      expr: { $median: { input: ['$final', '$midterm', '$nope'], method: 'approximate' } },
      doc: quiz,
      expected: dbl(75),
      source: manual('$median'),
    },
    {
      name: '$percentile extremes',
      expr: {
        $percentile: {
          input: [int(3), int(1), int(2)],
          p: [dbl(0), dbl(1)],
          method: 'approximate',
        },
      },
      expected: [dbl(1), dbl(3)],
      source: manual('$percentile'),
    },
    {
      name: '$percentile no numbers',
      expr: { $percentile: { input: ['a', null], p: [dbl(0.5), dbl(0.9)], method: 'approximate' } },
      expected: [null, null],
      source: manual('$percentile'),
    },
  ],
  errors: [
    {
      name: '$lastN n not a number',
      expr: { $lastN: { n: 'a', input: [] } },
      code: 5787902,
      source: 'accumulator_multi.cpp',
    },
    {
      name: '$maxN n fractional',
      expr: { $maxN: { n: dbl(1.5), input: [] } },
      code: 5787903,
      source: 'accumulator_multi.cpp',
    },
    {
      name: '$minN not an object',
      expr: { $minN: [int(1)] },
      code: 5787900,
      source: 'accumulator_multi.cpp',
    },
    {
      name: '$firstN not an object',
      expr: { $firstN: int(1) },
      code: 5787801,
      source: 'accumulator_multi.cpp',
    },
    {
      name: '$lastN missing input',
      expr: { $lastN: { n: int(1) } },
      code: 5787907,
      source: 'accumulator_multi.cpp',
    },
    {
      name: '$maxN unknown field',
      expr: { $maxN: { n: int(1), input: [], x: int(1) } },
      code: 5787901,
      source: 'accumulator_multi.cpp',
    },
    {
      name: '$minN input not an array',
      expr: { $minN: { n: int(1), input: 'a' } },
      code: 5788200,
      source: 'accumulator_multi.cpp',
    },
    {
      name: '$percentile missing method',
      expr: { $percentile: { input: [int(1)], p: [dbl(0.5)] } },
      code: 40414,
      source: 'IDL: required field method',
    },
    {
      name: '$median not an object',
      expr: { $median: [int(1)] },
      code: 7436201,
      source: 'accumulator_percentile.cpp AccumulatorMedian::parseExpression',
    },
    {
      name: '$percentile not an object',
      expr: { $percentile: 'x' },
      code: 7436200,
      source: 'accumulator_percentile.cpp AccumulatorPercentile::parseExpression',
    },
    {
      name: '$median unknown field',
      expr: { $median: { input: [], method: 'approximate', p: [dbl(0.5)] } },
      code: 40415,
      source: 'IDL: AccumulatorMedianSpec has no p',
    },
  ],
};
