// Time-series inserts grouped into buckets per batch, as mongod's bucket catalog groups them:
// an insertMany writes each bucket it touches once per chunk of statements (one oplog entry
// per bucket, not one per measurement), buckets split at the measurement count and size
// limits and at the time span, a stored bucket is extended by a later batch, and ordered /
// unordered batches keep their error semantics and writeErrors indexes.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoBulkWriteError } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { limits } from '../../src/limits.js';

const t0 = Date.UTC(2024, 0, 1, 0, 0, 0);
const at = (s: number): Date => new Date(t0 + s * 1000);

describe('time-series inserts in batches', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('ts_batch');
  });
  after(async () => {
    await ts.stop();
  });

  /** Oplog entries written on a namespace since `after` (a count of bucket writes). */
  async function bucketWrites(ns: string): Promise<Document[]> {
    return ts.client.db('local').collection('oplog.rs').find({ ns }).toArray();
  }

  test('an insertMany writes each bucket once per chunk, grouped by meta value', async () => {
    await db.createCollection('grouped', { timeseries: { timeField: 't', metaField: 'm' } });
    const c = db.collection('grouped');
    const docs = Array.from({ length: 300 }, (_, i) => ({ t: at(i), m: `s${i % 3}`, v: i }));
    const r = await c.insertMany(docs);
    assert.equal(r.insertedCount, 300);
    const writes = await bucketWrites('ts_batch.system.buckets.grouped');
    // Three meta values, all within one span: three buckets, each inserted once.
    assert.deepEqual(
      writes.map((w) => w['op']),
      ['i', 'i', 'i'],
    );
    const buckets = await db.collection('system.buckets.grouped').find().toArray();
    assert.deepEqual(buckets.map((b) => b['meta']).sort(), ['s0', 's1', 's2']);
    for (const b of buckets) assert.equal(Object.keys(b['data']['v']).length, 100);
    // The view shows every measurement, in each bucket's insertion order.
    const back = await c.find({ m: 's1' }, { projection: { _id: 0 } }).toArray();
    assert.deepEqual(
      back.map((d) => d['v']),
      docs.filter((d) => d.m === 's1').map((d) => d.v),
    );
    // A later batch extends the stored buckets: one update each.
    await c.insertMany([
      { t: at(400), m: 's0', v: -1 },
      { t: at(401), m: 's0', v: -2 },
      { t: at(402), m: 's2', v: -3 },
    ]);
    const later = (await bucketWrites('ts_batch.system.buckets.grouped')).slice(3);
    assert.deepEqual(
      later.map((w) => w['op']),
      ['u', 'u'],
    );
    assert.equal(await db.collection('system.buckets.grouped').countDocuments(), 3);
    assert.equal(await c.countDocuments({ m: 's0' }), 102);
  });

  test('buckets split at the count limit, the span and across chunks', async () => {
    await db.createCollection('split', {
      timeseries: { timeField: 't', bucketMaxSpanSeconds: 3600, bucketRoundingSeconds: 3600 },
    });
    const c = db.collection('split');
    const n = limits.timeseriesBucketMeasurementsMax + limits.writeStatementsPerTxnMax + 7;
    const docs = Array.from({ length: n }, (_, i) => ({ t: at(i % 3000), i }));
    // Two more in the next span.
    docs.push({ t: at(3600), i: n }, { t: at(3601), i: n + 1 });
    await c.insertMany(docs);
    const buckets = await db
      .collection('system.buckets.split')
      .find({}, { sort: { 'control.min.t': 1 } })
      .toArray();
    const counts = buckets.map((b) => Object.keys(b['data']['i']).length);
    assert.deepEqual(
      counts.sort((a, b) => b - a),
      [limits.timeseriesBucketMeasurementsMax, n - limits.timeseriesBucketMeasurementsMax, 2],
    );
    assert.equal(await c.countDocuments(), n + 2);
    const all = await c.find({}, { projection: { _id: 0, i: 1 } }).toArray();
    assert.deepEqual(
      all.map((d) => d['i']).sort((a, b) => a - b),
      docs.map((d) => d.i),
    );
  });

  test('a measurement past the bucket size limit gets a bucket of its own', async () => {
    await db.createCollection('big', { timeseries: { timeField: 't', metaField: 'm' } });
    const c = db.collection('big');
    const blob = 'x'.repeat(limits.timeseriesBucketSizeBytesMax + 10);
    await c.insertMany([
      { t: at(0), m: 1, v: 'small' },
      { t: at(1), m: 1, v: blob },
      { t: at(2), m: 1, v: 'small too' },
    ]);
    const buckets = await db.collection('system.buckets.big').find().toArray();
    assert.deepEqual(buckets.map((b) => Object.keys(b['data']['v']).length).sort(), [1, 2]);
    assert.equal(await c.countDocuments(), 3);
  });

  test('ordered batches stop at the first bad measurement; unordered go on', async () => {
    await db.createCollection('errors', { timeseries: { timeField: 't', metaField: 'm' } });
    const c = db.collection('errors');
    const docs: Document[] = Array.from({ length: 20 }, (_, i) => ({ t: at(i), m: 'a', i }));
    delete docs[5]?.['t'];
    (docs[12] as Document)['t'] = 'not a date';
    await assert.rejects(c.insertMany(docs), (e: unknown) => {
      assert.ok(e instanceof MongoBulkWriteError);
      assert.deepEqual(
        e.writeErrors instanceof Array
          ? e.writeErrors.map((w) => [w.index, w.code])
          : [[e.writeErrors.index, e.writeErrors.code]],
        [[5, 2]],
      );
      assert.equal(e.result.insertedCount, 5);
      return true;
    });
    assert.deepEqual(
      (await c.find({}, { sort: { i: 1 } }).toArray()).map((d) => d['i']),
      [0, 1, 2, 3, 4],
    );
    await c.deleteMany({});
    await assert.rejects(c.insertMany(docs, { ordered: false }), (e: unknown) => {
      assert.ok(e instanceof MongoBulkWriteError);
      const errors = Array.isArray(e.writeErrors) ? e.writeErrors : [e.writeErrors];
      assert.deepEqual(
        errors.map((w) => [w.index, w.code]),
        [
          [5, 2],
          [12, 2],
        ],
      );
      assert.equal(e.result.insertedCount, 18);
      return true;
    });
    const stored = (await c.find({}, { sort: { i: 1 } }).toArray()).map((d) => d['i']);
    assert.deepEqual(
      stored,
      docs.map((d) => d['i']).filter((i) => i !== 5 && i !== 12),
    );
    // All of them in one bucket, written once by the unordered batch.
    assert.equal(await db.collection('system.buckets.errors').countDocuments(), 1);
  });

  test('retryable inserts are not applied twice', async () => {
    await db.createCollection('retry', { timeseries: { timeField: 't', metaField: 'm' } });
    const client = await ts.newClient({ retryWrites: true });
    const c = client.db('ts_batch').collection('retry');
    await client.db('admin').command({
      configureFailPoint: 'onPrimaryTransactionalWrite',
      mode: { times: 1 },
      data: { closeConnection: true },
    });
    await c.insertMany(Array.from({ length: 10 }, (_, i) => ({ t: at(i), m: 'r', i })));
    assert.equal(await c.countDocuments(), 10);
  });
});
