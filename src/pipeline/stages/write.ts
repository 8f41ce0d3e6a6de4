// Stages that write ($out, $merge): the command runs the rest of the pipeline to completion on
// one snapshot, then hands the documents to the stage inside one storage write transaction, so
// the write is all-or-nothing (a duplicate key leaves the target as it was). The stages change
// documents through the write unit (src/catalog/write-unit.ts), as the CRUD commands do.

import type { BsonDocument } from '../../bson/types.js';
import type { WriteContext } from '../../catalog/write-unit.js';
import type { Runtime, Stage } from './types.js';

export interface WriteStage extends Stage {
  /** `w` carries the write transaction and the command's bypassDocumentValidation. */
  executeWrite(w: WriteContext, docs: readonly BsonDocument[], rt: Runtime): void;
}

export function isWriteStage(s: Stage): s is WriteStage {
  return s.constraints?.writes === true && 'executeWrite' in s;
}
