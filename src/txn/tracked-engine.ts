// The storage engine as the server uses it: every write transaction is watched for keys that
// open multi-document transactions hold (a plain write then waits for the holder and runs
// again, as mongod's writeConflictRetry does) and records the keys it writes for conflict
// checks; and it can register rollback actions for in-memory state (the catalog mirror)
// that must be undone when its callback throws.

import type {
  Bytes,
  EngineStats,
  Snapshot,
  EngineName,
  StorageEngine,
  WriteOptions,
  WriteTxn,
  TableImage,
  TableSize,
} from '../storage/engine.js';
import { importImage } from '../storage/table-image.js';
import { DelegatingWriteTxn } from '../storage/delegating-txn.js';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import type { ConflictTracker } from './conflicts.js';
import { WriteConflictRetry } from './conflicts.js';

class TrackedTxn extends DelegatingWriteTxn {
  readonly undo: Array<() => void> = [];
  readonly outcome: Array<(committed: boolean) => Promise<void> | undefined> = [];

  constructor(
    inner: WriteTxn,
    private readonly tracker: ConflictTracker,
    private readonly checkLocks: boolean,
  ) {
    super(inner);
  }

  put(table: string, key: Bytes, value: Bytes): void {
    if (this.checkLocks) this.tracker.checkPlainWrite(table, key);
    this.inner.put(table, key, value);
    this.tracker.recordWrite(table, key, this.inner.seq);
  }
  delete(table: string, key: Bytes): boolean {
    if (this.checkLocks) this.tracker.checkPlainWrite(table, key);
    const existed = this.inner.delete(table, key);
    if (existed) this.tracker.recordWrite(table, key, this.inner.seq);
    return existed;
  }
  clearTable(table: string): void {
    if (this.checkLocks) this.tracker.checkPlainClear(table);
    this.inner.clearTable(table);
    this.tracker.recordClear(table, this.inner.seq);
  }
  importTable(table: string, image: TableImage): void {
    // A table replaced as a whole conflicts like one cleared.
    if (this.checkLocks) this.tracker.checkPlainClear(table);
    importImage(this.inner, table, image);
    this.tracker.recordClear(table, this.inner.seq);
  }
  onRollback(undo: () => void): void {
    this.undo.push(undo);
  }
  onOutcome(action: (committed: boolean) => Promise<void> | undefined): void {
    this.outcome.push(action);
  }
}

export class TrackedEngine implements StorageEngine {
  /** While set, writes wait for it (fsync {lock: true}); reads go on. */
  private writeGate: { promise: Promise<void>; open: () => void } | undefined;

  constructor(
    readonly inner: StorageEngine,
    readonly tracker: ConflictTracker,
  ) {}

  get name(): EngineName {
    return this.inner.name;
  }
  get persistent(): boolean {
    return this.inner.persistent;
  }
  get maxKeyBytes(): number {
    return this.inner.maxKeyBytes;
  }
  get committedSeq(): number {
    return this.inner.committedSeq;
  }
  snapshot(): Snapshot {
    return this.inner.snapshot();
  }
  flush(): Promise<void> {
    return this.inner.flush();
  }
  stats(): EngineStats {
    return this.inner.stats();
  }
  tableSize(table: string): TableSize {
    return this.inner.tableSize(table);
  }
  close(): Promise<void> {
    return this.inner.close();
  }

  /** Writes wait until releaseWrites (fsyncLock); those already queued still commit. */
  holdWrites(): void {
    if (this.writeGate !== undefined) return;
    let open = (): void => undefined;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.writeGate = { promise, open };
  }

  releaseWrites(): void {
    const gate = this.writeGate;
    this.writeGate = undefined;
    gate?.open();
  }

  get writesHeld(): boolean {
    return this.writeGate !== undefined;
  }

  /** Resolves once writes may run (at once when they are not held). */
  async writesAllowed(): Promise<void> {
    while (this.writeGate !== undefined) await this.writeGate.promise;
  }

  /** A plain write: waits and retries while an open transaction holds a key it touches. */
  async write<T>(fn: (txn: WriteTxn) => T, options: WriteOptions): Promise<T> {
    if (this.writeGate !== undefined) await this.writesAllowed();
    const deadline = Date.now() + limits.plainWriteWaitMsMax;
    for (;;) {
      try {
        return await this.run(fn, options, true);
      } catch (e) {
        if (!(e instanceof WriteConflictRetry)) throw e;
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          throw new CommandError(
            ErrorCode.MaxTimeMSExpired,
            'operation exceeded time limit waiting for a transaction to finish',
          );
        }
        await Promise.race([
          e.holder.ended,
          new Promise((r) => setTimeout(r, Math.min(remaining, 1000)).unref()),
        ]);
      }
    }
  }

  /** The commit of a multi-document transaction: its own locks do not block it. */
  async writeUnchecked<T>(fn: (txn: WriteTxn) => T, options: WriteOptions): Promise<T> {
    if (this.writeGate !== undefined) await this.writesAllowed();
    return this.run(fn, options, false);
  }

  private async run<T>(
    fn: (txn: WriteTxn) => T,
    options: WriteOptions,
    checkLocks: boolean,
  ): Promise<T> {
    // The last callback run is the one that committed (or failed at commit): its outcome
    // actions run once the commit settles.
    let ran: TrackedTxn | undefined;
    let result: T;
    try {
      result = await this.inner.write((raw) => {
        const txn = new TrackedTxn(raw, this.tracker, checkLocks);
        try {
          const r = fn(txn);
          ran = txn;
          return r;
        } catch (e) {
          for (let i = txn.undo.length - 1; i >= 0; i--) txn.undo[i]?.();
          for (const action of txn.outcome) void action(false);
          throw e;
        }
      }, options);
    } catch (e) {
      // The callback returned but the commit failed: nothing of it is stored.
      if (ran !== undefined) for (const action of ran.outcome) void action(false);
      throw e;
    }
    this.tracker.maybePrune(this.inner.committedSeq);
    if (ran !== undefined && ran.outcome.length > 0) {
      const waits = ran.outcome
        .map((action) => action(true))
        .filter((p): p is Promise<void> => p !== undefined);
      if (waits.length > 0) await Promise.all(waits);
    }
    return result;
  }
}
