import { Decimal128, Double, Int32, Long, isArray } from '../../../../bson/types.js';
import { isNumeric } from '../../../../bson/numeric.js';
import type { PathValue } from '../../../../bson/path.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { pathNode, simpleTest } from '../../nodes.js';
import { LONG_MAX, LONG_MIN, truncateTowardZero, tryCoerceToLong } from '../../numbers.js';
import type { PathOperator } from '../registry.js';

/**
 * The dividend mongod's ModMatchExpression takes: integers as they are, doubles and decimals
 * truncated toward zero; NaN, infinities and values beyond int64 match nothing.
 */
function dividendOf(v: PathValue): bigint | undefined {
  if (v instanceof Int32) return BigInt(v.value);
  if (v instanceof Long) return v.toBigInt();
  if (!(v instanceof Double) && !(v instanceof Decimal128)) return undefined;
  const t = truncateTowardZero(v);
  if (t === 'nonFinite' || t < LONG_MIN || t > LONG_MAX) return undefined;
  return t;
}

/** C++'s % on int64 (sign of the dividend), with x % -1 = 0 as overflow::safeMod defines it. */
function safeMod(dividend: bigint, divisor: bigint): bigint {
  return divisor === -1n ? 0n : dividend % divisor;
}

/** {a: {$mod: [divisor, remainder]}}: numbers whose truncated value leaves that remainder. */
export const $mod: PathOperator = {
  name: '$mod',
  parse({ path, arg }) {
    if (!isArray(arg)) fail(ErrorCode.BadValue, 'malformed mod, needs to be an array');
    const [d, r] = arg;
    if (arg.length < 1) fail(ErrorCode.BadValue, 'malformed mod, not enough elements');
    if (!isNumeric(d)) fail(ErrorCode.BadValue, 'malformed mod, divisor not a number');
    if (arg.length < 2) fail(ErrorCode.BadValue, 'malformed mod, not enough elements');
    if (!isNumeric(r)) fail(ErrorCode.BadValue, 'malformed mod, remainder not a number');
    if (arg.length > 2) fail(ErrorCode.BadValue, 'malformed mod, too many elements');
    const divisor = tryCoerceToLong(d);
    if (!divisor.ok)
      fail(
        ErrorCode.BadValue,
        `malformed mod, divisor value is invalid :: caused by :: ${divisor.reason}`,
      );
    const remainder = tryCoerceToLong(r);
    if (!remainder.ok)
      fail(
        ErrorCode.BadValue,
        `malformed mod, remainder value is invalid :: caused by :: ${remainder.reason}`,
      );
    if (divisor.value === 0n) fail(ErrorCode.BadValue, 'divisor cannot be 0');
    const dv = divisor.value;
    const rv = remainder.value;
    const test = (v: PathValue): boolean => {
      const dividend = dividendOf(v);
      return dividend !== undefined && safeMod(dividend, dv) === rv;
    };
    return pathNode(path, { kind: 'mod', divisor: dv, remainder: rv }, simpleTest(test));
  },
};
