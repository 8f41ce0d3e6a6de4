// $pullAll: remove every element equal (in BSON order) to one of the given values.

import { compareBson } from '../../bson/compare.js';
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
    const values = [...value];
    return cullingModifier('$pullAll', (element) =>
      values.some((v) => compareBson(element, v, env.collator) === 0),
    );
  },
};
