// Small helpers for driver-level tests: the document type test collections hold, a collection
// holding exactly the given documents, a collection's listCollections entry, and the server
// error a promise must reject with.

import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Binary, Collection, CollectionInfo, Db, Document } from 'mongodb';
import type { BsonScalar } from '../../src/bson/types.js';

/**
 * An `_id` as tests write them: a JS number (the driver sends it as int32 or double), any other
 * BSON scalar, or a document; not an array, which mongod refuses. The driver types the `_id` of
 * a plain `Collection<Document>` as ObjectId, which rejects `{ _id: 1 }` in every filter.
 */
export type TestId = number | BsonScalar | Document;

/** The schema of a test collection: any document, its `_id` any {@link TestId}. */
export interface TestDoc extends Document {
  _id?: TestId;
}

/**
 * An update using `$push`, `$pull` or `$pullAll`, typed as a plain document. For a
 * schema with an index signature (Document, TestDoc) the driver's PushOperator and PullOperator
 * types map every field name to `never` (NotAcceptedFields), so no such update type-checks as an
 * UpdateFilter; the driver takes a Document there as it does for update pipelines.
 */
export function arrayUpdate(update: Document): Document {
  return update;
}

/** The collection `name` of `db`, emptied, then holding `docs`. */
export async function freshCollection(
  db: Db,
  name: string,
  docs: TestDoc[],
): Promise<Collection<TestDoc>> {
  const c = db.collection<TestDoc>(name);
  await c.deleteMany({});
  if (docs.length > 0) await c.insertMany(docs);
  return c;
}

/** `name`'s entry in `db`'s listCollections (the full form, not nameOnly); fails when absent. */
export async function collectionInfo(db: Db, name: string): Promise<CollectionInfo> {
  const [info] = await db.listCollections<CollectionInfo>({ name }).toArray();
  assert.ok(info !== undefined, `listCollections has no ${name}`);
  return info;
}

/** The UUID listCollections reports for the collection `name` of `db`. */
export async function collectionUuid(db: Db, name: string): Promise<Binary> {
  const uuid = (await collectionInfo(db, name)).info?.uuid;
  assert.ok(uuid !== undefined, `listCollections shows no uuid for ${name}`);
  return uuid;
}

/** Awaits `p`, which must fail with a server error of `code`; returns the error. */
export async function expectServerCode(
  p: Promise<unknown>,
  code: number,
): Promise<MongoServerError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof MongoServerError, `not a server error: ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  return assert.fail(`expected error ${code}`);
}

/** Read options keeping every BSON type as sent (no promotion to JS numbers). */
export const raw = { promoteValues: false, promoteLongs: false } as const;

/** The BSON type of a value read with `raw` (the driver's own bson classes, so no instanceof). */
export const bsonType = (v: unknown): string | undefined =>
  (v as { _bsontype?: string } | undefined)?._bsontype;

/** Polls `fn` until it returns a value (another client's command reaches the server). */
export async function eventually<T>(
  fn: () => Promise<T | undefined>,
  what: string,
  ms = 5000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
