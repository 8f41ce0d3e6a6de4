// Writes of many documents share the event loop (runSlicedWrite in
// src/commands/crud/write-exec.ts): while an updateMany or deleteMany runs, another client is
// served; killOp stops it with Interrupted (11601) and maxTimeMS with MaxTimeMSExpired (50),
// keeping what it did before (mongod's multi-writes are not atomic outside a transaction), with
// every index still agreeing with the documents. Without interruption the result is the whole
// statement's.
//
// No timing is asserted: "served while it runs" is an order of events (the ping settles while
// the write has not).

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Collection, Db, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';
import { codeOf, track } from '../helpers/tracked.js';

const DOCS = 2000;
/** Costs ~100 µs a document and reads a field, so it is not folded into a constant. */
const slowValue = { $size: { $range: [0, { $add: [20000, { $multiply: ['$a', 0] }] }] } };
/** A filter of that cost that matches every document. */
const slowAll = { $expr: { $gte: [slowValue, 0] } };

describe('updateMany and deleteMany yield to other clients', () => {
  let t: TestServer;
  let db: Db;
  let other: MongoClient;
  let coll: Collection<TestDoc>;

  async function refill(): Promise<void> {
    await coll.deleteMany({});
    const docs: TestDoc[] = [];
    for (let i = 0; i < DOCS; i++) docs.push({ _id: i, a: i, b: 0 });
    await coll.insertMany(docs);
  }

  /** The index on b agrees with the documents: hinted counts equal collection-scan counts. */
  async function assertIndexConsistent(): Promise<void> {
    for (const b of [0, 1]) {
      assert.equal(
        await coll.countDocuments({ b }, { hint: { b: 1 } }),
        await coll.countDocuments({ b }, { hint: { $natural: 1 } }),
      );
    }
    assert.equal(
      await coll.countDocuments({ b: { $gte: 0 } }, { hint: { b: 1 } }),
      await coll.countDocuments({}),
    );
  }

  async function opidOf(comment: string): Promise<unknown> {
    for (let i = 0; i < 500; i++) {
      const ops = await other
        .db('admin')
        .aggregate([{ $currentOp: {} }, { $match: { 'command.comment': comment } }])
        .toArray();
      if (ops[0] !== undefined) return ops[0]['opid'];
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`operation ${comment} never showed in $currentOp`);
  }

  before(async () => {
    t = await startTestServer();
    db = t.client.db('write_yields');
    other = await t.newClient();
    coll = db.collection<TestDoc>('c');
    await coll.createIndex({ b: 1 });
  });
  after(async () => {
    await t.stop();
  });

  const writes: Record<string, (comment: string, maxTimeMS?: number) => Promise<unknown>> = {
    updateMany: (comment: string, maxTimeMS?: number) =>
      coll.updateMany(
        slowAll,
        { $set: { b: 1 } },
        { comment, ...(maxTimeMS ? { maxTimeMS } : {}) },
      ),
    deleteMany: (comment: string, maxTimeMS?: number) =>
      coll.deleteMany(slowAll, { comment, ...(maxTimeMS ? { maxTimeMS } : {}) }),
  };

  for (const [kind, run] of Object.entries(writes)) {
    test(`${kind}: ping is answered while it runs; killOp stops it, indexes consistent`, async () => {
      await refill();
      const comment = `kill ${kind}`;
      const write = track(run(comment));
      const opid = await opidOf(comment);
      assert.equal((await other.db('admin').command({ ping: 1 }))['ok'], 1);
      assert.equal(write.settled(), false, 'the write was still running when the ping came back');
      await other.db('admin').command({ killOp: 1, op: opid });
      assert.equal(await codeOf(write.promise), 11601);
      assert.ok((await coll.countDocuments({})) <= DOCS);
      await assertIndexConsistent();
    });

    test(`${kind}: maxTimeMS stops it mid-way with MaxTimeMSExpired`, async () => {
      await refill();
      assert.equal(await codeOf(run(`maxTime ${kind}`, 100)), 50);
      await assertIndexConsistent();
    });
  }

  test('uninterrupted, they change every matching document exactly once', async () => {
    await refill();
    const u = await coll.updateMany({ a: { $gte: 100 } }, { $inc: { b: 1 } });
    assert.equal(u.matchedCount, DOCS - 100);
    assert.equal(u.modifiedCount, DOCS - 100);
    assert.equal(await coll.countDocuments({ b: 1 }), DOCS - 100);
    assert.equal(await coll.countDocuments({ b: 2 }), 0);
    await assertIndexConsistent();
    // An update that moves documents forward in the index it selects with: still once each.
    const moved = await coll.updateMany(
      { b: { $gte: 0 } },
      { $inc: { b: 10 } },
      { hint: { b: 1 } },
    );
    assert.equal(moved.modifiedCount, DOCS);
    assert.equal(await coll.countDocuments({ b: { $gte: 20 } }), 0);
    const d = await coll.deleteMany({ a: { $lt: 1000 } });
    assert.equal(d.deletedCount, 1000);
    assert.equal(await coll.countDocuments({}), DOCS - 1000);
    await assertIndexConsistent();
  });
});
