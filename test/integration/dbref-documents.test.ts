// DBRef-shaped documents ({$ref, $id, $db}) through the official driver. To MongoDB a DBRef is an
// ordinary document: it is stored with its fields in the order written ("MongoDB preserves the
// order of the document fields following write operations", manual: Documents, Document Field
// Order), '$'-prefixed names are allowed in nested documents and inserts (5.0+), and a
// replacement may carry $ref, $id, $db at its top level in that order
// (src/mongo/db/update/storage_validation.cpp). Field order is read on the server with
// $objectToArray, because the driver itself turns such documents into its DBRef class.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Db, Document } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

let ts: TestServer;
let db: Db;

before(async () => {
  ts = await startTestServer();
  db = ts.client.db('dbref_documents');
});

after(async () => {
  await ts?.stop();
});

/** The field names of `path` (or of the whole document) as stored, in order. */
async function storedKeys(coll: string, id: number, path = '$$ROOT'): Promise<string[]> {
  const [row] = await db
    .collection(coll)
    .aggregate([
      { $match: { _id: id } },
      { $project: { _id: 0, kv: { $map: { input: { $objectToArray: path }, in: '$$this.k' } } } },
    ])
    .toArray();
  return (row?.['kv'] as string[] | undefined) ?? [];
}

describe('DBRef-shaped documents keep their fields', () => {
  test('inserted nested documents keep the order written, $ref with a dot included', async () => {
    await db.collection('ins').deleteMany({});
    await db.command({
      insert: 'ins',
      documents: [
        { _id: 1, r: { $id: 1, $ref: 'x' } },
        { _id: 2, r: { a: 1, $ref: 'a.b', $id: 1 } },
        { _id: 3, r: { $ref: 'x', $id: 1, $db: 'd', extra: true } },
      ],
    });
    assert.deepEqual(await storedKeys('ins', 1, '$r'), ['$id', '$ref']);
    assert.deepEqual(await storedKeys('ins', 2, '$r'), ['a', '$ref', '$id']);
    assert.deepEqual(await storedKeys('ins', 3, '$r'), ['$ref', '$id', '$db', 'extra']);
    const [two] = await db
      .collection('ins')
      .aggregate([
        { $match: { _id: 2 } },
        { $project: { _id: 0, ref: '$r.$ref', db: { $type: '$r.$db' } } },
      ])
      .toArray();
    assert.deepEqual(two, { ref: 'a.b', db: 'missing' });
  });

  test('an insert may carry DBRef fields at the top level', async () => {
    await db.collection('top').deleteMany({});
    await db.command({ insert: 'top', documents: [{ _id: 1, $ref: 'x', $id: 2 }] });
    assert.deepEqual(await storedKeys('top', 1), ['_id', '$ref', '$id']);
  });

  test('a replacement with $ref, $id, $db at its top level (not first) is stored as written', async () => {
    await db.collection('rep').deleteMany({});
    await db.collection<TestDoc>('rep').insertOne({ _id: 1, old: true });
    const r = await db.command({
      update: 'rep',
      updates: [{ q: { _id: 1 }, u: { a: 1, $ref: 'c', $id: 2, $db: 'd' } }],
    });
    assert.equal(r['nModified'], 1);
    assert.deepEqual(await storedKeys('rep', 1), ['_id', 'a', '$ref', '$id', '$db']);
    const fam = await db.command({
      findAndModify: 'rep',
      query: { _id: 1 },
      update: { b: 2, $ref: 'e', $id: 3 },
      new: true,
    });
    assert.ok(fam['value'] !== null);
    assert.deepEqual(await storedKeys('rep', 1), ['_id', 'b', '$ref', '$id']);
  });

  test('$id before $ref in a replacement is InvalidDBRef (55)', async () => {
    await db.collection('rep2').deleteMany({});
    await db.collection<TestDoc>('rep2').insertOne({ _id: 1 });
    const r = await db.command({
      update: 'rep2',
      updates: [{ q: { _id: 1 }, u: { a: 1, $id: 2, $ref: 'c' } }],
    });
    const errors = r['writeErrors'] as Document[];
    assert.equal(errors[0]?.['code'], 55);
    assert.equal(
      errors[0]?.['errmsg'],
      'Found $id field without a $ref before it, which is invalid.',
    );
    await assert.rejects(
      db.command({ findAndModify: 'rep2', query: { _id: 1 }, update: { a: 1, $id: 2, $ref: 'c' } }),
      (e: unknown) => e instanceof MongoServerError && e.code === 55,
    );
  });

  test('a filter on a DBRef, through the index too', async () => {
    const c = db.collection('refs');
    await c.deleteMany({});
    await db.command({
      insert: 'refs',
      documents: [
        { _id: 1, r: { $ref: 'x', $id: 1 } },
        { _id: 2, r: { $ref: 'x', $id: 2 } },
        { _id: 3, r: { $id: 1, $ref: 'x' } },
      ],
    });
    const ids = async (): Promise<unknown[]> =>
      (
        await c
          .find({ r: { $ref: 'x', $id: 1 } }, { projection: { _id: 1 }, sort: { _id: 1 } })
          .toArray()
      ).map((d) => d['_id']);
    // Equality on a document is on its bytes: {$id, $ref} is another document.
    assert.deepEqual(await ids(), [1]);
    await c.createIndex({ r: 1 });
    assert.deepEqual(await ids(), [1]);
    assert.deepEqual(
      (await c.find({ 'r.$id': 1 }, { sort: { _id: 1 }, projection: { _id: 1 } }).toArray()).map(
        (d) => d['_id'],
      ),
      [1, 3],
    );
  });
});
