import { BSONRegExp } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { comparisonNode, notNode } from '../../nodes.js';
import type { PathOperator } from '../registry.js';

/** {a: {$ne: v}}: the negation of equality over the whole path, arrays included. */
export const $ne: PathOperator = {
  name: '$ne',
  parse({ path, arg }) {
    if (arg instanceof BSONRegExp) fail(ErrorCode.BadValue, "Can't have regex as arg to $ne.");
    return notNode(comparisonNode('eq', path, arg));
  },
};
