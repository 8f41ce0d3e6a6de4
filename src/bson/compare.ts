// MongoDB's total order over BSON values: first by canonical type rank (MinKey < null <
// numbers < strings < objects < arrays < binData < ObjectId < bool < date < timestamp <
// regex < MaxKey), then within a type. Numbers compare by exact value across int32, int64,
// double and decimal128 (NaN below every other number, -0 equal to 0). Strings compare by
// UTF-8 bytes (no collation). Used by sort, range operators, $min/$max, distinct and the
// index key encoding, which must agree with it.

import type { Binary, BSONRegExp, Code, ObjectId, Timestamp } from 'bson';
import { Decimal128, Double, Int32, Long } from 'bson';
import { asDocument, bsonTypeName, canonicalTypeRank } from './types.js';
import type { BsonDocument, BsonValue } from './types.js';

export type Ordering = -1 | 0 | 1;

function sign(n: number): Ordering {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

/**
 * A parsed, non-simple collation (src/bson/collation.ts builds them): its full specification
 * and its string comparison, which every comparison here uses in place of compareStrings.
 */
export interface Collator {
  /** The specification with every field filled in, as mongod reports it (listCollections). */
  readonly spec: BsonDocument;
  compare(a: string, b: string): Ordering;
}

/** Compare strings by their UTF-8 byte order (equal to code point order). */
export function compareStrings(a: string, b: string): Ordering {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 unit order differs from code point order only between surrogates
    // (D800–DFFF) and E000–FFFF: move surrogates above the BMP's upper range.
    if (x >= 0xd800) x += x <= 0xdfff ? 0x2000 : -0x800;
    if (y >= 0xd800) y += y <= 0xdfff ? 0x2000 : -0x800;
    return x < y ? -1 : 1;
  }
  return sign(a.length - b.length);
}

// ---- numbers ---------------------------------------------------------------------------

/** An exact numeric value: NaN, ±Infinity, or num / den with BigInts (den > 0). */
type Exact =
  | { kind: 'nan' }
  | { kind: 'inf'; negative: boolean }
  | { kind: 'finite'; num: bigint; den: bigint };

const decimalPattern = /^(-)?(\d+)(?:\.(\d*))?(?:E([+-]?\d+))?$/i;

function exactOfDouble(d: number): Exact {
  if (Number.isNaN(d)) return { kind: 'nan' };
  if (!Number.isFinite(d)) return { kind: 'inf', negative: d < 0 };
  if (Number.isInteger(d)) return { kind: 'finite', num: BigInt(d), den: 1n };
  // Split into an integer mantissa and a power of two: exact for every finite double.
  let mantissa = d;
  let exp = 0;
  while (!Number.isInteger(mantissa)) {
    mantissa *= 2;
    exp++;
  }
  return { kind: 'finite', num: BigInt(mantissa), den: 1n << BigInt(exp) };
}

function exactOfDecimal(d: Decimal128): Exact {
  const s = d.toString();
  if (s === 'NaN' || s === '-NaN') return { kind: 'nan' };
  if (s === 'Infinity') return { kind: 'inf', negative: false };
  if (s === '-Infinity') return { kind: 'inf', negative: true };
  const m = decimalPattern.exec(s);
  if (!m) return { kind: 'nan' };
  const intPart = m[2] ?? '0';
  const fracPart = m[3] ?? '';
  // A coefficient above 10^34 - 1 is non-canonical and IEEE 754 (and mongod) read it as
  // zero; bson's toString prints some of these as 35-digit numbers, never a real value.
  if ((intPart + fracPart).replace(/^0+/, '').length > 34)
    return { kind: 'finite', num: 0n, den: 1n };
  let exp = Number(m[4] ?? '0') - fracPart.length;
  let num = BigInt(intPart + fracPart);
  if (m[1] === '-') num = -num;
  if (exp >= 0) return { kind: 'finite', num: num * 10n ** BigInt(exp), den: 1n };
  exp = -exp;
  return { kind: 'finite', num, den: 10n ** BigInt(exp) };
}

export function exactOf(v: Double | Int32 | Long | Decimal128): Exact {
  if (v instanceof Int32) return { kind: 'finite', num: BigInt(v.value), den: 1n };
  if (v instanceof Long) return { kind: 'finite', num: v.toBigInt(), den: 1n };
  if (v instanceof Double) return exactOfDouble(v.value);
  return exactOfDecimal(v);
}

function compareExact(a: Exact, b: Exact): Ordering {
  if (a.kind === 'nan') return b.kind === 'nan' ? 0 : -1;
  if (b.kind === 'nan') return 1;
  if (a.kind === 'inf') {
    if (b.kind === 'inf') return a.negative === b.negative ? 0 : a.negative ? -1 : 1;
    return a.negative ? -1 : 1;
  }
  if (b.kind === 'inf') return b.negative ? 1 : -1;
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

function compareDoubles(x: number, y: number): Ordering {
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  // At least one NaN: NaN sorts below every number and equals NaN.
  const xn = Number.isNaN(x);
  const yn = Number.isNaN(y);
  return xn && yn ? 0 : xn ? -1 : 1;
}

function compareLongDouble(l: Long, d: number): Ordering {
  if (Number.isNaN(d)) return 1;
  if (d === Infinity) return -1;
  if (d === -Infinity) return 1;
  const lb = l.toBigInt();
  const floor = Math.floor(d);
  const fb = BigInt(floor);
  if (lb < fb) return -1;
  if (lb > fb) return 1;
  return floor === d ? 0 : -1;
}

/** Numeric comparison across int32, int64, double and decimal128 by exact value. */
export function compareNumbers(
  a: Double | Int32 | Long | Decimal128,
  b: Double | Int32 | Long | Decimal128,
): Ordering {
  const aSmall = a instanceof Int32 || a instanceof Double;
  const bSmall = b instanceof Int32 || b instanceof Double;
  if (aSmall && bSmall) return compareDoubles(a.value, b.value);
  if (a instanceof Long) {
    if (b instanceof Long) return sign(a.compare(b));
    if (b instanceof Int32) return sign(a.compare(Long.fromInt(b.value)));
    if (b instanceof Double) return compareLongDouble(a, b.value);
  } else if (b instanceof Long && aSmall) {
    const r =
      a instanceof Int32 ? -sign(b.compare(Long.fromInt(a.value))) : -compareLongDouble(b, a.value);
    // Negating 0 gives -0, which strict equality (assert.strictEqual, Object.is) tells from 0.
    return (r === 0 ? 0 : r) as Ordering;
  }
  return compareExact(exactOf(a), exactOf(b));
}

// ---- documents and the total order ------------------------------------------------------

function compareBytes(a: Uint8Array, b: Uint8Array): Ordering {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return sign(a.length - b.length);
}

/** Field-by-field: type rank of the value, then field name, then value. Shorter first. */
export function compareDocuments(a: BsonDocument, b: BsonDocument, collator?: Collator): Ordering {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const fa = ka[i] as string;
    const fb = kb[i] as string;
    const va = a[fa] as BsonValue;
    const vb = b[fb] as BsonValue;
    const byType = sign(canonicalTypeRank(va) - canonicalTypeRank(vb));
    if (byType !== 0) return byType;
    const byName = compareStrings(fa, fb);
    if (byName !== 0) return byName;
    const byValue = compareBson(va, vb, collator);
    if (byValue !== 0) return byValue;
  }
  return sign(ka.length - kb.length);
}

function compareArrays(
  a: readonly BsonValue[],
  b: readonly BsonValue[],
  collator: Collator | undefined,
): Ordering {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const va = a[i] as BsonValue;
    const vb = b[i] as BsonValue;
    const byType = sign(canonicalTypeRank(va) - canonicalTypeRank(vb));
    if (byType !== 0) return byType;
    const byValue = compareBson(va, vb, collator);
    if (byValue !== 0) return byValue;
  }
  return sign(a.length - b.length);
}

/**
 * MongoDB's total order over BSON values. With a collator (a non-simple collation), strings
 * and symbols, also inside documents and arrays, compare by it; field names never do.
 */
export function compareBson(a: BsonValue, b: BsonValue, collator?: Collator): Ordering {
  const byType = sign(canonicalTypeRank(a) - canonicalTypeRank(b));
  if (byType !== 0) return byType;
  const type = bsonTypeName(a);
  switch (type) {
    case 'minKey':
    case 'maxKey':
    case 'null':
    case 'undefined':
      return 0;
    case 'double':
    case 'int':
    case 'long':
    case 'decimal':
      return compareNumbers(a as Double, b as Double);
    case 'string':
    case 'symbol':
      return collator === undefined
        ? compareStrings(stringOf(a), stringOf(b))
        : collator.compare(stringOf(a), stringOf(b));
    case 'object':
      return compareDocuments(asDocument(a) ?? {}, asDocument(b) ?? {}, collator);
    case 'array':
      return compareArrays(a as BsonValue[], b as BsonValue[], collator);
    case 'binData': {
      const x = a as Binary;
      const y = b as Binary;
      const byLength = sign(x.position - y.position);
      if (byLength !== 0) return byLength;
      const bySubtype = sign(x.sub_type - y.sub_type);
      if (bySubtype !== 0) return bySubtype;
      return compareBytes(x.buffer.subarray(0, x.position), y.buffer.subarray(0, y.position));
    }
    case 'objectId':
      return compareBytes((a as ObjectId).id, (b as ObjectId).id);
    case 'bool':
      return sign(Number(a) - Number(b));
    case 'date':
      return compareDoubles((a as Date).getTime(), (b as Date).getTime());
    case 'timestamp': {
      const x = a as Timestamp;
      const y = b as Timestamp;
      return sign(x.t - y.t) || sign(x.i - y.i);
    }
    case 'regex': {
      const x = a as BSONRegExp;
      const y = b as BSONRegExp;
      return compareStrings(x.pattern, y.pattern) || compareStrings(x.options, y.options);
    }
    case 'javascript':
    case 'javascriptWithScope': {
      const x = a as Code;
      const y = b as Code;
      const byCode = compareStrings(x.code, y.code);
      if (byCode !== 0 || type === 'javascript') return byCode;
      return compareDocuments((x.scope ?? {}) as BsonDocument, (y.scope ?? {}) as BsonDocument);
    }
    case 'dbPointer':
      return 0;
  }
}

function stringOf(v: BsonValue): string {
  return typeof v === 'string' ? v : String((v as { value: unknown }).value);
}

/**
 * `values` sorted by compareBson, stably, as a new array. A list of only int32s and doubles
 * (a $in of numbers) sorts by the numbers themselves, which the general comparison reaches
 * after a type rank and a dispatch per call: 20k values sort 2-3x faster.
 */
export function sortedBson(values: readonly BsonValue[], collator?: Collator): BsonValue[] {
  const out = [...values];
  if (out.every((v) => v instanceof Int32 || v instanceof Double))
    return out.sort((a, b) =>
      compareDoubles((a as Int32 | Double).value, (b as Int32 | Double).value),
    );
  return out.sort((a, b) => compareBson(a, b, collator));
}

/** Equality in MongoDB's sense: same value in the total order (1, 1.0 and 1L are equal). */
export function bsonEquals(a: BsonValue, b: BsonValue, collator?: Collator): boolean {
  return compareBson(a, b, collator) === 0;
}

export { Decimal128 };
