import { hasOwn } from '../../../../bson/document.js';
import { ErrorCode, fail } from '../../../../errors.js';
import type { PathOperator } from '../registry.js';

/** $options belongs to a sibling $regex, which reads it; alone it is an error. */
export const $options: PathOperator = {
  name: '$options',
  parse({ operatorDoc }) {
    if (hasOwn(operatorDoc, '$regex')) return null;
    fail(ErrorCode.BadValue, '$options needs a $regex');
  },
};
