// Small helpers for driver-level tests: the document type test collections hold, a collection
// holding exactly the given documents, and the server error a promise must reject with.

import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type {
  Binary,
  BSONRegExp,
  Collection,
  Db,
  Decimal128,
  Document,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'mongodb';

/**
 * An `_id` as tests write them: any BSON value but an array. The driver types the `_id` of a
 * plain `Collection<Document>` as ObjectId, which rejects `{ _id: 1 }` in every filter.
 */
export type TestId =
  | null
  | boolean
  | number
  | string
  | Date
  | ObjectId
  | Int32
  | Long
  | Double
  | Decimal128
  | Binary
  | Timestamp
  | MinKey
  | MaxKey
  | BSONRegExp
  | Document;

/** The schema of a test collection: any document, its `_id` any {@link TestId}. */
export interface TestDoc extends Document {
  _id?: TestId;
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
