// Small helpers for driver-level tests: a collection holding exactly the given documents, and
// the server error a promise must reject with.

import assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Collection, Db, Document } from 'mongodb';

/** The collection `name` of `db`, emptied, then holding `docs`. */
export async function freshCollection(
  db: Db,
  name: string,
  docs: Document[],
): Promise<Collection<Document>> {
  const c = db.collection(name);
  await c.deleteMany({});
  if (docs.length > 0) await c.insertMany(docs);
  return c;
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
