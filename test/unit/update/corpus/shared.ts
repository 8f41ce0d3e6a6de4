// Small builders shared by the corpus files.

export { NEXT_TS, NOW } from './types.js';

/**
 * A value whose deepest element sits at nesting level `levels` once it is stored as a
 * top-level field: nestedDepth(1) is a scalar, nestedDepth(2) is {a: 1}, …
 */
export function nestedDepth(levels: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}
