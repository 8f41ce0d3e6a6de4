// Written as mongodb-memory-server users write it (was: from 'mongodb-memory-server'):
// MongoMemoryReplSet, because transactions and change streams need a replica set.
import assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { MongoMemoryReplSet } from 'secantusdb/memory-server';
import { balances, open, transfer } from '../bank.js';

describe('bank on a replica set', function () {
  let replSet;
  let client;
  let db;

  before(async function () {
    replSet = await MongoMemoryReplSet.create({
      replSet: { count: 3, storageEngine: 'wiredTiger' },
    });
    await replSet.waitUntilRunning();
    client = new MongoClient(replSet.getUri());
    await client.connect();
    db = client.db('bank');
  });

  beforeEach(async function () {
    await db.dropDatabase();
    await open(db, 'alice', 100);
    await open(db, 'bob', 20);
  });

  after(async function () {
    await client.close(); // clients first, then the server
    await replSet.stop();
  });

  it('the URI names the replica set', function () {
    assert.match(replSet.getUri(), /^mongodb:\/\/127\.0\.0\.1:\d+\/\?replicaSet=testset$/);
  });

  it('commits a transfer as one unit', async function () {
    await transfer(client, db, 'alice', 'bob', 30);
    assert.deepEqual(await balances(db), { alice: 70, bob: 50 });
    assert.equal(await db.collection('ledger').countDocuments(), 1);
  });

  it('rolls the whole transfer back when it fails', async function () {
    await assert.rejects(transfer(client, db, 'bob', 'alice', 500), /insufficient funds/);
    assert.deepEqual(await balances(db), { alice: 100, bob: 20 });
    assert.equal(await db.collection('ledger').countDocuments(), 0);
  });

  it('isolates an open transaction from other readers until commit', async function () {
    const session = client.startSession();
    session.startTransaction();
    await db
      .collection('accounts')
      .updateOne({ _id: 'bob' }, { $set: { balance: 0 } }, { session });
    assert.equal((await db.collection('accounts').findOne({ _id: 'bob' })).balance, 20);
    await session.commitTransaction();
    await session.endSession();
    assert.equal((await db.collection('accounts').findOne({ _id: 'bob' })).balance, 0);
  });

  it('a change stream sees the committed ledger entries, in order', async function () {
    const stream = db.collection('ledger').watch([{ $match: { operationType: 'insert' } }]);
    await stream.tryNext(); // opened on the server before the writes
    await transfer(client, db, 'alice', 'bob', 10);
    await assert.rejects(transfer(client, db, 'bob', 'alice', 1000));
    await transfer(client, db, 'bob', 'alice', 5);
    const first = await stream.next();
    const second = await stream.next();
    assert.deepEqual([first.fullDocument.amount, second.fullDocument.amount], [10, 5]);
    await stream.close();
  });

  it('reset() between tests, restore() for a fixture', async function () {
    const snap = await replSet.snapshot();
    await replSet.reset();
    assert.deepEqual(await balances(db), {});
    await replSet.restore(snap);
    assert.deepEqual(await balances(db), { alice: 100, bob: 20 });
  });
});
