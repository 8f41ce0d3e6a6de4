// Arithmetic operators: $add $subtract $multiply $divide $mod $abs $ceil $floor $round $trunc
// $exp $ln $log $log10 $pow $sqrt, with mongod's type promotion (int32 → int64 → double →
// decimal128, int64 overflow falling back to double) and its error codes and messages
// (src/mongo/db/pipeline/expression.cpp).

import { Decimal128, Double, Int32, Long } from 'bson';
import * as num from '../../bson/numeric.js';
import type { BsonNumber } from '../../bson/numeric.js';
import { ErrorCode, fail } from '../../errors.js';
import {
  decimalAbs,
  decimalExp,
  decimalIsInfinite,
  decimalLn,
  decimalLog,
  decimalLog10,
  decimalPow,
  decimalSign,
  decimalSqrt,
  decimalToBigInt,
  quantizeDecimal,
} from '../decimal-math.js';
import type { RoundingMode } from '../decimal-math.js';
import { formatDoubleG, integralValue, isNullish, typeName } from '../values.js';
import {
  checkArityRange,
  naryOperator,
  operatorExpression,
  parseOperands,
  unaryOperator,
} from './operator.js';
import type { Expression, Frame, OperatorDefinition, Value } from './types.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

type Widest = 'int' | 'long' | 'double' | 'decimal';

function widen(a: Widest, b: Widest): Widest {
  const order: Widest[] = ['int', 'long', 'double', 'decimal'];
  return order[Math.max(order.indexOf(a), order.indexOf(b))] as Widest;
}

function kindOf(v: BsonNumber): Widest {
  return num.numericTypeOf(v) as Widest;
}

function bigOf(v: BsonNumber): bigint {
  if (v instanceof Int32) return BigInt(v.value);
  if (v instanceof Long) return v.toBigInt();
  // coerceToLong of a double or decimal truncates toward zero.
  if (v instanceof Double) return Number.isFinite(v.value) ? BigInt(Math.trunc(v.value)) : 0n;
  return decimalToBigInt(v) ?? 0n;
}

/** A C++ double in a message (`str::stream() << double`). */
function fmt(x: number): string {
  return formatDoubleG(x);
}

// ---- $add ----------------------------------------------------------------------------------

/**
 * mongod's AddState: the sum is kept as an int64 while it fits, as a double from the first
 * double operand or int64 overflow on, as a decimal from the first decimal. One date operand
 * makes the result a date.
 */
class AddState {
  private longTotal = 0n;
  private doubleTotal = 0;
  private decimalTotal: Decimal128 = Decimal128.fromString('0');
  private widest: Widest = 'int';
  private isDate = false;

  add(operand: BsonNumber | Date): void {
    const old = this.widest;
    let val: BsonNumber;
    if (operand instanceof Date) {
      if (this.isDate) fail(ErrorCode.Location16612, 'only one date allowed in an $add expression');
      this.isDate = true;
      val = Long.fromNumber(operand.getTime());
    } else {
      this.widest = widen(this.widest, kindOf(operand));
      val = operand;
    }
    if (old !== this.widest) {
      if (this.widest === 'double') this.doubleTotal = Number(this.longTotal);
      else if (this.widest === 'decimal') {
        this.decimalTotal =
          old === 'double'
            ? num.decimalFromDouble(this.doubleTotal, 34)
            : num.toDecimal(Long.fromBigInt(this.longTotal));
      }
    }
    switch (this.widest) {
      case 'int':
      case 'long': {
        const sum = this.longTotal + bigOf(val);
        if (sum < INT64_MIN || sum > INT64_MAX) {
          this.widest = 'double';
          this.doubleTotal = Number(this.longTotal) + num.toDouble(val);
        } else {
          this.longTotal = sum;
        }
        break;
      }
      case 'double':
        this.doubleTotal += num.toDouble(val);
        break;
      case 'decimal':
        this.decimalTotal = num.add(this.decimalTotal, num.toDecimal(val)) as Decimal128;
        break;
    }
  }

  value(): Value {
    if (this.isDate) {
      switch (this.widest) {
        case 'int':
        case 'long':
          return new Date(Number(this.longTotal));
        case 'double':
          if (!(this.doubleTotal >= -(2 ** 63) && this.doubleTotal < 2 ** 63)) {
            fail(ErrorCode.Overflow, 'date overflow in $add');
          }
          return new Date(Math.round(this.doubleTotal));
        case 'decimal':
          return new Date(Number(decimalToBigInt(this.decimalTotal, 'halfEven') ?? 0n));
      }
    }
    switch (this.widest) {
      case 'int':
        return num.intOrLong(this.longTotal);
      case 'long':
        return Long.fromBigInt(this.longTotal);
      case 'double':
        return new Double(this.doubleTotal);
      case 'decimal':
        return this.decimalTotal;
    }
  }
}

const $add: OperatorDefinition = {
  name: '$add',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    const evaluate = (frame: Frame): Value => {
      const state = new AddState();
      for (const child of children) {
        const v = child.evaluate(frame);
        if (isNullish(v)) return null;
        if (!num.isNumeric(v) && !(v instanceof Date)) {
          fail(
            ErrorCode.TypeMismatch,
            `$add only supports numeric or date types, not ${typeName(v)}`,
          );
        }
        state.add(v);
      }
      return state.value();
    };
    return operatorExpression('$add', children, evaluate);
  },
};

// ---- $subtract -----------------------------------------------------------------------------

function subtract(lhs: Value, rhs: Value): Value {
  if (num.isNumeric(lhs) && num.isNumeric(rhs))
    return num.subtract(lhs, rhs, 'aggregate') as BsonNumber;
  if (isNullish(lhs) || isNullish(rhs)) return null;
  if (lhs instanceof Date) {
    if (rhs instanceof Date) return Long.fromNumber(lhs.getTime() - rhs.getTime());
    if (num.isNumeric(rhs)) return new Date(lhs.getTime() - Number(bigOf(rhs)));
    fail(ErrorCode.TypeMismatch, `can't $subtract ${typeName(rhs)} from Date`);
  }
  fail(ErrorCode.TypeMismatch, `can't $subtract ${typeName(rhs)} from ${typeName(lhs)}`);
}

const $subtract = naryOperator('$subtract', 2, ([a, b]) => subtract(a as Value, b as Value));

// ---- $multiply -----------------------------------------------------------------------------

/**
 * mongod's MultiplyState: an int64 product and a double product are kept side by side; the
 * double one is the answer once an operand is a double or the int64 product overflows.
 */
class MultiplyState {
  private doubleProduct = 1;
  private longProduct = 1n;
  private decimalProduct: Decimal128 | undefined;
  private type: Widest = 'int';

  mul(val: BsonNumber): void {
    const old = this.type;
    this.type = widen(this.type, kindOf(val));
    if (this.type === 'decimal') {
      if (old !== 'decimal') {
        this.decimalProduct =
          old === 'double'
            ? num.decimalFromDouble(this.doubleProduct, 15)
            : num.toDecimal(Long.fromBigInt(this.longProduct));
      }
      this.decimalProduct = num.multiply(
        this.decimalProduct as Decimal128,
        num.toDecimal(val),
      ) as Decimal128;
      return;
    }
    const d = num.toDouble(val);
    this.doubleProduct *= d;
    if (this.type !== 'double') {
      const p = this.longProduct * bigOf(val);
      if (!Number.isFinite(d) || p < INT64_MIN || p > INT64_MAX) this.type = 'double';
      else this.longProduct = p;
    }
  }

  value(): Value {
    switch (this.type) {
      case 'double':
        return new Double(this.doubleProduct);
      case 'long':
        return Long.fromBigInt(this.longProduct);
      case 'int':
        return num.intOrLong(this.longProduct);
      case 'decimal':
        return this.decimalProduct as Decimal128;
    }
  }
}

const $multiply: OperatorDefinition = {
  name: '$multiply',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    const evaluate = (frame: Frame): Value => {
      const state = new MultiplyState();
      for (const child of children) {
        const v = child.evaluate(frame);
        if (isNullish(v)) return null;
        if (!num.isNumeric(v))
          fail(ErrorCode.TypeMismatch, `$multiply only supports numeric types, not ${typeName(v)}`);
        state.mul(v);
      }
      return state.value();
    };
    return operatorExpression('$multiply', children, evaluate);
  },
};

// ---- $divide, $mod ---------------------------------------------------------------------------

function divide(lhs: Value, rhs: Value): Value {
  if (num.isNumeric(lhs) && num.isNumeric(rhs)) {
    const q = num.divide(lhs, rhs);
    if (q === undefined) fail(ErrorCode.BadValue, "can't $divide by zero");
    return q;
  }
  if (isNullish(lhs) || isNullish(rhs)) return null;
  fail(
    ErrorCode.TypeMismatch,
    `$divide only supports numeric types, not ${typeName(lhs)} and ${typeName(rhs)}`,
  );
}

const $divide = naryOperator('$divide', 2, ([a, b]) => divide(a as Value, b as Value));

function mod(lhs: Value, rhs: Value): Value {
  if (num.isNumeric(lhs) && num.isNumeric(rhs)) {
    if (lhs instanceof Decimal128 || rhs instanceof Decimal128) {
      const r = num.mod(num.toDecimal(lhs), num.toDecimal(rhs));
      if (r === undefined) fail(ErrorCode.Location5733415, "can't $mod by zero");
      return r;
    }
    const right = num.toDouble(rhs);
    if (right === 0) fail(ErrorCode.Location16610, "can't $mod by zero");
    // A double divisor with an integral value still gives an integer result (mongod's rule).
    if (lhs instanceof Double || (rhs instanceof Double && !Number.isInteger(rhs.value))) {
      return new Double(num.toDouble(lhs) % right);
    }
    const l = bigOf(lhs);
    const r = bigOf(rhs);
    if (lhs instanceof Long || rhs instanceof Long) return Long.fromBigInt(r === -1n ? 0n : l % r);
    return new Int32(r === -1n ? 0 : Number(l % r));
  }
  if (isNullish(lhs) || isNullish(rhs)) return null;
  fail(
    ErrorCode.Location16611,
    `$mod only supports numeric types, not ${typeName(lhs)} and ${typeName(rhs)}`,
  );
}

const $mod = naryOperator('$mod', 2, ([a, b]) => mod(a as Value, b as Value));

// ---- single numeric argument -------------------------------------------------------------------

/** mongod's ExpressionSingleNumericArg: null in, null out; any other non-number is 28765. */
function singleNumeric(name: string, apply: (v: BsonNumber) => Value): OperatorDefinition {
  return unaryOperator(name, (v) => {
    if (isNullish(v)) return null;
    if (!num.isNumeric(v))
      fail(ErrorCode.Location28765, `${name} only supports numeric types, not ${typeName(v)}`);
    return apply(v);
  });
}

const $abs = singleNumeric('$abs', (v) => {
  if (v instanceof Double) return new Double(Math.abs(v.value));
  if (v instanceof Decimal128) return decimalAbs(v);
  const n = bigOf(v);
  if (n === INT64_MIN) fail(ErrorCode.Location28680, "can't take $abs of long long min");
  const a = n < 0n ? -n : n;
  return v instanceof Long ? Long.fromBigInt(a) : num.intOrLong(a);
});

const $ceil = singleNumeric('$ceil', (v) => {
  if (v instanceof Double) return new Double(Math.ceil(v.value));
  if (v instanceof Decimal128) return quantizeDecimal(v, 0, 'towardPositive');
  return v;
});

const $floor = singleNumeric('$floor', (v) => {
  if (v instanceof Double) return new Double(Math.floor(v.value));
  if (v instanceof Decimal128) return quantizeDecimal(v, 0, 'towardNegative');
  return v;
});

const $exp = singleNumeric('$exp', (v) =>
  v instanceof Decimal128 ? decimalExp(v) : new Double(Math.exp(num.toDouble(v))),
);

const $ln = singleNumeric('$ln', (v) => {
  if (v instanceof Decimal128 && decimalSign(v) > 0) return decimalLn(v);
  const x = num.toDouble(v);
  if (!(x > 0 || Number.isNaN(x)))
    fail(ErrorCode.Location28766, `$ln's argument must be a positive number, but is ${fmt(x)}`);
  return new Double(Math.log(x));
});

const $log10 = singleNumeric('$log10', (v) => {
  if (v instanceof Decimal128 && decimalSign(v) > 0) return decimalLog10(v);
  const x = num.toDouble(v);
  if (!(x > 0 || Number.isNaN(x)))
    fail(ErrorCode.Location28761, `$log10's argument must be a positive number, but is ${fmt(x)}`);
  return new Double(Math.log10(x));
});

const $sqrt = singleNumeric('$sqrt', (v) => {
  if (v instanceof Decimal128) {
    if (decimalSign(v) < 0)
      fail(ErrorCode.Location28714, "$sqrt's argument must be greater than or equal to 0");
    return decimalSqrt(v);
  }
  const x = num.toDouble(v);
  if (x < 0) fail(ErrorCode.Location28714, "$sqrt's argument must be greater than or equal to 0");
  return new Double(Math.sqrt(x));
});

const $log = naryOperator('$log', 2, ([a, b]) => {
  const arg = a as Value;
  const base = b as Value;
  if (isNullish(arg) || isNullish(base)) return null;
  if (!num.isNumeric(arg))
    fail(ErrorCode.Location28756, `$log's argument must be numeric, not ${typeName(arg)}`);
  if (!num.isNumeric(base))
    fail(ErrorCode.Location28757, `$log's base must be numeric, not ${typeName(base)}`);
  if (arg instanceof Decimal128 || base instanceof Decimal128) {
    const x = num.toDecimal(arg);
    const y = num.toDecimal(base);
    if (decimalSign(x) > 0 && decimalSign(y) > 0 && num.toDouble(y) !== 1) return decimalLog(x, y);
  }
  const x = num.toDouble(arg);
  const y = num.toDouble(base);
  if (!(x > 0 || Number.isNaN(x)))
    fail(ErrorCode.Location28758, `$log's argument must be a positive number, but is ${fmt(x)}`);
  if (!((y > 0 && y !== 1) || Number.isNaN(y)))
    fail(
      ErrorCode.Location28759,
      `$log's base must be a positive number not equal to 1, but is ${fmt(y)}`,
    );
  return new Double(Math.log(x) / Math.log(y));
});

function pow(baseVal: Value, expVal: Value): Value {
  if (isNullish(baseVal) || isNullish(expVal)) return null;
  if (!num.isNumeric(baseVal))
    fail(ErrorCode.Location28762, `$pow's base must be numeric, not ${typeName(baseVal)}`);
  if (!num.isNumeric(expVal))
    fail(ErrorCode.Location28763, `$pow's exponent must be numeric, not ${typeName(expVal)}`);
  const zeroNeg = (): never =>
    fail(ErrorCode.Location28764, '$pow cannot take a base of 0 and a negative exponent');
  if (baseVal instanceof Decimal128 || expVal instanceof Decimal128) {
    const b = num.toDecimal(baseVal);
    const e = num.toDecimal(expVal);
    if (num.isZero(b) && decimalSign(e) < 0) zeroNeg();
    return decimalPow(b, e);
  }
  const b = num.toDouble(baseVal);
  const e = num.toDouble(expVal);
  if (b === 0 && e < 0) zeroNeg();
  if (baseVal instanceof Double || expVal instanceof Double) return new Double(Math.pow(b, e));
  const isLong = baseVal instanceof Long || expVal instanceof Long;
  const format = (r: bigint): Value => (isLong ? Long.fromBigInt(r) : num.intOrLong(r));
  const bl = bigOf(baseVal);
  const el = bigOf(expVal);
  if (bl === 0n) return format(el === 0n ? 1n : 0n);
  if (bl === 1n) return format(1n);
  if (bl === -1n) return format(el % 2n === 0n ? 1n : -1n);
  if (el > 63n || el < 0n) return new Double(Math.pow(Number(bl), Number(el)));
  const r = bl ** el;
  // Results that do not fit an int64 are computed in double, as mongod does.
  if (r < INT64_MIN || r > INT64_MAX) return new Double(Math.pow(Number(bl), Number(el)));
  return format(r);
}

const $pow = naryOperator('$pow', 2, ([a, b]) => pow(a as Value, b as Value));

// ---- $round, $trunc ----------------------------------------------------------------------------

function roundOrTrunc(name: string, mode: RoundingMode): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const children = parseOperands(arg, ctx);
      checkArityRange(name, children.length, 1, 2);
      const evaluate = (frame: Frame): Value => {
        const v = (children[0] as Expression).evaluate(frame);
        if (isNullish(v)) return null;
        if (!num.isNumeric(v))
          fail(ErrorCode.Location51081, `${name} only supports numeric types, not ${typeName(v)}`);
        let precision = 0n;
        const pExpr = children[1];
        if (pExpr !== undefined) {
          const p = pExpr.evaluate(frame);
          if (isNullish(p)) return null;
          if (!num.isNumeric(p))
            fail(ErrorCode.Location16003, `can't convert from BSON type ${typeName(p)} to long`);
          const integral = integralValue(p);
          if (integral === undefined)
            fail(
              ErrorCode.Location51082,
              `precision argument to  ${name} must be a integral value`,
            );
          precision = integral;
          if (precision < -20n || precision > 100n) {
            fail(
              ErrorCode.Location51083,
              `cannot apply ${name} with precision value ${precision} value must be in [-20, 100]`,
            );
          }
        }
        return roundValue(name, v, Number(precision), mode);
      };
      return operatorExpression(name, children, evaluate);
    },
  };
}

function roundValue(name: string, v: BsonNumber, precision: number, mode: RoundingMode): Value {
  if (v instanceof Decimal128)
    return decimalIsInfinite(v) ? v : quantizeDecimal(v, -precision, mode);
  if (v instanceof Double) {
    const dec = num.decimalFromDouble(v.value, 34);
    if (decimalIsInfinite(dec)) return v;
    return new Double(num.toDouble(quantizeDecimal(dec, -precision, mode)));
  }
  if (precision >= 0) return v;
  const n = bigOf(v);
  const q = quantizeDecimal(num.toDecimal(Long.fromBigInt(n)), -precision, mode);
  const out = decimalToBigInt(q);
  if (out === undefined || out < INT64_MIN || out > INT64_MAX) {
    fail(
      ErrorCode.Location51080,
      `invalid conversion from Decimal128 result in ${name} resulting from arguments: [${n}, ${precision}]`,
    );
  }
  if (v instanceof Long || out > 2147483647n || out < -2147483648n) return Long.fromBigInt(out);
  return new Int32(Number(out));
}

const $round = roundOrTrunc('$round', 'halfEven');
const $trunc = roundOrTrunc('$trunc', 'towardZero');

export const arithmeticOperators: readonly OperatorDefinition[] = [
  $add,
  $subtract,
  $multiply,
  $divide,
  $mod,
  $abs,
  $ceil,
  $floor,
  $exp,
  $ln,
  $log,
  $log10,
  $pow,
  $sqrt,
  $round,
  $trunc,
];
