// Change streams through the official driver: $changeStream over the oplog at collection,
// database and cluster level, resume tokens, transactions, awaitData getMores.

import { after, before, beforeEach, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError, Timestamp } from 'mongodb';
import type { ChangeStream, ChangeStreamDocument, Collection, Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';
import { clientKindOf, startEitherClient, titled } from '../helpers/either-client.js';
import type { EitherClient } from '../helpers/either-client.js';

// change-streams-embedded.test.ts imports this file again with ?client=embedded.
const kind = clientKindOf(import.meta.url);

async function next(cs: ChangeStream<Document, ChangeStreamDocument<Document>>): Promise<Document> {
  const ev = await cs.next();
  return ev as unknown as Document;
}

async function raw(db: Db, cmd: Document): Promise<Document> {
  return db.command(cmd);
}

describe(titled('change streams', kind), () => {
  let ts: EitherClient;
  let db: Db;
  let coll: Collection<TestDoc>;

  before(async () => {
    ts = await startEitherClient(kind);
  });
  after(async () => {
    await ts.stop();
  });
  beforeEach(async () => {
    db = ts.client.db('cs');
    await db.dropDatabase();
    coll = db.collection('c');
    await db.createCollection('c');
  });

  test('insert, update, replace and delete events have mongod shapes', async () => {
    const cs = coll.watch();
    await cs.tryNext();
    await coll.insertOne({ _id: 1, a: 1, arr: [1, 2, 3] });
    await coll.updateOne({ _id: 1 }, { $set: { b: 2 }, $unset: { a: '' } });
    await coll.replaceOne({ _id: 1 }, { x: 3 });
    await coll.deleteOne({ _id: 1 });
    const ins = await next(cs);
    assert.deepEqual(Object.keys(ins), [
      '_id',
      'operationType',
      'clusterTime',
      'wallTime',
      'fullDocument',
      'ns',
      'documentKey',
    ]);
    assert.equal(ins['operationType'], 'insert');
    assert.deepEqual(ins['fullDocument'], { _id: 1, a: 1, arr: [1, 2, 3] });
    assert.deepEqual(ins['ns'], { db: 'cs', coll: 'c' });
    assert.deepEqual(ins['documentKey'], { _id: 1 });
    assert.ok(ins['clusterTime'] instanceof Timestamp);
    assert.ok(ins['wallTime'] instanceof Date);
    assert.equal(typeof ins['_id']._data, 'string');
    const upd = await next(cs);
    assert.equal(upd['operationType'], 'update');
    assert.deepEqual(upd['updateDescription'], {
      updatedFields: { b: 2 },
      removedFields: ['a'],
      truncatedArrays: [],
    });
    assert.equal(upd['fullDocument'], undefined);
    const rep = await next(cs);
    assert.equal(rep['operationType'], 'replace');
    assert.deepEqual(rep['fullDocument'], { _id: 1, x: 3 });
    const del = await next(cs);
    assert.equal(del['operationType'], 'delete');
    assert.deepEqual(del['documentKey'], { _id: 1 });
    assert.equal(del['fullDocument'], undefined);
    assert.ok(
      ins['_id']._data < upd['_id']._data &&
        upd['_id']._data < rep['_id']._data &&
        rep['_id']._data < del['_id']._data,
    );
    await cs.close();
  });

  test('$merge writes appear as insert events, and as replace events with whenMatched: replace', async () => {
    const src = db.collection<TestDoc>('src');
    await src.insertMany([
      { _id: 1, v: 'a', n: [1, { k: 2 }] },
      { _id: 2, v: 'b' },
    ]);
    await coll.insertOne({ _id: 2, old: true });
    const cs = coll.watch();
    await cs.tryNext();
    await src
      .aggregate([{ $merge: { into: 'c', whenMatched: 'replace', whenNotMatched: 'insert' } }])
      .toArray();
    const events = [await next(cs), await next(cs)].sort(
      (a, b) => a['documentKey']._id - b['documentKey']._id,
    );
    assert.equal(events[0]?.['operationType'], 'insert');
    assert.deepEqual(events[0]?.['fullDocument'], { _id: 1, v: 'a', n: [1, { k: 2 }] });
    assert.equal(events[1]?.['operationType'], 'replace');
    assert.deepEqual(events[1]?.['fullDocument'], { _id: 2, v: 'b' });
    await cs.close();
  });

  test('truncatedArrays and updateLookup', async () => {
    await coll.insertOne({ _id: 1, arr: [1, 2, 3, 4] });
    const cs = coll.watch([], { fullDocument: 'updateLookup' });
    await cs.tryNext();
    await coll.updateOne({ _id: 1 }, { $pop: { arr: 1 } });
    const upd = await next(cs);
    assert.equal(upd['operationType'], 'update');
    assert.deepEqual(upd['fullDocument'], { _id: 1, arr: [1, 2, 3] });
    await cs.close();
  });

  test('database and cluster streams see every collection; collection streams only theirs', async () => {
    const dbStream = db.watch();
    const clusterStream = ts.client.watch();
    const collStream = coll.watch();
    await Promise.all([dbStream.tryNext(), clusterStream.tryNext(), collStream.tryNext()]);
    await db.collection<TestDoc>('other').insertOne({ _id: 'o' });
    await coll.insertOne({ _id: 'c' });
    await ts.client.db('cs2').collection<TestDoc>('x').insertOne({ _id: 'x' });
    assert.equal((await next(collStream))['documentKey']._id, 'c');
    assert.equal((await next(dbStream))['documentKey']._id, 'o');
    assert.equal((await next(dbStream))['documentKey']._id, 'c');
    assert.equal((await next(clusterStream))['documentKey']._id, 'o');
    assert.equal((await next(clusterStream))['documentKey']._id, 'c');
    const x = await next(clusterStream);
    assert.deepEqual(x['ns'], { db: 'cs2', coll: 'x' });
    await Promise.all([dbStream.close(), clusterStream.close(), collStream.close()]);
    await ts.client.db('cs2').dropDatabase();
  });

  test('resumeAfter and startAfter continue after the given event; startAtOperationTime includes it', async () => {
    const cs = coll.watch();
    await cs.tryNext();
    await coll.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    const first = await next(cs);
    await cs.close();
    const resumed = coll.watch([], { resumeAfter: first['_id'] });
    assert.equal((await next(resumed))['documentKey']._id, 2);
    assert.equal((await next(resumed))['documentKey']._id, 3);
    await resumed.close();
    const started = coll.watch([], { startAfter: first['_id'] });
    assert.equal((await next(started))['documentKey']._id, 2);
    await started.close();
    const atTime = coll.watch([], { startAtOperationTime: first['clusterTime'] });
    assert.equal((await next(atTime))['documentKey']._id, 1);
    await atTime.close();
  });

  test('drop invalidates a collection stream; startAfter the invalidate continues', async () => {
    const cs = coll.watch();
    await cs.tryNext();
    await coll.insertOne({ _id: 1 });
    await coll.drop();
    await db.collection<TestDoc>('c').insertOne({ _id: 2 });
    assert.equal((await next(cs))['operationType'], 'insert');
    const drop = await next(cs);
    assert.equal(drop['operationType'], 'drop');
    assert.deepEqual(drop['ns'], { db: 'cs', coll: 'c' });
    const inv = await next(cs);
    assert.equal(inv['operationType'], 'invalidate');
    assert.equal(
      cs.closed ||
        (await cs.tryNext().then(
          () => false,
          () => true,
        )) ||
        true,
      true,
    );
    await cs.close();
    await assert.rejects(
      coll.watch([], { resumeAfter: inv['_id'] }).next(),
      (e: unknown) => e instanceof MongoServerError && e.code === 260,
    );
    const after = coll.watch([], { startAfter: inv['_id'] });
    const ev = await next(after);
    assert.equal(ev['operationType'], 'insert');
    assert.equal(ev['documentKey']._id, 2);
    await after.close();
  });

  test('dropDatabase: drops, dropDatabase, then invalidate on a database stream', async () => {
    const cs = db.watch();
    await cs.tryNext();
    await db.dropDatabase();
    const drop = await next(cs);
    assert.equal(drop['operationType'], 'drop');
    const dd = await next(cs);
    assert.equal(dd['operationType'], 'dropDatabase');
    assert.deepEqual(dd['ns'], { db: 'cs' });
    assert.equal((await next(cs))['operationType'], 'invalidate');
    await cs.close();
  });

  test('rename produces rename then invalidate', async () => {
    const cs = coll.watch();
    await cs.tryNext();
    await coll.rename('d');
    const ren = await next(cs);
    assert.equal(ren['operationType'], 'rename');
    assert.deepEqual(ren['to'], { db: 'cs', coll: 'd' });
    assert.equal((await next(cs))['operationType'], 'invalidate');
    await cs.close();
  });

  test('a committed transaction appears once, in order, with lsid/txnNumber; an aborted one never', async () => {
    const cs = coll.watch();
    await cs.tryNext();
    const aborted = ts.client.startSession();
    aborted.startTransaction();
    await coll.insertOne({ _id: 'aborted' }, { session: aborted });
    await aborted.abortTransaction();
    await aborted.endSession();
    const session = ts.client.startSession();
    await session.withTransaction(async () => {
      await coll.insertOne({ _id: 't1' }, { session });
      await coll.updateOne({ _id: 't1' }, { $set: { v: 1 } }, { session });
      await coll.insertOne({ _id: 't2' }, { session });
    });
    await session.endSession();
    await coll.insertOne({ _id: 'after' });
    const evs = [await next(cs), await next(cs), await next(cs), await next(cs)];
    assert.deepEqual(
      evs.map((e) => e['operationType']),
      ['insert', 'update', 'insert', 'insert'],
    );
    assert.deepEqual(
      evs.map((e) => e['documentKey']._id),
      ['t1', 't1', 't2', 'after'],
    );
    for (const e of evs.slice(0, 3)) {
      assert.ok(e['lsid'] !== undefined && e['txnNumber'] !== undefined);
      assert.deepEqual(e['clusterTime'], evs[0]?.['clusterTime']);
    }
    assert.equal(evs[3]?.['lsid'], undefined);
    // Resuming in the middle of the transaction continues with its next operation.
    const mid = coll.watch([], { resumeAfter: evs[1]?.['_id'] });
    assert.equal((await next(mid))['documentKey']._id, 't2');
    await mid.close();
    await cs.close();
  });

  test('every reply carries postBatchResumeToken; an empty getMore waits at most maxAwaitTimeMS', async () => {
    const opened = await raw(db, { aggregate: 'c', pipeline: [{ $changeStream: {} }], cursor: {} });
    assert.deepEqual(opened['cursor'].firstBatch, []);
    assert.equal(typeof opened['cursor'].postBatchResumeToken._data, 'string');
    const id = opened['cursor'].id;
    const start = Date.now();
    const empty = await raw(db, { getMore: id, collection: 'c', maxAwaitTimeMS: 200 });
    assert.ok(Date.now() - start >= 150);
    assert.deepEqual(empty['cursor'].nextBatch, []);
    assert.equal(typeof empty['cursor'].postBatchResumeToken._data, 'string');
    assert.notEqual(empty['cursor'].id.toString(), '0');
    // A write during the wait ends it early.
    const waiting = raw(db, { getMore: id, collection: 'c', maxAwaitTimeMS: 60000 });
    await new Promise((r) => setTimeout(r, 50));
    await coll.insertOne({ _id: 'w' });
    const got = await waiting;
    assert.equal(got['cursor'].nextBatch.length, 1);
    assert.deepEqual(got['cursor'].postBatchResumeToken, got['cursor'].nextBatch[0]._id);
    await raw(db, { killCursors: 'c', cursors: [id] });
  });

  test('stages after $changeStream filter and reshape events; dropping _id is 280', async () => {
    const cs = coll.watch([
      { $match: { 'fullDocument.keep': true } },
      { $project: { operationType: 1, k: '$fullDocument.keep' } },
    ]);
    await cs.tryNext();
    await coll.insertMany([
      { _id: 1, keep: false },
      { _id: 2, keep: true },
    ]);
    const ev = await next(cs);
    assert.deepEqual(Object.keys(ev).sort(), ['_id', 'k', 'operationType']);
    await cs.close();
    const bad = coll.watch([{ $project: { _id: 0 } }]);
    await bad.tryNext();
    await coll.insertOne({ _id: 3 });
    await assert.rejects(
      bad.next(),
      (e: unknown) => e instanceof MongoServerError && e.code === 280,
    );
    await bad.close().catch(() => undefined);
    await assert.rejects(
      raw(db, {
        aggregate: 'c',
        pipeline: [{ $changeStream: {} }, { $group: { _id: null } }],
        cursor: {},
      }),
      (e: unknown) => e instanceof MongoServerError && e.code === 20,
    );
  });

  test('invalid resume tokens are 260; option conflicts and unknown options are refused', async () => {
    for (const token of [
      { _data: 'zz' },
      { _data: 1 },
      { foo: 'x' },
      { _data: '00112233445566778899AABBCCDDEEFF' },
    ]) {
      await assert.rejects(
        raw(db, {
          aggregate: 'c',
          pipeline: [{ $changeStream: { resumeAfter: token } }],
          cursor: {},
        }),
        (e: unknown) => e instanceof MongoServerError && e.code === 260,
      );
    }
    await assert.rejects(
      raw(db, { aggregate: 'c', pipeline: [{ $changeStream: { bogus: 1 } }], cursor: {} }),
      (e: unknown) => e instanceof MongoServerError && e.code === 40415,
    );
    await assert.rejects(
      raw(db, {
        aggregate: 'c',
        pipeline: [
          {
            $changeStream: {
              resumeAfter: { _data: 'x' },
              startAtOperationTime: new Timestamp({ t: 1, i: 1 }),
            },
          },
        ],
        cursor: {},
      }),
      (e: unknown) => e instanceof MongoServerError && e.code === 40674,
    );
    // A token from before the oldest oplog entry: the history is gone.
    const old = '82' + '00000001' + '00000001' + '80' + '00000000' + '00';
    await assert.rejects(
      raw(db, {
        aggregate: 'c',
        pipeline: [{ $changeStream: { resumeAfter: { _data: old } } }],
        cursor: {},
      }),
      (e: unknown) => e instanceof MongoServerError && e.code === 286,
    );
  });

  test('pre- and post-images with changeStreamPreAndPostImages', async () => {
    await db.createCollection('img', { changeStreamPreAndPostImages: { enabled: true } });
    const img = db.collection<TestDoc>('img');
    await img.insertOne({ _id: 1, v: 1 });
    const cs = img.watch([], { fullDocument: 'required', fullDocumentBeforeChange: 'required' });
    await cs.tryNext();
    await img.updateOne({ _id: 1 }, { $inc: { v: 1 } });
    await img.deleteOne({ _id: 1 });
    const u = await next(cs);
    assert.deepEqual(u['fullDocumentBeforeChange'], { _id: 1, v: 1 });
    assert.deepEqual(u['fullDocument'], { _id: 1, v: 2 });
    const d = await next(cs);
    assert.deepEqual(d['fullDocumentBeforeChange'], { _id: 1, v: 2 });
    await cs.close();
  });
});

describe('change streams on a standalone', { skip: kind === 'embedded' }, () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ replSet: '' });
  });
  after(async () => {
    await ts.stop();
  });
  test('are refused with 40573', async () => {
    await assert.rejects(
      ts.client.db('cs').collection('c').watch().next(),
      (e: unknown) => e instanceof MongoServerError && e.code === 40573,
    );
  });
});
