// What the tools read about a server: its version, databases, collections and indexes, with
// values kept in their exact BSON types (a validator's 1.0 stays a double), by asking for raw
// replies and decoding them without promotion.

import { deserialize, Long, rawDecodeOptions as decodeOptions, Timestamp } from './bson.js';
import type { Document } from './bson.js';
import type { Db, MongoClient } from 'mongodb';
import { ToolError } from './tool-error.js';

export function decodeRaw(doc: unknown): Document {
  if (!(doc instanceof Uint8Array))
    throw new ToolError('the server sent a document where raw BSON was expected');
  return deserialize(doc, decodeOptions);
}

async function rawCursor(db: Db, command: Document): Promise<Document[]> {
  const out: Document[] = [];
  const cursor = db.runCursorCommand(command, { raw: true });
  try {
    for await (const d of cursor) out.push(decodeRaw(d));
  } finally {
    await cursor.close();
  }
  return out;
}

export interface CollectionInfo {
  readonly name: string;
  readonly type: string;
  readonly options: Document;
  readonly uuid: string | undefined;
}

function uuidHex(info: unknown): string | undefined {
  if (typeof info !== 'object' || info === null) return undefined;
  const u = (info as Document)['uuid'];
  if (typeof u === 'object' && u !== null && 'sub_type' in u && 'buffer' in u && u.sub_type === 4) {
    const bytes = (u as { buffer: Uint8Array }).buffer;
    return Buffer.from(bytes).toString('hex');
  }
  return undefined;
}

export async function listCollectionInfos(db: Db, name?: string): Promise<CollectionInfo[]> {
  const docs = await rawCursor(db, {
    listCollections: 1,
    filter: name === undefined ? {} : { name },
  });
  return docs.map((d) => ({
    name: String(d['name']),
    type: typeof d['type'] === 'string' ? d['type'] : 'collection',
    options: (d['options'] as Document | undefined) ?? {},
    uuid: uuidHex(d['info']),
  }));
}

/** The collection's index specifications as the server lists them; [] if it is gone. */
export async function listIndexSpecs(db: Db, collection: string): Promise<Document[]> {
  try {
    return await rawCursor(db, { listIndexes: collection });
  } catch (e) {
    if (e instanceof Error && 'code' in e && e.code === 26) return []; // NamespaceNotFound
    throw e;
  }
}

export async function databaseNames(client: MongoClient): Promise<string[]> {
  const r = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
  const dbs = r['databases'];
  if (!Array.isArray(dbs)) throw new ToolError('listDatabases answered without a database list');
  return dbs.map((d: Document) => String(d['name']));
}

export async function serverVersion(client: MongoClient): Promise<string> {
  const r = await client.db('admin').command({ buildInfo: 1 });
  return typeof r['version'] === 'string' ? r['version'] : 'unknown';
}

/** A Timestamp whatever way the driver decoded it. */
export function asTimestamp(v: unknown): Timestamp | undefined {
  if (v instanceof Timestamp) return v;
  if (v instanceof Long) return new Timestamp(v);
  return undefined;
}

export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  return a.t - b.t || a.i - b.i;
}
