// The cluster clock: a hybrid logical clock of (seconds, increment) Timestamps. Every write
// takes the next timestamp; timestamps never go backwards, also across restarts, because
// the last one issued is restored from storage at start-up.

import { Timestamp } from 'bson';

export class ClusterClock {
  private secs: number;
  private inc: number;

  constructor(last?: Timestamp) {
    this.secs = last?.t ?? 0;
    this.inc = last?.i ?? 0;
  }

  /** The latest timestamp issued (the cluster time gossiped in replies). */
  now(): Timestamp {
    if (this.secs === 0) this.tick();
    return new Timestamp({ t: this.secs, i: this.inc });
  }

  /** Issue a new timestamp, strictly greater than every earlier one. */
  tick(): Timestamp {
    const wall = Math.floor(Date.now() / 1000);
    if (wall > this.secs) {
      this.secs = wall;
      this.inc = 1;
    } else {
      this.inc++;
      if (this.inc > 0xffffffff) {
        this.secs++;
        this.inc = 1;
      }
    }
    return new Timestamp({ t: this.secs, i: this.inc });
  }

  /** Move forward to at least `ts` (a client gossiped a later cluster time). */
  advanceTo(ts: Timestamp): void {
    if (ts.t > this.secs || (ts.t === this.secs && ts.i > this.inc)) {
      this.secs = ts.t;
      this.inc = ts.i;
    }
  }
}
