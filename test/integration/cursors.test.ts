// Idle cursors and transactions are reaped; sessions close their cursors.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Int32, Long, MongoServerError, UUID } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { rawCommand } from '../helpers/wire-client.js';
import type { TestDoc } from '../helpers/driver.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('reaping', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ reaperIntervalMs: 50 });
    await ts.client
      .db('r')
      .collection<TestDoc>('c')
      .insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i })));
  });
  after(async () => {
    await ts.stop();
  });

  test('a cursor idle past cursorTimeoutMillis is closed: getMore gets CursorNotFound', async () => {
    const admin = ts.client.db('admin');
    const before = await admin.command({ getParameter: 1, cursorTimeoutMillis: 1 });
    await admin.command({ setParameter: 1, cursorTimeoutMillis: Long.fromInt(200) });
    try {
      const r = await ts.client.db('r').command({ find: 'c', batchSize: 2 });
      const id = r['cursor']['id'] as Long;
      assert.ok(!id.isZero());
      await sleep(600);
      await assert.rejects(
        ts.client.db('r').command({ getMore: id, collection: 'c' }),
        (e: unknown) => e instanceof MongoServerError && e.code === 43,
      );
    } finally {
      await admin.command({ setParameter: 1, cursorTimeoutMillis: before['cursorTimeoutMillis'] });
    }
  });

  test('a transaction past transactionLifetimeLimitSeconds is aborted', async () => {
    const admin = ts.client.db('admin');
    await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: new Int32(0) });
    try {
      const lsid = { id: new UUID() };
      const txn = { lsid, txnNumber: Long.fromInt(1), autocommit: false };
      const start = await rawCommand(ts.server.port, {
        insert: 'c',
        documents: [{ _id: 'late' }],
        ...txn,
        startTransaction: true,
        $db: 'r',
      });
      assert.equal(start['ok'], 1);
      await sleep(300);
      const commit = await rawCommand(ts.server.port, {
        commitTransaction: 1,
        ...txn,
        $db: 'admin',
      });
      assert.equal(commit['code'], 251, 'aborted by the reaper');
      assert.equal(
        await ts.client.db('r').collection<TestDoc>('c').countDocuments({ _id: 'late' }),
        0,
      );
    } finally {
      await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: new Int32(60) });
    }
  });

  test('endSessions closes the session cursors', async () => {
    const session = ts.client.startSession();
    const cursor = ts.client.db('r').collection('c').find({}, { session, batchSize: 2 });
    await cursor.next();
    const id = cursor.id;
    assert.ok(id !== undefined && !id.isZero());
    await ts.client.db('admin').command({ endSessions: [session.id] });
    await assert.rejects(
      ts.client.db('r').command({ getMore: id, collection: 'c' }),
      (e: unknown) => e instanceof MongoServerError && e.code === 43,
    );
    await cursor.close().catch(() => undefined);
    await session.endSession();
  });
});

// mongod keeps a cursor whose collection went away until its next getMore, which fails with
// QueryPlanKilled (175) and the reason (jstests/core/getmore_invalidated_cursors.js).
describe('cursors on a collection that went away', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });

  async function openCursor(name: string): Promise<Long> {
    const db = ts.client.db('gone');
    await db
      .collection<TestDoc>(name)
      .insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i })));
    const r = await db.command({ find: name, batchSize: 2 });
    return r['cursor']['id'] as Long;
  }

  async function getMoreFails(name: string, id: Long, message: RegExp): Promise<void> {
    const db = ts.client.db('gone');
    await assert.rejects(
      db.command({ getMore: id, collection: name }),
      (e: unknown) => e instanceof MongoServerError && e.code === 175 && message.test(e.message),
    );
    // That getMore ended it.
    await assert.rejects(
      db.command({ getMore: id, collection: name }),
      (e: unknown) => e instanceof MongoServerError && e.code === 43,
    );
  }

  test('drop', async () => {
    const id = await openCursor('d');
    await ts.client.db('gone').collection('d').drop();
    await getMoreFails('d', id, /collection dropped/);
  });

  test('dropDatabase', async () => {
    const id = await openCursor('dd');
    await ts.client.db('gone').dropDatabase();
    await getMoreFails('dd', id, /collection dropped/);
  });

  test('renameCollection', async () => {
    const id = await openCursor('r');
    await ts.client.db('gone').collection('r').rename('r2');
    await getMoreFails('r', id, /collection renamed/);
  });

  test('killCursors still ends such a cursor', async () => {
    const id = await openCursor('k');
    await ts.client.db('gone').collection('k').drop();
    const r = await ts.client.db('gone').command({ killCursors: 'k', cursors: [id] });
    assert.equal(r['cursorsKilled'].length, 1);
  });
});
