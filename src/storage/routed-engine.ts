// Two engines seen as one for reading: the tables named in `routed` live in a second engine
// (for --oplog-nonlogged, the oplog in an LMDB environment that commits without fsync), every
// other table in the main one. Snapshots read each table from its engine; the second
// engine's snapshot is taken on first use, so reads that never touch a routed table cost
// nothing more. Write transactions go to the main engine only: whoever owns a routed table
// writes it through the second engine directly (no transaction spans both engines); the
// oplog, the only user, never writes its table inside a main-engine transaction then.

import type {
  Bytes,
  EngineStats,
  Entry,
  ScanOptions,
  Snapshot,
  EngineName,
  StorageEngine,
  TableImage,
  TableSize,
  WriteOptions,
  WriteTxn,
} from './engine.js';

class RoutedSnapshot implements Snapshot {
  private side: Snapshot | undefined;
  private released = false;

  constructor(
    private readonly main: Snapshot,
    private readonly sideEngine: StorageEngine,
    private readonly routed: ReadonlySet<string>,
  ) {}

  get seq(): number {
    return this.main.seq;
  }

  private viewFor(table: string): Snapshot {
    if (!this.routed.has(table)) return this.main;
    if (this.released) return this.main; // reports use-after-release as the main snapshot does
    this.side ??= this.sideEngine.snapshot();
    return this.side;
  }

  get(table: string, key: Bytes): Bytes | undefined {
    return this.viewFor(table).get(table, key);
  }
  scan(table: string, options?: ScanOptions): IterableIterator<Entry> {
    return this.viewFor(table).scan(table, options);
  }
  count(table: string): number {
    return this.viewFor(table).count(table);
  }
  exportTable(table: string): TableImage | undefined {
    return this.viewFor(table).exportTable?.(table);
  }
  release(): void {
    this.released = true;
    this.side?.release();
    this.side = undefined;
    this.main.release();
  }
}

export class RoutedEngine implements StorageEngine {
  private readonly routed: ReadonlySet<string>;

  constructor(
    readonly main: StorageEngine,
    /** The engine that holds the routed tables. */
    readonly side: StorageEngine,
    routed: readonly string[],
  ) {
    this.routed = new Set(routed);
  }

  get name(): EngineName {
    return this.main.name;
  }
  get persistent(): boolean {
    return this.main.persistent;
  }
  get maxKeyBytes(): number {
    return this.main.maxKeyBytes;
  }
  get committedSeq(): number {
    return this.main.committedSeq;
  }
  snapshot(): Snapshot {
    return new RoutedSnapshot(this.main.snapshot(), this.side, this.routed);
  }
  write<T>(fn: (txn: WriteTxn) => T, options: WriteOptions): Promise<T> {
    return this.main.write(fn, options);
  }
  async flush(): Promise<void> {
    await Promise.all([this.main.flush(), this.side.flush()]);
  }
  tableSize(table: string): TableSize {
    return (this.routed.has(table) ? this.side : this.main).tableSize(table);
  }

  stats(): EngineStats {
    return {
      storageSizeBytes: this.main.stats().storageSizeBytes + this.side.stats().storageSizeBytes,
    };
  }
  async close(): Promise<void> {
    const [side, main] = await Promise.allSettled([this.side.close(), this.main.close()]);
    if (main.status === 'rejected') throw main.reason;
    if (side.status === 'rejected') throw side.reason;
  }
}
