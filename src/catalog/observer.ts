// Hooks called inside the storage write transaction of every catalog and data change, so
// that whatever records changes (the oplog, change streams' pre-images, statistics) commits
// atomically with the change itself.

import type { BsonDocument } from '../bson/types.js';
import type { WriteTxn } from '../storage/engine.js';
import type { Collection } from './collection.js';

export interface OpObserver {
  /** `encoded`, when given, is exactly encodeDocument(doc) (the record's bytes), for reuse. */
  onInsert(txn: WriteTxn, coll: Collection, doc: BsonDocument, encoded?: Uint8Array): void;
  /**
   * `diff` is the update's `$v: 2` oplog diff (src/update/diff.ts); undefined when the change is
   * logged as a whole-document replacement. `encoded`, when given, is exactly
   * encodeDocument(after).
   */
  onUpdate(
    txn: WriteTxn,
    coll: Collection,
    before: BsonDocument,
    after: BsonDocument,
    diff: BsonDocument | undefined,
    encoded?: Uint8Array,
  ): void;
  onDelete(txn: WriteTxn, coll: Collection, doc: BsonDocument): void;
  onCreateCollection(txn: WriteTxn, coll: Collection): void;
  onDropCollection(txn: WriteTxn, coll: Collection): void;
  /** `dropTarget`: the collection that had the new name, dropped by the rename. */
  onRenameCollection(
    txn: WriteTxn,
    from: { db: string; name: string },
    coll: Collection,
    dropTarget: Collection | undefined,
  ): void;
  /**
   * collMod: `command` the collMod's changes as logged ({collMod: name, …}), `oldOptions` the
   * collection's options before, `oldIndexOptions` the changed index's options before.
   */
  onCollMod(
    txn: WriteTxn,
    coll: Collection,
    command: BsonDocument,
    oldOptions: BsonDocument,
    oldIndexOptions: BsonDocument | undefined,
  ): void;
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
  onCollMod: () => undefined,
  onCreateIndex: () => undefined,
  onDropIndex: () => undefined,
};
