// BSONElement::parseIntegerElementToLong: the integer arguments of $pop, $slice and $position
// may be any numeric type holding an integral value that fits in an int64.

import type { Decimal128 } from 'bson';
import { Double, Int32, Long } from 'bson';
import { isNumeric } from '../../bson/numeric.js';
import { decodeDecimal } from '../../bson/numeric.js';
import type { BsonValue } from '../../bson/types.js';
import { formatElement } from '../../bson/format.js';

export type IntegerParse = { ok: true; value: bigint } | { ok: false; message: string };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export function parseIntegerArgument(name: string, value: BsonValue): IntegerParse {
  const shown = formatElement(name, value);
  if (!isNumeric(value)) return { ok: false, message: `Expected a number in: ${shown}` };
  if (value instanceof Int32) return { ok: true, value: BigInt(value.value) };
  if (value instanceof Long) return { ok: true, value: value.toBigInt() };
  if (value instanceof Double) {
    const d = value.value;
    if (Number.isNaN(d))
      return { ok: false, message: `Expected an integer, but found NaN in: ${shown}` };
    if (d >= 2 ** 63 || d < -(2 ** 63))
      return { ok: false, message: `Cannot represent as a 64-bit integer: ${shown}` };
    if (!Number.isInteger(d)) return { ok: false, message: `Expected an integer: ${shown}` };
    return { ok: true, value: BigInt(d) };
  }
  const dec = decodeDecimal(value as Decimal128);
  if (dec.kind !== 'finite')
    return { ok: false, message: `Cannot represent as a 64-bit integer: ${shown}` };
  // toLongExact: any rounding (a fraction) or an out-of-range value raises a flag.
  let n: bigint;
  if (dec.exp >= 0) {
    n = dec.coef * 10n ** BigInt(dec.exp);
  } else {
    const div = 10n ** BigInt(-dec.exp);
    if (dec.coef % div !== 0n)
      return { ok: false, message: `Cannot represent as a 64-bit integer: ${shown}` };
    n = dec.coef / div;
  }
  if (dec.sign) n = -n;
  if (n < INT64_MIN || n > INT64_MAX)
    return { ok: false, message: `Cannot represent as a 64-bit integer: ${shown}` };
  return { ok: true, value: n };
}
