// A row of a plan: the document a stage hands to its parent, with what the stages below it
// learned about it (record id, positional match, index key, stored bytes). A leaf module, so
// that the cooperative-execution contract (./yield.ts) and the stages (./stages.ts) can both
// name it without importing each other.

import type { BsonDocument } from '../../bson/types.js';
import type { RecordId } from '../../catalog/record-id.js';

/** Where the matcher reports the array position that satisfied the query (for `$`). */
export interface MatchDetailsSink {
  elemMatchKey?: string | undefined;
}

export interface Row {
  readonly doc: BsonDocument;
  readonly recordId?: RecordId;
  readonly details?: MatchDetailsSink;
  /** The index key the row was found by (index plans), for returnKey. */
  readonly indexKey?: BsonDocument;
  /** The record's stored bytes while nothing has read `doc` (`decoded` false): StoredRecord. */
  readonly bytes?: Uint8Array;
  readonly decoded?: boolean;
}
