// Integer arguments of query operators, parsed the way mongod's BSONElement helpers do
// (parseIntegerElementToLong and friends, tryCoerce). Every operator that takes a count, a
// mask or a divisor goes through here so the accepted forms and the messages agree.

import { exactOf } from '../../bson/compare.js';
import { Decimal128, Double, Int32, Long } from '../../bson/types.js';
import { isNumeric } from '../../bson/numeric.js';
import type { BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { describeElement } from './describe.js';

export const LONG_MIN = -(2n ** 63n);
export const LONG_MAX = 2n ** 63n - 1n;
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
/** 2^63 as a double: the first double too large for an int64. */
const LONG_MAX_PLUS_ONE_AS_DOUBLE = 2 ** 63;

/** A failed parse: the reason mongod gives, without throwing (callers add context and code). */
export type IntegerParse = { ok: true; value: bigint } | { ok: false; reason: string };

function bad(reason: string): IntegerParse {
  return { ok: false, reason };
}

/** The decimal as an exact int64, or undefined when it is not an integer in range. */
export function decimalToLongExact(d: Decimal128): bigint | undefined {
  const e = exactOf(d);
  if (e.kind !== 'finite' || e.num % e.den !== 0n) return undefined;
  const v = e.num / e.den;
  return v < LONG_MIN || v > LONG_MAX ? undefined : v;
}

/** mongod's parseIntegerElementToLong: an integral number representable as an int64. */
export function parseIntegerToLong(name: string, v: BsonValue): IntegerParse {
  if (!isNumeric(v)) return bad(`Expected a number in: ${describeElement(name, v)}`);
  if (v instanceof Int32) return { ok: true, value: BigInt(v.value) };
  if (v instanceof Long) return { ok: true, value: v.toBigInt() };
  if (v instanceof Double) {
    const d = v.value;
    if (Number.isNaN(d))
      return bad(`Expected an integer, but found NaN in: ${describeElement(name, v)}`);
    if (d >= LONG_MAX_PLUS_ONE_AS_DOUBLE || d < -LONG_MAX_PLUS_ONE_AS_DOUBLE) {
      return bad(`Cannot represent as a 64-bit integer: ${describeElement(name, v)}`);
    }
    if (!Number.isInteger(d)) return bad(`Expected an integer: ${describeElement(name, v)}`);
    return { ok: true, value: BigInt(d) };
  }
  const exact = decimalToLongExact(v);
  if (exact === undefined)
    return bad(`Cannot represent as a 64-bit integer: ${describeElement(name, v)}`);
  return { ok: true, value: exact };
}

export function parseIntegerToNonNegativeLong(name: string, v: BsonValue): IntegerParse {
  const r = parseIntegerToLong(name, v);
  if (r.ok && r.value < 0n)
    return bad(`Expected a positive number in: ${describeElement(name, v)}`);
  return r;
}

export function parseIntegerToInt(name: string, v: BsonValue): IntegerParse {
  const r = parseIntegerToLong(name, v);
  if (r.ok && (r.value < BigInt(INT_MIN) || r.value > BigInt(INT_MAX))) {
    return bad(`Cannot represent ${describeElement(name, v)} in an int`);
  }
  return r;
}

export function parseIntegerToNonNegativeInt(name: string, v: BsonValue): IntegerParse {
  const r = parseIntegerToInt(name, v);
  if (r.ok && r.value < 0n)
    return bad(`Expected a positive number in: ${describeElement(name, v)}`);
  return r;
}

/** Unwraps a parse or throws FailedToParse with mongod's reason, as most callers do. */
export function integerOrFail(
  r: IntegerParse,
  code: number = ErrorCode.FailedToParse,
  prefix = '',
): bigint {
  if (!r.ok) fail(code, prefix + r.reason);
  return r.value;
}

/**
 * mongod's BSONElement::tryCoerce to long long: integers as they are, doubles and decimals
 * truncated toward zero, NaN/Infinity and out-of-range values refused.
 */
export function tryCoerceToLong(v: Int32 | Long | Double | Decimal128): IntegerParse {
  if (v instanceof Int32) return { ok: true, value: BigInt(v.value) };
  if (v instanceof Long) return { ok: true, value: v.toBigInt() };
  const truncated = truncateTowardZero(v);
  if (truncated === 'nonFinite') return bad('Unable to coerce NaN/Inf to integral type');
  if (truncated < LONG_MIN || truncated > LONG_MAX)
    return bad('Out of bounds coercing to integral value');
  return { ok: true, value: truncated };
}

/** A double or decimal truncated toward zero, exactly; 'nonFinite' for NaN and infinities. */
export function truncateTowardZero(v: Double | Decimal128): bigint | 'nonFinite' {
  const e = exactOf(v);
  if (e.kind !== 'finite') return 'nonFinite';
  return e.num / e.den; // BigInt division truncates toward zero
}

/** A numeric BSON value as a JS number (nearest double), for ranges and messages. */
export function toJsNumber(v: Int32 | Long | Double | Decimal128): number {
  if (v instanceof Long) return v.toNumber();
  if (v instanceof Decimal128) return Number(v.toString());
  return v.value;
}
