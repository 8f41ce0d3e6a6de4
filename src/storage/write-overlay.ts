// A write transaction as a buffer of writes over a read-only base view.
//
// Engines whose own transactions cannot be rolled back piecemeal (lmdb: many of our
// transactions share one LMDB commit, and one callback's failure must not abort the others)
// run the callback against this overlay and apply the buffered writes only once it has
// returned. Reads merge the overlay with the base: own puts shadow, own deletes hide, a
// cleared table hides the whole base table.
//
// Scans see the transaction as it was when scan() was called: the overlay's sorted map is
// persistent (../btree.ts), so the cursor keeps the version it started on while later puts
// copy-on-write. The base does not change during the callback, so the merge is stable.

import type { Bytes, Entry, ScanOptions, WriteTxn } from './engine.js';
import { compareBytes, copyBytes } from './bytes.js';
import type { TreeCursor } from './btree.js';
import { SortedMap } from './btree.js';
import { isEmptyRange, toKeyRange, type KeyRange } from './key-range.js';
import { checkKey, checkTableName, checkValue, useAfterEnd } from './validate.js';

/** What the overlay reads through to: the committed state plus earlier transactions of the batch. */
export interface BaseReader {
  get(table: string, key: Bytes): Bytes | undefined;
  /** Entries of `range` in its direction. Lazy; `return()` releases whatever it holds. */
  scan(table: string, range: KeyRange): Iterator<Entry>;
  count(table: string): number;
}

/** A buffered delete. */
export const tombstone = null;
export type BufferedValue = Bytes | typeof tombstone;

export interface TableWrites {
  /** clearTable was called: the base table is hidden, `entries` hold what came after. */
  cleared: boolean;
  /** Puts (bytes) and deletes (tombstone) in key order. */
  readonly entries: SortedMap<Bytes, BufferedValue>;
}

export class OverlayTxn implements WriteTxn {
  /** Buffered writes per table, for the engine to apply once the callback has returned. */
  readonly tables = new Map<string, TableWrites>();
  private ended = false;
  /**
   * Base cursors of unfinished scans, closed when the transaction ends. The scans themselves
   * stay suspended, so resuming one afterwards throws instead of quietly ending.
   */
  private readonly openBases = new Set<Iterator<Entry>>();

  constructor(
    private readonly base: BaseReader,
    readonly seq: number,
    private readonly maxKeyBytes: number,
  ) {}

  /** Close the transaction: later use throws, unfinished scans release their base cursors. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const base of this.openBases) base.return?.();
    this.openBases.clear();
  }

  private live(): void {
    if (this.ended) throw useAfterEnd('write transaction');
  }

  private writesFor(table: string): TableWrites {
    let w = this.tables.get(table);
    if (w === undefined) {
      w = { cleared: false, entries: new SortedMap<Bytes, BufferedValue>(compareBytes) };
      this.tables.set(table, w);
    }
    return w;
  }

  get(table: string, key: Bytes): Bytes | undefined {
    this.live();
    const w = this.tables.get(table);
    if (w !== undefined) {
      const v = w.entries.get(key);
      if (v !== undefined) return v === tombstone ? undefined : v;
      if (w.cleared) return undefined;
    }
    // A key longer than the limit was never stored (put refuses it); the base need not see it.
    if (key.length > this.maxKeyBytes) return undefined;
    return this.base.get(table, key);
  }

  put(table: string, key: Bytes, value: Bytes): void {
    this.live();
    checkTableName(table);
    checkKey(key, this.maxKeyBytes);
    checkValue(value);
    // Private copies: the caller may reuse its buffers before the engine applies them.
    this.writesFor(table).entries.set(copyBytes(key), copyBytes(value));
  }

  delete(table: string, key: Bytes): boolean {
    this.live();
    checkTableName(table);
    if (this.get(table, key) === undefined) return false;
    this.writesFor(table).entries.set(copyBytes(key), tombstone);
    return true;
  }

  clearTable(table: string): void {
    this.live();
    checkTableName(table);
    const w = this.writesFor(table);
    w.cleared = true;
    w.entries.clear();
  }

  scan(table: string, options?: ScanOptions): IterableIterator<Entry> {
    this.live();
    const range = toKeyRange(options);
    const w = this.tables.get(table);
    // Taken now, so the scan sees this transaction's writes up to this call and no later.
    const own = w === undefined || isEmptyRange(range) ? undefined : w.entries.cursor(range);
    const readBase = !(w?.cleared ?? false);
    return this.merge(table, range, own, readBase);
  }

  private *merge(
    table: string,
    range: KeyRange,
    own: TreeCursor<Bytes, BufferedValue> | undefined,
    readBase: boolean,
  ): Generator<Entry, void, undefined> {
    // The base cursor is opened on first next(), so a scan never started holds nothing.
    this.live();
    const base = readBase && !isEmptyRange(range) ? this.base.scan(table, range) : undefined;
    if (base !== undefined) this.openBases.add(base);
    const dir = range.reverse ? -1 : 1;
    try {
      let b = base?.next();
      let o = own?.next() ?? false;
      for (;;) {
        const haveBase = b !== undefined && b.done !== true;
        if (!haveBase && !o) return;
        let c: number;
        if (!haveBase) c = 1;
        else if (!o) c = -1;
        else
          c =
            compareBytes(
              (b as IteratorYieldResult<Entry>).value.key,
              (own as TreeCursor<Bytes, BufferedValue>).key as Bytes,
            ) * dir;
        if (c < 0) {
          yield (b as IteratorYieldResult<Entry>).value;
          this.live(); // before touching the base again: it is closed once the txn ends
          b = base?.next();
          continue;
        }
        // The overlay entry comes first or shadows the base entry with the same key.
        const cursor = own as TreeCursor<Bytes, BufferedValue>;
        const value = cursor.value;
        const key = cursor.key as Bytes;
        o = cursor.next();
        if (value !== tombstone && value !== undefined) {
          yield { key, value };
          this.live();
        }
        if (c === 0) b = base?.next();
      }
    } finally {
      if (base !== undefined && this.openBases.delete(base)) base.return?.();
    }
  }

  count(table: string): number {
    this.live();
    const w = this.tables.get(table);
    if (w === undefined) return this.base.count(table);
    let n = w.cleared ? 0 : this.base.count(table);
    const cursor = w.entries.cursor(toKeyRange(undefined));
    while (cursor.next()) {
      const inBase = !w.cleared && this.base.get(table, cursor.key as Bytes) !== undefined;
      if (cursor.value === tombstone) {
        if (inBase) n--;
      } else if (!inBase) n++;
    }
    return n;
  }
}
