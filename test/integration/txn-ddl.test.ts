// Collections and indexes created inside a multi-document transaction (issue #21): as in
// mongod 4.4+, they are the transaction's until it commits (invisible to everyone else, seen
// by its own statements), appear at commit together with its writes, and vanish on abort. A
// collection of the same name created meanwhile by another session makes the transaction
// fail with WriteConflict (first to commit wins), as jstests/core/txns/create_collection*.js.

import { after, before, beforeEach, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Binary, ChangeStream, ClientSession, Db, Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const NamespaceExists = 48;
const WriteConflict = 112;
const OperationNotSupportedInTransaction = 263;

async function collectionNames(db: Db): Promise<string[]> {
  return (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
}

async function indexNames(db: Db, name: string): Promise<string[]> {
  return (await db.collection(name).listIndexes().toArray()).map((i) => String(i['name']));
}

/** Runs `fn` in a transaction of a new session; the session ends afterwards. */
async function inSession(
  client: MongoClient,
  fn: (session: ClientSession) => Promise<void>,
): Promise<void> {
  const session = client.startSession();
  try {
    await fn(session);
  } finally {
    await session.endSession();
  }
}

describe('DDL inside transactions', () => {
  let ts: TestServer;
  let db: Db;
  let other: Db;

  before(async () => {
    ts = await startTestServer();
    other = (await ts.newClient()).db('txnddl');
  });
  after(async () => {
    await ts.stop();
  });
  beforeEach(async () => {
    db = ts.client.db('txnddl');
    await db.dropDatabase();
  });

  test('create: the transaction sees the collection, no one else until commit', async () => {
    await inSession(ts.client, async (session) => {
      session.startTransaction();
      await db.createCollection('made', { session });
      await db.collection<TestDoc>('made').insertMany([{ _id: 1 }, { _id: 2 }], { session });
      // A cursor over it resumes (getMore) inside the transaction.
      const found = db.collection('made').find({}, { session, batchSize: 1 });
      assert.deepEqual(await found.toArray(), [{ _id: 1 }, { _id: 2 }]);
      const joined = await db
        .collection('made')
        .aggregate(
          [
            { $match: { _id: 1 } },
            { $lookup: { from: 'made', localField: '_id', foreignField: '_id', as: 'self' } },
          ],
          { session },
        )
        .toArray();
      assert.deepEqual(joined, [{ _id: 1, self: [{ _id: 1 }] }]);
      assert.deepEqual(await collectionNames(other), []);
      assert.deepEqual(await other.collection('made').find({}).toArray(), []);
      await session.commitTransaction();
    });
    assert.deepEqual(await collectionNames(other), ['made']);
    assert.deepEqual(await other.collection('made').find({}).toArray(), [{ _id: 1 }, { _id: 2 }]);
  });

  test("a collection created with a collation: the transaction's reads use it", async () => {
    await inSession(ts.client, async (session) => {
      session.startTransaction();
      await db.createCollection('collated', { session, collation: { locale: 'en', strength: 2 } });
      await db.collection<TestDoc>('collated').insertOne({ _id: 1, s: 'A' }, { session });
      const filter = { s: 'a' };
      assert.equal((await db.collection('collated').find(filter, { session }).toArray()).length, 1);
      const agg = db.collection('collated').aggregate([{ $match: filter }], { session });
      assert.equal((await agg.toArray()).length, 1);
      await session.commitTransaction();
    });
  });

  test('implicit creates (insert, upsert, findAndModify upsert): nothing is left after abort', async () => {
    await inSession(ts.client, async (session) => {
      session.startTransaction();
      await db.collection<TestDoc>('byInsert').insertOne({ _id: 1 }, { session });
      await db
        .collection<TestDoc>('byUpsert')
        .updateOne({ _id: 2 }, { $set: { v: 1 } }, { upsert: true, session });
      await db
        .collection<TestDoc>('byFam')
        .findOneAndUpdate({ _id: 3 }, { $set: { v: 1 } }, { upsert: true, session });
      // Later statements find the collections the earlier ones created.
      await db
        .collection<TestDoc>('byUpsert')
        .updateOne({ _id: 2 }, { $inc: { v: 1 } }, { session });
      assert.deepEqual(await db.collection('byUpsert').find({}, { session }).toArray(), [
        { _id: 2, v: 2 },
      ]);
      assert.equal(await db.collection('byFam').countDocuments({}, { session }), 1);
      assert.deepEqual(await collectionNames(other), []);
      await session.abortTransaction();
    });
    assert.deepEqual(await collectionNames(other), []);
    // The names are free: created again outside, the collections start empty.
    await other.collection<TestDoc>('byInsert').insertOne({ _id: 9 });
    assert.deepEqual(await other.collection('byInsert').find({}).toArray(), [{ _id: 9 }]);
  });

  test('createIndex on a new collection: invisible before commit, usable after', async () => {
    await inSession(ts.client, async (session) => {
      session.startTransaction();
      await db.collection('indexed').createIndex({ a: 1 }, { session, name: 'a_1' });
      await db.collection<TestDoc>('indexed').insertOne({ _id: 1, a: 7 }, { session });
      await expectServerCode(indexNames(other, 'indexed'), 26);
      await session.commitTransaction();
    });
    assert.deepEqual(await indexNames(other, 'indexed'), ['_id_', 'a_1']);
    const hinted = await other.collection('indexed').find({ a: 7 }).hint('a_1').toArray();
    assert.deepEqual(hinted, [{ _id: 1, a: 7 }]);
  });

  test('createIndexes in a transaction: only on a collection it created and that is empty', async () => {
    await other.collection<TestDoc>('full').insertOne({ _id: 1, a: 1 });
    await other.collection('full').createIndex({ b: 1 }, { name: 'b_1' });
    await other.createCollection('empty');
    const refused = async (
      session: ClientSession,
      name: string,
      message: RegExp,
    ): Promise<void> => {
      session.startTransaction();
      const e = await expectServerCode(
        db.collection(name).createIndex({ a: 1 }, { session }),
        OperationNotSupportedInTransaction,
      );
      assert.match(e.message, message);
      await session.abortTransaction();
    };
    await inSession(ts.client, async (session) => {
      await refused(
        session,
        'full',
        /^Cannot create new indexes on existing collection txnddl.full in a multi-document transaction.$/,
      );
      // Empty, but not the transaction's own: refused as well (mongod 7.0).
      await refused(session, 'empty', /on existing collection txnddl.empty/);
      // An index that exists already is no error.
      session.startTransaction();
      const name = await db.collection('full').createIndex({ b: 1 }, { session });
      assert.equal(name, 'b_1');
      await session.abortTransaction();
      // Created in the transaction, but with a document.
      session.startTransaction();
      await db.collection<TestDoc>('fresh').insertOne({ _id: 1 }, { session });
      const e = await expectServerCode(
        db.collection('fresh').createIndex({ a: 1 }, { session }),
        OperationNotSupportedInTransaction,
      );
      assert.match(e.message, /^Cannot create new indexes on non-empty collection txnddl.fresh/);
      await session.abortTransaction().catch(() => undefined);
    });
    assert.deepEqual(await indexNames(other, 'empty'), ['_id_']);
    assert.deepEqual(await collectionNames(other), ['empty', 'full']);
  });

  test('create of an existing collection in a transaction: NamespaceExists, even with the same options', async () => {
    await other.createCollection('there');
    await inSession(ts.client, async (session) => {
      session.startTransaction();
      await expectServerCode(db.createCollection('there', { session }), NamespaceExists);
      await session.abortTransaction().catch(() => undefined);
      session.startTransaction();
      await db.createCollection('twice', { session });
      await expectServerCode(db.createCollection('twice', { session }), NamespaceExists);
      await session.abortTransaction().catch(() => undefined);
    });
  });

  test('created outside meanwhile: the commit fails with WriteConflict, the outside one stays', async () => {
    await inSession(ts.client, async (session) => {
      session.startTransaction();
      await db.collection<TestDoc>('raced').insertOne({ _id: 'txn' }, { session });
      await other.createCollection('raced');
      await other.collection<TestDoc>('raced').insertOne({ _id: 'outside' });
      const e = await expectServerCode(session.commitTransaction(), WriteConflict);
      assert.ok(e.hasErrorLabel('TransientTransactionError'), 'TransientTransactionError');
    });
    assert.deepEqual(await other.collection('raced').find({}).toArray(), [{ _id: 'outside' }]);
  });

  test('two transactions create the same collection: the first to commit wins', async () => {
    await inSession(ts.client, async (first) => {
      await inSession(ts.client, async (second) => {
        first.startTransaction();
        second.startTransaction();
        await db.collection<TestDoc>('both').insertOne({ _id: 1 }, { session: first });
        await db.createCollection('both', { session: second });
        await db.collection<TestDoc>('both').insertOne({ _id: 2 }, { session: second });
        await second.commitTransaction();
        await expectServerCode(first.commitTransaction(), WriteConflict);
      });
    });
    assert.deepEqual(await other.collection('both').find({}).toArray(), [{ _id: 2 }]);
  });

  test('created by another session after the snapshot: WriteConflict at the create', async () => {
    await other.collection<TestDoc>('side').insertOne({ _id: 0 });
    await inSession(ts.client, async (session) => {
      session.startTransaction();
      await db.collection('side').findOne({}, { session }); // takes the snapshot
      await other.createCollection('late');
      const e = await expectServerCode(db.createCollection('late', { session }), WriteConflict);
      assert.ok(e.hasErrorLabel('TransientTransactionError'));
      await session.abortTransaction().catch(() => undefined);
      session.startTransaction();
      await db.collection('side').findOne({}, { session });
      await other.createCollection('late2');
      await expectServerCode(
        db.collection('late2').createIndex({ a: 1 }, { session }),
        WriteConflict,
      );
      await session.abortTransaction().catch(() => undefined);
    });
  });

  test('change streams: create, createIndexes and inserts come with the commit, in its applyOps', async () => {
    const cs: ChangeStream = db.watch([], { showExpandedEvents: true });
    await cs.tryNext();
    let lsid = '';
    await inSession(ts.client, async (aborted) => {
      aborted.startTransaction();
      await db.collection<TestDoc>('gone').insertOne({ _id: 0 }, { session: aborted });
      await aborted.abortTransaction();
    });
    await inSession(ts.client, async (session) => {
      session.startTransaction();
      await db.createCollection('streamed', { session });
      await db.collection('streamed').createIndex({ a: 1 }, { session });
      await db.collection<TestDoc>('streamed').insertOne({ _id: 1, a: 1 }, { session });
      await session.commitTransaction();
      lsid = (session.id?.['id'] as Binary).toString('hex');
    });
    const events: Document[] = [];
    for (let i = 0; i < 3; i++) events.push((await cs.next()) as unknown as Document);
    await cs.close();
    assert.deepEqual(
      events.map((e) => [e['operationType'], e['ns']?.coll]),
      [
        ['create', 'streamed'],
        ['createIndexes', 'streamed'],
        ['insert', 'streamed'],
      ],
    );
    assert.notEqual(events[0]?.['txnNumber'], undefined);
    // One applyOps entry: the catalog changes first, as the statements ran.
    const entry = await ts.client
      .db('local')
      .collection('oplog.rs')
      .findOne({ 'o.applyOps.ns': 'txnddl.streamed' });
    const ops = (entry?.['o']['applyOps'] ?? []) as Document[];
    assert.deepEqual(
      ops.map((op) => [op['op'], op['ns'], Object.keys(op['o'])[0]]),
      [
        ['c', 'txnddl.$cmd', 'create'],
        ['c', 'txnddl.$cmd', 'createIndexes'],
        ['i', 'txnddl.streamed', '_id'],
      ],
    );
    for (const e of events) {
      assert.equal((e['lsid'].id as Binary).toString('hex'), lsid);
      assert.equal(String(e['txnNumber']), String(events[0]?.['txnNumber']));
    }
  });
});

describe('DDL inside transactions, durable', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'secantus-txnddl-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a collection and index created in a committed transaction survive a restart', async () => {
    let disk = await startTestServer({ dbPath: dir });
    try {
      await inSession(disk.client, async (session) => {
        session.startTransaction();
        const d = disk.client.db('kept');
        await d.createCollection('c', { session });
        await d.collection('c').createIndex({ a: 1 }, { session, name: 'a_1' });
        await d.collection<TestDoc>('c').insertOne({ _id: 1, a: 3 }, { session });
        await session.commitTransaction();
        session.startTransaction();
        await d.collection<TestDoc>('dropped').insertOne({ _id: 1 }, { session });
        await session.abortTransaction();
      });
    } finally {
      await disk.stop();
    }
    disk = await startTestServer({ dbPath: dir });
    try {
      const d = disk.client.db('kept');
      assert.deepEqual(await collectionNames(d), ['c']);
      assert.deepEqual(await indexNames(d, 'c'), ['_id_', 'a_1']);
      assert.deepEqual(await d.collection('c').find({ a: 3 }).hint('a_1').toArray(), [
        { _id: 1, a: 3 },
      ]);
    } finally {
      await disk.stop();
    }
  });
});
