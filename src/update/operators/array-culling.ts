// Shared by $pull and $pullAll (mongod's ArrayCullingNode): remove every array element that
// matches. Only arrays are accepted; a missing path is a no-op unless it could not exist.

import type { BsonValue } from '../../bson/types.js';
import { isArray } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { defineModifier, noop, ownedArray, updated } from '../modifier.js';
import type { Modifier } from '../modifier.js';
import { appendAll } from '../../bson/arrays.js';

export function cullingModifier(
  name: '$pull' | '$pullAll',
  matches: (element: BsonValue) => boolean,
): Modifier {
  return defineModifier({
    name,
    allowCreation: false,
    validatesStorage: false,
    updateExisting(target) {
      // mongod says $pull here for $pullAll too.
      if (!isArray(target.value))
        fail(ErrorCode.BadValue, 'Cannot apply $pull to a non-array value');
      if (!target.value.some((v) => matches(v))) return noop;
      const arr = ownedArray(target);
      const kept = arr.filter((v) => !matches(v));
      arr.length = 0;
      appendAll(arr, kept);
      return updated;
    },
  });
}
