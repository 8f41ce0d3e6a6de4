// Where and when oplog entries are stored, and how long they are kept.
//
// Three ways to write an entry (docs/architecture.md, "The oplog and its write modes"):
//
// - default: inside the writer's own storage transaction, with the change it describes. Data
//   and entry commit together or not at all, so change streams are exactly-once across any
//   crash.
// - async (--oplog-async): the writer's transaction commits the data; the entry, already
//   encoded, waits in memory (in timestamp order) and a background drainer writes the
//   committed ones in batches, in order. The writer is acknowledged without waiting for it.
//   A crash loses what was queued.
// - nonlogged (--oplog-nonlogged): the oplog lives in a second LMDB environment that commits
//   without fsync; entries are drained there as with async, but the writer's acknowledgement
//   waits until its own entry is committed (visible). A process crash loses nothing
//   acknowledged (the pages are in the OS cache); a machine crash may lose the newest entries.
//   With both options, the drain into that environment is not awaited.
//
// Losses are never silent. In the deferred modes each writer's transaction also records the
// newest timestamp it issued (`issued`, in the main storage, durable with the data). At
// start-up, an oplog whose newest entry is older than `issued` lost entries of committed
// writes: the server then marks a history boundary (`historyFrom`, a no-op entry at a new
// timestamp) and change streams resuming from before it fail with ChangeStreamHistoryLost
// (286) instead of skipping events. Moving the oplog between storages (turning
// --oplog-nonlogged on or off) marks a boundary the same way.

import { Long, Timestamp } from 'bson';
import { encodeDocument } from '../bson/codec.js';
import { InvariantError } from '../errors.js';
import { limits } from '../limits.js';
import type { Logger } from '../log.js';
import type { Bytes, ReadView, StorageEngine, WriteTxn } from '../storage/engine.js';

export const oplogTable = 'oplog';
/** The tables holding the entries: what --oplog-nonlogged keeps in a storage of its own. */
export const oplogEntryTables: readonly string[] = [oplogTable];
/** Oplog bookkeeping in the main storage (written with the data it describes). */
const stateTable = 'oplog_state';
const issuedKey = Buffer.from('issued');
const historyFromKey = Buffer.from('historyFrom');
const locationKey = Buffer.from('location');

export function encodeTimestampKey(ts: Timestamp): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(ts.t >>> 0, 0);
  b.writeUInt32BE(ts.i >>> 0, 4);
  return b;
}

export function decodeTimestampKey(key: Uint8Array): Timestamp {
  const b = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return new Timestamp({ t: b.readUInt32BE(0), i: b.readUInt32BE(4) });
}

function compareKeys(a: Bytes, b: Bytes): number {
  return Buffer.compare(a, b);
}

function later(a: Timestamp, b: Timestamp): boolean {
  return a.t !== b.t ? a.t > b.t : a.i > b.i;
}

export interface OplogWriteMode {
  /** Entries are written by a background drainer; acknowledgements do not wait for them. */
  readonly async: boolean;
  /** The oplog lives in a second storage committing without fsync. */
  readonly nonlogged: boolean;
}

export const defaultOplogWriteMode: OplogWriteMode = { async: false, nonlogged: false };

/** An entry of a committed (or committing) write, waiting for the drainer. */
interface Pending {
  readonly seq: number;
  readonly key: Buffer;
  readonly bytes: Uint8Array;
  state: 'pending' | 'committed' | 'dropped';
}

/** A run of consecutive retained entries: pruning deletes whole runs. */
interface Segment {
  lastKey: Buffer;
  count: number;
  bytes: number;
}

/** What start-up finds in storage. */
export interface OplogState {
  /** Newest entry in the oplog. */
  readonly last: Timestamp | undefined;
  /** Newest timestamp a committed write issued in a deferred mode. */
  readonly issued: Timestamp | undefined;
  readonly historyFrom: Timestamp | undefined;
  /** Which storage held the oplog last time ('main' | 'nonlogged'); undefined for a new one. */
  readonly location: string | undefined;
}

export interface OplogStoreOptions {
  /** The main storage (data, and the oplog's bookkeeping). */
  readonly main: StorageEngine;
  /** The storage holding the oplog table: `main`, or the nonlogged environment. */
  readonly store: StorageEngine;
  readonly mode: OplogWriteMode;
  /** Entries are pruned, oldest first, once they take more than this many bytes. */
  readonly maxBytes: number;
  /** Called after the drainer made new entries visible (change streams wake on it). */
  readonly onWritten: () => void;
  readonly logger: Logger;
}

function readTimestamp(view: ReadView, key: Bytes): Timestamp | undefined {
  const v = view.get(stateTable, key);
  return v === undefined || v.length !== 8 ? undefined : decodeTimestampKey(v);
}

export class OplogStore {
  readonly mode: OplogWriteMode;
  /** Streams cannot resume from before this (entries were lost, or the oplog moved). */
  historyFrom: Timestamp | undefined;
  private readonly main: StorageEngine;
  private readonly store: StorageEngine;
  private readonly maxBytes: number;
  private readonly onWritten: () => void;
  private readonly logger: Logger;

  private readonly segments: Segment[] = [];
  private retainedBytes = 0;
  private pruning = false;

  private queue: Pending[] = [];
  private queueHead = 0;
  private appended = 0;
  /** Every queued entry with seq <= this one is written (or was dropped). */
  private writtenSeq = 0;
  private readonly waiters: Array<{ seq: number; resolve: () => void }> = [];
  private draining: Promise<void> | undefined;
  private drainScheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: OplogStoreOptions) {
    this.main = options.main;
    this.store = options.store;
    this.mode = options.mode;
    this.maxBytes = options.maxBytes;
    this.onWritten = options.onWritten;
    this.logger = options.logger;
  }

  get deferred(): boolean {
    return this.mode.async || this.mode.nonlogged;
  }

  /** Start-up: what storage says about the oplog (before the clock is restored). */
  static readState(main: StorageEngine, store: StorageEngine): OplogState {
    const m = main.snapshot();
    const s = store === main ? m : store.snapshot();
    try {
      const lastEntry = s.scan(oplogTable, { reverse: true }).next();
      const loc = m.get(stateTable, locationKey);
      // Data directories from before the location was recorded kept the oplog in the main storage.
      const inMain = m.scan(oplogTable).next().done !== true;
      return {
        last: lastEntry.done === true ? undefined : decodeTimestampKey(lastEntry.value.key),
        issued: readTimestamp(m, issuedKey),
        historyFrom: readTimestamp(m, historyFromKey),
        location:
          loc !== undefined ? Buffer.from(loc).toString('utf8') : inMain ? 'main' : undefined,
      };
    } finally {
      if (s !== m) s.release();
      m.release();
    }
  }

  /** The newest timestamp storage knows of: the clock resumes after it. */
  static newestTimestamp(state: OplogState): Timestamp | undefined {
    let best: Timestamp | undefined;
    for (const ts of [state.last, state.issued, state.historyFrom])
      if (ts !== undefined && (best === undefined || later(ts, best))) best = ts;
    return best;
  }

  /**
   * Start-up: learn the retained entries' sizes, and mark a history boundary if entries of
   * committed writes were lost or the oplog moved. `tick` issues the boundary's timestamp.
   */
  async open(state: OplogState, tick: () => Timestamp): Promise<void> {
    const s = this.store.snapshot();
    try {
      for (const e of s.scan(oplogTable)) this.track(Buffer.from(e.key), e.value.length);
    } finally {
      s.release();
    }
    this.historyFrom = state.historyFrom;
    if (state.last === undefined && state.issued === undefined && state.historyFrom === undefined) {
      // A new replica set starts its oplog with a no-op, as mongod's replSetInitiate does:
      // the oplog is never empty, so a stream opened before the first write can resume.
      await this.writeNoop(tick(), 'initiating set');
    }
    const here = this.mode.nonlogged ? 'nonlogged' : 'main';
    const lost =
      state.issued !== undefined && (state.last === undefined || later(state.issued, state.last));
    const moved = state.location !== undefined && state.location !== here;
    if (!lost && !moved) {
      if (state.location === undefined)
        await this.main.write((txn) => txn.put(stateTable, locationKey, Buffer.from(here)), {
          durable: true,
        });
      return;
    }
    const ts = tick();
    const key = encodeTimestampKey(ts);
    const why = lost
      ? 'oplog entries of committed writes were lost in a crash'
      : `the oplog moved to ${here} storage`;
    this.logger.warn('REPL', 7_360_001, 'Change stream history starts again', {
      reason: why,
      historyFrom: ts.toString(),
    });
    // Boundary first, durably: a crash before the no-op entry only repeats this next time.
    await this.main.write(
      (txn) => {
        txn.put(stateTable, historyFromKey, key);
        txn.put(stateTable, locationKey, Buffer.from(here));
        txn.put(stateTable, issuedKey, key);
        // Entries left in the main storage by an earlier mode are not read any more.
        if (moved && this.store !== this.main) txn.clearTable(oplogTable);
      },
      { durable: true },
    );
    await this.writeNoop(ts, `change stream history starts here: ${why}`);
    this.historyFrom = ts;
  }

  private async writeNoop(ts: Timestamp, msg: string): Promise<void> {
    const key = encodeTimestampKey(ts);
    const noop = encodeDocument({
      op: 'n',
      ns: '',
      o: { msg },
      ts,
      t: Long.fromInt(1),
      v: Long.fromInt(2),
      wall: new Date(),
    });
    await this.store.write((txn) => txn.put(oplogTable, key, noop), { durable: true });
    await this.store.flush();
    this.track(key, noop.length);
  }

  /** Seconds between the oldest and the newest entry stored (the oplog window); undefined when empty. */
  windowSeconds(): number | undefined {
    const snap = this.store.snapshot();
    try {
      const first = snap.scan(oplogTable).next();
      const last = snap.scan(oplogTable, { reverse: true }).next();
      if (first.done === true || last.done === true) return undefined;
      const from = decodeTimestampKey(first.value.key);
      const to = decodeTimestampKey(last.value.key);
      return to.high - from.high;
    } finally {
      snap.release();
    }
  }

  /** The oldest position a change stream may resume from in `view` (undefined: anywhere). */
  historyStart(view: ReadView): Timestamp | undefined {
    const first = view.scan(oplogTable).next();
    const oldest = first.done === true ? undefined : decodeTimestampKey(first.value.key);
    if (this.historyFrom === undefined) return oldest;
    return oldest === undefined || later(this.historyFrom, oldest) ? this.historyFrom : oldest;
  }

  /** Transactions that will call onWritten when they commit (entries written in place). */
  private readonly waking = new WeakSet<WriteTxn>();

  /**
   * Entries written in the writer's transaction are visible when it commits: then tell the
   * change streams waiting (once per transaction, whatever wrote the entries: CRUD, DDL,
   * transaction commit, TTL deletes). Deferred entries are announced by the drainer instead.
   */
  private wakeAfterCommit(txn: WriteTxn): void {
    if (txn.onOutcome === undefined || this.waking.has(txn)) return;
    this.waking.add(txn);
    txn.onOutcome((committed) => {
      if (committed) this.onWritten();
      return undefined;
    });
  }

  /** Inside the writer's storage transaction: store (or queue) one encoded entry. */
  append(txn: WriteTxn, key: Buffer, bytes: Uint8Array): void {
    if (this.closed) throw new InvariantError('oplog: write after shutdown');
    if (!this.deferred) {
      txn.put(oplogTable, key, bytes);
      this.track(key, bytes.length);
      this.wakeAfterCommit(txn);
      return;
    }
    if (txn.onOutcome === undefined)
      throw new InvariantError(
        'oplog: a deferred entry needs a write transaction that reports its outcome',
      );
    const p: Pending = { seq: ++this.appended, key, bytes, state: 'pending' };
    this.queue.push(p);
    txn.put(stateTable, issuedKey, key);
    txn.onOutcome((committed) => this.settle(p, committed));
  }

  private settle(p: Pending, committed: boolean): Promise<void> | undefined {
    p.state = committed ? 'committed' : 'dropped';
    this.scheduleDrain();
    if (!committed) return undefined;
    // Synchronous nonlogged: acknowledged once the entry is visible. Async: only when the
    // queue is over its bound (backpressure).
    if (!this.mode.async || this.queue.length - this.queueHead > limits.oplogPendingEntriesMax)
      return this.written(p.seq);
    return undefined;
  }

  private written(seq: number): Promise<void> {
    if (seq <= this.writtenSeq) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  private scheduleDrain(): void {
    if (this.drainScheduled || this.draining !== undefined || this.retryTimer !== undefined) return;
    this.drainScheduled = true;
    // Async: one event-loop turn gathers more entries per drain. Otherwise a microtask, after
    // the other writes of the same storage commit have reported their outcome.
    const start = (): void => {
      this.drainScheduled = false;
      this.draining ??= this.drain();
    };
    // (drain() always awaits before its body, so `draining` is set before the body can clear it.)
    if (this.mode.async) setImmediate(start);
    else queueMicrotask(start);
  }

  /** Committed entries at the head of the queue, in order; dropped ones are skipped. */
  private committedPrefix(): { batch: Pending[]; through: number } {
    const batch: Pending[] = [];
    let i = this.queueHead;
    let through = this.writtenSeq;
    for (; i < this.queue.length; i++) {
      const p = this.queue[i] as Pending;
      if (p.state === 'pending') break;
      if (p.state === 'committed') batch.push(p);
      through = p.seq;
      if (batch.length >= limits.oplogSegmentEntriesMax) break;
    }
    return { batch, through };
  }

  private async drain(): Promise<void> {
    await undefined;
    try {
      for (;;) {
        const { batch, through } = this.committedPrefix();
        if (through === this.writtenSeq) return;
        if (batch.length > 0) {
          await this.store.write(
            (txn) => {
              for (const p of batch) txn.put(oplogTable, p.key, p.bytes);
            },
            { durable: false },
          );
          for (const p of batch) this.track(p.key, p.bytes.length);
        }
        this.advance(through);
        if (batch.length > 0) this.onWritten();
      }
    } catch (e) {
      // Nothing was removed from the queue: try again shortly (the writers waiting keep waiting).
      this.logger.error('REPL', 7_360_002, 'Writing queued oplog entries failed; retrying', {
        error: e instanceof Error ? e.message : String(e),
      });
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.scheduleDrain();
      }, 100);
      this.retryTimer.unref();
    } finally {
      this.draining = undefined;
    }
  }

  private advance(through: number): void {
    while (
      this.queueHead < this.queue.length &&
      (this.queue[this.queueHead] as Pending).seq <= through
    )
      this.queueHead++;
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
    this.writtenSeq = through;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i] as { seq: number; resolve: () => void };
      if (w.seq <= through) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  /** Entries queued and not yet written (0 in the default mode). */
  get queued(): number {
    return this.queue.length - this.queueHead;
  }

  /** Whether any write committed with a timestamp in (from, to]; queued entries count. */
  changedBetween(from: Timestamp, to: Timestamp): boolean {
    const lo = encodeTimestampKey(from);
    const hi = encodeTimestampKey(to);
    for (let i = this.queueHead; i < this.queue.length; i++) {
      const p = this.queue[i] as Pending;
      if (p.state !== 'dropped' && compareKeys(p.key, lo) > 0 && compareKeys(p.key, hi) <= 0)
        return true;
    }
    const snap = this.store.snapshot();
    try {
      return (
        snap
          .scan(oplogTable, { start: lo, startInclusive: false, end: hi, endInclusive: true })
          .next().done !== true
      );
    } finally {
      snap.release();
    }
  }

  /** Clean shutdown: write everything queued (bounded wait), then flush the oplog's storage. */
  async close(): Promise<void> {
    const until = Date.now() + limits.oplogDrainAtShutdownMs;
    while (this.queued > 0 && Date.now() < until) {
      this.scheduleDrain();
      await (this.draining ?? new Promise((r) => setTimeout(r, 10)));
    }
    if (this.queued > 0)
      this.logger.error('REPL', 7_360_003, 'Oplog entries left unwritten at shutdown', {
        entries: this.queued,
      });
    this.closed = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    if (this.store !== this.main) await this.store.flush();
  }

  // ---- retention ----

  private track(key: Buffer, bytes: number): void {
    const last = this.segments.at(-1);
    // A run closes at a count, or at a share of the budget so small oplogs still prune.
    if (
      last !== undefined &&
      last.count < limits.oplogSegmentEntriesMax &&
      last.bytes < this.maxBytes / 16
    ) {
      last.lastKey = key;
      last.count++;
      last.bytes += bytes;
    } else {
      this.segments.push({ lastKey: key, count: 1, bytes });
    }
    this.retainedBytes += bytes;
  }

  /** Delete the oldest runs of entries beyond the size budget, one small transaction each. */
  async prune(): Promise<void> {
    if (this.pruning || this.closed || this.retainedBytes <= this.maxBytes) return;
    this.pruning = true;
    try {
      const target = Math.floor(this.maxBytes * 0.9);
      while (this.retainedBytes > target && this.segments.length > 1) {
        const seg = this.segments.shift() as Segment;
        this.retainedBytes -= seg.bytes;
        await this.store.write(
          (txn) => {
            const keys = [...txn.scan(oplogTable, { end: seg.lastKey, endInclusive: true })].map(
              (e) => Buffer.from(e.key),
            );
            for (const k of keys) txn.delete(oplogTable, k);
          },
          { durable: false },
        );
      }
    } finally {
      this.pruning = false;
    }
  }

  /** Retained bookkeeping, for tests and diagnostics. */
  retention(): { entries: number; bytes: number; runs: number } {
    return {
      entries: this.segments.reduce((n, s) => n + s.count, 0),
      bytes: this.retainedBytes,
      runs: this.segments.length,
    };
  }
}
