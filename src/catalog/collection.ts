// A collection's data: the record table (RecordId → BSON) and its indexes. Every mutation
// runs inside a storage write transaction and performs all of its checks (unique keys, key
// lengths) before its first write, so a failed statement leaves nothing behind and the
// transaction can go on with the next statement. Only the write unit (./write-unit.ts) calls
// insertRecord, updateRecord and removeRecord: it adds the document checks, validation and
// the oplog entry (test/unit/architecture.test.ts checks that nothing else does).

import { decodeDocument, encodeDocument } from '../bson/codec.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { getOwn } from '../bson/document.js';
import type { ReadView, WriteTxn } from '../storage/engine.js';
import { decodeRecordId, encodeRecordId } from './record-id.js';
import type { RecordId } from './record-id.js';
import { IndexAccess } from './index-access.js';

export interface IndexMeta {
  readonly name: string;
  readonly key: BsonDocument;
  /** The spec as listIndexes reports it: v, key, name and the options given. */
  readonly spec: BsonDocument;
  /** Storage table holding the index entries. */
  readonly ident: string;
  /** Set while the index is being built (src/commands/admin/index-build.ts): the build's UUID. */
  readonly buildUUID?: string;
}

export interface CollectionMeta {
  readonly db: string;
  readonly name: string;
  /** 32 hex digits. */
  readonly uuid: string;
  readonly options: BsonDocument;
  readonly indexes: readonly IndexMeta[];
  /**
   * Indexes being built: not used by reads (nor listed), but kept up to date by every write,
   * so that the build's scan and the writes made meanwhile together fill them.
   */
  readonly building?: readonly IndexMeta[];
  readonly nextIndexIdent: number;
}

export interface StoredRecord {
  readonly recordId: RecordId;
  readonly doc: BsonDocument;
  /** Encoded size of the document in bytes. */
  readonly size: number;
}

/** A record just written: with the bytes stored, which the oplog entry reuses. */
export interface WrittenRecord extends StoredRecord {
  readonly bytes: Uint8Array;
}

export interface ScanRecordsOptions {
  readonly reverse?: boolean;
  /** Resume strictly after (or before, in reverse) this RecordId. */
  readonly after?: RecordId;
}

/** The storage table of a collection's records. */
export function recordTableName(uuid: string): string {
  return `r:${uuid}`;
}

export class Collection {
  readonly recordTable: string;
  /** The ready indexes: what reads plan with and listIndexes shows. */
  readonly indexes: readonly IndexAccess[];
  /** Indexes being built (meta.building). */
  readonly building: readonly IndexAccess[];
  /** Every index a write keeps up to date: the ready ones, then those being built. */
  private readonly maintained: readonly IndexAccess[];
  readonly idIndex: IndexAccess;
  private nextRecordId: RecordId;

  /**
   * @param view used to find the highest RecordId in use
   * @param previous the same collection before a metadata change: keeps its RecordId counter
   */
  constructor(
    readonly meta: CollectionMeta,
    view: ReadView,
    previous?: Collection,
  ) {
    this.recordTable = recordTableName(meta.uuid);
    this.indexes = meta.indexes.map((m) => new IndexAccess(m, meta));
    this.building = (meta.building ?? []).map((m) => new IndexAccess(m, meta));
    this.maintained =
      this.building.length === 0 ? this.indexes : [...this.indexes, ...this.building];
    const id = this.indexes.find((i) => i.meta.name === '_id_');
    if (id === undefined) throw new Error(`collection ${meta.db}.${meta.name} has no _id index`);
    this.idIndex = id;
    if (previous !== undefined) {
      this.nextRecordId = previous.nextRecordId;
    } else {
      const last = view.scan(this.recordTable, { reverse: true }).next();
      this.nextRecordId = last.done === true ? 1 : decodeRecordId(last.value.key) + 1;
    }
  }

  get ns(): string {
    return `${this.meta.db}.${this.meta.name}`;
  }

  /**
   * Insert a document that already has its `_id`. Checks everything, then writes.
   * `encoded`, when given, is exactly encodeDocument(doc): stored as it is.
   */
  insertRecord(txn: WriteTxn, doc: BsonDocument, encoded?: Uint8Array): WrittenRecord {
    const recordId = this.nextRecordId;
    const keysByIndex = this.maintained.map((index) => index.keysFor(doc, txn));
    this.maintained.forEach((index, i) =>
      index.checkInsert(txn, keysByIndex[i] ?? [], recordId, doc),
    );
    const bytes = encoded ?? encodeDocument(doc);
    this.nextRecordId++;
    txn.put(this.recordTable, encodeRecordId(recordId), bytes);
    this.maintained.forEach((index, i) => index.addEntries(txn, keysByIndex[i] ?? [], recordId));
    return { recordId, doc, size: bytes.length, bytes };
  }

  /** Replace a stored document with its new version, keeping index entries in step. */
  updateRecord(txn: WriteTxn, record: StoredRecord, after: BsonDocument): WrittenRecord {
    const diffs = this.maintained.map((index) => index.diff(record.doc, after, txn));
    this.maintained.forEach((index, i) => {
      const d = diffs[i];
      if (d !== undefined) index.checkInsert(txn, d.added, record.recordId, after);
    });
    const bytes = encodeDocument(after);
    txn.put(this.recordTable, encodeRecordId(record.recordId), bytes);
    this.maintained.forEach((index, i) => {
      const d = diffs[i];
      if (d === undefined) return;
      index.removeEntries(txn, d.removed, record.recordId);
      index.addEntries(txn, d.added, record.recordId);
    });
    return { recordId: record.recordId, doc: after, size: bytes.length, bytes };
  }

  removeRecord(txn: WriteTxn, record: StoredRecord): void {
    for (const index of this.maintained)
      index.removeEntries(txn, index.keysFor(record.doc, txn), record.recordId);
    txn.delete(this.recordTable, encodeRecordId(record.recordId));
  }

  getRecord(view: ReadView, recordId: RecordId): StoredRecord | undefined {
    const bytes = view.get(this.recordTable, encodeRecordId(recordId));
    return bytes === undefined
      ? undefined
      : { recordId, doc: decodeDocument(bytes), size: bytes.length };
  }

  findById(view: ReadView, id: BsonValue): StoredRecord | undefined {
    const recordId = this.idIndex.lookupUnique(view, [id]);
    return recordId === undefined ? undefined : this.getRecord(view, recordId);
  }

  *scanRecords(view: ReadView, options: ScanRecordsOptions = {}): Generator<StoredRecord> {
    const reverse = options.reverse === true;
    const bound = options.after === undefined ? undefined : encodeRecordId(options.after);
    const range = reverse
      ? { reverse, ...(bound === undefined ? {} : { end: bound, endInclusive: false }) }
      : bound === undefined
        ? {}
        : { start: bound, startInclusive: false };
    for (const { key, value } of view.scan(this.recordTable, range)) {
      yield { recordId: decodeRecordId(key), doc: decodeDocument(value), size: value.length };
    }
  }

  count(view: ReadView): number {
    return view.count(this.recordTable);
  }

  index(name: string): IndexAccess | undefined {
    return this.indexes.find((i) => i.meta.name === name);
  }

  /** An index being built, by name. */
  buildingIndex(name: string): IndexAccess | undefined {
    return this.building.find((i) => i.meta.name === name);
  }

  /** The document's `_id`, which every stored document has. */
  static idOf(doc: BsonDocument): BsonValue {
    return getOwn(doc, '_id');
  }
}
