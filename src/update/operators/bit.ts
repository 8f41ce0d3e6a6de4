// $bit: and / or / xor with int32 or int64 operands, applied in the order given, on an
// int32 or int64 field (a missing field counts as int32 0).

import type { Long } from 'bson';
import { Int32 } from 'bson';
import { bitAnd, bitOr, bitXor, isIdentical, isIntegral } from '../../bson/numeric.js';
import { bsonTypeName, isPlainDocument } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { formatElement } from '../../bson/format.js';
import { defineModifier, noop, updated } from '../modifier.js';
import type { ModifierDefinition } from './definition.js';

type BitFn = (a: Int32 | Long, b: Int32 | Long) => Int32 | Long;
const operators: Record<string, BitFn> = { and: bitAnd, or: bitOr, xor: bitXor };

export const $bit: ModifierDefinition = {
  name: '$bit',
  parse(_path, value) {
    if (!isPlainDocument(value)) {
      fail(
        ErrorCode.BadValue,
        `The $bit modifier is not compatible with a ${bsonTypeName(value)}. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}`,
      );
    }
    const ops: Array<[BitFn, Int32 | Long]> = [];
    for (const [name, operand] of Object.entries(value)) {
      const fn = Object.prototype.hasOwnProperty.call(operators, name)
        ? operators[name]
        : undefined;
      if (fn === undefined) {
        fail(
          ErrorCode.BadValue,
          `The $bit modifier only supports 'and', 'or', and 'xor', not '${name}' which is an unknown operator: {${formatElement(name, operand)}}`,
        );
      }
      if (!isIntegral(operand)) {
        fail(
          ErrorCode.BadValue,
          `The $bit modifier field must be an Integer(32/64 bit); a '${bsonTypeName(operand)}' is not supported here: {${formatElement(name, operand)}}`,
        );
      }
      ops.push([fn, operand]);
    }
    if (ops.length === 0) {
      fail(
        ErrorCode.BadValue,
        'You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}',
      );
    }
    const applyOps = (start: Int32 | Long): Int32 | Long =>
      ops.reduce((acc, [fn, operand]) => fn(acc, operand), start);
    return defineModifier({
      name: '$bit',
      updateExisting(target) {
        const current: BsonValue = target.value;
        if (!isIntegral(current)) {
          fail(
            ErrorCode.BadValue,
            `Cannot apply $bit to a value of non-integral type.${target.state.idElement() ?? ''} has the field ${String(target.loc.key)} of non-integer type ${bsonTypeName(current)}`,
          );
        }
        const result = applyOps(current);
        if (isIdentical(result, current)) return noop;
        target.state.setAt(target.loc, result);
        return updated;
      },
      valueForNew: () => applyOps(new Int32(0)),
    });
  },
};
