// Test fixtures on a running server: reset() drops every user database, snapshot() captures
// the user data (documents, indexes, collection options, views) and restore() brings it back.
//
// Seen from clients, reset and restore are one dropDatabase per user database, in a single
// storage transaction: change streams get the drop and dropDatabase events (and invalidate,
// for streams on a collection or database), cursors on the dropped collections are killed
// (getMore answers CursorNotFound), and the collections a restore brings back are new ones —
// new UUIDs, a `create` event each — as if re-created by a restore tool.
//
// One difference from mongod, on purpose: mongod's dropDatabase waits for open transactions
// on the database to end (up to transactionLifetimeLimitSeconds, 60 s). A fixture must not
// stall a test suite, so reset and restore abort every open transaction first, as
// killAllSessions would; the transaction's next statement or commit gets NoSuchTransaction.
//
// What counts as user data: every collection except admin.system.* (users, roles), config.*
// and local.*. Sessions, the retryable-write ledger and the oplog stay as they are.
//
// Cost: on the memory engine a snapshot shares the engine's persistent trees (O(1) per table,
// whatever their size) and a restore adopts them (O(1) per table); later writes copy the
// nodes they change, so a snapshot stays valid for as long as it is held and can be restored
// any number of times. On lmdb, snapshot() copies every entry into memory (in chunks, yielding
// to the event loop) and restore() writes them back in one transaction: both O(data).

import type { CollectionMeta } from '../catalog/collection.js';
import { recordTableName } from '../catalog/collection.js';
import { Catalog } from '../catalog/catalog.js';
import type { ServerServices } from '../commands/context.js';
import { limits } from '../limits.js';
import type { TableImage, WriteTxn } from '../storage/engine.js';
import { exportTableImage } from '../storage/table-image.js';

/** One collection as a snapshot holds it. */
interface CollectionImage {
  readonly meta: CollectionMeta;
  readonly records: TableImage;
  /** By index name. */
  readonly indexes: ReadonlyMap<string, TableImage>;
}

/**
 * The user data of a server at one moment. Opaque: pass it to restore(), on this server or
 * another one in the same process.
 */
export class ServerSnapshot {
  /** @internal */
  constructor(
    /** @internal */
    readonly images: readonly CollectionImage[],
  ) {}

  /** Databases in the snapshot, in name order. */
  get databases(): string[] {
    return [...new Set(this.images.map((c) => c.meta.db))].sort();
  }

  /** Namespaces ("db.collection") in the snapshot, in name order. */
  get namespaces(): string[] {
    return this.images.map((c) => `${c.meta.db}.${c.meta.name}`).sort();
  }

  /** Documents in the snapshot, across every collection. */
  get documentCount(): number {
    let n = 0;
    for (const c of this.images) n += c.records.count;
    return n;
  }
}

/** What reset() and restore() dropped. */
export interface ResetResult {
  /** Namespaces dropped ("db.collection"), in name order. */
  readonly dropped: string[];
  /** Transactions aborted because they were open. */
  readonly abortedTransactions: number;
}

const systemDatabases = new Set(['admin', 'config', 'local']);

/** Whether a collection holds user data (what reset drops and snapshots capture). */
export function isUserCollection(db: string, name: string): boolean {
  if (db === 'config' || db === 'local') return false;
  return !(db === 'admin' && name.startsWith('system.'));
}

/** Drop every user database. */
export function resetServer(services: ServerServices): Promise<ResetResult> {
  return replaceUserData(services, undefined);
}

/** Capture the user data: documents, indexes, collection options and views. */
export async function snapshotServer(services: ServerServices): Promise<ServerSnapshot> {
  const snap = services.engine.snapshot();
  try {
    const images: CollectionImage[] = [];
    const copy = { chunkEntries: limits.fixtureCopyChunkEntries };
    for (const meta of Catalog.storedMetas(snap)) {
      if (!isUserCollection(meta.db, meta.name)) continue;
      const records = await exportTableImage(snap, recordTableName(meta.uuid), copy);
      const indexes = new Map<string, TableImage>();
      for (const index of meta.indexes)
        indexes.set(index.name, await exportTableImage(snap, index.ident, copy));
      images.push({ meta, records, indexes });
    }
    return new ServerSnapshot(images);
  } finally {
    snap.release();
  }
}

/** Drop every user database, then bring back the snapshot's collections. */
export function restoreServer(
  services: ServerServices,
  snapshot: ServerSnapshot,
): Promise<ResetResult> {
  return replaceUserData(services, snapshot);
}

async function replaceUserData(
  services: ServerServices,
  snapshot: ServerSnapshot | undefined,
): Promise<ResetResult> {
  const abortedTransactions = abortOpenTransactions(services);
  const dropped = await services.engine.write(
    (txn) => {
      const names = dropUserData(services, txn);
      for (const c of snapshot?.images ?? [])
        services.catalog.adopt(txn, c.meta, c.records, c.indexes);
      return names;
    },
    { durable: true },
  );
  for (const ns of dropped) services.cursors.killForNamespace(ns);
  return { dropped, abortedTransactions };
}

function abortOpenTransactions(services: ServerServices): number {
  let n = 0;
  for (const session of services.sessions.all()) {
    const txn = session.transaction;
    if (txn?.state !== 'inProgress') continue;
    txn.abort();
    n++;
  }
  return n;
}

/** Inside a write transaction: drop the user collections, as dropDatabase does. */
function dropUserData(services: ServerServices, txn: WriteTxn): string[] {
  const { catalog, oplog } = services;
  const dropped: string[] = [];
  for (const db of catalog.databaseNames()) {
    const colls = catalog.collections(db).filter((c) => isUserCollection(db, c.meta.name));
    for (const c of colls) {
      catalog.drop(txn, c);
      dropped.push(c.ns);
    }
    // admin keeps its system collections: not a dropped database.
    if (colls.length > 0 && !systemDatabases.has(db)) oplog?.logDropDatabase(txn, db);
  }
  return dropped.sort();
}
