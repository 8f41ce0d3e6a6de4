// Sessions, multi-document transactions and retryable writes through the official driver.
// transactions-embedded.test.ts imports this file again with ?client=embedded: the first
// suite runs through the secantusdb/embedded client (its raw-wire tests are skipped there),
// the others, which are about the wire and the driver's retries, only through the socket.

import { after, before, beforeEach, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Long, MongoServerError, UUID } from 'mongodb';
import type { Collection } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import { rawCommand } from '../helpers/wire-client.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';
import { clientKindOf, needsSocket, startEitherClient, titled } from '../helpers/either-client.js';
import type { EitherClient } from '../helpers/either-client.js';

const kind = clientKindOf(import.meta.url);

describe(titled('transactions', kind), () => {
  let ts: EitherClient;
  let coll: Collection<TestDoc>;

  before(async () => {
    ts = await startEitherClient(kind);
  });
  after(async () => {
    await ts.stop();
  });
  beforeEach(async () => {
    coll = ts.client.db('txn').collection('c');
    await coll.drop().catch(() => undefined);
    await ts.client.db('txn').createCollection('c');
  });

  test('withTransaction commits all writes at once; others see nothing before commit', async () => {
    const session = ts.client.startSession();
    try {
      await session.withTransaction(async () => {
        await coll.insertOne({ _id: 1, v: 'a' }, { session });
        await coll.insertOne({ _id: 2, v: 'b' }, { session });
        await coll.updateOne({ _id: 1 }, { $set: { v: 'A' } }, { session });
        // Own writes are visible inside the transaction.
        assert.deepEqual(await coll.find({}, { session }).toArray(), [
          { _id: 1, v: 'A' },
          { _id: 2, v: 'b' },
        ]);
        // Outside it, nothing yet.
        assert.deepEqual(await coll.find({}).toArray(), []);
      });
    } finally {
      await session.endSession();
    }
    assert.deepEqual(await coll.find({}).toArray(), [
      { _id: 1, v: 'A' },
      { _id: 2, v: 'b' },
    ]);
  });

  test('abort discards every write', async () => {
    await coll.insertOne({ _id: 0, v: 'kept' });
    const session = ts.client.startSession();
    session.startTransaction();
    await coll.insertOne({ _id: 1 }, { session });
    await coll.deleteOne({ _id: 0 }, { session });
    await session.abortTransaction();
    await session.endSession();
    assert.deepEqual(await coll.find({}).toArray(), [{ _id: 0, v: 'kept' }]);
  });

  test('reads come from the snapshot taken at the first operation', async () => {
    await coll.insertOne({ _id: 1, v: 0 });
    const session = ts.client.startSession();
    session.startTransaction();
    assert.deepEqual(await coll.findOne({ _id: 1 }, { session }), { _id: 1, v: 0 });
    await coll.updateOne({ _id: 1 }, { $set: { v: 1 } }); // outside the transaction
    await coll.insertOne({ _id: 2 });
    assert.deepEqual(
      await coll.find({}, { session }).toArray(),
      [{ _id: 1, v: 0 }],
      'snapshot unchanged',
    );
    await session.commitTransaction();
    await session.endSession();
  });

  test('two transactions writing one document: the second gets WriteConflict + TransientTransactionError and is aborted', async () => {
    const s0 = ts.client.startSession();
    const s1 = ts.client.startSession();
    s0.startTransaction();
    s1.startTransaction();
    await coll.insertOne({ _id: 1 }, { session: s0 });
    await assert.rejects(coll.insertOne({ _id: 1 }, { session: s1 }), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, 112);
      assert.equal(e.codeName, 'WriteConflict', e.message);
      assert.ok(e.hasErrorLabel('TransientTransactionError'));
      return true;
    });
    await s0.commitTransaction();
    await assert.rejects(s1.commitTransaction(), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, 251);
      assert.ok(e.hasErrorLabel('TransientTransactionError'));
      return true;
    });
    await s0.endSession();
    await s1.endSession();
    assert.equal(await coll.countDocuments(), 1);
  });

  test('a document changed after the snapshot cannot be written by the transaction', async () => {
    await coll.insertOne({ _id: 1, n: 0 });
    const s = ts.client.startSession();
    s.startTransaction();
    await coll.findOne({ _id: 1 }, { session: s }); // snapshot taken
    await coll.updateOne({ _id: 1 }, { $inc: { n: 1 } }); // committed after the snapshot
    await assert.rejects(
      coll.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { session: s }),
      (e: unknown) => e instanceof MongoServerError && e.code === 112,
    );
    await s.abortTransaction().catch(() => undefined);
    await s.endSession();
    assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, n: 1 });
  });

  test('a plain write to a document held by a transaction waits for it instead of failing', async () => {
    await coll.insertOne({ _id: 1, n: 0 });
    const s = ts.client.startSession();
    s.startTransaction();
    await coll.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { session: s });
    const plain = coll.updateOne({ _id: 1 }, { $inc: { n: 1 } });
    await new Promise((r) => setTimeout(r, 100));
    await s.commitTransaction();
    await s.endSession();
    const r = await plain;
    assert.equal(r.modifiedCount, 1);
    assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, n: 11 }, 'no lost update');
  });

  test(
    'commit is idempotent; abort after commit is TransactionCommitted; commit after abort is NoSuchTransaction',
    needsSocket(kind),
    async () => {
      const port = ts.port ?? 0;
      const lsid = { id: new UUID() };
      const txn = (n: number) => ({ lsid, txnNumber: Long.fromInt(n), autocommit: false });
      const ok = async (body: Record<string, unknown>) =>
        assert.equal((await rawCommand(port, body))['ok'], 1, JSON.stringify(body));
      await ok({
        insert: 'c',
        documents: [{ _id: 1 }],
        ...txn(1),
        startTransaction: true,
        $db: 'txn',
      });
      await ok({ commitTransaction: 1, ...txn(1), $db: 'admin' });
      await ok({ commitTransaction: 1, ...txn(1), $db: 'admin' });
      const abortCommitted = await rawCommand(port, {
        abortTransaction: 1,
        ...txn(1),
        $db: 'admin',
      });
      assert.equal(abortCommitted['code'], 256);
      await ok({
        insert: 'c',
        documents: [{ _id: 2 }],
        ...txn(2),
        startTransaction: true,
        $db: 'txn',
      });
      await ok({ abortTransaction: 1, ...txn(2), $db: 'admin' });
      const commitAborted = await rawCommand(port, {
        commitTransaction: 1,
        ...txn(2),
        $db: 'admin',
      });
      assert.equal(commitAborted['code'], 251);
      assert.deepEqual(commitAborted['errorLabels'], ['TransientTransactionError']);
      const tooOld = await rawCommand(port, {
        find: 'c',
        ...txn(1),
        startTransaction: true,
        $db: 'txn',
      });
      assert.equal(tooOld['code'], 225);
      assert.deepEqual(await coll.find({}).toArray(), [{ _id: 1 }]);
    },
  );

  test(
    'commands not allowed in a transaction: OperationNotSupportedInTransaction (263)',
    needsSocket(kind),
    async () => {
      const r = await rawCommand(ts.port ?? 0, {
        count: 'c',
        lsid: { id: new UUID() },
        txnNumber: Long.fromInt(1),
        startTransaction: true,
        autocommit: false,
        $db: 'txn',
      });
      assert.equal(r['code'], 263);
    },
  );

  test('a failed statement aborts the transaction', async () => {
    await coll.insertOne({ _id: 1 });
    const s = ts.client.startSession();
    s.startTransaction();
    await coll.insertOne({ _id: 2 }, { session: s });
    await assert.rejects(
      coll.insertOne({ _id: 1 }, { session: s }),
      (e: unknown) => e instanceof MongoServerError && e.code === 11000,
    );
    await assert.rejects(
      coll.insertOne({ _id: 3 }, { session: s }),
      (e: unknown) => e instanceof MongoServerError && e.code === 251,
    );
    await s.abortTransaction().catch(() => undefined);
    await s.endSession();
    assert.deepEqual(await coll.find({}).toArray(), [{ _id: 1 }]);
  });
});

describe('retryable writes', { skip: kind === 'embedded' }, () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });

  test('a retried statement returns the original result without running again', async () => {
    const db = ts.client.db('rw');
    const port = ts.server.port;
    const lsid = { id: new UUID() };
    const cmd = {
      update: 'c',
      updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } }, upsert: true }],
      lsid,
      txnNumber: Long.fromInt(7),
      $db: 'rw',
    };
    const first = await rawCommand(port, cmd);
    const again = await rawCommand(port, cmd);
    assert.equal(first['n'], 1);
    assert.deepEqual(first['upserted'], [{ index: 0, _id: 1 }]);
    assert.deepEqual(again['upserted'], [{ index: 0, _id: 1 }], 'same result on retry');
    assert.deepEqual(again['retriedStmtIds'], [0]);
    assert.deepEqual(
      await db.collection<TestDoc>('c').findOne({ _id: 1 }),
      { _id: 1, n: 1 },
      'applied once',
    );

    const ins = {
      insert: 'c',
      documents: [{ _id: 2 }, { _id: 3 }],
      lsid,
      txnNumber: Long.fromInt(8),
      $db: 'rw',
    };
    await rawCommand(port, ins);
    const insAgain = await rawCommand(port, ins);
    assert.equal(insAgain['n'], 2);
    assert.equal(insAgain['writeErrors'], undefined, 'no duplicate key on retry');

    const fam = {
      findAndModify: 'c',
      query: { _id: 1 },
      update: { $inc: { n: 1 } },
      new: true,
      lsid,
      txnNumber: Long.fromInt(9),
      $db: 'rw',
    };
    const f1 = await rawCommand(port, fam);
    const f2 = await rawCommand(port, fam);
    assert.deepEqual(f1['value'], { _id: 1, n: 2 });
    assert.deepEqual(f2['value'], { _id: 1, n: 2 });
    assert.deepEqual(await db.collection<TestDoc>('c').findOne({ _id: 1 }), { _id: 1, n: 2 });

    assert.equal((await rawCommand(port, { ...ins, txnNumber: Long.fromInt(3) }))['code'], 225);
    assert.equal(
      (await rawCommand(port, { find: 'c', lsid, txnNumber: Long.fromInt(10), $db: 'rw' }))['code'],
      50768,
    );
  });

  test('retryable writes through the driver with a failCommand network error apply once', async () => {
    const coll = ts.client.db('rw').collection<TestDoc>('net');
    await ts.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['insert'], closeConnection: true },
    });
    await coll.insertOne({ _id: 'x' }); // the driver retries after the closed connection
    assert.equal(await coll.countDocuments({ _id: 'x' }), 1);
  });

  test('a failCommand error on a retryable write carries RetryableWriteError', async () => {
    const lsid = { id: new UUID() };
    await ts.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['insert'], errorCode: 91 },
    });
    const r = await rawCommand(ts.server.port, {
      insert: 'c',
      documents: [{}],
      lsid,
      txnNumber: Long.fromInt(1),
      $db: 'rw',
    });
    assert.equal(r['code'], 91);
    assert.deepEqual(r['errorLabels'], ['RetryableWriteError']);
  });
});

describe('malformed session fields', { skip: kind === 'embedded' }, () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });

  test('each is refused with mongod-style codes and nothing is written', async () => {
    const port = ts.server.port;
    const lsid = { id: new UUID() };
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ lsid: 'not a document' }, 14],
      [{ lsid: { id: 'not a uuid' } }, 207],
      [{ txnNumber: Long.fromInt(1) }, 72], // txnNumber without lsid
      [{ lsid, txnNumber: Long.fromInt(1), autocommit: true }, 72],
      [{ lsid, txnNumber: Long.fromInt(1), startTransaction: true }, 72], // no autocommit: false
      [{ lsid, autocommit: false }, 72], // autocommit without txnNumber
      [{ lsid, txnNumber: Long.fromInt(-1) }, 2],
      [{ lsid, txnNumber: Long.fromInt(1), autocommit: false, startTransaction: false }, 72],
      [{ lsid, txnNumber: Long.fromInt(1), autocommit: false }, 251], // continuing a transaction never started
      [
        {
          lsid,
          txnNumber: Long.fromInt(2),
          autocommit: false,
          startTransaction: true,
          writeConcern: { w: 1 },
        },
        72,
      ],
    ];
    for (const [fields, code] of cases) {
      const r = await rawCommand(port, {
        insert: 'bad',
        documents: [{ _id: 1 }],
        ...fields,
        $db: 'txn',
      });
      assert.equal(r['ok'], 0, JSON.stringify(fields));
      assert.equal(r['code'], code, `${JSON.stringify(fields)}: ${String(r['errmsg'])}`);
    }
    assert.equal(
      await ts.client.db('txn').collection('bad').countDocuments(),
      0,
      'nothing written',
    );
    assert.equal(
      (await ts.client.db('admin').command({ ping: 1 }))['ok'],
      1,
      'the server keeps serving',
    );
  });
});
