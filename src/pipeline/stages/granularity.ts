// $bucketAuto's granularity rounders, as mongod's GranularityRounder: the preferred-number
// series (Renard R5…R80, 1-2-5, E6…E192) repeated over powers of ten, and POWERSOF2. A value is
// rounded up to the next series value strictly above it, or down to the one strictly below it;
// zero stays as it is. Doubles and integers round in double arithmetic (the result a double),
// decimals in decimal arithmetic; POWERSOF2 computes 2^exponent as $pow does (integral for
// integral and double inputs).

import { Decimal128, Double, Int32, Long } from 'bson';
import * as num from '../../bson/numeric.js';
import { compareBson } from '../../bson/compare.js';
import type { BsonValue } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';

export interface Rounder {
  up(v: num.BsonNumber): BsonValue;
  down(v: num.BsonNumber): BsonValue;
}

// mongod's tables: each series scaled to integers, as in granularity_rounder_preferred_numbers.
const SERIES: Readonly<Record<string, readonly number[]>> = {
  R5: [10, 16, 25, 40, 63],
  R10: [100, 125, 160, 200, 250, 315, 400, 500, 630, 800],
  R20: [
    100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630, 710, 800,
    900,
  ],
  R40: [
    100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200, 212, 224, 236, 250, 265, 280,
    300, 315, 355, 375, 400, 425, 450, 475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900,
    950,
  ],
  R80: [
    103, 109, 115, 122, 128, 136, 145, 155, 165, 175, 185, 195, 206, 218, 230, 243, 258, 272, 290,
    307, 325, 345, 365, 387, 412, 437, 462, 487, 515, 545, 575, 615, 650, 690, 730, 775, 825, 875,
    925, 975,
  ],
  '1-2-5': [10, 20, 50],
  E6: [10, 15, 22, 33, 47, 68],
  E12: [10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82],
  E24: [
    10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91,
  ],
  E48: [
    100, 105, 110, 115, 121, 127, 133, 140, 147, 154, 162, 169, 178, 187, 196, 205, 215, 226, 237,
    249, 261, 274, 287, 301, 316, 332, 348, 365, 383, 402, 422, 442, 464, 487, 511, 536, 562, 590,
    619, 649, 681, 715, 750, 787, 825, 866, 909, 953,
  ],
  E96: [
    100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133, 137, 140, 143, 147, 150, 154,
    158, 162, 165, 169, 174, 178, 182, 187, 191, 196, 200, 205, 210, 215, 221, 226, 232, 237, 243,
    249, 255, 261, 267, 274, 280, 287, 294, 301, 309, 316, 324, 332, 340, 348, 357, 365, 374, 383,
    392, 402, 412, 422, 432, 442, 453, 464, 475, 487, 499, 511, 523, 536, 549, 562, 576, 590, 604,
    619, 634, 649, 665, 681, 698, 715, 732, 750, 768, 787, 806, 825, 845, 866, 887, 909, 931, 953,
    976,
  ],
  E192: [
    100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115, 117, 118, 120, 121, 123, 124,
    126, 127, 129, 130, 132, 133, 135, 137, 138, 140, 142, 143, 145, 147, 149, 150, 152, 154, 156,
    158, 160, 162, 164, 165, 167, 169, 172, 174, 176, 178, 180, 182, 184, 187, 189, 191, 193, 196,
    198, 200, 203, 205, 208, 210, 213, 215, 218, 221, 223, 226, 229, 232, 234, 237, 240, 243, 246,
    249, 252, 255, 258, 261, 264, 267, 271, 274, 277, 280, 284, 287, 291, 294, 298, 301, 305, 309,
    312, 316, 320, 324, 328, 332, 336, 340, 344, 348, 352, 357, 361, 365, 370, 374, 379, 383, 388,
    392, 397, 402, 407, 412, 417, 422, 427, 432, 437, 442, 448, 453, 459, 464, 470, 475, 481, 487,
    493, 499, 505, 511, 517, 523, 530, 536, 542, 549, 556, 562, 569, 576, 583, 590, 597, 604, 612,
    619, 626, 634, 642, 649, 657, 665, 673, 681, 690, 698, 706, 715, 723, 732, 741, 750, 759, 768,
    777, 787, 796, 806, 816, 825, 835, 845, 856, 866, 876, 887, 898, 909, 920, 931, 942, 953, 965,
    976, 988,
  ],
};

/** The arithmetic a series is scaled in: doubles, or decimals for decimal inputs. */
interface Arith<T> {
  of(n: number): T;
  mul(a: T, b: T): T;
  div(a: T, b: T): T;
  cmp(a: T, b: T): number;
  out(v: T): BsonValue;
}

const doubles: Arith<number> = {
  of: (n) => n,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  cmp: (a, b) => a - b,
  out: (v) => new Double(v),
};
const decimals: Arith<Decimal128> = {
  of: (n) => num.toDecimal(new Double(n)),
  mul: (a, b) => num.multiply(a, b) as Decimal128,
  div: (a, b) => num.divide(a, b) as Decimal128,
  cmp: (a, b) => compareBson(a, b),
  out: (v) => v,
};

function roundUpIn<T>(a: Arith<T>, series: readonly number[], x: T): BsonValue {
  const s = series.map((n) => a.of(n));
  const ten = a.of(10);
  const front = s[0] as T;
  const back = s[s.length - 1] as T;
  let m = a.of(1);
  while (a.cmp(x, a.mul(back, m)) >= 0) m = a.mul(m, ten);
  while (a.cmp(x, a.mul(front, m)) < 0) {
    const previousMin = a.mul(front, m);
    m = a.div(m, ten);
    // Between the previous minimum and this scale's maximum: rounds up to the previous minimum.
    if (a.cmp(x, a.mul(back, m)) >= 0) return a.out(previousMin);
  }
  const next = s.find((v) => a.cmp(x, a.mul(v, m)) < 0) as T;
  return a.out(a.mul(next, m));
}

function roundDownIn<T>(a: Arith<T>, series: readonly number[], x: T): BsonValue {
  const s = series.map((n) => a.of(n));
  const ten = a.of(10);
  const front = s[0] as T;
  const back = s[s.length - 1] as T;
  let m = a.of(1);
  while (a.cmp(x, a.mul(front, m)) <= 0) m = a.div(m, ten);
  while (a.cmp(x, a.mul(back, m)) > 0) {
    const previousMax = a.mul(back, m);
    m = a.mul(m, ten);
    if (a.cmp(x, a.mul(front, m)) <= 0) return a.out(previousMax);
  }
  const i = s.findIndex((v) => a.cmp(a.mul(v, m), x) >= 0);
  return a.out(a.mul(s[i - 1] as T, m));
}

function seriesRounder(series: readonly number[]): Rounder {
  return {
    up: (v) =>
      num.isZero(v)
        ? v
        : v instanceof Decimal128
          ? roundUpIn(decimals, series, v)
          : roundUpIn(doubles, series, num.toDouble(v)),
    down: (v) =>
      num.isZero(v)
        ? v
        : v instanceof Decimal128
          ? roundDownIn(decimals, series, v)
          : roundDownIn(doubles, series, num.toDouble(v)),
  };
}

/** 2^exp as $pow computes it for an integral base and exponent. */
function powerOfTwo(exp: number, decimal: boolean): BsonValue {
  if (decimal) return num.toDecimal(new Double(2 ** exp));
  if (exp < 0) return new Double(2 ** exp);
  const n = 2n ** BigInt(exp);
  if (n <= 2147483647n) return new Int32(Number(n));
  if (n <= 9223372036854775807n) return Long.fromBigInt(n);
  return new Double(2 ** exp);
}

function bitLength(n: bigint): number {
  return n.toString(2).length;
}

const powersOf2: Rounder = {
  up(v) {
    if (num.isZero(v)) return v;
    if (v instanceof Int32 || v instanceof Long)
      return powerOfTwo(bitLength(v instanceof Int32 ? BigInt(v.value) : v.toBigInt()), false);
    const exp = Math.floor(Math.log2(num.toDouble(v))) + 1;
    return powerOfTwo(exp, v instanceof Decimal128);
  },
  down(v) {
    if (num.isZero(v)) return v;
    if (v instanceof Int32 || v instanceof Long) {
      const n = v instanceof Int32 ? BigInt(v.value) : v.toBigInt();
      const bits = bitLength(n);
      // A power of two rounds down to the previous one.
      return powerOfTwo((n & (n - 1n)) === 0n ? bits - 2 : bits - 1, false);
    }
    const exp = Math.ceil(Math.log2(num.toDouble(v))) - 1;
    return powerOfTwo(exp, v instanceof Decimal128);
  },
};

/** The rounder named by a $bucketAuto granularity (40257 for an unknown name). */
export function rounderFor(name: string): Rounder {
  if (name === 'POWERSOF2') return powersOf2;
  const series = SERIES[name];
  if (series === undefined)
    fail(ErrorCode.Location40257, `Rounding granularity not recognized: ${name}`);
  return seriesRounder(series);
}
