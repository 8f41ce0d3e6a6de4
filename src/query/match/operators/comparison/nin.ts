import { notNode } from '../../nodes.js';
import { parseInList } from './shared.js';
import type { PathOperator } from '../registry.js';

/** {a: {$nin: [...]}}: the negation of $in over the whole path. */
export const $nin: PathOperator = {
  name: '$nin',
  parse: ({ path, arg }) => notNode(parseInList('$nin', path, arg)),
};
