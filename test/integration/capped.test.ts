// Capped collections through the driver, as mongod 7.0 has them: create with capped/size/max
// (size rounded up to 256 bytes, listCollections and collStats), insertion order kept, the
// oldest documents deleted by the insert that overflows (logged as deletes: change streams see
// them), updates and deletes allowed, writes refused in transactions, convertToCapped and
// cloneCollectionAsCapped, tailable and awaitData cursors (the driver's tailable cursor end to
// end, CappedPositionLost when the cursor's position is deleted), and bad input with mongod's
// codes. Expected values come from MongoDB's documentation and jstests/core/capped*.js.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Long } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { collectionInfo, expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const BadValue = 2;
const FailedToParse = 9;
const TypeMismatch = 14;
const NamespaceNotFound = 26;
const NamespaceExists = 48;
const InvalidOptions = 72;
const CappedPositionLost = 136;
const OperationNotSupportedInTransaction = 263;
const MissingField = 40414;
const OutOfRange = 51024;

const ids = (docs: Document[]): unknown[] => docs.map((d) => d['_id']);

describe('capped collections', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('capped_test');
  });
  after(async () => {
    await ts.stop();
  });

  test('create shows capped, size rounded up to 256 bytes, and max', async () => {
    await db.createCollection('shape', { capped: true, size: 4000, max: 3 });
    const info = await collectionInfo(db, 'shape');
    assert.deepEqual(info.options, { capped: true, size: 4096, max: 3 });
    assert.equal(await db.collection('shape').isCapped(), true);
    const stats = await db.command({ collStats: 'shape' });
    assert.equal(stats['capped'], true);
    assert.equal(stats['max'], 3);
    assert.equal(stats['maxSize'], 4096);
    const [agg] = await db
      .collection('shape')
      .aggregate([{ $collStats: { storageStats: {} } }])
      .toArray();
    assert.equal(agg?.['storageStats']?.['capped'], true);
    // The same options again: created already, ok; other options: NamespaceExists.
    await db.createCollection('shape', { capped: true, size: 4000, max: 3 });
    await expectServerCode(
      db.createCollection('shape', { capped: true, size: 8192 }),
      NamespaceExists,
    );
    await db.createCollection('plain');
    assert.equal(await db.collection('plain').isCapped(), false);
    assert.equal((await db.command({ collStats: 'plain' }))['capped'], false);
  });

  test('bad create options answer mongod codes and create nothing', async () => {
    await expectServerCode(db.command({ create: 'bad1', capped: true }), InvalidOptions);
    await expectServerCode(db.command({ create: 'bad2', size: 4096 }), InvalidOptions);
    await expectServerCode(db.command({ create: 'bad3', max: 5 }), InvalidOptions);
    await expectServerCode(db.command({ create: 'bad4', capped: true, size: 0 }), OutOfRange);
    await expectServerCode(
      db.command({ create: 'bad5', capped: true, size: 1024 ** 5 + 1 }),
      OutOfRange,
    );
    await expectServerCode(db.command({ create: 'bad6', capped: true, size: 'x' }), TypeMismatch);
    await expectServerCode(
      db.command({ create: 'bad7', capped: true, size: 4096, max: 2 ** 31 }),
      BadValue,
    );
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    assert.equal(
      names.some((n) => n.startsWith('bad')),
      false,
    );
  });

  test('max: the oldest documents go, insertion order stays', async () => {
    await db.createCollection('bymax', { capped: true, size: 100_000, max: 3 });
    const c = db.collection<TestDoc>('bymax');
    for (let i = 1; i <= 5; i++) await c.insertOne({ _id: i, v: 'x' });
    await c.insertMany([{ _id: 6 }, { _id: 7 }]);
    assert.deepEqual(ids(await c.find().toArray()), [5, 6, 7]);
    assert.deepEqual(ids(await c.find().sort({ $natural: -1 }).toArray()), [7, 6, 5]);
    assert.equal(await c.countDocuments(), 3);
    // The _id index lost the deleted documents too.
    assert.equal(await c.findOne({ _id: 1 }), null);
    assert.deepEqual(await c.findOne({ _id: 6 }), { _id: 6 });
  });

  test('size: the collection stays within its bytes, the newest document always kept', async () => {
    await db.createCollection('bysize', { capped: true, size: 1000 });
    const c = db.collection<TestDoc>('bysize');
    const pad = 'p'.repeat(80);
    for (let i = 0; i < 40; i++) await c.insertOne({ _id: i, pad });
    const stats = await db.command({ collStats: 'bysize' });
    assert.ok(stats['size'] <= 1024, `size ${stats['size']}`);
    const kept = ids(await c.find().toArray()) as number[];
    assert.ok(kept.length > 1 && kept.length < 40);
    assert.equal(kept.at(-1), 39);
    assert.deepEqual(
      kept,
      kept.map((_, i) => 40 - kept.length + i),
    );
    // A document larger than the whole collection is stored alone.
    await c.insertOne({ _id: 'big', pad: 'b'.repeat(3000) });
    assert.deepEqual(ids(await c.find().toArray()), ['big']);
  });

  test('collMod cappedSize / cappedMax change the limits; the next insert evicts', async () => {
    await db.createCollection('resize', { capped: true, size: 100_000, max: 2 });
    const c = db.collection<TestDoc>('resize');
    for (let i = 1; i <= 4; i++) await c.insertOne({ _id: i });
    assert.deepEqual(ids(await c.find().toArray()), [3, 4]);
    // A larger max keeps more documents.
    await db.command({ collMod: 'resize', cappedMax: 4 });
    let stats = await db.command({ collStats: 'resize' });
    assert.equal(stats['max'], 4);
    for (let i = 5; i <= 7; i++) await c.insertOne({ _id: i });
    assert.deepEqual(ids(await c.find().toArray()), [4, 5, 6, 7]);
    // A smaller max deletes nothing until the next insert, which evicts down to it.
    await db.command({ collMod: 'resize', cappedMax: 2 });
    assert.equal(await c.countDocuments(), 4);
    await c.insertOne({ _id: 8 });
    assert.deepEqual(ids(await c.find().toArray()), [7, 8]);
    // max <= 0 means no document limit; a size is rounded up to 256 bytes.
    await db.command({ collMod: 'resize', cappedMax: 0, cappedSize: 1000 });
    stats = await db.command({ collStats: 'resize' });
    assert.equal(stats['max'], 0x7fffffff);
    assert.equal(stats['maxSize'], 1024);
    const info = await collectionInfo(db, 'resize');
    assert.deepEqual(info.options, { capped: true, size: 1024, max: 0x7fffffff });
    const pad = 'p'.repeat(200);
    for (let i = 10; i < 20; i++) await c.insertOne({ _id: i, pad });
    stats = await db.command({ collStats: 'resize' });
    assert.ok(stats['size'] <= 1024, `size ${stats['size']}`);
    // Bad values, and a collection that is not capped.
    await expectServerCode(db.command({ collMod: 'resize', cappedSize: 0 }), OutOfRange);
    await expectServerCode(db.command({ collMod: 'resize', cappedSize: -5 }), OutOfRange);
    await expectServerCode(db.command({ collMod: 'resize', cappedSize: 2 ** 50 + 1 }), OutOfRange);
    await expectServerCode(db.command({ collMod: 'resize', cappedMax: 2 ** 31 }), OutOfRange);
    await expectServerCode(db.command({ collMod: 'resize', cappedSize: 'x' }), TypeMismatch);
    assert.equal((await db.command({ collStats: 'resize' }))['maxSize'], 1024);
    await db.createCollection('notcapped');
    await expectServerCode(db.command({ collMod: 'notcapped', cappedSize: 4096 }), InvalidOptions);
    assert.equal((await collectionInfo(db, 'notcapped')).options?.['size'], undefined);
  });

  test('the overflow deletes are logged: a change stream sees them after the insert', async () => {
    await db.createCollection('logged', { capped: true, size: 100_000, max: 2 });
    const c = db.collection<TestDoc>('logged');
    await c.insertMany([{ _id: 1 }, { _id: 2 }]);
    const stream = c.watch();
    try {
      await stream.tryNext();
      await c.insertOne({ _id: 3 });
      const events: Document[] = [];
      for (let i = 0; i < 20 && events.length < 2; i++) {
        const e = await stream.tryNext();
        if (e !== null) events.push(e);
      }
      assert.deepEqual(
        events.map((e) => [e['operationType'], e['documentKey']?.['_id']]),
        [
          ['insert', 3],
          ['delete', 1],
        ],
      );
    } finally {
      await stream.close();
    }
    const oplog = ts.client.db('local').collection('oplog.rs');
    const del = await oplog.findOne({ ns: 'capped_test.logged', op: 'd' });
    assert.deepEqual(del?.['o'], { _id: 1 });
  });

  test('updates may change a document size and deletes are allowed (7.0)', async () => {
    await db.createCollection('upd', { capped: true, size: 10_000 });
    const c = db.collection<TestDoc>('upd');
    await c.insertMany([{ _id: 1, s: 'a' }, { _id: 2, s: 'b' }, { _id: 3 }]);
    await c.updateOne({ _id: 1 }, { $set: { s: 'a much longer string than before' } });
    assert.deepEqual(await c.findOne({ _id: 1 }), {
      _id: 1,
      s: 'a much longer string than before',
    });
    const r = await c.deleteOne({ _id: 2 });
    assert.equal(r.deletedCount, 1);
    assert.deepEqual(ids(await c.find().toArray()), [1, 3]);
  });

  test('writes to a capped collection in a transaction: OperationNotSupportedInTransaction', async () => {
    await db.createCollection('intxn', { capped: true, size: 10_000 });
    const c = db.collection<TestDoc>('intxn');
    await c.insertOne({ _id: 1, a: 1 });
    const session = ts.client.startSession();
    try {
      for (const write of [
        () => c.insertOne({ _id: 2 }, { session }),
        () => c.updateOne({ _id: 1 }, { $set: { a: 2 } }, { session }),
        () => c.deleteOne({ _id: 1 }, { session }),
        () => c.findOneAndUpdate({ _id: 1 }, { $set: { a: 3 } }, { session }),
      ]) {
        session.startTransaction();
        await expectServerCode(write(), OperationNotSupportedInTransaction);
        await session.abortTransaction().catch(() => undefined);
      }
      session.startTransaction();
      assert.deepEqual(await c.find({}, { session }).toArray(), [{ _id: 1, a: 1 }]);
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    assert.deepEqual(await c.find().toArray(), [{ _id: 1, a: 1 }]);
  });

  test('convertToCapped keeps the newest documents that fit and only the _id index', async () => {
    const c = db.collection<TestDoc>('conv');
    await c.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, pad: 'q'.repeat(60) })));
    await c.createIndex({ pad: 1 });
    const before = await collectionInfo(db, 'conv');
    await db.command({ convertToCapped: 'conv', size: 512 });
    const info = await collectionInfo(db, 'conv');
    assert.deepEqual(info.options, { capped: true, size: 512 });
    assert.notDeepEqual(info.info?.uuid, before.info?.uuid);
    const kept = ids(await c.find().toArray()) as number[];
    assert.ok(kept.length > 0 && kept.length < 30);
    assert.equal(kept.at(-1), 29);
    assert.deepEqual(
      (await c.listIndexes().toArray()).map((i) => i['name']),
      ['_id_'],
    );
    await expectServerCode(db.command({ convertToCapped: 'conv' }), MissingField);
    await expectServerCode(
      db.command({ convertToCapped: 'nothere', size: 4096 }),
      NamespaceNotFound,
    );
  });

  test('cloneCollectionAsCapped copies into a new capped collection', async () => {
    const src = db.collection<TestDoc>('clsrc');
    await src.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    await db.command({ cloneCollectionAsCapped: 'clsrc', toCollection: 'cldst', size: 4096 });
    assert.deepEqual(ids(await db.collection('cldst').find().toArray()), [1, 2, 3]);
    assert.equal(await db.collection('cldst').isCapped(), true);
    assert.equal(await src.isCapped(), false);
    await expectServerCode(
      db.command({ cloneCollectionAsCapped: 'clsrc', toCollection: 'cldst', size: 4096 }),
      NamespaceExists,
    );
    await expectServerCode(
      db.command({ cloneCollectionAsCapped: 'nothere', toCollection: 'x', size: 4096 }),
      NamespaceNotFound,
    );
    await expectServerCode(
      db.command({ cloneCollectionAsCapped: 'clsrc', toCollection: 'x' }),
      MissingField,
    );
  });

  test('tailable find: bad combinations answer mongod codes', async () => {
    await db.createCollection('tailbad', { capped: true, size: 4096 });
    await db.collection<TestDoc>('tailbad').insertOne({ _id: 1 });
    await db.collection<TestDoc>('notcapped').insertOne({ _id: 1 });
    await expectServerCode(db.command({ find: 'notcapped', tailable: true }), BadValue);
    await expectServerCode(
      db.command({ find: 'tailbad', tailable: true, sort: { _id: 1 } }),
      BadValue,
    );
    await expectServerCode(
      db.command({ find: 'tailbad', tailable: true, singleBatch: true }),
      BadValue,
    );
    await expectServerCode(db.command({ find: 'tailbad', awaitData: true }), FailedToParse);
    // {$natural: 1} is the order a tailable cursor reads in: allowed.
    const ok = await db.command({ find: 'tailbad', tailable: true, sort: { $natural: 1 } });
    assert.deepEqual(ok['cursor']['firstBatch'], [{ _id: 1 }]);
    await db.command({ killCursors: 'tailbad', cursors: [ok['cursor']['id']] });
  });

  test('tailable cursor: stays open at the end, returns later inserts; none kept on an empty collection', async () => {
    await db.createCollection('tail', { capped: true, size: 100_000 });
    const empty = await db.command({ find: 'tail', tailable: true });
    assert.equal(Number(empty['cursor']['id']), 0);
    const c = db.collection<TestDoc>('tail');
    await c.insertMany([
      { _id: 1, k: 'a' },
      { _id: 2, k: 'b' },
    ]);
    const first = await db.command({
      find: 'tail',
      tailable: true,
      filter: { k: { $ne: 'skip' } },
    });
    const id = first['cursor']['id'] as Long;
    assert.deepEqual(ids(first['cursor']['firstBatch']), [1, 2]);
    assert.equal(id.isZero(), false);
    const none = await db.command({ getMore: id, collection: 'tail' });
    assert.deepEqual(none['cursor']['nextBatch'], []);
    assert.equal((none['cursor']['id'] as Long).equals(id), true);
    await c.insertMany([
      { _id: 3, k: 'skip' },
      { _id: 4, k: 'c' },
    ]);
    const more = await db.command({ getMore: id, collection: 'tail' });
    assert.deepEqual(ids(more['cursor']['nextBatch']), [4]);
    await db.command({ killCursors: 'tail', cursors: [id] });
  });

  test('awaitData getMore waits for an insert, and answers an empty batch when none comes', async () => {
    await db.createCollection('await', { capped: true, size: 100_000 });
    const c = db.collection<TestDoc>('await');
    await c.insertOne({ _id: 1 });
    const first = await db.command({ find: 'await', tailable: true, awaitData: true });
    const id = first['cursor']['id'] as Long;
    const idle = await db.command({ getMore: id, collection: 'await', maxTimeMS: 50 });
    assert.deepEqual(idle['cursor']['nextBatch'], []);
    assert.equal((idle['cursor']['id'] as Long).equals(id), true);
    const waiting = db.command({ getMore: id, collection: 'await', maxTimeMS: 10_000 });
    const other = await ts.newClient();
    await other.db('capped_test').collection<TestDoc>('await').insertOne({ _id: 2 });
    const woke = await waiting;
    assert.deepEqual(ids(woke['cursor']['nextBatch']), [2]);
    await db.command({ killCursors: 'await', cursors: [id] });
  });

  test("the driver's tailable awaitData cursor reads documents as they are inserted", async () => {
    await db.createCollection('drv', { capped: true, size: 100_000 });
    const c = db.collection<TestDoc>('drv');
    await c.insertOne({ _id: 0 });
    const cursor = c.find({}, { tailable: true, awaitData: true, maxAwaitTimeMS: 100 });
    try {
      assert.deepEqual(await cursor.next(), { _id: 0 });
      const writer = (async () => {
        for (let i = 1; i <= 3; i++) await c.insertOne({ _id: i });
      })();
      const seen: unknown[] = [];
      while (seen.length < 3) {
        const d = await cursor.next();
        if (d !== null) seen.push(d['_id']);
      }
      await writer;
      assert.deepEqual(seen, [1, 2, 3]);
    } finally {
      await cursor.close();
    }
  });

  test('a tailable cursor whose position was deleted dies with CappedPositionLost', async () => {
    await db.createCollection('lost', { capped: true, size: 100_000, max: 2 });
    const c = db.collection<TestDoc>('lost');
    await c.insertMany([{ _id: 1 }, { _id: 2 }]);
    const first = await db.command({ find: 'lost', tailable: true, batchSize: 1 });
    const id = first['cursor']['id'] as Long;
    assert.deepEqual(ids(first['cursor']['firstBatch']), [1]);
    await c.insertMany([{ _id: 3 }, { _id: 4 }]);
    await expectServerCode(db.command({ getMore: id, collection: 'lost' }), CappedPositionLost);
    // The cursor is gone; the collection serves others.
    await expectServerCode(db.command({ getMore: id, collection: 'lost' }), 43);
    assert.deepEqual(ids(await c.find().toArray()), [3, 4]);
  });

  test('capped options survive a restart of an on-disk server', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'capped-'));
    try {
      let disk = await startTestServer({ dbPath: dir });
      try {
        const d = disk.client.db('t');
        await d.createCollection('k', { capped: true, size: 100_000, max: 2 });
        await d.collection<TestDoc>('k').insertMany([{ _id: 1 }, { _id: 2 }]);
      } finally {
        await disk.stop();
      }
      disk = await startTestServer({ dbPath: dir });
      try {
        const k = disk.client.db('t').collection<TestDoc>('k');
        await k.insertOne({ _id: 3 });
        assert.deepEqual(ids(await k.find().toArray()), [2, 3]);
      } finally {
        await disk.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Snapshot reads of capped collections (jstests/noPassthrough/snapshot_reads_capped_collection.js):
// refused by 7.0 in and out of transactions; allowed by 8.0 except on collections that are not
// replicated (system.profile).
const SnapshotUnavailable = 246;

/** The commands that take readConcern snapshot outside transactions (count does not). */
function snapshotReads(db: Db, coll: string): Array<() => Promise<Document>> {
  const rc = { readConcern: { level: 'snapshot' } };
  return [
    () => db.command({ find: coll, ...rc }),
    () => db.command({ aggregate: coll, pipeline: [], cursor: {}, ...rc }),
    () => db.command({ distinct: coll, key: '_id', ...rc }),
  ];
}

describe('capped collections: snapshot reads, reporting 8.0', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('capped_snap');
    await db.createCollection('c', { capped: true, size: 32, max: 1 });
    await db.collection<TestDoc>('c').insertOne({ _id: 1 });
  });
  after(async () => {
    await ts.stop();
  });

  test('in and out of a transaction, snapshot reads of a capped collection work', async () => {
    const [find, agg, distinct] = await Promise.all(snapshotReads(db, 'c').map((read) => read()));
    assert.deepEqual(ids(find?.['cursor'].firstBatch), [1]);
    assert.deepEqual(ids(agg?.['cursor'].firstBatch), [1]);
    assert.deepEqual(distinct?.['values'], [1]);
    const session = ts.client.startSession({ causalConsistency: false });
    try {
      session.startTransaction({ readConcern: { level: 'snapshot' } });
      const docs = await db.collection('c').find({}, { session }).toArray();
      assert.deepEqual(ids(docs), [1]);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
  });

  test('system.profile (not replicated) refuses snapshot reads with SnapshotUnavailable', async () => {
    await db.command({ profile: 2 });
    await db.collection('c').findOne({});
    await db.command({ profile: 0 });
    for (const read of snapshotReads(db, 'system.profile'))
      await expectServerCode(read(), SnapshotUnavailable);
    assert.ok((await db.collection('system.profile').countDocuments()) > 0);
  });
});

describe('capped collections: snapshot reads, reporting 7.0', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer({ compatibilityVersion: '7.0' });
    db = ts.client.db('capped_snap');
    await db.createCollection('c', { capped: true, size: 32, max: 1 });
    await db.createCollection('plain');
  });
  after(async () => {
    await ts.stop();
  });

  test('find, aggregate and distinct at snapshot fail with SnapshotUnavailable', async () => {
    for (const read of snapshotReads(db, 'c')) await expectServerCode(read(), SnapshotUnavailable);
    // Other read concerns, and snapshot reads of other collections, are unaffected.
    await db.command({ find: 'c', readConcern: { level: 'majority' } });
    await Promise.all(snapshotReads(db, 'plain').map((read) => read()));
  });

  test('a snapshot transaction cannot read a capped collection; a local one can', async () => {
    const session = ts.client.startSession({ causalConsistency: false });
    try {
      session.startTransaction({ readConcern: { level: 'snapshot' } });
      await expectServerCode(
        db.collection('c').find({}, { session }).toArray(),
        SnapshotUnavailable,
      );
      await session.abortTransaction().catch(() => undefined);
      session.startTransaction({ readConcern: { level: 'local' } });
      assert.deepEqual(await db.collection('c').find({}, { session }).toArray(), []);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
  });
});
