// Table sizes for engines that cannot count bytes as they write (lmdb): exact for small tables,
// estimated for large ones from a sample of entries read at evenly spaced positions of the key
// space. Positions are found by interpolating the key bytes after the prefix the first and last
// keys share, which spreads the sample well over RecordIds and index keys alike.

import { limits } from '../limits.js';
import type { Bytes, ReadView, Snapshot, TableSize } from './engine.js';

const emptySize: TableSize = { entries: 0, keyBytes: 0, valueBytes: 0 };

/** Places the sample is read from, each giving sampleEntries / samplePositions entries. */
const samplePositions = 16;
/** Key bytes interpolated past the shared prefix (48 bits stay exact in a double). */
const interpolatedBytes = 6;

function keyNumber(key: Bytes, from: number): number {
  let n = 0;
  for (let i = 0; i < interpolatedBytes; i++) n = n * 256 + (key[from + i] ?? 0);
  return n;
}

function keyAt(prefix: Bytes, n: number): Uint8Array {
  const out = new Uint8Array(prefix.length + interpolatedBytes);
  out.set(prefix);
  let x = Math.floor(n);
  for (let i = interpolatedBytes - 1; i >= 0; i--) {
    out[prefix.length + i] = x % 256;
    x = Math.floor(x / 256);
  }
  return out;
}

function sharedPrefixLength(a: Bytes, b: Bytes): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** The size of `table` as `view` sees it. */
export function measureTable(
  view: ReadView,
  table: string,
  sampleEntries: number = limits.tableSizeSampleEntries,
): TableSize {
  const entries = view.count(table);
  if (entries === 0) return emptySize;
  if (entries <= sampleEntries) {
    let keyBytes = 0;
    let valueBytes = 0;
    for (const e of view.scan(table)) {
      keyBytes += e.key.length;
      valueBytes += e.value.length;
    }
    return { entries, keyBytes, valueBytes };
  }
  const first = view.scan(table).next();
  const last = view.scan(table, { reverse: true }).next();
  if (first.done === true || last.done === true) return emptySize;
  const shared = sharedPrefixLength(first.value.key, last.value.key);
  const prefix = first.value.key.subarray(0, shared);
  const lo = keyNumber(first.value.key, shared);
  const hi = keyNumber(last.value.key, shared);
  const perPosition = Math.max(1, Math.floor(sampleEntries / samplePositions));
  let n = 0;
  let keyBytes = 0;
  let valueBytes = 0;
  for (let p = 0; p < samplePositions; p++) {
    const start = keyAt(prefix, lo + ((hi - lo) * p) / samplePositions);
    let taken = 0;
    for (const e of view.scan(table, { start })) {
      keyBytes += e.key.length;
      valueBytes += e.value.length;
      n++;
      if (++taken >= perPosition) break;
    }
  }
  if (n === 0) return { entries, keyBytes: 0, valueBytes: 0 };
  return {
    entries,
    keyBytes: Math.round((keyBytes / n) * entries),
    valueBytes: Math.round((valueBytes / n) * entries),
  };
}

/**
 * Table sizes measured at a commit (measureTable on a fresh snapshot), reused while the
 * engine's committed seq stays the same; at most limits.tableSizeCacheEntriesMax tables.
 */
export class TableSizeCache {
  private readonly sizes = new Map<string, { seq: number; size: TableSize }>();

  constructor(private readonly snapshot: () => Snapshot) {}

  sizeOf(table: string, seq: number): TableSize {
    const cached = this.sizes.get(table);
    if (cached !== undefined && cached.seq === seq) return cached.size;
    const snap = this.snapshot();
    try {
      const size = measureTable(snap, table);
      if (this.sizes.size >= limits.tableSizeCacheEntriesMax) this.sizes.clear();
      this.sizes.set(table, { seq, size });
      return size;
    } finally {
      snap.release();
    }
  }

  /** Forget every size (the committed seq went back: a failed commit). */
  clear(): void {
    this.sizes.clear();
  }
}
