// The write unit: the one way a document is inserted, replaced, updated or deleted, whoever
// asks (the CRUD commands, $out and $merge, view definitions in system.views, TTL deletes, a
// multi-document transaction's statements). Each change does, in this order:
//
//   1. the checks a stored document must pass (size, depth, the rules on _id);
//   2. the collection's document validation (unless bypassDocumentValidation);
//   3. the record change and 4. its index upkeep (Collection: unique keys are checked before
//      the first byte is written, so a refused change leaves nothing behind);
//   5. the observer call, which builds the oplog entry (src/repl/oplog.ts).
//
// Every step writes into the same storage transaction, `w.txn`, so a document, its index
// entries and its oplog entry commit together or not at all (invariant 2); in a
// multi-document transaction `w.txn` is the transaction's view, and the commit applies the
// buffered writes and the one applyOps entry together (recordTransactionCommit).
//
// The observer's document hooks and Collection's record mutators (insertRecord, updateRecord,
// removeRecord) are called from this file only (test/unit/architecture.test.ts): a change
// made around it would be missing from the oplog and from change streams. Who makes
// the change (a retryable write's statement, whether validation is bypassed) is passed in
// explicitly with each change, in the WriteContext.

import type { BsonDocument } from '../bson/types.js';
import { encodeDocument, encodingIfUnchanged, joinDocuments, withIdFirst } from '../bson/codec.js';
import { compareBson } from '../bson/compare.js';
import { getOwn } from '../bson/document.js';
import { CommandError, ErrorCode, invariant } from '../errors.js';
import type { WriteTxn } from '../storage/engine.js';
import type { Transaction } from '../txn/transaction.js';
import { TransactionView } from '../txn/transaction.js';
import type { Catalog } from './catalog.js';
import type { Collection, StoredRecord, WrittenRecord } from './collection.js';
import type { RecordId } from './record-id.js';
import type { StatementInfo } from './observer.js';
import { checkStorable, prepareSized } from './validate-document.js';
import type { PreparedInsert } from './validate-document.js';

/** Where and on whose behalf a document change is made. */
export interface WriteContext {
  /** The storage write transaction every step of the change writes into. */
  readonly txn: WriteTxn;
  readonly catalog: Catalog;
  /** The retryable write's statement the change belongs to (its oplog entry carries it). */
  readonly statement: StatementInfo | undefined;
  /** The command's bypassDocumentValidation: the collection's validator is not applied. */
  readonly bypassDocumentValidation: boolean;
}

/** A context for a change no command statement asks for (view definitions, TTL deletes). */
export function internalWrite(txn: WriteTxn, catalog: Catalog): WriteContext {
  return { txn, catalog, statement: undefined, bypassDocumentValidation: false };
}

export interface Namespace {
  readonly db: string;
  readonly name: string;
}

/**
 * Inserts a document into `ns`, creating the collection if needed. The document is stored as
 * prepareForInsert makes it (`_id` first, generated when absent); the record returned holds
 * that document and its bytes.
 *
 * A document that still has the bytes it came in (`source`: an OP_MSG document sequence's,
 * or a record's decoded from storage) is stored as
 * those bytes, with a generated `_id` spliced in front, instead of being encoded again; the
 * oplog entry is built around the same bytes. The checks ran on the decoded document, and
 * encodingIfUnchanged makes sure the bytes are what encoding it would give.
 */
export function insertDocument(
  w: WriteContext,
  ns: Namespace,
  doc: BsonDocument,
  source?: Uint8Array,
): WrittenRecord {
  const prepared = prepareSized(doc);
  const coll = w.catalog.getOrCreate(w.txn, ns.db, ns.name);
  refuseCappedInTransaction(w, coll);
  validate(w, coll, prepared.doc, undefined);
  const rec = coll.insertRecord(w.txn, prepared.doc, ownBytes(doc, prepared, source));
  w.catalog.observer.onInsert(w.txn, coll, prepared.doc, rec.bytes, w.statement);
  if (coll.capped !== undefined) {
    deleteCappedOverflow(w, coll, rec.recordId);
    notifyTailers(w, coll);
  }
  return rec;
}

/**
 * The stored encoding of `prepared` made from the document's own bytes, if it has them. Its
 * fields keep the client's order: a decoded document lists array-index names ("1") first,
 * the bytes do not (as in mongod), so a document given `_id` first is stored as given.
 */
function ownBytes(
  doc: BsonDocument,
  prepared: PreparedInsert,
  source: Uint8Array | undefined,
): Uint8Array | undefined {
  if (!prepared.idAdded) {
    const bytes = encodingIfUnchanged(doc, prepared.size, source);
    if (bytes === undefined) return undefined;
    return startsWithId(bytes) ? bytes : withIdFirst(bytes);
  }
  const id = encodeDocument({ _id: getOwn(prepared.doc, '_id') ?? null });
  const rest = encodingIfUnchanged(doc, prepared.size - id.length + 5, source);
  return rest === undefined ? undefined : joinDocuments([id, rest]);
}

/** Whether an encoded document's first field is `_id`. */
function startsWithId(bytes: Uint8Array): boolean {
  return bytes[5] === 0x5f && bytes[6] === 0x69 && bytes[7] === 0x64 && bytes[8] === 0;
}

/**
 * After an insert into a capped collection (mongod's cappedDeleteUntilBelowConfiguredMaximum):
 * deletes the oldest documents until the collection is within its size and document count,
 * never the one just inserted. Each delete is logged as a delete of its own, without the
 * statement (mongod logs capped deletes without a stmtId), so the oplog and change streams see
 * them; all in the insert's storage transaction.
 */
function deleteCappedOverflow(w: WriteContext, coll: Collection, justInserted: RecordId): void {
  const cap = coll.capped;
  if (cap === undefined) return;
  const usage = coll.cappedUsage(w.txn);
  const bytesOver = Math.max(0, usage.bytes - cap.sizeBytes);
  const docsOver = cap.maxDocs > 0 ? Math.max(0, usage.docs - cap.maxDocs) : 0;
  if (bytesOver === 0 && docsOver === 0) return;
  const victims: StoredRecord[] = [];
  let bytes = 0;
  for (const rec of coll.scanRecords(w.txn)) {
    if (bytes >= bytesOver && victims.length >= docsOver) break;
    if (rec.recordId === justInserted) break;
    victims.push(rec);
    bytes += rec.size;
  }
  const unlogged: WriteContext = { ...w, statement: undefined };
  for (const rec of victims) deleteDocument(unlogged, coll, rec);
}

/** Tailable cursors on a capped collection wake up once its insert commits. */
const notified = new WeakMap<WriteTxn, Set<string>>();
function notifyTailers(w: WriteContext, coll: Collection): void {
  const ns = coll.ns;
  const catalog = w.catalog;
  if (w.txn.onOutcome === undefined) {
    queueMicrotask(() => catalog.notifyCappedInsert(ns));
    return;
  }
  let set = notified.get(w.txn);
  if (set === undefined) {
    set = new Set();
    notified.set(w.txn, set);
  }
  if (set.has(ns)) return;
  set.add(ns);
  w.txn.onOutcome((committed) => {
    if (committed) catalog.notifyCappedInsert(ns);
    return undefined;
  });
}

/** mongod 7.0 refuses writes to a capped collection in a multi-document transaction. */
function refuseCappedInTransaction(w: WriteContext, coll: Collection): void {
  if (coll.capped === undefined || !(w.txn instanceof TransactionView)) return;
  throw new CommandError(
    ErrorCode.OperationNotSupportedInTransaction,
    `Collection '${coll.ns}' is a capped collection. Writes in transactions are not allowed on capped collections.`,
  );
}

declare const checkedBrand: unique symbol;

/** A new version of a stored document that passed the checks and validation (checkUpdate). */
export interface CheckedUpdate {
  readonly record: StoredRecord;
  readonly after: BsonDocument;
  /** The update's `$v: 2` oplog diff; undefined: logged as a whole-document replacement. */
  readonly diff: BsonDocument | undefined;
  readonly [checkedBrand]: true;
}

/**
 * Checks a new version of a stored document (same `_id`, storable, valid for the collection)
 * without writing anything, so that a statement changing several documents can check them
 * all before its first write. The caller has refused a changed `_id` with its own message;
 * here that is a bug.
 */
export function checkUpdate(
  w: WriteContext,
  coll: Collection,
  record: StoredRecord,
  after: BsonDocument,
  diff: BsonDocument | undefined,
): CheckedUpdate {
  invariant(
    compareBson(getOwn(record.doc, '_id'), getOwn(after, '_id')) === 0,
    'an update changed _id',
  );
  refuseCappedInTransaction(w, coll);
  checkStorable(after);
  validate(w, coll, after, record.doc);
  return { record, after, diff } as CheckedUpdate;
}

/** Writes checked new versions: records, index entries, oplog entries. */
export function applyUpdates(
  w: WriteContext,
  coll: Collection,
  updates: readonly CheckedUpdate[],
): void {
  for (const { record, after, diff } of updates) {
    const written = coll.updateRecord(w.txn, record, after);
    w.catalog.observer.onUpdate(w.txn, coll, record.doc, after, diff, written.bytes, w.statement);
  }
}

/** Replaces or updates one stored document: checkUpdate, then applyUpdates. */
export function updateDocument(
  w: WriteContext,
  coll: Collection,
  record: StoredRecord,
  after: BsonDocument,
  diff: BsonDocument | undefined,
): void {
  applyUpdates(w, coll, [checkUpdate(w, coll, record, after, diff)]);
}

/** Deletes a stored document, its index entries, and logs it. */
export function deleteDocument(w: WriteContext, coll: Collection, record: StoredRecord): void {
  refuseCappedInTransaction(w, coll);
  coll.removeRecord(w.txn, record);
  w.catalog.observer.onDelete(w.txn, coll, record.doc, w.statement);
}

/**
 * Inside the storage transaction that applies a multi-document transaction's writes (`raw`):
 * records what its statements reported through this unit (one applyOps oplog entry), so the
 * documents, index entries and entry become visible together.
 */
export function recordTransactionCommit(
  raw: WriteTxn,
  catalog: Catalog,
  transaction: Transaction,
  lsid: BsonDocument,
): void {
  catalog.observer.onTransactionCommit(raw, transaction, lsid);
}

function validate(
  w: WriteContext,
  coll: Collection,
  doc: BsonDocument,
  before: BsonDocument | undefined,
): void {
  if (!w.bypassDocumentValidation) w.catalog.validator.check(coll, doc, before);
}
