// An external merge sort with bounded memory (mongod's Sorter, simplified): items are kept in
// memory until their approximate size passes the memory limit; then, if disk use is allowed,
// they are sorted and written out as one sorted run, and the next items start a new run. At
// the end the runs are merged k ways through a heap, in passes of at most `fanIn` runs so the
// read buffers stay bounded too. Ties keep input order: each run is sorted stably and runs are
// merged with earlier runs first. With a limit (top-k) only the first k items survive each
// run and the merge.

import { limits } from '../../limits.js';
import type { SpillFile, SpillScope } from './area.js';
import { RunReader, RunWriter } from './runs.js';
import type { Run } from './runs.js';

export interface RecordCodec<T> {
  encode(item: T): Uint8Array;
  decode(record: Uint8Array): T;
}

export interface ExternalSorterOptions<T> {
  readonly compare: (a: T, b: T) => number;
  /** Approximate memory an item holds. */
  readonly sizeOf: (item: T) => number;
  readonly codec: RecordCodec<T>;
  readonly memoryBytesMax: number;
  /** Keep only the first `limit` items. */
  readonly limit?: number | undefined;
  readonly allowDiskUse: boolean;
  /** Where runs go. Without one, a sort that may use the disk stays in memory. */
  readonly spill: SpillScope | undefined;
  /** Throws the caller's error when the memory limit is passed and disk use is not allowed. */
  readonly exceeded: (memoryBytesMax: number) => never;
  /** Called every so often during long merges (maxTimeMS). */
  readonly interrupt?: (() => void) | undefined;
}

export interface SorterStats {
  /** Runs written (mongod's `spills`). */
  spills: number;
  spilledRecords: number;
  /** Bytes written to spill files, merge passes included. */
  spilledBytes: number;
  /** Approximate bytes of every item added (mongod's totalDataSizeSorted). */
  totalDataSizeSorted: number;
}

/** The sorted output, pulled one item at a time; close() frees its files early. */
export interface SortedStream<T> {
  next(): T | undefined;
  close(): void;
}

/** How many runs one merge reads at once for a memory limit. */
export function mergeFanIn(memoryBytesMax: number): number {
  const byMemory = Math.floor(memoryBytesMax / limits.spillReadBufferBytes);
  return Math.max(limits.spillMergeFanInMin, Math.min(limits.spillMergeFanInMax, byMemory));
}

export class ExternalSorter<T> {
  readonly stats: SorterStats = {
    spills: 0,
    spilledRecords: 0,
    spilledBytes: 0,
    totalDataSizeSorted: 0,
  };
  private items: T[] = [];
  /** Where the items not yet sorted start; before it, sorted runs starting at `starts`. */
  private runStart = 0;
  private starts: number[] = [];
  private bytes = 0;
  private file: SpillFile | undefined;
  private writer: RunWriter | undefined;
  private runs: Run[] = [];

  constructor(private readonly options: ExternalSorterOptions<T>) {}

  get usedDisk(): boolean {
    return this.stats.spills > 0;
  }

  add(item: T): void {
    const { limit, memoryBytesMax } = this.options;
    this.items.push(item);
    const size = this.options.sizeOf(item);
    this.bytes += size;
    this.stats.totalDataSizeSorted += size;
    if (limit !== undefined && this.items.length > 2 * limit + 64) this.truncate(limit);
    else if (this.items.length - this.runStart >= limits.sortRunItemsMax) this.sortRun();
    if (this.bytes <= memoryBytesMax) return;
    // Over the limit: a top-k sort first drops what cannot make the top k, as mongod's does.
    if (limit !== undefined && this.items.length > limit) {
      this.truncate(limit);
      if (this.bytes <= memoryBytesMax) return;
    }
    if (!this.options.allowDiskUse) this.options.exceeded(memoryBytesMax);
    if (this.options.spill !== undefined) this.spillItems(this.options.spill);
  }

  /** Ends the input and returns the items in order. */
  finish(): SortedStream<T> {
    const spill = this.options.spill;
    if (this.runs.length === 0 || spill === undefined) {
      if (this.options.limit !== undefined) {
        this.sortItems();
        if (this.items.length > this.options.limit) this.items.length = this.options.limit;
      } else {
        // Sorted in runs as the items came (a few milliseconds each); merged as they are read.
        this.sortRun();
      }
      const items = this.items;
      const starts = this.starts;
      this.items = [];
      this.starts = [];
      this.runStart = 0;
      if (starts.length <= 1) {
        let i = 0;
        return {
          next: () => (i < items.length ? items[i++] : undefined),
          close: () => {
            i = items.length;
          },
        };
      }
      return new MemoryRunMerge(items, starts, this.options.compare);
    }
    if (this.items.length > 0) this.spillItems(spill);
    const fanIn = mergeFanIn(this.options.memoryBytesMax);
    let file = this.file as SpillFile;
    let runs = this.runs;
    while (runs.length > fanIn) {
      const next = spill.create();
      const writer = new RunWriter(next);
      const merged: Run[] = [];
      for (let i = 0; i < runs.length; i += fanIn) {
        const merge = new RunMerge(runs.slice(i, i + fanIn), this.options);
        let n = 0;
        for (
          let e = merge.next();
          e !== undefined && (this.options.limit === undefined || n < this.options.limit);
          e = merge.next()
        ) {
          writer.add(e.record);
          this.stats.spilledBytes += e.record.length;
          if ((++n & 1023) === 0) this.options.interrupt?.();
        }
        merged.push(writer.finishRun());
      }
      spill.drop(file);
      file = next;
      runs = merged;
    }
    this.runs = [];
    this.file = undefined;
    this.writer = undefined;
    return new MergedStream(new RunMerge(runs, this.options), this.options.limit, () =>
      spill.drop(file),
    );
  }

  /** Sorts the items added since the last run into a run of their own. */
  private sortRun(): void {
    const from = this.runStart;
    const n = this.items.length - from;
    if (n > 1) {
      // Array.prototype.sort is stable, so equal items keep their input order.
      const run = this.items.slice(from).sort(this.options.compare);
      for (let i = 0; i < n; i++) this.items[from + i] = run[i] as T;
    }
    if (n > 0) this.starts.push(from);
    this.runStart = this.items.length;
  }

  /** Puts every item in order (runs merged, the rest sorted). */
  private sortItems(): void {
    this.sortRun();
    if (this.starts.length > 1) {
      const merge = new MemoryRunMerge(this.items, this.starts, this.options.compare);
      const out: T[] = [];
      for (let item = merge.next(); item !== undefined; item = merge.next()) out.push(item);
      this.items = out;
    }
    this.starts = this.items.length > 0 ? [0] : [];
    this.runStart = this.items.length;
  }

  private truncate(limit: number): void {
    this.sortItems();
    this.items.length = limit;
    this.starts = limit > 0 ? [0] : [];
    this.runStart = limit;
    this.bytes = 0;
    for (const item of this.items) this.bytes += this.options.sizeOf(item);
  }

  private spillItems(spill: SpillScope): void {
    this.sortItems();
    const { limit, codec } = this.options;
    const n = limit === undefined ? this.items.length : Math.min(limit, this.items.length);
    if (this.writer === undefined) {
      this.file = spill.create();
      this.writer = new RunWriter(this.file);
    }
    for (let i = 0; i < n; i++) {
      const record = codec.encode(this.items[i] as T);
      this.writer.add(record);
      this.stats.spilledBytes += record.length;
    }
    this.runs.push(this.writer.finishRun());
    this.stats.spills++;
    this.stats.spilledRecords += n;
    this.items = [];
    this.starts = [];
    this.runStart = 0;
    this.bytes = 0;
  }
}

interface HeapEntry<T> {
  readonly item: T;
  readonly record: Uint8Array;
  readonly source: number;
}

/** A k-way merge of runs through a binary min-heap; ties go to the earlier run. */
class RunMerge<T> {
  private readonly readers: RunReader[];
  private readonly heap: Array<HeapEntry<T>> = [];

  constructor(
    runs: readonly Run[],
    private readonly options: Pick<ExternalSorterOptions<T>, 'compare' | 'codec'>,
  ) {
    this.readers = runs.map((r) => new RunReader(r));
    this.readers.forEach((_, i) => this.pull(i));
  }

  next(): HeapEntry<T> | undefined {
    const top = this.heap[0];
    if (top === undefined) return undefined;
    const last = this.heap.pop() as HeapEntry<T>;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.siftDown(0);
    }
    this.pull(top.source);
    return top;
  }

  private pull(source: number): void {
    const record = (this.readers[source] as RunReader).next();
    if (record === undefined) return;
    this.heap.push({ item: this.options.codec.decode(record), record, source });
    this.siftUp(this.heap.length - 1);
  }

  private less(a: HeapEntry<T>, b: HeapEntry<T>): boolean {
    const c = this.options.compare(a.item, b.item);
    return c < 0 || (c === 0 && a.source < b.source);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(heap[i] as HeapEntry<T>, heap[parent] as HeapEntry<T>)) return;
      [heap[i], heap[parent]] = [heap[parent] as HeapEntry<T>, heap[i] as HeapEntry<T>];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && this.less(heap[l] as HeapEntry<T>, heap[m] as HeapEntry<T>)) m = l;
      if (r < heap.length && this.less(heap[r] as HeapEntry<T>, heap[m] as HeapEntry<T>)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as HeapEntry<T>, heap[i] as HeapEntry<T>];
      i = m;
    }
  }
}

class MergedStream<T> implements SortedStream<T> {
  private returned = 0;
  private closed = false;

  constructor(
    private readonly merge: RunMerge<T>,
    private readonly limit: number | undefined,
    private readonly release: () => void,
  ) {}

  next(): T | undefined {
    if (this.closed) return undefined;
    const e =
      this.limit !== undefined && this.returned >= this.limit ? undefined : this.merge.next();
    if (e === undefined) {
      this.close();
      return undefined;
    }
    this.returned++;
    return e.item;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release();
  }
}

/**
 * The k-way merge of sorted runs held in one array (each from its start to the next's),
 * through a binary heap of run positions; ties go to the earlier run, so the merge
 * is stable. Each item read costs log2(runs) comparisons, so no single step sorts much.
 */
class MemoryRunMerge<T> implements SortedStream<T> {
  /** Per heap slot: the position in `items` of that run's next item. */
  private readonly heap: number[] = [];
  /** Per heap slot: where that run ends. */
  private readonly ends: number[] = [];

  constructor(
    private items: readonly T[],
    starts: readonly number[],
    private readonly compare: (a: T, b: T) => number,
  ) {
    starts.forEach((start, i) => {
      const end = starts[i + 1] ?? items.length;
      if (start < end) this.push(start, end);
    });
  }

  next(): T | undefined {
    if (this.heap.length === 0) return undefined;
    const at = this.heap[0] as number;
    const end = this.ends[0] as number;
    const item = this.items[at] as T;
    if (at + 1 < end) {
      this.heap[0] = at + 1;
    } else {
      const lastAt = this.heap.pop() as number;
      const lastEnd = this.ends.pop() as number;
      if (this.heap.length === 0) return item;
      this.heap[0] = lastAt;
      this.ends[0] = lastEnd;
    }
    this.siftDown(0);
    return item;
  }

  close(): void {
    this.heap.length = 0;
    this.ends.length = 0;
    this.items = [];
  }

  private push(at: number, end: number): void {
    this.heap.push(at);
    this.ends.push(end);
    let i = this.heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Slot a before slot b: a smaller item, or an equal one from an earlier run. */
  private less(a: number, b: number): boolean {
    const pa = this.heap[a] as number;
    const pb = this.heap[b] as number;
    const c = this.compare(this.items[pa] as T, this.items[pb] as T);
    return c < 0 || (c === 0 && pa < pb);
  }

  private swap(a: number, b: number): void {
    const h = this.heap;
    const e = this.ends;
    [h[a], h[b]] = [h[b] as number, h[a] as number];
    [e[a], e[b]] = [e[b] as number, e[a] as number];
  }

  private siftDown(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
