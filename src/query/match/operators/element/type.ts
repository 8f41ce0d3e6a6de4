import { ErrorCode, fail } from '../../../../errors.js';
import { pathNode, simpleTest } from '../../nodes.js';
import { parseMatchTypeSet, typeSetHas } from '../../type-set.js';
import type { PathOperator } from '../registry.js';

/**
 * {a: {$type: t}}: t is a type code, an alias ("string", "number", ...) or an array of them.
 * Arrays are traversed, and the array itself is tested too, so {$type: "array"} matches.
 */
export const $type: PathOperator = {
  name: '$type',
  parse({ path, arg }) {
    const types = parseMatchTypeSet(arg);
    if (!types.allNumbers && types.types.size === 0)
      fail(ErrorCode.FailedToParse, `${path} must match at least one type`);
    return pathNode(
      path,
      { kind: 'type', types },
      simpleTest((v) => typeSetHas(types, v)),
    );
  },
};
