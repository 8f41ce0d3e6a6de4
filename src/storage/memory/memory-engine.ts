// The in-memory engine: the default for tests, so it must start instantly and behave like
// the durable engine in everything a caller can observe (ordering, snapshots, rollback, key
// limits, the moment `fn` runs).
//
// Design: the whole database is one persistent B+ tree of tables (name → root of that
// table's persistent B+ tree of key → value); see ../btree.ts. A commit publishes a new
// pair of roots; a snapshot keeps the roots it read. That gives MVCC without version chains:
// snapshots are O(1), never see later commits, their lazy scans stay valid across awaits, and
// the versions nobody references are reclaimed by the JavaScript GC the moment the last
// snapshot holding them is released.
//
// A write transaction edits a private copy-on-write view of the roots: its reads see its own
// writes directly (no overlay to merge), and rollback is dropping the view.
//
// Keys are held as latin1 strings (one char per byte, so string order is byte order) next to
// the entry they index. Measured here, a lookup among 200k Buffer keys cost ~4-9 µs — each
// comparison chases a typed-array object and then its backing store, two cache misses — and
// ~1 µs with string keys. The stored entry object is what scans yield, so a scan allocates
// nothing per row.

import type {
  Bytes,
  EngineStats,
  Entry,
  ScanOptions,
  Snapshot,
  StorageEngine,
  TableImage,
  TableSize,
  WriteOptions,
  WriteTxn,
} from '../engine.js';
import { ByteArena } from '../bytes.js';
import { limits } from '../../limits.js';
import {
  emptyTree,
  newEditToken,
  treeDelete,
  treeGet,
  treeSet,
  treeSize,
  TreeCursor,
  type EditResult,
  type EditToken,
  type TreeNode,
} from '../btree.js';
import { isEmptyRange, toKeyRange } from '../key-range.js';
import {
  checkKey,
  runWriteCallback,
  checkTableName,
  checkValue,
  defaultMaxKeyBytes,
  StorageClosedError,
  useAfterEnd,
} from '../validate.js';

type Table = TreeNode<string, Entry>;
type Tables = TreeNode<string, Table>;

/** Orders table names, and keys in their latin1 form (byte order, shorter prefix first). */
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const compareNames = compareStrings;

/**
 * Typed arrays up to this length may live on V8's heap (index keys are made as such): reading
 * their `.buffer` moves their bytes to a new off-heap store, which cost more than the lookup
 * itself (the _id index's uniqueness check was ~6% of an insert's CPU in a profile).
 */
const onHeapBytesMax = 64;

/** Where the stored keys and values live (see ByteArena); one for the process. */
const stored = new ByteArena(limits.memoryEngineSlabBytes, limits.memoryEngineSlabItemBytesMax);

function latin1(key: Bytes): string {
  if (key instanceof Buffer) return key.toString('latin1');
  // Char codes straight from the elements: one char per byte, without touching `.buffer`.
  if (key.length <= onHeapBytesMax)
    return String.fromCharCode.apply(null, key as unknown as number[]);
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

export interface MemoryEngineOptions {
  /** Longest key accepted; defaults to the lmdb engine's limit so tests meet production's. */
  readonly maxKeyBytes?: number;
  /** The committed seq to start from (an engine that keeps its data elsewhere replays into this one). */
  readonly initialSeq?: number;
}

function tableOf(tables: Tables, table: string): Table | undefined {
  return treeGet(tables, table, compareNames);
}

function* scanTable(
  table: Table | undefined,
  options: ScanOptions | undefined,
  live: () => void,
): Generator<Entry, void, undefined> {
  if (table === undefined) return;
  const range = toKeyRange(options);
  if (isEmptyRange(range)) return;
  const cursor = new TreeCursor(table, compareStrings, {
    lo: range.lo === undefined ? undefined : latin1(range.lo),
    loInclusive: range.loInclusive,
    hi: range.hi === undefined ? undefined : latin1(range.hi),
    hiInclusive: range.hiInclusive,
    reverse: range.reverse,
  });
  for (;;) {
    live();
    if (!cursor.next()) return;
    yield cursor.value as Entry;
  }
}

/**
 * A table's tree, as a snapshot saw it. Trees are never changed once published, so the image
 * shares every node with the engine (O(1) to take, O(1) to adopt, any number of times); a
 * writer that edits the table afterwards copies the nodes on its path, as for any snapshot.
 */
class MemoryTableImage implements TableImage {
  constructor(
    readonly root: Table,
    readonly bytes: number,
    readonly keyBytes: number,
  ) {}

  get count(): number {
    return treeSize(this.root);
  }

  *entries(): IterableIterator<Entry> {
    yield* scanTable(this.root, undefined, () => undefined);
  }
}

/** Bytes held by a table's keys and values together, and by its keys alone. */
interface TableBytes {
  bytes: number;
  keyBytes: number;
}

function bytesOfTree(table: Table): TableBytes {
  let bytes = 0;
  let keyBytes = 0;
  for (const e of scanTable(table, undefined, () => undefined)) {
    bytes += e.key.length + e.value.length;
    keyBytes += e.key.length;
  }
  return { bytes, keyBytes };
}

function getIn(table: Table | undefined, key: Bytes): Bytes | undefined {
  return table === undefined ? undefined : treeGet(table, latin1(key), compareStrings)?.value;
}

export class MemorySnapshot implements Snapshot {
  private tables: Tables | undefined;

  constructor(
    tables: Tables,
    readonly seq: number,
    private readonly open: Set<MemorySnapshot>,
    /** The table's byte counts as committed at `seq`, when the engine still knows them. */
    private readonly bytesAt: (seq: number, table: string) => TableBytes | undefined,
  ) {
    this.tables = tables;
    open.add(this);
  }

  private view(): Tables {
    if (this.tables === undefined) throw useAfterEnd('snapshot');
    return this.tables;
  }

  get(table: string, key: Bytes): Bytes | undefined {
    return getIn(tableOf(this.view(), table), key);
  }

  scan(table: string, options?: ScanOptions): IterableIterator<Entry> {
    return scanTable(tableOf(this.view(), table), options, () => this.view());
  }

  count(table: string): number {
    const t = tableOf(this.view(), table);
    return t === undefined ? 0 : treeSize(t);
  }

  exportTable(table: string): TableImage {
    const t = tableOf(this.view(), table) ?? emptyTree<string, Entry>();
    // The engine counts bytes per table for its latest commit only; an older snapshot counts.
    const { bytes, keyBytes } = this.bytesAt(this.seq, table) ?? bytesOfTree(t);
    return new MemoryTableImage(t, bytes, keyBytes);
  }

  /** The names of the tables this snapshot sees with at least one key, in name order. */
  tableNames(): string[] {
    const names: string[] = [];
    const cursor = new TreeCursor(this.view(), compareNames, {
      lo: undefined,
      loInclusive: true,
      hi: undefined,
      hiInclusive: false,
      reverse: false,
    });
    while (cursor.next()) names.push(cursor.key as string);
    return names;
  }

  release(): void {
    // Dropping the roots is all there is: unreferenced versions go to the GC.
    this.tables = undefined;
    this.open.delete(this);
  }
}

class MemoryWriteTxn implements WriteTxn {
  /** Roots as this transaction sees them; nodes owned by `token` are private to it. */
  tables: Tables;
  /** Byte counts (keys and values) of the tables this transaction touched, for stats. */
  readonly tableBytes = new Map<string, number>();
  /** Key bytes of the same tables. */
  readonly tableKeyBytes = new Map<string, number>();
  private token: EditToken = newEditToken();
  private ended = false;
  private readonly edit: EditResult<Entry> = { found: false, prev: undefined };

  constructor(
    tables: Tables,
    readonly seq: number,
    private readonly maxKeyBytes: number,
    private readonly committedBytes: ReadonlyMap<string, number>,
    private readonly committedKeyBytes: ReadonlyMap<string, number>,
  ) {
    this.tables = tables;
  }

  end(): void {
    this.ended = true;
  }

  private live(): void {
    if (this.ended) throw useAfterEnd('write transaction');
  }

  private bytesOf(table: string): number {
    return this.tableBytes.get(table) ?? this.committedBytes.get(table) ?? 0;
  }

  private keyBytesOf(table: string): number {
    return this.tableKeyBytes.get(table) ?? this.committedKeyBytes.get(table) ?? 0;
  }

  private setTable(table: string, before: Table | undefined, after: Table): void {
    if (treeSize(after) === 0) {
      if (before !== undefined)
        this.tables = treeDelete(this.tables, table, compareNames, this.token);
    } else if (after !== before) {
      this.tables = treeSet(this.tables, table, after, compareNames, this.token);
    }
  }

  get(table: string, key: Bytes): Bytes | undefined {
    this.live();
    return getIn(tableOf(this.tables, table), key);
  }

  put(table: string, key: Bytes, value: Bytes): void {
    this.live();
    checkTableName(table);
    checkKey(key, this.maxKeyBytes);
    checkValue(value);
    // Private copies: the caller may reuse its buffers once put returns.
    const entry: Entry = { key: stored.copy(key), value: stored.copy(value) };
    const before = tableOf(this.tables, table);
    const after = treeSet(
      before ?? emptyTree<string, Entry>(),
      latin1(key),
      entry,
      compareStrings,
      this.token,
      this.edit,
    );
    this.setTable(table, before, after);
    const prev = this.edit.prev;
    const delta =
      entry.key.length +
      entry.value.length -
      (prev === undefined ? 0 : prev.key.length + prev.value.length);
    this.tableBytes.set(table, this.bytesOf(table) + delta);
    if (prev === undefined)
      this.tableKeyBytes.set(table, this.keyBytesOf(table) + entry.key.length);
  }

  delete(table: string, key: Bytes): boolean {
    this.live();
    const before = tableOf(this.tables, table);
    if (before === undefined) return false;
    const after = treeDelete(before, latin1(key), compareStrings, this.token, this.edit);
    const prev = this.edit.prev;
    if (!this.edit.found || prev === undefined) return false;
    this.setTable(table, before, after);
    this.tableBytes.set(table, this.bytesOf(table) - prev.key.length - prev.value.length);
    this.tableKeyBytes.set(table, this.keyBytesOf(table) - prev.key.length);
    return true;
  }

  clearTable(table: string): void {
    this.live();
    checkTableName(table);
    if (tableOf(this.tables, table) === undefined) return;
    this.tables = treeDelete(this.tables, table, compareNames, this.token);
    this.tableBytes.set(table, 0);
    this.tableKeyBytes.set(table, 0);
  }

  importTable(table: string, image: TableImage): void {
    this.live();
    checkTableName(table);
    if (!(image instanceof MemoryTableImage)) {
      this.clearTable(table);
      for (const { key, value } of image.entries()) this.put(table, key, value);
      return;
    }
    // The image's nodes belong to no editor (owner tokens of finished transactions), so this
    // transaction and later ones copy them before any change: the image stays as it was.
    this.setTable(table, tableOf(this.tables, table), image.root);
    this.tableBytes.set(table, image.bytes);
    this.tableKeyBytes.set(table, image.keyBytes);
  }

  scan(table: string, options?: ScanOptions): IterableIterator<Entry> {
    this.live();
    // The scan reads the roots as they are now; a fresh token makes this transaction copy
    // those nodes on its next write instead of changing them under the cursor. So a scan
    // sees the transaction's writes made before scan() was called, and none after.
    this.token = newEditToken();
    return scanTable(tableOf(this.tables, table), options, () => this.live());
  }

  count(table: string): number {
    this.live();
    const t = tableOf(this.tables, table);
    return t === undefined ? 0 : treeSize(t);
  }
}

interface Queued {
  run(): void;
}

export class MemoryEngine implements StorageEngine {
  readonly name = 'memory';
  readonly persistent = false;
  readonly maxKeyBytes: number;

  private tables: Tables = emptyTree<string, Table>();
  private seq = 0;
  private readonly tableBytes = new Map<string, number>();
  private readonly tableKeyBytes = new Map<string, number>();
  private bytesHeld = 0;
  private readonly queue: Queued[] = [];
  private drainScheduled = false;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  /** Open snapshots, ended by close() as the lmdb engine must end its read transactions. */
  private readonly snapshots = new Set<MemorySnapshot>();
  private resolveIdle: (() => void) | undefined;

  constructor(options: MemoryEngineOptions = {}) {
    this.maxKeyBytes = options.maxKeyBytes ?? defaultMaxKeyBytes;
    this.seq = options.initialSeq ?? 0;
  }

  get committedSeq(): number {
    return this.seq;
  }

  snapshot(): MemorySnapshot {
    if (this.closed) throw new StorageClosedError();
    return new MemorySnapshot(this.tables, this.seq, this.snapshots, (seq, table) =>
      seq === this.seq
        ? { bytes: this.tableBytes.get(table) ?? 0, keyBytes: this.tableKeyBytes.get(table) ?? 0 }
        : undefined,
    );
  }

  /**
   * `fn` runs on a microtask, never inside `write()` itself: the lmdb engine cannot run it
   * before its batch starts, and code tested here must not come to rely on anything else.
   */
  write<T>(fn: (txn: WriteTxn) => T, _options: WriteOptions): Promise<T> {
    if (this.closed) return Promise.reject(new StorageClosedError());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: () => this.runOne(fn, resolve, reject) });
      if (!this.drainScheduled) {
        this.drainScheduled = true;
        if (this.resolveIdle === undefined) this.idle = new Promise((r) => (this.resolveIdle = r));
        queueMicrotask(() => this.drain());
      }
    });
  }

  private drain(): void {
    // Writes queued by a callback (re-entrant write()) extend this same loop, after the
    // ones queued before them: call order is run order.
    for (let i = 0; i < this.queue.length; i++) (this.queue[i] as Queued).run();
    this.queue.length = 0;
    this.drainScheduled = false;
    const resolveIdle = this.resolveIdle;
    this.resolveIdle = undefined;
    resolveIdle?.();
  }

  private runOne<T>(
    fn: (txn: WriteTxn) => T,
    resolve: (v: T) => void,
    reject: (e: unknown) => void,
  ): void {
    const txn = new MemoryWriteTxn(
      this.tables,
      this.seq + 1,
      this.maxKeyBytes,
      this.tableBytes,
      this.tableKeyBytes,
    );
    const ran = runWriteCallback(txn, fn, reject);
    if (ran === undefined) return;
    const { result } = ran;
    // Publish: from here on nobody edits the transaction's nodes (its token died with it).
    this.tables = txn.tables;
    this.seq = txn.seq;
    for (const [table, bytes] of txn.tableBytes) {
      this.bytesHeld += bytes - (this.tableBytes.get(table) ?? 0);
      if (bytes === 0) this.tableBytes.delete(table);
      else this.tableBytes.set(table, bytes);
    }
    for (const [table, bytes] of txn.tableKeyBytes) {
      if (bytes === 0) this.tableKeyBytes.delete(table);
      else this.tableKeyBytes.set(table, bytes);
    }
    resolve(result);
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  stats(): EngineStats {
    return { storageSizeBytes: this.bytesHeld };
  }

  tableSize(table: string): TableSize {
    const t = tableOf(this.tables, table);
    const entries = t === undefined ? 0 : treeSize(t);
    const bytes = this.tableBytes.get(table) ?? 0;
    const keyBytes = this.tableKeyBytes.get(table) ?? 0;
    return { entries, keyBytes, valueBytes: bytes - keyBytes };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.idle;
    for (const s of [...this.snapshots]) s.release();
    this.tables = emptyTree<string, Table>();
    this.tableBytes.clear();
    this.tableKeyBytes.clear();
    this.bytesHeld = 0;
  }
}
