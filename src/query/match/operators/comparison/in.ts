import { parseInList } from './shared.js';
import type { PathOperator } from '../registry.js';

/** {a: {$in: [v, /re/, ...]}}: equality with any value or a match of any regex. */
export const $in: PathOperator = {
  name: '$in',
  parse: ({ path, arg }) => parseInList('$in', path, arg),
};
