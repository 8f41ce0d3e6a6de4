// Reading the oplog. Everything that reads oplog entries goes through this module: change
// streams (./change-events.ts builds their events), `find` on local.oplog.rs, snapshot reads
// asking whether anything committed between two cluster times, and the checks of where a
// change stream may start or resume. Only the store (./oplog-store.ts, which writes, prunes
// and recovers the table) reads it otherwise (test/unit/architecture.test.ts checks both).
//
// Entries are keyed by their timestamp (8 bytes, big-endian seconds then increment), so key
// order is timestamp order; the value is the entry's BSON. An OplogCursor remembers the last
// key it returned and re-seeks after it in the next view it is handed, so each batch of a
// cursor can read its own snapshot, as the collection scans of src/query/exec/stages.ts do.

import type { Timestamp } from 'bson';
import { decodeDocument } from '../bson/codec.js';
import type { BsonDocument } from '../bson/types.js';
import type { Entry, ReadView, ScanOptions } from '../storage/engine.js';
import type { ClusterClock } from './clock.js';
import { decodeTimestampKey, encodeTimestampKey, oplogTable } from './oplog-store.js';
import type { OplogStore } from './oplog-store.js';

/** One stored entry, undecoded. */
export interface OplogRecord {
  readonly ts: Timestamp;
  readonly bytes: Uint8Array;
}

export function decodeOplogEntry(record: OplogRecord): BsonDocument {
  return decodeDocument(record.bytes);
}

export interface OplogCursorOptions {
  /** Start strictly after this timestamp (in reverse: strictly before); default: the first. */
  readonly after?: Timestamp | undefined;
  readonly reverse?: boolean | undefined;
}

/** Entries in timestamp order (or reverse), resumable across views. */
export class OplogCursor {
  private readonly reverse: boolean;
  /** The last entry returned (or where to start after). */
  private last: Timestamp | undefined;
  private boundView: ReadView | undefined;
  private it: Iterator<Entry> | undefined;

  constructor(options: OplogCursorOptions = {}) {
    this.reverse = options.reverse === true;
    this.last = options.after;
  }

  /**
   * The next entry in `view` after the last one returned; undefined when `view` has no more
   * (a later view may: the next call reads from the same position again).
   */
  next(view: ReadView): OplogRecord | undefined {
    if (view !== this.boundView || this.it === undefined) {
      this.boundView = view;
      this.it = view.scan(oplogTable, this.range());
    }
    const r = this.it.next();
    if (r.done === true) {
      this.it = undefined;
      return undefined;
    }
    const ts = decodeTimestampKey(r.value.key);
    this.last = ts;
    return { ts, bytes: r.value.value };
  }

  private range(): ScanOptions {
    if (this.last === undefined) return { reverse: this.reverse };
    const after = encodeTimestampKey(this.last);
    return this.reverse
      ? { reverse: true, end: after, endInclusive: false }
      : { start: after, startInclusive: false };
  }
}

/** The oplog as its readers see it: positions, history bounds and changes between times. */
export class OplogReader {
  constructor(
    private readonly store: OplogStore,
    private readonly clock: ClusterClock,
  ) {}

  /** The timestamp of the newest entry in `view`. */
  newestTimestamp(view: ReadView): Timestamp | undefined {
    return new OplogCursor({ reverse: true }).next(view)?.ts;
  }

  /** Whether `view` holds an entry at exactly `ts` (a resume token's event). */
  hasEntryAt(view: ReadView, ts: Timestamp): boolean {
    return view.get(oplogTable, encodeTimestampKey(ts)) !== undefined;
  }

  /**
   * Where a change stream opened now starts: after the newest entry, or, when entries are
   * written off the writers' path, after the newest timestamp issued (so it never shows a
   * change older than its start that is still queued).
   */
  startPosition(view: ReadView): Timestamp {
    const latest = this.newestTimestamp(view);
    if (this.store.deferred || latest === undefined) return this.clock.now();
    return latest;
  }

  /** The oldest position a change stream may resume from in `view` (undefined: anywhere). */
  historyStart(view: ReadView): Timestamp | undefined {
    return this.store.historyStart(view);
  }

  /** Whether any write committed with a timestamp in (from, to] (snapshot reads). */
  changedBetween(from: Timestamp, to: Timestamp): boolean {
    return this.store.changedBetween(from, to);
  }
}

/**
 * The `op` and `ns` of an encoded entry without decoding it (they are its first two fields),
 * so that a change stream can pass over other collections' entries cheaply. undefined when
 * the entry does not start that way.
 */
export function peekOpAndNs(bytes: Uint8Array): { op: string; ns: string } | undefined {
  // Each is a string element: 0x02, its name and NUL, an int32 length, the bytes and NUL.
  const op = stringElementAt(bytes, 4, 0x6f, 0x70); // "op"
  if (op === undefined) return undefined;
  const ns = stringElementAt(bytes, op.end, 0x6e, 0x73); // "ns"
  if (ns === undefined) return undefined;
  return { op: text(bytes, op.start, op.end - 1), ns: text(bytes, ns.start, ns.end - 1) };
}

/** A string element with a two-letter name at `at`: where its bytes start and where it ends. */
function stringElementAt(
  b: Uint8Array,
  at: number,
  c0: number,
  c1: number,
): { start: number; end: number } | undefined {
  if (
    at + 8 > b.length ||
    b[at] !== 0x02 ||
    b[at + 1] !== c0 ||
    b[at + 2] !== c1 ||
    b[at + 3] !== 0
  )
    return undefined;
  const p = at + 4;
  const len =
    ((b[p] as number) |
      ((b[p + 1] as number) << 8) |
      ((b[p + 2] as number) << 16) |
      ((b[p + 3] as number) << 24)) >>>
    0;
  const start = p + 4;
  if (len < 1 || start + len > b.length) return undefined;
  return { start, end: start + len };
}

function text(b: Uint8Array, start: number, end: number): string {
  return Buffer.isBuffer(b)
    ? b.toString('utf8', start, end)
    : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8', start, end);
}
