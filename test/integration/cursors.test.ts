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

// When a batch ends the cursor (mongod's PlanExecutor::isEOF after the batch): a batch that
// is merely full leaves the cursor open, and the next getMore answers an empty batch with id
// 0; a plan that knows it is done (a limit reached, a sort or a queue returned, an _id lookup)
// closes it in the batch that delivers the last document. Drivers count the getMores.
describe('the batch that ends a cursor', () => {
  let ts: TestServer;
  // The driver reads a cursor id of 0 as the number 0, others as Long.
  const isZero = (id: unknown): boolean => id === 0 || (id instanceof Long && id.isZero());
  const firstBatch = async (
    command: Record<string, unknown>,
  ): Promise<{ id: Long; n: number; ns: string }> => {
    const r = await ts.client.db('b').command(command);
    const c = r['cursor'] as { id: Long; firstBatch: unknown[]; ns: string };
    return { id: c.id, n: c.firstBatch.length, ns: c.ns };
  };
  before(async () => {
    ts = await startTestServer();
    await ts.client
      .db('b')
      .collection<TestDoc>('c')
      .insertMany(Array.from({ length: 4 }, (_, i) => ({ _id: i, a: i })));
  });
  after(async () => {
    await ts.stop();
  });

  test('a full first batch of a scan leaves the cursor open; getMore then returns nothing', async () => {
    const { id, n } = await firstBatch({ find: 'c', batchSize: 4 });
    assert.equal(n, 4);
    assert.ok(!isZero(id), 'cursor kept open');
    const more = await ts.client.db('b').command({ getMore: id, collection: 'c' });
    assert.deepEqual(more['cursor']['nextBatch'], []);
    assert.ok(isZero(more['cursor']['id']));
    const agg = await firstBatch({ aggregate: 'c', pipeline: [], cursor: { batchSize: 4 } });
    assert.ok(!isZero(agg.id), 'aggregate cursor kept open');
    await ts.client.db('b').command({ killCursors: 'c', cursors: [agg.id] });
  });

  test('a plan that knows it is done closes the cursor with its last batch', async () => {
    for (const command of [
      { find: 'c', batchSize: 4, limit: 4 },
      { find: 'c', batchSize: 4, sort: { a: -1 } },
      { find: 'c', batchSize: 1, filter: { _id: 2 } },
      { listCollections: 1, cursor: { batchSize: 1 } },
      { listIndexes: 'c', cursor: { batchSize: 1 } },
    ]) {
      const { id } = await firstBatch(command);
      assert.ok(isZero(id), `closed: ${JSON.stringify(command)}`);
    }
    // A limit reached in a getMore closes it there.
    const { id } = await firstBatch({ find: 'c', batchSize: 2, limit: 4 });
    const more = await ts.client.db('b').command({ getMore: id, collection: 'c', batchSize: 2 });
    assert.equal(more['cursor']['nextBatch'].length, 2);
    assert.ok(isZero(more['cursor']['id']));
  });

  test('the driver sends one more getMore for a batch that was merely full, as against mongod', async () => {
    const events: string[] = [];
    const client = await ts.newClient({ monitorCommands: true });
    client.on('commandStarted', (e) => events.push(e.commandName));
    const docs = await client.db('b').collection('c').find({}, { batchSize: 2 }).toArray();
    assert.equal(docs.length, 4);
    assert.deepEqual(
      events.filter((e) => e === 'find' || e === 'getMore'),
      ['find', 'getMore', 'getMore'],
    );
  });
});

describe('batches near 16 MiB', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(() => ts.stop());

  // A getMore fills its batch up to 16 MiB of documents. The reply's array also spends bytes on
  // each element (its type byte and its index as a name): counted too, as mongod counts the
  // array's size, or a batch of many small documents passes the reply limit (BSONObjectTooLarge).
  for (const [label, docs, pad] of [
    ['20,000 documents of 1 KiB', 20_000, 1000],
    ['200,000 documents of 100 bytes', 200_000, 80],
  ] as const) {
    test(`find and aggregate return ${label} (over 16 MiB in all)`, async () => {
      const c = ts.client.db('big').collection<TestDoc>(`c${docs}`);
      for (let i = 0; i < docs; i += 10_000)
        await c.insertMany(
          Array.from({ length: 10_000 }, (_, j) => ({ _id: i + j, pad: 'x'.repeat(pad) })),
        );
      assert.equal((await c.find().toArray()).length, docs);
      assert.equal((await c.aggregate([{ $match: {} }]).toArray()).length, docs);
      const first = await ts.client.db('big').command({ find: c.collectionName, batchSize: 1 });
      const more = await ts.client
        .db('big')
        .command({ getMore: first['cursor']['id'] as Long, collection: c.collectionName });
      const batch = more['cursor']['nextBatch'] as unknown[];
      assert.ok(batch.length > 1 && batch.length < docs - 1, `batch of ${batch.length}`);
    });
  }
});
