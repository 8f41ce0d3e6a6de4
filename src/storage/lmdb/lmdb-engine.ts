// The durable engine, on LMDB through the `lmdb` package (v3).
//
// One LMDB environment per data directory, one keyspace (the root database): every key is
// `tablePrefix(id) ++ userKey`, with a persisted name → id map. Named LMDB databases per table
// were rejected: they cap the table count at open (maxDbs), must be created by a write
// transaction of their own (not from inside one of our batched callbacks), invalidate the
// package's current read transaction when opened, and a dropped collection would still need
// a page walk. With prefixes, creating a table is one catalog put in the same transaction
// as its first row, and clearTable is O(1): the name gets a fresh id and the old id's range
// is deleted in the background, in small transactions (see reclaim below).
//
// Reserved ids: 0 = engine metadata (format, committed seq, next table id), 1 = catalog
// (UTF-16BE name → id), 2 = ids waiting to be reclaimed. User tables start at 16.
//
// Writes: write() queues; a microtask hands the queue to lmdb as one async
// `transaction(callback)`, and lmdb runs every callback of an event-loop turn inside one
// LMDB write transaction and one commit (group commit). Each fn runs against an OverlayTxn
// (../write-overlay.ts) reading through to that transaction, so it sees every earlier
// transaction, including those earlier in the batch; its writes are applied when it returns,
// inside an LMDB child transaction, so a throwing fn leaves nothing and a failing apply
// (e.g. a batch too big for one commit) rolls back alone. Details at `write` below.
//
// Durability: by default the environment runs with overlappingSync off, so an LMDB commit
// returns only after fsync; a write's promise resolves after its commit, hence
// "acknowledged = on disk" for durable and non-durable writes alike. With overlappingSync
// on, commits become visible before the flush and durable writes additionally wait for the
// package's flush promise of their batch (captured when the write is queued).

import { open } from 'lmdb';
import type { RangeOptions, RootDatabase, Transaction } from 'lmdb';
import type {
  Bytes,
  EngineStats,
  Entry,
  ScanOptions,
  Snapshot,
  StorageEngine,
  TableSize,
  WriteOptions,
  WriteTxn,
} from '../engine.js';
import { bytesEqual, concatBytes, prefixUpperBound } from '../bytes.js';
import { clampRange, fullRange, isEmptyRange, toKeyRange, type KeyRange } from '../key-range.js';
import { OverlayTxn, tombstone, type BaseReader, type TableWrites } from '../write-overlay.js';
import {
  checkSynchronousResult,
  defaultMaxKeyBytes,
  StorageClosedError,
  useAfterEnd,
} from '../validate.js';
import { DirectoryLock } from '../lock-file.js';
import { TableSizeCache } from '../table-size.js';
import { encodeTableId, tableIdMax, tablePrefixBytesMax } from './table-prefix.js';
import { silentLogger, type Logger } from '../../log.js';
import { CommandError, ErrorCode, InvariantError } from '../../errors.js';

export interface LmdbEngineOptions {
  /** Data directory; created if missing. */
  readonly path: string;
  /**
   * Let commits become visible before their fsync (the package's default). Off by default:
   * measured here it gains nothing for group-committed durable writes, and off makes every
   * acknowledged write durable without relying on the package's flush bookkeeping.
   */
  readonly overlappingSync?: boolean;
  /**
   * Commit without fsync (MDB_NOSYNC): commits survive a process crash (the pages are in the
   * OS cache) but not necessarily a machine crash; flush() forces a sync. Default false.
   */
  readonly noSync?: boolean;
  /** Concurrent LMDB read transactions (snapshots taken at different commits). */
  readonly maxReaders?: number;
  /** Keys deleted per background transaction when reclaiming cleared tables. */
  readonly reclaimBatchKeys?: number;
  readonly logger?: Logger;
  /**
   * Fault injection for tests; each hook may throw to simulate an LMDB failure there.
   * beforeApply: before a table's writes are applied; childBegin: as a group's child
   * transaction starts, before any write of it runs.
   */
  readonly testHooks?: {
    readonly beforeApply?: (table: string) => void;
    readonly childBegin?: () => void;
  };
}

/** Bumped when the on-disk layout changes incompatibly. */
const formatVersion = 1;
const firstUserTableId = 16;
const metaId = 0;
const catalogId = 1;
const garbageId = 2;

const metaFormatKey = Buffer.from('format');
const metaSeqKey = Buffer.from('seq');
const metaNextIdKey = Buffer.from('nextTableId');
const emptyValue = Buffer.alloc(0);

function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n);
  return b;
}

/** Sequence numbers as 8 bytes big-endian (exact up to 2^53). */
function u64(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(Math.floor(n / 0x1_0000_0000), 0);
  b.writeUInt32BE(n >>> 0, 4);
  return b;
}

function readU64(b: Bytes | undefined): number {
  if (b === undefined || b.length !== 8) return 0;
  const v = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return v.readUInt32BE(0) * 0x1_0000_0000 + v.readUInt32BE(4);
}

function readU32(b: Bytes | undefined): number | undefined {
  if (b === undefined || b.length !== 4) return undefined;
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).readUInt32BE(0);
}

/** The lossless byte form of a table name used as its catalog key (UTF-16BE). */
function nameKey(table: string): Buffer {
  const out = Buffer.allocUnsafe(table.length * 2);
  for (let i = 0; i < table.length; i++) out.writeUInt16BE(table.charCodeAt(i), i * 2);
  return out;
}

function nameOf(key: Bytes): string {
  let s = '';
  for (let i = 0; i + 1 < key.length; i += 2)
    s += String.fromCharCode(((key[i] as number) << 8) | (key[i + 1] as number));
  return s;
}

/** Where a table name points, and since which commit (for snapshots taken before that). */
interface TableId {
  /** undefined: the table was cleared and holds nothing. */
  readonly id: number | undefined;
  readonly since: number;
}

const noEntries: Iterator<Entry> = { next: () => ({ done: true, value: undefined }) };

type Db = RootDatabase<Buffer, Buffer>;

interface QueuedWrite {
  readonly fn: (txn: WriteTxn) => unknown;
  readonly durable: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  state: 'queued' | 'applied' | 'failed';
  result: unknown;
  error: unknown;
  /** The seq this write committed as (valid once applied). */
  seq: number;
  /** Its write set, kept until its child transaction commits, in case it must be re-applied. */
  overlay: OverlayTxn | undefined;
}

/** What a child transaction changed in memory, to put back if it is rolled back. */
interface Undo {
  readonly nextTableId: number;
  readonly assigned: number;
  readonly clearedNames: number;
  readonly ids: [string, TableId | undefined][];
  reclaim: boolean;
}

/** A group handed to lmdb, until its commit is known: the memory changes of its children. */
interface PendingGroup {
  readonly undos: Undo[];
}

/** errno values (and LMDB's MDB_MAP_FULL) that mean the disk or the map has no room. */
const noSpaceCodes = new Set([28 /* ENOSPC */, 122 /* EDQUOT */, 5 /* EIO: tmpfs full */, -30792]);

/**
 * The error a write of a failed commit is rejected with: OutOfDiskSpace (14031) when the disk
 * is full, else the cause. lmdb rejects with a generic error whose `commitError` promise holds
 * the cause.
 */
async function commitFailure(e: unknown): Promise<unknown> {
  const pending = (e as { commitError?: unknown } | null)?.commitError;
  let cause: unknown = e;
  if (pending instanceof Promise) {
    cause = await pending.then(
      () => e,
      (c: unknown) => c,
    );
  }
  const code = (cause as { code?: unknown } | null)?.code;
  const errno = (cause as { errno?: unknown } | null)?.errno;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (
    (typeof code === 'number' && noSpaceCodes.has(code)) ||
    (typeof errno === 'number' && noSpaceCodes.has(errno)) ||
    code === 'ENOSPC' ||
    /MDB_MAP_FULL|No space left/i.test(message)
  ) {
    return new CommandError(
      ErrorCode.OutOfDiskSpace,
      `Commit failed, nothing of this write was stored: the disk is full (${message})`,
    );
  }
  return cause;
}

/**
 * A failed commit's `commitError` (and other promises of lmdb's failed batch) reject; the
 * outcome is handled through the group's own promise, so these only need a handler
 * (unhandled, a rejection ends the process).
 */
function settledQuietly(p: unknown): void {
  if (p instanceof Promise) p.catch(() => undefined);
}

function fail(w: QueuedWrite, error: unknown): void {
  w.state = 'failed';
  w.error = error;
  w.overlay = undefined;
}

function settle(w: QueuedWrite): void {
  if (w.state === 'applied') w.resolve(w.result);
  else if (w.state === 'failed') w.reject(w.error);
  else w.reject(new InvariantError('lmdb engine: a write was neither applied nor failed'));
}

export class LmdbEngine implements StorageEngine {
  readonly name = 'lmdb';
  readonly persistent = true;
  readonly maxKeyBytes: number;

  private committed: number;
  /** Seq of the last transaction applied to LMDB (committed or still in its batch). */
  private assigned: number;
  private nextTableId: number;
  private readonly ids = new Map<string, TableId>();
  private clearedNames = 0;
  private readonly prefixes = new Map<number, Buffer>();
  /** True while one of our callbacks runs inside lmdb's write transaction. */
  private inCallback = false;
  private closing = false;
  private closed: Promise<void> | undefined;
  /** Set when our own group code failed inside lmdb's callback: what reached LMDB is unknown. */
  private failure: unknown = undefined;
  private readonly pending = new Set<Promise<unknown>>();
  /** Groups handed to lmdb whose commit has not completed, oldest first. */
  private uncommitted: PendingGroup[] = [];
  /** Writes not yet handed to lmdb. */
  private queue: QueuedWrite[] = [];
  private submitScheduled = false;
  /** A committed child cleared a table: start reclaiming once the group is done. */
  private reclaimWanted = false;
  private readonly snapshots = new Set<LmdbSnapshot>();
  private reclaiming: Promise<void> | undefined;
  private readonly writeBase: BaseReader;
  private readonly logger: Logger;
  private readonly reclaimBatchKeys: number;
  private readonly testHooks: LmdbEngineOptions['testHooks'];
  private readonly noSync: boolean;

  private constructor(
    private readonly db: Db,
    private readonly lock: DirectoryLock,
    private readonly overlappingSync: boolean,
    lmdbMaxKeyBytes: number,
    seq: number,
    nextTableId: number,
    options: LmdbEngineOptions,
  ) {
    this.maxKeyBytes = lmdbMaxKeyBytes - tablePrefixBytesMax;
    this.committed = seq;
    this.assigned = seq;
    this.nextTableId = nextTableId;
    this.logger = options.logger ?? silentLogger;
    this.reclaimBatchKeys = options.reclaimBatchKeys ?? 2000;
    this.testHooks = options.testHooks;
    this.noSync = options.noSync ?? false;
    this.writeBase = {
      get: (table, key) => {
        const id = this.ids.get(table)?.id;
        return id === undefined ? undefined : this.readGet(id, key, undefined);
      },
      scan: (table, range) => {
        const id = this.ids.get(table)?.id;
        return id === undefined ? noEntries : this.readScan(id, range, undefined);
      },
      count: (table) => {
        const id = this.ids.get(table)?.id;
        return id === undefined ? 0 : this.readCount(id, undefined);
      },
    };
  }

  static async open(options: LmdbEngineOptions): Promise<LmdbEngine> {
    const lock = DirectoryLock.acquire(options.path);
    let db: Db | undefined;
    try {
      const overlappingSync = options.overlappingSync ?? false;
      db = open<Buffer, Buffer>({
        path: options.path,
        // A directory, even when its name has a dot (the package guesses "file" then).
        noSubdir: false,
        keyEncoding: 'binary',
        encoding: 'binary',
        overlappingSync,
        noSync: options.noSync ?? false,
        maxReaders: options.maxReaders ?? 1024,
        compression: false,
        cache: false,
      });
      const lmdbMax =
        (db as unknown as { maxKeySize?: number }).maxKeySize ??
        defaultMaxKeyBytes + tablePrefixBytesMax;
      const meta = (key: Buffer): Buffer | undefined =>
        (db as Db).get(concatBytes(encodeTableId(metaId), key));
      let format = readU32(meta(metaFormatKey));
      if (format === undefined) {
        const any = db.getKeysCount({ limit: 1 });
        if (any > 0)
          throw new Error(
            `${options.path} holds an LMDB environment that is not a SecantusDB data directory`,
          );
        const d = db;
        await d.transaction(() => {
          d.putSync(concatBytes(encodeTableId(metaId), metaFormatKey), u32(formatVersion));
          d.putSync(concatBytes(encodeTableId(metaId), metaSeqKey), u64(0));
          d.putSync(concatBytes(encodeTableId(metaId), metaNextIdKey), u32(firstUserTableId));
        });
        if (overlappingSync) await d.flushed;
        format = formatVersion;
      }
      if (format !== formatVersion) {
        throw new Error(
          `${options.path}: data format ${format} is not supported (expected ${formatVersion})`,
        );
      }
      const seq = readU64(meta(metaSeqKey));
      const nextTableId = readU32(meta(metaNextIdKey)) ?? firstUserTableId;
      const engine = new LmdbEngine(db, lock, overlappingSync, lmdbMax, seq, nextTableId, options);
      engine.loadCatalog();
      engine.scheduleReclaim();
      return engine;
    } catch (e) {
      if (db !== undefined) await db.close().catch(() => undefined);
      lock.release();
      throw e;
    }
  }

  get committedSeq(): number {
    return this.committed;
  }

  private loadCatalog(): void {
    const p = this.prefix(catalogId);
    for (const { key, value } of this.db.getRange({ start: p, end: prefixUpperBound(p) })) {
      const id = readU32(value);
      if (id !== undefined) this.ids.set(nameOf(key.subarray(p.length)), { id, since: 0 });
    }
  }

  private prefix(id: number): Buffer {
    let p = this.prefixes.get(id);
    if (p === undefined) {
      p = encodeTableId(id);
      // Bounded by the ids a process touches; cleared tables' prefixes go in reclaim.
      this.prefixes.set(id, p);
    }
    return p;
  }

  // ---- reads (shared by snapshots, txn = their read transaction, and by write callbacks,
  //      txn = undefined: the package then reads from the current write transaction) ----

  readGet(id: number, key: Bytes, txn: Transaction | undefined): Bytes | undefined {
    if (key.length > this.maxKeyBytes) return undefined;
    const k = concatBytes(this.prefix(id), key);
    if (txn === undefined) return this.db.get(k);
    // Inside a write callback the package's get() prefers its write transaction over the
    // one we pass; a cursor honours it, so snapshot reads there go through a cursor.
    if (this.inCallback) {
      for (const e of this.db.getRange({ start: k, limit: 1, transaction: txn })) {
        return bytesEqual(e.key, k) ? e.value : undefined;
      }
      return undefined;
    }
    return this.db.get(k, { transaction: txn });
  }

  /**
   * Entries of one table's range. With an `owner` (a snapshot), the LMDB cursor is
   * registered with it so that release() can close it while this generator stays
   * suspended: resuming then throws from owner.live() rather than quietly ending.
   */
  *readScan(
    id: number,
    range: KeyRange,
    txn: Transaction | undefined,
    owner?: ScanOwner,
  ): Generator<Entry, void, undefined> {
    const r = clampRange(range, this.maxKeyBytes);
    if (isEmptyRange(r)) return;
    const p = this.prefix(id);
    const pEnd = prefixUpperBound(p) as Buffer; // ids never encode to all-0xff bytes
    // The package's reverse ranges run from `start` (upper) down to `end` (lower).
    const options: RangeOptions = r.reverse
      ? {
          reverse: true,
          start: r.hi === undefined ? pEnd : concatBytes(p, r.hi),
          exclusiveStart: r.hi === undefined || !r.hiInclusive,
          end: r.lo === undefined ? p : concatBytes(p, r.lo),
          inclusiveEnd: r.lo === undefined || r.loInclusive,
        }
      : {
          start: r.lo === undefined ? p : concatBytes(p, r.lo),
          exclusiveStart: r.lo !== undefined && !r.loInclusive,
          end: r.hi === undefined ? pEnd : concatBytes(p, r.hi),
          inclusiveEnd: r.hi !== undefined && r.hiInclusive,
        };
    if (txn !== undefined) options.transaction = txn;
    owner?.live();
    const it = this.db.getRange(options)[Symbol.iterator]();
    owner?.cursors.add(it);
    const skip = p.length;
    try {
      for (;;) {
        owner?.live();
        const n = it.next();
        if (n.done === true) return;
        yield { key: n.value.key.subarray(skip), value: n.value.value };
      }
    } finally {
      if (owner === undefined || owner.cursors.delete(it)) it.return?.();
    }
  }

  readCount(id: number, txn: Transaction | undefined): number {
    const p = this.prefix(id);
    const options: RangeOptions = { start: p, end: prefixUpperBound(p) };
    if (txn !== undefined) options.transaction = txn;
    return this.db.getKeysCount(options);
  }

  /** The table's id as of commit `seq`, read from the catalog in `txn` when it changed since. */
  tableIdAt(table: string, seq: number, txn: Transaction): number | undefined {
    const e = this.ids.get(table);
    if (e === undefined) return undefined;
    if (e.since <= seq) return e.id;
    return readU32(this.readGet(catalogId, nameKey(table), txn));
  }

  // ---- snapshots ----

  snapshot(): Snapshot {
    if (this.closing) throw new StorageClosedError();
    const txn = this.db.useReadTransaction();
    // The seq stored with the data this transaction sees: exact, never ahead of it.
    const seq = readU64(this.readGet(metaId, metaSeqKey, txn));
    const s = new LmdbSnapshot(this, txn, seq);
    this.snapshots.add(s);
    return s;
  }

  forget(s: LmdbSnapshot): void {
    this.snapshots.delete(s);
  }

  // ---- writes ----
  //
  // write() queues; a microtask hands everything queued so far to lmdb as ONE transaction
  // callback (a "group"), and lmdb puts every callback of the event-loop turn into one LMDB
  // transaction. Inside, each fn runs on its own overlay and its writes are applied at once,
  // so the next fn reads them from LMDB. The group's writes go into one LMDB child
  // transaction: if applying one fn fails at the LMDB level (a batch too big for one
  // transaction, a full disk), the child is aborted, the write sets of the fns before it are
  // applied again (their fns are not re-run), the failing fn is rejected, and the group goes
  // on after it. A fn that throws never reaches LMDB at all.

  write<T>(fn: (txn: WriteTxn) => T, options: WriteOptions): Promise<T> {
    if (this.closing) return Promise.reject(new StorageClosedError());
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      const w: QueuedWrite = {
        fn,
        durable: options.durable,
        resolve: resolve as (v: unknown) => void,
        reject,
        state: 'queued',
        result: undefined,
        error: undefined,
        seq: 0,
        overlay: undefined,
      };
      this.queue.push(w);
      if (!this.submitScheduled) {
        this.submitScheduled = true;
        // A microtask: after the caller's synchronous code (so its writes group together),
        // and, for a write() called inside a callback, after lmdb's callbacks are done —
        // the package cannot queue a transaction from inside one.
        queueMicrotask(() => this.submit());
      }
    });
  }

  private submit(): void {
    this.submitScheduled = false;
    const group = this.queue;
    this.queue = [];
    if (group.length === 0) return;
    if (this.failure !== undefined) {
      for (const w of group) w.reject(this.failure);
      return;
    }
    const pendingGroup: PendingGroup = { undos: [] };
    this.uncommitted.push(pendingGroup);
    const committed = this.db.transaction(() => this.runGroup(group, pendingGroup));
    // lmdb starts each event turn's batch from a task of its own (queued by the call above)
    // and drops that batch's commit promise: when the commit fails it would be an unhandled
    // rejection, which ends the process. Our task runs after lmdb's and gives it a handler.
    setImmediate(() => {
      this.db.committed.then(undefined, () => undefined);
    });
    // Read now: `flushed` follows the batch this group was just queued in.
    const flushed =
      this.overlappingSync && group.some((w) => w.durable)
        ? this.db.flushed.then(() => undefined)
        : undefined;
    const done = committed.then(
      async () => {
        this.uncommitted = this.uncommitted.filter((g) => g !== pendingGroup);
        for (const w of group)
          if (w.state === 'applied' && w.seq > this.committed) this.committed = w.seq;
        for (const w of group)
          if (w.state === 'failed' || !w.durable || flushed === undefined) settle(w);
        if (flushed !== undefined) {
          await flushed;
          for (const w of group) if (w.state === 'applied' && w.durable) settle(w);
        }
      },
      async (e: unknown) => {
        // LMDB commits all or nothing: nothing of this group (or of a later one in the same
        // batch) reached the disk. Memory is put back to match, so the engine goes on: a
        // full disk fails these writes, and writes succeed again once there is room.
        this.forgetFrom(pendingGroup);
        const error = await commitFailure(e);
        this.logger.warn('STORAGE', 7_310_003, 'LMDB commit failed; its writes were rolled back', {
          error: error instanceof Error ? error.message : String(error),
          writes: group.length,
        });
        for (const w of group) {
          if (w.state === 'failed') w.reject(w.error);
          else w.reject(error);
        }
      },
    );
    this.track(done);
  }

  /** Undo in memory what `from` and every group after it applied (their commit failed). */
  private forgetFrom(from: PendingGroup): void {
    const at = this.uncommitted.indexOf(from);
    if (at < 0) return; // rolled back already, with an earlier group of the same batch
    for (let g = this.uncommitted.length - 1; g >= at; g--) {
      const undos = (this.uncommitted[g] as PendingGroup).undos;
      for (let u = undos.length - 1; u >= 0; u--) this.rollback(undos[u] as Undo);
    }
    this.uncommitted = this.uncommitted.slice(0, at);
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    const remove = (): void => {
      this.pending.delete(p);
    };
    p.then(remove, remove);
  }

  private poison(e: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = e;
    this.logger.error(
      'STORAGE',
      7_310_001,
      'LMDB commit failed after transactions were applied; refusing further writes',
      {
        error: e instanceof Error ? e.message : String(e),
      },
    );
  }

  /** The lmdb callback: every queued write of the group, in order. Never throws. */
  private runGroup(group: QueuedWrite[], pending: PendingGroup): void {
    this.inCallback = true;
    try {
      let next = 0;
      while (next < group.length) next = this.runChild(group, next, pending);
      if (this.clearedNames > 256) this.pruneClearedNames();
      if (this.reclaimWanted) {
        this.reclaimWanted = false;
        this.scheduleReclaim();
      }
    } catch (e) {
      // A bug in the code above, not in a fn: what reached LMDB is unknown.
      this.poison(e);
      for (const w of group) if (w.state !== 'failed') fail(w, e);
    } finally {
      this.inCallback = false;
    }
  }

  /** Run writes from `start` in one child transaction; returns where to continue. */
  private runChild(group: QueuedWrite[], start: number, pending: PendingGroup): number {
    const undo = this.beginUndo();
    const applied: QueuedWrite[] = [];
    let failedAt = -1;
    let failure: unknown;
    let i = start;
    try {
      void this.db.childTransaction(() => {
        this.testHooks?.childBegin?.();
        for (; i < group.length; i++) {
          const w = group[i] as QueuedWrite;
          const overlay = this.runFn(w);
          if (overlay === undefined) continue;
          try {
            this.applyOverlay(overlay, undo);
          } catch (e) {
            failedAt = i;
            failure = e;
            throw e;
          }
          applied.push(w);
        }
        this.writeMeta(undo);
      });
    } catch (e) {
      this.rollback(undo);
      if (failedAt < 0) {
        // The child transaction itself failed (begin, metadata, commit): nothing of it
        // stays, so every write it held fails, and the one it had reached if not yet run.
        for (const w of applied) fail(w, e);
        const reached = group[i];
        if (reached !== undefined && reached.state === 'queued') fail(reached, e);
        return Math.max(i + 1, start + 1);
      }
      fail(group[failedAt] as QueuedWrite, failure);
      this.reapply(applied, pending);
      return failedAt + 1;
    }
    pending.undos.push(undo);
    for (const w of applied) this.markApplied(w);
    if (undo.reclaim) this.reclaimWanted = true;
    return i;
  }

  /** Apply again, in a child of their own, write sets that were rolled back with a failing one. */
  private reapply(writes: QueuedWrite[], pending: PendingGroup): void {
    if (writes.length === 0) return;
    const undo = this.beginUndo();
    try {
      void this.db.childTransaction(() => {
        for (const w of writes) if (w.overlay !== undefined) this.applyOverlay(w.overlay, undo);
        this.writeMeta(undo);
      });
    } catch (e) {
      this.rollback(undo);
      for (const w of writes) fail(w, e);
      return;
    }
    pending.undos.push(undo);
    for (const w of writes) this.markApplied(w);
    if (undo.reclaim) this.reclaimWanted = true;
  }

  private markApplied(w: QueuedWrite): void {
    w.state = 'applied';
    w.overlay = undefined;
  }

  /** Run one fn on a fresh overlay; undefined when it threw (the write has failed). */
  private runFn(w: QueuedWrite): OverlayTxn | undefined {
    const txn = new OverlayTxn(this.writeBase, this.assigned + 1, this.maxKeyBytes);
    try {
      w.result = w.fn(txn);
      checkSynchronousResult(w.result);
    } catch (e) {
      fail(w, e);
      return undefined;
    } finally {
      txn.end();
    }
    w.seq = txn.seq;
    w.overlay = txn;
    return txn;
  }

  private beginUndo(): Undo {
    return {
      nextTableId: this.nextTableId,
      assigned: this.assigned,
      clearedNames: this.clearedNames,
      ids: [],
      reclaim: false,
    };
  }

  private rollback(undo: Undo): void {
    this.nextTableId = undo.nextTableId;
    this.assigned = undo.assigned;
    this.clearedNames = undo.clearedNames;
    for (let j = undo.ids.length - 1; j >= 0; j--) {
      const [table, prev] = undo.ids[j] as [string, TableId | undefined];
      if (prev === undefined) this.ids.delete(table);
      else this.ids.set(table, prev);
    }
  }

  /** Write one finished overlay into the current LMDB (child) transaction. */
  private applyOverlay(txn: OverlayTxn, undo: Undo): void {
    const db = this.db;
    for (const [table, w] of txn.tables) {
      this.testHooks?.beforeApply?.(table);
      const entry = this.ids.get(table);
      const current = entry?.id;
      let id = current;
      if (w.cleared && id !== undefined) {
        db.putSync(concatBytes(this.prefix(garbageId), this.prefix(id)), emptyValue);
        db.removeSync(concatBytes(this.prefix(catalogId), nameKey(table)));
        id = undefined;
        undo.reclaim = true;
      }
      if (id === undefined && hasPut(w)) {
        if (this.nextTableId > tableIdMax) throw new RangeError('lmdb engine: table ids exhausted');
        id = this.nextTableId++;
        db.putSync(concatBytes(this.prefix(catalogId), nameKey(table)), u32(id));
      }
      if (id !== current) {
        // Memory follows at once, so that the next fn of the batch finds the table; the
        // undo log puts it back if the child transaction is rolled back.
        undo.ids.push([table, entry]);
        this.ids.set(table, { id, since: txn.seq });
        if (id === undefined) this.clearedNames++;
      }
      if (id === undefined) continue;
      const p = this.prefix(id);
      const c = w.entries.cursor(fullRange);
      while (c.next()) {
        const k = concatBytes(p, c.key as Bytes);
        if (c.value === tombstone) db.removeSync(k);
        else if (c.value !== undefined) db.putSync(k, c.value as Buffer);
      }
    }
    this.assigned = txn.seq;
  }

  /** Persist the seq (and next table id) the child transaction ends on. */
  private writeMeta(undo: Undo): void {
    if (this.assigned === undo.assigned) return;
    const db = this.db;
    if (this.nextTableId !== undo.nextTableId)
      db.putSync(concatBytes(this.prefix(metaId), metaNextIdKey), u32(this.nextTableId));
    db.putSync(concatBytes(this.prefix(metaId), metaSeqKey), u64(this.assigned));
  }

  /**
   * Forget names of cleared tables once no snapshot can need their history: a snapshot at
   * seq s resolves a name from memory only when the entry is not newer than s.
   */
  private pruneClearedNames(): void {
    let horizon = this.committed;
    for (const s of this.snapshots) if (s.seq < horizon) horizon = s.seq;
    for (const [table, e] of this.ids) {
      if (e.id === undefined && e.since <= horizon) {
        this.ids.delete(table);
        this.clearedNames--;
      }
    }
  }

  // ---- reclaiming cleared tables ----

  private scheduleReclaim(): void {
    if (this.reclaiming !== undefined || this.closing || this.failure !== undefined) return;
    this.reclaiming = this.reclaimLoop().finally(() => {
      this.reclaiming = undefined;
    });
  }

  private async reclaimLoop(): Promise<void> {
    for (;;) {
      // Yield between chunks so user writes interleave with the deletion.
      await new Promise<void>((r) => setImmediate(r));
      if (this.closing || this.failure !== undefined) return;
      let more: boolean;
      try {
        more = await this.db.transaction(() => this.reclaimChunk());
      } catch (e) {
        settledQuietly((e as { commitError?: unknown } | null)?.commitError);
        this.logger.warn(
          'STORAGE',
          7_310_002,
          'reclaiming a cleared table failed; will retry on next clear or open',
          {
            error: e instanceof Error ? e.message : String(e),
          },
        );
        return;
      }
      if (!more) return;
    }
  }

  /** Delete up to reclaimBatchKeys keys of the first table waiting; false when none waits. */
  private reclaimChunk(): boolean {
    const g = this.prefix(garbageId);
    let entry: Buffer | undefined;
    for (const k of this.db.getKeys({ start: g, end: prefixUpperBound(g), limit: 1 })) entry = k;
    if (entry === undefined) return false;
    const p = entry.subarray(g.length);
    const keys: Buffer[] = [];
    for (const k of this.db.getKeys({
      start: p,
      end: prefixUpperBound(p),
      limit: this.reclaimBatchKeys,
    }))
      keys.push(k);
    for (const k of keys) this.db.removeSync(k);
    if (keys.length < this.reclaimBatchKeys) this.db.removeSync(entry);
    return true;
  }

  /** Resolves once no cleared table waits to be reclaimed (or reclaiming stopped). */
  async reclaimed(): Promise<void> {
    while (this.reclaiming !== undefined) await this.reclaiming;
  }

  /** LMDB-level counters, for tests and diagnostics. */
  diagnostics(): {
    lastTxnId: number;
    entryCount: number;
    openSnapshots: number;
    reclaiming: boolean;
  } {
    const s = this.db.getStats() as { lastTxnId?: number; entryCount?: number };
    return {
      lastTxnId: s.lastTxnId ?? 0,
      entryCount: s.entryCount ?? 0,
      openSnapshots: this.snapshots.size,
      reclaiming: this.reclaiming !== undefined,
    };
  }

  // ---- lifecycle ----

  async flush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    if (this.overlappingSync) await this.db.flushed;
    if (this.noSync) await this.sync();
  }

  /** Force LMDB to fsync what was committed without it (noSync). */
  private sync(): Promise<void> {
    return new Promise((resolve, reject) => {
      (this.db as unknown as { sync(cb: (error: unknown) => void): void }).sync((error) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
      );
    });
  }

  /** Table sizes measured at a commit, reused while nothing else commits. */
  private readonly sizes = new TableSizeCache(() => this.snapshot());

  tableSize(table: string): TableSize {
    return this.sizes.sizeOf(table, this.committedSeq);
  }

  stats(): EngineStats {
    const s = this.db.getStats() as { pageSize?: number; lastPageNumber?: number };
    return { storageSizeBytes: ((s.lastPageNumber ?? 0) + 1) * (s.pageSize ?? 4096) };
  }

  close(): Promise<void> {
    if (this.closed === undefined) this.closed = this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    // Writes queued before close() still go through: hand them to lmdb now.
    this.submit();
    await Promise.allSettled([...this.pending]);
    if (this.reclaiming !== undefined) await this.reclaiming;
    for (const s of [...this.snapshots]) s.release();
    try {
      // A clean close leaves nothing unsynced, also for an environment committing without fsync.
      if (this.noSync && this.failure === undefined) await this.sync();
      await this.db.close();
    } finally {
      this.lock.release();
    }
  }
}

function hasPut(w: TableWrites): boolean {
  const c = w.entries.cursor(fullRange);
  while (c.next()) if (c.value !== tombstone) return true;
  return false;
}

/** What a snapshot lends its scans: a liveness check and a place to register cursors. */
interface ScanOwner {
  live(): void;
  readonly cursors: Set<Iterator<unknown>>;
}

class LmdbSnapshot implements Snapshot, ScanOwner {
  private txn: Transaction | undefined;
  /** Table ids as of this snapshot, for names whose mapping changed after it. */
  private readonly idCache = new Map<string, number | undefined>();
  /** LMDB cursors of unfinished scans: the package must not end a read transaction under one. */
  readonly cursors = new Set<Iterator<unknown>>();

  constructor(
    private readonly engine: LmdbEngine,
    txn: Transaction,
    readonly seq: number,
  ) {
    this.txn = txn;
  }

  live(): void {
    if (this.txn === undefined) throw useAfterEnd('snapshot');
  }

  private current(): Transaction {
    if (this.txn === undefined) throw useAfterEnd('snapshot');
    return this.txn;
  }

  private tableId(table: string, txn: Transaction): number | undefined {
    if (this.idCache.has(table)) return this.idCache.get(table);
    const id = this.engine.tableIdAt(table, this.seq, txn);
    this.idCache.set(table, id);
    return id;
  }

  get(table: string, key: Bytes): Bytes | undefined {
    const txn = this.current();
    const id = this.tableId(table, txn);
    return id === undefined ? undefined : this.engine.readGet(id, key, txn);
  }

  scan(table: string, options?: ScanOptions): IterableIterator<Entry> {
    const txn = this.current();
    const id = this.tableId(table, txn);
    if (id === undefined) return emptyScan(this);
    return this.engine.readScan(id, toKeyRange(options), txn, this);
  }

  count(table: string): number {
    const txn = this.current();
    const id = this.tableId(table, txn);
    return id === undefined ? 0 : this.engine.readCount(id, txn);
  }

  release(): void {
    const txn = this.txn;
    if (txn === undefined) return;
    for (const cursor of this.cursors) cursor.return?.();
    this.cursors.clear();
    this.txn = undefined;
    txn.done();
    this.engine.forget(this);
  }
}

// A scan over nothing still registers with its owner, as the other scans do.
// eslint-disable-next-line require-yield
function* emptyScan(owner: ScanOwner): Generator<Entry, void, undefined> {
  owner.live();
}
