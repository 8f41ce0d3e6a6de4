// Write-conflict detection for multi-document transactions (snapshot isolation, first
// writer wins), kept in memory beside the storage engine:
//
// - a transaction that writes a key *locks* it until it commits or aborts; another
//   transaction writing the same key gets WriteConflict at once (as with mongod's document
//   locks), and a plain write waits for the lock holder to finish (mongod's
//   writeConflictRetry), then runs again;
// - a commit records the keys it wrote with its sequence number, so a transaction whose
//   snapshot is older than that commit gets WriteConflict when it writes one of them.
//
// Commit records are pruned once every open snapshot (and every future one) already sees
// them: below the oldest open snapshot and the engine's committed sequence. A write whose
// callback ran but whose commit is not yet visible stays recorded, so a snapshot taken in
// between cannot miss it.
//
// While no transaction is open the records cost almost nothing: a plain write's keys are
// queued as they are (no key string built) and either turned into records when a transaction
// begins (its snapshot may predate writes whose commit is not visible yet) or dropped once
// their commit is visible with still no transaction open (every later snapshot sees them).

import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import type { Bytes } from '../storage/engine.js';

/** What the tracker needs to know about an open transaction. */
export interface ConflictOwner {
  /** Sequence number of the snapshot the transaction reads from. */
  readonly snapshotSeq: number;
  /** Resolves when the transaction has committed or aborted. */
  readonly ended: Promise<void>;
}

/** Thrown inside a plain write that touched a key locked by an open transaction. */
export class WriteConflictRetry extends Error {
  constructor(readonly holder: ConflictOwner) {
    super('write waits for a transaction that holds the document');
    this.name = 'WriteConflictRetry';
  }
}

export function writeConflictError(): CommandError {
  return new CommandError(
    ErrorCode.WriteConflict,
    'Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.',
  );
}

function keyId(table: string, key: Bytes): string {
  return `${table}\u0000${Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1')}`;
}

export class ConflictTracker {
  private readonly open = new Set<ConflictOwner>();
  private readonly lastWrite = new Map<string, number>();
  private readonly tableCleared = new Map<string, number>();
  private readonly locks = new Map<string, ConflictOwner>();
  private readonly locksByOwner = new Map<ConflictOwner, string[]>();
  /** Writes recorded while no transaction was open, not yet records: table, key, seq. */
  private pendingTables: string[] = [];
  private pendingKeys: Bytes[] = [];
  private pendingSeqs: number[] = [];

  get active(): boolean {
    return this.open.size > 0;
  }

  begin(owner: ConflictOwner): void {
    for (let i = 0; i < this.pendingKeys.length; i++) {
      const id = keyId(this.pendingTables[i] as string, this.pendingKeys[i] as Bytes);
      const seq = this.pendingSeqs[i] as number;
      if ((this.lastWrite.get(id) ?? 0) < seq) this.lastWrite.set(id, seq);
    }
    this.clearPending();
    this.open.add(owner);
  }

  private clearPending(): void {
    this.pendingTables = [];
    this.pendingKeys = [];
    this.pendingSeqs = [];
  }

  /** Drop queued writes every snapshot from now on sees (no transaction is open). */
  private dropVisiblePending(committedSeq: number): void {
    if (this.pendingSeqs.every((seq) => seq <= committedSeq)) {
      this.clearPending();
      return;
    }
    const keep = this.pendingSeqs.map((seq) => seq > committedSeq);
    this.pendingTables = this.pendingTables.filter((_, i) => keep[i]);
    this.pendingKeys = this.pendingKeys.filter((_, i) => keep[i]);
    this.pendingSeqs = this.pendingSeqs.filter((_, i) => keep[i]);
  }

  /** The owner committed or aborted: release its locks. */
  end(owner: ConflictOwner): void {
    if (!this.open.delete(owner)) return;
    for (const id of this.locksByOwner.get(owner) ?? []) {
      if (this.locks.get(id) === owner) this.locks.delete(id);
    }
    this.locksByOwner.delete(owner);
  }

  /** Drop commit records every open and future snapshot already sees. */
  prune(committedSeq: number): void {
    let floor = committedSeq;
    for (const o of this.open) floor = Math.min(floor, o.snapshotSeq);
    for (const [id, seq] of this.lastWrite) if (seq <= floor) this.lastWrite.delete(id);
    for (const [t, seq] of this.tableCleared) if (seq <= floor) this.tableCleared.delete(t);
  }

  /** Prune when the records have grown; cheap to call after every commit. */
  maybePrune(committedSeq: number): void {
    if (this.open.size === 0 && this.pendingSeqs.length > 0) this.dropVisiblePending(committedSeq);
    if (
      this.lastWrite.size > limits.conflictRecordsPruneAt ||
      (this.open.size === 0 && this.lastWrite.size > 0)
    )
      this.prune(committedSeq);
  }

  /** A transaction is about to write a key: conflict, or take the lock. */
  checkTransactionWrite(owner: ConflictOwner, table: string, key: Bytes): void {
    const id = keyId(table, key);
    const holder = this.locks.get(id);
    if (holder !== undefined && holder !== owner) throw writeConflictError();
    if ((this.lastWrite.get(id) ?? 0) > owner.snapshotSeq) throw writeConflictError();
    if ((this.tableCleared.get(table) ?? 0) > owner.snapshotSeq) throw writeConflictError();
    if (holder === undefined) {
      this.locks.set(id, owner);
      let list = this.locksByOwner.get(owner);
      if (list === undefined) {
        list = [];
        this.locksByOwner.set(owner, list);
      }
      list.push(id);
    }
  }

  /** A plain (non-transaction) write is about to touch a key. */
  checkPlainWrite(table: string, key: Bytes): void {
    if (this.locks.size === 0) return;
    const holder = this.locks.get(keyId(table, key));
    if (holder !== undefined) throw new WriteConflictRetry(holder);
  }

  /** A plain write is about to clear a table: wait for any transaction holding keys in it. */
  checkPlainClear(table: string): void {
    if (this.locks.size === 0) return;
    const prefix = `${table}\u0000`;
    for (const [id, holder] of this.locks)
      if (id.startsWith(prefix)) throw new WriteConflictRetry(holder);
  }

  /** A commit wrote a key (called inside the storage transaction, with its seq). */
  recordWrite(table: string, key: Bytes, seq: number): void {
    if (this.open.size === 0) {
      this.pendingTables.push(table);
      this.pendingKeys.push(key);
      this.pendingSeqs.push(seq);
    } else this.lastWrite.set(keyId(table, key), seq);
  }

  recordClear(table: string, seq: number): void {
    this.tableCleared.set(table, seq);
  }
}
