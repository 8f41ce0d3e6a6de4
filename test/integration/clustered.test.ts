// Clustered collections through the driver, as mongod 7.0 shows them: create with
// clusteredIndex (listCollections' options without idIndex, listIndexes' clustered index),
// expireAfterSeconds on the collection and through collMod (TTL on a date _id), _id range
// queries, and bad specifications with mongod's codes.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Long } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { collectionInfo, expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const TypeMismatch = 14;
const InvalidOptions = 72;
const InvalidIndexSpecificationOption = 197;
const MissingField = 40414;
const UnknownField = 40415;

describe('clustered collections', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('clustered_test');
  });
  after(async () => {
    await ts.stop();
  });

  test('create: listCollections and listIndexes show the clustered index', async () => {
    await db.createCollection('c1', {
      clusteredIndex: { key: { _id: 1 }, unique: true, name: 'by id' },
    });
    const info = await collectionInfo(db, 'c1');
    assert.deepEqual(info.options, {
      clusteredIndex: { v: 2, key: { _id: 1 }, name: 'by id', unique: true },
    });
    assert.equal(info.idIndex, undefined);
    assert.deepEqual(await db.collection('c1').listIndexes().toArray(), [
      { v: 2, key: { _id: 1 }, name: 'by id', unique: true, clustered: true },
    ]);
    await db.createCollection('c2', { clusteredIndex: { key: { _id: 1 }, unique: true } });
    assert.equal((await collectionInfo(db, 'c2')).options?.['clusteredIndex']?.['name'], '_id_');
    // The same options again succeed; others do not.
    await db.createCollection('c2', { clusteredIndex: { key: { _id: 1 }, unique: true } });
    await expectServerCode(db.createCollection('c2'), 48);
  });

  test('documents: unique _id, range queries on _id in _id order', async () => {
    await db.createCollection('docs', { clusteredIndex: { key: { _id: 1 }, unique: true } });
    const c = db.collection<TestDoc>('docs');
    await c.insertMany([{ _id: 5 }, { _id: 1 }, { _id: 3 }, { _id: 9 }]);
    await expectServerCode(c.insertOne({ _id: 3 }), 11000);
    assert.deepEqual(
      (await c.find({ _id: { $gte: 2, $lt: 9 } }).toArray()).map((d) => d['_id']),
      [3, 5],
    );
  });

  test('explain: _id ranges as CLUSTERED_IXSCAN with minRecord / maxRecord', async () => {
    // clustered_collection_bounded_scan_common.js's cases.
    await db.createCollection('bounded', { clusteredIndex: { key: { _id: 1 }, unique: true } });
    const c = db.collection<TestDoc>('bounded');
    await c.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: i, a: -i })));
    const scan = async (filter: Document): Promise<{ plan: Document; stats: Document }> => {
      const e = await c.find(filter).explain('executionStats');
      return {
        plan: e['queryPlanner']['winningPlan'] as Document,
        stats: e['executionStats'] as Document,
      };
    };
    const eq = await scan({ _id: 5 });
    assert.deepEqual(eq.plan, {
      stage: 'CLUSTERED_IXSCAN',
      filter: { _id: { $eq: 5 } },
      direction: 'forward',
      minRecord: 5,
      maxRecord: 5,
    });
    assert.equal(eq.stats['nReturned'], 1);
    assert.equal(eq.stats['executionStages']['stage'], 'CLUSTERED_IXSCAN');
    assert.equal(eq.stats['executionStages']['docsExamined'], 1);
    const range = await scan({ _id: { $gte: 20, $lt: 40 } });
    assert.equal(range.plan['stage'], 'CLUSTERED_IXSCAN');
    assert.equal(range.plan['minRecord'], 20);
    assert.equal(range.plan['maxRecord'], 40);
    assert.equal(range.stats['nReturned'], 20);
    // An end bounded by the type bracket: the numbers' ends.
    const lt = await scan({ _id: { $lt: 10 } });
    assert.equal(lt.plan['maxRecord'], 10);
    assert.ok(Number.isNaN(lt.plan['minRecord']));
    assert.equal(lt.stats['nReturned'], 10);
    const gt = await scan({ _id: { $gt: 89 } });
    assert.equal(gt.plan['minRecord'], 89);
    assert.equal(gt.plan['maxRecord'], Infinity);
    assert.equal(gt.stats['nReturned'], 10);
    const inList = await scan({ _id: { $in: [10, 20, 30] } });
    assert.equal(inList.plan['minRecord'], 10);
    assert.equal(inList.plan['maxRecord'], 30);
    assert.equal(inList.stats['nReturned'], 3);
    // A filter on another field: a plain collection scan without record bounds.
    const other = await scan({ a: { $gt: -10 } });
    assert.equal(other.plan['stage'], 'COLLSCAN');
    assert.equal(other.plan['minRecord'], undefined);
    assert.equal(other.stats['nReturned'], 10);
    // Sorted by _id backward, a projection of _id alone (not covered: no _id index).
    const back = c.find({ _id: { $gt: 95 } }, { projection: { _id: 1 } }).sort({ _id: -1 });
    const backPlan = (await back.explain('queryPlanner'))['queryPlanner']['winningPlan'];
    assert.equal(backPlan['stage'], 'PROJECTION_SIMPLE');
    assert.equal(backPlan['inputStage']['stage'], 'CLUSTERED_IXSCAN');
    assert.equal(backPlan['inputStage']['direction'], 'backward');
    assert.deepEqual(
      (await back.toArray()).map((d) => d._id),
      [99, 98, 97, 96],
    );
    // A plain collection keeps IDHACK and IXSCAN.
    const plain = db.collection<TestDoc>('unclustered');
    await plain.insertMany([{ _id: 1 }, { _id: 2 }]);
    const idhack = await plain.find({ _id: 1 }).explain('queryPlanner');
    assert.equal(idhack['queryPlanner']['winningPlan']['stage'], 'IDHACK');
    const ixscan = await plain.find({ _id: { $gt: 0 } }).explain('queryPlanner');
    assert.equal(ixscan['queryPlanner']['winningPlan']['inputStage']['stage'], 'IXSCAN');
  });

  test('expireAfterSeconds: stored as a long, changed and turned off by collMod', async () => {
    await db.createCollection('ttl', {
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 3600,
    });
    const raw = await db.command(
      { listCollections: 1, filter: { name: 'ttl' } },
      { promoteLongs: false },
    );
    const ttl = raw['cursor']['firstBatch'][0]['options']['expireAfterSeconds'];
    assert.ok(ttl instanceof Long, String(ttl));
    assert.equal(Number(ttl), 3600);
    const [idx] = await db.collection('ttl').listIndexes().toArray();
    assert.equal(Number(idx?.['expireAfterSeconds']), 3600);
    await db.command({ collMod: 'ttl', expireAfterSeconds: 10 });
    assert.equal(Number((await collectionInfo(db, 'ttl')).options?.['expireAfterSeconds']), 10);
    await db.command({ collMod: 'ttl', expireAfterSeconds: 'off' });
    assert.equal((await collectionInfo(db, 'ttl')).options?.['expireAfterSeconds'], undefined);
    await expectServerCode(db.command({ collMod: 'ttl', expireAfterSeconds: -1 }), InvalidOptions);
    await expectServerCode(db.command({ collMod: 'ttl', expireAfterSeconds: 'x' }), InvalidOptions);
    await db.createCollection('plainttl');
    await expectServerCode(
      db.command({ collMod: 'plainttl', expireAfterSeconds: 5 }),
      InvalidOptions,
    );
  });

  test('the TTL monitor deletes documents whose _id is an old date', async () => {
    await db.createCollection('expiring', {
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 60,
    });
    const c = db.collection<TestDoc>('expiring');
    await c.insertMany([
      { _id: new Date(0) },
      { _id: new Date(Date.now() + 3_600_000) },
      { _id: 7 },
    ]);
    const admin = ts.client.db('admin');
    const was = await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 });
    await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
    try {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await c.countDocuments()) !== 2)
        await new Promise((r) => setTimeout(r, 100));
      const left = (await c.find().toArray()).map((d) => d['_id']);
      assert.equal(left.length, 2);
      assert.ok(left.includes(7));
      assert.equal(
        left.some((v) => v instanceof Date && v.getTime() === 0),
        false,
      );
    } finally {
      await admin.command({ setParameter: 1, ttlMonitorSleepSecs: was['ttlMonitorSleepSecs'] });
    }
  });

  test('bad specifications answer mongod codes and create nothing', async () => {
    const bad = async (name: string, options: Record<string, unknown>, code: number) =>
      expectServerCode(db.command({ create: name, ...options }), code);
    await bad(
      'b1',
      { clusteredIndex: { key: { a: 1 }, unique: true } },
      InvalidIndexSpecificationOption,
    );
    await bad('b2', { clusteredIndex: { key: { _id: 1 }, unique: false } }, 5979700);
    await bad('b3', { clusteredIndex: { key: { _id: 1 } } }, MissingField);
    await bad('b4', { clusteredIndex: { key: { _id: 1 }, unique: true, x: 1 } }, UnknownField);
    await bad('b5', { clusteredIndex: true }, 5979703);
    await bad('b6', { clusteredIndex: { key: { _id: 1 }, unique: true, v: 1 } }, 5979704);
    await bad('b7', { clusteredIndex: 'x' }, TypeMismatch);
    await bad('b8', { clusteredIndex: { key: { _id: 1 }, unique: true }, size: 1000 }, 6049200);
    await bad('b9', { expireAfterSeconds: 10 }, InvalidOptions);
    await bad(
      'b10',
      { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: -5 },
      InvalidOptions,
    );
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    assert.equal(
      names.some((n) => /^b\d+$/.test(n)),
      false,
    );
  });
});
