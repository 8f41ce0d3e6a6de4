// Arithmetic over BSON numbers with mongod's type promotion.
//
// The four numeric types keep their identity end to end: int32 op int32 stays int32 unless the
// result does not fit, then it widens to int64; any double makes the result a double; any
// decimal128 makes it a decimal128. Two callers need two different overflow rules for int64:
//
// - update operators ($inc, $mul, $bit) use mongod's SafeNum: an int64 result that overflows is
//   *invalid* and the update fails ("Failed to apply $inc operations ..."); `mode: 'update'`
//   returns `undefined` for it so the caller can raise its own error.
// - aggregation expressions ($add, $subtract, $multiply) fall back to double arithmetic when an
//   int64 result overflows; `mode: 'aggregate'` (the default) does that.
//
// Both convert a double to decimal128 the way mongod's Decimal128(double) does by default:
// rounded to 15 significant digits, keeping trailing zeros (0.1 → 0.100000000000000).
//
// Decimal128 arithmetic is IEEE 754-2008 decimal with 34 digits, round-half-even, written here
// on BigInt rather than with decimal.js: decimal.js normalises away trailing zeros, and mongod
// preserves them (NumberDecimal("1.10") + NumberDecimal("2.20") is "3.30", not "3.3"), so the
// exponent ("cohort") of every result has to follow the IEEE rules to match what drivers see.

import { Decimal128, Double, Int32, Long, Timestamp } from 'bson';

export type BsonNumber = Int32 | Long | Double | Decimal128;
export type NumericTypeName = 'int' | 'long' | 'double' | 'decimal';

/** How int64 overflow is handled: an invalid result (update operators) or a double (aggregation). */
export type OverflowMode = 'update' | 'aggregate';

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** int64, but not a Timestamp: the bson package's Timestamp class extends Long. */
function isLong(v: unknown): v is Long {
  return v instanceof Long && !(v instanceof Timestamp);
}

export function isNumeric(v: unknown): v is BsonNumber {
  return v instanceof Int32 || isLong(v) || v instanceof Double || v instanceof Decimal128;
}

export function numericTypeOf(v: unknown): NumericTypeName | undefined {
  if (v instanceof Int32) return 'int';
  if (isLong(v)) return 'long';
  if (v instanceof Double) return 'double';
  if (v instanceof Decimal128) return 'decimal';
  return undefined;
}

/** True for int32 and int64: the types $bit and integer-only arguments accept. */
export function isIntegral(v: unknown): v is Int32 | Long {
  return v instanceof Int32 || isLong(v);
}

/**
 * The narrowest of int32 / int64 / double that represents `n` exactly when `n` is an integer;
 * doubles otherwise. For JS numbers that come from computations (lengths, counts, dates).
 */
export function fromSafeInteger(n: number): Int32 | Long | Double {
  if (Number.isInteger(n) && !Object.is(n, -0)) {
    if (n >= -2147483648 && n <= 2147483647) return new Int32(n);
    if (Number.isSafeInteger(n)) return Long.fromNumber(n);
  }
  return new Double(n);
}

/** int32 if it fits, else int64 (mongod's Value::createIntOrLong). */
export function intOrLong(n: bigint): Int32 | Long {
  return n >= INT32_MIN && n <= INT32_MAX ? new Int32(Number(n)) : Long.fromBigInt(n);
}

function integerOf(v: Int32 | Long): bigint {
  return v instanceof Int32 ? BigInt(v.value) : v.toBigInt();
}

/**
 * Any value as a JS number when it is a BSON number (toDouble), undefined otherwise: the one
 * "number of an unknown value" helper.
 */
export function numericValue(v: unknown): number | undefined {
  return isNumeric(v) ? toDouble(v) : undefined;
}

/**
 * A BSON number as a JS number, rounded to the nearest double: exact for int32 and double;
 * an int64 beyond 2^53 and a decimal round to nearest (half to even), as C++'s conversions
 * do.
 */
export function toDouble(v: BsonNumber): number {
  if (v instanceof Int32 || v instanceof Double) return v.value;
  // high * 2^32 is exact, so adding the low word rounds once: Number(v.toBigInt()) without
  // allocating a bigint.
  if (v instanceof Long) return v.toNumber();
  return decimalToDouble(decodeDecimal(v));
}

/** The value as a decimal128 (doubles rounded to 15 significant digits, as mongod does). */
export function toDecimal(v: BsonNumber): Decimal128 {
  return encodeDecimal(decOf(v));
}

// ---- integer / double / decimal dispatch ---------------------------------------------------

type Kind = 'int' | 'long' | 'double' | 'decimal';

function widest(a: BsonNumber, b: BsonNumber): Kind {
  const ka = numericTypeOf(a) as Kind;
  const kb = numericTypeOf(b) as Kind;
  if (ka === 'decimal' || kb === 'decimal') return 'decimal';
  if (ka === 'double' || kb === 'double') return 'double';
  if (ka === 'long' || kb === 'long') return 'long';
  return 'int';
}

type IntOp = (x: bigint, y: bigint) => bigint;
type DoubleOp = (x: number, y: number) => number;
type DecOp = (x: Dec, y: Dec) => Dec;

function arith(
  a: BsonNumber,
  b: BsonNumber,
  mode: OverflowMode,
  intOp: IntOp,
  dblOp: DoubleOp,
  decOp: DecOp,
): BsonNumber | undefined {
  switch (widest(a, b)) {
    case 'decimal':
      return encodeDecimal(decOp(decOf(a), decOf(b)));
    case 'double':
      return new Double(dblOp(toDouble(a), toDouble(b)));
    case 'int':
      // Two int32 operands never overflow an int64: widen when the int32 does not fit.
      return intOrLong(intOp(integerOf(a as Int32), integerOf(b as Int32)));
    case 'long': {
      const r = intOp(integerOf(a as Int32 | Long), integerOf(b as Int32 | Long));
      if (r >= INT64_MIN && r <= INT64_MAX) return Long.fromBigInt(r);
      return mode === 'update' ? undefined : new Double(dblOp(toDouble(a), toDouble(b)));
    }
  }
}

/** a + b. `undefined` only in 'update' mode when an int64 sum overflows. */
export function add(
  a: BsonNumber,
  b: BsonNumber,
  mode: OverflowMode = 'aggregate',
): BsonNumber | undefined {
  return arith(
    a,
    b,
    mode,
    (x, y) => x + y,
    (x, y) => x + y,
    decAdd,
  );
}

/** a - b. `undefined` only in 'update' mode when an int64 difference overflows. */
export function subtract(
  a: BsonNumber,
  b: BsonNumber,
  mode: OverflowMode = 'aggregate',
): BsonNumber | undefined {
  return arith(
    a,
    b,
    mode,
    (x, y) => x - y,
    (x, y) => x - y,
    (x, y) => decAdd(x, decNegate(y)),
  );
}

/** a * b. `undefined` only in 'update' mode when an int64 product overflows. */
export function multiply(
  a: BsonNumber,
  b: BsonNumber,
  mode: OverflowMode = 'aggregate',
): BsonNumber | undefined {
  return arith(
    a,
    b,
    mode,
    (x, y) => x * y,
    (x, y) => x * y,
    decMultiply,
  );
}

/** True when the value is numerically zero (of any numeric type; -0 included). */
export function isZero(v: BsonNumber): boolean {
  if (v instanceof Int32 || v instanceof Double) return v.value === 0;
  if (v instanceof Long) return v.isZero();
  const d = decodeDecimal(v);
  return d.kind === 'finite' && d.coef === 0n;
}

/**
 * a / b as aggregation's $divide computes it: decimal128 when either side is a decimal,
 * otherwise a double (int / int is a double too). `undefined` when b is zero: mongod
 * rejects that with its own error code, which the caller chooses.
 */
export function divide(a: BsonNumber, b: BsonNumber): Double | Decimal128 | undefined {
  if (isZero(b)) return undefined;
  if (a instanceof Decimal128 || b instanceof Decimal128)
    return encodeDecimal(decDivide(decOf(a), decOf(b)));
  return new Double(toDouble(a) / toDouble(b));
}

/**
 * The remainder of a / b with the sign of a (C's fmod, truncated division), typed as
 * aggregation's $mod: int32 when both are int32, int64 when the widest is int64, double
 * with a double, decimal with a decimal. `undefined` when b is zero.
 */
export function mod(a: BsonNumber, b: BsonNumber): BsonNumber | undefined {
  if (isZero(b)) return undefined;
  switch (widest(a, b)) {
    case 'decimal':
      return encodeDecimal(decRemainder(decOf(a), decOf(b)));
    case 'double': {
      // JS % is fmod for finite operands; like C, x % ±Inf is x and Inf % y is NaN.
      return new Double(toDouble(a) % toDouble(b));
    }
    case 'int': {
      const x = integerOf(a as Int32);
      const y = integerOf(b as Int32);
      // BigInt % truncates toward zero like C++; INT_MIN % -1 is 0 (no trap here).
      return new Int32(Number(x % y));
    }
    case 'long':
      return Long.fromBigInt(integerOf(a as Int32 | Long) % integerOf(b as Int32 | Long));
  }
}

/**
 * mongod's SafeNum::isIdentical: same numeric type and same value. Doubles compare with `==`
 * (so NaN is never identical, and -0 is identical to 0); decimals compare numerically (1.0 is
 * identical to 1.00). Update operators use it to tell a real change from a no-op.
 */
export function isIdentical(a: BsonNumber, b: BsonNumber): boolean {
  const ka = numericTypeOf(a);
  if (ka !== numericTypeOf(b)) return false;
  switch (ka) {
    case 'int':
      return (a as Int32).value === (b as Int32).value;
    case 'long':
      return (a as Long).equals(b as Long);
    case 'double':
      return (a as Double).value === (b as Double).value;
    default:
      return decEquals(decodeDecimal(a as Decimal128), decodeDecimal(b as Decimal128));
  }
}

// ---- bitwise (int32 / int64 only) ------------------------------------------------------------

type BitOp = (x: bigint, y: bigint) => bigint;

function bitwise(a: Int32 | Long, b: Int32 | Long, op: BitOp): Int32 | Long {
  const r = op(integerOf(a), integerOf(b));
  // int32 op int32 stays int32 (the result of two 32-bit values fits); otherwise int64.
  if (a instanceof Int32 && b instanceof Int32) return new Int32(Number(BigInt.asIntN(32, r)));
  return Long.fromBigInt(BigInt.asIntN(64, r));
}

export function bitAnd(a: Int32 | Long, b: Int32 | Long): Int32 | Long {
  return bitwise(a, b, (x, y) => x & y);
}
export function bitOr(a: Int32 | Long, b: Int32 | Long): Int32 | Long {
  return bitwise(a, b, (x, y) => x | y);
}
export function bitXor(a: Int32 | Long, b: Int32 | Long): Int32 | Long {
  return bitwise(a, b, (x, y) => x ^ y);
}

// ---- decimal128 on BigInt --------------------------------------------------------------------

/** A decoded decimal128: sign 1 is negative; a finite value is (-1)^sign × coef × 10^exp. */
export type Dec =
  | { kind: 'nan' }
  | { kind: 'inf'; sign: 0 | 1 }
  | {
      kind: 'finite';
      sign: 0 | 1;
      coef: bigint;
      exp: number;
      /** nonzero digits were cut off below coef */ sticky?: boolean;
    };

const PRECISION = 34;
const EXP_MAX = 6111; // largest exponent of a 34-digit integer coefficient
const EXP_MIN = -6176; // smallest (subnormal) exponent
const EXP_BIAS = 6176;
const COEF_LIMIT = 10n ** BigInt(PRECISION);
const POW10: bigint[] = [1n];
function pow10(n: number): bigint {
  if (n < 400) {
    while (POW10.length <= n) POW10.push((POW10[POW10.length - 1] as bigint) * 10n);
    return POW10[n] as bigint;
  }
  return 10n ** BigInt(n);
}

function digitCount(n: bigint): number {
  return n === 0n ? 1 : n.toString().length;
}

const MASK64 = (1n << 64n) - 1n;

/** Decimal128 bytes (little-endian BID encoding) → Dec. Non-canonical coefficients read as 0. */
export function decodeDecimal(d: Decimal128): Dec {
  const bytes = d.bytes;
  let low = 0n;
  let high = 0n;
  for (let i = 7; i >= 0; i--) low = (low << 8n) | BigInt(bytes[i] ?? 0);
  for (let i = 15; i >= 8; i--) high = (high << 8n) | BigInt(bytes[i] ?? 0);
  const sign: 0 | 1 = (high >> 63n) & 1n ? 1 : 0;
  const combination = (high >> 58n) & 0x1fn;
  if (combination === 0x1fn) return { kind: 'nan' };
  if (combination === 0x1en) return { kind: 'inf', sign };
  let exp: number;
  let coef: bigint;
  if (((high >> 61n) & 3n) === 3n) {
    // The "11" form stores coefficients ≥ 2^113, all beyond 10^34: non-canonical, so zero.
    exp = Number((high >> 47n) & 0x3fffn) - EXP_BIAS;
    coef = 0n;
  } else {
    exp = Number((high >> 49n) & 0x3fffn) - EXP_BIAS;
    coef = ((high & ((1n << 49n) - 1n)) << 64n) | low;
    if (coef >= COEF_LIMIT) coef = 0n;
  }
  return { kind: 'finite', sign, coef, exp };
}

function bytesOf(high: bigint, low: bigint): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    out[i] = Number((low >> BigInt(8 * i)) & 0xffn);
    out[8 + i] = Number((high >> BigInt(8 * i)) & 0xffn);
  }
  return out;
}

/** Round a coefficient by dropping `drop` digits, half-even; `sticky` marks nonzero digits below. */
function roundDrop(coef: bigint, drop: number, sticky: boolean): bigint {
  const div = pow10(drop);
  const q = coef / div;
  const twice = 2n * (coef % div);
  if (twice > div || (twice === div && (sticky || q % 2n === 1n))) return q + 1n;
  return q;
}

/**
 * Dec → Decimal128: round once to 34 digits (or fewer when the exponent would fall below the
 * subnormal minimum), half-even, then clamp large exponents (fold-down) or overflow to infinity.
 */
export function encodeDecimal(d: Dec): Decimal128 {
  if (d.kind === 'nan') return new Decimal128(bytesOf(0x7c00000000000000n, 0n));
  if (d.kind === 'inf')
    return new Decimal128(bytesOf(0x7800000000000000n | (BigInt(d.sign) << 63n), 0n));
  let { coef, exp } = d;
  const digits = digitCount(coef);
  const drop = Math.max(0, digits - PRECISION, EXP_MIN - exp);
  if (drop > 0) {
    // Below a tenth of the last kept unit the value rounds to zero whatever the sticky bit.
    coef = drop > digits ? 0n : roundDrop(coef, drop, d.sticky === true);
    exp += drop;
    if (coef >= COEF_LIMIT) {
      coef /= 10n;
      exp += 1;
    }
  }
  if (exp > EXP_MAX) {
    if (coef === 0n) {
      exp = EXP_MAX;
    } else {
      // Fold down: pad the coefficient with zeros while it still fits in 34 digits.
      const need = exp - EXP_MAX;
      if (need > PRECISION - digitCount(coef)) return encodeDecimal({ kind: 'inf', sign: d.sign });
      coef *= pow10(need);
      exp = EXP_MAX;
    }
  }
  const biased = BigInt(exp + EXP_BIAS);
  const high = (BigInt(d.sign) << 63n) | (biased << 49n) | (coef >> 64n);
  return new Decimal128(bytesOf(high, coef & MASK64));
}

function decNegate(d: Dec): Dec {
  if (d.kind === 'nan') return d;
  return { ...d, sign: d.sign === 1 ? 0 : 1 };
}

function decEquals(a: Dec, b: Dec): boolean {
  if (a.kind === 'nan' || b.kind === 'nan') return false;
  if (a.kind === 'inf' || b.kind === 'inf') return a.kind === b.kind && a.sign === b.sign;
  if (a.coef === 0n && b.coef === 0n) return true;
  if (a.sign !== b.sign) return false;
  const e = Math.min(a.exp, b.exp);
  return a.coef * pow10(a.exp - e) === b.coef * pow10(b.exp - e);
}

/** Align two finite values to a common exponent (the smaller one). */
function align(
  a: { coef: bigint; exp: number },
  b: { coef: bigint; exp: number },
): [bigint, bigint, number] {
  const e = Math.min(a.exp, b.exp);
  return [a.coef * pow10(a.exp - e), b.coef * pow10(b.exp - e), e];
}

export function decAdd(a: Dec, b: Dec): Dec {
  if (a.kind === 'nan' || b.kind === 'nan') return { kind: 'nan' };
  if (a.kind === 'inf') return b.kind === 'inf' && b.sign !== a.sign ? { kind: 'nan' } : a;
  if (b.kind === 'inf') return b;
  const [x, y, exp] = align(a, b);
  const sx = a.sign ? -x : x;
  const sy = b.sign ? -y : y;
  const sum = sx + sy;
  if (sum === 0n) {
    // IEEE: an exact zero sum is +0 under round-half-even unless both operands are negative.
    return { kind: 'finite', sign: a.sign === 1 && b.sign === 1 ? 1 : 0, coef: 0n, exp };
  }
  return { kind: 'finite', sign: sum < 0n ? 1 : 0, coef: sum < 0n ? -sum : sum, exp };
}

export function decMultiply(a: Dec, b: Dec): Dec {
  if (a.kind === 'nan' || b.kind === 'nan') return { kind: 'nan' };
  const sign: 0 | 1 = (a.sign ^ b.sign) as 0 | 1;
  if (a.kind === 'inf' || b.kind === 'inf') {
    const other = a.kind === 'inf' ? b : a;
    if (other.kind === 'finite' && other.coef === 0n) return { kind: 'nan' };
    return { kind: 'inf', sign };
  }
  return { kind: 'finite', sign, coef: a.coef * b.coef, exp: a.exp + b.exp };
}

/** IEEE division: exact quotients keep the exponent closest to ea - eb; others round to 34 digits. */
export function decDivide(a: Dec, b: Dec): Dec {
  if (a.kind === 'nan' || b.kind === 'nan') return { kind: 'nan' };
  const sign: 0 | 1 = (a.sign ^ b.sign) as 0 | 1;
  if (a.kind === 'inf') return b.kind === 'inf' ? { kind: 'nan' } : { kind: 'inf', sign };
  if (b.kind === 'inf') return { kind: 'finite', sign, coef: 0n, exp: EXP_MIN };
  if (b.coef === 0n) return a.coef === 0n ? { kind: 'nan' } : { kind: 'inf', sign };
  const ideal = a.exp - b.exp;
  if (a.coef === 0n) return { kind: 'finite', sign, coef: 0n, exp: ideal };
  // Scale the dividend so the quotient has at least 35 digits (one guard digit for rounding).
  const shift = Math.max(0, PRECISION + 1 + digitCount(b.coef) - digitCount(a.coef));
  const num = a.coef * pow10(shift);
  let q = num / b.coef;
  const r = num % b.coef;
  let exp = ideal - shift;
  if (r === 0n) {
    // Exact: remove trailing zeros while the exponent is below the ideal one.
    while (exp < ideal && q % 10n === 0n) {
      q /= 10n;
      exp += 1;
    }
    return { kind: 'finite', sign, coef: q, exp };
  }
  // Inexact: encodeDecimal rounds; the nonzero remainder is the sticky bit.
  return { kind: 'finite', sign, coef: q, exp, sticky: true };
}

/** Remainder of truncated division, exact; the result has the dividend's sign. */
export function decRemainder(a: Dec, b: Dec): Dec {
  if (a.kind === 'nan' || b.kind === 'nan' || a.kind === 'inf') return { kind: 'nan' };
  if (b.kind === 'inf') return a;
  if (b.coef === 0n) return { kind: 'nan' };
  const [x, y, exp] = align(a, b);
  return { kind: 'finite', sign: a.sign, coef: x % y, exp };
}

function decOf(v: BsonNumber): Dec {
  if (v instanceof Decimal128) return decodeDecimal(v);
  if (v instanceof Int32 || v instanceof Long) {
    const n = integerOf(v);
    return { kind: 'finite', sign: n < 0n ? 1 : 0, coef: n < 0n ? -n : n, exp: 0 };
  }
  return decFromDouble(v.value, 15);
}

/**
 * A double as a decimal with exactly `digits` significant digits, rounded half-even from the
 * double's exact binary value (mongod's Decimal128(double, kRoundTo15Digits)). Zero, NaN and
 * infinities convert directly (0.0 → 0, -0.0 → -0).
 */
export function decFromDouble(x: number, digits = 15): Dec {
  if (Number.isNaN(x)) return { kind: 'nan' };
  const sign: 0 | 1 = x < 0 || Object.is(x, -0) ? 1 : 0;
  if (!Number.isFinite(x)) return { kind: 'inf', sign };
  if (x === 0) return { kind: 'finite', sign, coef: 0n, exp: 0 };
  // Exact value of |x| as num / 2^k.
  let m = Math.abs(x);
  let k = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    k++;
  }
  const num = BigInt(m);
  const den = 1n << BigInt(k);
  // Find exp such that 10^(digits-1) <= |x| / 10^exp < 10^digits.
  let exp = Math.floor(Math.log10(Math.abs(x))) - (digits - 1);
  for (;;) {
    const [n, d] = exp >= 0 ? [num, den * pow10(exp)] : [num * pow10(-exp), den];
    const q = n / d;
    if (q >= pow10(digits)) {
      exp += 1;
      continue;
    }
    if (q < pow10(digits - 1)) {
      exp -= 1;
      continue;
    }
    const r = n - q * d;
    let coef = q;
    if (2n * r > d || (2n * r === d && q % 2n === 1n)) coef += 1n;
    if (coef === pow10(digits)) {
      coef /= 10n;
      exp += 1;
    }
    return { kind: 'finite', sign, coef, exp };
  }
}

/** Dec → nearest double (JS parses decimal strings with correct rounding). */
export function decimalToDouble(d: Dec): number {
  if (d.kind === 'nan') return NaN;
  if (d.kind === 'inf') return d.sign ? -Infinity : Infinity;
  const v = Number(`${d.coef}e${d.exp}`);
  return d.sign ? -v : v;
}

/** Decimal128 from a double with `digits` significant digits (15 as mongod's default). */
export function decimalFromDouble(x: number, digits = 15): Decimal128 {
  return encodeDecimal(decFromDouble(x, digits));
}
