// Trigonometric operators: $sin $cos $tan $asin $acos $atan $atan2 $sinh $cosh $tanh $asinh
// $acosh $atanh $degreesToRadians $radiansToDegrees (mongod's expression_trigonometric.h).
// Doubles in, doubles out; a decimal operand gives a decimal computed at 34 digits. Arguments
// outside a function's domain are error 50989, as in mongod.

import { Decimal128, Double } from 'bson';
import { Decimal } from 'decimal.js';
import * as num from '../../bson/numeric.js';
import type { BsonNumber } from '../../bson/numeric.js';
import { fail } from '../../errors.js';
import { AggCode } from '../error-codes.js';
import { formatDoubleG, isNullish, typeName } from '../values.js';
import { naryOperator, unaryOperator } from './operator.js';
import type { OperatorDefinition, Value } from './types.js';

const D34 = Decimal.clone({ precision: 34, rounding: Decimal.ROUND_HALF_EVEN });
type D34 = InstanceType<typeof D34>;

interface Domain {
  readonly lo: number;
  readonly hi: number;
  /** Whether each bound is included. */
  readonly loIn: boolean;
  readonly hiIn: boolean;
}

const ANY: Domain = { lo: -Infinity, hi: Infinity, loIn: false, hiIn: false };

function interval(d: Domain): string {
  const b = (x: number): string => (x === Infinity ? 'inf' : x === -Infinity ? '-inf' : String(x));
  return `${d.loIn ? '[' : '('}${b(d.lo)},${b(d.hi)}${d.hiIn ? ']' : ')'}`;
}

function inDomain(x: number, d: Domain): boolean {
  if (Number.isNaN(x)) return true;
  return (d.loIn ? x >= d.lo : x > d.lo) && (d.hiIn ? x <= d.hi : x < d.hi);
}

function trig(name: string, dbl: (x: number) => number, dec: (x: D34) => D34, domain: Domain = ANY): OperatorDefinition {
  return unaryOperator(name, (v) => {
    if (isNullish(v)) return null;
    if (!num.isNumeric(v)) fail(AggCode.Location28765, `${name} only supports numeric types, not ${typeName(v)}`);
    const x = num.toDouble(v);
    if (!inDomain(x, domain)) fail(AggCode.Location50989, `cannot apply ${name} to ${formatDoubleG(x)}, value must be in ${interval(domain)}`);
    if (v instanceof Decimal128) return Decimal128.fromString(dec(new D34(v.toString())).toString());
    return new Double(dbl(x));
  });
}

const PI = new D34('3.141592653589793238462643383279503');

function $atan2(): OperatorDefinition {
  return naryOperator('$atan2', 2, ([y, x]) => {
    const a = y as Value;
    const b = x as Value;
    if (isNullish(a) || isNullish(b)) return null;
    if (!num.isNumeric(a)) fail(AggCode.Location51044, `$atan2 only supports numeric types, not ${typeName(a)}`);
    if (!num.isNumeric(b)) fail(AggCode.Location51045, `$atan2 only supports numeric types, not ${typeName(b)}`);
    if (a instanceof Decimal128 || b instanceof Decimal128) {
      return Decimal128.fromString(D34.atan2(new D34(num.toDecimal(a as BsonNumber).toString()), new D34(num.toDecimal(b as BsonNumber).toString())).toString());
    }
    return new Double(Math.atan2(num.toDouble(a), num.toDouble(b)));
  });
}

export const trigonometryOperators: readonly OperatorDefinition[] = [
  trig('$sin', Math.sin, (x) => x.sin(), { lo: -Infinity, hi: Infinity, loIn: false, hiIn: false }),
  trig('$cos', Math.cos, (x) => x.cos(), { lo: -Infinity, hi: Infinity, loIn: false, hiIn: false }),
  trig('$tan', Math.tan, (x) => x.tan(), { lo: -Infinity, hi: Infinity, loIn: false, hiIn: false }),
  trig('$asin', Math.asin, (x) => x.asin(), { lo: -1, hi: 1, loIn: true, hiIn: true }),
  trig('$acos', Math.acos, (x) => x.acos(), { lo: -1, hi: 1, loIn: true, hiIn: true }),
  trig('$atan', Math.atan, (x) => x.atan()),
  $atan2(),
  trig('$sinh', Math.sinh, (x) => x.sinh()),
  trig('$cosh', Math.cosh, (x) => x.cosh()),
  trig('$tanh', Math.tanh, (x) => x.tanh()),
  trig('$asinh', Math.asinh, (x) => x.asinh()),
  trig('$acosh', Math.acosh, (x) => x.acosh(), { lo: 1, hi: Infinity, loIn: true, hiIn: true }),
  trig('$atanh', Math.atanh, (x) => x.atanh(), { lo: -1, hi: 1, loIn: true, hiIn: true }),
  trig('$degreesToRadians', (x) => (x * Math.PI) / 180, (x) => x.times(PI).dividedBy(180)),
  trig('$radiansToDegrees', (x) => (x * 180) / Math.PI, (x) => x.times(180).dividedBy(PI)),
];
