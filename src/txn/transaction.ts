// A multi-document transaction: reads from one snapshot taken at its first operation, writes
// buffered in an overlay over that snapshot (its own writes are visible to it, to no one
// else), conflicts detected at write time (ConflictTracker), and a commit that applies the
// whole overlay in one storage write transaction, so the writes become visible atomically.

import type { BsonDocument } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import type { Bytes, ScanOptions, Snapshot, StorageEngine, WriteTxn } from '../storage/engine.js';
import { DelegatingWriteTxn } from '../storage/delegating-txn.js';
import { fullRange } from '../storage/key-range.js';
import type { KeyRange } from '../storage/key-range.js';
import { OverlayTxn, tombstone } from '../storage/write-overlay.js';
import type { ConflictOwner, ConflictTracker } from './conflicts.js';
import type { TrackedEngine } from './tracked-engine.js';

export type TransactionState = 'inProgress' | 'committed' | 'aborted';

function toScanOptions(r: KeyRange): ScanOptions {
  return {
    ...(r.lo === undefined ? {} : { start: r.lo }),
    startInclusive: r.loInclusive,
    ...(r.hi === undefined ? {} : { end: r.hi }),
    endInclusive: r.hiInclusive,
    reverse: r.reverse,
  };
}

/** The transaction's read/write view: the overlay, with conflict checks on every write. */
export class TransactionView extends DelegatingWriteTxn {
  constructor(
    readonly transaction: Transaction,
    overlay: OverlayTxn,
    private readonly tracker: ConflictTracker,
  ) {
    super(overlay);
  }

  /** The transaction's snapshot, not the overlay's. */
  override get seq(): number {
    return this.transaction.snapshotSeq;
  }
  put(table: string, key: Bytes, value: Bytes): void {
    this.tracker.checkTransactionWrite(this.transaction, table, key);
    this.inner.put(table, key, value);
  }
  delete(table: string, key: Bytes): boolean {
    if (this.inner.get(table, key) === undefined) return false;
    this.tracker.checkTransactionWrite(this.transaction, table, key);
    return this.inner.delete(table, key);
  }
  clearTable(): void {
    throw new CommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      'Cannot drop a collection or index in a multi-document transaction.',
    );
  }
  onRollback(undo: () => void): void {
    this.transaction.rollbacks.push(undo);
  }
}

export class Transaction implements ConflictOwner {
  state: TransactionState = 'inProgress';
  readonly startedAtMs = Date.now();
  readonly ended: Promise<void>;
  /** In-memory changes to undo if the transaction aborts (catalog mirror). */
  readonly rollbacks: Array<() => void> = [];
  /**
   * Run first inside the commit's storage transaction, before the buffered writes (the
   * catalog's: namespace checks, then its in-memory mirror); a throw fails the commit.
   */
  readonly beforeApply: Array<(raw: WriteTxn) => void> = [];
  /** Oplog operations of its writes, written as one applyOps entry at commit. */
  readonly oplogOps: BsonDocument[] = [];
  /** Number of statements run in it (mongod's stmtId counter inside transactions). */
  statements = 0;
  private resolveEnded: () => void = () => undefined;
  private snap: Snapshot | undefined;
  private txView: TransactionView | undefined;
  private overlay: OverlayTxn | undefined;

  constructor(
    readonly txnNumber: number,
    private readonly engine: StorageEngine,
    private readonly tracker: ConflictTracker,
    readonly readConcern: BsonDocument | undefined,
  ) {
    this.ended = new Promise((r) => (this.resolveEnded = r));
  }

  get snapshotSeq(): number {
    return this.snap?.seq ?? this.engine.committedSeq;
  }

  /** The view all of the transaction's reads and writes go through (snapshot taken on first use). */
  view(): TransactionView {
    if (this.state !== 'inProgress') {
      throw new CommandError(
        ErrorCode.NoSuchTransaction,
        `Transaction ${this.txnNumber} has been ${this.state}.`,
      );
    }
    if (this.txView === undefined) {
      const snap = this.engine.snapshot();
      this.snap = snap;
      const base = {
        get: (t: string, k: Bytes) => snap.get(t, k),
        scan: (t: string, r: KeyRange) => snap.scan(t, toScanOptions(r)),
        count: (t: string) => snap.count(t),
      };
      this.overlay = new OverlayTxn(base, snap.seq, this.engine.maxKeyBytes);
      this.tracker.begin(this);
      this.txView = new TransactionView(this, this.overlay, this.tracker);
    }
    return this.txView;
  }

  /** Whether it has buffered writes to `table` (an index build waits for it to end). */
  writesTo(table: string): boolean {
    return this.state === 'inProgress' && this.overlay?.tables.has(table) === true;
  }

  get hasWrites(): boolean {
    return this.overlay !== undefined && this.overlay.tables.size > 0;
  }

  /**
   * Apply every buffered write in one storage transaction: the `beforeApply` hooks first,
   * then the writes, then `inCommit` (the oplog entry and session record go in the same commit).
   */
  async commit(
    engine: TrackedEngine,
    durable: boolean,
    inCommit: (raw: WriteTxn) => void,
  ): Promise<void> {
    if (this.state !== 'inProgress')
      throw new CommandError(
        ErrorCode.NoSuchTransaction,
        `Transaction ${this.txnNumber} has been ${this.state}.`,
      );
    const overlay = this.overlay;
    try {
      await engine.writeUnchecked(
        (raw) => {
          for (const hook of this.beforeApply) hook(raw);
          if (overlay !== undefined) {
            for (const [table, w] of overlay.tables) {
              if (w.cleared) raw.clearTable(table);
              const cursor = w.entries.cursor(fullRange);
              while (cursor.next()) {
                const key = cursor.key as Bytes;
                if (cursor.value === tombstone) raw.delete(table, key);
                else raw.put(table, key, cursor.value as Bytes);
              }
            }
          }
          inCommit(raw);
        },
        { durable },
      );
      this.finish('committed');
    } catch (e) {
      this.abort();
      throw e;
    }
  }

  abort(): void {
    if (this.state !== 'inProgress') return;
    for (let i = this.rollbacks.length - 1; i >= 0; i--) this.rollbacks[i]?.();
    this.finish('aborted');
  }

  private finish(state: TransactionState): void {
    this.state = state;
    this.overlay?.end();
    this.snap?.release();
    this.tracker.end(this);
    this.resolveEnded();
  }
}
