// The nesting depth of values built by expressions. mongod builds values of any depth and
// refuses them when it converts a result to BSON (Overflow, "cannot convert document to BSON
// because it exceeds the limit of 200 levels of nesting"), which no deeper value can pass. An
// operator that builds a value iteratively ($reduce) checks each step here, so a pipeline that
// would build a million-level object fails with mongod's error at level 200 instead of
// building it (and overflowing the stack of whatever walks it next).
//
// Depths are cached per object: every object is walked once, however often a later step
// reaches it again (the previous $$value inside the next one), so checking every step of a
// $reduce costs O(new nodes), not O(depth) per step. The walk stops at the limit, so it never
// recurses deeper than that.

import { Binary } from 'bson';
import { isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import type { Value } from './types.js';

const depths = new WeakMap<object, number>();

/**
 * Levels of documents and arrays in `v` (a scalar 0, `{}` 1, `{a: {}}` 2), or `cap + 1` once it
 * is known to pass `cap`.
 */
export function valueDepth(v: Value, cap: number): number {
  if (typeof v !== 'object' || v === null || v instanceof Binary) return 0;
  const isArr = Array.isArray(v);
  if (!isArr && !isPlainDocument(v)) return 0;
  const known = depths.get(v);
  if (known !== undefined) return known;
  if (cap <= 0) return 1;
  let inner = 0;
  const children: readonly Value[] = isArr ? (v as Value[]) : (Object.values(v) as Value[]);
  for (const c of children) {
    const d = valueDepth(c, cap - 1);
    if (d > inner) inner = d;
    if (inner >= cap) return cap + 1;
  }
  depths.set(v, inner + 1);
  return inner + 1;
}

/** The deepest value an expression may build: it sits at least one level inside a document. */
export const builtValueDepthMax = (): number => limits.commandDepthMax - 1;

/** Fails with mongod's Overflow when `v` could never be converted to BSON. */
export function checkBuiltDepth(v: Value): void {
  const max = builtValueDepthMax();
  if (valueDepth(v, max) > max)
    fail(
      ErrorCode.Overflow,
      `cannot convert document to BSON because it exceeds the limit of ${limits.commandDepthMax} levels of nesting`,
    );
}
