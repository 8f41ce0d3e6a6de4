// The numeric part of the index key encoding (format in ../keystring.ts). Every number, of
// whatever BSON type, is encoded from its exact value, so values that compare equal (1,
// 1.0, 1L, 1.00m) get identical bytes and byte order is numeric order.
//
// A finite non-zero value x is written as sign, E = floor(log2 |x|), and the fraction bits
// of |x| / 2^E truncated to 52 bits: the "53-bit truncation" T(x), which is exact for every
// double, every int32 and every int64 below 2^53. T is monotone and |x| < T(x) + ulp, so
// values with different T order by T. When x is not exactly T(x) (int64 beyond 2^53 or a
// decimal128 off the binary grid, such as 0.1m) one more fraction bit is set (so x sorts
// after T(x) and before the next 53-bit value) and x's exact decimal form follows as a
// tie-break among the values in that gap.

import { Decimal128, Long } from 'bson';
import type { BitReader, BitWriter, ByteReader, ByteWriter } from './buffers.js';
import { corrupt } from './buffers.js';
import { Double, Int32 } from '../types.js';
import type { BsonValue } from '../types.js';

/** Number tags, ascending. Negative values use the mirror image of the positive tags. */
export const NumTag = {
  nan: 0x14,
  negInfinity: 0x15,
  /** Negative, E > windowMaxE: followed by the inverted 2-byte E. */
  negLarge: 0x16,
  /** Negative, windowMaxE >= E >= windowMinE: tag = negWindowLast - (E - windowMinE). */
  negWindowFirst: 0x17,
  negWindowLast: 0x66,
  /** Negative, E < windowMinE. */
  negSmall: 0x67,
  zero: 0x68,
  posSmall: 0x69,
  /** Positive, windowMinE <= E <= windowMaxE: tag = posWindowFirst + (E - windowMinE). */
  posWindowFirst: 0x6a,
  posWindowLast: 0xb9,
  posLarge: 0xba,
  posInfinity: 0xbb,
} as const;

/** Exponents that fit in the tag byte: 2^-16 <= |x| < 2^64 covers integers and common fractions. */
const windowMinE = -16;
const windowMaxE = 63;
const exponentBias = 0x8000;

export function isNumberTag(tag: number): boolean {
  return tag >= NumTag.nan && tag <= NumTag.posInfinity;
}

// ---- encoding ------------------------------------------------------------------------------

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const hiWord = littleEndian ? 1 : 0;
const loWord = littleEndian ? 0 : 1;
const two32 = 4294967296;
const two52 = 4503599627370496;

function ctz32(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/**
 * The 52 fraction bits (fHi: top 20, fLo: low 32) plus the inexact marker as 7-bit chunks,
 * most significant first, trailing zero chunks dropped. Byte = chunk << 1 | more; a value
 * without fraction bits is the single byte 0x00.
 */
function writeFraction(w: ByteWriter, fHi: number, fLo: number, inexact: boolean): void {
  // The 56-bit field fraction << 4 | inexact << 3, as two 28-bit halves.
  const hi28 = ((fHi << 8) | (fLo >>> 24)) >>> 0;
  const lo28 = ((fLo & 0xffffff) << 4) | (inexact ? 8 : 0);
  let last: number;
  if (lo28 !== 0) last = 7 - Math.floor(ctz32(lo28) / 7);
  else if (hi28 !== 0) last = 3 - Math.floor(ctz32(hi28) / 7);
  else {
    w.byte(0);
    return;
  }
  w.ensure(last + 1);
  const buf = w.buf;
  let p = w.pos;
  for (let i = 0; i <= last; i++) {
    const chunk = i < 4 ? (hi28 >>> (21 - 7 * i)) & 0x7f : (lo28 >>> (21 - 7 * (i - 4))) & 0x7f;
    buf[p++] = (chunk << 1) | (i < last ? 1 : 0);
  }
  w.pos = p;
}

/** Decimal digits (no trailing zeros) as nibbles digit+1, ended by a 0 nibble. */
function writeDigits(w: ByteWriter, digits: string): void {
  const n = digits.length;
  w.ensure((n >>> 1) + 1);
  const buf = w.buf;
  let p = w.pos;
  for (let i = 0; i < n; i += 2) {
    const a = digits.charCodeAt(i) - 47;
    const b = i + 1 < n ? digits.charCodeAt(i + 1) - 47 : 0;
    buf[p++] = (a << 4) | b;
  }
  if ((n & 1) === 0) buf[p++] = 0;
  w.pos = p;
}

/**
 * A finite non-zero value: tag, [E], fraction, [decimal tie-break]. `digits` (the exact
 * value's significant decimal digits, no trailing zeros) and `e10` (its decimal exponent,
 * value = 0.d1d2... × 10^(e10+1)) are given only when the value is not its own 53-bit
 * truncation.
 */
function writeFinite(
  w: ByteWriter,
  neg: boolean,
  e: number,
  fHi: number,
  fLo: number,
  digits?: string,
  e10 = 0,
): void {
  const inWindow = e >= windowMinE && e <= windowMaxE;
  let tag: number;
  if (inWindow)
    tag = neg ? NumTag.negWindowLast - (e - windowMinE) : NumTag.posWindowFirst + (e - windowMinE);
  else if (e < windowMinE) tag = neg ? NumTag.negSmall : NumTag.posSmall;
  else tag = neg ? NumTag.negLarge : NumTag.posLarge;
  w.byte(tag);
  const start = w.pos;
  if (!inWindow) w.u16(e + exponentBias);
  writeFraction(w, fHi, fLo, digits !== undefined);
  if (digits !== undefined) {
    w.u16(e10 + exponentBias);
    writeDigits(w, digits);
  }
  // Larger magnitudes must sort first among negatives: invert everything after the tag.
  if (neg) w.invertFrom(start);
}

function bitLength53(m: number): number {
  return m < two32 ? 32 - Math.clz32(m) : 64 - Math.clz32(Math.floor(m / two32));
}

export function writeDouble(w: ByteWriter, x: number): void {
  if (x !== x) return w.byte(NumTag.nan);
  if (x === 0) return w.byte(NumTag.zero);
  if (x === Infinity) return w.byte(NumTag.posInfinity);
  if (x === -Infinity) return w.byte(NumTag.negInfinity);
  f64[0] = x;
  const hi = u32[hiWord] as number;
  const lo = u32[loWord] as number;
  const neg = hi >>> 31 === 1;
  const biased = (hi >>> 20) & 0x7ff;
  if (biased !== 0) return writeFinite(w, neg, biased - 1023, hi & 0xfffff, lo);
  // Subnormal: normalise so that the leading 1 is implicit, as for normal doubles.
  const m = (hi & 0xfffff) * two32 + lo;
  const bits = bitLength53(m);
  const frac = m * 2 ** (53 - bits) - two52;
  const fHi = Math.floor(frac / two32);
  writeFinite(w, neg, -1074 + bits - 1, fHi, frac - fHi * two32);
}

export function writeInt32(w: ByteWriter, v: Int32): void {
  writeDouble(w, v.value);
}

export function writeLong(w: ByteWriter, v: Long): void {
  let hi = v.high;
  let lo = v.low >>> 0;
  // |v| <= 2^53: the value is a double.
  if (hi >= -0x200000 && hi < 0x200000) return writeDouble(w, hi * two32 + lo);
  // Beyond 2^53 (snowflake ids, nanosecond clocks): 32-bit arithmetic, no BigInt.
  const neg = hi < 0;
  if (neg) {
    // Two's complement magnitude; -2^63 becomes 0x80000000:00000000 read as unsigned.
    lo = (~lo + 1) >>> 0;
    hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
  } else hi >>>= 0;
  const e = 63 - Math.clz32(hi); // hi >= 2^21, so 53 <= e <= 63
  const shift = e - 52;
  const topHi = hi >>> shift;
  const topLo = ((hi << (32 - shift)) | (lo >>> shift)) >>> 0;
  const fHi = topHi - 0x100000;
  if ((lo & ((1 << shift) - 1)) === 0) return writeFinite(w, neg, e, fHi, topLo);
  const full = u64ToDecimal(hi, lo);
  writeFinite(w, neg, e, fHi, topLo, stripTrailingZeros(full), full.length - 1);
}

/** Decimal digits of hi × 2^32 + lo (unsigned), by long division of 16-bit limbs by 10^9. */
function u64ToDecimal(hi: number, lo: number): string {
  let a = hi >>> 16;
  let b = hi & 0xffff;
  let c = lo >>> 16;
  let d = lo & 0xffff;
  let out = '';
  for (;;) {
    // Each step's dividend is below 10^9 × 2^16 < 2^53: exact in doubles.
    let r = a;
    a = Math.floor(r / 1e9);
    r = (r - a * 1e9) * 65536 + b;
    b = Math.floor(r / 1e9);
    r = (r - b * 1e9) * 65536 + c;
    c = Math.floor(r / 1e9);
    r = (r - c * 1e9) * 65536 + d;
    d = Math.floor(r / 1e9);
    r -= d * 1e9;
    if (a === 0 && b === 0 && c === 0 && d === 0) return String(r) + out;
    out = String(r).padStart(9, '0') + out;
  }
}

function bitLength(n: bigint): number {
  if (n < 9007199254740992n) return bitLength53(Number(n));
  const hex = n.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0] ?? '0', 16)));
}

function stripTrailingZeros(s: string): string {
  let n = s.length;
  while (n > 1 && s.charCodeAt(n - 1) === 48) n--;
  return n === s.length ? s : s.slice(0, n);
}

/** |x| = top × 2^(E-52), top in [2^52, 2^53): write with fraction top - 2^52. */
function writeTop(
  w: ByteWriter,
  neg: boolean,
  e: number,
  top: bigint,
  digits?: string,
  e10 = 0,
): void {
  const frac = top - 4503599627370496n;
  const fHi = Number(frac >> 32n);
  const fLo = Number(frac & 0xffffffffn);
  writeFinite(w, neg, e, fHi, fLo, digits, e10);
}

/**
 * An integer magnitude of any size (int64 beyond 2^53, large decimal128 values). `digits`
 * and `e10` are its decimal form when the caller already has it.
 */
function writeBigInteger(
  w: ByteWriter,
  neg: boolean,
  mag: bigint,
  digits?: string,
  e10?: number,
): void {
  const e = bitLength(mag) - 1;
  if (e <= 52) return writeTop(w, neg, e, mag << BigInt(52 - e));
  const shift = BigInt(e - 52);
  const top = mag >> shift;
  if (top << shift === mag) return writeTop(w, neg, e, top);
  if (digits === undefined || e10 === undefined) {
    const full = mag.toString();
    digits = stripTrailingZeros(full);
    e10 = full.length - 1;
  }
  writeTop(w, neg, e, top, digits, e10);
}

/** value = coeff × 10^q for decimal digits `coeff` (no leading zeros, not zero). */
function writeDecimalValue(w: ByteWriter, neg: boolean, coeff: string, q: number): void {
  const digits = stripTrailingZeros(coeff);
  q += coeff.length - digits.length;
  const e10 = q + digits.length - 1;
  // Integers below 10^15 are doubles: the common case takes the double path.
  if (q >= 0 && e10 < 15) {
    const x = Number(digits) * 10 ** q;
    return writeDouble(w, neg ? -x : x);
  }
  const c = BigInt(digits);
  if (q >= 0) return writeBigInteger(w, neg, c * pow10(q), digits, e10);
  // x = c / d. With a = bitlen(c), b = bitlen(d), x is in (2^(a-b-1), 2^(a-b+1)), so
  // floor(x × 2^(53-a+b)) has 53 or 54 bits: one division gives the truncation either way.
  const d = pow10(-q);
  const e = bitLength(c) - bitLength(d);
  const [quotient, rest] = scaledQuotient(c, d, 53 - e);
  let exact = rest === 0n;
  let top = quotient;
  let exponent = e - 1;
  if (quotient >= 9007199254740992n) {
    exact &&= (quotient & 1n) === 0n;
    top = quotient >> 1n;
    exponent = e;
  }
  if (exact) writeTop(w, neg, exponent, top);
  else writeTop(w, neg, exponent, top, digits, e10);
}

const smallPowersOf10: bigint[] = [];
for (let i = 0, p = 1n; i <= 64; i++, p *= 10n) smallPowersOf10.push(p);

function pow10(k: number): bigint {
  return smallPowersOf10[k] ?? 10n ** BigInt(k);
}

/** floor(c × 2^s / d) and the remainder. */
function scaledQuotient(c: bigint, d: bigint, s: number): [bigint, bigint] {
  if (s >= 0) {
    const n = c << BigInt(s);
    return [n / d, n % d];
  }
  const den = d << BigInt(-s);
  return [c / den, c % den];
}

// ---- decimal128 ----------------------------------------------------------------------------

const decimalExponentBias = 6176;
const maxCoefficient = 10n ** 34n - 1n;

/** The fields of a decimal128, read from its bytes (IEEE 754-2008 BID encoding). */
export interface DecimalFields {
  /** nan, infinity, zero (incl. non-canonical coefficients, which IEEE treats as zero), finite. */
  readonly kind: 'nan' | 'infinity' | 'zero' | 'finite';
  readonly neg: boolean;
  /** Unbiased exponent q: value = coefficient × 10^q. */
  readonly q: number;
  /** Decimal digits of the coefficient (finite only). */
  readonly coeff: string;
  /** Coefficient is zero and encoded canonically (so sign and q describe it fully). */
  readonly canonical: boolean;
}

function le32(b: Uint8Array, i: number): number {
  return (
    ((b[i] as number) |
      ((b[i + 1] as number) << 8) |
      ((b[i + 2] as number) << 16) |
      ((b[i + 3] as number) << 24)) >>>
    0
  );
}

export function decimalFields(d: Decimal128): DecimalFields {
  const b = d.bytes;
  const w0 = le32(b, 0);
  const w1 = le32(b, 4);
  const w2 = le32(b, 8);
  const w3 = le32(b, 12);
  const neg = w3 >>> 31 === 1;
  if (((w3 >>> 29) & 3) === 3) {
    const combination = (w3 >>> 26) & 0x1f;
    if (combination === 0x1f) return { kind: 'nan', neg, q: 0, coeff: '', canonical: false };
    if (combination === 0x1e) return { kind: 'infinity', neg, q: 0, coeff: '', canonical: false };
    // Coefficient 0b100... > 10^34 - 1: non-canonical, its value is zero.
    return {
      kind: 'zero',
      neg,
      q: ((w3 >>> 15) & 0x3fff) - decimalExponentBias,
      coeff: '',
      canonical: false,
    };
  }
  const q = ((w3 >>> 17) & 0x3fff) - decimalExponentBias;
  const top = w3 & 0x1ffff;
  if (top === 0 && w2 === 0 && w1 < 0x200000) {
    const c = w1 * two32 + w0;
    if (c === 0) return { kind: 'zero', neg, q, coeff: '', canonical: true };
    return { kind: 'finite', neg, q, coeff: String(c), canonical: true };
  }
  const c = (BigInt(top) << 96n) | (BigInt(w2) << 64n) | (BigInt(w1) << 32n) | BigInt(w0);
  if (c > maxCoefficient) return { kind: 'zero', neg, q, coeff: '', canonical: false };
  return { kind: 'finite', neg, q, coeff: c.toString(), canonical: true };
}

export function writeDecimal(w: ByteWriter, v: Decimal128): void {
  const f = decimalFields(v);
  switch (f.kind) {
    case 'nan':
      return w.byte(NumTag.nan);
    case 'infinity':
      return w.byte(f.neg ? NumTag.negInfinity : NumTag.posInfinity);
    case 'zero':
      return w.byte(NumTag.zero);
    case 'finite':
      return writeDecimalValue(w, f.neg, f.coeff, f.q);
  }
}

function decimalFromParts(neg: boolean, q: number, c: bigint): Decimal128 {
  const hi = (neg ? 1n << 63n : 0n) | (BigInt(q + decimalExponentBias) << 49n) | (c >> 64n);
  const lo = c & 0xffffffffffffffffn;
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, lo, true);
  view.setBigUint64(8, hi, true);
  return new Decimal128(bytes);
}

// ---- type info -----------------------------------------------------------------------------
//
// Per number, 2 bits of kind (int32 00, double 01, int64 10, decimal 11), then:
//   double zero: 1 bit, set for -0;
//   decimal: 2 bits of form, then
//     00 finite non-zero: 14 bits biased exponent q (the coefficient follows from the value)
//     01 canonical zero:  1 bit sign, 14 bits biased exponent
//     10 anything else (NaN, infinities, non-canonical): the 16 raw bytes.

const NumKind = { int32: 0, double: 1, int64: 2, decimal: 3 } as const;

export function writeNumberTypeInfo(
  t: BitWriter,
  v: Double | Int32 | Long | Decimal128 | number,
): void {
  if (v instanceof Int32) return t.bits(NumKind.int32, 2);
  if (v instanceof Long) return t.bits(NumKind.int64, 2);
  if (v instanceof Decimal128) {
    t.bits(NumKind.decimal, 2);
    const f = decimalFields(v);
    if (f.kind === 'finite') {
      t.bits(0, 2);
      t.bits(f.q + decimalExponentBias, 14);
    } else if (f.kind === 'zero' && f.canonical) {
      t.bits(1, 2);
      t.bits(f.neg ? 1 : 0, 1);
      t.bits(f.q + decimalExponentBias, 14);
    } else {
      t.bits(2, 2);
      t.bytes(v.bytes);
    }
    return;
  }
  const x = typeof v === 'number' ? v : v.value;
  t.bits(NumKind.double, 2);
  if (x === 0) t.bits(Object.is(x, -0) ? 1 : 0, 1);
}

// ---- decoding ------------------------------------------------------------------------------

/** A number as read back from a key, before its type is applied. */
interface KeyNumber {
  readonly tag: number;
  readonly neg: boolean;
  readonly e: number;
  /** 52 fraction bits as top 20 / low 32. */
  readonly fHi: number;
  readonly fLo: number;
  /** Decimal tie-break, present when the value is not its own 53-bit truncation. */
  readonly digits: string | undefined;
  readonly e10: number;
}

function readFraction(r: ByteReader): { fHi: number; fLo: number; inexact: boolean } {
  let hi28 = 0;
  let lo28 = 0;
  for (let i = 0; ; i++) {
    if (i >= 8) throw corrupt('number fraction too long');
    const b = r.byte();
    const chunk = b >>> 1;
    if (i < 4) hi28 |= chunk << (21 - 7 * i);
    else lo28 |= chunk << (21 - 7 * (i - 4));
    if ((b & 1) === 0) break;
  }
  if ((lo28 & 7) !== 0) throw corrupt('number fraction has stray bits');
  return {
    fHi: hi28 >>> 8,
    fLo: (((hi28 & 0xff) << 24) | (lo28 >>> 4)) >>> 0,
    inexact: (lo28 & 8) !== 0,
  };
}

function readDigits(r: ByteReader): string {
  let s = '';
  for (;;) {
    const b = r.byte();
    const a = b >>> 4;
    if (a === 0) break;
    s += String.fromCharCode(47 + a);
    const c = b & 0xf;
    if (c === 0) break;
    s += String.fromCharCode(47 + c);
  }
  if (s.length === 0) throw corrupt('empty decimal tie-break');
  return s;
}

/** Read the payload of a number whose tag was already read (r.flip is the part's direction). */
function readKeyNumber(r: ByteReader, tag: number): KeyNumber {
  if (
    tag === NumTag.nan ||
    tag === NumTag.zero ||
    tag === NumTag.negInfinity ||
    tag === NumTag.posInfinity
  ) {
    return { tag, neg: false, e: 0, fHi: 0, fLo: 0, digits: undefined, e10: 0 };
  }
  const neg = tag < NumTag.zero;
  const outer = r.flip;
  if (neg) r.flip ^= 0xff;
  let e: number;
  if (tag >= NumTag.posWindowFirst && tag <= NumTag.posWindowLast)
    e = tag - NumTag.posWindowFirst + windowMinE;
  else if (tag >= NumTag.negWindowFirst && tag <= NumTag.negWindowLast)
    e = NumTag.negWindowLast - tag + windowMinE;
  else e = r.u16() - exponentBias;
  const { fHi, fLo, inexact } = readFraction(r);
  let digits: string | undefined;
  let e10 = 0;
  if (inexact) {
    e10 = r.u16() - exponentBias;
    digits = readDigits(r);
  }
  r.flip = outer;
  return { tag, neg, e, fHi, fLo, digits, e10 };
}

/** Move past a number whose tag was already read. */
export function skipNumber(r: ByteReader, tag: number): void {
  readKeyNumber(r, tag);
}

/** The exact value |x| as num / den (den a power of 2 or 1). */
function magnitude(n: KeyNumber): { num: bigint; den: bigint } {
  if (n.digits !== undefined) {
    const t = n.e10 - n.digits.length + 1;
    const c = BigInt(n.digits);
    return t >= 0 ? { num: c * pow10(t), den: 1n } : { num: c, den: pow10(-t) };
  }
  const top = (BigInt(n.fHi) << 32n) + BigInt(n.fLo) + 4503599627370496n;
  const s = n.e - 52;
  return s >= 0 ? { num: top << BigInt(s), den: 1n } : { num: top, den: 1n << BigInt(-s) };
}

function toDouble(n: KeyNumber): number {
  if (n.digits !== undefined || n.e > 1023 || n.e < -1074) throw corrupt('double out of range');
  if (n.e >= -1022) {
    u32[hiWord] = ((n.neg ? 0x80000000 : 0) | ((n.e + 1023) << 20) | n.fHi) >>> 0;
    u32[loWord] = n.fLo;
  } else {
    const significand = n.fHi * two32 + n.fLo + two52;
    const shift = -1022 - n.e;
    const m = significand / 2 ** shift;
    if (!Number.isInteger(m)) throw corrupt('subnormal double has too many bits');
    const mHi = Math.floor(m / two32);
    u32[hiWord] = ((n.neg ? 0x80000000 : 0) | mHi) >>> 0;
    u32[loWord] = m - mHi * two32;
  }
  return f64[0] as number;
}

function toInteger(n: KeyNumber): bigint {
  const { num, den } = magnitude(n);
  if (num % den !== 0n) throw corrupt('integer type holds a fraction');
  const i = num / den;
  return n.neg ? -i : i;
}

function toDecimal(n: KeyNumber, q: number): Decimal128 {
  const { num, den } = magnitude(n);
  let c: bigint;
  if (q >= 0) {
    const d = den * pow10(q);
    if (num % d !== 0n) throw corrupt('decimal exponent does not fit the value');
    c = num / d;
  } else {
    const m = num * pow10(-q);
    if (m % den !== 0n) throw corrupt('decimal exponent does not fit the value');
    c = m / den;
  }
  if (c > maxCoefficient) throw corrupt('decimal coefficient too large');
  return decimalFromParts(n.neg, q, c);
}

/** Read a number (tag already read) and give it back with the type recorded in `t`. */
export function readNumber(r: ByteReader, tag: number, t: BitReader): BsonValue {
  const n = readKeyNumber(r, tag);
  const kind = t.bits(2);
  if (kind === NumKind.decimal) {
    const form = t.bits(2);
    if (form === 2) return new Decimal128(t.bytes(16));
    if (form === 1) {
      const neg = t.bits(1) === 1;
      const q = t.bits(14) - decimalExponentBias;
      if (tag !== NumTag.zero) throw corrupt('decimal zero type info on a non-zero value');
      return decimalFromParts(neg, q, 0n);
    }
    const q = t.bits(14) - decimalExponentBias;
    if (
      tag === NumTag.zero ||
      tag === NumTag.nan ||
      tag === NumTag.negInfinity ||
      tag === NumTag.posInfinity
    ) {
      throw corrupt('finite decimal type info on a special value');
    }
    return toDecimal(n, q);
  }
  if (kind === NumKind.double) {
    if (tag === NumTag.zero) return new Double(t.bits(1) === 1 ? -0 : 0);
    if (tag === NumTag.nan) return new Double(NaN);
    if (tag === NumTag.posInfinity) return new Double(Infinity);
    if (tag === NumTag.negInfinity) return new Double(-Infinity);
    return new Double(toDouble(n));
  }
  if (tag === NumTag.nan || tag === NumTag.negInfinity || tag === NumTag.posInfinity) {
    throw corrupt('integer type info on a non-finite value');
  }
  if (tag === NumTag.zero) return kind === NumKind.int32 ? new Int32(0) : Long.ZERO;
  if (n.digits === undefined && n.e <= 52) {
    // Below 2^53 the value is a double: no BigInt needed.
    const x = toDouble(n);
    if (!Number.isInteger(x)) throw corrupt('integer type holds a fraction');
    if (kind === NumKind.int64) return Long.fromNumber(x);
    if (x < -2147483648 || x > 2147483647) throw corrupt('int32 out of range');
    return new Int32(x);
  }
  const i = toInteger(n);
  if (kind === NumKind.int32) {
    if (i < -2147483648n || i > 2147483647n) throw corrupt('int32 out of range');
    return new Int32(Number(i));
  }
  if (i < -9223372036854775808n || i > 9223372036854775807n) throw corrupt('int64 out of range');
  return Long.fromBigInt(i);
}
