// $pop: remove the last (1) or first (-1) element of an array. A missing field is a no-op,
// an empty array too.

import { bsonTypeName, isArray } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { defineModifier, noop, ownedArray, updated } from '../modifier.js';
import type { ModifierDefinition } from './definition.js';
import { parseIntegerArgument } from './integer-argument.js';

export const $pop: ModifierDefinition = {
  name: '$pop',
  parse(path, value) {
    const parsed = parseIntegerArgument(path, value);
    if (!parsed.ok) fail(ErrorCode.FailedToParse, parsed.message);
    if (parsed.value !== 1n && parsed.value !== -1n)
      fail(ErrorCode.FailedToParse, `$pop expects 1 or -1, found: ${parsed.value}`);
    const fromFront = parsed.value === -1n;
    return defineModifier({
      name: '$pop',
      allowCreation: false,
      validatesStorage: false,
      updateExisting(target) {
        if (!isArray(target.value)) {
          fail(
            ErrorCode.TypeMismatch,
            `Path '${target.path.join('.')}' contains an element of non-array type '${bsonTypeName(target.value)}'`,
          );
        }
        if (target.value.length === 0) return noop;
        const arr = ownedArray(target);
        if (fromFront) arr.shift();
        else arr.pop();
        return updated;
      },
    });
  },
};
