// $set: replace the value at the path, creating the path if needed. Setting a value whose
// BSON bytes equal the current ones is a no-op; 1 (int32) over 1.0 (double) is a change.

import type { BsonValue } from '../../bson/types.js';
import { binaryEqual } from '../binary-equal.js';
import { defineModifier, noop, updated } from '../modifier.js';
import type { Modifier } from '../modifier.js';
import type { ModifierDefinition } from './definition.js';

export function setModifier(name: string, value: BsonValue, insertOnly: boolean): Modifier {
  return defineModifier({
    name,
    insertOnly,
    updateExisting(target) {
      if (binaryEqual(target.value, value)) return noop;
      target.state.setAt(target.loc, value);
      return updated;
    },
    valueForNew: () => value,
  });
}

export const $set: ModifierDefinition = {
  name: '$set',
  parse: (_path, value) => setModifier('$set', value, false),
};
