import { isArray } from '../../../../bson/types.js';
import { ErrorCode } from '../../../../errors.js';
import { pathNode, simpleTest } from '../../nodes.js';
import { integerOrFail, parseIntegerToNonNegativeInt } from '../../numbers.js';
import type { PathOperator } from '../registry.js';

/** {a: {$size: n}}: `a` is an array of exactly n elements (nested arrays are not entered). */
export const $size: PathOperator = {
  name: '$size',
  parse({ path, arg }) {
    const size = Number(
      integerOrFail(
        parseIntegerToNonNegativeInt('$size', arg),
        ErrorCode.BadValue,
        'Failed to parse $size. ',
      ),
    );
    return pathNode(
      path,
      { kind: 'size', size },
      simpleTest((v) => isArray(v) && v.length === size),
      'whole',
    );
  },
};
