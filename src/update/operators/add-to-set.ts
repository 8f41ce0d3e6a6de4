// $addToSet: append values not already in the array (equality in BSON order: 1 equals 1.0),
// several with {$each: [...]}, where $each must be the first and only field.

import { compareBson } from '../../bson/compare.js';
import { ValueMap } from '../../bson/value-map.js';
import type { Collator } from '../../bson/collation.js';
import { bsonTypeName, isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonArray, BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { formatValue } from '../../bson/format.js';
import { defineModifier, noop, ownedArray, updated } from '../modifier.js';
import type { ModifierDefinition } from './definition.js';
import { appendAll } from '../../bson/arrays.js';

/**
 * The test "not in `array`" for `lookups` values: one value scans the array; several ($each
 * may add 100k) look up a set of it, not a scan of it per value.
 */
function notIn(
  array: readonly BsonValue[],
  lookups: number,
  collator: Collator | undefined,
): (v: BsonValue) => boolean {
  if (lookups === 1) return (v) => !array.some((x) => compareBson(x, v, collator) === 0);
  const set = new ValueMap<true>(collator);
  for (const x of array) set.set(x, true);
  return (v) => !set.has(v);
}

function parseElements(value: BsonValue, collator: Collator | undefined): BsonValue[] {
  if (isPlainDocument(value)) {
    const keys = Object.keys(value);
    if (keys[0] === '$each') {
      const each = value['$each'] as BsonValue;
      if (!isArray(each)) {
        fail(
          ErrorCode.TypeMismatch,
          `The argument to $each in $addToSet must be an array but it was of type ${bsonTypeName(each)}`,
        );
      }
      if (keys.length > 1)
        fail(
          ErrorCode.BadValue,
          `Found unexpected fields after $each in $addToSet: ${formatValue(value)}`,
        );
      // Duplicates within $each are dropped up front, keeping the first of each.
      const seen = new ValueMap<true>(collator);
      for (const v of each) seen.set(v, true); // the first key seen is the one kept
      return seen.entries().map((e) => e.key);
    }
  }
  return [value];
}

export const $addToSet: ModifierDefinition = {
  name: '$addToSet',
  parse(_path, value, env) {
    const elements = parseElements(value, env.collator);
    return defineModifier({
      name: '$addToSet',
      updateExisting(target) {
        if (!isArray(target.value)) {
          fail(
            ErrorCode.BadValue,
            `Cannot apply $addToSet to non-array field. Field named '${String(target.loc.key)}' has non-array type ${bsonTypeName(target.value)}`,
          );
        }
        const toAdd = elements.filter(notIn(target.value, elements.length, env.collator));
        if (toAdd.length === 0) return noop;
        appendAll(ownedArray(target), toAdd);
        return updated;
      },
      valueForNew(state) {
        const arr: BsonArray = [...elements];
        state.adopt(arr);
        return arr;
      },
    });
  },
};
