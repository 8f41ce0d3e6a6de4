// Change events as complete as mongod's, through the official driver: updateDescription from
// the nested $v:2 diff (disambiguatedPaths, truncatedArrays, pipeline updates), rename onto an
// existing collection, modify events from collMod, and schema changes waking waiting getMores.
// Expected shapes: MongoDB's change-events reference, mongod's change_stream_event_transform
// and change_stream_document_diff_parser, and the driver spec tests (change-streams folder).

import { after, before, beforeEach, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Binary, Int32 } from 'mongodb';
import type { ChangeStream, ChangeStreamDocument, Collection, Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { arrayUpdate, collectionUuid } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

type Stream = ChangeStream<Document, ChangeStreamDocument<Document>>;

async function next(cs: Stream): Promise<Document> {
  return (await cs.next()) as unknown as Document;
}

/** Open the stream on the server before the writes that follow. */
async function opened(cs: Stream): Promise<Stream> {
  await cs.tryNext();
  return cs;
}

describe('change events', () => {
  let ts: TestServer;
  let db: Db;
  let coll: Collection<TestDoc>;

  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });
  beforeEach(async () => {
    db = ts.client.db('cse');
    await db.dropDatabase();
    coll = db.collection('c');
    await db.createCollection('c');
  });

  describe('updateDescription', () => {
    test('disambiguatedPaths: numeric field names and array indexes, only with showExpandedEvents', async () => {
      await coll.insertOne({ _id: 1, a: { 1: 1 }, b: [{ 1: 1 }], c: [{ x: 1 }] });
      const plain = await opened(coll.watch());
      const expanded = await opened(coll.watch([], { showExpandedEvents: true }));
      await coll.updateOne({ _id: 1 }, { $set: { 'a.1': 2 } });
      await coll.updateOne({ _id: 1 }, { $set: { 'b.0.1': 2 } });
      await coll.updateOne({ _id: 1 }, { $set: { 'c.0.x': 2 } });

      const p = await next(plain);
      assert.deepEqual(p['updateDescription'], {
        updatedFields: { 'a.1': 2 },
        removedFields: [],
        truncatedArrays: [],
      });
      const e1 = await next(expanded);
      assert.deepEqual(e1['updateDescription'].disambiguatedPaths, { 'a.1': ['a', '1'] });
      const e2 = await next(expanded);
      assert.deepEqual(e2['updateDescription'].updatedFields, { 'b.0.1': 2 });
      const path = e2['updateDescription'].disambiguatedPaths['b.0.1'] as unknown[];
      assert.deepEqual(path, ['b', 0, '1']);
      assert.equal(typeof path[1], 'number', 'an array index is an integer');
      // An array index alone is not ambiguous: the field is there, empty.
      const e3 = await next(expanded);
      assert.deepEqual(e3['updateDescription'], {
        updatedFields: { 'c.0.x': 2 },
        removedFields: [],
        truncatedArrays: [],
        disambiguatedPaths: {},
      });
      await plain.close();
      await expanded.close();
    });

    test('array elements, appended elements, created subtrees and removed fields', async () => {
      await coll.insertOne({ _id: 1, arr: [{ b: 1 }, { b: 2 }], list: [1], gone: 1 });
      const cs = await opened(coll.watch());
      await coll.updateOne(
        { _id: 1 },
        arrayUpdate({
          $inc: { 'arr.$[].b': 10 },
          $push: { list: { $each: [2, 3] } },
          $set: { 'n.m': 1 },
          $unset: { gone: '' },
        }),
      );
      const ev = await next(cs);
      assert.deepEqual(ev['updateDescription'], {
        updatedFields: { n: { m: 1 }, 'arr.0.b': 11, 'arr.1.b': 12, 'list.1': 2, 'list.2': 3 },
        removedFields: ['gone'],
        truncatedArrays: [],
      });
      await cs.close();
    });

    test('a pipeline update reports truncated arrays; one whose diff does not pay off is a replace', async () => {
      await coll.insertOne({ _id: 1, a: 1, array: ['foo', { a: 'bar' }, 1, 2, 3] });
      await coll.insertOne({ _id: 2, a: 1 });
      const cs = await opened(coll.watch());
      await coll.updateOne({ _id: 1 }, [{ $set: { array: ['foo', { a: 'bar' }] } }]);
      await coll.updateOne({ _id: 2 }, [{ $set: { a: 2 } }]);
      const trunc = await next(cs);
      assert.equal(trunc['operationType'], 'update');
      assert.deepEqual(trunc['updateDescription'], {
        updatedFields: {},
        removedFields: [],
        truncatedArrays: [{ field: 'array', newSize: 2 }],
      });
      // mongod logs a pipeline update as a replacement when the diff (plus its 15 bytes of
      // framing) is not smaller than the new document.
      const small = await next(cs);
      assert.equal(small['operationType'], 'replace');
      assert.deepEqual(small['fullDocument'], { _id: 2, a: 2 });
      await cs.close();
    });

    test("showRawUpdateDescription gives the oplog entry's $v:2 update", async () => {
      await coll.insertOne({ _id: 1, a: { b: 1 }, arr: [1, 2, 3] });
      const cs = await opened(coll.watch([], { showRawUpdateDescription: true } as Document));
      await coll.updateOne({ _id: 1 }, { $set: { 'a.b': 2, 'arr.1': 5 }, $unset: { x: '' } });
      const ev = await next(cs);
      assert.equal(ev['updateDescription'], undefined);
      assert.deepEqual(ev['rawUpdateDescription'], {
        $v: 2,
        diff: { sa: { u: { b: 2 } }, sarr: { a: true, u1: 5 } },
      });
      await cs.close();
    });
  });

  describe('schema changes', () => {
    test("rename onto an existing collection: one rename event with dropTarget, invalidating both collections' streams", async () => {
      await db.createCollection('target');
      const targetUuid = await collectionUuid(db, 'target');
      const dbStream = await opened(db.watch([], { showExpandedEvents: true }));
      const onTarget = await opened(db.collection('target').watch());
      await coll.insertOne({ _id: 1 });
      await coll.rename('target', { dropTarget: true });
      await db.collection<TestDoc>('after').insertOne({ _id: 2 });

      assert.equal((await next(dbStream))['operationType'], 'insert');
      const rename = await next(dbStream);
      assert.equal(rename['operationType'], 'rename');
      assert.deepEqual(rename['ns'], { db: 'cse', coll: 'c' });
      assert.deepEqual(rename['to'], { db: 'cse', coll: 'target' });
      assert.deepEqual(Object.keys(rename['operationDescription']), ['to', 'dropTarget']);
      assert.deepEqual(rename['operationDescription'].to, { db: 'cse', coll: 'target' });
      assert.equal(
        (rename['operationDescription'].dropTarget as Binary).toString('hex'),
        targetUuid.toString('hex'),
      );
      // No drop event for the replaced collection: the rename says it.
      const following = await next(dbStream);
      assert.equal(following['operationType'], 'create');
      assert.deepEqual(following['ns'], { db: 'cse', coll: 'after' });

      assert.equal((await next(onTarget))['operationType'], 'rename');
      assert.equal((await next(onTarget))['operationType'], 'invalidate');
      await dbStream.close();
      await onTarget.close();
    });

    test('collMod: a modify event with operationDescription and stateBeforeChange', async () => {
      await coll.createIndex({ x: 1 }, { name: 'x_1' });
      const uuid = await collectionUuid(db, 'c');
      const plain = await opened(coll.watch());
      const cs = await opened(coll.watch([], { showExpandedEvents: true }));
      await db.command({ collMod: 'c', validationLevel: 'moderate' });
      await db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, hidden: true } });
      await db.command({ collMod: 'c' });
      await coll.insertOne({ _id: 'after' });

      const level = await next(cs);
      assert.equal(level['operationType'], 'modify');
      assert.deepEqual(level['ns'], { db: 'cse', coll: 'c' });
      assert.equal((level['collectionUUID'] as Binary).toString('hex'), uuid.toString('hex'));
      assert.deepEqual(level['operationDescription'], { validationLevel: 'moderate' });
      assert.deepEqual(Object.keys(level['stateBeforeChange']), ['collectionOptions']);
      assert.equal(
        (level['stateBeforeChange'].collectionOptions.uuid as Binary).toString('hex'),
        uuid.toString('hex'),
      );
      assert.equal(level['documentKey'], undefined);

      const hidden = await next(cs);
      assert.equal(hidden['operationType'], 'modify');
      // The index is named, whichever way the command identified it.
      assert.deepEqual(hidden['operationDescription'], { index: { name: 'x_1', hidden: true } });
      assert.deepEqual(hidden['stateBeforeChange'].indexOptions, { hidden: false });
      assert.equal(hidden['stateBeforeChange'].collectionOptions.validationLevel, 'moderate');

      const empty = await next(cs);
      assert.equal(empty['operationType'], 'modify');
      assert.deepEqual(empty['operationDescription'], {});

      // Without showExpandedEvents there is no modify event.
      assert.equal((await next(plain))['operationType'], 'insert');
      await plain.close();
      await cs.close();
    });

    test('views: create, modify (collMod viewOn/pipeline) and drop, with showExpandedEvents on database streams', async () => {
      const plain = await opened(db.watch());
      const cs = await opened(db.watch([], { showExpandedEvents: true }));
      await db.createCollection('v', { viewOn: 'c', pipeline: [{ $match: { a: 1 } }] });
      await db.command({ collMod: 'v', viewOn: 'c', pipeline: [] });
      await db.collection('v').drop();
      await coll.insertOne({ _id: 'after' });

      const create = await next(cs);
      assert.equal(create['operationType'], 'create');
      assert.deepEqual(create['ns'], { db: 'cse', coll: 'v' });
      assert.equal(create['nsType'], 'view');
      assert.deepEqual(create['operationDescription'], {
        viewOn: 'c',
        pipeline: [{ $match: { a: 1 } }],
      });
      const modify = await next(cs);
      assert.equal(modify['operationType'], 'modify');
      assert.deepEqual(modify['ns'], { db: 'cse', coll: 'v' });
      assert.deepEqual(modify['operationDescription'], { viewOn: 'c', pipeline: [] });
      const drop = await next(cs);
      assert.equal(drop['operationType'], 'drop');
      assert.deepEqual(drop['ns'], { db: 'cse', coll: 'v' });
      assert.equal((await next(cs))['operationType'], 'insert');
      // Without showExpandedEvents a view's definition changes are not events.
      assert.equal((await next(plain))['operationType'], 'insert');
      await plain.close();
      await cs.close();
    });

    test('collMod writes a command entry to the oplog, with the old options in o2', async () => {
      await db.command({ collMod: 'c', validationAction: 'warn' });
      const entry = await ts.client
        .db('local')
        .collection('oplog.rs')
        .find({ 'o.collMod': 'c' })
        .sort({ $natural: -1 })
        .limit(1)
        .next();
      assert.ok(entry !== null);
      assert.equal(entry['op'], 'c');
      assert.equal(entry['ns'], 'cse.$cmd');
      assert.deepEqual(entry['o'], { collMod: 'c', validationAction: 'warn' });
      assert.ok(entry['o2'].collectionOptions_old.uuid instanceof Binary);
    });

    test('every schema change (and a transaction commit) wakes a getMore waiting with maxAwaitTimeMS', async () => {
      const changes: Array<[string[], () => Promise<unknown>]> = [
        [['create'], () => db.createCollection('w')],
        [['createIndexes'], () => db.collection('w').createIndex({ k: 1 })],
        [['modify'], () => db.command({ collMod: 'w', validationLevel: 'off' })],
        [['dropIndexes'], () => db.collection('w').dropIndex('k_1')],
        [['rename'], () => db.collection('w').rename('w2')],
        [['drop'], () => db.collection('w2').drop()],
        [
          ['insert', 'insert'],
          async () => {
            const session = ts.client.startSession();
            await session.withTransaction(async () => {
              await coll.insertOne({ _id: 't1' }, { session });
              await coll.insertOne({ _id: 't2' }, { session });
            });
            await session.endSession();
          },
        ],
        // The database's last collection is dropped first.
        [['drop', 'dropDatabase', 'invalidate'], () => db.dropDatabase()],
      ];
      // getMores that wait long: a missed wake-up shows as a 20 s stall.
      const admin = ts.client.db('cse');
      const open = await admin.command({
        aggregate: 1,
        pipeline: [{ $changeStream: { showExpandedEvents: true } }],
        cursor: {},
      });
      const id = open['cursor'].id;
      const pending: Document[] = [];
      const nextEvent = async (): Promise<Document> => {
        while (pending.length === 0) {
          const r = await admin.command({
            getMore: id,
            collection: '$cmd.aggregate',
            maxAwaitTimeMS: 20_000,
          });
          pending.push(...(r['cursor'].nextBatch as Document[]));
        }
        return pending.shift() as Document;
      };
      for (const [expected, change] of changes) {
        const waiting = nextEvent();
        await new Promise((r) => setTimeout(r, 100));
        const start = Date.now();
        await change();
        const ev = await waiting;
        assert.equal(ev['operationType'], expected[0]);
        assert.ok(
          Date.now() - start < 2_000,
          `${expected[0]} woke the waiting getMore (${Date.now() - start} ms)`,
        );
        for (const more of expected.slice(1))
          assert.equal((await nextEvent())['operationType'], more);
      }
    });

    test('a collection stream stays open across the drop of its collection (drop, then invalidate)', async () => {
      const client = await ts.newClient({ monitorCommands: true });
      const aggregates: Document[] = [];
      client.on('commandStarted', (e) => {
        if (e.commandName === 'aggregate') aggregates.push(e.command);
      });
      const cs = await opened(client.db('cse').collection('c').watch());
      await coll.insertOne({ _id: 1 });
      await coll.drop();
      assert.equal((await next(cs))['operationType'], 'insert');
      assert.equal((await next(cs))['operationType'], 'drop');
      assert.equal((await next(cs))['operationType'], 'invalidate');
      // The driver resumes only after a lost cursor: one aggregate means the cursor lived on.
      assert.equal(aggregates.length, 1);
      await cs.close();
    });
  });

  test('newSize and array indexes are int32 on the wire', async () => {
    await coll.insertOne({ _id: 1, a: [{ 1: 1 }], array: ['foo', { a: 'bar' }, 1, 2, 3] });
    const client = await ts.newClient({ promoteValues: false });
    const cs = await opened(
      client.db('cse').collection('c').watch([], { showExpandedEvents: true }),
    );
    await coll.updateOne({ _id: 1 }, [{ $set: { array: ['foo', { a: 'bar' }] } }]);
    await coll.updateOne({ _id: 1 }, { $set: { 'a.0.1': 2 } });
    const trunc = await next(cs);
    assert.ok(trunc['updateDescription'].truncatedArrays[0].newSize instanceof Int32);
    const dis = await next(cs);
    assert.ok(dis['updateDescription'].disambiguatedPaths['a.0.1'][1] instanceof Int32);
    await cs.close();
  });
});
