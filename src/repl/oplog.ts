// The oplog: one entry per change, written inside the same storage transaction as the change
// (the catalog calls this observer from its write path), keyed by its cluster timestamp.
// Because storage write callbacks run one at a time in commit order, timestamps are issued
// in commit order too: the oplog is a totally ordered history. Statements of a
// multi-document transaction are collected and written at commit as one applyOps entry.
//
// Entries follow mongod's shape: {op, ns, ui, o, o2?, ts, t, v, wall, lsid?, txnNumber?,
// stmtId?}. Update entries use `o: {$v: 2, diff}` with mongod's nested diff (src/update/diff.ts),
// replacements store the new document; both with `o2: {_id}`. Entries written before the diff
// was nested have flat dotted paths in `u` and `d`: change streams still read them
// (src/repl/update-description.ts).

import { Binary, Int32, Long, Timestamp } from 'bson';
import { encodeDocument, decodeDocument } from '../bson/codec.js';
import { getOwn } from '../bson/document.js';
import type { BsonDocument } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import type { Collection } from '../catalog/collection.js';
import type { OpObserver } from '../catalog/observer.js';
import type { ReadView, Snapshot, WriteTxn } from '../storage/engine.js';
import { TransactionView } from '../txn/transaction.js';
import type { ClusterClock } from './clock.js';
import { limits } from '../limits.js';

export const oplogTable = 'oplog';

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

/**
 * Pre- and post-images for change streams (fullDocumentBeforeChange, fullDocument
 * 'whenAvailable'/'required'), kept in the entry itself when the collection has
 * changeStreamPreAndPostImages enabled; mongod keeps them in config.system.preimages.
 */
function imagesOf(coll: Collection, before: BsonDocument, after: BsonDocument | undefined): BsonDocument {
  const opt = coll.meta.options['changeStreamPreAndPostImages'];
  if (!isPlainDocument(opt) || opt['enabled'] !== true) return {};
  return after === undefined ? { preImage: before } : { preImage: before, postImage: after };
}

/** The session fields a retryable write's entries carry. */
export interface StatementInfo {
  readonly lsid: BsonDocument;
  readonly txnNumber: number;
  readonly stmtId: number;
}

export class Oplog implements OpObserver {
  /** Set around each statement of a retryable write, so its entries carry lsid/txnNumber/stmtId. */
  statement: StatementInfo | undefined;
  /** Listeners told after a write that added entries commits (change streams wake on it). */
  private readonly listeners = new Set<() => void>();
  /** Key and size of every retained entry, oldest first: pruning needs no reads. */
  private readonly retained: Array<{ key: Buffer; bytes: number }> = [];
  private retainedBytes = 0;
  private pruning = false;

  constructor(
    private readonly clock: ClusterClock,
    /** Entries are pruned, oldest first, once they take more than this many bytes. */
    private readonly maxBytes: number = limits.oplogSizeBytesDefault,
  ) {}

  /** Learn the sizes of the entries already stored (start-up). */
  load(view: ReadView): void {
    for (const e of view.scan(oplogTable)) this.track(Buffer.from(e.key), e.value.length);
  }

  private track(key: Buffer, bytes: number): void {
    this.retained.push({ key, bytes });
    this.retainedBytes += bytes;
  }

  /** Delete the oldest entries beyond the size budget, in small write transactions. */
  async prune(engine: { write<T>(fn: (txn: WriteTxn) => T, options: { durable: boolean }): Promise<T> }): Promise<void> {
    if (this.pruning || this.retainedBytes <= this.maxBytes) return;
    this.pruning = true;
    try {
      const target = Math.floor(this.maxBytes * 0.9);
      while (this.retainedBytes > target && this.retained.length > 1) {
        const batch = this.retained.splice(0, Math.min(1000, this.retained.length - 1));
        for (const e of batch) this.retainedBytes -= e.bytes;
        await engine.write((txn) => {
          for (const e of batch) txn.delete(oplogTable, e.key);
        }, { durable: false });
      }
    } finally {
      this.pruning = false;
    }
  }

  /** The timestamp of the oldest retained entry (change streams: history lost before it). */
  oldestTimestamp(): Timestamp | undefined {
    const first = this.retained[0];
    return first === undefined ? undefined : decodeTimestampKey(first.key);
  }

  /** The timestamp of the newest entry, for restoring the clock at start-up. */
  static lastTimestamp(view: ReadView): Timestamp | undefined {
    const last = view.scan(oplogTable, { reverse: true }).next();
    return last.done === true ? undefined : decodeTimestampKey(last.value.key);
  }

  /** Whether any entry has a timestamp in (from, to]. */
  static changedBetween(engine: { snapshot(): Snapshot }, from: Timestamp, to: Timestamp): boolean {
    const snap = engine.snapshot();
    try {
      const first = snap.scan(oplogTable, { start: encodeTimestampKey(from), startInclusive: false, end: encodeTimestampKey(to), endInclusive: true }).next();
      return first.done !== true;
    } finally {
      snap.release();
    }
  }

  *entries(view: ReadView, after?: Timestamp): Generator<BsonDocument> {
    const range = after === undefined ? {} : { start: encodeTimestampKey(after), startInclusive: false };
    for (const e of view.scan(oplogTable, range)) yield decodeDocument(e.value);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const l of this.listeners) l();
  }

  private uuidOf(coll: Collection): Binary {
    return new Binary(Buffer.from(coll.meta.uuid, 'hex'), Binary.SUBTYPE_UUID);
  }

  private log(txn: WriteTxn, entry: BsonDocument): void {
    if (txn instanceof TransactionView) {
      txn.transaction.oplogOps.push(entry);
      return;
    }
    const ts = this.clock.tick();
    const full: BsonDocument = { ...entry, ts, t: Long.fromInt(1), v: Long.fromInt(2), wall: new Date() };
    const st = this.statement;
    if (st !== undefined && entry['op'] !== 'c') {
      full['lsid'] = st.lsid;
      full['txnNumber'] = Long.fromNumber(st.txnNumber);
      full['stmtId'] = new Int32(st.stmtId);
    }
    this.put(txn, ts, full);
  }

  private put(txn: WriteTxn, ts: Timestamp, entry: BsonDocument): void {
    const key = encodeTimestampKey(ts);
    const bytes = encodeDocument(entry);
    txn.put(oplogTable, key, bytes);
    this.track(key, bytes.length);
  }

  /** A multi-document transaction commits: its operations as one applyOps entry. */
  logTransaction(txn: WriteTxn, ops: readonly BsonDocument[], lsid: BsonDocument, txnNumber: number): void {
    if (ops.length === 0) return;
    const ts = this.clock.tick();
    const entry: BsonDocument = {
      op: 'c',
      ns: 'admin.$cmd',
      o: { applyOps: [...ops] },
      ts,
      t: Long.fromInt(1),
      v: Long.fromInt(2),
      wall: new Date(),
      lsid,
      txnNumber: Long.fromNumber(txnNumber),
      stmtId: new Int32(0),
      prevOpTime: { ts: new Timestamp({ t: 0, i: 0 }), t: Long.fromInt(-1) },
    };
    this.put(txn, ts, entry);
  }

  onInsert(txn: WriteTxn, coll: Collection, doc: BsonDocument): void {
    this.log(txn, { op: 'i', ns: coll.ns, ui: this.uuidOf(coll), o: doc, o2: { _id: getOwn(doc, '_id') ?? null } });
  }

  onUpdate(txn: WriteTxn, coll: Collection, before: BsonDocument, after: BsonDocument, diff: BsonDocument | undefined): void {
    const o2 = { _id: getOwn(after, '_id') ?? null };
    const o = diff === undefined ? after : { $v: new Int32(2), diff };
    this.log(txn, { op: 'u', ns: coll.ns, ui: this.uuidOf(coll), o, o2, ...imagesOf(coll, before, after) });
  }

  onDelete(txn: WriteTxn, coll: Collection, doc: BsonDocument): void {
    this.log(txn, { op: 'd', ns: coll.ns, ui: this.uuidOf(coll), o: { _id: getOwn(doc, '_id') ?? null }, ...imagesOf(coll, doc, undefined) });
  }

  /** dropDatabase, after the drops of its collections (change streams: dropDatabase event). */
  logDropDatabase(txn: WriteTxn, db: string): void {
    this.log(txn, { op: 'c', ns: `${db}.$cmd`, o: { dropDatabase: new Int32(1) } });
  }

  onCreateCollection(txn: WriteTxn, coll: Collection): void {
    this.log(txn, { op: 'c', ns: `${coll.meta.db}.$cmd`, ui: this.uuidOf(coll), o: { create: coll.meta.name, ...coll.meta.options } });
  }

  onDropCollection(txn: WriteTxn, coll: Collection): void {
    this.log(txn, { op: 'c', ns: `${coll.meta.db}.$cmd`, ui: this.uuidOf(coll), o: { drop: coll.meta.name } });
  }

  onRenameCollection(txn: WriteTxn, from: { db: string; name: string }, coll: Collection, dropTarget: Collection | undefined): void {
    const o: BsonDocument = { renameCollection: `${from.db}.${from.name}`, to: coll.ns, stayTemp: false };
    if (dropTarget !== undefined) o['dropTarget'] = this.uuidOf(dropTarget);
    this.log(txn, { op: 'c', ns: `${from.db}.$cmd`, ui: this.uuidOf(coll), o });
  }

  onCollMod(txn: WriteTxn, coll: Collection, command: BsonDocument, oldOptions: BsonDocument, oldIndexOptions: BsonDocument | undefined): void {
    const o2: BsonDocument = { collectionOptions_old: { uuid: this.uuidOf(coll), ...oldOptions } };
    if (oldIndexOptions !== undefined) o2['indexOptions_old'] = oldIndexOptions;
    this.log(txn, { op: 'c', ns: `${coll.meta.db}.$cmd`, ui: this.uuidOf(coll), o: command, o2 });
  }

  onCreateIndex(txn: WriteTxn, coll: Collection, spec: BsonDocument): void {
    this.log(txn, { op: 'c', ns: `${coll.meta.db}.$cmd`, ui: this.uuidOf(coll), o: { createIndexes: coll.meta.name, ...spec } });
  }

  onDropIndex(txn: WriteTxn, coll: Collection, spec: BsonDocument): void {
    this.log(txn, { op: 'c', ns: `${coll.meta.db}.$cmd`, ui: this.uuidOf(coll), o: { dropIndexes: coll.meta.name, index: spec['name'] ?? null }, o2: spec });
  }
}
