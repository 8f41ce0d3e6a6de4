// Read-only views through the driver, as mongod 7.0 has them: create / createView, the
// definition in <db>.system.views, reads (find, aggregate, count, distinct, countDocuments,
// estimatedDocumentCount, getMore, explain) running the view's pipeline over its collection,
// writes and index commands refused with CommandNotSupportedOnView (166), collMod, drop,
// dropDatabase, listCollections, $lookup / $graphLookup / $unionWith through a view, change
// stream events, transactions, durability across a restart, and bad definitions with mongod's
// codes. Expected values come from MongoDB's documentation and jstests/core/views/*.js.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode, freshCollection } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const CommandNotSupportedOnView = 166;
const OptionNotSupportedOnView = 167;
const InvalidPipelineOperator = 168;
const ViewDepthLimitExceeded = 165;
const GraphContainsCycle = 5;
const NamespaceExists = 48;
const InvalidOptions = 72;
const InvalidNamespace = 73;
const TypeMismatch = 14;
const BadValue = 2;
const OperationNotSupportedInTransaction = 263;

/** src: ten documents, g = _id % 3; other: three documents, g = _id. */
async function seed(db: Db): Promise<void> {
  await db.dropDatabase();
  await freshCollection(
    db,
    'src',
    Array.from({ length: 10 }, (_, i) => ({ _id: i, g: i % 3, v: i * 10, tags: [i, i + 1] })),
  );
  await freshCollection(
    db,
    'other',
    [0, 1, 2].map((i) => ({ _id: i, g: i })),
  );
  await db.createCollection('v1', { viewOn: 'src', pipeline: [{ $match: { g: 1 } }] });
  await db.createCollection('v2', { viewOn: 'v1', pipeline: [{ $project: { v: 1 } }] });
}

const ids = (docs: Document[]): unknown[] => docs.map((d) => d['_id']);

describe('views', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('views_test');
  });
  after(async () => {
    await ts.stop();
  });

  test('create stores {_id: "db.view", viewOn, pipeline} in system.views; listCollections reports the view', async () => {
    await seed(db);
    const stored = await db
      .collection('system.views')
      .find({}, { sort: { _id: 1 } })
      .toArray();
    assert.deepEqual(stored, [
      { _id: 'views_test.v1', viewOn: 'src', pipeline: [{ $match: { g: 1 } }] },
      { _id: 'views_test.v2', viewOn: 'v1', pipeline: [{ $project: { v: 1 } }] },
    ]);
    const listed = await db.listCollections({ type: 'view' }).toArray();
    assert.deepEqual(listed, [
      {
        name: 'v1',
        type: 'view',
        options: { viewOn: 'src', pipeline: [{ $match: { g: 1 } }] },
        info: { readOnly: true },
      },
      {
        name: 'v2',
        type: 'view',
        options: { viewOn: 'v1', pipeline: [{ $project: { v: 1 } }] },
        info: { readOnly: true },
      },
    ]);
    const names = await db.listCollections({}, { nameOnly: true }).toArray();
    assert.deepEqual(
      names
        .filter((c) => !String(c['name']).startsWith('system.'))
        .map((c) => [c['name'], c['type']]),
      [
        ['other', 'collection'],
        ['src', 'collection'],
        ['v1', 'view'],
        ['v2', 'view'],
      ],
    );
    // db.createView() (the driver's createCollection with viewOn), and a view on a missing collection.
    await db.createCollection('onNothing', { viewOn: 'nonexistent', pipeline: [] });
    assert.deepEqual(await db.collection('onNothing').find().toArray(), []);
    // Creating the same view again succeeds (mongod 7.0 compares the definitions).
    await db.command({ create: 'v1', viewOn: 'src', pipeline: [{ $match: { g: 1 } }] });
    const stats = await db.command({ dbStats: 1 });
    assert.equal(Number(stats['views']), 3);
  });

  test('find: filter, projection, sort, skip, limit and batchSize over the view; getMore keeps the view namespace', async () => {
    await seed(db);
    const v1 = db.collection<TestDoc>('v1');
    assert.deepEqual(
      await v1
        .find({ v: { $gt: 10 } }, { projection: { v: 1 } })
        .sort({ v: -1 })
        .toArray(),
      [
        { _id: 7, v: 70 },
        { _id: 4, v: 40 },
      ],
    );
    assert.deepEqual(ids(await v1.find().sort({ _id: 1 }).skip(1).limit(1).toArray()), [4]);
    assert.deepEqual(await v1.findOne({ _id: 4 }), { _id: 4, g: 1, v: 40, tags: [4, 5] });
    // A view on a view: v1's pipeline, then v2's.
    assert.deepEqual(await db.collection('v2').find().sort({ _id: 1 }).toArray(), [
      { _id: 1, v: 10 },
      { _id: 4, v: 40 },
      { _id: 7, v: 70 },
    ]);
    const first = await db.command({
      find: 'v1',
      filter: { _id: { $gt: 0 } },
      sort: { _id: 1 },
      batchSize: 2,
    });
    assert.equal(first['cursor']['ns'], 'views_test.v1');
    assert.deepEqual(ids(first['cursor']['firstBatch']), [1, 4]);
    const more = await db.command({ getMore: first['cursor']['id'], collection: 'v1' });
    assert.equal(more['cursor']['ns'], 'views_test.v1');
    assert.deepEqual(ids(more['cursor']['nextBatch']), [7]);
  });

  test('find options aggregation has no equivalent for are InvalidPipelineOperator', async () => {
    await seed(db);
    for (const extra of [
      { sort: { $natural: 1 } },
      { tailable: true },
      { min: { _id: 1 } },
      { returnKey: true },
      { showRecordId: true },
      { singleBatch: true },
      { readOnce: true },
    ]) {
      await expectServerCode(db.command({ find: 'v1', ...extra }), InvalidPipelineOperator);
    }
    // singleBatch with limit 1 is findOne, which works.
    const one = await db.command({ find: 'v1', filter: { _id: 7 }, singleBatch: true, limit: 1 });
    assert.deepEqual(ids(one['cursor']['firstBatch']), [7]);
    // A hint goes to the collection underneath: its _id index exists, an unknown one does not.
    assert.deepEqual(
      ids(
        await db
          .collection('v1')
          .find({}, { hint: { _id: 1 } })
          .toArray(),
      ),
      [1, 4, 7],
    );
    await expectServerCode(
      db
        .collection('v1')
        .find({}, { hint: { nope: 1 } })
        .toArray(),
      BadValue,
    );
    await expectServerCode(db.command({ find: 'v1', limit: -1 }), 51024);
  });

  test('aggregate, count, countDocuments, estimatedDocumentCount and distinct run the view pipeline first', async () => {
    await seed(db);
    const v1 = db.collection('v1');
    assert.deepEqual(
      await v1.aggregate([{ $group: { _id: null, total: { $sum: '$v' } } }]).toArray(),
      [{ _id: null, total: 120 }],
    );
    assert.equal(await v1.countDocuments(), 3);
    assert.equal(await v1.countDocuments({ v: { $gt: 10 } }), 2);
    assert.equal(await v1.estimatedDocumentCount(), 3);
    assert.equal((await db.command({ count: 'v1', query: { v: { $gte: 40 } }, skip: 1 }))['n'], 1);
    assert.deepEqual(
      (await v1.distinct('tags')).sort((a, b) => a - b),
      [1, 2, 4, 5, 7, 8],
    );
    assert.deepEqual(
      await v1.distinct('v', { v: { $lt: 50 } }).then((v) => v.sort((a, b) => a - b)),
      [10, 40],
    );
    assert.deepEqual(await db.collection('v2').distinct('g'), []);
    const aggr = await db.command({
      aggregate: 'v1',
      pipeline: [{ $sort: { _id: 1 } }],
      cursor: { batchSize: 1 },
    });
    assert.equal(aggr['cursor']['ns'], 'views_test.v1');
    const rest = await db.command({ getMore: aggr['cursor']['id'], collection: 'v1' });
    assert.deepEqual(ids(rest['cursor']['nextBatch']), [4, 7]);
  });

  test('explain of a read on a view plans the underlying collection', async () => {
    await seed(db);
    const plan = await db.collection('v2').find({ v: 40 }).explain('executionStats');
    const cursor = Array.isArray(plan['stages']) ? plan['stages'][0]['$cursor'] : plan;
    assert.equal(cursor['queryPlanner']['namespace'], 'views_test.src');
    const agg = await db
      .collection('v1')
      .aggregate([{ $limit: 1 }, { $project: { v: 1 } }])
      .explain('queryPlanner');
    const aggCursor = Array.isArray(agg['stages']) ? agg['stages'][0]['$cursor'] : agg;
    assert.equal(aggCursor['queryPlanner']['namespace'], 'views_test.src');
    const count = await db.command({ explain: { count: 'v1', query: { v: 40 } } });
    assert.ok(JSON.stringify(count).includes('"namespace":"views_test.src"'));
  });

  test('writes, index commands and collection commands on a view fail with CommandNotSupportedOnView', async () => {
    await seed(db);
    const v1 = db.collection<TestDoc>('v1');
    const refused = 'Namespace views_test.v1 is a view, not a collection';
    const insert = await db.command({
      insert: 'v1',
      documents: [{ _id: 100 }, { _id: 101 }],
      ordered: false,
    });
    assert.deepEqual(
      insert['writeErrors'].map((e: Document) => [e['index'], e['code'], e['errmsg']]),
      [
        [0, CommandNotSupportedOnView, refused],
        [1, CommandNotSupportedOnView, refused],
      ],
    );
    assert.equal(
      (await expectServerCode(v1.updateOne({}, { $set: { a: 1 } }), CommandNotSupportedOnView))
        .message,
      refused,
    );
    await expectServerCode(
      v1.updateOne({ _id: 99 }, { $set: { a: 1 } }, { upsert: true }),
      CommandNotSupportedOnView,
    );
    await expectServerCode(v1.deleteMany({}), CommandNotSupportedOnView);
    await expectServerCode(v1.findOneAndUpdate({}, { $set: { a: 1 } }), CommandNotSupportedOnView);
    await expectServerCode(v1.findOneAndDelete({}), CommandNotSupportedOnView);
    assert.equal(
      (await expectServerCode(v1.createIndex({ v: 1 }), CommandNotSupportedOnView)).message,
      'Cannot create indexes on a view',
    );
    assert.equal(
      (await expectServerCode(v1.listIndexes().toArray(), CommandNotSupportedOnView)).message,
      refused,
    );
    await expectServerCode(v1.dropIndex('v_1'), CommandNotSupportedOnView);
    await expectServerCode(db.command({ collStats: 'v1' }), CommandNotSupportedOnView);
    await expectServerCode(
      db
        .collection('other')
        .aggregate([{ $out: 'v1' }])
        .toArray(),
      CommandNotSupportedOnView,
    );
    await expectServerCode(
      db
        .collection('other')
        .aggregate([{ $merge: { into: 'v1' } }])
        .toArray(),
      CommandNotSupportedOnView,
    );
    const admin = ts.client.db('admin');
    assert.equal(
      (
        await expectServerCode(
          admin.command({ renameCollection: 'views_test.v1', to: 'views_test.v9' }),
          CommandNotSupportedOnView,
        )
      ).message,
      'cannot rename view: views_test.v1',
    );
    await expectServerCode(
      admin.command({
        renameCollection: 'views_test.other',
        to: 'views_test.v1',
        dropTarget: true,
      }),
      NamespaceExists,
    );
    // Nothing was written anywhere, no collection appeared, and the view still reads its source.
    assert.deepEqual(ids(await v1.find().sort({ _id: 1 }).toArray()), [1, 4, 7]);
    assert.equal(await db.collection('other').countDocuments(), 3);
    assert.deepEqual(
      await db
        .listCollections({ name: 'v1' })
        .toArray()
        .then((l) => l.map((c) => c['type'])),
      ['view'],
    );
  });

  test('collMod redefines a view; drop removes it; dropDatabase removes every view', async () => {
    await seed(db);
    await db.command({ collMod: 'v1', pipeline: [{ $match: { g: 2 } }] });
    assert.deepEqual(ids(await db.collection('v1').find().sort({ _id: 1 }).toArray()), [2, 5, 8]);
    await db.command({ collMod: 'v1', viewOn: 'other' });
    assert.deepEqual(await db.collection('v1').find().toArray(), [{ _id: 2, g: 2 }]);
    assert.deepEqual(
      await db.collection<TestDoc>('system.views').findOne({ _id: 'views_test.v1' }),
      {
        _id: 'views_test.v1',
        viewOn: 'other',
        pipeline: [{ $match: { g: 2 } }],
      },
    );
    for (const [opt, value] of [
      ['validator', { a: 1 }],
      ['validationLevel', 'off'],
      ['index', { name: 'x', hidden: true }],
      ['expireAfterSeconds', 1],
    ] as const) {
      const e = await expectServerCode(db.command({ collMod: 'v1', [opt]: value }), InvalidOptions);
      assert.equal(e.message, `option not supported on a view: ${opt}`);
    }
    assert.equal(
      (await expectServerCode(db.command({ collMod: 'src', viewOn: 'other' }), InvalidOptions))
        .message,
      'option only supported on a view: viewOn',
    );
    assert.equal(
      (await expectServerCode(db.command({ collMod: 'src', pipeline: [] }), InvalidOptions))
        .message,
      'option only supported on a view: pipeline',
    );
    // v2 reads v1: v1 on v2 would be a cycle.
    const cycle = await expectServerCode(
      db.command({ collMod: 'v1', viewOn: 'v2', pipeline: [] }),
      GraphContainsCycle,
    );
    assert.equal(
      cycle.message,
      'View cycle detected: views_test.v1 => views_test.v1 => views_test.v2 => views_test.v1',
    );

    const dropped = await db.command({ drop: 'v2' });
    assert.equal(dropped['ns'], 'views_test.v2');
    assert.equal(dropped['nIndexesWas'], undefined);
    assert.deepEqual(await db.listCollections({ name: 'v2' }).toArray(), []);
    assert.equal(await db.collection('system.views').countDocuments(), 1);
    await db.dropDatabase();
    assert.deepEqual(await db.listCollections().toArray(), []);
    assert.deepEqual(await db.collection('v1').find().toArray(), []);
  });

  test('bad definitions answer mongod codes and store nothing', async () => {
    await seed(db);
    const create = (spec: Document): Promise<Document> => db.command({ create: 'bad', ...spec });
    assert.equal(
      (await expectServerCode(create({ pipeline: [] }), InvalidOptions)).message,
      "'pipeline' requires 'viewOn' to also be specified",
    );
    await expectServerCode(create({ viewOn: '' }), BadValue);
    await expectServerCode(create({ viewOn: 5 }), TypeMismatch);
    await expectServerCode(create({ viewOn: 'src', pipeline: { $match: {} } }), TypeMismatch);
    await expectServerCode(create({ viewOn: 'src', pipeline: [1] }), TypeMismatch);
    await expectServerCode(create({ viewOn: 'src', pipeline: [{ $nope: 1 }] }), 40324);
    const out = await expectServerCode(
      create({ viewOn: 'src', pipeline: [{ $out: 'x' }] }),
      OptionNotSupportedOnView,
    );
    assert.equal(
      out.message,
      'Invalid pipeline for view views_test.bad :: caused by :: The aggregation stage $out in location 0 of the pipeline cannot be used in the view definition of views_test.bad because it writes to disk',
    );
    await expectServerCode(
      create({ viewOn: 'src', pipeline: [{ $match: {} }, { $merge: { into: 'x' } }] }),
      OptionNotSupportedOnView,
    );
    await expectServerCode(
      create({ viewOn: 'src', pipeline: [{ $changeStream: {} }] }),
      OptionNotSupportedOnView,
    );
    // From jstests/core/views/views_creation.js and views_validation.js.
    await expectServerCode(
      create({
        viewOn: 'src',
        pipeline: [{ $lookup: { from: 'other', pipeline: [{ $out: 'x' }], as: 'r' } }],
      }),
      51047,
    );
    await expectServerCode(
      create({ viewOn: 'src', pipeline: [{ $facet: { o: [{ $out: 'x' }] } }] }),
      40600,
    );
    await expectServerCode(
      create({
        viewOn: 'src',
        pipeline: [{ $lookup: { from: 'a', localField: 'b', foreignField: 'c' } }],
      }),
      9,
    );
    await expectServerCode(
      create({ viewOn: 'src', pipeline: [{ $project: { f: '$$undef' } }] }),
      17276,
    );
    await expectServerCode(db.command({ create: 'system.views', viewOn: 'src' }), InvalidNamespace);
    await expectServerCode(db.command({ create: 'system.foo', viewOn: 'src' }), InvalidNamespace);
    await expectServerCode(db.command({ create: 'dollar$', viewOn: 'src' }), InvalidNamespace);
    // The name is taken: by a collection, or by a view with another definition.
    await expectServerCode(db.command({ create: 'src', viewOn: 'other' }), NamespaceExists);
    await expectServerCode(db.command({ create: 'v1', viewOn: 'other' }), NamespaceExists);
    await expectServerCode(
      db.command({ create: 'v1', viewOn: 'src', pipeline: [] }),
      NamespaceExists,
    );
    await expectServerCode(db.command({ create: 'v1' }), NamespaceExists);
    assert.deepEqual(await db.listCollections({ name: 'bad' }).toArray(), []);
    assert.equal(await db.collection('system.views').countDocuments(), 2);
  });

  test('cycles are GraphContainsCycle and chains longer than 20 views ViewDepthLimitExceeded (views_validation.js)', async () => {
    await db.dropDatabase();
    const make = (name: string, viewOn: string, pipeline: Document[] = []): Promise<Document> =>
      db.command({ create: name, viewOn, pipeline });
    await expectServerCode(make('a', 'a'), GraphContainsCycle);
    await make('a', 'b');
    await expectServerCode(make('b', 'a'), GraphContainsCycle);
    await make('b', 'c');
    await expectServerCode(make('c', 'a'), GraphContainsCycle);
    const lookup = (from: string): Document => ({
      $lookup: { from, as: 'as', localField: 'l', foreignField: 'f' },
    });
    await expectServerCode(make('c', 'x', [lookup('a')]), GraphContainsCycle);
    await expectServerCode(
      make('c', 'x', [{ $unionWith: { coll: 'y', pipeline: [{ $unionWith: 'a' }] } }]),
      GraphContainsCycle,
    );
    await expectServerCode(make('c', 'x', [{ $facet: { f: [lookup('b')] } }]), GraphContainsCycle);
    await expectServerCode(
      make('c', 'x', [
        {
          $graphLookup: {
            from: 'a',
            as: 'as',
            startWith: '$s',
            connectFromField: 'f',
            connectToField: 't',
          },
        },
      ]),
      GraphContainsCycle,
    );
    await db.dropDatabase();
    // v1 reads v2 reads ... v20 reads v21 (a collection): twenty views, each read four more ways.
    for (let i = 1; i <= 20; i++) {
      const child = `v${i + 1}`;
      await make(`v${i}`, child, [
        lookup(child),
        { $unionWith: child },
        { $facet: { f: [lookup(child)] } },
        {
          $graphLookup: {
            from: child,
            as: 'as',
            startWith: '$s',
            connectFromField: 'f',
            connectToField: 't',
          },
        },
      ]);
    }
    await expectServerCode(make('v21', 'v22'), ViewDepthLimitExceeded);
    await expectServerCode(make('v0', 'v1'), ViewDepthLimitExceeded);
    await expectServerCode(make('v0', 'ok', [lookup('v1')]), ViewDepthLimitExceeded);
    await expectServerCode(make('v0', 'ok', [{ $unionWith: 'v1' }]), ViewDepthLimitExceeded);
    // Adding in the middle is fine.
    await make('vMid', 'v10');
    await db.dropDatabase();
  });

  test('$lookup, $graphLookup and $unionWith read a view through its pipeline', async () => {
    await seed(db);
    const other = db.collection('other');
    const sizes = (docs: Document[]): unknown[] => docs.map((d) => d['n']);
    const lookedUp = await other
      .aggregate([
        { $lookup: { from: 'v1', localField: 'g', foreignField: 'g', as: 'm' } },
        { $project: { n: { $size: '$m' } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    assert.deepEqual(sizes(lookedUp), [0, 3, 0]);
    const piped = await other
      .aggregate([
        { $match: { _id: 0 } },
        { $lookup: { from: 'v2', as: 'm', pipeline: [{ $match: { v: { $gt: 10 } } }] } },
      ])
      .toArray();
    assert.deepEqual(piped, [
      {
        _id: 0,
        g: 0,
        m: [
          { _id: 4, v: 40 },
          { _id: 7, v: 70 },
        ],
      },
    ]);
    const graph = await other
      .aggregate([
        {
          $graphLookup: {
            from: 'v1',
            startWith: '$g',
            connectFromField: 'g',
            connectToField: 'g',
            as: 'm',
            maxDepth: 0,
          },
        },
        { $project: { n: { $size: '$m' } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    assert.deepEqual(sizes(graph), [0, 3, 0]);
    assert.deepEqual(await other.aggregate([{ $unionWith: 'v1' }, { $count: 'n' }]).toArray(), [
      { n: 6 },
    ]);
    assert.deepEqual(
      ids(
        await other
          .aggregate([{ $unionWith: { coll: 'v2', pipeline: [{ $match: { v: 40 } }] } }])
          .toArray(),
      ),
      [0, 1, 2, 4],
    );
    // A view whose pipeline joins another view.
    await db.createCollection('joined', {
      viewOn: 'other',
      pipeline: [{ $lookup: { from: 'v1', localField: 'g', foreignField: 'g', as: 'm' } }],
    });
    const j = await db.collection<TestDoc>('joined').findOne({ _id: 1 });
    assert.deepEqual(ids(j?.['m'] ?? []), [1, 4, 7]);
  });

  test('change streams: creating, modifying and dropping a view are events; a stream on a view fails', async () => {
    await seed(db);
    const stream = db.watch([], { showExpandedEvents: true });
    await stream.tryNext();
    await db.createCollection('cs', { viewOn: 'src', pipeline: [{ $match: { g: 0 } }] });
    await db.command({ collMod: 'cs', viewOn: 'other' });
    await db.collection('cs').drop();
    const create = await stream.next();
    assert.equal(create.operationType, 'create');
    assert.deepEqual((create as Document)['ns'], { db: 'views_test', coll: 'cs' });
    assert.deepEqual((create as Document)['operationDescription'], {
      viewOn: 'src',
      pipeline: [{ $match: { g: 0 } }],
    });
    const modify = await stream.next();
    assert.equal(modify.operationType, 'modify');
    assert.deepEqual((modify as Document)['operationDescription'], {
      viewOn: 'other',
      pipeline: [{ $match: { g: 0 } }],
    });
    const drop = await stream.next();
    assert.equal(drop.operationType, 'drop');
    assert.deepEqual((drop as Document)['ns'], { db: 'views_test', coll: 'cs' });
    await stream.close();
    await expectServerCode(db.collection('v1').watch().tryNext(), CommandNotSupportedOnView);
  });

  test('transactions read views; creating one inside is OperationNotSupportedInTransaction', async () => {
    await seed(db);
    const session = ts.client.startSession();
    try {
      session.startTransaction();
      await db.collection<TestDoc>('src').insertOne({ _id: 10, g: 1, v: 100 }, { session });
      // The transaction's own write shows through the view.
      assert.deepEqual(
        ids(await db.collection('v1').find({}, { session }).sort({ _id: 1 }).toArray()),
        [1, 4, 7, 10],
      );
      assert.equal(await db.collection('v1').countDocuments({}, { session }), 4);
      const e = await expectServerCode(
        db.createCollection('inTxn', { viewOn: 'src', session }),
        OperationNotSupportedInTransaction,
      );
      assert.equal(e.message, 'Cannot create a view in a multi-document transaction.');
    } finally {
      await session.abortTransaction().catch(() => undefined);
      await session.endSession();
    }
    assert.deepEqual(ids(await db.collection('v1').find().sort({ _id: 1 }).toArray()), [1, 4, 7]);
  });
});

test('a view survives a restart on lmdb', async () => {
  const dbPath = mkdtempSync(join(tmpdir(), 'secantus-views-'));
  try {
    let ts = await startTestServer({ dbPath });
    let db = ts.client.db('durable');
    await db.collection<TestDoc>('src').insertMany([
      { _id: 1, ok: true },
      { _id: 2, ok: false },
    ]);
    await db.createCollection('good', { viewOn: 'src', pipeline: [{ $match: { ok: true } }] });
    await ts.stop();
    ts = await startTestServer({ dbPath });
    try {
      db = ts.client.db('durable');
      assert.deepEqual(await db.collection('good').find().toArray(), [{ _id: 1, ok: true }]);
      assert.deepEqual(await db.listCollections({ type: 'view' }, { nameOnly: true }).toArray(), [
        { name: 'good', type: 'view' },
      ]);
      await expectServerCode(
        db.collection<TestDoc>('good').insertOne({ _id: 3 }),
        CommandNotSupportedOnView,
      );
    } finally {
      await ts.stop();
    }
  } finally {
    rmSync(dbPath, { recursive: true, force: true });
  }
});
