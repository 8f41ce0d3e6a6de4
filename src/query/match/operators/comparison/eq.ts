import { comparisonNode } from '../../nodes.js';
import type { PathOperator } from '../registry.js';

/** {a: {$eq: v}}: equality, also with a regex or an operator-looking document as a plain value. */
export const $eq: PathOperator = {
  name: '$eq',
  parse: ({ path, arg }) => comparisonNode('eq', path, arg),
};
