// The storage engine contract. Every engine (memory, lmdb, ...) implements it and passes the
// shared contract suite in test/unit/storage/contract.ts. Layers above (catalog, indexes,
// oplog, sessions) see only this file.
//
// Model: named tables of byte keys → byte values, keys ordered by unsigned byte order
// (memcmp, shorter prefix first). Reads go through snapshots; writes go through write
// transactions whose callback runs synchronously and applies all-or-nothing.

/** Byte strings. Engines may return Buffers; callers must not mutate what they get back. */
export type Bytes = Uint8Array;

export interface Entry {
  readonly key: Bytes;
  readonly value: Bytes;
}

export interface ScanOptions {
  /** Lower bound of the range (by byte order). Absent: from the first key. */
  readonly start?: Bytes;
  /** Whether `start` itself is in the range. Default true. */
  readonly startInclusive?: boolean;
  /** Upper bound of the range. Absent: to the last key. */
  readonly end?: Bytes;
  /** Whether `end` itself is in the range. Default false. */
  readonly endInclusive?: boolean;
  /** Iterate from the upper bound down. The bounds keep their meaning. */
  readonly reverse?: boolean;
}

/** Read operations, shared by snapshots and write transactions. */
export interface ReadView {
  get(table: string, key: Bytes): Bytes | undefined;
  /** Synchronous, lazy iteration in key order (or reverse). Valid only while the view is. */
  scan(table: string, options?: ScanOptions): IterableIterator<Entry>;
  /** Number of keys in the table (may cost a scan on some engines; used for stats). */
  count(table: string): number;
}

/**
 * The whole contents of one table, frozen: what `Snapshot.exportTable` returns and
 * `WriteTxn.importTable` puts back, as many times as wanted (test fixtures: snapshot and
 * restore). Engines that share structure hand out their own tree (O(1)); any engine can adopt
 * any image through `entries()`.
 */
export interface TableImage {
  /** Number of keys. */
  readonly count: number;
  /** Bytes of keys and values together. */
  readonly bytes: number;
  /** The entries in key order. */
  entries(): IterableIterator<Entry>;
}

/** A stable read view of all tables at one commit: later commits are invisible to it. */
export interface Snapshot extends ReadView {
  /** Commit sequence number this snapshot sees: every commit with seq <= this one. */
  readonly seq: number;
  /** Release the snapshot. Idempotent. Using it afterwards is a bug. */
  release(): void;
  /**
   * The table as this snapshot sees it, frozen, in O(1) — or undefined when the engine cannot
   * share its structure (then copy the entries: src/storage/table-image.ts). Optional.
   */
  exportTable?(table: string): TableImage | undefined;
}

/**
 * Inside a write transaction: reads see the committed state plus this transaction's own
 * writes. Only valid during the synchronous callback given to `StorageEngine.write`.
 */
export interface WriteTxn extends ReadView {
  put(table: string, key: Bytes, value: Bytes): void;
  /** Returns whether the key existed. */
  delete(table: string, key: Bytes): boolean;
  /** Remove every key of the table (a dropped collection or index). */
  clearTable(table: string): void;
  /**
   * Replace every key of the table with the image's (clearTable, then its entries). Optional:
   * engines that share structure adopt their own images in O(1); importImage() in
   * src/storage/table-image.ts does it with puts for the others.
   */
  importTable?(table: string, image: TableImage): void;
  /** Sequence number this transaction will commit as (committed seq + 1 at callback time). */
  readonly seq: number;
  /**
   * Register an action that undoes in-memory state changed alongside these writes, run if the
   * transaction does not commit. Engines may leave it out; the server's transaction-aware
   * wrapper (src/txn/tracked-engine.ts) provides it to the catalog.
   */
  onRollback?(undo: () => void): void;
  /**
   * Register an action run once the transaction's outcome is known: `true` after it committed
   * (before its write() promise resolves; a returned promise is awaited first), `false` if it
   * did not commit. Provided by the server's wrapper (src/txn/tracked-engine.ts), like
   * onRollback: the oplog queues entries written off the writer's path with it.
   */
  onOutcome?(action: (committed: boolean) => Promise<void> | undefined): void;
}

export interface WriteOptions {
  /**
   * true: the promise resolves once the commit is on disk (fsync'd). false: once it is
   * visible to new snapshots. Engines without disk resolve both at once.
   */
  readonly durable: boolean;
}

export interface EngineStats {
  /** Bytes used by the engine's files (memory engine: bytes held). */
  readonly storageSizeBytes: number;
}

/** How big a table is: its entries and the bytes of their keys and values. */
export interface TableSize {
  readonly entries: number;
  readonly keyBytes: number;
  readonly valueBytes: number;
}

/** The engines `openEngine()` knows (src/storage/open.ts). */
export const engineNames = ['lmdb', 'memory', 'sqlite', 'jsonfile'] as const;
export type EngineName = (typeof engineNames)[number];

export interface StorageEngine {
  readonly name: EngineName;
  /** True when committed data outlives the process. */
  readonly persistent: boolean;
  /** Longest key the engine stores; longer keys make `put` throw KeyTooLongError. */
  readonly maxKeyBytes: number;
  /** Latest committed sequence number. */
  readonly committedSeq: number;

  snapshot(): Snapshot;

  /**
   * Run `fn` in a write transaction. Transactions are serialised: `fn` runs synchronously,
   * alone, in the order `write` was called, and sees all earlier transactions. If `fn`
   * throws, none of its writes apply and the promise rejects with that error. Commits of
   * many transactions may share one fsync (group commit). A commit becomes visible before
   * or when its promise resolves.
   */
  write<T>(fn: (txn: WriteTxn) => T, options: WriteOptions): Promise<T>;

  /** Resolves once every commit made so far is durable. */
  flush(): Promise<void>;

  stats(): EngineStats;

  /**
   * The size of a table as of the latest commit (zero for a table never written). Exact on
   * the memory engine; engines that cannot count bytes cheaply (lmdb) are exact up to
   * limits.tableSizeSampleEntries entries and estimate larger tables from a sample.
   */
  tableSize(table: string): TableSize;

  /** Finish pending commits, release files and locks. Idempotent. */
  close(): Promise<void>;
}

export class KeyTooLongError extends Error {
  constructor(
    readonly keyBytes: number,
    readonly maxKeyBytes: number,
  ) {
    super(`key of ${keyBytes} bytes exceeds the engine's limit of ${maxKeyBytes} bytes`);
    this.name = 'KeyTooLongError';
  }
}

/** Another process holds the data directory. */
export class DataDirectoryLockedError extends Error {
  constructor(
    readonly path: string,
    readonly holderPid: number | undefined,
  ) {
    super(
      `the data directory ${path} is in use by another secantusd process` +
        (holderPid === undefined ? '' : ` (pid ${holderPid})`),
    );
    this.name = 'DataDirectoryLockedError';
  }
}

/** An engine whose optional package cannot load on this machine (sqlite: better-sqlite3). */
export class StorageUnavailableError extends Error {
  constructor(
    readonly engine: EngineName,
    readonly reason: string,
  ) {
    super(`the ${engine} storage engine is unavailable: ${reason}`);
    this.name = 'StorageUnavailableError';
  }
}
