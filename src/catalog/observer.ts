// Hooks called inside the storage write transaction of every catalog and data change, so
// that whatever records changes (the oplog, change streams' pre-images, statistics) commits
// atomically with the change itself.

import type { BsonDocument } from '../bson/types.js';
import type { WriteTxn } from '../storage/engine.js';
import type { Collection } from './collection.js';

export interface UpdateDescription {
  readonly updatedFields: BsonDocument;
  readonly removedFields: readonly string[];
  readonly truncatedArrays: readonly BsonDocument[];
}

export interface OpObserver {
  onInsert(txn: WriteTxn, coll: Collection, doc: BsonDocument): void;
  /** `description` is absent for replacements. */
  onUpdate(txn: WriteTxn, coll: Collection, before: BsonDocument, after: BsonDocument, description: UpdateDescription | undefined): void;
  onDelete(txn: WriteTxn, coll: Collection, doc: BsonDocument): void;
  onCreateCollection(txn: WriteTxn, coll: Collection): void;
  onDropCollection(txn: WriteTxn, coll: Collection): void;
  onRenameCollection(txn: WriteTxn, from: { db: string; name: string }, coll: Collection): void;
  onCreateIndex(txn: WriteTxn, coll: Collection, spec: BsonDocument): void;
  onDropIndex(txn: WriteTxn, coll: Collection, spec: BsonDocument): void;
}

export const noopObserver: OpObserver = {
  onInsert: () => undefined,
  onUpdate: () => undefined,
  onDelete: () => undefined,
  onCreateCollection: () => undefined,
  onDropCollection: () => undefined,
  onRenameCollection: () => undefined,
  onCreateIndex: () => undefined,
  onDropIndex: () => undefined,
};
