// ScanOptions normalised once, so that every engine and the write overlay agree on what a
// bound means (defaults: start inclusive, end exclusive; `reverse` keeps the bounds' meaning).

import type { Bytes, ScanOptions } from './engine.js';
import { compareBytes } from './bytes.js';

export interface KeyRange {
  readonly lo: Bytes | undefined;
  readonly loInclusive: boolean;
  readonly hi: Bytes | undefined;
  readonly hiInclusive: boolean;
  readonly reverse: boolean;
}

export const fullRange: KeyRange = {
  lo: undefined,
  loInclusive: true,
  hi: undefined,
  hiInclusive: false,
  reverse: false,
};

export function toKeyRange(options: ScanOptions | undefined): KeyRange {
  if (options === undefined) return fullRange;
  return {
    lo: options.start,
    loInclusive: options.startInclusive ?? true,
    hi: options.end,
    hiInclusive: options.endInclusive ?? false,
    reverse: options.reverse ?? false,
  };
}

/** True when no key can satisfy both bounds (lets engines skip opening a cursor). */
export function isEmptyRange(r: KeyRange): boolean {
  if (r.lo === undefined || r.hi === undefined) return false;
  const c = compareBytes(r.lo, r.hi);
  return c > 0 || (c === 0 && !(r.loInclusive && r.hiInclusive));
}

export function aboveLo(key: Bytes, r: KeyRange): boolean {
  if (r.lo === undefined) return true;
  const c = compareBytes(key, r.lo);
  return c > 0 || (c === 0 && r.loInclusive);
}

export function belowHi(key: Bytes, r: KeyRange): boolean {
  if (r.hi === undefined) return true;
  const c = compareBytes(key, r.hi);
  return c < 0 || (c === 0 && r.hiInclusive);
}

export function inRange(key: Bytes, r: KeyRange): boolean {
  return aboveLo(key, r) && belowHi(key, r);
}

/**
 * The same range with bounds longer than `maxKeyBytes` shortened to that length, for
 * engines that cannot take longer keys even as bounds. Exact for stored keys, which are
 * never longer than the limit: with p = lo[0, max), a stored key k is >= lo (or > lo) iff
 * k > p, and with p = hi[0, max), k is <= hi (or < hi) iff k <= p.
 */
export function clampRange(r: KeyRange, maxKeyBytes: number): KeyRange {
  const longLo = r.lo !== undefined && r.lo.length > maxKeyBytes;
  const longHi = r.hi !== undefined && r.hi.length > maxKeyBytes;
  if (!longLo && !longHi) return r;
  return {
    lo: longLo ? r.lo?.subarray(0, maxKeyBytes) : r.lo,
    loInclusive: longLo ? false : r.loInclusive,
    hi: longHi ? r.hi?.subarray(0, maxKeyBytes) : r.hi,
    hiInclusive: longHi ? true : r.hiInclusive,
    reverse: r.reverse,
  };
}
