// Test-only failpoints through the driver: a failpoint name is accepted only where the server
// acts on it; unknown names and bad modes answer as mongod's configureFailPoint; hang points
// hold an operation until turned off (killOp and maxTimeMS end the wait); waitForFailPoint
// waits on the entry count configureFailPoint reports.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

describe('failpoints', () => {
  let ts: TestServer;
  let admin: ReturnType<MongoClient['db']>;
  const configure = (name: string, mode: unknown, data?: Document): Promise<Document> =>
    admin.command({ configureFailPoint: name, mode, ...(data === undefined ? {} : { data }) });

  before(async () => {
    ts = await startTestServer();
    admin = ts.client.db('admin');
  });
  after(() => ts.stop());

  it('answers an unknown failpoint with FailPointSetFailed "<name> not found"', async () => {
    // hangBeforeTransactionCommit and hangAfterCollectionInserts used to be accepted and do
    // nothing; the first is not mongod's name, the second is not done here.
    for (const name of [
      'checkForInterruptFail',
      'hangBeforeTransactionCommit',
      'hangAfterCollectionInserts',
    ]) {
      const e = await expectServerCode(configure(name, 'alwaysOn'), 266);
      assert.equal(e.codeName, 'FailPointSetFailed');
      assert.equal(e.errmsg, `${name} not found`);
      // The name is checked before the mode, as mongod's setGlobalFailPoint.
      await expectServerCode(configure(name, 'sometimes'), 266);
    }
    await expectServerCode(
      admin.command({ waitForFailPoint: 'nope', timesEntered: 1, maxTimeMS: 100 }),
      266,
    );
  });

  it('checks the mode as mongod does', async () => {
    await expectServerCode(admin.command({ configureFailPoint: 'failCommand' }), 20);
    const e = await expectServerCode(configure('failCommand', 'sometimes'), 2);
    assert.equal(e.errmsg, 'unknown mode: sometimes');
    await expectServerCode(configure('failCommand', 5), 14);
    await expectServerCode(configure('failCommand', { times: -1 }), 2);
    await expectServerCode(configure('failCommand', { bogus: 1 }), 2);
  });

  it('counts entries across configurations and waitForFailPoint waits for them', async () => {
    const first = await configure(
      'failCommand',
      { times: 2 },
      {
        failCommands: ['ping'],
        errorCode: 2,
      },
    );
    const base = Number(first['count']);
    await expectServerCode(ts.client.db('x').command({ ping: 1 }), 2);
    await expectServerCode(ts.client.db('x').command({ ping: 1 }), 2);
    await ts.client.db('x').command({ ping: 1 }); // {times: 2} is spent
    await admin.command({
      waitForFailPoint: 'failCommand',
      timesEntered: base + 2,
      maxTimeMS: 1000,
    });
    const again = await configure('failCommand', 'off');
    assert.equal(Number(again['count']), base + 2);
    // Not yet entered that often: the wait ends at maxTimeMS.
    await expectServerCode(
      admin.command({ waitForFailPoint: 'failCommand', timesEntered: base + 3, maxTimeMS: 50 }),
      50,
    );
    await expectServerCode(admin.command({ waitForFailPoint: 'failCommand', timesEntered: 1 }), 9);
  });

  it('hangBeforeCommitingTxn holds commitTransaction until turned off', async () => {
    const coll = ts.client.db('fp').collection<TestDoc>('commit');
    await coll.insertOne({ _id: 0 });
    const { count } = await configure('hangBeforeCommitingTxn', 'alwaysOn');
    const session = ts.client.startSession();
    session.startTransaction();
    await coll.insertOne({ _id: 1 }, { session });
    let settled = false;
    const commit = session.commitTransaction().finally(() => (settled = true));
    await admin.command({
      waitForFailPoint: 'hangBeforeCommitingTxn',
      timesEntered: Number(count) + 1,
      maxTimeMS: 5000,
    });
    // Held: not committed, and the server keeps answering others meanwhile.
    const other = await ts.newClient();
    assert.equal(await other.db('fp').collection<TestDoc>('commit').countDocuments({ _id: 1 }), 0);
    const ops = await other
      .db('admin')
      .aggregate([{ $currentOp: {} }, { $match: { msg: 'hangBeforeCommitingTxn' } }])
      .toArray();
    assert.equal(ops.length, 1);
    assert.equal(settled, false);
    await configure('hangBeforeCommitingTxn', 'off');
    await commit;
    await session.endSession();
    assert.equal(await coll.countDocuments({ _id: 1 }), 1);
  });

  it('a hang point honours {times: n} and {skip: n}', async () => {
    const coll = ts.client.db('fp').collection('abort');
    const abort = async (): Promise<{ done: Promise<void> }> => {
      const session = ts.client.startSession();
      session.startTransaction();
      await coll.insertOne({ x: 1 }, { session });
      return { done: session.abortTransaction().finally(() => session.endSession()) };
    };
    const entered = (n: number): Promise<Document> =>
      admin.command({
        waitForFailPoint: 'hangBeforeAbortingTxn',
        timesEntered: n,
        maxTimeMS: 5000,
      });

    // {skip: 1}: the first abort goes through, the second is held until off.
    const skipFrom = Number((await configure('hangBeforeAbortingTxn', { skip: 1 }))['count']);
    await (
      await abort()
    ).done;
    const heldBySkip = await abort();
    await entered(skipFrom + 1);
    await configure('hangBeforeAbortingTxn', 'off');
    await heldBySkip.done;

    // {times: 1}: one abort is held (until off, though the failpoint is spent), the next is not.
    const timesFrom = Number((await configure('hangBeforeAbortingTxn', { times: 1 }))['count']);
    const heldByTimes = await abort();
    await entered(timesFrom + 1);
    let released = false;
    void heldByTimes.done.finally(() => (released = true));
    await (
      await abort()
    ).done;
    assert.equal(released, false);
    const off = await configure('hangBeforeAbortingTxn', 'off');
    assert.equal(Number(off['count']), timesFrom + 1);
    await heldByTimes.done;
  });

  it('killOp and maxTimeMS end the wait at a hang point', async () => {
    const { count } = await configure('hangBeforeCommitingTxn', 'alwaysOn');
    const coll = ts.client.db('fp').collection<TestDoc>('kill');
    const session = ts.client.startSession();
    session.startTransaction();
    await coll.insertOne({ _id: 'k' }, { session });
    const commit = session.commitTransaction().catch((e: unknown) => e);
    await admin.command({
      waitForFailPoint: 'hangBeforeCommitingTxn',
      timesEntered: Number(count) + 1,
      maxTimeMS: 5000,
    });
    const other = await ts.newClient();
    const [op] = await other
      .db('admin')
      .aggregate([{ $currentOp: {} }, { $match: { msg: 'hangBeforeCommitingTxn' } }])
      .toArray();
    assert.ok(op !== undefined);
    await other.db('admin').command({ killOp: 1, op: op['opid'] });
    const err = (await commit) as { code?: number };
    assert.equal(err.code, 11601);
    await configure('hangBeforeCommitingTxn', 'off');
    await session.abortTransaction().catch(() => undefined);
    await session.endSession();

    await configure('hangBeforeCommitingTxn', 'alwaysOn');
    const s2 = ts.client.startSession();
    s2.startTransaction({ maxCommitTimeMS: 100 });
    await coll.insertOne({ _id: 'm' }, { session: s2 });
    await expectServerCode(s2.commitTransaction(), 50);
    await configure('hangBeforeCommitingTxn', 'off');
    await s2.endSession();
  });
});
