import { comparisonNode } from '../../nodes.js';
import type { TopLevelOperator } from '../registry.js';

/**
 * {$ref: ..., $id: ...} at the top of a filter (typically inside $elemMatch over DBRefs): each
 * is an equality on the field of that name.
 */
function dbrefField(name: '$ref' | '$id' | '$db'): TopLevelOperator {
  return { name, parse: (arg) => comparisonNode('eq', name, arg) };
}

export const dbrefOperators: readonly TopLevelOperator[] = [
  dbrefField('$ref'),
  dbrefField('$id'),
  dbrefField('$db'),
];
