// Value helpers of the aggregation language, following mongod's Value class: type names for
// messages, "nullish" (null, undefined or missing), truthiness, the total order extended to
// MISSING, and the coercions (to string, to date) some operators apply.

import { Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'bson';
import { compareBson } from '../bson/compare.js';
import type { Ordering } from '../bson/compare.js';
import type { Collator } from '../bson/collation.js';
import { formatBson } from '../bson/format.js';
import { MISSING } from '../bson/path.js';
import { bsonTypeName, isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonTypeName, BsonValue } from '../bson/types.js';
import { decodeDecimal, isNumeric, isZero, toDouble } from '../bson/numeric.js';
import type { BsonNumber } from '../bson/numeric.js';
import { fail, ErrorCode } from '../errors.js';
import type { Value } from './expressions/types.js';

export { isNumeric };
export type { BsonNumber };

/** The `$type` name of a value; "missing" for MISSING (mongod's typeName(EOO)). */
export function typeName(v: Value): BsonTypeName | 'missing' {
  return v === MISSING ? 'missing' : bsonTypeName(v);
}

/** mongod's Value::nullish(): null, undefined or missing. */
export function isNullish(v: Value): v is null | undefined | typeof MISSING {
  return v === null || v === undefined || v === MISSING;
}

/** MISSING becomes null where a value must be stored (array elements, accumulator inputs). */
export function orNull(v: Value): BsonValue {
  return v === MISSING ? null : v;
}

/**
 * mongod's Value::coerceToBool: false for false, null, undefined, missing and numeric zero
 * (NaN is true, as `NaN != 0` in C++); true for everything else.
 */
export function toBool(v: Value): boolean {
  if (v === MISSING || v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (v instanceof Int32 || v instanceof Double) return v.value !== 0;
  if (v instanceof Long) return !v.isZero();
  if (v instanceof Decimal128) return !isZero(v);
  return true;
}

/**
 * The total order of aggregation values: compareBson, with MISSING ranking with (and equal
 * to) the BSON undefined type, below null, as mongod's Value::compare canonicalises EOO.
 */
export function compareValues(a: Value, b: Value, collator?: Collator): Ordering {
  return compareBson(a === MISSING ? undefined : a, b === MISSING ? undefined : b, collator);
}

export function valuesEqual(a: Value, b: Value, collator?: Collator): boolean {
  return compareValues(a, b, collator) === 0;
}

/** A value for error messages, as mongod's Value::toString renders it. */
export function formatValue(v: Value): string {
  return v === MISSING ? 'missing' : formatBson(v);
}

/** True for a numeric value with an integral value that fits in int32 (Value::integral()). */
export function isIntegral32(v: Value): v is BsonNumber {
  const n = integralValue(v);
  return n !== undefined && n >= -2147483648n && n <= 2147483647n;
}

/** True for a numeric value with an integral value that fits in int64 (Value::integral64Bit()). */
export function isIntegral64(v: Value): v is BsonNumber {
  const n = integralValue(v);
  return n !== undefined && n >= -(2n ** 63n) && n <= 2n ** 63n - 1n;
}

/** The exact integer value of a numeric value, or undefined when it is not a whole number. */
export function integralValue(v: Value): bigint | undefined {
  if (v instanceof Int32) return BigInt(v.value);
  if (v instanceof Long) return v.toBigInt();
  if (v instanceof Double) return Number.isInteger(v.value) ? BigInt(v.value) : undefined;
  if (v instanceof Decimal128) {
    const d = decodeDecimal(v);
    if (d.kind !== 'finite') return undefined;
    if (d.exp >= 0) return (d.sign ? -1n : 1n) * d.coef * 10n ** BigInt(d.exp);
    const div = 10n ** BigInt(-d.exp);
    if (d.coef % div !== 0n) return undefined;
    return (d.sign ? -1n : 1n) * (d.coef / div);
  }
  return undefined;
}

/** Value::coerceToInt / coerceToLong for a value already known to be integral. */
export function toSafeInt(v: BsonNumber): number {
  const n = integralValue(v);
  return n === undefined ? Math.trunc(toDouble(v)) : Number(n);
}

/**
 * mongod's Value::coerceToDate: a date, a timestamp (its seconds) or an ObjectId (its
 * creation time); anything else is error 16006.
 */
export function coercibleToDate(v: Value): v is Date | Timestamp | ObjectId {
  return v instanceof Date || v instanceof Timestamp || v instanceof ObjectId;
}

export function toDate(v: Value): Date {
  if (v instanceof Date) return v;
  if (v instanceof Timestamp) return new Date(v.t * 1000);
  if (v instanceof ObjectId) return new Date(v.getTimestamp().getTime());
  fail(ErrorCode.Location16006, `can't convert from BSON type ${typeName(v)} to Date`);
}

/**
 * printf's %g, which mongod uses for a double in strings (StringBuilder's operator<<(double)
 * in mongo/bson/util/builder.h): six significant digits, trailing zeros removed, exponent
 * form below 1e-4 and from 1e6 on ($toString of 123456789.0 is "1.23457e+08").
 */
export function formatDoubleG(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x < 0 ? '-inf' : 'inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const stripZeros = (s: string): string =>
    s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
  // The exponent after rounding to six significant digits decides the style.
  const [mantissa, e] = x.toExponential(5).split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6)
    return `${stripZeros(mantissa)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return stripZeros(x.toFixed(5 - exp));
}

/**
 * mongod's Value::coerceToString ($concat does not use it; $toLower, $toUpper, $substr,
 * $strcasecmp do): numbers print as C++ streams do, dates in ISO format, null and missing
 * are the empty string; other types are error 16007.
 */
export function coerceToString(v: Value): string {
  if (typeof v === 'string') return v;
  if (v === MISSING || v === null || v === undefined) return '';
  if (v instanceof Int32) return String(v.value);
  if (v instanceof Long) return v.toString();
  if (v instanceof Double) return formatDoubleG(v.value);
  if (v instanceof Decimal128) return v.toString();
  if (v instanceof Date) return isoDateString(v);
  if (v instanceof Timestamp) return `Timestamp(${v.t}, ${v.i})`;
  if (bsonTypeName(v) === 'symbol') return String((v as { value: unknown }).value);
  if (bsonTypeName(v) === 'javascript') return String((v as { code: unknown }).code);
  fail(ErrorCode.Location16007, `can't convert from BSON type ${typeName(v)} to String`);
}

/** "%Y-%m-%dT%H:%M:%S.%LZ" in UTC, years outside 0..9999 as mongod prints them. */
export function isoDateString(d: Date): string {
  const t = d.getTime();
  if (Number.isNaN(t)) return 'Invalid Date';
  const iso = d.toISOString();
  // JS prints years outside 0..9999 with a sign and six digits; mongod pads to four digits.
  if (iso.startsWith('+') || iso.startsWith('-')) {
    const year = d.getUTCFullYear();
    return `${year < 0 ? '-' : ''}${String(Math.abs(year)).padStart(4, '0')}${iso.slice(iso.indexOf('-', 1))}`;
  }
  return iso;
}

/** A plain document value (not a DBRef instance: those come out of stored documents as plain). */
export function isDocument(v: Value): v is BsonDocument {
  return v !== MISSING && isPlainDocument(v);
}

/** A fresh deep copy of arrays and plain documents, so outputs never alias stored data. */
export function cloneValue<T extends BsonValue>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => cloneValue(x)) as T;
  if (isPlainDocument(v)) {
    const out: BsonDocument = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === '__proto__')
        Object.defineProperty(out, k, {
          value: cloneValue(x),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[k] = cloneValue(x);
    }
    return out as T;
  }
  return v;
}
