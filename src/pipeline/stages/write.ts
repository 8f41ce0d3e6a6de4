// Stages that write ($out, $merge): the command runs the rest of the pipeline to completion on
// one snapshot, then hands the documents to the stage inside one storage write transaction, so
// the write is all-or-nothing (a duplicate key leaves the target as it was).

import type { BsonDocument } from '../../bson/types.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { Collection, StoredRecord } from '../../catalog/collection.js';
import { prepareForInsert } from '../../catalog/validate-document.js';
import type { DocumentFilter } from '../../query/exec/stages.js';
import { planQuery } from '../../query/planner/planner.js';
import { pullSync } from '../../query/exec/yield.js';
import type { WriteTxn } from '../../storage/engine.js';
import type { Runtime, Stage } from './types.js';

export interface WriteOptions {
  readonly bypassDocumentValidation: boolean;
  /** The target collection's document validation (from the command layer); throws to refuse a document. */
  readonly validate?:
    ((coll: Collection, doc: BsonDocument, before: BsonDocument | undefined) => void) | undefined;
}

export interface WriteStage extends Stage {
  executeWrite(
    txn: WriteTxn,
    docs: readonly BsonDocument[],
    rt: Runtime,
    options: WriteOptions,
  ): void;
}

export function isWriteStage(s: Stage): s is WriteStage {
  return s.constraints?.writes === true && 'executeWrite' in s;
}

/** Inserts a document as the insert command does (generated _id, storage checks, oplog hook). */
export function insertDocument(
  txn: WriteTxn,
  catalog: Catalog,
  db: string,
  name: string,
  doc: BsonDocument,
  options?: WriteOptions,
): void {
  const coll = catalog.getOrCreate(txn, db, name);
  const prepared = prepareForInsert(doc);
  options?.validate?.(coll, prepared, undefined);
  const rec = coll.insert(txn, prepared);
  catalog.observer.onInsert(txn, coll, prepared, rec.bytes);
}

/** Replaces a stored document (a whole-document update) and tells the observer. */
export function replaceDocument(
  txn: WriteTxn,
  catalog: Catalog,
  coll: Collection,
  record: StoredRecord,
  after: BsonDocument,
  options?: WriteOptions,
): void {
  options?.validate?.(coll, after, record.doc);
  const written = coll.update(txn, record, after);
  catalog.observer.onUpdate(txn, coll, record.doc, after, undefined, written.bytes);
}

/** The stored records a filter selects inside the write transaction. */
export function findRecords(
  txn: WriteTxn,
  coll: Collection,
  filter: BsonDocument,
  matcher: DocumentFilter,
): StoredRecord[] {
  const plan = planQuery(coll, { filter, matcher, allowDiskUse: true });
  const out: StoredRecord[] = [];
  for (let row = pullSync(plan, txn); row !== undefined; row = pullSync(plan, txn)) {
    if (row.recordId !== undefined) out.push({ recordId: row.recordId, doc: row.doc, size: 0 });
  }
  return out;
}
