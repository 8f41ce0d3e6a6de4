// Trigonometric operators: $sin $cos $tan $asin $acos $atan $atan2 $sinh $cosh $tanh $asinh
// $acosh $atanh $degreesToRadians $radiansToDegrees (mongod's expression_trigonometric.h).
// Doubles in, doubles out; a decimal operand gives a decimal computed at 34 digits. Arguments
// outside a function's domain are error 50989, as in mongod.

import { Decimal128, Double } from 'bson';
import { Decimal } from 'decimal.js';
import * as num from '../../bson/numeric.js';
import type { BsonNumber } from '../../bson/numeric.js';
import { fail, ErrorCode } from '../../errors.js';
import { formatDoubleG, isNullish, typeName } from '../values.js';
import { naryOperator, unaryOperator } from './operator.js';
import type { OperatorDefinition, Value } from './types.js';

const D34 = Decimal.clone({ precision: 34, rounding: Decimal.ROUND_HALF_EVEN });
type D34 = InstanceType<typeof D34>;

interface Domain {
  readonly lo: number;
  readonly hi: number;
  /** Whether the bounds are included ([lo,hi]) or not ((lo,hi)). */
  readonly inclusive: boolean;
}

/** std::ostream's rendering of a bound (a double): "inf", "-inf", "1". */
function bound(x: number): string {
  return x === Infinity ? 'inf' : x === -Infinity ? '-inf' : formatDoubleG(x);
}

function inDomain(x: D34, d: Domain): boolean {
  const lo = x.comparedTo(d.lo);
  const hi = x.comparedTo(d.hi);
  return d.inclusive ? lo >= 0 && hi <= 0 : lo > 0 && hi < 0;
}

/**
 * mongod's ExpressionBoundedTrigonometric / ExpressionUnboundedTrigonometric: a NaN input is
 * returned unchanged, a bounded function refuses inputs outside its domain (compared in the
 * input's own type, so a decimal just above 1 is outside [-1,1]), int and long compute in double.
 */
function trig(
  name: string,
  dbl: (x: number) => number,
  dec: (x: D34) => D34,
  domain?: Domain,
): OperatorDefinition {
  return unaryOperator(name, (v) => {
    if (isNullish(v)) return null;
    if (!num.isNumeric(v))
      fail(ErrorCode.Location28765, `${name} only supports numeric types, not ${typeName(v)}`);
    if (v instanceof Decimal128) {
      const x = new D34(v.toString());
      if (x.isNaN()) return v;
      if (domain !== undefined && !inDomain(x, domain)) outOfDomain(name, v.toString(), domain);
      return Decimal128.fromString(dec(x).toString());
    }
    const x = num.toDouble(v);
    if (Number.isNaN(x)) return v;
    if (domain !== undefined && !inDomain(new D34(x), domain))
      outOfDomain(name, formatDoubleG(x), domain);
    return new Double(dbl(x));
  });
}

function outOfDomain(name: string, input: string, d: Domain): never {
  const [open, close] = d.inclusive ? ['[', ']'] : ['(', ')'];
  fail(
    ErrorCode.Location50989,
    `cannot apply ${name} to ${input}, value must in ${open}${bound(d.lo)},${bound(d.hi)}${close}`,
  );
}

const PI = new D34('3.141592653589793238462643383279503');

function $atan2(): OperatorDefinition {
  return naryOperator('$atan2', 2, ([y, x]) => {
    const a = y as Value;
    const b = x as Value;
    if (isNullish(a) || isNullish(b)) return null;
    if (!num.isNumeric(a))
      fail(ErrorCode.Location51044, `$atan2 only supports numeric types, not ${typeName(a)}`);
    if (!num.isNumeric(b))
      fail(ErrorCode.Location51045, `$atan2 only supports numeric types, not ${typeName(b)}`);
    if (a instanceof Decimal128 || b instanceof Decimal128) {
      return Decimal128.fromString(
        D34.atan2(
          new D34(num.toDecimal(a as BsonNumber).toString()),
          new D34(num.toDecimal(b as BsonNumber).toString()),
        ).toString(),
      );
    }
    return new Double(Math.atan2(num.toDouble(a), num.toDouble(b)));
  });
}

/** π/180 and 180/π: in double from the double π, in decimal from π at 34 digits (mongod's constants). */
const DOUBLE_PI_OVER_180 = Math.PI / 180;
const DOUBLE_180_OVER_PI = 180 / Math.PI;
const DECIMAL_PI_OVER_180 = PI.dividedBy(180);
const DECIMAL_180_OVER_PI = new D34(180).dividedBy(PI);

/** $degreesToRadians / $radiansToDegrees: one multiplication by the constant, no bounds. */
function angleConversion(
  name: string,
  doubleFactor: number,
  decimalFactor: D34,
): OperatorDefinition {
  return unaryOperator(name, (v) => {
    if (isNullish(v)) return null;
    if (!num.isNumeric(v))
      fail(ErrorCode.Location28765, `${name} only supports numeric types, not ${typeName(v)}`);
    if (v instanceof Decimal128)
      return Decimal128.fromString(new D34(v.toString()).times(decimalFactor).toString());
    return new Double(num.toDouble(v) * doubleFactor);
  });
}

const ALL_REALS: Domain = { lo: -Infinity, hi: Infinity, inclusive: false };
const UNIT: Domain = { lo: -1, hi: 1, inclusive: true };

export const trigonometryOperators: readonly OperatorDefinition[] = [
  trig('$sin', Math.sin, (x) => x.sin(), ALL_REALS),
  trig('$cos', Math.cos, (x) => x.cos(), ALL_REALS),
  trig('$tan', Math.tan, (x) => x.tan(), ALL_REALS),
  trig('$asin', Math.asin, (x) => x.asin(), UNIT),
  trig('$acos', Math.acos, (x) => x.acos(), UNIT),
  trig('$atan', Math.atan, (x) => x.atan()),
  $atan2(),
  trig('$sinh', Math.sinh, (x) => x.sinh()),
  trig('$cosh', Math.cosh, (x) => x.cosh()),
  trig('$tanh', Math.tanh, (x) => x.tanh()),
  trig('$asinh', Math.asinh, (x) => x.asinh()),
  trig('$acosh', Math.acosh, (x) => x.acosh(), { lo: 1, hi: Infinity, inclusive: true }),
  trig('$atanh', Math.atanh, (x) => x.atanh(), UNIT),
  angleConversion('$degreesToRadians', DOUBLE_PI_OVER_180, DECIMAL_PI_OVER_180),
  angleConversion('$radiansToDegrees', DOUBLE_180_OVER_PI, DECIMAL_180_OVER_PI),
];
