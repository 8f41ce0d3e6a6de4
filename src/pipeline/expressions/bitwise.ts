// Bitwise operators (6.3+): $bitAnd $bitOr $bitXor over int and long operands (int when every
// operand is an int), and $bitNot. Null or missing operands give null.

import { Int32, Long, Timestamp } from 'bson';
import { bitAnd, bitOr, bitXor } from '../../bson/numeric.js';
import { ErrorCode, fail } from '../../errors.js';
import { isNullish, typeName } from '../values.js';
import { operatorExpression, parseOperands, unaryOperator } from './operator.js';
import type { Frame, OperatorDefinition, Value } from './types.js';

/** An int or a long (a Timestamp is a Long subclass in the bson package, but not a number). */
function isIntOrLong(v: Value): v is Int32 | Long {
  return v instanceof Int32 || (v instanceof Long && !(v instanceof Timestamp));
}

function bitwise(
  name: string,
  op: (a: Int32 | Long, b: Int32 | Long) => Int32 | Long,
  identity: Int32,
): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const children = parseOperands(arg, ctx);
      const evaluate = (frame: Frame): Value => {
        let acc: Int32 | Long = identity;
        for (const c of children) {
          const v = c.evaluate(frame);
          if (isNullish(v)) return null;
          if (!isIntOrLong(v))
            fail(ErrorCode.TypeMismatch, `${name} only supports int and long operands.`);
          acc = op(acc, v);
        }
        return acc;
      };
      return operatorExpression(name, children, evaluate);
    },
  };
}

const $bitNot = unaryOperator('$bitNot', (v) => {
  if (isNullish(v)) return null;
  if (isIntOrLong(v)) return v instanceof Int32 ? new Int32(~v.value) : v.not();
  fail(ErrorCode.TypeMismatch, `$bitNot only supports int and long, not: ${typeName(v)}.`);
});

export const bitwiseOperators: readonly OperatorDefinition[] = [
  bitwise('$bitAnd', bitAnd, new Int32(-1)),
  bitwise('$bitOr', bitOr, new Int32(0)),
  bitwise('$bitXor', bitXor, new Int32(0)),
  $bitNot,
];
