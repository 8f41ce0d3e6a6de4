// The Stable API through the driver's serverApi option: with strict: true, commands and
// aggregation stages outside API Version 1 fail with APIStrictError (323) and mongod's
// messages; everything inside it works; without strict the same stages run.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

describe('Stable API strict mode', () => {
  let t: TestServer;
  let strict: MongoClient;

  before(async () => {
    t = await startTestServer();
    strict = await t.newClient({ serverApi: { version: '1', strict: true } });
    await t.client
      .db('api')
      .collection<TestDoc>('c')
      .insertMany([
        { _id: 1, a: 1 },
        { _id: 2, a: 2 },
      ]);
  });
  after(async () => {
    await t.stop();
  });

  test('a command outside API Version 1 is refused', async () => {
    const e = await expectServerCode(strict.db('admin').command({ serverStatus: 1 }), 323);
    assert.match(
      e.message,
      /Provided apiStrict:true, but the command serverStatus is not in API Version 1/,
    );
  });

  test('stages outside API Version 1 are refused, also inside sub-pipelines', async () => {
    const e = await expectServerCode(
      strict
        .db('admin')
        .aggregate([{ $listLocalSessions: {} }])
        .toArray(),
      323,
    );
    assert.equal(
      e.message,
      "$listLocalSessions is not allowed with 'apiStrict: true' in API Version 1",
    );
    const c = strict.db('api').collection('c');
    await expectServerCode(c.aggregate([{ $indexStats: {} }]).toArray(), 323);
    await expectServerCode(c.aggregate([{ $facet: { s: [{ $indexStats: {} }] } }]).toArray(), 323);
    await expectServerCode(
      c.aggregate([{ $lookup: { from: 'c', pipeline: [{ $indexStats: {} }], as: 'x' } }]).toArray(),
      323,
    );
  });

  test('what API Version 1 holds works under strict, and the same stages run without it', async () => {
    const c = strict.db('api').collection('c');
    assert.deepEqual(
      await c.aggregate([{ $match: { a: { $gt: 1 } } }, { $project: { _id: 1 } }]).toArray(),
      [{ _id: 2 }],
    );
    assert.equal(await c.countDocuments({}), 2);
    const stats = await t.client
      .db('api')
      .collection('c')
      .aggregate([{ $indexStats: {} }])
      .toArray();
    assert.equal(stats.length, 1);
  });
});

// mongod's API test commands (test builds, enableTestCommands) and API Version 2, which exists
// only for them once acceptApiVersion2 is set.
describe('Stable API test commands', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.stop();
  });

  test('testVersion2 is not in API Version 1; testDeprecation is deprecated in it', async () => {
    const db = t.client.db('api');
    const e = await expectServerCode(
      db.command({ testVersion2: 1, apiVersion: '1', apiStrict: true }),
      323,
    );
    assert.match(e.message, /the command testVersion2 is not in API Version 1/);
    assert.equal((await db.command({ testVersion2: 1, apiVersion: '1' }))['ok'], 1);
    const d = await expectServerCode(
      db.command({ testDeprecation: 1, apiVersion: '1', apiDeprecationErrors: true }),
      324,
    );
    assert.match(d.message, /the command testDeprecation is deprecated in API Version 1/);
    await db.command({ testDeprecationInVersion2: 1, apiVersion: '1', apiDeprecationErrors: true });
    await db.command({ testVersions1And2: 1, apiVersion: '1', apiStrict: true });
  });

  test('API Version 2 is refused until acceptApiVersion2 is set, then holds its commands', async () => {
    const db = t.client.db('api');
    const admin = t.client.db('admin');
    await expectServerCode(db.command({ testVersion2: 1, apiVersion: '2' }), 322);
    await admin.command({ setParameter: 1, acceptApiVersion2: true });
    try {
      await db.command({ testVersion2: 1, apiVersion: '2', apiStrict: true });
      const e = await expectServerCode(
        db.command({ testRemoval: 1, apiVersion: '2', apiStrict: true }),
        323,
      );
      assert.match(e.message, /the command testRemoval is not in API Version 2/);
      await expectServerCode(
        db.command({ testDeprecationInVersion2: 1, apiVersion: '2', apiDeprecationErrors: true }),
        324,
      );
    } finally {
      await admin.command({ setParameter: 1, acceptApiVersion2: false });
    }
  });

  test('without enableTestCommands neither the commands nor the parameter exist', async () => {
    const plain = await startTestServer({ enableTestCommands: false });
    try {
      await expectServerCode(plain.client.db('api').command({ testVersion2: 1 }), 59);
      await expectServerCode(
        plain.client.db('admin').command({ setParameter: 1, acceptApiVersion2: true }),
        72,
      );
    } finally {
      await plain.stop();
    }
  });
});
