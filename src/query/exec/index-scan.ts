// IXSCAN: walks an index over byte ranges built from the planner's bounds, and OR: the union
// of several index scans. Both produce index entries (KeySource), not documents; FETCH (or a
// covered projection) turns them into rows.
//
// Like the other leaf stages, an index scan remembers the last stored key it returned and
// re-seeks past it when the next batch hands it a new snapshot. The plan relied on the
// index's state (multikey paths, long keys) as of the snapshot it was planned on; if a later
// snapshot shows a different state, results could be wrong (a covered projection of a field
// that became an array, bounds intersected on a now multikey field), so the scan stops the
// query with QueryPlanKilled instead.

import { Int32 } from 'bson';
import { keyPartsLength, keyPrefixUpperBound, encodeKey } from '../../bson/keystring.js';
import type { KeyDirection } from '../../bson/keystring.js';
import type { BsonValue } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { ReadView } from '../../storage/engine.js';
import { widenForTruncatedKeys } from '../../catalog/index-access.js';
import type { IndexAccess, IndexEntry, IndexState } from '../../catalog/index-access.js';
import type { RecordId } from '../../catalog/record-id.js';
import type { StageStats } from './stages.js';
import { NEED_TIME, sliceDue } from './yield.js';
import type { NeedTime } from './yield.js';

/** Index entries, for FETCH, OR and covered projections. */
export interface KeySource {
  readonly stats: StageStats;
  /** The next entry, undefined at the end, or NEED_TIME (see yield.ts). */
  nextEntry(view: ReadView): IndexEntry | undefined | NeedTime;
}

/** One interval of one field's encoded values, in byte order. */
export interface ByteInterval {
  readonly lo: Uint8Array;
  readonly loInclusive: boolean;
  readonly hi: Uint8Array;
  readonly hiInclusive: boolean;
}

/** Stored keys in [start, end) (end absent: to the last key). */
export interface ByteRange {
  readonly start: Uint8Array;
  readonly end: Uint8Array | undefined;
}

/** A field whose bounds the ranges do not express: checked on each key. */
export interface ResidualCheck {
  readonly field: number;
  readonly intervals: readonly ByteInterval[];
}

export interface IndexScanPlan {
  readonly ranges: readonly ByteRange[];
  readonly residual: readonly ResidualCheck[];
}

/** Encoded value intervals of a field → byte intervals in ascending byte order. */
export function byteIntervals(
  intervals: ReadonlyArray<{
    low: { value: BsonValue; inclusive: boolean };
    high: { value: BsonValue; inclusive: boolean };
  }>,
  direction: KeyDirection,
): ByteInterval[] {
  const enc = (v: BsonValue): Uint8Array => encodeKey([v], [direction]);
  const out = intervals.map((iv) => {
    // A point (an $in value) is encoded once for both ends.
    if (iv.low.value === iv.high.value && iv.low.inclusive && iv.high.inclusive) {
      const bytes = enc(iv.low.value);
      return { lo: bytes, loInclusive: true, hi: bytes, hiInclusive: true };
    }
    return direction === 1
      ? {
          lo: enc(iv.low.value),
          loInclusive: iv.low.inclusive,
          hi: enc(iv.high.value),
          hiInclusive: iv.high.inclusive,
        }
      : {
          lo: enc(iv.high.value),
          loInclusive: iv.high.inclusive,
          hi: enc(iv.low.value),
          hiInclusive: iv.low.inclusive,
        };
  });
  return direction === 1 ? out : out.reverse();
}

function isBytePoint(iv: ByteInterval): boolean {
  return iv.loInclusive && iv.hiInclusive && Buffer.compare(iv.lo, iv.hi) === 0;
}

function isFullBytes(list: readonly ByteInterval[], direction: KeyDirection): boolean {
  if (list.length !== 1) return false;
  const iv = list[0] as ByteInterval;
  const [min, max] = direction === 1 ? [0x08, 0xf0] : [0x0f, 0xf7];
  return (
    iv.loInclusive &&
    iv.hiInclusive &&
    iv.lo.length === 1 &&
    iv.lo[0] === min &&
    iv.hi.length === 1 &&
    iv.hi[0] === max
  );
}

/** A fresh Uint8Array (not a Buffer: keyPrefixUpperBound's slice must copy, not alias). */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Byte ranges for per-field byte intervals: the leading fields bounded by points multiply out
 * into prefixes (at most limits.indexScanRangesMax ranges), the next field's intervals become
 * each range's ends, and bounded fields after it are checked key by key.
 */
export function planRanges(
  fields: readonly ByteInterval[][],
  directions: readonly KeyDirection[],
): IndexScanPlan {
  if (fields.some((f) => f.length === 0)) return { ranges: [], residual: [] };
  let k = 0;
  let product = 1;
  while (
    k < fields.length &&
    (fields[k] as ByteInterval[]).every(isBytePoint) &&
    product * (fields[k] as ByteInterval[]).length <= limits.indexScanRangesMax
  ) {
    product *= (fields[k] as ByteInterval[]).length;
    k++;
  }
  let prefixes: Uint8Array[][] = [[]];
  for (let i = 0; i < k; i++) {
    const next: Uint8Array[][] = [];
    for (const p of prefixes)
      for (const iv of fields[i] as ByteInterval[]) next.push([...p, iv.lo]);
    prefixes = next;
  }
  const ranges: ByteRange[] = [];
  const residual: ResidualCheck[] = [];
  if (k === fields.length) {
    for (const p of prefixes) {
      const start = concat(p);
      ranges.push({ start, end: keyPrefixUpperBound(start) });
    }
  } else {
    const field = fields[k] as ByteInterval[];
    if (prefixes.length * field.length <= limits.indexScanRangesMax) {
      for (const p of prefixes) {
        for (const iv of field) {
          const lo = concat([...p, iv.lo]);
          const hi = concat([...p, iv.hi]);
          ranges.push({
            start: iv.loInclusive ? lo : (keyPrefixUpperBound(lo) ?? new Uint8Array([0xff])),
            end: iv.hiInclusive ? keyPrefixUpperBound(hi) : hi,
          });
        }
      }
    } else {
      // Too many: one range per prefix over the field's whole span, the field checked per key.
      const first = field[0] as ByteInterval;
      const last = field[field.length - 1] as ByteInterval;
      for (const p of prefixes)
        ranges.push({
          start: concat([...p, first.lo]),
          end: keyPrefixUpperBound(concat([...p, last.hi])),
        });
      residual.push({ field: k, intervals: field });
    }
  }
  for (let j = k + 1; j < fields.length; j++) {
    const list = fields[j] as ByteInterval[];
    if (!isFullBytes(list, directions[j] ?? 1)) residual.push({ field: j, intervals: list });
  }
  return { ranges, residual };
}

/**
 * Whether a key part falls in one of a field's byte intervals (ascending and disjoint, as
 * byteIntervals makes them from normalized bounds): a binary search, so a residual check of
 * a 100,000-value $in costs ~17 comparisons per key.
 */
export function inIntervals(part: Uint8Array, list: readonly ByteInterval[]): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const iv = list[mid] as ByteInterval;
    const c = Buffer.compare(part, iv.lo);
    if (c < 0 || (c === 0 && !iv.loInclusive)) {
      hi = mid - 1;
      continue;
    }
    const d = Buffer.compare(part, iv.hi);
    if (d < 0 || (d === 0 && iv.hiInclusive)) return true;
    lo = mid + 1;
  }
  return false;
}

export interface IndexScanOptions {
  readonly index: IndexAccess;
  readonly plan: IndexScanPlan;
  readonly reverse: boolean;
  /** Drop entries of a RecordId already returned (multikey indexes). */
  readonly dedup: boolean;
  /** The index state the plan was made for. */
  readonly state: IndexState;
  /** keyPattern, indexName, bounds, ... as explain shows them (computed when explain asks). */
  readonly explain: () => Record<string, BsonValue>;
}

export class IndexScanStage implements KeySource {
  readonly stats: StageStats;
  private readonly widen: boolean;
  private readonly dedup: boolean;
  private readonly seen = new Set<RecordId>();
  private rangeIndex = 0;
  private iter: Iterator<IndexEntry> | undefined;
  private boundView: ReadView | undefined;
  private last: Uint8Array | undefined;
  private done = false;
  private seeks = 0;
  private dupsTested = 0;
  private dupsDropped = 0;

  constructor(private readonly options: IndexScanOptions) {
    this.widen = options.state.hasTruncatedKeys;
    this.dedup = options.dedup || this.widen;
    this.stats = {
      stage: 'IXSCAN',
      nReturned: 0,
      works: 0,
      keysExamined: 0,
      children: [],
      // The key pattern is what a plan summary (slow-query line, profiler) reads: known now,
      // while the rest (bounds of a 20k-value $in formatted) is built only if explain asks.
      extra: lazyExtra(options.explain, () => this.runtimeExtra(), {
        keyPattern: options.index.meta.key,
      }),
    };
  }

  private range(): ByteRange | undefined {
    const ranges = this.options.plan.ranges;
    const i = this.options.reverse ? ranges.length - 1 - this.rangeIndex : this.rangeIndex;
    return ranges[i];
  }

  private checkState(view: ReadView): void {
    const now = this.options.index.readState(view);
    const then = this.options.state;
    const same =
      now.hasTruncatedKeys === then.hasTruncatedKeys &&
      now.multikeyPaths.every((p, i) => {
        const q = then.multikeyPaths[i] ?? [];
        return p.length === q.length && p.every((c, j) => c === q[j]);
      });
    if (!same) {
      throw new CommandError(
        ErrorCode.QueryPlanKilled,
        `query plan killed :: caused by :: index '${this.options.index.meta.name}' changed (became multikey or got a long key) while the query ran`,
      );
    }
  }

  private residualOk(key: Uint8Array): boolean {
    const residual = this.options.plan.residual;
    if (residual.length === 0) return true;
    const dirs = this.options.index.directions;
    const maxField = residual.reduce((m, r) => Math.max(m, r.field), 0);
    const parts: Uint8Array[] = [];
    let pos = 0;
    for (let f = 0; f <= maxField; f++) {
      const len = keyPartsLength(key.subarray(pos), [dirs[f] ?? 1]);
      parts.push(key.subarray(pos, pos + len));
      pos += len;
    }
    for (const r of residual) {
      if (!inIntervals(parts[r.field] as Uint8Array, r.intervals)) return false;
    }
    return true;
  }

  nextEntry(view: ReadView): IndexEntry | undefined | NeedTime {
    if (this.done) return undefined;
    if (view !== this.boundView) {
      if (this.boundView !== undefined) this.checkState(view);
      this.boundView = view;
      this.iter = undefined;
    }
    for (;;) {
      const range = this.range();
      if (range === undefined) {
        this.done = true;
        return undefined;
      }
      if (this.iter === undefined) {
        this.seeks++;
        const scanRange = this.widen ? widenForTruncatedKeys(range) : range;
        const entries = this.options.index.scan(view, scanRange, this.options.reverse, this.last);
        this.iter = entries[Symbol.iterator]();
      }
      const r = this.iter.next();
      if (r.done === true) {
        this.rangeIndex++;
        this.iter = undefined;
        this.last = undefined;
        if (sliceDue()) return NEED_TIME;
        continue;
      }
      const e = r.value;
      this.last = e.storedKey;
      this.stats.works++;
      this.stats.keysExamined = (this.stats.keysExamined ?? 0) + 1;
      if (!e.truncated) {
        if (
          (this.widen &&
            (Buffer.compare(e.storedKey, range.start) < 0 ||
              (range.end !== undefined && Buffer.compare(e.storedKey, range.end) >= 0))) ||
          !this.residualOk(e.key)
        ) {
          if (sliceDue()) return NEED_TIME;
          continue;
        }
      }
      if (this.dedup) {
        this.dupsTested++;
        if (this.seen.has(e.recordId)) {
          this.dupsDropped++;
          if (sliceDue()) return NEED_TIME;
          continue;
        }
        this.seen.add(e.recordId);
      }
      this.stats.nReturned++;
      return e;
    }
  }

  private runtimeExtra(): Record<string, BsonValue> {
    return {
      seeks: new Int32(this.seeks),
      dupsTested: new Int32(this.dupsTested),
      dupsDropped: new Int32(this.dupsDropped),
    };
  }
}

/**
 * A stage's explain parameters, built on first read: formatting bounds and filters costs more
 * than a point query, and only explain reads them. Later assignments (a covered scan's
 * filter) are kept; the runtime counters are read fresh each time.
 */
export function lazyExtra(
  make: () => Record<string, BsonValue>,
  runtime?: () => Record<string, BsonValue>,
  known?: Readonly<Record<string, BsonValue>>,
): Record<string, BsonValue> {
  let built: Record<string, BsonValue> | undefined;
  const assigned: Record<string, BsonValue> = {};
  const current = (): Record<string, BsonValue> => {
    built ??= make();
    return { ...built, ...assigned, ...(runtime?.() ?? {}) };
  };
  return new Proxy(assigned, {
    get: (_t, key) => {
      if (typeof key !== 'string') return undefined;
      // A field known up front is read without building the rest (`make` gives the same value).
      if (built === undefined && known !== undefined && Object.hasOwn(known, key))
        return Object.hasOwn(assigned, key) ? assigned[key] : known[key];
      return current()[key];
    },
    set: (_t, key, value: BsonValue) => {
      if (typeof key === 'string') assigned[key] = value;
      return true;
    },
    has: (_t, key) => typeof key === 'string' && key in current(),
    ownKeys: () => Object.keys(current()),
    getOwnPropertyDescriptor: (_t, key) => {
      if (typeof key !== 'string') return undefined;
      const all = current();
      return key in all
        ? { value: all[key], enumerable: true, configurable: true, writable: true }
        : undefined;
    },
  });
}

/** OR: the entries of several scans, each RecordId once (mongod's OR stage with dedup). */
export class OrStage implements KeySource {
  readonly stats: StageStats;
  private readonly seen = new Set<RecordId>();
  private current = 0;
  private dupsTested = 0;
  private dupsDropped = 0;

  constructor(private readonly children: readonly KeySource[]) {
    this.stats = {
      stage: 'OR',
      nReturned: 0,
      works: 0,
      children: children.map((c) => c.stats),
      extra: {},
    };
  }

  nextEntry(view: ReadView): IndexEntry | undefined | NeedTime {
    for (;;) {
      const child = this.children[this.current];
      if (child === undefined) return undefined;
      const e = child.nextEntry(view);
      if (e === NEED_TIME) return e;
      if (e === undefined) {
        this.current++;
        continue;
      }
      this.stats.works++;
      this.dupsTested++;
      const extra = this.stats.extra as Record<string, BsonValue>;
      extra['dupsTested'] = new Int32(this.dupsTested);
      if (this.seen.has(e.recordId)) {
        this.dupsDropped++;
        extra['dupsDropped'] = new Int32(this.dupsDropped);
        if (sliceDue()) return NEED_TIME;
        continue;
      }
      extra['dupsDropped'] = new Int32(this.dupsDropped);
      this.seen.add(e.recordId);
      this.stats.nReturned++;
      return e;
    }
  }
}
