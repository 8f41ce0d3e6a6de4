// `sort` in update statements (MongoDB 8.0): updateOne / replaceOne update the first matched
// document in sort order. Reporting 7.0 (compatibilityVersion '7.0') the field is refused as
// 7.0 refuses it.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Collection } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

async function seeded(ts: TestServer, name: string): Promise<Collection<TestDoc>> {
  const coll = ts.client.db('usort').collection<TestDoc>(name);
  await coll.drop().catch(() => undefined);
  await coll.insertMany([
    { _id: 1, x: 11, r: 3 },
    { _id: 2, x: 22, r: 1 },
    { _id: 3, x: 33, r: 2 },
  ]);
  return coll;
}

async function serverError(p: Promise<unknown>): Promise<MongoServerError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MongoServerError) return e;
    throw e;
  }
  assert.fail('expected a server error');
}

describe('update with sort, reporting 8.0 (the default)', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });

  test('hello and buildInfo report 8.0', async () => {
    const hello = await ts.client.db('admin').command({ hello: 1 });
    assert.equal(hello['maxWireVersion'], 25);
    const bi = await ts.client.db('admin').command({ buildInfo: 1 });
    assert.deepEqual(bi['versionArray'].slice(0, 2), [8, 0]);
  });

  test('updateOne updates the first document in sort order', async () => {
    const coll = await seeded(ts, 'u1');
    const r = await coll.updateOne({ _id: { $gt: 1 } }, { $inc: { x: 1 } }, { sort: { _id: -1 } });
    assert.equal(r.matchedCount, 1);
    assert.equal(r.modifiedCount, 1);
    assert.deepEqual(await coll.find().sort({ _id: 1 }).toArray(), [
      { _id: 1, x: 11, r: 3 },
      { _id: 2, x: 22, r: 1 },
      { _id: 3, x: 34, r: 2 },
    ]);
    await coll.updateOne({}, { $set: { first: true } }, { sort: { r: 1 } });
    assert.deepEqual(await coll.findOne({ first: true }), { _id: 2, x: 22, r: 1, first: true });
  });

  test('replaceOne replaces the first document in sort order', async () => {
    const coll = await seeded(ts, 'r1');
    const r = await coll.replaceOne({}, { x: 1 }, { sort: { r: -1 } });
    assert.equal(r.matchedCount, 1);
    assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, x: 1 });
  });

  test('an upsert with a sort that matches nothing inserts', async () => {
    const coll = await seeded(ts, 'up');
    const r = await coll.updateOne({ x: 99 }, { $set: { y: 1 } }, { sort: { r: 1 }, upsert: true });
    assert.equal(r.upsertedCount, 1);
    assert.equal(await coll.countDocuments(), 4);
  });

  test('sort with multi: true fails the command (FailedToParse)', async () => {
    await seeded(ts, 'm');
    const e = await serverError(
      ts.client.db('usort').command({
        update: 'm',
        updates: [{ q: {}, u: { $set: { z: 1 } }, multi: true, sort: { r: 1 } }],
      }),
    );
    assert.equal(e.code, 9);
    assert.equal(e.message, 'Cannot specify sort with multi=true');
    assert.equal(await ts.client.db('usort').collection<TestDoc>('m').countDocuments({ z: 1 }), 0);
  });

  test('a sort that is not a document is a TypeMismatch; a bad sort value a writeError', async () => {
    await seeded(ts, 'bad');
    const db = ts.client.db('usort');
    const e = await serverError(
      db.command({ update: 'bad', updates: [{ q: {}, u: { $set: { z: 1 } }, sort: 1 }] }),
    );
    assert.equal(e.code, 14);
    // A bad sort value fails the statement when it runs: a writeError, as mongod's planner.
    const r = await db.command({
      update: 'bad',
      updates: [{ q: {}, u: { $set: { z: 1 } }, sort: { r: 'x' } }],
    });
    assert.equal(r['n'], 0);
    assert.equal(r['writeErrors'][0].code, 15974);
  });
});

describe('update with sort, reporting 7.0', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ compatibilityVersion: '7.0' });
  });
  after(async () => {
    await ts.stop();
  });

  test('hello, buildInfo and featureCompatibilityVersion report 7.0', async () => {
    const admin = ts.client.db('admin');
    assert.equal((await admin.command({ hello: 1 }))['maxWireVersion'], 21);
    const bi = await admin.command({ buildInfo: 1 });
    assert.deepEqual(bi['versionArray'].slice(0, 2), [7, 0]);
    const fcv = await admin.command({ getParameter: 1, featureCompatibilityVersion: 1 });
    assert.deepEqual(fcv['featureCompatibilityVersion'], { version: '7.0' });
  });

  test('sort is an unknown field of an update statement, as in mongod 7.0', async () => {
    const coll = await seeded(ts, 'u7');
    const e = await serverError(coll.updateOne({}, { $inc: { x: 1 } }, { sort: { _id: -1 } }));
    assert.equal(e.code, 40415);
    assert.equal(e.message, "BSON field 'update.updates.sort' is an unknown field.");
    const r = await coll.replaceOne({}, { x: 1 }).catch(() => undefined);
    assert.equal(r?.matchedCount, 1);
    const e2 = await serverError(coll.replaceOne({}, { x: 2 }, { sort: { _id: -1 } }));
    assert.equal(e2.code, 40415);
  });
});
