// A write transaction that wraps another: reads go straight to the inner transaction, and a
// subclass decides what each write does around the inner one (record it, check it, log it).

import type { Bytes, Entry, ScanOptions, WriteTxn } from './engine.js';

export abstract class DelegatingWriteTxn implements WriteTxn {
  constructor(protected readonly inner: WriteTxn) {}

  get seq(): number {
    return this.inner.seq;
  }
  get(table: string, key: Bytes): Bytes | undefined {
    return this.inner.get(table, key);
  }
  scan(table: string, options?: ScanOptions): IterableIterator<Entry> {
    return this.inner.scan(table, options);
  }
  count(table: string): number {
    return this.inner.count(table);
  }

  abstract put(table: string, key: Bytes, value: Bytes): void;
  abstract delete(table: string, key: Bytes): boolean;
  abstract clearTable(table: string): void;
}
