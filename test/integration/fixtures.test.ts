// Test fixtures through the driver: server.reset() drops every user database, server.snapshot()
// and server.restore() bring the user data back (documents, indexes, collection options,
// views) on both engines, and what clients see across them is what a dropDatabase shows in
// mongod: change streams get drop / dropDatabase / invalidate, cursors on the dropped
// collections fail their next getMore with QueryPlanKilled (jstests getmore_invalidated_
// cursors.js), and open transactions are aborted (NoSuchTransaction). Also getUri().

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { ChangeStream, Document, MongoServerError } from 'mongodb';
import { SecantusServer } from '../../src/embed/index.js';
import type { ServerSnapshot } from '../../src/embed/index.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { collectionInfo, collectionUuid, expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const DuplicateKey = 11000;
const DocumentValidationFailure = 121;
const QueryPlanKilled = 175;
const NoSuchTransaction = 251;
const CursorNotFound = 43;

async function opened(cs: ChangeStream): Promise<ChangeStream> {
  await cs.tryNext();
  return cs;
}

async function types(cs: ChangeStream, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(((await cs.next()) as Document)['operationType']);
  return out;
}

async function userDatabases(client: MongoClient): Promise<string[]> {
  const r = await client.db('admin').admin().listDatabases({ nameOnly: true });
  return r.databases.map((d) => d.name).sort();
}

/** app: users (unique email, validator), orders, names (collation), a view; other: things. */
async function seed(client: MongoClient): Promise<void> {
  const app = client.db('app');
  await app.createCollection('users', {
    validator: { $jsonSchema: { bsonType: 'object', required: ['email'] } },
  });
  await app.collection<TestDoc>('users').createIndex({ email: 1 }, { unique: true });
  await app.collection<TestDoc>('users').createIndex({ age: -1 }, { name: 'by_age', sparse: true });
  await app.collection<TestDoc>('users').insertMany(
    Array.from({ length: 50 }, (_, i) => ({
      _id: i,
      email: `u${i}@x`,
      age: i % 7,
      name: `N${i}`,
    })),
  );
  await app.collection<TestDoc>('orders').insertMany([
    { user: 1, total: 5 },
    { user: 2, total: 7 },
  ]);
  await app.createCollection('names', { collation: { locale: 'en', strength: 2 } });
  await app.collection<TestDoc>('names').insertMany([{ name: 'N1' }, { name: 'n2' }]);
  await app.createCollection('adults', {
    viewOn: 'users',
    pipeline: [{ $match: { age: { $gte: 5 } } }, { $project: { _id: 1 } }],
  });
  await client.db('other').collection<TestDoc>('things').insertOne({ _id: 'a' });
}

function registerSuite(engine: 'memory' | 'lmdb'): void {
  describe(`fixtures (${engine})`, () => {
    let ts: TestServer;
    let dir: string | undefined;

    before(async () => {
      dir = engine === 'lmdb' ? mkdtempSync(join(tmpdir(), 'secantus-fixtures-')) : undefined;
      ts = await startTestServer(dir === undefined ? {} : { dbPath: dir });
    });
    after(async () => {
      await ts.stop();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    test('reset() drops every user database, admin user collections too, and the server goes on', async () => {
      await seed(ts.client);
      await ts.client.db('admin').collection<TestDoc>('appdata').insertOne({ x: 1 });
      assert.deepEqual(await userDatabases(ts.client), ['admin', 'app', 'other']);
      const r = await ts.server.reset();
      assert.deepEqual(r.dropped, [
        'admin.appdata',
        'app.names',
        'app.orders',
        'app.system.views',
        'app.users',
        'other.things',
      ]);
      assert.equal(r.abortedTransactions, 0);
      assert.deepEqual(await userDatabases(ts.client), []);
      assert.equal(await ts.client.db('app').collection<TestDoc>('users').countDocuments(), 0);
      // The unique index went with the collection: the same email twice is fine now.
      await ts.client
        .db('app')
        .collection<TestDoc>('users')
        .insertMany([{ email: 'same' }, { email: 'same' }]);
      // Resetting an empty server is a no-op that still answers.
      await ts.server.reset();
      assert.deepEqual((await ts.server.reset()).dropped, []);
    });

    test('snapshot() and restore(): documents, indexes, options and views, as often as wanted', async () => {
      await ts.server.reset();
      await seed(ts.client);
      const app = ts.client.db('app');
      const before = await collectionInfo(app, 'users');
      const uuidBefore = await collectionUuid(app, 'users');
      const snap = await ts.server.snapshot();
      assert.deepEqual(snap.databases, ['app', 'other']);
      assert.deepEqual(snap.namespaces, [
        'app.names',
        'app.orders',
        'app.system.views',
        'app.users',
        'other.things',
      ]);
      assert.equal(snap.documentCount, 50 + 2 + 2 + 1 + 1);

      for (let round = 0; round < 2; round++) {
        // Whatever the test did in between...
        await app.collection<TestDoc>('users').deleteMany({ age: { $lt: 3 } });
        await app
          .collection<TestDoc>('users')
          .updateOne({ _id: 40 }, { $set: { email: 'changed' } });
        await app.collection<TestDoc>('users').dropIndex('by_age');
        await app.collection<TestDoc>('orders').drop();
        await app.collection<TestDoc>('later').insertOne({ made: 'after the snapshot' });
        await ts.client.db('third').collection<TestDoc>('t').insertOne({});
        // ...is undone.
        const r = await ts.server.restore(snap);
        assert.ok(r.dropped.includes('app.later') && r.dropped.includes('third.t'));
        assert.deepEqual(await userDatabases(ts.client), ['app', 'other']);
        assert.equal(await app.collection<TestDoc>('users').countDocuments(), 50);
        assert.equal(await app.collection<TestDoc>('orders').countDocuments(), 2);
        assert.equal(await app.collection<TestDoc>('later').countDocuments(), 0);
        assert.deepEqual(await app.collection<TestDoc>('users').findOne({ _id: 40 }), {
          _id: 40,
          email: 'u40@x',
          age: 5,
          name: 'N40',
        });
        const indexes = await app.collection<TestDoc>('users').listIndexes().toArray();
        assert.deepEqual(
          indexes.map((i) => [i['name'], i['unique'] ?? false, i['sparse'] ?? false]),
          [
            ['_id_', false, false],
            ['email_1', true, false],
            ['by_age', false, true],
          ],
        );
        // Indexes hold the restored entries: the unique index refuses a duplicate, the
        // index on age answers a hinted query.
        await expectServerCode(
          app.collection<TestDoc>('users').insertOne({ _id: 'dup', email: 'u3@x' }),
          DuplicateKey,
        );
        assert.equal(
          await app.collection<TestDoc>('users').countDocuments({ age: 6 }, { hint: 'by_age' }),
          7,
        );
        // Options: the validator and the default collation came back.
        await expectServerCode(
          app.collection<TestDoc>('users').insertOne({ _id: 'no-email' }),
          DocumentValidationFailure,
        );
        assert.equal(await app.collection<TestDoc>('names').countDocuments({ name: 'n1' }), 1);
        const after = await collectionInfo(app, 'users');
        assert.deepEqual(after.options, before.options);
        assert.deepEqual(
          (await collectionInfo(app, 'names')).options?.['collation']?.['strength'],
          2,
        );
        // A restored collection is a new one, as mongod gives any re-created collection.
        assert.notDeepEqual(await collectionUuid(app, 'users'), uuidBefore);
        // The view reads the restored collection: ages 5 and 6, seven users each.
        assert.equal((await app.collection<TestDoc>('adults').find().toArray()).length, 14);
      }
    });

    test('after restore, new documents go after the restored ones in natural order', async () => {
      await ts.server.reset();
      const c = ts.client.db('nat').collection<TestDoc>('c');
      await c.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
      const snap = await ts.server.snapshot();
      await ts.server.restore(snap);
      await c.insertOne({ _id: 4 });
      assert.deepEqual(
        (await c.find().toArray()).map((d) => d['_id']),
        [1, 2, 3, 4],
      );
    });

    test('a change stream across reset sees what a dropDatabase shows', async () => {
      await ts.server.reset();
      const db = ts.client.db('cs');
      await db.collection<TestDoc>('a').insertOne({ _id: 1 });
      await db.collection<TestDoc>('b').insertOne({ _id: 1 });
      const onColl = await opened(db.collection<TestDoc>('a').watch());
      const onDb = await opened(db.watch());
      const onCluster = await opened(ts.client.watch());
      await ts.server.reset();
      assert.deepEqual(await types(onColl, 2), ['drop', 'invalidate']);
      assert.deepEqual(await types(onDb, 4), ['drop', 'drop', 'dropDatabase', 'invalidate']);
      assert.deepEqual(await types(onCluster, 3), ['drop', 'drop', 'dropDatabase']);
      // The cluster-wide stream goes on after the reset.
      await db.collection<TestDoc>('a').insertOne({ _id: 2 });
      assert.deepEqual(await types(onCluster, 1), ['insert']);
      await Promise.all([onColl.close(), onDb.close(), onCluster.close()]);
    });

    test('a change stream across restore: the drops, then the re-created collections', async () => {
      await ts.server.reset();
      const db = ts.client.db('csr');
      await db.collection<TestDoc>('a').insertOne({ _id: 1 });
      const snap = await ts.server.snapshot();
      const onCluster = await opened(ts.client.watch([], { showExpandedEvents: true }));
      await ts.server.restore(snap);
      const events = [];
      for (let i = 0; i < 3; i++) events.push((await onCluster.next()) as Document);
      assert.deepEqual(
        events.map((e) => [e['operationType'], e['ns']?.['coll']]),
        [
          ['drop', 'a'],
          ['dropDatabase', undefined],
          ['create', 'a'],
        ],
      );
      await onCluster.close();
    });

    test('a cursor on a dropped collection fails its getMore with QueryPlanKilled', async () => {
      await ts.server.reset();
      const c = ts.client.db('cur').collection<TestDoc>('c');
      await c.insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i })));
      const db = ts.client.db('cur');
      const first = await db.command({ find: 'c', batchSize: 2 });
      const id = first['cursor']['id'];
      await ts.server.reset();
      const e = (await expectServerCode(
        db.command({ getMore: id, collection: 'c' }),
        QueryPlanKilled,
      )) as MongoServerError;
      assert.match(e.message, /collection dropped/);
      // The failed getMore ended it.
      await expectServerCode(db.command({ getMore: id, collection: 'c' }), CursorNotFound);
      // A find issued after the reset sees the empty collection, no error.
      assert.deepEqual(await c.find().toArray(), []);
    });

    test('an open transaction is aborted by reset(): its next statement and commit fail with NoSuchTransaction', async () => {
      await ts.server.reset();
      const c = ts.client.db('tx').collection<TestDoc>('c');
      await c.insertOne({ _id: 0 });
      const session = ts.client.startSession();
      session.startTransaction();
      await c.insertOne({ _id: 1 }, { session });
      const r = await ts.server.reset();
      assert.equal(r.abortedTransactions, 1);
      const e = await expectServerCode(c.insertOne({ _id: 2 }, { session }), NoSuchTransaction);
      assert.ok(e.hasErrorLabel('TransientTransactionError'));
      await session.abortTransaction().catch(() => undefined);
      // The session itself goes on: a new transaction commits.
      await session.withTransaction(async () => {
        await c.insertOne({ _id: 3 }, { session });
      });
      await session.endSession();
      assert.deepEqual(await c.find().toArray(), [{ _id: 3 }]);
    });

    test('a restore brings back nothing written after the snapshot, whatever the collection', async () => {
      await ts.server.reset();
      const snapEmpty = await ts.server.snapshot();
      assert.equal(snapEmpty.documentCount, 0);
      await ts.client.db('e').collection<TestDoc>('c').insertOne({});
      await ts.server.restore(snapEmpty);
      assert.deepEqual(await userDatabases(ts.client), []);
    });

    test('restore() refuses what is not a snapshot', async () => {
      await assert.rejects(
        ts.server.restore({} as unknown as ServerSnapshot),
        (e: unknown) => e instanceof TypeError,
      );
    });
  });
}

registerSuite('memory');
registerSuite('lmdb');

describe('snapshot across servers and restarts', () => {
  test('a snapshot restores into another server of the same process', async () => {
    const a = await SecantusServer.start();
    const b = await SecantusServer.start();
    const ca = new MongoClient(a.uri);
    const cb = new MongoClient(b.uri);
    try {
      await ca.db('shared').collection<TestDoc>('c').createIndex({ k: 1 }, { unique: true });
      await ca
        .db('shared')
        .collection<TestDoc>('c')
        .insertMany([{ k: 1 }, { k: 2 }]);
      const snap = await a.snapshot();
      await b.restore(snap);
      assert.equal(await cb.db('shared').collection<TestDoc>('c').countDocuments(), 2);
      await expectServerCode(
        cb.db('shared').collection<TestDoc>('c').insertOne({ k: 1 }),
        DuplicateKey,
      );
      // a is untouched by what b does with the copy.
      await cb.db('shared').collection<TestDoc>('c').deleteMany({});
      assert.equal(await ca.db('shared').collection<TestDoc>('c').countDocuments(), 2);
    } finally {
      await ca.close();
      await cb.close();
      await a.stop();
      await b.stop();
    }
  });

  test('reset/snapshot/restore on a stopped server reject', async () => {
    const s = await SecantusServer.start();
    const snap = await s.snapshot();
    await s.stop();
    await assert.rejects(s.reset(), /stopped/);
    await assert.rejects(s.snapshot(), /stopped/);
    await assert.rejects(s.restore(snap), /stopped/);
  });
});

describe('getUri and uri', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });

  test('the database goes before the query string that names the replica set', async () => {
    const port = ts.server.port;
    assert.equal(ts.server.getUri(), `mongodb://127.0.0.1:${port}/?replicaSet=rs0`);
    assert.equal(ts.server.getUri('mydb'), `mongodb://127.0.0.1:${port}/mydb?replicaSet=rs0`);
    assert.equal(ts.server.uri, `mongodb://127.0.0.1:${port}/`);
    const client = new MongoClient(ts.server.getUri('mydb'));
    const appended = new MongoClient(`${ts.server.uri}appended`);
    try {
      assert.equal(client.db().databaseName, 'mydb');
      assert.equal(appended.db().databaseName, 'appended');
      await client.db().collection<TestDoc>('c').insertOne({ _id: 1 });
      // Without replicaSet in the URI the driver still finds the replica set: transactions work.
      const session = appended.startSession();
      await session.withTransaction(async () => {
        await appended.db().collection<TestDoc>('c').insertOne({ _id: 1 }, { session });
      });
      await session.endSession();
      assert.deepEqual(await ts.client.db('appended').collection<TestDoc>('c').find().toArray(), [
        { _id: 1 },
      ]);
    } finally {
      await client.close();
      await appended.close();
    }
  });

  test('a standalone has no query string; names are encoded', async () => {
    const s = await SecantusServer.start({ replSet: '' });
    try {
      assert.equal(s.getUri('a b'), `mongodb://127.0.0.1:${s.port}/a%20b`);
      assert.equal(s.getUri(), s.uri);
    } finally {
      await s.stop();
    }
  });
});
