// The catalog: databases, collections and their indexes. Metadata lives in the `_catalog`
// table (key: collection UUID) and is mirrored in memory. Every change to it happens inside
// a storage write transaction, together with the data it describes, so a crash leaves
// either the old or the new catalog, never a mix. The in-memory mirror is updated inside the
// same synchronous callback, after the writes, so the transactions that follow see it.
//
// The collections a multi-document transaction creates (explicitly or by inserting, with the
// indexes it then adds to them) are its own until it commits, as in mongod 4.4+: they are
// kept apart from the mirror, keyed by the transaction, and found only by lookups given its
// scope (its view or the transaction). Their `_catalog` rows and data sit in its overlay. At
// commit, inside the storage transaction that applies the overlay, their names are checked
// (one taken meanwhile by anyone else is a WriteConflict, as mongod's) and they join the
// mirror; an abort drops them.

import { Binary, Int32, UUID } from 'bson';
import { decodeDocument, encodeDocument } from '../bson/codec.js';
import type { BsonDocument } from '../bson/types.js';
import { CommandError, ErrorCode, invariant } from '../errors.js';
import type { Logger } from '../log.js';
import type { ReadView, StorageEngine, TableImage, WriteTxn } from '../storage/engine.js';
import { importImage } from '../storage/table-image.js';
import { writeConflictError } from '../txn/conflicts.js';
import { Transaction, TransactionView } from '../txn/transaction.js';
import { Collection, recordTableName } from './collection.js';
import type { CollectionMeta, IndexMeta } from './collection.js';
import { skippedRecordsTable } from './index-access.js';
import type { DocumentValidator } from './document-validator.js';
import { noValidatorInstalled } from './document-validator.js';
import type { OpObserver } from './observer.js';
import { noopObserver } from './observer.js';
import { lookupView, notACollection, systemViewsName } from './view-definitions.js';

const catalogTable = '_catalog';

/**
 * Whose catalog changes a lookup sees besides the committed ones: a multi-document
 * transaction (or its view, as handed to the write path), or nobody's.
 */
export type CatalogScope = Transaction | ReadView | undefined;

function transactionOf(scope: CatalogScope): Transaction | undefined {
  if (scope instanceof Transaction) return scope;
  if (scope instanceof TransactionView) return scope.transaction;
  return undefined;
}

export interface CreateCollectionOptions {
  readonly options?: BsonDocument;
  readonly uuid?: string;
}

/** A user's change to a collection's metadata, as the oplog logs it (Catalog.updateMeta). */
export type MetaChange =
  | { readonly op: 'createIndexes'; readonly specs: readonly BsonDocument[] }
  | { readonly op: 'dropIndexes'; readonly specs: readonly BsonDocument[] }
  | {
      readonly op: 'collMod';
      /** The collMod's changes as logged ({collMod: name, …}). */
      readonly command: BsonDocument;
      readonly oldOptions: BsonDocument;
      readonly oldIndexOptions: BsonDocument | undefined;
    };

export class Catalog {
  private readonly dbs = new Map<string, Map<string, Collection>>();
  /** Told of every change inside its storage transaction (the oplog, in a replica set). */
  observer: OpObserver = noopObserver;
  /** Applies collections' validators to the documents written (set by the server). */
  validator: DocumentValidator = noValidatorInstalled;

  /** The collections each open transaction created, latest versions, by namespace (`db.name`). */
  private readonly staged = new WeakMap<Transaction, Map<string, Collection>>();

  /** Tailable cursors waiting for inserts into a capped collection, by namespace. */
  private readonly cappedWaiters = new Map<string, Set<() => void>>();

  private constructor(readonly engine: StorageEngine) {}

  /** Calls `listener` after each committed insert into the capped collection `ns`; returns its removal. */
  onCappedInsert(ns: string, listener: () => void): () => void {
    let set = this.cappedWaiters.get(ns);
    if (set === undefined) {
      set = new Set();
      this.cappedWaiters.set(ns, set);
    }
    set.add(listener);
    return () => {
      const s = this.cappedWaiters.get(ns);
      if (s === undefined) return;
      s.delete(listener);
      if (s.size === 0) this.cappedWaiters.delete(ns);
    };
  }

  /** An insert into the capped collection `ns` committed (the write unit calls it). */
  notifyCappedInsert(ns: string): void {
    const set = this.cappedWaiters.get(ns);
    if (set === undefined) return;
    for (const l of [...set]) l();
  }

  static open(engine: StorageEngine, logger: Logger): Catalog {
    const catalog = new Catalog(engine);
    const snap = engine.snapshot();
    try {
      for (const { value } of snap.scan(catalogTable)) {
        const meta = metaFromDocument(decodeDocument(value));
        catalog.attach(new Collection(meta, snap));
      }
    } finally {
      snap.release();
    }
    logger.info('STORAGE', 22000, 'Catalog loaded', { collections: catalog.collectionCount() });
    return catalog;
  }

  private attach(coll: Collection): void {
    let colls = this.dbs.get(coll.meta.db);
    if (colls === undefined) {
      colls = new Map();
      this.dbs.set(coll.meta.db, colls);
    }
    colls.set(coll.meta.name, coll);
  }

  private detach(coll: Collection): void {
    const colls = this.dbs.get(coll.meta.db);
    if (colls === undefined) return;
    colls.delete(coll.meta.name);
    if (colls.size === 0) this.dbs.delete(coll.meta.db);
  }

  collectionCount(): number {
    let n = 0;
    for (const colls of this.dbs.values()) n += colls.size;
    return n;
  }

  /** Databases that hold at least one collection, in name order. */
  databaseNames(): string[] {
    return [...this.dbs.keys()].sort();
  }

  collections(db: string): Collection[] {
    const colls = this.dbs.get(db);
    return colls === undefined
      ? []
      : [...colls.values()].sort((a, b) => (a.meta.name < b.meta.name ? -1 : 1));
  }

  /**
   * The collection `db.name`: the one the transaction `scope` created, if it did, else the
   * committed one.
   */
  get(db: string, name: string, scope?: CatalogScope): Collection | undefined {
    const transaction = transactionOf(scope);
    if (transaction !== undefined) {
      const staged = this.staged.get(transaction)?.get(`${db}.${name}`);
      if (staged !== undefined) return staged;
    }
    return this.dbs.get(db)?.get(name);
  }

  /** Whether `coll` is (a version of) a collection the transaction `scope` created. */
  createdIn(scope: CatalogScope, coll: Collection): boolean {
    const transaction = transactionOf(scope);
    if (transaction === undefined) return false;
    return this.staged.get(transaction)?.get(`${coll.meta.db}.${coll.meta.name}`) === coll;
  }

  /**
   * Whether `coll` is in the snapshot of the transaction `view` belongs to (true outside
   * one). A collection another session created after the snapshot is not.
   */
  visibleIn(view: ReadView, coll: Collection): boolean {
    if (!(view instanceof TransactionView)) return true;
    return view.get(catalogTable, Buffer.from(coll.meta.uuid, 'hex')) !== undefined;
  }

  /** Within a write transaction: the collection, created (with its _id index) if absent. */
  getOrCreate(txn: WriteTxn, db: string, name: string): Collection {
    return this.get(db, name, txn) ?? this.create(txn, db, name, {});
  }

  /**
   * Within a write transaction: create a collection; NamespaceExists if it exists, and
   * CommandNotSupportedOnView where a view has the name (an insert, upsert or $out into a
   * view must not create a collection beside it).
   */
  create(txn: WriteTxn, db: string, name: string, opts: CreateCollectionOptions): Collection {
    const existing = this.get(db, name, txn);
    if (existing !== undefined) {
      // Created by someone else after the transaction's snapshot: mongod's transaction would
      // not see it, create its own and fail to commit.
      if (!this.visibleIn(txn, existing)) throw writeConflictError();
      throw new CommandError(ErrorCode.NamespaceExists, `Collection ${db}.${name} already exists.`);
    }
    if (name !== systemViewsName && lookupView(this, txn, db, name) !== undefined)
      throw notACollection(db, name);
    const uuid = opts.uuid ?? new UUID().toHexString(false);
    const idKey = { _id: new Int32(1) };
    const idIndex: IndexMeta = {
      name: '_id_',
      key: idKey,
      spec: { v: new Int32(2), key: idKey, name: '_id_' },
      ident: `i:${uuid}:0`,
    };
    const meta: CollectionMeta = {
      db,
      name,
      uuid,
      options: opts.options ?? {},
      indexes: [idIndex],
      nextIndexIdent: 1,
    };
    this.persist(txn, meta);
    const coll = new Collection(meta, txn);
    this.observer.onCreateCollection(txn, coll);
    const transaction = transactionOf(txn);
    if (transaction !== undefined) {
      this.stage(transaction, coll);
      return coll;
    }
    this.attach(coll);
    txn.onRollback?.(() => this.detach(coll));
    return coll;
  }

  /**
   * Record `coll` as the transaction's (latest version of the) collection of its namespace.
   * The first one of a transaction registers what its commit runs and the undo of its abort.
   */
  private stage(transaction: Transaction, coll: Collection): void {
    let staged = this.staged.get(transaction);
    if (staged === undefined) {
      const created = new Map<string, Collection>();
      staged = created;
      this.staged.set(transaction, created);
      transaction.beforeApply.push((raw) => this.commitStaged(raw, transaction, created));
      transaction.rollbacks.push(() => this.staged.delete(transaction));
    }
    staged.set(`${coll.meta.db}.${coll.meta.name}`, coll);
  }

  /**
   * Inside the commit of a transaction: the collections it created join the mirror, unless
   * another session created a collection or view of one of their names meanwhile: then
   * WriteConflict, and none joins (mongod: the first to commit wins).
   */
  private commitStaged(
    raw: WriteTxn,
    transaction: Transaction,
    created: ReadonlyMap<string, Collection>,
  ): void {
    for (const coll of created.values()) {
      const { db, name } = coll.meta;
      if (this.get(db, name) !== undefined || lookupView(this, raw, db, name) !== undefined)
        throw writeConflictError();
    }
    for (const coll of created.values()) {
      this.attach(coll);
      raw.onRollback?.(() => this.detach(coll));
    }
    this.staged.delete(transaction);
  }

  /** Within a write transaction: remove a collection and all its data. */
  drop(txn: WriteTxn, coll: Collection): void {
    this.observer.onDropCollection(txn, coll);
    this.remove(txn, coll);
  }

  private remove(txn: WriteTxn, coll: Collection): void {
    txn.clearTable(coll.recordTable);
    for (const index of coll.meta.indexes) txn.clearTable(index.ident);
    for (const index of coll.meta.building ?? []) clearIndexTables(txn, index);
    txn.delete(catalogTable, Buffer.from(coll.meta.uuid, 'hex'));
    this.detach(coll);
    txn.onRollback?.(() => this.attach(coll));
  }

  /**
   * Within a write transaction: rename (same or other database); the UUID stays. `dropTarget`,
   * the collection at the new name, is dropped as part of the rename (one oplog entry, as mongod).
   */
  rename(
    txn: WriteTxn,
    coll: Collection,
    toDb: string,
    toName: string,
    dropTarget?: Collection,
  ): Collection {
    if (dropTarget !== undefined) this.remove(txn, dropTarget);
    const from = { db: coll.meta.db, name: coll.meta.name };
    const meta: CollectionMeta = { ...coll.meta, db: toDb, name: toName };
    this.persist(txn, meta);
    this.detach(coll);
    const renamed = new Collection(meta, txn, coll);
    this.observer.onRenameCollection(txn, from, renamed, dropTarget);
    this.attach(renamed);
    txn.onRollback?.(() => {
      this.detach(renamed);
      this.attach(coll);
    });
    return renamed;
  }

  /**
   * Within a write transaction: a collection brought back from a copy of its tables (test
   * fixtures: restore), under a new UUID as mongod gives any re-created collection. `records`
   * and `indexes` (by index name) hold the contents; the caller has dropped what had the name.
   */
  adopt(
    txn: WriteTxn,
    meta: CollectionMeta,
    records: TableImage,
    indexes: ReadonlyMap<string, TableImage>,
  ): Collection {
    if (this.get(meta.db, meta.name) !== undefined) {
      throw new CommandError(
        ErrorCode.NamespaceExists,
        `Collection ${meta.db}.${meta.name} already exists.`,
      );
    }
    const uuid = new UUID().toHexString(false);
    // New idents by position: below nextIndexIdent, which only grows, so never reused later.
    // An index still being built when the copy was taken is not part of it.
    const { building: _unfinished, ...rest } = meta;
    const adopted: CollectionMeta = {
      ...rest,
      uuid,
      indexes: meta.indexes.map((index, i) => ({ ...index, ident: `i:${uuid}:${i}` })),
    };
    importImage(txn, recordTableName(uuid), records);
    for (const index of adopted.indexes) {
      const image = indexes.get(index.name);
      invariant(
        image !== undefined,
        () => `no copy of index ${index.name} of ${meta.db}.${meta.name}`,
      );
      importImage(txn, index.ident, image);
    }
    this.persist(txn, adopted);
    const coll = new Collection(adopted, txn);
    this.observer.onCreateCollection(txn, coll);
    for (const index of adopted.indexes)
      if (index.name !== '_id_') this.observer.onCreateIndex(txn, coll, index.spec);
    this.attach(coll);
    txn.onRollback?.(() => this.detach(coll));
    return coll;
  }

  /**
   * Within a write transaction: store changed metadata (options, indexes), and log the change
   * a user made (`change`) through the observer. Bookkeeping of our own (an index build's
   * progress, its cleanup) passes no change and logs nothing.
   */
  updateMeta(
    txn: WriteTxn,
    coll: Collection,
    meta: CollectionMeta,
    change?: MetaChange,
  ): Collection {
    const updated = this.storeMeta(txn, coll, meta);
    if (change !== undefined) this.logMetaChange(txn, updated, change);
    return updated;
  }

  private logMetaChange(txn: WriteTxn, coll: Collection, change: MetaChange): void {
    switch (change.op) {
      case 'createIndexes':
        for (const spec of change.specs) this.observer.onCreateIndex(txn, coll, spec);
        return;
      case 'dropIndexes':
        for (const spec of change.specs) this.observer.onDropIndex(txn, coll, spec);
        return;
      case 'collMod':
        this.observer.onCollMod(
          txn,
          coll,
          change.command,
          change.oldOptions,
          change.oldIndexOptions,
        );
        return;
    }
  }

  private storeMeta(txn: WriteTxn, coll: Collection, meta: CollectionMeta): Collection {
    this.persist(txn, meta);
    const updated = new Collection(meta, txn, coll);
    const transaction = transactionOf(txn);
    if (transaction !== undefined) {
      // createIndexes, the one metadata change allowed in a transaction, refuses collections
      // the transaction did not create: a committed one would change for everyone at once.
      invariant(
        this.createdIn(transaction, coll),
        () => `metadata of ${coll.ns} changed in a transaction that did not create it`,
      );
      this.stage(transaction, updated);
      return updated;
    }
    this.detach(coll);
    this.attach(updated);
    txn.onRollback?.(() => {
      this.detach(updated);
      this.attach(coll);
    });
    return updated;
  }

  private persist(txn: WriteTxn, meta: CollectionMeta): void {
    txn.put(catalogTable, Buffer.from(meta.uuid, 'hex'), encodeDocument(metaToDocument(meta)));
  }

  /** The collections stored as of `view` (not the mirror: it may hold uncommitted ones). */
  static storedMetas(view: ReadView): CollectionMeta[] {
    const metas: CollectionMeta[] = [];
    for (const { value } of view.scan(catalogTable))
      metas.push(metaFromDocument(decodeDocument(value)));
    return metas;
  }

  uuidBinary(coll: Collection): Binary {
    return new Binary(Buffer.from(coll.meta.uuid, 'hex'), Binary.SUBTYPE_UUID);
  }
}

function metaToDocument(meta: CollectionMeta): BsonDocument {
  return {
    db: meta.db,
    name: meta.name,
    uuid: meta.uuid,
    options: meta.options,
    nextIndexIdent: new Int32(meta.nextIndexIdent),
    indexes: meta.indexes.map(indexMetaToDocument),
    ...(meta.building === undefined || meta.building.length === 0
      ? {}
      : { building: meta.building.map(indexMetaToDocument) }),
  };
}

function indexMetaToDocument(i: IndexMeta): BsonDocument {
  return {
    name: i.name,
    key: i.key,
    spec: i.spec,
    ident: i.ident,
    ...(i.buildUUID === undefined ? {} : { buildUUID: i.buildUUID }),
  };
}

function indexMetaFromDocument(i: BsonDocument): IndexMeta {
  const buildUUID = i['buildUUID'];
  return {
    name: i['name'] as string,
    key: i['key'] as BsonDocument,
    spec: i['spec'] as BsonDocument,
    ident: i['ident'] as string,
    ...(typeof buildUUID === 'string' ? { buildUUID } : {}),
  };
}

/** Within a write transaction: empty an index's tables (its entries and its build's). */
export function clearIndexTables(txn: WriteTxn, index: IndexMeta): void {
  txn.clearTable(index.ident);
  txn.clearTable(skippedRecordsTable(index));
}

function metaFromDocument(doc: BsonDocument): CollectionMeta {
  const indexes = (doc['indexes'] as BsonDocument[]).map(indexMetaFromDocument);
  const building = Array.isArray(doc['building'])
    ? (doc['building'] as BsonDocument[]).map(indexMetaFromDocument)
    : undefined;
  const next = doc['nextIndexIdent'];
  return {
    db: doc['db'] as string,
    name: doc['name'] as string,
    uuid: doc['uuid'] as string,
    options: doc['options'] as BsonDocument,
    indexes,
    ...(building === undefined ? {} : { building }),
    nextIndexIdent:
      typeof next === 'object' && next !== null && 'value' in next ? Number(next.value) : 1,
  };
}
