// Growing arrays by arrays of any length. `target.push(...items)` passes every item as an
// argument on the stack: past about 100k items (a document's array, a batch of results, the
// events of one large transaction) it throws RangeError "Maximum call stack size exceeded",
// which would reach the client as an internal error. These loop instead.

/** Appends every item of `items` to `target`, in order; returns `target`. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** Inserts `items` into `target` before index `at` (0 ≤ at ≤ length), in order. */
export function insertAll<T>(target: T[], at: number, items: readonly T[]): void {
  const n = items.length;
  if (n === 0) return;
  const oldLength = target.length;
  target.length = oldLength + n;
  target.copyWithin(at + n, at, oldLength);
  for (let i = 0; i < n; i++) target[at + i] = items[i] as T;
}

/** The least and the greatest of `values` (Math.min(...values) without the spread). */
export function minMax(values: readonly number[]): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
}
