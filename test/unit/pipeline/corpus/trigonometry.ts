// Trigonometric operators. Sources: MongoDB manual pages ($sin ... $radiansToDegrees: "accepts
// any valid expression that resolves to a number"; double/int/long → double, decimal →
// decimal; null/missing → null; NaN → NaN) and mongod's expression_trigonometric.{h,cpp}:
// $sin $cos $tan are bounded by (-inf, inf) and $asin $acos $atanh by [-1, 1], $acosh by
// [1, inf] (error 50989 outside, "cannot apply $op to x, value must in <interval>"); $atan
// $sinh $cosh $tanh $asinh have no bounds; a NaN input is returned as is. $degreesToRadians
// multiplies by the constants π/180 and 180/π (kDoublePiOver180 = 3.141592653589793 / 180.0,
// Decimal128::kPiOver180 = kPi / 180 at 34 digits), so the expected values below are those
// products computed the same way (Python's decimal module at 34 digits, half-even, for the
// decimal ones; JavaScript doubles for the double ones).

import { dbl, dec, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const src = 'expression_trigonometric.h / .cpp';
const manual = 'MongoDB manual, trigonometry expression page';
const PI_OVER_180 = 3.141592653589793 / 180;
const OVER_PI_180 = 180 / 3.141592653589793;

export const trigonometry: Family = {
  values: [
    { name: '$sin 0', expr: { $sin: int(0) }, expected: dbl(0), source: manual },
    { name: '$sin long → double', expr: { $sin: long(0) }, expected: dbl(0), source: src },
    {
      name: '$sin decimal → decimal',
      expr: { $type: { $sin: dec('1') } },
      expected: 'decimal',
      source: manual,
    },
    { name: '$sin missing', expr: { $sin: '$nope' }, expected: null, source: manual },
    { name: '$sin NaN is NaN', expr: { $sin: dbl(NaN) }, expected: dbl(NaN), source: src },
    {
      name: '$sin decimal NaN stays decimal',
      expr: { $sin: dec('NaN') },
      expected: dec('NaN'),
      source: src,
    },
    {
      name: '$sin array form',
      expr: { $sin: [dbl(0)] },
      expected: dbl(0),
      source: 'ExpressionSingleNumericArg',
    },
    { name: '$cos 0', expr: { $cos: dbl(0) }, expected: dbl(1), source: manual },
    { name: '$cos null', expr: { $cos: null }, expected: null, source: manual },
    { name: '$tan 0', expr: { $tan: int(0) }, expected: dbl(0), source: manual },
    {
      name: '$tan decimal type',
      expr: { $type: { $tan: dec('0.5') } },
      expected: 'decimal',
      source: manual,
    },
    { name: '$asin 1', expr: { $asin: int(1) }, expected: dbl(Math.PI / 2), source: manual },
    {
      name: '$asin -1 (bound included)',
      expr: { $asin: dbl(-1) },
      expected: dbl(-Math.PI / 2),
      source: src,
    },
    { name: '$asin null', expr: { $asin: null }, expected: null, source: manual },
    { name: '$acos 1', expr: { $acos: int(1) }, expected: dbl(0), source: manual },
    { name: '$acos -1', expr: { $acos: long(-1) }, expected: dbl(Math.PI), source: manual },
    { name: '$acos NaN', expr: { $acos: dbl(NaN) }, expected: dbl(NaN), source: src },
    { name: '$atan 1', expr: { $atan: int(1) }, expected: dbl(Math.PI / 4), source: manual },
    {
      name: '$atan infinity (unbounded)',
      expr: { $atan: dbl(Infinity) },
      expected: dbl(Math.PI / 2),
      source: src,
    },
    { name: '$atan missing', expr: { $atan: '$nope' }, expected: null, source: manual },
    {
      name: '$atan2 1,1',
      expr: { $atan2: [int(1), int(1)] },
      expected: dbl(Math.PI / 4),
      source: manual,
    },
    {
      name: '$atan2 0,-1',
      expr: { $atan2: [int(0), int(-1)] },
      expected: dbl(Math.PI),
      source: 'std::atan2',
    },
    { name: '$atan2 long', expr: { $atan2: [long(0), long(1)] }, expected: dbl(0), source: src },
    {
      name: '$atan2 decimal',
      expr: { $type: { $atan2: [dec('1'), int(1)] } },
      expected: 'decimal',
      source: src,
    },
    { name: '$atan2 null', expr: { $atan2: [null, int(1)] }, expected: null, source: manual },
    { name: '$atan2 missing', expr: { $atan2: [int(1), '$nope'] }, expected: null, source: manual },
    { name: '$sinh 0', expr: { $sinh: int(0) }, expected: dbl(0), source: manual },
    {
      name: '$sinh infinity (unbounded)',
      expr: { $sinh: dbl(-Infinity) },
      expected: dbl(-Infinity),
      source: src,
    },
    { name: '$cosh 0', expr: { $cosh: int(0) }, expected: dbl(1), source: manual },
    {
      name: '$cosh infinity (unbounded)',
      expr: { $cosh: dbl(Infinity) },
      expected: dbl(Infinity),
      source: src,
    },
    {
      name: '$tanh infinity (unbounded)',
      expr: { $tanh: dbl(Infinity) },
      expected: dbl(1),
      source: src,
    },
    { name: '$tanh null', expr: { $tanh: null }, expected: null, source: manual },
    { name: '$asinh 0', expr: { $asinh: int(0) }, expected: dbl(0), source: manual },
    {
      name: '$asinh infinity (unbounded)',
      expr: { $asinh: dbl(Infinity) },
      expected: dbl(Infinity),
      source: src,
    },
    {
      name: '$asinh decimal',
      expr: { $type: { $asinh: dec('1') } },
      expected: 'decimal',
      source: manual,
    },
    { name: '$acosh 1 (bound included)', expr: { $acosh: int(1) }, expected: dbl(0), source: src },
    {
      name: '$acosh infinity (bound included)',
      expr: { $acosh: dbl(Infinity) },
      expected: dbl(Infinity),
      source: src,
    },
    { name: '$atanh 0', expr: { $atanh: int(0) }, expected: dbl(0), source: manual },
    {
      name: '$atanh 1 (bound included)',
      expr: { $atanh: int(1) },
      expected: dbl(Infinity),
      source: src,
    },
    { name: '$atanh missing', expr: { $atanh: '$nope' }, expected: null, source: manual },
    {
      name: '$degreesToRadians 180',
      expr: { $degreesToRadians: int(180) },
      expected: dbl(180 * PI_OVER_180),
      source: src,
    },
    {
      name: '$degreesToRadians 3 (x · π/180, not x · π / 180)',
      expr: { $degreesToRadians: int(3) },
      expected: dbl(3 * PI_OVER_180),
      source: src,
    },
    {
      name: '$degreesToRadians infinity',
      expr: { $degreesToRadians: dbl(Infinity) },
      expected: dbl(Infinity),
      source: src,
    },
    {
      name: '$degreesToRadians decimal 180',
      expr: { $degreesToRadians: dec('180') },
      expected: dec('3.141592653589793238462643383279503'),
      source: src,
    },
    {
      name: '$degreesToRadians decimal 3',
      expr: { $degreesToRadians: dec('3') },
      expected: dec('0.05235987755982988730771072305465839'),
      source: src,
    },
    {
      name: '$degreesToRadians null',
      expr: { $degreesToRadians: null },
      expected: null,
      source: manual,
    },
    {
      name: '$radiansToDegrees 11',
      expr: { $radiansToDegrees: int(11) },
      expected: dbl(11 * OVER_PI_180),
      source: src,
    },
    {
      name: '$radiansToDegrees π',
      expr: { $radiansToDegrees: dbl(Math.PI) },
      expected: dbl(Math.PI * OVER_PI_180),
      source: src,
    },
    {
      name: '$radiansToDegrees decimal 8',
      expr: { $radiansToDegrees: dec('8') },
      expected: dec('458.3662361046585670143852385128414'),
      source: src,
    },
    {
      name: '$radiansToDegrees missing',
      expr: { $radiansToDegrees: '$nope' },
      expected: null,
      source: manual,
    },
    {
      name: '$sin of a field',
      expr: { $sin: '$a' },
      doc: { a: dbl(0) },
      expected: dbl(0),
      source: manual,
    },
    {
      name: 'missing stays null, not missing',
      expr: { $cos: '$nope' },
      expected: null,
      source: 'ExpressionSingleNumericArg: nullish → null',
    },
  ],
  errors: [
    {
      name: '$sin -infinity',
      expr: { $sin: dbl(-Infinity) },
      code: 50989,
      message: 'cannot apply $sin to -inf, value must in (-inf,inf)',
      source: src,
    },
    { name: '$cos infinity', expr: { $cos: dbl(Infinity) }, code: 50989, source: src },
    { name: '$tan infinity', expr: { $tan: dbl(Infinity) }, code: 50989, source: src },
    {
      name: '$asin 2',
      expr: { $asin: int(2) },
      code: 50989,
      message: 'cannot apply $asin to 2, value must in [-1,1]',
      source: src,
    },
    { name: '$acos -1.5', expr: { $acos: dbl(-1.5) }, code: 50989, source: src },
    {
      name: '$acos decimal outside',
      expr: { $acos: dec('1.0000000000000000000001') },
      code: 50989,
      source: src,
    },
    {
      name: '$acosh 0.5',
      expr: { $acosh: dbl(0.5) },
      code: 50989,
      message: 'value must in [1,inf]',
      source: src,
    },
    { name: '$atanh 2', expr: { $atanh: long(2) }, code: 50989, source: src },
    {
      name: '$cos string',
      expr: { $cos: 'x' },
      code: 28765,
      message: '$cos only supports numeric types, not string',
      source: 'ExpressionSingleNumericArg',
    },
    {
      name: '$sinh bool',
      expr: { $sinh: true },
      code: 28765,
      source: 'ExpressionSingleNumericArg',
    },
    {
      name: '$degreesToRadians string',
      expr: { $degreesToRadians: 'x' },
      code: 28765,
      source: 'ExpressionSingleNumericArg',
    },
    {
      name: '$sin two arguments',
      expr: { $sin: [int(1), int(2)] },
      code: 16020,
      source: 'ExpressionFixedArity',
    },
    {
      name: '$atan2 one argument',
      expr: { $atan2: [int(1)] },
      code: 16020,
      source: 'ExpressionFixedArity',
    },
    {
      name: '$atan2 string first',
      expr: { $atan2: ['x', int(1)] },
      code: 51044,
      source: 'ExpressionTwoNumericArgs',
    },
    {
      name: '$atan2 string second',
      expr: { $atan2: [int(1), 'x'] },
      code: 51045,
      source: 'ExpressionTwoNumericArgs',
    },
  ],
};
