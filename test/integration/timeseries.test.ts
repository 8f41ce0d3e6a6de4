// Time-series collections through the driver, as mongod 7.0 presents them: create's options
// and their errors, listCollections (the "timeseries" entry and the system.buckets
// collection), bucket documents, inserts and the reads that unpack them (find, aggregate,
// count, distinct; bucket filters in explain), deletes and meta updates within 7.0's rules,
// TTL, drop, rename and change streams refused.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { collectionInfo, expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const BadValue = 2;
const TypeMismatch = 14;
const IllegalOperation = 20;
const NamespaceExists = 48;
const InvalidOptions = 72;
const CommandNotSupportedOnView = 166;
const NotImplemented = 238;
const OperationNotSupportedInTransaction = 263;
const MissingField = 40414;
const UnknownField = 40415;
const OutOfRange = 51024;

const t0 = Date.UTC(2021, 4, 18, 0, 0, 0);
const at = (minutes: number): Date => new Date(t0 + minutes * 60_000);

describe('time-series collections', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('timeseries_test');
  });
  after(async () => {
    await ts.stop();
  });

  test('create fills in the bucketing defaults; listCollections shows both namespaces', async () => {
    await db.createCollection('weather', {
      timeseries: { timeField: 'timestamp', metaField: 'metadata' },
      expireAfterSeconds: 86400,
    });
    const info = await collectionInfo(db, 'weather');
    assert.equal(info.type, 'timeseries');
    assert.deepEqual(info.options?.['timeseries'], {
      timeField: 'timestamp',
      metaField: 'metadata',
      granularity: 'seconds',
      bucketMaxSpanSeconds: 3600,
    });
    assert.equal(Number(info.options?.['expireAfterSeconds']), 86400);
    const buckets = await collectionInfo(db, 'system.buckets.weather');
    assert.equal(buckets.type, 'collection');
    assert.equal(buckets.options?.['clusteredIndex'], true);
    assert.deepEqual(buckets.options?.['timeseries'], info.options?.['timeseries']);
    // The same options again succeed; other options, or a plain collection, do not.
    await db.createCollection('weather', {
      timeseries: { timeField: 'timestamp', metaField: 'metadata' },
      expireAfterSeconds: 86400,
    });
    await expectServerCode(
      db.createCollection('weather', { timeseries: { timeField: 'timestamp' } }),
      NamespaceExists,
    );
    await expectServerCode(db.createCollection('weather'), NamespaceExists);
    await db.createCollection('plain');
    await expectServerCode(
      db.createCollection('plain', { timeseries: { timeField: 't' } }),
      NamespaceExists,
    );

    await db.createCollection('minutes', {
      timeseries: { timeField: 't', granularity: 'minutes' },
    });
    assert.deepEqual((await collectionInfo(db, 'minutes')).options?.['timeseries'], {
      timeField: 't',
      granularity: 'minutes',
      bucketMaxSpanSeconds: 86400,
    });
    await db.createCollection('custom', {
      timeseries: { timeField: 't', bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600 },
    });
    assert.deepEqual((await collectionInfo(db, 'custom')).options?.['timeseries'], {
      timeField: 't',
      bucketRoundingSeconds: 600,
      bucketMaxSpanSeconds: 600,
    });
  });

  test('create refuses bad options with mongod codes', async () => {
    const bad: Array<[Document, number]> = [
      [{ timeseries: { metaField: 'm' } }, MissingField],
      [{ timeseries: { timeField: 1 } }, TypeMismatch],
      [{ timeseries: { timeField: 't', metaField: 1 } }, TypeMismatch],
      [{ timeseries: { timeField: 't', other: 1 } }, UnknownField],
      [{ timeseries: { timeField: 'a.b' } }, InvalidOptions],
      [{ timeseries: { timeField: 't', metaField: 'm.x' } }, InvalidOptions],
      [{ timeseries: { timeField: 't', metaField: 't' } }, InvalidOptions],
      [{ timeseries: { timeField: 't', metaField: '_id' } }, InvalidOptions],
      [{ timeseries: { timeField: '$t' } }, BadValue],
      [{ timeseries: { timeField: 't', granularity: 'days' } }, BadValue],
      [
        { timeseries: { timeField: 't', granularity: 'minutes', bucketMaxSpanSeconds: 3600 } },
        InvalidOptions,
      ],
      [
        { timeseries: { timeField: 't', granularity: 'seconds', bucketRoundingSeconds: 60 } },
        InvalidOptions,
      ],
      [{ timeseries: { timeField: 't', bucketMaxSpanSeconds: 10 } }, InvalidOptions],
      [
        { timeseries: { timeField: 't', bucketMaxSpanSeconds: 10, bucketRoundingSeconds: 20 } },
        InvalidOptions,
      ],
      [
        { timeseries: { timeField: 't', bucketMaxSpanSeconds: 0, bucketRoundingSeconds: 0 } },
        OutOfRange,
      ],
      [{ timeseries: { timeField: 't' }, expireAfterSeconds: -1 }, InvalidOptions],
      [{ timeseries: { timeField: 't' }, capped: true, size: 100 }, InvalidOptions],
      [{ timeseries: { timeField: 't' }, validator: {} }, InvalidOptions],
      [
        { timeseries: { timeField: 't' }, clusteredIndex: { key: { _id: 1 }, unique: true } },
        InvalidOptions,
      ],
      [{ timeseries: { timeField: 't' }, viewOn: 'x', pipeline: [] }, InvalidOptions],
    ];
    for (const [options, code] of bad) {
      await expectServerCode(db.command({ create: 'bad', ...options }), code);
    }
    assert.deepEqual(
      (await db.listCollections({ name: { $in: ['bad', 'system.buckets.bad'] } }).toArray()).length,
      0,
    );
  });

  test('inserts are bucketed by meta and time span; reads see the measurements', async () => {
    await db.createCollection('sensors', { timeseries: { timeField: 'ts', metaField: 'sensor' } });
    const c = db.collection<TestDoc>('sensors');
    await c.insertMany([
      { _id: 1, sensor: { id: 1 }, ts: at(0), temp: 10 },
      { _id: 2, sensor: { id: 1 }, ts: at(5), temp: 12 },
      { _id: 3, sensor: { id: 2 }, ts: at(1), temp: 20 },
      // Two hours later: beyond the one-hour span of "seconds", a new bucket.
      { _id: 4, sensor: { id: 1 }, ts: at(120), temp: 14 },
      { _id: 5, ts: at(2), temp: 30 },
    ]);
    await c.insertOne({ _id: 6, sensor: { id: 2 }, ts: at(3), temp: 22, extra: 'x' });

    const buckets = await db
      .collection<TestDoc>('system.buckets.sensors')
      .find({}, { sort: { 'control.min.ts': 1, 'meta.id': 1 } })
      .toArray();
    assert.equal(buckets.length, 4);
    const first = buckets.find(
      (b) => b['meta']?.['id'] === 1 && b['control']['max']['ts'].getTime() === at(5).getTime(),
    );
    assert.ok(first !== undefined);
    assert.deepEqual(first['control'], {
      version: 1,
      min: { _id: 1, ts: at(0), temp: 10 },
      max: { _id: 2, ts: at(5), temp: 12 },
    });
    assert.deepEqual(first['data'], {
      _id: { '0': 1, '1': 2 },
      ts: { '0': at(0), '1': at(5) },
      temp: { '0': 10, '1': 12 },
    });
    // control.min of the time field is rounded down to bucketRoundingSeconds (60).
    const two = buckets.find((b) => b['meta']?.['id'] === 2);
    assert.ok(two !== undefined);
    assert.equal(two['control']['min']['ts'].getTime(), at(1).getTime());
    assert.deepEqual(Object.keys(two['data']), ['_id', 'ts', 'temp', 'extra']);
    assert.equal(buckets.filter((b) => b['meta'] === undefined).length, 1);

    // The measurements: time field first, then the meta field, then the others.
    const all = await c.find({}, { sort: { _id: 1 } }).toArray();
    assert.equal(all.length, 6);
    assert.deepEqual(Object.keys(all[0] as Document), ['ts', 'sensor', '_id', 'temp']);
    assert.deepEqual(all[5], { ts: at(3), sensor: { id: 2 }, _id: 6, temp: 22, extra: 'x' });
    assert.deepEqual(all[4], { ts: at(2), _id: 5, temp: 30 });

    // Filters on meta and time agree with filtering the unpacked documents.
    const ids = async (filter: Document): Promise<unknown[]> =>
      (await c.find(filter, { sort: { _id: 1 } }).toArray()).map((d) => d['_id']);
    assert.deepEqual(await ids({ 'sensor.id': 1 }), [1, 2, 4]);
    assert.deepEqual(await ids({ ts: { $gte: at(3), $lt: at(120) } }), [2, 6]);
    assert.deepEqual(await ids({ ts: at(5) }), [2]);
    assert.deepEqual(await ids({ ts: { $gt: at(5) }, 'sensor.id': 1 }), [4]);
    assert.deepEqual(await ids({ sensor: { $exists: false } }), [5]);
    assert.deepEqual(await ids({ temp: { $gt: 12 } }), [3, 4, 5, 6]);
    assert.deepEqual(await ids({ $and: [{ 'sensor.id': 2 }, { ts: { $lte: at(1) } }] }), [3]);

    assert.equal(await c.countDocuments({ 'sensor.id': 1 }), 3);
    assert.equal(await c.estimatedDocumentCount(), 6);
    assert.deepEqual((await c.distinct('sensor.id')).sort(), [1, 2]);
    const grouped = await c
      .aggregate([{ $group: { _id: '$sensor.id', n: { $sum: 1 } } }, { $sort: { _id: 1 } }])
      .toArray();
    assert.deepEqual(grouped, [
      { _id: null, n: 1 },
      { _id: 1, n: 3 },
      { _id: 2, n: 2 },
    ]);

    // explain shows the unpacking and the filter that reached the buckets.
    const plan = JSON.stringify(await c.find({ 'sensor.id': 1, ts: { $gte: at(3) } }).explain());
    assert.ok(plan.includes('$_internalUnpackBucket'), plan);
    assert.ok(plan.includes('meta.id'), plan);
    assert.ok(plan.includes('control.max.ts'), plan);
  });

  test('an insert without a date in the time field fails and leaves the rest', async () => {
    await db.createCollection('strict', { timeseries: { timeField: 't', metaField: 'm' } });
    const c = db.collection<TestDoc>('strict');
    await expectServerCode(c.insertOne({ _id: 1, m: 'a' }), BadValue);
    await expectServerCode(c.insertOne({ _id: 2, t: '2021-01-01' }), BadValue);
    await expectServerCode(
      c.insertMany([{ _id: 3, t: at(0) }, { _id: 4 }, { _id: 5, t: at(1) }], { ordered: false }),
      BadValue,
    );
    assert.deepEqual(
      (await c.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d['_id']),
      [3, 5],
    );
    // Duplicate _id values are allowed (no unique index on measurements), as in mongod.
    await c.insertMany([{ _id: 3, t: at(2) }]);
    assert.equal(await c.countDocuments({ _id: 3 }), 2);
    // A generated _id is an ObjectId.
    await c.insertOne({ t: at(4), m: 'gen' });
    const gen = await c.findOne({ m: 'gen' });
    assert.equal(gen?.['_id']?.constructor?.name, 'ObjectId');
  });

  test('deletes: any filter (7.0), removing measurements and emptied buckets', async () => {
    await db.createCollection('del', { timeseries: { timeField: 't', metaField: 'm' } });
    const c = db.collection<TestDoc>('del');
    const docs = [];
    for (let i = 0; i < 12; i++) docs.push({ _id: i, m: i % 3, t: at(i), v: i });
    await c.insertMany(docs);
    const bucketsColl = db.collection('system.buckets.del');
    assert.equal(await bucketsColl.countDocuments(), 3);

    assert.equal((await c.deleteMany({ m: 0 })).deletedCount, 4);
    assert.equal(await bucketsColl.countDocuments(), 2);
    assert.equal((await c.deleteMany({ v: { $gte: 10 } })).deletedCount, 2);
    assert.equal((await c.deleteOne({ m: 1 })).deletedCount, 1);
    assert.deepEqual(
      (await c.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d['_id']),
      [2, 4, 5, 7, 8],
    );
    // The remaining buckets are rebuilt with their measurements, and unpack the same.
    assert.deepEqual(await c.findOne({ _id: 4 }), { t: at(4), m: 1, _id: 4, v: 4 });
    assert.equal((await c.deleteMany({})).deletedCount, 5);
    assert.equal(await bucketsColl.countDocuments(), 0);
  });

  test('updates: multi, meta-only, as 7.0; others refused with InvalidOptions', async () => {
    await db.createCollection('upd', { timeseries: { timeField: 't', metaField: 'm' } });
    const c = db.collection<TestDoc>('upd');
    await c.insertMany([
      { _id: 1, m: { site: 'a' }, t: at(0), v: 1 },
      { _id: 2, m: { site: 'a' }, t: at(1), v: 2 },
      { _id: 3, m: { site: 'b' }, t: at(2), v: 3 },
    ]);
    await c.updateMany({ 'm.site': 'a' }, { $set: { 'm.site': 'z', 'm.moved': true } });
    assert.deepEqual(
      (await c.find({ 'm.site': 'z' }, { sort: { _id: 1 } }).toArray()).map((d) => [
        d['_id'],
        d['m'],
      ]),
      [
        [1, { site: 'z', moved: true }],
        [2, { site: 'z', moved: true }],
      ],
    );
    await expectServerCode(c.updateOne({ 'm.site': 'b' }, { $set: { 'm.x': 1 } }), InvalidOptions);
    await expectServerCode(c.updateMany({ v: 3 }, { $set: { 'm.x': 1 } }), InvalidOptions);
    await expectServerCode(c.updateMany({ 'm.site': 'b' }, { $set: { v: 9 } }), InvalidOptions);
    await expectServerCode(
      c.updateMany({ 'm.site': 'b' }, { $set: { 'm.x': 1 } }, { upsert: true }),
      InvalidOptions,
    );
    await expectServerCode(c.replaceOne({ _id: 3 }, { t: at(9) }), InvalidOptions);
    assert.deepEqual(await c.findOne({ _id: 3 }), { t: at(2), m: { site: 'b' }, _id: 3, v: 3 });

    await db.createCollection('nometa', { timeseries: { timeField: 't' } });
    await db.collection<TestDoc>('nometa').insertOne({ _id: 1, t: at(0) });
    await expectServerCode(
      db.collection<TestDoc>('nometa').updateMany({}, { $set: { x: 1 } }),
      InvalidOptions,
    );
  });

  test('indexes on the meta and time fields are built on the buckets', async () => {
    await db.createCollection('indexed', { timeseries: { timeField: 't', metaField: 'm' } });
    const c = db.collection<TestDoc>('indexed');
    await c.insertMany([
      { _id: 1, m: { k: 'a' }, t: at(0) },
      { _id: 2, m: { k: 'b' }, t: at(90) },
    ]);
    assert.equal(await c.createIndex({ 'm.k': 1, t: -1 }), 'm.k_1_t_-1');
    assert.equal(await c.createIndex({ t: 1 }, { name: 'by time' }), 'by time');
    const listed = await c.listIndexes().toArray();
    assert.deepEqual(
      listed.map((i) => [i['name'], i['key']]),
      [
        ['m.k_1_t_-1', { 'm.k': 1, t: -1 }],
        ['by time', { t: 1 }],
      ],
    );
    const onBuckets = await db.collection('system.buckets.indexed').listIndexes().toArray();
    assert.deepEqual(onBuckets.find((i) => i['name'] === 'm.k_1_t_-1')?.['key'], {
      'meta.k': 1,
      'control.max.t': -1,
      'control.min.t': -1,
    });
    // The bucket filter of a meta query can use the index.
    const plan = JSON.stringify(await c.find({ 'm.k': 'b' }).explain());
    assert.ok(plan.includes('IXSCAN'), plan);
    assert.deepEqual(
      (await c.find({ 'm.k': 'b' }).toArray()).map((d) => d['_id']),
      [2],
    );
    // Indexes on measurement fields, and options, are not supported yet.
    await expectServerCode(c.createIndex({ v: 1 }), NotImplemented);
    await expectServerCode(c.createIndex({ 'm.k': 1 }, { unique: true }), NotImplemented);
    await db.command({ dropIndexes: 'indexed', index: { t: 1 } });
    await c.dropIndex('m.k_1_t_-1');
    assert.deepEqual(await c.listIndexes().toArray(), []);
  });

  test('TTL removes buckets whose newest measurement expired', async () => {
    await db.createCollection('expiring', {
      timeseries: { timeField: 't', metaField: 'm' },
      expireAfterSeconds: 3600,
    });
    const c = db.collection<TestDoc>('expiring');
    await c.insertMany([
      { _id: 1, m: 'old', t: new Date(Date.now() - 3 * 86_400_000) },
      { _id: 2, m: 'new', t: new Date() },
    ]);
    const admin = ts.client.db('admin');
    const was = await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 });
    await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
    try {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await c.countDocuments()) !== 1)
        await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        (await c.find().toArray()).map((d) => d['_id']),
        [2],
      );
    } finally {
      await admin.command({ setParameter: 1, ttlMonitorSleepSecs: was['ttlMonitorSleepSecs'] });
    }
  });

  test('drop removes both; rename, change streams and transactions are refused', async () => {
    await db.createCollection('gone', { timeseries: { timeField: 't' } });
    await db.collection<TestDoc>('gone').insertOne({ _id: 1, t: at(0) });
    await expectServerCode(
      ts.client.db('admin').command({
        renameCollection: 'timeseries_test.gone',
        to: 'timeseries_test.gone2',
      }),
      CommandNotSupportedOnView,
    );
    await expectServerCode(
      ts.client.db('admin').command({
        renameCollection: 'timeseries_test.system.buckets.gone',
        to: 'timeseries_test.gone2',
      }),
      IllegalOperation,
    );
    await expectServerCode(
      db
        .collection('gone')
        .aggregate([{ $changeStream: {} }])
        .toArray(),
      CommandNotSupportedOnView,
    );
    const session = ts.client.startSession();
    try {
      session.startTransaction();
      await expectServerCode(
        db.collection<TestDoc>('gone').insertOne({ _id: 2, t: at(1) }, { session }),
        OperationNotSupportedInTransaction,
      );
      await session.abortTransaction().catch(() => undefined);
    } finally {
      await session.endSession();
    }
    assert.equal(await db.collection('gone').drop(), true);
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    assert.equal(names.includes('gone'), false);
    assert.equal(names.includes('system.buckets.gone'), false);
    // The server still serves this client.
    assert.equal(await db.collection('sensors').countDocuments(), 6);
  });
});
