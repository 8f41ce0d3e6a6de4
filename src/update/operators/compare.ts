// Shared by $min and $max (mongod's CompareNode): replace the value when the argument is
// smaller (larger) in BSON order. Equal values are a no-op, so the stored type is kept
// ({$max: {a: 1}} on 1.0 leaves the double).

import type { BsonValue } from '../../bson/types.js';
import { compareBson } from '../../bson/compare.js';
import type { Collator } from '../../bson/collation.js';
import { defineModifier, noop, updated } from '../modifier.js';
import type { Modifier } from '../modifier.js';

export function compareModifier(
  name: '$min' | '$max',
  value: BsonValue,
  collator?: Collator,
): Modifier {
  const keepWhen = name === '$max' ? 1 : -1;
  return defineModifier({
    name,
    updateExisting(target) {
      const c = compareBson(target.value, value, collator);
      if (c === 0 || c === keepWhen) return noop;
      target.state.setAt(target.loc, value);
      return updated;
    },
    valueForNew: () => value,
  });
}
