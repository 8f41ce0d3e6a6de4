// Server-side cursors: a plan (or any row source) that getMore resumes batch by batch.
// Each batch reads from a fresh snapshot that is released before the reply is sent.

import {
  checkOutgoingDocument,
  documentTooLargeError,
  internalDocumentBytesMax,
} from '../../bson/outgoing.js';
import { Long } from 'bson';
import { calculateObjectSize } from 'bson';
import { StoredBytes, sendAsDecodedFrom, sendableAsStored } from '../../bson/codec.js';
import type { BsonDocument } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { ViewLease } from '../../txn/access.js';
import type { PlanStage, Row } from './stages.js';
import { yieldSlice } from './drive.js';
import type { ExecControl, RestoreCheck } from './drive.js';
import { NEED_TIME, armSlice, disarmSlice, sliceDue } from './yield.js';
import { randomBytes } from 'node:crypto';

export interface CursorOwner {
  /** Logical session id (hex of the lsid UUID) or undefined. */
  readonly sessionKey?: string | undefined;
  readonly txnNumber?: number | undefined;
}

export interface CursorOptions {
  readonly ns: string;
  /** Where each batch reads from: a fresh snapshot, or the owning transaction's view. */
  readonly views: () => ViewLease;
  readonly owner: CursorOwner;
  /** Maps a produced row to the document sent to the client. */
  readonly output?: (row: Row) => BsonDocument;
  readonly tailable?: boolean;
  readonly awaitData?: boolean;
  /** A batch's cap on documents when getMore gives no batchSize. */
  readonly defaultBatchSize?: number;
  readonly comment?: unknown;
  /** Frees what the plan holds beyond memory (spill files): called once, when the cursor is exhausted or closed. */
  readonly onClose?: () => void;
  /** Checked when a batch resumes after a yield: the plan is still valid (collection not dropped). */
  readonly restore?: RestoreCheck | undefined;
  /**
   * Documents read from storage and sent unchanged go out as their stored bytes
   * (sendAsDecodedFrom): for a cursor whose plan never changes a document in place (find).
   * A record nothing has decoded goes into the batch as a StoredBytes entry, typed as a
   * document: such a batch must go straight into a reply (encodeReply copies the bytes).
   */
  readonly sendStoredBytes?: boolean;
  /** find's noCursorTimeout: the idle reaper leaves the cursor alone (it still dies with its session). */
  readonly noCursorTimeout?: boolean;
  /** The command that opened the cursor, secrets redacted ($currentOp's cursor.originatingCommand). */
  readonly originatingCommand?: BsonDocument;
}

export class ServerCursor {
  readonly id: Long;
  readonly createdAt = Date.now();
  lastUsedMs = Date.now();
  /** True while a getMore is running on it (mongod "pinned"); kills wait or are refused. */
  inUse = false;
  killed = false;
  /** With access control: the user ("user@db") who opened it; getMore and killCursors check it. */
  authenticatedUser: string | undefined;
  /**
   * Why the plan can no longer run ("collection dropped", ...): set when its collection went
   * away between batches. mongod keeps such a cursor until the next getMore, which fails
   * with QueryPlanKilled and this reason; so do we.
   */
  invalidation: string | undefined;
  private stash: Row | undefined;
  private exhausted = false;
  private released = false;
  nReturned = 0;
  /** Batches sent to the client, the first one included (mongod's nBatchesReturned). */
  nBatchesReturned = 0;
  /**
   * What is left of the time limit (maxTimeMS) the cursor was opened with: a non-tailable
   * cursor spends one budget across its getMores, as mongod's leftover maxTime.
   */
  maxTimeLeftMs: number | undefined;

  constructor(
    readonly plan: PlanStage,
    readonly options: CursorOptions,
  ) {
    this.id = newCursorId();
  }

  get ns(): string {
    return this.options.ns;
  }

  get isExhausted(): boolean {
    return this.exhausted && this.stash === undefined;
  }

  /** Whether dropping or renaming its namespace leaves it open (a change stream reports it). */
  get outlivesNamespace(): boolean {
    return false;
  }

  /**
   * Pull up to `batchSize` documents (0 or undefined: no count limit) and at most ~16 MiB.
   * Runs on one snapshot, held across the yields of the batch (yield.ts): every few
   * milliseconds the event loop is given back, then `ctl` (the operation running the batch)
   * and the cursor's `restore` check (the plan still valid) are run. Leaves `isExhausted` true when the plan
   * has nothing more.
   */
  async nextBatch(batchSize: number | undefined, ctl: ExecControl): Promise<BsonDocument[]> {
    const out: BsonDocument[] = [];
    let bytes = 0;
    const max = batchSize === undefined || batchSize <= 0 ? Infinity : batchSize;
    const lease = this.options.views();
    const snap = lease.view;
    // A cursor killed while its batch yields (session killed, namespace dropped) stops there.
    const resume = (): void => {
      if (this.killed)
        throw new CommandError(
          ErrorCode.CursorKilled,
          `cursor id ${this.id.toString()} was killed`,
        );
      this.options.restore?.();
    };
    armSlice();
    try {
      while (out.length < max) {
        let row = this.stash;
        this.stash = undefined;
        if (row === undefined && !this.exhausted) {
          const r = this.plan.next(snap);
          if (r === NEED_TIME) {
            await yieldSlice(ctl, resume);
            continue;
          }
          row = r;
        }
        if (row === undefined) {
          // A tailable cursor's plan has nothing more yet; the next batch asks it again.
          if (this.options.tailable !== true) this.exhausted = true;
          break;
        }
        const stored = this.storedBytesOf(row);
        if (stored !== undefined) {
          const size = stored.bytes.length + arrayElementOverhead(out.length);
          if (out.length > 0 && bytes + size > limits.batchSizeBytesMax) {
            this.stash = row;
            break;
          }
          // Typed as a document: sendStoredBytes batches go straight into a reply (encodeReply).
          out.push(stored as unknown as BsonDocument);
          bytes += size;
          if (sliceDue()) await yieldSlice(ctl, resume);
          continue;
        }
        const doc = this.options.output ? this.options.output(row) : row.doc;
        // Checked before it is sized or encoded: too deep, too large or unencodable fails
        // the operation with mongod's error, and the server keeps serving.
        checkOutgoingDocument(doc);
        const size = calculateObjectSize(doc);
        if (size > internalDocumentBytesMax) throw documentTooLargeError(doc, size);
        if (this.options.sendStoredBytes === true) sendAsDecodedFrom(doc, size);
        const cost = size + arrayElementOverhead(out.length);
        if (out.length > 0 && bytes + cost > limits.batchSizeBytesMax) {
          this.stash = row;
          break;
        }
        out.push(doc);
        bytes += cost;
        if (sliceDue()) await yieldSlice(ctl, resume);
      }
      // A full batch ends the cursor only when the plan knows it has nothing more (a limit
      // reached, a sort or queue returned): as mongod, a cursor whose last batch was merely
      // full stays open, and the next getMore answers an empty batch with id 0.
      if (
        !this.exhausted &&
        this.stash === undefined &&
        this.options.tailable !== true &&
        this.plan.isEOF?.() === true
      )
        this.exhausted = true;
    } catch (e) {
      // A failed batch ends the cursor (getMore drops it; find/aggregate never register it).
      this.releaseResources();
      throw e;
    } finally {
      disarmSlice();
      lease.release();
    }
    if (this.isExhausted) this.releaseResources();
    this.nReturned += out.length;
    this.lastUsedMs = Date.now();
    return out;
  }

  /**
   * The row's stored bytes as a batch entry, when the cursor sends stored bytes, nothing
   * reshapes the row, nothing has read its document, and the bytes are what the decode/encode
   * path would send (sendableAsStored); else undefined and the row goes the decoding way.
   */
  private storedBytesOf(row: Row): StoredBytes | undefined {
    if (this.options.sendStoredBytes !== true || this.options.output !== undefined)
      return undefined;
    const raw = row.bytes;
    if (raw === undefined || row.decoded !== false) return undefined;
    if (raw.length > internalDocumentBytesMax || !sendableAsStored(raw)) return undefined;
    return new StoredBytes(raw);
  }

  /** The collection went away: free the plan's resources; the next getMore reports `reason`. */
  invalidate(reason: string): void {
    this.invalidation ??= reason;
    this.releaseResources();
  }

  /** Marks the cursor killed and frees its resources (killCursors, reaping, session end, shutdown). */
  close(): void {
    this.killed = true;
    this.releaseResources();
  }

  private releaseResources(): void {
    if (this.released) return;
    this.released = true;
    this.options.onClose?.();
  }
}

function newCursorId(): Long {
  // Positive, non-zero 63-bit ids, unguessable across connections.
  for (;;) {
    const b = randomBytes(8);
    b[0] = (b[0] ?? 0) & 0x7f;
    const id = Long.fromBytesBE([...b]);
    if (!id.isZero()) return id;
  }
}

export class CursorManager {
  private readonly cursors = new Map<string, ServerCursor>();

  get size(): number {
    return this.cursors.size;
  }

  register(cursor: ServerCursor): void {
    if (this.cursors.size >= limits.openCursorsMax) {
      throw new CommandError(
        ErrorCode.ExceededMemoryLimit,
        `too many open cursors (max ${limits.openCursorsMax})`,
      );
    }
    this.cursors.set(cursor.id.toString(), cursor);
  }

  get(id: Long): ServerCursor | undefined {
    return this.cursors.get(id.toString());
  }

  remove(id: Long): boolean {
    const c = this.cursors.get(id.toString());
    if (c === undefined) return false;
    c.close();
    return this.cursors.delete(id.toString());
  }

  /** Close cursors idle for longer than the timeout. Returns how many were closed. */
  reapIdle(nowMs: number, idleTimeoutMs: number = limits.cursorIdleTimeoutMs): number {
    let n = 0;
    for (const [key, c] of this.cursors) {
      if (!c.inUse && c.options.noCursorTimeout !== true && nowMs - c.lastUsedMs > idleTimeoutMs) {
        c.close();
        this.cursors.delete(key);
        n++;
      }
    }
    return n;
  }

  /** Close every cursor that belongs to a session (the session ended or was killed). */
  killForSession(sessionKey: string): number {
    let n = 0;
    for (const [key, c] of this.cursors) {
      if (c.options.owner.sessionKey === sessionKey) {
        c.close();
        this.cursors.delete(key);
        n++;
      }
    }
    return n;
  }

  /**
   * The collection at `ns` was dropped or renamed: every cursor on it but change streams fails
   * its next getMore with QueryPlanKilled and `reason`, as mongod's do.
   */
  killForNamespace(ns: string, reason = 'collection dropped'): void {
    for (const c of this.cursors.values())
      if (c.ns === ns && !c.outlivesNamespace) c.invalidate(reason);
  }

  /** Close every cursor (shutdown). */
  closeAll(): void {
    for (const c of this.cursors.values()) c.close();
    this.cursors.clear();
  }

  all(): IterableIterator<ServerCursor> {
    return this.cursors.values();
  }
}

/**
 * What a document costs the reply's batch array beyond its own bytes: the element's type byte,
 * its index as a name, and that name's NUL. mongod sizes a batch by the array it builds, so a
 * batch of many small documents stays inside the reply limit too.
 */
function arrayElementOverhead(index: number): number {
  return 2 + String(index).length;
}
