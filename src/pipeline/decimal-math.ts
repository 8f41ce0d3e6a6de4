// Decimal128 operations aggregation needs beyond src/bson/numeric.ts: quantize with a rounding
// mode ($round, $trunc, $ceil, $floor), conversion to an integer ($convert, $toLong), and the
// transcendental functions ($exp, $ln, $log, $log10, $sqrt, $pow). mongod computes the latter
// with Intel's decimal library at 34 digits; decimal.js at 34 digits, half-even, gives the same
// values (the exponent "cohort" of such inexact results may differ, which drivers do not show
// except in the printed form).

import { Decimal128 } from 'bson';
import { Decimal } from 'decimal.js';
import { decodeDecimal, encodeDecimal } from '../bson/numeric.js';
import type { Dec } from '../bson/numeric.js';

export type RoundingMode = 'halfEven' | 'towardZero' | 'towardPositive' | 'towardNegative';

const COEF_LIMIT = 10n ** 34n;

/**
 * IEEE quantize: the value with exponent `exp`, rounded by `mode`. A result that needs more
 * than 34 digits is NaN (the invalid-operation result), as in IEEE 754 and mongod.
 */
export function quantize(d: Dec, exp: number, mode: RoundingMode): Dec {
  if (d.kind !== 'finite') return d.kind === 'inf' ? { kind: 'nan' } : d;
  if (d.exp >= exp) {
    const coef = d.coef * 10n ** BigInt(d.exp - exp);
    return coef >= COEF_LIMIT ? { kind: 'nan' } : { kind: 'finite', sign: d.sign, coef, exp };
  }
  const div = 10n ** BigInt(exp - d.exp);
  let q = d.coef / div;
  const r = d.coef % div;
  if (r !== 0n) {
    const up =
      mode === 'halfEven'
        ? 2n * r > div || (2n * r === div && q % 2n === 1n)
        : mode === 'towardZero'
          ? false
          : mode === 'towardPositive'
            ? d.sign === 0
            : d.sign === 1;
    if (up) q += 1n;
  }
  return q >= COEF_LIMIT ? { kind: 'nan' } : { kind: 'finite', sign: d.sign, coef: q, exp };
}

export function quantizeDecimal(v: Decimal128, exp: number, mode: RoundingMode): Decimal128 {
  return encodeDecimal(quantize(decodeDecimal(v), exp, mode));
}

/** The integer part of a finite decimal, truncated toward zero (or rounded half-even). */
export function decimalToBigInt(
  v: Decimal128,
  mode: RoundingMode = 'towardZero',
): bigint | undefined {
  const d = quantize(decodeDecimal(v), 0, mode);
  if (d.kind !== 'finite') return undefined;
  return d.sign ? -d.coef : d.coef;
}

export function decimalIsNaN(v: Decimal128): boolean {
  return decodeDecimal(v).kind === 'nan';
}

export function decimalIsInfinite(v: Decimal128): boolean {
  return decodeDecimal(v).kind === 'inf';
}

export function decimalSign(v: Decimal128): -1 | 0 | 1 {
  const d = decodeDecimal(v);
  if (d.kind === 'nan') return 0;
  if (d.kind === 'inf') return d.sign ? -1 : 1;
  if (d.coef === 0n) return 0;
  return d.sign ? -1 : 1;
}

export function decimalAbs(v: Decimal128): Decimal128 {
  const d = decodeDecimal(v);
  if (d.kind === 'nan') return v;
  return encodeDecimal({ ...d, sign: 0 });
}

export function decimalNegate(v: Decimal128): Decimal128 {
  const d = decodeDecimal(v);
  if (d.kind === 'nan') return v;
  return encodeDecimal({ ...d, sign: d.sign ? 0 : 1 });
}

// ---- transcendental functions ------------------------------------------------------------

const D34 = Decimal.clone({
  precision: 34,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -7000,
  toExpPos: 7000,
  minE: -7000,
  maxE: 7000,
});
type D34 = InstanceType<typeof D34>;

function toD(v: Decimal128): D34 {
  const d = decodeDecimal(v);
  if (d.kind === 'nan') return new D34(NaN);
  if (d.kind === 'inf') return new D34(d.sign ? -Infinity : Infinity);
  const s = `${d.sign ? '-' : ''}${d.coef}e${d.exp}`;
  return new D34(s);
}

function fromD(x: D34): Decimal128 {
  if (x.isNaN()) return encodeDecimal({ kind: 'nan' });
  if (!x.isFinite()) return encodeDecimal({ kind: 'inf', sign: x.isNegative() ? 1 : 0 });
  if (x.isZero())
    return encodeDecimal({ kind: 'finite', sign: x.isNegative() ? 1 : 0, coef: 0n, exp: 0 });
  // Exponential notation with an integer coefficient: d.ddd…e±N → coef, exp.
  const [mant, e] = x.abs().toExponential().split('e') as [string, string];
  const [intPart, frac = ''] = mant.split('.') as [string, string?];
  const coef = BigInt(intPart + frac);
  const exp = Number(e) - frac.length;
  return encodeDecimal({ kind: 'finite', sign: x.isNegative() ? 1 : 0, coef, exp });
}

export function decimalExp(v: Decimal128): Decimal128 {
  return fromD(toD(v).exp());
}
export function decimalLn(v: Decimal128): Decimal128 {
  return fromD(toD(v).ln());
}
export function decimalLog(v: Decimal128, base: Decimal128): Decimal128 {
  return fromD(D34.log(toD(v), toD(base)));
}
export function decimalLog10(v: Decimal128): Decimal128 {
  return fromD(toD(v).log(10));
}
export function decimalSqrt(v: Decimal128): Decimal128 {
  return fromD(toD(v).sqrt());
}
export function decimalPow(base: Decimal128, exp: Decimal128): Decimal128 {
  return fromD(toD(base).pow(toD(exp)));
}

export { Decimal128 };
