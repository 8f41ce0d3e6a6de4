// Hooks called inside the storage write transaction of every catalog and data change, so
// that whatever records changes (the oplog, change streams' pre-images, statistics) commits
// atomically with the change itself.
//
// The document hooks (onInsert, onUpdate, onDelete) and onTransactionCommit are called by the
// write unit (./write-unit.ts) and nowhere else (test/unit/architecture.test.ts checks it): a
// document change that bypassed it would be missing from the oplog and from change streams.

import type { BsonDocument } from '../bson/types.js';
import type { WriteTxn } from '../storage/engine.js';
import type { Transaction } from '../txn/transaction.js';
import type { Collection } from './collection.js';

/** The session fields of a retryable write's statement, which its oplog entries carry. */
export interface StatementInfo {
  readonly lsid: BsonDocument;
  readonly txnNumber: number;
  readonly stmtId: number;
}

export interface OpObserver {
  /**
   * `encoded` is exactly encodeDocument(doc) (the record's bytes), for reuse. `statement`: the
   * retryable write's statement the insert belongs to, if any.
   */
  onInsert(
    txn: WriteTxn,
    coll: Collection,
    doc: BsonDocument,
    encoded: Uint8Array | undefined,
    statement: StatementInfo | undefined,
  ): void;
  /**
   * `diff` is the update's `$v: 2` oplog diff (src/update/diff.ts); undefined when the change is
   * logged as a whole-document replacement. `encoded` is exactly encodeDocument(after).
   */
  onUpdate(
    txn: WriteTxn,
    coll: Collection,
    before: BsonDocument,
    after: BsonDocument,
    diff: BsonDocument | undefined,
    encoded: Uint8Array | undefined,
    statement: StatementInfo | undefined,
  ): void;
  onDelete(
    txn: WriteTxn,
    coll: Collection,
    doc: BsonDocument,
    statement: StatementInfo | undefined,
  ): void;
  /**
   * A multi-document transaction commits (`txn` is the storage transaction applying its
   * writes): what its statements reported is recorded now, with the session's `lsid`.
   */
  onTransactionCommit(txn: WriteTxn, transaction: Transaction, lsid: BsonDocument): void;
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
  onTransactionCommit: () => undefined,
  onCreateCollection: () => undefined,
  onDropCollection: () => undefined,
  onRenameCollection: () => undefined,
  onCollMod: () => undefined,
  onCreateIndex: () => undefined,
  onDropIndex: () => undefined,
};
