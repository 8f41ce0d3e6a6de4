// $pullAll: remove every element equal (in BSON order) to one of the given values.

import { ValueMap } from '../../bson/value-map.js';
import { bsonTypeName, isArray } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { cullingModifier } from './array-culling.js';
import type { ModifierDefinition } from './definition.js';

export const $pullAll: ModifierDefinition = {
  name: '$pullAll',
  parse(_path, value, env) {
    if (!isArray(value))
      fail(
        ErrorCode.BadValue,
        `$pullAll requires an array argument but was given a ${bsonTypeName(value)}`,
      );
    const values = new ValueMap<true>(env.collator);
    for (const v of value) values.set(v, true);
    return cullingModifier('$pullAll', (element) => values.has(element));
  },
};
