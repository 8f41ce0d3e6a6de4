// Constraints hold under concurrency: racing writers on separate connections.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

describe('concurrency', () => {
  let ts: TestServer;
  let clients: MongoClient[] = [];
  before(async () => {
    ts = await startTestServer();
    clients = await Promise.all(Array.from({ length: 20 }, () => ts.newClient({ maxPoolSize: 1 })));
  });
  after(async () => {
    await ts.stop();
  });

  test('20 connections insert the same _id: exactly one wins, the rest get DuplicateKey', async () => {
    for (let round = 0; round < 5; round++) {
      const results = await Promise.allSettled(
        clients.map((c, i) =>
          c
            .db('race')
            .collection<TestDoc>('c')
            .insertOne({ _id: `k${round}`, writer: i }),
        ),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      assert.equal(won.length, 1, `round ${round}: one winner`);
      assert.equal(lost.length, 19);
      for (const l of lost) {
        const e = l.reason as MongoServerError;
        assert.ok(e instanceof MongoServerError);
        assert.equal(e.code, 11000);
        assert.deepEqual(e.errorResponse['keyPattern'] ?? e['keyPattern'], { _id: 1 });
        assert.deepEqual(e.errorResponse['keyValue'] ?? e['keyValue'], { _id: `k${round}` });
      }
      const docs = await ts.client
        .db('race')
        .collection<TestDoc>('c')
        .find({ _id: `k${round}` })
        .toArray();
      assert.equal(docs.length, 1, 'no partial state: one document');
    }
  });

  test('20 connections race on a unique secondary index: one winner', async () => {
    const coll = ts.client.db('race').collection('u');
    await coll.createIndex({ email: 1 }, { unique: true });
    const results = await Promise.allSettled(
      clients.map((c, i) =>
        c.db('race').collection<TestDoc>('u').insertOne({ _id: i, email: 'same@example.com' }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.equal(await coll.countDocuments({}), 1);
    const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal((lost?.reason as MongoServerError).code, 11000);
  });

  test('20 connections race on compound, multikey and partial unique indexes: one winner each', async () => {
    const db = ts.client.db('race');
    await db.collection('compound').createIndex({ org: 1, user: -1 }, { unique: true });
    await db.collection('tags').createIndex({ tags: 1 }, { unique: true });
    await db
      .collection('partial')
      .createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
    const cases: Array<[string, (i: number) => Document]> = [
      ['compound', (i) => ({ _id: i, org: 'o', user: 7, note: i })],
      // Every document shares 'shared' with the others among its own distinct tags.
      ['tags', (i) => ({ _id: i, tags: [`own${i}`, 'shared', `own${i}`] })],
      ['partial', (i) => ({ _id: i, email: 'x@example.com', active: true })],
    ];
    for (const [name, make] of cases) {
      const results = await Promise.allSettled(
        clients.map((c, i) => c.db('race').collection(name).insertOne(make(i))),
      );
      assert.equal(
        results.filter((r) => r.status === 'fulfilled').length,
        1,
        `${name}: one winner`,
      );
      for (const r of results) {
        if (r.status === 'rejected') assert.equal((r.reason as MongoServerError).code, 11000, name);
      }
      assert.equal(await db.collection(name).countDocuments({}), 1, `${name}: one document`);
    }
    // Documents outside the partial filter never collide.
    await Promise.all(
      clients.map((c, i) =>
        c
          .db('race')
          .collection<TestDoc>('partial')
          .insertOne({ _id: 100 + i, email: 'x@example.com', active: false }),
      ),
    );
  });

  test('20 connections update different documents into the same unique key: one winner', async () => {
    const coll = ts.client.db('race').collection<TestDoc>('moves');
    await coll.createIndex({ slot: 1 }, { unique: true });
    await coll.insertMany(clients.map((_, i) => ({ _id: i, slot: `free${i}` })));
    const results = await Promise.allSettled(
      clients.map((c, i) =>
        c
          .db('race')
          .collection<TestDoc>('moves')
          .updateOne({ _id: i }, { $set: { slot: 'taken' } }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.equal(await coll.countDocuments({ slot: 'taken' }), 1);
    assert.deepEqual(
      (await coll.find({ slot: 'taken' }).toArray()).length,
      1,
      'the index and the documents agree',
    );
  });

  test('concurrent $inc updates are not lost', async () => {
    const coll = ts.client.db('race').collection<TestDoc>('counter');
    await coll.insertOne({ _id: 'n', v: 0 });
    await Promise.all(
      clients.map((c) =>
        Promise.all(
          Array.from({ length: 10 }, () =>
            c
              .db('race')
              .collection<TestDoc>('counter')
              .updateOne({ _id: 'n' }, { $inc: { v: 1 } }),
          ),
        ),
      ),
    );
    assert.deepEqual(await coll.findOne({ _id: 'n' }), { _id: 'n', v: 200 });
  });
});
