// Stages that write ($out, $merge): the command runs the rest of the pipeline to completion on
// one snapshot, then hands the documents to the stage inside one storage write transaction, so
// the write is all-or-nothing (a duplicate key leaves the target as it was). The stages change
// documents through the write unit (src/catalog/write-unit.ts), as the CRUD commands do.

import type { BsonDocument } from '../../bson/types.js';
import type { Collection, StoredRecord } from '../../catalog/collection.js';
import type { WriteContext } from '../../catalog/write-unit.js';
import type { DocumentFilter } from '../../query/exec/stages.js';
import { planQuery } from '../../query/planner/planner.js';
import type { WriteTxn } from '../../storage/engine.js';
import type { Runtime, Stage } from './types.js';

export interface WriteStage extends Stage {
  /** `w` carries the write transaction and the command's bypassDocumentValidation. */
  executeWrite(w: WriteContext, docs: readonly BsonDocument[], rt: Runtime): void;
}

export function isWriteStage(s: Stage): s is WriteStage {
  return s.constraints?.writes === true && 'executeWrite' in s;
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
  for (let row = plan.next(txn); row !== undefined; row = plan.next(txn)) {
    if (row.recordId !== undefined) out.push({ recordId: row.recordId, doc: row.doc, size: 0 });
  }
  return out;
}
