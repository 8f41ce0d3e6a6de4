// Snapshot reads outside transactions (readConcern {level: "snapshot"}): a read gets a
// storage snapshot labelled with the cluster time it reflects, and later reads naming that
// atClusterTime (the rest of a snapshot session, or getMores) read the same snapshot. A
// bounded number of labelled snapshots is kept for a bounded time; older times answer
// SnapshotTooOld, as mongod does past its history window.

import type { Timestamp } from 'bson';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import type { Snapshot, StorageEngine } from '../storage/engine.js';

interface Entry {
  readonly ts: Timestamp;
  readonly snapshot: Snapshot;
  lastUsedMs: number;
}

function cmp(a: Timestamp, b: Timestamp): number {
  return a.t - b.t || a.i - b.i;
}

export class SnapshotHistory {
  private readonly entries: Entry[] = [];

  constructor(
    private readonly engine: StorageEngine,
    /** The newest cluster time whose writes are all visible to a new snapshot. */
    private readonly now: () => Timestamp,
    /** Whether any write committed with a timestamp in (from, to]. */
    private readonly changedBetween: (from: Timestamp, to: Timestamp) => boolean,
  ) {}

  /** A snapshot of the present, labelled with the current cluster time. */
  latest(): { ts: Timestamp; snapshot: Snapshot } {
    const snapshot = this.engine.snapshot();
    const ts = this.now();
    this.remember({ ts, snapshot, lastUsedMs: Date.now() });
    return { ts, snapshot };
  }

  /** The snapshot that shows the data as of `ts`. */
  at(ts: Timestamp): Snapshot {
    this.expire(Date.now());
    const now = this.now();
    if (cmp(ts, now) > 0) {
      throw new CommandError(
        ErrorCode.SnapshotUnavailable,
        `Requested snapshot timestamp ${ts.t}.${ts.i} is later than the latest cluster time ${now.t}.${now.i}`,
      );
    }
    // The newest labelled snapshot at or before ts, valid if nothing committed since its label.
    let best: Entry | undefined;
    for (const e of this.entries)
      if (cmp(e.ts, ts) <= 0 && (best === undefined || cmp(e.ts, best.ts) > 0)) best = e;
    if (best !== undefined && !this.changedBetween(best.ts, ts)) {
      best.lastUsedMs = Date.now();
      return best.snapshot;
    }
    if (!this.changedBetween(ts, now)) return this.latest().snapshot;
    throw new CommandError(
      ErrorCode.SnapshotTooOld,
      `Read timestamp ${ts.t}.${ts.i} is older than the oldest available timestamp.`,
    );
  }

  private remember(e: Entry): void {
    this.expire(e.lastUsedMs);
    this.entries.push(e);
    while (this.entries.length > limits.labelledSnapshotsMax)
      this.entries.shift()?.snapshot.release();
  }

  private expire(nowMs: number): void {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i] as Entry;
      if (nowMs - e.lastUsedMs > limits.labelledSnapshotIdleMs) {
        e.snapshot.release();
        this.entries.splice(i, 1);
      }
    }
  }

  releaseAll(): void {
    for (const e of this.entries) e.snapshot.release();
    this.entries.length = 0;
  }
}
