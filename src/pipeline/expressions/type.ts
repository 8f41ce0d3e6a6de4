// Type operators: $type $isNumber $convert and its shortcuts $toInt $toLong $toDouble $toDecimal
// $toString $toBool $toDate $toObjectId, following mongod's conversion table: unsupported
// pairs and failed conversions are ConversionFailure (241), caught by `onError`; a nullish
// input gives `onNull` (or null).

import { Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'bson';
import * as num from '../../bson/numeric.js';
import { BsonType, isPlainDocument } from '../../bson/types.js';
import type { BsonTypeName } from '../../bson/types.js';
import { CommandError, ErrorCode, fail } from '../../errors.js';
import { decimalIsInfinite, decimalIsNaN, decimalToBigInt } from '../decimal-math.js';
import { parseDateString, UTC } from '../dates.js';
import {
  formatDoubleG,
  integralValue,
  isNullish,
  isoDateString,
  toBool,
  typeName,
} from '../values.js';
import { operatorExpression, parseOperands, unaryOperator } from './operator.js';
import type { Expression, Frame, OperatorDefinition, Value } from './types.js';

const $type = unaryOperator('$type', (v) => typeName(v));
const $isNumber = unaryOperator('$isNumber', (v) => num.isNumeric(v));

type Target = BsonTypeName | 'missing';

const TYPE_BY_CODE = new Map<number, BsonTypeName>(
  Object.entries(BsonType).map(([n, c]) => [c, n as BsonTypeName]),
);

function conversionFailure(message: string): never {
  fail(ErrorCode.ConversionFailure, message);
}

function overflow(v: string): never {
  conversionFailure(
    `Conversion would overflow target type in $convert with no onError value: ${v}`,
  );
}

function finiteDouble(d: number): void {
  if (Number.isNaN(d))
    conversionFailure(
      'Attempt to convert NaN value to integer type in $convert with no onError value',
    );
  if (!Number.isFinite(d))
    conversionFailure(
      'Attempt to convert infinity value to integer type in $convert with no onError value',
    );
}

function doubleToLong(d: number): bigint {
  finiteDouble(d);
  if (!(d >= -9223372036854775808 && d < 9223372036854775808)) overflow(formatDoubleG(d));
  return BigInt(Math.trunc(d));
}

function decimalToInteger(v: Decimal128, bits: 32 | 64): bigint {
  if (decimalIsNaN(v))
    conversionFailure(
      'Attempt to convert NaN value to integer type in $convert with no onError value',
    );
  if (decimalIsInfinite(v))
    conversionFailure(
      'Attempt to convert infinity value to integer type in $convert with no onError value',
    );
  const n = decimalToBigInt(v, 'towardZero') ?? 0n;
  const max = bits === 32 ? 2147483647n : 2n ** 63n - 1n;
  if (n > max || n < -max - 1n) overflow(v.toString());
  return n;
}

/** mongod's performFormatDouble. */
function formatDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d < 0 ? '-Infinity' : 'Infinity';
  if (d === 0 && Object.is(d, -0)) return '-0';
  return formatDoubleG(d);
}

function parseNumber(s: string, target: 'double' | 'int' | 'long' | 'decimal'): Value {
  const failed = (reason: string): never =>
    conversionFailure(`Failed to parse number '${s}' in $convert with no onError value: ${reason}`);
  if (s.startsWith('0x'))
    conversionFailure(`Illegal hexadecimal input in $convert with no onError value: ${s}`);
  if (s.length === 0) failed('No digits');
  if (target === 'int' || target === 'long') {
    if (!/^[+-]?\d+$/.test(s)) failed('Did not consume whole string.');
    const n = BigInt(s);
    const max = target === 'int' ? 2147483647n : 2n ** 63n - 1n;
    if (n > max || n < -max - 1n) failed('Out of range');
    return target === 'int' ? new Int32(Number(n)) : Long.fromBigInt(n);
  }
  if (target === 'double') {
    if (/^[+-]?(inf|infinity)$/i.test(s))
      return new Double(s.startsWith('-') ? -Infinity : Infinity);
    if (/^[+-]?nan$/i.test(s)) return new Double(NaN);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) failed('Did not consume whole string.');
    const d = Number(s);
    if (!Number.isFinite(d)) failed('Out of range');
    return new Double(d);
  }
  if (/^[+-]?(inf|infinity)$/i.test(s))
    return Decimal128.fromString(s.startsWith('-') ? '-Infinity' : 'Infinity');
  if (/^[+-]?nan$/i.test(s)) return Decimal128.fromString('NaN');
  const m = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (m === null || ((m[2] ?? '') === '' && (m[3] ?? '') === ''))
    return failed('Did not consume whole string.');
  const digits = `${m[2] ?? ''}${m[3] ?? ''}`;
  return num.encodeDecimal({
    kind: 'finite',
    sign: m[1] === '-' ? 1 : 0,
    coef: BigInt(digits === '' ? '0' : digits),
    exp: Number(m[4] ?? '0') - (m[3] ?? '').length,
  });
}

/** One conversion of a non-nullish value (mongod's ConversionTable). */
export function convertValue(v: Exclude<Value, null | undefined>, to: Target): Value {
  const from = typeName(v);
  const unsupported = (): never =>
    conversionFailure(
      `Unsupported conversion from ${from} to ${to} in $convert with no onError value`,
    );
  if (to === 'missing') unsupported();
  if (to === 'bool') {
    if (num.isNumeric(v) || v instanceof Date || typeof v === 'boolean') return toBool(v);
    if (
      typeof v === 'string' ||
      from === 'objectId' ||
      from === 'object' ||
      from === 'array' ||
      from === 'binData' ||
      from === 'regex' ||
      from === 'dbPointer' ||
      from === 'javascript' ||
      from === 'symbol' ||
      from === 'javascriptWithScope' ||
      from === 'timestamp' ||
      from === 'minKey' ||
      from === 'maxKey'
    )
      return true;
    unsupported();
  }
  // A Timestamp is a Long subclass in the bson package; mongod converts it only to bool (above)
  // and to date (its seconds), never as a number.
  if (v instanceof Timestamp) return to === 'date' ? new Date(v.t * 1000) : unsupported();
  switch (to) {
    case 'double':
      if (v instanceof Double) return v;
      if (v instanceof Int32 || v instanceof Long) return new Double(num.toDouble(v));
      if (v instanceof Decimal128) {
        const d = num.toDouble(v);
        if (!Number.isFinite(d) && !decimalIsInfinite(v) && !decimalIsNaN(v))
          overflow(v.toString());
        return new Double(d);
      }
      if (typeof v === 'string') return parseNumber(v, 'double');
      if (typeof v === 'boolean') return new Double(v ? 1 : 0);
      if (v instanceof Date) return new Double(v.getTime());
      return unsupported();
    case 'int':
      if (v instanceof Int32) return v;
      if (v instanceof Double) {
        finiteDouble(v.value);
        if (!(v.value >= -2147483648 && v.value <= 2147483647)) overflow(formatDoubleG(v.value));
        return new Int32(Math.trunc(v.value));
      }
      if (v instanceof Long) {
        const n = v.toBigInt();
        if (n > 2147483647n || n < -2147483648n) overflow('');
        return new Int32(Number(n));
      }
      if (v instanceof Decimal128) return new Int32(Number(decimalToInteger(v, 32)));
      if (typeof v === 'string') return parseNumber(v, 'int');
      if (typeof v === 'boolean') return new Int32(v ? 1 : 0);
      return unsupported();
    case 'long':
      if (v instanceof Long) return v;
      if (v instanceof Int32) return Long.fromNumber(v.value);
      if (v instanceof Double) return Long.fromBigInt(doubleToLong(v.value));
      if (v instanceof Decimal128) return Long.fromBigInt(decimalToInteger(v, 64));
      if (typeof v === 'string') return parseNumber(v, 'long');
      if (typeof v === 'boolean') return Long.fromNumber(v ? 1 : 0);
      if (v instanceof Date) return Long.fromNumber(v.getTime());
      return unsupported();
    case 'decimal':
      if (v instanceof Decimal128) return v;
      if (num.isNumeric(v)) return num.toDecimal(v);
      if (typeof v === 'string') return parseNumber(v, 'decimal');
      if (typeof v === 'boolean') return Decimal128.fromString(v ? '1' : '0');
      if (v instanceof Date) return num.toDecimal(Long.fromNumber(v.getTime()));
      return unsupported();
    case 'string':
      if (typeof v === 'string') return v;
      if (v instanceof Double) return formatDouble(v.value);
      if (v instanceof Int32 || v instanceof Long) return v.toString();
      if (v instanceof Decimal128) return v.toString();
      if (typeof v === 'boolean') return v ? 'true' : 'false';
      if (v instanceof Date) return isoDateString(v);
      if (v instanceof ObjectId) return v.toHexString();
      return unsupported();
    case 'date':
      if (v instanceof Date) return v;
      if (v instanceof Long) return new Date(Number(v.toBigInt()));
      if (v instanceof Double) return new Date(Number(doubleToLong(v.value)));
      if (v instanceof Decimal128) return new Date(Number(decimalToInteger(v, 64)));
      if (typeof v === 'string') return new Date(parseDateString(v, UTC));
      if (v instanceof ObjectId) return new Date(v.getTimestamp().getTime());
      return unsupported();
    case 'objectId':
      if (v instanceof ObjectId) return v;
      if (typeof v === 'string') {
        if (v.length !== 24)
          conversionFailure(
            `Failed to parse objectId '${v}' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found ${v.length}`,
          );
        if (!/^[0-9a-fA-F]{24}$/.test(v))
          conversionFailure(
            `Failed to parse objectId '${v}' in $convert with no onError value: Invalid character found in hex string: ${v}`,
          );
        return ObjectId.createFromHexString(v);
      }
      return unsupported();
    default:
      return unsupported();
  }
}

/** mongod's ExpressionConvert::computeTargetType. */
function targetOf(v: Value): Target {
  if (typeof v === 'string') {
    if (v === 'missing') return 'missing';
    if (!Object.hasOwn(BsonType, v)) fail(ErrorCode.BadValue, `Unknown type name: ${v}`);
    return v as BsonTypeName;
  }
  if (num.isNumeric(v)) {
    const n = integralValue(v);
    if (n === undefined)
      fail(ErrorCode.FailedToParse, "In $convert, numeric 'to' argument is not an integer");
    const t = TYPE_BY_CODE.get(Number(n));
    if (t === undefined)
      fail(
        ErrorCode.FailedToParse,
        `In $convert, numeric value for 'to' does not correspond to a BSON type: ${n}`,
      );
    return t;
  }
  fail(
    ErrorCode.FailedToParse,
    `$convert's 'to' argument must be a string or number, but is ${typeName(v)}`,
  );
}

function convertExpression(
  input: Expression,
  to: Expression,
  onError: Expression | undefined,
  onNull: Expression | undefined,
): Expression {
  const evaluate = (frame: Frame): Value => {
    const toV = to.evaluate(frame);
    const v = input.evaluate(frame);
    const target = isNullish(toV) ? undefined : targetOf(toV);
    if (isNullish(v)) return onNull !== undefined ? onNull.evaluate(frame) : null;
    if (target === undefined) return null;
    try {
      return convertValue(v, target);
    } catch (e) {
      if (
        onError !== undefined &&
        e instanceof CommandError &&
        e.code === ErrorCode.ConversionFailure
      )
        return onError.evaluate(frame);
      throw e;
    }
  };
  return operatorExpression('$convert', [input, to, onError, onNull], evaluate);
}

const $convert: OperatorDefinition = {
  name: '$convert',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.FailedToParse,
        `$convert expects an object of named arguments but found: ${typeName(arg)}`,
      );
    const e: Partial<Record<'input' | 'to' | 'onError' | 'onNull', Expression>> = {};
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'input' || k === 'to' || k === 'onError' || k === 'onNull') e[k] = ctx.parse(v);
      else fail(ErrorCode.FailedToParse, `$convert found an unknown argument: ${k}`);
    }
    if (e.input === undefined)
      fail(ErrorCode.FailedToParse, "Missing 'input' parameter to $convert");
    if (e.to === undefined) fail(ErrorCode.FailedToParse, "Missing 'to' parameter to $convert");
    return convertExpression(e.input, e.to, e.onError, e.onNull);
  },
};

function shortcut(name: string, to: BsonTypeName): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const operands = parseOperands(arg, ctx);
      if (operands.length !== 1)
        fail(ErrorCode.Location50723, `${name} requires a single argument, got ${operands.length}`);
      return convertExpression(
        operands[0] as Expression,
        { kind: 'constant', value: to, evaluate: () => to },
        undefined,
        undefined,
      );
    },
  };
}

export const typeOperators: readonly OperatorDefinition[] = [
  $type,
  $isNumber,
  $convert,
  shortcut('$toString', 'string'),
  shortcut('$toObjectId', 'objectId'),
  shortcut('$toDate', 'date'),
  shortcut('$toDouble', 'double'),
  shortcut('$toInt', 'int'),
  shortcut('$toLong', 'long'),
  shortcut('$toDecimal', 'decimal'),
  shortcut('$toBool', 'bool'),
];
