// Shared by $inc and $mul (mongod's ArithmeticNode): numeric argument required, numeric
// field required, SafeNum arithmetic (int32 widens to int64; int64 overflow is an error; any
// double gives a double; any decimal a decimal). A result identical to the old value (same
// type, same value) is a no-op.

import { Int32 } from 'bson';
import { bsonTypeName } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { add, isIdentical, isNumeric, multiply } from '../../bson/numeric.js';
import type { BsonNumber } from '../../bson/numeric.js';
import { ErrorCode, fail } from '../../errors.js';
import { formatElement } from '../../bson/format.js';
import { defineModifier, idForMessage, noop, updated } from '../modifier.js';
import type { Modifier } from '../modifier.js';

type Op = 'increment' | 'multiply';

/** SafeNum::debugString, used in the overflow message. */
function debugString(v: BsonNumber): string {
  switch (bsonTypeName(v)) {
    case 'int':
      return `(NumberInt)${String((v as Int32).value)}`;
    case 'long':
      return `(NumberLong)${v.toString()}`;
    case 'double':
      return `(NumberDouble)${String((v as { value: number }).value)}`;
    default:
      return `(NumberDecimal)${v.toString()}`;
  }
}

export function arithmeticModifier(
  name: '$inc' | '$mul',
  op: Op,
  path: string,
  arg: BsonValue,
): Modifier {
  if (!isNumeric(arg)) {
    fail(
      ErrorCode.TypeMismatch,
      `Cannot ${op} with non-numeric argument: {${formatElement(path, arg)}}`,
    );
  }
  const compute = (current: BsonNumber): BsonNumber | undefined =>
    op === 'increment' ? add(arg, current, 'update') : multiply(arg, current, 'update');
  return defineModifier({
    name,
    updateExisting(target) {
      const current = target.value;
      if (!isNumeric(current)) {
        fail(
          ErrorCode.TypeMismatch,
          `Cannot apply ${name} to a value of non-numeric type. {${target.state.idElement() ?? ''}} has the field '${String(target.loc.key)}' of non-numeric type ${bsonTypeName(current)}`,
        );
      }
      const result = compute(current);
      if (result !== undefined && isIdentical(result, current)) return noop;
      if (result === undefined) {
        fail(
          ErrorCode.BadValue,
          `Failed to apply ${name} operations to current value (${debugString(current)}) for document {${idForMessage(target.state, 'no id')}}`,
        );
      }
      target.state.setAt(target.loc, result);
      return updated;
    },
    // A missing field counts as 0: $inc creates the argument, $mul a zero of the argument's type.
    valueForNew: () =>
      op === 'increment' ? arg : (multiply(arg, new Int32(0), 'update') as BsonNumber),
  });
}
