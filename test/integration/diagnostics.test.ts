// Diagnostics through the official driver: command spellings, dbStats / collStats sizes,
// validate (and repair on a standalone), the profiler and system.profile, the slow-query log
// line, getLog, log verbosity parameters, fsync lock, applyOps, dataSize, top, serverStatus,
// hostInfo, listCommands, $collStats and the Prometheus endpoint; bad input for each.

import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { Double as BDouble, Int32 as BInt32 } from 'bson';
import { Double, Int32, MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode, freshCollection } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';
import { Server } from '../../src/server/server.js';
import { Logger } from '../../src/log.js';
import { encodeRecordId } from '../../src/catalog/record-id.js';
import type { BsonValue } from '../../src/bson/types.js';

const lines: string[] = [];
const logger = new Logger({ write: (l) => lines.push(l) });
function logged(id: number): Array<{ attr: Record<string, unknown> }> {
  return lines
    .filter((l) => l.includes(`"id":${id},`))
    .map((l) => JSON.parse(l) as { attr: Record<string, unknown> });
}

describe('diagnostics', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ logger });
  });
  after(() => ts.stop());

  it('answers the command spellings mongod accepts', async () => {
    const db = ts.client.db('spell');
    await freshCollection(db, 'c', [{ _id: 1 }]);
    for (const name of ['dbStats', 'dbstats'])
      assert.equal((await db.command({ [name]: 1 }))['db'], 'spell');
    for (const name of ['collStats', 'collstats'])
      assert.equal(Number((await db.command({ [name]: 'c' }))['count']), 1);
    for (const name of ['dataSize', 'datasize'])
      assert.equal(Number((await db.command({ [name]: 'spell.c' }))['numObjects']), 1);
    assert.ok((await db.command({ buildinfo: 1 }))['version']);
  });

  it('dbStats and collStats report real sizes, per index, scaled', async () => {
    const db = ts.client.db('sizes');
    const c = await freshCollection(
      db,
      'c',
      Array.from({ length: 50 }, (_, i) => ({ _id: i, name: `n${i}`, pad: 'x'.repeat(100) })),
    );
    await c.createIndex({ name: 1 });
    const stats = await db.command({ dbStats: 1 });
    assert.equal(Number(stats['objects']), 50);
    assert.equal(Number(stats['indexes']), 2);
    assert.ok(Number(stats['indexSize']) > 0, 'indexSize with two indexes');
    assert.ok(Number(stats['dataSize']) > 50 * 100);
    assert.ok(Number(stats['storageSize']) >= Number(stats['dataSize']));
    assert.equal(
      Number(stats['totalSize']),
      Number(stats['storageSize']) + Number(stats['indexSize']),
    );
    const cs = await db.command({ collStats: 'c' });
    const sizes = cs['indexSizes'] as Document;
    assert.deepEqual(Object.keys(sizes), ['_id_', 'name_1']);
    assert.ok(Number(sizes['_id_']) > 0 && Number(sizes['name_1']) > 0);
    assert.equal(Number(cs['totalIndexSize']), Number(sizes['_id_']) + Number(sizes['name_1']));
    assert.equal(Number(cs['nindexes']), 2);
    assert.equal(Number(cs['avgObjSize']), Math.trunc(Number(cs['size']) / 50));
    const scaled = await db.command({ collStats: 'c', scale: 1024 });
    assert.equal(Number(scaled['size']), Math.trunc(Number(cs['size']) / 1024));
    assert.equal(Number(scaled['scaleFactor']), 1024);
    // A missing collection answers zeros, as mongod's.
    assert.equal(Number((await db.command({ collStats: 'nope' }))['count']), 0);
    await expectServerCode(db.command({ collStats: 'c', scale: 0 }), 51024);
    await expectServerCode(db.command({ dbStats: 1, scale: 'x' }), 14);
    await expectServerCode(db.command({ dbStats: 1, bogus: 1 }), 40415);
    // After deletes the sizes go down.
    await c.deleteMany({ _id: { $lt: 25 } });
    assert.ok(Number((await db.command({ collStats: 'c' }))['size']) < Number(cs['size']));
  });

  it('$collStats reports storageStats sizes and latencyStats counters', async () => {
    const db = ts.client.db('cstats');
    const c = await freshCollection(db, 'c', [{ _id: 1 }, { _id: 2 }]);
    await c.find({}).toArray();
    const [out] = await c
      .aggregate([{ $collStats: { storageStats: { scale: 1 }, latencyStats: {}, count: {} } }])
      .toArray();
    assert.ok(out !== undefined);
    const storage = out['storageStats'] as Document;
    assert.equal(Number(storage['count']), 2);
    assert.ok(Number(storage['totalIndexSize']) > 0);
    const latency = out['latencyStats'] as Document;
    assert.ok(Number((latency['reads'] as Document)['ops']) >= 1);
    assert.ok(Number((latency['writes'] as Document)['ops']) >= 1);
    await expectServerCode(
      c.aggregate([{ $collStats: { storageStats: { scale: 0 } } }]).toArray(),
      51024,
    );
    await expectServerCode(
      c.aggregate([{ $collStats: { storageStats: { x: 1 } } }]).toArray(),
      40415,
    );
  });

  it('validate checks records against indexes', async () => {
    const db = ts.client.db('val');
    const c = await freshCollection(db, 'c', [
      { _id: 1, a: 1 },
      { _id: 2, a: [2, 3] },
    ]);
    await c.createIndex({ a: 1 });
    const r = await db.command({ validate: 'c', full: true });
    assert.equal(r['valid'], true);
    assert.equal(Number(r['nrecords']), 2);
    assert.equal(Number(r['nIndexes']), 2);
    assert.deepEqual(r['keysPerIndex'], { _id_: 2, a_1: 3 });
    assert.deepEqual(r['indexDetails'], { _id_: { valid: true }, a_1: { valid: true } });
    assert.deepEqual(r['errors'], []);
    assert.deepEqual(r['missingIndexEntries'], []);
    await expectServerCode(db.command({ validate: 'missing' }), 26);
    await expectServerCode(db.command({ validate: 'c', repair: true }), 72); // replica set
    await expectServerCode(db.command({ validate: 'c', background: true, full: true }), 72);
    await expectServerCode(db.command({ validate: 5 }), 73);
    await db.createCollection('v', { viewOn: 'c', pipeline: [] });
    await expectServerCode(db.command({ validate: 'v' }), 166);
  });

  it('profile and system.profile: levels, slowms, filter, sampleRate', async () => {
    const db = ts.client.db('prof');
    const c = await freshCollection(db, 'c', [
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ]);
    await c.createIndex({ a: 1 });
    const was = await db.command({ profile: 2 });
    assert.equal(was['was'], 0);
    assert.equal(was['slowms'], 100);
    assert.equal(was['sampleRate'], 1);
    await c.find({ a: 2 }).toArray();
    await c.updateOne({ _id: 1 }, { $set: { b: 1 } });
    await db.command({ profile: 0 });
    const entries = await db.collection('system.profile').find({ ns: 'prof.c' }).toArray();
    const query = entries.find((e) => e['op'] === 'query');
    assert.ok(query !== undefined, 'the find is profiled');
    assert.equal(query['planSummary'], 'IXSCAN { a: 1 }');
    // queryHash and planCacheKey, as explain reports them for the same query.
    const planner = (await c.find({ a: 2 }).explain())['queryPlanner'] as Document;
    assert.match(String(query['queryHash']), /^[0-9A-F]{8}$/);
    assert.equal(query['queryHash'], planner['queryHash']);
    assert.equal(query['planCacheKey'], planner['planCacheKey']);
    assert.equal(Number(query['keysExamined']), 1);
    assert.equal(Number(query['docsExamined']), 1);
    assert.equal(Number(query['nreturned']), 1);
    assert.ok(Number(query['responseLength']) > 0);
    assert.ok(query['ts'] instanceof Date);
    assert.equal(query['client'], '127.0.0.1');
    assert.equal((query['command'] as Document)['find'], 'c');
    const update = entries.find((e) => e['op'] === 'update');
    assert.equal(Number(update?.['nModified']), 1);
    assert.equal(Number(update?.['nMatched']), 1);
    const status = await db.command({ profile: -1 });
    assert.equal(status['was'], 0);
    // A filter: only operations returning two or more documents are profiled.
    await db.collection('system.profile').drop();
    const f = await db.command({ profile: 1, filter: { nreturned: { $gte: 2 } } });
    assert.ok(typeof f['note'] === 'string');
    await c.find({ a: 1 }).toArray();
    await c.find({}).toArray();
    const filtered = await db.collection('system.profile').find({ op: 'query' }).toArray();
    assert.equal(filtered.length, 1);
    assert.equal(Number(filtered[0]?.['nreturned']), 2);
    assert.deepEqual((await db.command({ profile: 0, filter: 'unset' }))['filter'], {
      nreturned: { $gte: 2 },
    });
    await expectServerCode(db.command({ profile: 'x' }), 14);
    await expectServerCode(db.command({ profile: 1, sampleRate: new Double(2) }), 2);
    await expectServerCode(db.command({ profile: 1, sampleRate: new Int32(1) }), 14);
    await expectServerCode(db.command({ profile: 1, slowms: 'x' }), 14);
    await expectServerCode(db.command({ profile: 1, filter: 5 }), 2);
    await expectServerCode(db.command({ profile: 1, filter: { notAField: 1 } }), 4910200);
    await expectServerCode(db.command({ profile: 1, filter: { $bogus: 1 } }), 2);
    assert.equal((await db.command({ profile: -1 }))['was'], 0, 'bad input changed nothing');
    // The driver's helper sends the same command.
    await db.setProfilingLevel('slow_only');
    assert.equal(await db.profilingLevel(), 'slow_only');
    await db.setProfilingLevel('off');
  });

  it('an $in list hashes by its shape, not its values or their number', async () => {
    // mongod's plan cache encoding of $in does not depend on the list; ours hashed one shape
    // per value (twice, in the slow-query line of a 20k-value $in).
    const db = ts.client.db('inhash');
    const c = await freshCollection(db, 'c', [{ _id: 1, a: 1 }]);
    await c.createIndex({ a: 1 });
    const planner = async (filter: Document) =>
      (await c.find(filter).explain())['queryPlanner'] as Document;
    const two = await planner({ a: { $in: [1, 2] } });
    const many = await planner({ a: { $in: Array.from({ length: 500 }, (_, i) => i) } });
    assert.match(String(two['queryHash']), /^[0-9A-F]{8}$/);
    assert.equal(many['queryHash'], two['queryHash']);
    assert.equal(many['planCacheKey'], two['planCacheKey']);
    const nin = await planner({ a: { $nin: [1, 2, 3] } });
    // (A one-value list is an equality to mongod's normalizer, so another shape: two values.)
    assert.equal(nin['queryHash'], (await planner({ a: { $nin: [4, 5] } }))['queryHash']);
    // Another shape of element, another shape; $in and $nin differ; so do other fields.
    assert.notEqual((await planner({ a: { $in: [{ x: 1 }] } }))['queryHash'], two['queryHash']);
    assert.notEqual(nin['queryHash'], two['queryHash']);
    assert.notEqual((await planner({ b: { $in: [1, 2] } }))['queryHash'], two['queryHash']);
    // $or keeps one shape per clause.
    assert.notEqual(
      (await planner({ $or: [{ a: 1 }, { a: 2 }] }))['queryHash'],
      (await planner({ $or: [{ a: 1 }] }))['queryHash'],
    );
    // The profiled find shows the same hash and its plan summary.
    await db.command({ profile: 2 });
    try {
      await c.find({ a: { $in: Array.from({ length: 300 }, (_, i) => i) } }).toArray();
    } finally {
      await db.command({ profile: 0 });
    }
    const query = await db.collection('system.profile').findOne({ ns: 'inhash.c', op: 'query' });
    assert.equal(query?.['queryHash'], two['queryHash']);
    assert.equal(query?.['planSummary'], 'IXSCAN { a: 1 }');
  });

  it('logs a slow query (51803) and profiles it at level 1 with slowms 0', async () => {
    const db = ts.client.db('slow');
    const c = await freshCollection(db, 'c', [{ _id: 1, secret: 'kept' }]);
    await db.command({ profile: 1, slowms: 0 });
    try {
      await c.aggregate([{ $match: { $expr: { $eq: [{ $range: [0, 20000] }, []] } } }]).toArray();
      // At slowms 0 every operation is slow, 0 ms ones too (mongod compares durationMillis >=
      // slowms): this point read is logged and profiled however fast it was.
      await c.find({ _id: 1 }).comment('trace-me').toArray();
    } finally {
      await db.command({ profile: 0, slowms: 100 });
    }
    const slow = logged(51803).filter((e) => e.attr['ns'] === 'slow.c');
    assert.ok(slow.length >= 1, 'a Slow query line');
    const line = slow.at(-1);
    assert.ok(line !== undefined);
    assert.equal(line.attr['type'], 'command');
    assert.ok(typeof line.attr['durationMillis'] === 'number');
    assert.ok(typeof line.attr['planSummary'] === 'string');
    const planner = (await c.find({ _id: 1 }).explain())['queryPlanner'] as Document;
    assert.equal(line.attr['queryHash'], planner['queryHash']);
    assert.equal(line.attr['planCacheKey'], planner['planCacheKey']);
    assert.ok('docsExamined' in line.attr && 'nreturned' in line.attr);
    assert.equal((line.attr['command'] as Document)['find'], 'c');
    assert.equal((line.attr['command'] as Document)['comment'], 'trace-me');
    assert.ok(slow.some((e) => (e.attr['command'] as Document)['aggregate'] === 'c'));
    const profiled = await db.collection('system.profile').find({ ns: 'slow.c' }).toArray();
    assert.ok(profiled.some((e) => (e['command'] as Document)['aggregate'] === 'c'));
    assert.ok(profiled.some((e) => (e['command'] as Document)['comment'] === 'trace-me'));
  });

  it('counts the yields of a long read (numYields / numYield)', async () => {
    const db = ts.client.db('yields');
    const c = await freshCollection(
      db,
      'c',
      Array.from({ length: 2000 }, (_, i) => ({ _id: i, a: i })),
    );
    // ~8M array elements built in all: far longer than one execution slice (a few ms).
    const slow = { $size: { $range: [0, { $add: [4000, { $multiply: ['$a', 0] }] }] } };
    await db.command({ profile: 2, slowms: 0 });
    try {
      const found = await c
        .find({ $expr: { $lt: [slow, 0] } })
        .comment('yielder')
        .toArray();
      assert.deepEqual(found, []);
    } finally {
      await db.command({ profile: 0, slowms: 100 });
    }
    const [entry] = await db
      .collection('system.profile')
      .find({ ns: 'yields.c', 'command.comment': 'yielder' })
      .toArray();
    assert.ok(entry !== undefined, 'profiled');
    assert.equal(entry['docsExamined'], 2000);
    assert.ok(typeof entry['numYield'] === 'number' && entry['numYield'] > 0, 'yielded');
    const line = logged(51803).find(
      (e) => (e.attr['command'] as Document | undefined)?.['comment'] === 'yielder',
    );
    assert.ok(line !== undefined, 'logged: past slowms 0');
    assert.equal(line.attr['numYields'], entry['numYield']);
  });

  it('getLog returns recent lines; log parameters take effect', async () => {
    const admin = ts.client.db('admin');
    assert.deepEqual((await admin.command({ getLog: '*' }))['names'], [
      'global',
      'startupWarnings',
    ]);
    const global = await admin.command({ getLog: 'global' });
    const log = global['log'] as string[];
    assert.ok(log.length > 0 && Number(global['totalLinesWritten']) >= log.length);
    assert.ok(
      log.some((l) => l.includes('"id":22943')),
      'connection accepted lines',
    );
    assert.ok(Array.isArray((await admin.command({ getLog: 'startupWarnings' }))['log']));
    const bad = await admin.command({ getLog: 'nope' }).catch((e: unknown) => e);
    assert.ok(bad instanceof Error && /no RamLog named: nope/.test(bad.message));
    await expectServerCode(admin.command({ getLog: 5 }), 14);

    const before = lines.length;
    await admin.command({ setParameter: 1, logLevel: 1 });
    assert.equal((await admin.command({ getParameter: 1, logLevel: 1 }))['logLevel'], 1);
    await expectServerCode(ts.client.db('x').command({ nosuchcommand: 1 }), 59);
    await expectServerCode(admin.command({ collStats: 'c', scale: -1 }), 51024);
    await admin.command({ setParameter: 1, logLevel: 0 });
    const debugLines = lines.slice(before).filter((l) => l.includes('"s":"D1"'));
    assert.ok(
      debugLines.some((l) => l.includes('"id":21962')),
      'D1 lines at logLevel 1',
    );
    assert.ok(
      lines.slice(before).some((l) => l.includes('"id":51803')),
      'every operation logged at COMMAND verbosity 1',
    );
    const quietFrom = lines.length;
    await admin.command({ ping: 1 });
    assert.ok(!lines.slice(quietFrom).some((l) => l.includes('"s":"D1"')), 'back to level 0');

    await admin.command({
      setParameter: 1,
      logComponentVerbosity: { command: { verbosity: 2 }, storage: { journal: 1 } },
    });
    const v = (await admin.command({ getParameter: 1, logComponentVerbosity: 1 }))[
      'logComponentVerbosity'
    ] as Document;
    assert.equal((v['command'] as Document)['verbosity'], 2);
    assert.equal(((v['storage'] as Document)['journal'] as Document)['verbosity'], 1);
    assert.equal((v['query'] as Document)['verbosity'], -1);
    const d2From = lines.length;
    await ts.client.db('x').command({ ping: 1 });
    assert.ok(
      lines.slice(d2From).some((l) => l.includes('"id":21965')),
      'D2 command lines',
    );
    await admin.command({ setParameter: 1, logComponentVerbosity: { command: { verbosity: -1 } } });
    await expectServerCode(
      admin.command({ setParameter: 1, logComponentVerbosity: { nope: { verbosity: 1 } } }),
      2,
    );
    await expectServerCode(admin.command({ setParameter: 1, logLevel: 'x' }), 2);
    await expectServerCode(admin.command({ setParameter: 1, logLevel: -1 }), 2);
    assert.equal((await admin.command({ getParameter: 1, logLevel: 1 }))['logLevel'], 0);
  });

  it('fsync lock holds writes until fsyncUnlock; reads go on', async () => {
    const admin = ts.client.db('admin');
    const c = await freshCollection(ts.client.db('fs'), 'c', [{ _id: 1 }]);
    assert.equal(Number((await admin.command({ fsync: 1 }))['numFiles']), 1);
    const locked = await admin.command({ fsync: 1, lock: true });
    assert.equal(Number(locked['lockCount']), 1);
    let inserted = false;
    const pending = c.insertOne({ _id: 2 }).then(() => (inserted = true));
    try {
      assert.equal(await c.countDocuments(), 1, 'reads go on');
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(inserted, false, 'the write waits');
      await expectServerCode(
        ts.client.db('fs').command({ insert: 'c', documents: [{ _id: 3 }], maxTimeMS: 50 }),
        50,
      );
      assert.equal(Number((await admin.command({ fsync: 1, lock: true }))['lockCount']), 2);
      assert.equal(Number((await admin.command({ fsyncUnlock: 1 }))['lockCount']), 1);
      assert.equal(inserted, false);
    } finally {
      assert.equal(Number((await admin.command({ fsyncUnlock: 1 }))['lockCount']), 0);
    }
    await pending;
    assert.equal(await c.countDocuments(), 2);
    const e = await admin.command({ fsyncUnlock: 1 }).catch((err: unknown) => err);
    assert.ok(e instanceof Error && /fsyncUnlock called when not locked/.test(e.message));
    await expectServerCode(ts.client.db('fs').command({ fsync: 1 }), 13);
  });

  it('applyOps applies CRUD entries atomically, refusing what mongod refuses', async () => {
    const admin = ts.client.db('admin');
    const c = await freshCollection(ts.client.db('ops'), 'c', [
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ]);
    const r = await admin.command({
      applyOps: [
        { op: 'i', ns: 'ops.c', o: { _id: 3, a: 3 } },
        { op: 'u', ns: 'ops.c', o2: { _id: 1 }, o: { $v: 2, diff: { u: { a: 10 } } } },
        { op: 'u', ns: 'ops.c', o2: { _id: 4 }, o: { _id: 4, a: 4 } },
        { op: 'd', ns: 'ops.c', o: { _id: 2 } },
        { op: 'n', ns: '', o: { msg: 'noop' } },
      ],
    });
    assert.equal(r['applied'], 5);
    assert.deepEqual(r['results'], [true, true, true, true, true]);
    assert.deepEqual(await c.find().sort({ _id: 1 }).toArray(), [
      { _id: 1, a: 10 },
      { _id: 3, a: 3 },
      { _id: 4, a: 4 },
    ]);
    // An insert of an _id already there replaces it (idempotent, as mongod's oplog application).
    await admin.command({ applyOps: [{ op: 'i', ns: 'ops.c', o: { _id: 3, a: 33 } }] });
    assert.deepEqual(await c.findOne({ _id: 3 }), { _id: 3, a: 33 });
    await c.createIndex({ u: 1 }, { unique: true, sparse: true });
    const snapshot = await c.find().sort({ _id: 1 }).toArray();
    const bad: Array<[Document, number]> = [
      [{ applyOps: 'x' }, 14],
      [{ applyOps: [1] }, 9],
      [{ applyOps: [{ ns: 'ops.c', o: {} }] }, 20],
      [{ applyOps: [{ op: 'i', o: {} }] }, 20],
      [{ applyOps: [{ op: 'x', ns: 'ops.c', o: {} }] }, 2],
      [{ applyOps: [{ op: 'c', ns: 'ops.$cmd', o: { create: 'd' } }] }, 238],
      [{ applyOps: [{ op: 'i', ns: 'ops.missing', o: { _id: 1 } }] }, 26],
      [{ applyOps: [{ op: 'u', ns: 'ops.c', o2: {}, o: { _id: 1 } }] }, 4],
      [{ applyOps: [{ op: 'u', ns: 'ops.c', o2: { _id: 1 }, o: { $set: { a: 1 } } }] }, 4772600],
      [
        {
          applyOps: [{ op: 'u', ns: 'ops.c', o2: { _id: 9 }, o: { _id: 9 }, b: false }],
          alwaysUpsert: false,
        },
        218,
      ],
      // Atomic: the insert before the failing entry is not kept.
      [
        {
          applyOps: [
            { op: 'i', ns: 'ops.c', o: { _id: 7, u: 1 } },
            { op: 'i', ns: 'ops.c', o: { _id: 8, u: 1 } },
          ],
        },
        11000,
      ],
      [
        {
          applyOps: [{ op: 'i', ns: 'ops.c', o: { _id: 8 } }],
          preCondition: [{ ns: 'ops.c', q: { _id: 1 }, res: { a: 99 } }],
        },
        2,
      ],
    ];
    for (const [cmd, code] of bad) await expectServerCode(admin.command(cmd), code);
    assert.deepEqual(await c.find().sort({ _id: 1 }).toArray(), snapshot, 'nothing changed');
  });

  it('dataSize sizes a collection or an index range', async () => {
    const db = ts.client.db('ds');
    const c = await freshCollection(
      db,
      'c',
      Array.from({ length: 10 }, (_, i) => ({ _id: i, k: i })),
    );
    await c.createIndex({ k: 1 });
    const all = await db.command({ dataSize: 'ds.c' });
    assert.equal(Number(all['numObjects']), 10);
    const range = await db.command({
      dataSize: 'ds.c',
      keyPattern: { k: 1 },
      min: { k: 2 },
      max: { k: 5 },
    });
    assert.equal(Number(range['numObjects']), 3);
    assert.equal(Number(range['size']), (Number(all['size']) / 10) * 3);
    const capped = await db.command({ dataSize: 'ds.c', maxObjects: 2 });
    assert.equal(capped['maxReached'], true);
    assert.equal(Number((await db.command({ dataSize: 'ds.none' }))['size']), 0);
    const half = await db.command({ dataSize: 'ds.c', min: { k: 1 } }).catch((e: unknown) => e);
    assert.ok(half instanceof Error && /only one of min or max/.test(half.message));
    await expectServerCode(db.command({ dataSize: 5 }), 73);
    await expectServerCode(db.command({ dataSize: 'ds.c', min: 5, max: 6 }), 14);
  });

  it('top, serverStatus, hostInfo and listCommands report real figures', async () => {
    const admin = ts.client.db('admin');
    const db = ts.client.db('stat');
    const before = await admin.command({ serverStatus: 1 });
    const c = await freshCollection(db, 'c', []);
    await c.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    await c.find({}).toArray();
    await expectServerCode(db.command({ find: 'c', filter: 5 }), 14);
    const after = await admin.command({ serverStatus: 1 });
    const oc = (s: Document, k: string): number => Number((s['opcounters'] as Document)[k]);
    assert.ok(oc(after, 'insert') - oc(before, 'insert') >= 3, 'insert counts documents');
    assert.ok(oc(after, 'query') - oc(before, 'query') >= 2);
    const cmd = (s: Document, name: string, k: string): number =>
      Number(
        (((s['metrics'] as Document)['commands'] as Document)[name] as Document | undefined)?.[k] ??
          0,
      );
    assert.ok(cmd(after, 'find', 'failed') - cmd(before, 'find', 'failed') >= 1);
    assert.ok(cmd(after, 'insert', 'total') - cmd(before, 'insert', 'total') >= 1);
    const doc = (s: Document, k: string): number =>
      Number(((s['metrics'] as Document)['document'] as Document)[k]);
    assert.ok(doc(after, 'inserted') - doc(before, 'inserted') >= 3);
    assert.ok(doc(after, 'returned') - doc(before, 'returned') >= 3);
    const net = after['network'] as Document;
    assert.ok(Number(net['bytesIn']) > Number((before['network'] as Document)['bytesIn']));
    assert.ok(Number(net['numRequests']) > 0 && Number(net['bytesOut']) > 0);
    assert.ok(Number((after['mem'] as Document)['resident']) > 0);
    assert.ok(
      Number((after['mem'] as Document)['virtual']) >=
        Number((after['mem'] as Document)['resident']),
    );
    assert.ok(Number((after['connections'] as Document)['current']) >= 1);
    assert.ok(Number(after['uptimeMillis']) >= 0 && after['localTime'] instanceof Date);
    const lean = await admin.command({ serverStatus: 1, repl: 0, metrics: 0 });
    assert.ok(!('metrics' in lean) && !('repl' in lean) && 'opcounters' in lean);

    const top = (await admin.command({ top: 1 }))['totals'] as Document;
    const entry = top['stat.c'] as Document;
    assert.ok(Number((entry['insert'] as Document)['count']) >= 1);
    assert.ok(Number((entry['queries'] as Document)['count']) >= 1);
    assert.ok(Number((entry['total'] as Document)['time']) > 0);
    await expectServerCode(db.command({ top: 1 }), 13);

    const host = await admin.command({ hostInfo: 1 });
    assert.ok(Number((host['system'] as Document)['numCores']) >= 1);
    assert.ok(Number((host['system'] as Document)['memSizeMB']) > 0);
    assert.equal(typeof (host['os'] as Document)['name'], 'string');

    const list = (await admin.command({ listCommands: 1 }))['commands'] as Document;
    for (const name of [
      'validate',
      'profile',
      'top',
      'fsync',
      'fsyncUnlock',
      'applyOps',
      'dataSize',
      'logRotate',
      'dbstats',
    ])
      assert.ok(name in list, name);
    assert.match(String((list['validate'] as Document)['help']), /Validate/);
    assert.equal((list['getLog'] as Document)['adminOnly'], true);
    assert.deepEqual((list['find'] as Document)['apiVersions'], ['1']);
  });
});

describe('validate repair and the metrics endpoint (standalone server)', () => {
  let server: Server;
  let client: MongoClient;
  before(async () => {
    server = await Server.start({
      port: 0,
      replSet: '',
      metrics: { port: 0, bindIp: '127.0.0.1' },
    });
    client = new MongoClient(`mongodb://127.0.0.1:${server.port}/?directConnection=true`);
    await client.connect();
  });
  after(async () => {
    await client.close();
    await server.stop();
  });

  it('finds missing and extra index entries and repairs them', async () => {
    const db = client.db('rep');
    const c = db.collection<TestDoc>('c');
    await c.insertMany([
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ]);
    await c.createIndex({ a: 1 });
    const coll = server.services.catalog.get('rep', 'c');
    const index = coll?.index('a_1');
    assert.ok(coll !== undefined && index !== undefined);
    // Corrupt the index: drop one document's entry, add one for a record that does not exist.
    await server.services.engine.write(
      (txn) => {
        const rec = coll.findById(txn, new Int32(1));
        assert.ok(rec !== undefined);
        index.removeEntries(txn, index.keysFor(rec.doc, txn), rec.recordId);
        // The server's own BSON classes (the driver's are another copy of the package).
        const entry = (id: number, a: BsonValue, rid: number) =>
          index.addEntries(txn, index.keysFor({ _id: new BInt32(id), a }, txn), rid);
        entry(99, new BInt32(99), 999);
        // Values whose key needs its type information to decode: a fraction, a double 2.0.
        entry(98, new BDouble(1.5), 998);
        entry(97, new BDouble(2), 997);
      },
      { durable: true },
    );
    const r = await db.command({ validate: 'c' });
    assert.equal(r['valid'], false);
    assert.deepEqual(r['keysPerIndex'], { _id_: 2, a_1: 4 });
    const missing = r['missingIndexEntries'] as Document[];
    assert.equal(missing.length, 1);
    assert.equal(missing[0]?.['indexName'], 'a_1');
    assert.deepEqual(missing[0]?.['indexKey'], { a: 1 });
    assert.deepEqual(missing[0]?.['idKey'], { _id: 1 });
    const extra = r['extraIndexEntries'] as Document[];
    assert.equal(extra.length, 3);
    // In key order, with their BSON types (raw, so that a double stays a double).
    const typed = await db.command({ validate: 'c' }, { promoteValues: false });
    const keys = (typed['extraIndexEntries'] as Document[]).map((e) => e['indexKey'] as Document);
    assert.deepEqual(keys, [{ a: new Double(1.5) }, { a: new Double(2) }, { a: new Int32(99) }]);
    assert.equal((r['indexDetails'] as Document)['a_1'] !== undefined, true);
    assert.equal(((r['indexDetails'] as Document)['a_1'] as Document)['valid'], false);
    assert.ok((r['errors'] as string[]).length > 0);
    assert.match(String(r['advice']), /corrupt/);
    const fixed = await db.command({ validate: 'c', repair: true });
    assert.equal(fixed['repaired'], true);
    assert.equal(Number(fixed['numInsertedMissingIndexEntries']), 1);
    assert.equal(Number(fixed['numRemovedExtraIndexEntries']), 3);
    const again = await db.command({ validate: 'c' });
    assert.equal(again['valid'], true);
    assert.equal(await c.countDocuments({ a: 1 }), 1);
    assert.ok(encodeRecordId(1).length === 8);
  });

  it('serves Prometheus text on the metrics port', async () => {
    await client.db('m').collection<TestDoc>('c').insertOne({ _id: 1 });
    await client.db('m').collection('c').find({}).toArray();
    const port = server.metricsPort;
    assert.ok(port !== undefined);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    const text = await res.text();
    assert.match(text, /secantus_commands_total\{command="find"\} [1-9]/);
    assert.match(text, /secantus_command_duration_seconds_bucket\{le="[^"]+",command="insert"\}/);
    assert.match(text, /secantus_connections [1-9]/);
    assert.match(text, /secantus_collection_bytes\{db="m",collection="c",kind="data"\} [1-9]/);
    assert.match(text, /secantus_process_resident_memory_bytes/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
  });
});
