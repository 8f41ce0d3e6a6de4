// The oplog: one entry per change, written inside the same storage transaction as the change
// (the catalog's write unit, src/catalog/write-unit.ts, calls this observer), keyed by its
// cluster timestamp. Entries are read through ./oplog-reader.ts (`reader`).
// (With --oplog-async / --oplog-nonlogged the encoded entry is queued instead and written
// after the change commits: ./oplog-store.ts.)
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
import { encodeDocument, idElementOf, joinDocuments } from '../bson/codec.js';
import type { ElementWriter, EncodedElements, EncodedField } from '../bson/codec.js';
import { getOwn } from '../bson/document.js';
import type { BsonDocument } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import { isReplicatedNamespace } from '../catalog/namespace.js';
import type { Collection } from '../catalog/collection.js';
import type { OpObserver, StatementInfo } from '../catalog/observer.js';
import { sealBytes } from '../storage/bytes.js';
import type { WriteTxn } from '../storage/engine.js';
import { TransactionView } from '../txn/transaction.js';
import type { Transaction } from '../txn/transaction.js';
import type { ClusterClock } from './clock.js';
import { OplogReader } from './oplog-reader.js';
import { encodeTimestampKey } from './oplog-store.js';
import type { OplogStore } from './oplog-store.js';

/**
 * Pre- and post-images for change streams (fullDocumentBeforeChange, fullDocument
 * 'whenAvailable'/'required'), kept in the entry itself when the collection has
 * changeStreamPreAndPostImages enabled; mongod keeps them in config.system.preimages.
 */
function imagesOf(
  coll: Collection,
  before: BsonDocument,
  after: BsonDocument | undefined,
): BsonDocument {
  const opt = coll.meta.options['changeStreamPreAndPostImages'];
  if (!isPlainDocument(opt) || opt['enabled'] !== true) return {};
  return after === undefined ? { preImage: before } : { preImage: before, postImage: after };
}

export class Oplog implements OpObserver {
  /** Listeners told after a write that added entries commits (change streams wake on it). */
  private readonly listeners = new Set<() => void>();

  /** Reads the entries (change streams, local.oplog.rs, snapshot reads). */
  readonly reader: OplogReader;

  constructor(
    private readonly clock: ClusterClock,
    /** Where and when entries are stored, and their retention (./oplog-store.ts). */
    readonly store: OplogStore,
  ) {
    this.reader = new OplogReader(store, clock);
  }

  /** Delete the oldest entries beyond the size budget, in small write transactions. */
  prune(): Promise<void> {
    return this.store.prune();
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

  /**
   * A collection's {op, ns, ui}, encoded once: the first fields of its insert ('i'), update
   * ('u') and delete ('d') entries. (A Collection's namespace and UUID never change: a rename
   * or a metadata change makes a new one.)
   */
  private readonly heads = new WeakMap<
    Collection,
    { readonly i: Uint8Array; readonly u: Uint8Array; readonly d: Uint8Array }
  >();

  private headOf(coll: Collection, op: 'i' | 'u' | 'd'): Uint8Array {
    let h = this.heads.get(coll);
    if (h === undefined) {
      const ui = this.uuidOf(coll);
      const ns = coll.ns;
      h = {
        i: encodeDocument({ op: 'i', ns, ui }),
        u: encodeDocument({ op: 'u', ns, ui }),
        d: encodeDocument({ op: 'd', ns, ui }),
      };
      this.heads.set(coll, h);
    }
    return h[op];
  }

  /** A command entry ('c'), or a statement of a multi-document transaction. */
  private log(txn: WriteTxn, entry: BsonDocument): void {
    if (txn instanceof TransactionView) txn.transaction.oplogOps.push(entry);
    else this.logEncoded(txn, undefined, [encodeDocument(entry)]);
  }

  /**
   * Write one entry (outside a multi-document transaction): `parts` its fields before the
   * timestamp, encoded (joinDocuments: a document whose bytes were just stored is copied in,
   * not encoded again), then {ts, t, v, wall} and a retryable write's session fields (`st`),
   * written into the entry's buffer by hand (EntryStamp): the same bytes as encoding them.
   */
  private logEncoded(
    txn: WriteTxn,
    st: StatementInfo | undefined,
    parts: Array<Uint8Array | EncodedField | EncodedElements>,
  ): void {
    const ts = this.clock.tick();
    const stamp = new EntryStamp(ts, Date.now(), st, st && this.lsidBytes(st.lsid));
    const entry = joinDocuments(parts, stamp);
    sealBytes(entry); // nobody writes into it: an engine may keep it uncopied
    this.store.append(txn, encodeTimestampKey(ts), entry);
  }

  /** A session's lsid, encoded once for all the statements of its commands. */
  private readonly lsids = new WeakMap<BsonDocument, Uint8Array>();

  private lsidBytes(lsid: BsonDocument): Uint8Array {
    let bytes = this.lsids.get(lsid);
    if (bytes === undefined) {
      bytes = encodeDocument(lsid);
      this.lsids.set(lsid, bytes);
    }
    return bytes;
  }

  private put(txn: WriteTxn, ts: Timestamp, entry: BsonDocument): void {
    this.store.append(txn, encodeTimestampKey(ts), encodeDocument(entry));
  }

  /** A multi-document transaction commits: its operations as one applyOps entry. */
  onTransactionCommit(txn: WriteTxn, transaction: Transaction, lsid: BsonDocument): void {
    const ops = transaction.oplogOps;
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
      txnNumber: Long.fromNumber(transaction.txnNumber),
      stmtId: new Int32(0),
      prevOpTime: { ts: new Timestamp({ t: 0, i: 0 }), t: Long.fromInt(-1) },
    };
    this.put(txn, ts, entry);
  }

  onInsert(
    txn: WriteTxn,
    coll: Collection,
    doc: BsonDocument,
    encoded: Uint8Array | undefined,
    statement: StatementInfo | undefined,
  ): void {
    if (!isReplicatedNamespace(coll.meta.name)) return;
    const o2 = { _id: getOwn(doc, '_id') ?? null };
    if (txn instanceof TransactionView)
      this.log(txn, { op: 'i', ns: coll.ns, ui: this.uuidOf(coll), o: doc, o2 });
    else if (encoded === undefined)
      this.logEncoded(txn, statement, [this.headOf(coll, 'i'), encodeDocument({ o: doc, o2 })]);
    else {
      // The record's first element is its `_id`: o2 is made of its bytes.
      const id = idElementOf(encoded);
      this.logEncoded(txn, statement, [
        this.headOf(coll, 'i'),
        { name: 'o', document: encoded },
        id === undefined ? encodeDocument({ o2 }) : { name: 'o2', elements: id },
      ]);
    }
  }

  onUpdate(
    txn: WriteTxn,
    coll: Collection,
    before: BsonDocument,
    after: BsonDocument,
    diff: BsonDocument | undefined,
    encoded: Uint8Array | undefined,
    statement: StatementInfo | undefined,
  ): void {
    if (!isReplicatedNamespace(coll.meta.name)) return;
    const o2 = { _id: getOwn(after, '_id') ?? null };
    const images = imagesOf(coll, before, after);
    const o = diff === undefined ? after : { $v: new Int32(2), diff };
    if (txn instanceof TransactionView)
      this.log(txn, { op: 'u', ns: coll.ns, ui: this.uuidOf(coll), o, o2, ...images });
    else if (diff !== undefined || encoded === undefined)
      this.logEncoded(txn, statement, [
        this.headOf(coll, 'u'),
        encodeDocument({ o, o2, ...images }),
      ]);
    else
      this.logEncoded(txn, statement, [
        this.headOf(coll, 'u'),
        { name: 'o', document: encoded },
        encodeDocument({ o2, ...images }),
      ]);
  }

  onDelete(
    txn: WriteTxn,
    coll: Collection,
    doc: BsonDocument,
    statement: StatementInfo | undefined,
  ): void {
    if (!isReplicatedNamespace(coll.meta.name)) return;
    const o = { _id: getOwn(doc, '_id') ?? null };
    const images = imagesOf(coll, doc, undefined);
    if (txn instanceof TransactionView)
      this.log(txn, { op: 'd', ns: coll.ns, ui: this.uuidOf(coll), o, ...images });
    else
      this.logEncoded(txn, statement, [this.headOf(coll, 'd'), encodeDocument({ o, ...images })]);
  }

  /** dropDatabase, after the drops of its collections (change streams: dropDatabase event). */
  logDropDatabase(txn: WriteTxn, db: string): void {
    this.log(txn, { op: 'c', ns: `${db}.$cmd`, o: { dropDatabase: new Int32(1) } });
  }

  onCreateCollection(txn: WriteTxn, coll: Collection): void {
    if (!isReplicatedNamespace(coll.meta.name)) return;
    this.log(txn, {
      op: 'c',
      ns: `${coll.meta.db}.$cmd`,
      ui: this.uuidOf(coll),
      o: { create: coll.meta.name, ...coll.meta.options },
    });
  }

  onDropCollection(txn: WriteTxn, coll: Collection): void {
    if (!isReplicatedNamespace(coll.meta.name)) return;
    this.log(txn, {
      op: 'c',
      ns: `${coll.meta.db}.$cmd`,
      ui: this.uuidOf(coll),
      o: { drop: coll.meta.name },
    });
  }

  onRenameCollection(
    txn: WriteTxn,
    from: { db: string; name: string },
    coll: Collection,
    dropTarget: Collection | undefined,
  ): void {
    const o: BsonDocument = {
      renameCollection: `${from.db}.${from.name}`,
      to: coll.ns,
      stayTemp: false,
    };
    if (dropTarget !== undefined) o['dropTarget'] = this.uuidOf(dropTarget);
    this.log(txn, { op: 'c', ns: `${from.db}.$cmd`, ui: this.uuidOf(coll), o });
  }

  onCollMod(
    txn: WriteTxn,
    coll: Collection,
    command: BsonDocument,
    oldOptions: BsonDocument,
    oldIndexOptions: BsonDocument | undefined,
  ): void {
    const o2: BsonDocument = { collectionOptions_old: { uuid: this.uuidOf(coll), ...oldOptions } };
    if (oldIndexOptions !== undefined) o2['indexOptions_old'] = oldIndexOptions;
    this.log(txn, { op: 'c', ns: `${coll.meta.db}.$cmd`, ui: this.uuidOf(coll), o: command, o2 });
  }

  onCreateIndex(txn: WriteTxn, coll: Collection, spec: BsonDocument): void {
    this.log(txn, {
      op: 'c',
      ns: `${coll.meta.db}.$cmd`,
      ui: this.uuidOf(coll),
      o: { createIndexes: coll.meta.name, ...spec },
    });
  }

  onDropIndex(txn: WriteTxn, coll: Collection, spec: BsonDocument): void {
    this.log(txn, {
      op: 'c',
      ns: `${coll.meta.db}.$cmd`,
      ui: this.uuidOf(coll),
      o: { dropIndexes: coll.meta.name, index: spec['name'] ?? null },
      o2: spec,
    });
  }
}

/**
 * The fields every entry ends with, {ts, t: 1, v: 2, wall}, then a retryable write's {lsid,
 * txnNumber, stmtId}: written by hand into the entry's buffer, the bytes encodeDocument gives
 * for {ts, t: Long(1), v: Long(2), wall: Date, lsid, txnNumber: Long, stmtId: Int32}.
 */
class EntryStamp implements ElementWriter {
  readonly size: number;

  constructor(
    private readonly ts: Timestamp,
    private readonly wallMs: number,
    private readonly st: StatementInfo | undefined,
    private readonly lsid: Uint8Array | undefined,
  ) {
    // ts: type, "ts\0", 8; t and v: type, "t\0", 8; wall: type, "wall\0", 8.
    this.size = 12 + 11 + 11 + 14 + (lsid === undefined ? 0 : 6 + lsid.length + 19 + 12);
  }

  write(out: Buffer, at: number): void {
    at = element(out, at, 0x11, 'ts');
    out.writeUInt32LE(this.ts.i >>> 0, at);
    out.writeUInt32LE(this.ts.t >>> 0, at + 4);
    at = int64(out, element(out, at + 8, 0x12, 't'), 1);
    at = int64(out, element(out, at, 0x12, 'v'), 2);
    at = int64(out, element(out, at, 0x09, 'wall'), this.wallMs);
    if (this.st === undefined || this.lsid === undefined) return;
    at = element(out, at, 0x03, 'lsid');
    out.set(this.lsid, at);
    at = int64(out, element(out, at + this.lsid.length, 0x12, 'txnNumber'), this.st.txnNumber);
    out.writeInt32LE(this.st.stmtId | 0, element(out, at, 0x10, 'stmtId'));
  }
}

/** Writes an element's type and (ASCII) name at `at`; returns where its value goes. */
function element(out: Buffer, at: number, type: number, name: string): number {
  out[at++] = type;
  for (let i = 0; i < name.length; i++) out[at++] = name.charCodeAt(i);
  out[at++] = 0;
  return at;
}

/** Writes an integral number as a little-endian int64 (Long.fromNumber's bits); returns the end. */
function int64(out: Buffer, at: number, n: number): number {
  out.writeUInt32LE(n >>> 0, at);
  out.writeInt32LE(Math.floor(n / 0x1_0000_0000) | 0, at + 4);
  return at + 8;
}
