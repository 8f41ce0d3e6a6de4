// A collection's data: the record table (RecordId → BSON) and its indexes. Every mutation
// runs inside a storage write transaction and performs all of its checks (unique keys, key
// lengths) before its first write, so a failed statement leaves nothing behind and the
// transaction can go on with the next statement. Only the write unit (./write-unit.ts) calls
// insertRecord, updateRecord and removeRecord: it adds the document checks, validation and
// the oplog entry (test/unit/architecture.test.ts checks that nothing else does).

import { decodeDocumentKeepingBytes, encodeDocument } from '../bson/codec.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { numericValue } from '../bson/types.js';
import { getOwn } from '../bson/document.js';
import { Int32, Long } from 'bson';
import { sealBytes } from '../storage/bytes.js';
import type { ReadView, WriteTxn } from '../storage/engine.js';
import { decodeRecordId, encodeRecordId } from './record-id.js';
import type { RecordId } from './record-id.js';
import { IndexAccess } from './index-access.js';
import type { CollectionMeta } from './meta.js';

export type { CollectionMeta, IndexMeta } from './meta.js';

export interface StoredRecord {
  readonly recordId: RecordId;
  readonly doc: BsonDocument;
  /** Encoded size of the document in bytes. */
  readonly size: number;
  /** The stored bytes, for a record read from storage (see storedRecord). */
  readonly bytes?: Uint8Array;
  /** False while nobody has read `doc` (reading it decodes the bytes); undefined if eager. */
  readonly decoded?: boolean;
}

/**
 * A record read from storage whose document is decoded when `doc` is first read, then kept.
 * While `decoded` is false nothing has looked inside it, so `bytes` are exactly what the
 * decode/encode path would send. (Getters are own properties: a spread copy decodes, and
 * copies decoded: true.)
 */
function storedRecord(recordId: RecordId, bytes: Uint8Array): StoredRecord {
  let doc: BsonDocument | undefined;
  return {
    recordId,
    size: bytes.length,
    bytes,
    get doc(): BsonDocument {
      return (doc ??= decodeDocumentKeepingBytes(bytes));
    },
    get decoded(): boolean {
      return doc !== undefined;
    },
  };
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

/** A capped collection's limits (create's `size`, rounded as mongod, and `max`; 0: none). */
export interface CappedLimits {
  readonly sizeBytes: number;
  readonly maxDocs: number;
}

/** What a capped collection holds: kept up to date by the record mutators once computed. */
interface CappedUsage {
  docs: number;
  bytes: number;
}

/** An encoding made for one put, which nobody writes into: an engine may keep it uncopied. */
function sealed(bytes: Uint8Array): Uint8Array {
  sealBytes(bytes);
  return bytes;
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
  /** The limits when the collection is capped. */
  readonly capped: CappedLimits | undefined;
  /** A capped collection's usage, shared by the versions of one collection (metadata changes). */
  private readonly usage: { value: CappedUsage | undefined };
  /** Write transactions told to forget `usage` if they do not commit. */
  private readonly usageTxns: WeakSet<WriteTxn>;

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
    this.capped = cappedLimitsOf(meta.options);
    this.usage = previous?.usage ?? { value: undefined };
    this.usageTxns = previous?.usageTxns ?? new WeakSet();
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
    const bytes = encoded ?? sealed(encodeDocument(doc));
    this.nextRecordId++;
    txn.put(this.recordTable, encodeRecordId(recordId), bytes);
    this.maintained.forEach((index, i) => index.addEntries(txn, keysByIndex[i] ?? [], recordId));
    this.track(txn, 1, bytes.length);
    return { recordId, doc, size: bytes.length, bytes };
  }

  /** Replace a stored document with its new version, keeping index entries in step. */
  updateRecord(txn: WriteTxn, record: StoredRecord, after: BsonDocument): WrittenRecord {
    const diffs = this.maintained.map((index) => index.diff(record.doc, after, txn));
    this.maintained.forEach((index, i) => {
      const d = diffs[i];
      if (d !== undefined) index.checkInsert(txn, d.added, record.recordId, after);
    });
    const bytes = sealed(encodeDocument(after));
    txn.put(this.recordTable, encodeRecordId(record.recordId), bytes);
    this.track(txn, 0, bytes.length - record.size);
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
    this.track(txn, -1, -record.size);
  }

  /**
   * A capped collection's document count and bytes as `view` sees them: counted once (a scan),
   * then kept by the record mutators; forgotten when a write transaction that changed them
   * does not commit.
   */
  cappedUsage(view: ReadView): { readonly docs: number; readonly bytes: number } {
    if (this.usage.value === undefined) {
      let docs = 0;
      let bytes = 0;
      for (const { value } of view.scan(this.recordTable)) {
        docs++;
        bytes += value.length;
      }
      this.usage.value = { docs, bytes };
    }
    return this.usage.value;
  }

  private track(txn: WriteTxn, docs: number, bytes: number): void {
    const usage = this.usage.value;
    if (usage === undefined) return;
    usage.docs += docs;
    usage.bytes += bytes;
    if (!this.usageTxns.has(txn)) {
      this.usageTxns.add(txn);
      const box = this.usage;
      txn.onRollback?.(() => {
        box.value = undefined;
      });
    }
  }

  getRecord(view: ReadView, recordId: RecordId): StoredRecord | undefined {
    const bytes = view.get(this.recordTable, encodeRecordId(recordId));
    return bytes === undefined ? undefined : storedRecord(recordId, bytes);
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
      yield storedRecord(decodeRecordId(key), value);
    }
  }

  count(view: ReadView): number {
    return view.count(this.recordTable);
  }

  index(name: string): IndexAccess | undefined {
    return this.indexes.find((i) => i.meta.name === name);
  }

  /** Whether the record is stored as of `view`. */
  hasRecord(view: ReadView, recordId: RecordId): boolean {
    return view.get(this.recordTable, encodeRecordId(recordId)) !== undefined;
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

/** The limits of a collection created with `capped: true` (its stored options). */
export function cappedLimitsOf(options: BsonDocument): CappedLimits | undefined {
  if (getOwn(options, 'capped') !== true) return undefined;
  return {
    sizeBytes: numericValue(getOwn(options, 'size')) ?? 0,
    maxDocs: numericValue(getOwn(options, 'max')) ?? 0,
  };
}

/** collStats' capped fields (mongod: capped, and for a capped collection max and maxSize). */
export function cappedStatsFields(coll: Collection, scale = 1): BsonDocument {
  const cap = coll.capped;
  if (cap === undefined) return { capped: false };
  const num = (n: number): Int32 | Long =>
    Math.abs(n) <= 2 ** 30 ? new Int32(n) : Long.fromNumber(n);
  return { capped: true, max: num(cap.maxDocs), maxSize: num(Math.floor(cap.sizeBytes / scale)) };
}
