// Numeric arithmetic with MongoDB's type promotion (src/bson/numeric.ts).
//
// Expected values come from mongod's rules (SafeNum for update operators, the aggregation
// arithmetic expressions and jstests/aggregation/arith_overflow.js) and, for decimal128,
// from the General Decimal Arithmetic specification (speleotrove.com/decimal), whose IEEE
// 754-2008 rules mongod's Intel BID library implements: results keep the exponent the
// standard prescribes, so trailing zeros matter.

import { test, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal128, Double, Int32, Long, Timestamp } from 'bson';
import {
  add,
  bitAnd,
  bitOr,
  bitXor,
  decimalFromDouble,
  divide,
  fromSafeInteger,
  isIdentical,
  isNumeric,
  isZero,
  mod,
  multiply,
  numericTypeOf,
  subtract,
  toDecimal,
  toDouble,
} from '../../../src/bson/numeric.js';
import type { BsonNumber } from '../../../src/bson/numeric.js';

const i = (n: number) => new Int32(n);
const l = (s: string | number) => (typeof s === 'string' ? Long.fromString(s) : Long.fromNumber(s));
const d = (n: number) => new Double(n);
const dec = (s: string) => Decimal128.fromString(s);

/** Type and printed value, so that a test checks the numeric type as well as the value. */
function show(v: BsonNumber | undefined): string {
  if (v === undefined) return 'undefined';
  if (v instanceof Double) return `double(${Object.is(v.value, -0) ? '-0' : String(v.value)})`;
  return `${numericTypeOf(v)}(${v.toString()})`;
}

function eq(actual: BsonNumber | undefined, expected: string): void {
  assert.equal(show(actual), expected);
}

describe('types', () => {
  test('isNumeric and numericTypeOf', () => {
    assert.ok(isNumeric(i(1)) && isNumeric(l(1)) && isNumeric(d(1)) && isNumeric(dec('1')));
    assert.ok(!isNumeric(1) && !isNumeric('1') && !isNumeric(null));
    assert.equal(numericTypeOf(i(1)), 'int');
    assert.equal(numericTypeOf(l(1)), 'long');
    assert.equal(numericTypeOf(d(1)), 'double');
    assert.equal(numericTypeOf(dec('1')), 'decimal');
    assert.equal(numericTypeOf('x'), undefined);
  });

  test('a Timestamp is not a number (the bson class extends Long)', () => {
    const t = new Timestamp({ t: 1, i: 2 });
    assert.equal(isNumeric(t), false);
    assert.equal(numericTypeOf(t), undefined);
  });

  test('fromSafeInteger picks the narrowest exact type', () => {
    eq(fromSafeInteger(5), 'int(5)');
    eq(fromSafeInteger(-2147483648), 'int(-2147483648)');
    eq(fromSafeInteger(2147483648), 'long(2147483648)');
    eq(fromSafeInteger(2 ** 53 - 1), 'long(9007199254740991)');
    eq(fromSafeInteger(2 ** 53), 'double(9007199254740992)');
    eq(fromSafeInteger(1.5), 'double(1.5)');
    eq(fromSafeInteger(-0), 'double(-0)');
  });

  test('toDouble rounds to nearest', () => {
    assert.equal(toDouble(l('9223372036854775807')), 9223372036854775808);
    assert.equal(toDouble(dec('0.1')), 0.1);
    assert.equal(toDouble(dec('-1E+400')), -Infinity);
    assert.ok(Number.isNaN(toDouble(dec('NaN'))));
    assert.equal(toDouble(i(-3)), -3);
  });

  test('isZero', () => {
    assert.ok(
      isZero(i(0)) && isZero(l(0)) && isZero(d(-0)) && isZero(dec('0E+10')) && isZero(dec('-0.00')),
    );
    assert.ok(!isZero(d(NaN)) && !isZero(dec('1E-6176')));
  });
});

describe('update arithmetic (SafeNum)', () => {
  test('int32 stays int32, widening to int64 on overflow', () => {
    eq(add(i(1), i(2), 'update'), 'int(3)');
    eq(add(i(2147483647), i(1), 'update'), 'long(2147483648)');
    eq(add(i(-2147483648), i(-1), 'update'), 'long(-2147483649)');
    eq(multiply(i(65536), i(65536), 'update'), 'long(4294967296)');
    eq(multiply(i(-2147483648), i(-1), 'update'), 'long(2147483648)');
  });

  test('any int64 operand gives int64', () => {
    eq(add(i(1), l(1), 'update'), 'long(2)');
    eq(multiply(l(3), i(4), 'update'), 'long(12)');
  });

  test('int64 overflow is invalid (the update fails)', () => {
    eq(add(l('9223372036854775807'), i(1), 'update'), 'undefined');
    eq(add(l('-9223372036854775808'), i(-1), 'update'), 'undefined');
    eq(multiply(l('4611686018427387904'), i(2), 'update'), 'undefined');
    eq(multiply(l('-9223372036854775808'), i(-1), 'update'), 'undefined');
    eq(multiply(l('-4611686018427387904'), i(2), 'update'), 'long(-9223372036854775808)');
  });

  test('doubles', () => {
    eq(add(i(1), d(0.5), 'update'), 'double(1.5)');
    eq(add(l(10), d(0.25), 'update'), 'double(10.25)');
    eq(multiply(d(-1.5), i(0), 'update'), 'double(-0)');
    eq(add(d(NaN), d(0), 'update'), 'double(NaN)');
    eq(add(d(Infinity), d(-Infinity), 'update'), 'double(NaN)');
  });

  test('decimals: doubles are converted with 15 significant digits', () => {
    eq(add(dec('1'), d(0.1), 'update'), 'decimal(1.100000000000000)');
    eq(add(i(2), dec('0.5'), 'update'), 'decimal(2.5)');
    eq(multiply(dec('10.99'), dec('1.25'), 'update'), 'decimal(13.7375)');
    eq(multiply(dec('-1.5'), i(0), 'update'), 'decimal(-0.0)');
  });

  test('isIdentical: same type and value', () => {
    assert.ok(isIdentical(i(1), i(1)));
    assert.ok(!isIdentical(i(1), d(1)));
    assert.ok(!isIdentical(i(1), l(1)));
    assert.ok(isIdentical(d(0), d(-0)));
    assert.ok(!isIdentical(d(NaN), d(NaN)));
    assert.ok(isIdentical(dec('1.0'), dec('1.00')));
    assert.ok(!isIdentical(dec('NaN'), dec('NaN')));
    assert.ok(isIdentical(l('9223372036854775807'), l('9223372036854775807')));
  });
});

describe('aggregation arithmetic', () => {
  // jstests/aggregation/arith_overflow.js
  test('$add: int32 overflow widens to int64, int64 overflow falls back to double', () => {
    eq(add(i(2e9), i(2e9)), 'long(4000000000)');
    eq(add(l(9e18), l(9e18)), 'double(18000000000000000000)');
  });

  test('$subtract: the same rules', () => {
    eq(subtract(i(2e9), i(-2e9)), 'long(4000000000)');
    eq(subtract(l(9e18), l(-9e18)), 'double(18000000000000000000)');
    eq(subtract(i(5), i(7)), 'int(-2)');
  });

  test('$multiply: the same rules', () => {
    eq(multiply(i(2e9), i(-2e9)), 'long(-4000000000000000000)');
    eq(multiply(l(9e18), l(-9e18)), 'double(-8.1e+37)');
  });

  test('$divide gives a double unless a decimal is involved', () => {
    eq(divide(i(1), i(4)), 'double(0.25)');
    eq(divide(l(10), i(4)), 'double(2.5)');
    eq(divide(dec('1'), i(4)), 'decimal(0.25)');
    eq(divide(i(1), i(0)), 'undefined');
    eq(divide(d(1), dec('0.00')), 'undefined');
  });

  test('$mod keeps integer types and the sign of the dividend', () => {
    eq(mod(i(-7), i(2)), 'int(-1)');
    eq(mod(i(7), i(-2)), 'int(1)');
    eq(mod(i(-2147483648), i(-1)), 'int(0)');
    eq(mod(l(10), i(3)), 'long(1)');
    eq(mod(i(10), l(3)), 'long(1)');
    eq(mod(d(-7.5), i(2)), 'double(-1.5)');
    eq(mod(d(5), d(Infinity)), 'double(5)');
    eq(mod(i(5), i(0)), 'undefined');
    eq(mod(l(5), d(0)), 'undefined');
  });
});

describe('decimal128 (General Decimal Arithmetic examples)', () => {
  const cases: Array<[string, () => BsonNumber | undefined, string]> = [
    ['add 12 + 7.00', () => add(dec('12'), dec('7.00')), '19.00'],
    ['add 1E+2 + 1E+4', () => add(dec('1E+2'), dec('1E+4')), '1.01E+4'],
    ['add 1.10 + 2.20', () => add(dec('1.10'), dec('2.20')), '3.30'],
    ['subtract 1.3 - 1.07', () => subtract(dec('1.3'), dec('1.07')), '0.23'],
    ['subtract 1.3 - 1.30', () => subtract(dec('1.3'), dec('1.30')), '0.00'],
    ['subtract 1.3 - 2.07', () => subtract(dec('1.3'), dec('2.07')), '-0.77'],
    ['add -0 + -0 stays negative', () => add(dec('-0'), dec('-0')), '-0'],
    ['add 0 + -0 is positive', () => add(dec('0'), dec('-0')), '0'],
    ['multiply 1.20 * 3', () => multiply(dec('1.20'), dec('3')), '3.60'],
    ['multiply 7 * 3', () => multiply(dec('7'), dec('3')), '21'],
    ['multiply 0.9 * 0.8', () => multiply(dec('0.9'), dec('0.8')), '0.72'],
    ['multiply 0.9 * -0', () => multiply(dec('0.9'), dec('-0')), '-0.0'],
    ['divide 1 / 3', () => divide(dec('1'), dec('3')), '0.3333333333333333333333333333333333'],
    ['divide 2 / 3', () => divide(dec('2'), dec('3')), '0.6666666666666666666666666666666667'],
    ['divide 5 / 2', () => divide(dec('5'), dec('2')), '2.5'],
    ['divide 1 / 10', () => divide(dec('1'), dec('10')), '0.1'],
    ['divide 12 / 12', () => divide(dec('12'), dec('12')), '1'],
    ['divide 8.00 / 2', () => divide(dec('8.00'), dec('2')), '4.00'],
    ['divide 2.400 / 2.0', () => divide(dec('2.400'), dec('2.0')), '1.20'],
    ['divide 1000 / 100', () => divide(dec('1000'), dec('100')), '10'],
    ['divide 1000 / 1', () => divide(dec('1000'), dec('1')), '1000'],
    ['divide 2.40E+6 / 2', () => divide(dec('2.40E+6'), dec('2')), '1.20E+6'],
    ['remainder 2.1 % 3', () => mod(dec('2.1'), dec('3')), '2.1'],
    ['remainder 10 % 3', () => mod(dec('10'), dec('3')), '1'],
    ['remainder -10 % 3', () => mod(dec('-10'), dec('3')), '-1'],
    ['remainder 10.2 % 1', () => mod(dec('10.2'), dec('1')), '0.2'],
    ['remainder 10 % 0.3', () => mod(dec('10'), dec('0.3')), '0.1'],
    ['remainder 3.6 % 1.3', () => mod(dec('3.6'), dec('1.3')), '1.0'],
    [
      'rounding to 34 digits carries into the exponent',
      () => add(dec('9999999999999999999999999999999999'), dec('1')),
      '1.000000000000000000000000000000000E+34',
    ],
    [
      'half-even rounding (down to even)',
      () => add(dec('1000000000000000000000000000000000'), dec('0.5')),
      '1000000000000000000000000000000000',
    ],
    [
      'half-even rounding (up to even)',
      () => add(dec('1000000000000000000000000000000001'), dec('0.5')),
      '1000000000000000000000000000000002',
    ],
    ['overflow gives infinity', () => multiply(dec('9E+6144'), dec('10')), 'Infinity'],
    ['underflow rounds to zero', () => multiply(dec('1E-6176'), dec('0.1')), '0E-6176'],
    ['subnormal half-even', () => multiply(dec('3E-6176'), dec('0.5')), '2E-6176'],
    ['Infinity - Infinity is NaN', () => add(dec('Infinity'), dec('-Infinity')), 'NaN'],
    ['Infinity * 0 is NaN', () => multiply(dec('Infinity'), dec('0')), 'NaN'],
    ['NaN propagates', () => add(dec('NaN'), i(1)), 'NaN'],
  ];
  for (const [name, run, expected] of cases) {
    test(name, () => eq(run(), `decimal(${expected})`));
  }

  test('a double becomes a decimal with exactly 15 significant digits', () => {
    assert.equal(toDecimal(d(0.1)).toString(), '0.100000000000000');
    assert.equal(toDecimal(d(1)).toString(), '1.00000000000000');
    assert.equal(toDecimal(d(-2.5)).toString(), '-2.50000000000000');
    assert.equal(toDecimal(d(1e20)).toString(), '1.00000000000000E+20');
    assert.equal(toDecimal(d(0)).toString(), '0');
    assert.equal(toDecimal(d(-0)).toString(), '-0');
    assert.equal(toDecimal(d(Infinity)).toString(), 'Infinity');
    assert.equal(toDecimal(d(NaN)).toString(), 'NaN');
    // An exact tie at the 16th digit rounds half to even (toPrecision would round up).
    assert.equal(toDecimal(d(1234567890123445)).toString(), '1.23456789012344E+15');
    assert.equal(decimalFromDouble(0.1, 34).toString(), '0.1000000000000000055511151231257827');
  });

  test('ints convert exactly', () => {
    assert.equal(toDecimal(l('-9223372036854775808')).toString(), '-9223372036854775808');
    assert.equal(toDecimal(i(7)).toString(), '7');
  });

  test('decimal values survive the round trip through the arithmetic encoder', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 34n - 1n }),
        fc.integer({ min: -6176, max: 6111 }),
        fc.boolean(),
        (coef, exp, negative) => {
          const v = Decimal128.fromString(`${negative ? '-' : ''}${coef}E${exp}`);
          // x + 0 with the same exponent is x, byte for byte.
          const zero = Decimal128.fromString(`0E${exp}`);
          const sum = add(v, zero) as Decimal128;
          // A zero sum is +0 (IEEE round-half-even), so -0 + 0 loses its sign.
          assert.equal(sum.toString(), coef === 0n ? zero.toString() : v.toString());
        },
      ),
      { numRuns: 300 },
    );
  });

  test('decimal addition agrees with exact rational addition when no rounding happens', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        fc.integer({ min: -8, max: 8 }),
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        fc.integer({ min: -8, max: 8 }),
        (c1, e1, c2, e2) => {
          const a = Decimal128.fromString(`${c1}E${e1}`);
          const b = Decimal128.fromString(`${c2}E${e2}`);
          const e = Math.min(e1, e2);
          const exact = c1 * 10n ** BigInt(e1 - e) + c2 * 10n ** BigInt(e2 - e);
          const expected = Decimal128.fromString(`${exact}E${e}`);
          const sum = add(a, b) as Decimal128;
          if (exact !== 0n) assert.equal(sum.toString(), expected.toString());
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('bitwise', () => {
  test('int32 with int32 stays int32', () => {
    eq(bitAnd(i(13), i(10)), 'int(8)');
    eq(bitOr(i(2), i(4)), 'int(6)');
    eq(bitXor(i(-1), i(1)), 'int(-2)');
  });
  test('an int64 operand gives int64 (int32 sign-extended)', () => {
    eq(bitOr(l(3), i(5)), 'long(7)');
    eq(bitAnd(i(-1), l('4294967296')), 'long(4294967296)');
    eq(bitXor(l(1), i(5)), 'long(4)');
  });
});
