// hint on aggregate, update, delete and findAndModify plans the query with the hinted index,
// as find's does (issue #5): explain shows the index, and a single-document write takes the
// first document of the hinted index's order. A hint that names no index fails with BadValue
// (2), "hint provided does not correspond to an existing index".

import { describe, test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Collection, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

/** Every stage name and index name of a plan tree. */
function planNodes(plan: Document | undefined): string[] {
  if (plan === undefined) return [];
  const here = [
    String(plan['stage']),
    ...(plan['indexName'] === undefined ? [] : [`index:${String(plan['indexName'])}`]),
  ];
  const children = [
    plan['inputStage'],
    ...((plan['inputStages'] as Document[] | undefined) ?? []),
  ].filter((c): c is Document => c !== undefined);
  return [...here, ...children.flatMap(planNodes)];
}

/** The winning plan of an aggregate's explain, whether or not stages follow the query. */
function aggregateWinningPlan(e: Document): Document | undefined {
  const stages = e['stages'] as Document[] | undefined;
  const planner =
    stages === undefined ? e['queryPlanner'] : stages[0]?.['$cursor']?.['queryPlanner'];
  return planner?.['winningPlan'];
}

async function badHint(p: Promise<unknown>): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof MongoServerError, String(e));
    assert.equal(e.code, 2);
    assert.match(e.message, /hint provided does not correspond to an existing index/);
    return true;
  });
}

describe('hint plans aggregate and write commands', () => {
  let ts: TestServer;
  let coll: Collection<TestDoc>;

  // Natural order 1, 2, 3; ascending a gives 2, 3, 1; ascending b gives 3, 1, 2.
  const seed = [
    { _id: 1, a: 3, b: 2, tag: 'x' },
    { _id: 2, a: 1, b: 3, tag: 'x' },
    { _id: 3, a: 2, b: 1, tag: 'x' },
  ];

  before(async () => {
    ts = await startTestServer();
    coll = ts.client.db('hint').collection<TestDoc>('c');
    await coll.createIndex({ a: 1 });
    await coll.createIndex({ b: 1 });
  });

  after(async () => {
    await ts.stop();
  });

  async function reset(): Promise<void> {
    await coll.deleteMany({});
    await coll.insertMany(seed);
  }

  test('aggregate: the leading $match uses the hinted index, by name or key pattern', async () => {
    await reset();
    const pipeline = [{ $match: { a: { $gte: 0 }, b: 2 } }, { $project: { _id: 1 } }];
    const byName = await coll.aggregate(pipeline, { hint: 'a_1' }).explain('queryPlanner');
    assert.ok(
      planNodes(aggregateWinningPlan(byName)).includes('index:a_1'),
      JSON.stringify(byName),
    );
    const byPattern = await coll.aggregate(pipeline, { hint: { b: 1 } }).explain('queryPlanner');
    assert.ok(planNodes(aggregateWinningPlan(byPattern)).includes('index:b_1'));
    const natural = await coll
      .aggregate(pipeline, { hint: { $natural: 1 } })
      .explain('queryPlanner');
    assert.deepEqual(planNodes(aggregateWinningPlan(natural)), ['COLLSCAN']);
    // The hint changes the plan, not the answer.
    assert.deepEqual(await coll.aggregate(pipeline, { hint: 'a_1' }).toArray(), [{ _id: 1 }]);
  });

  test('aggregate: without a $match the hinted index is scanned whole, in its order', async () => {
    await reset();
    const ids = (
      await coll.aggregate([{ $project: { _id: 1 } }], { hint: { a: 1 } }).toArray()
    ).map((d) => d['_id']);
    assert.deepEqual(ids, [2, 3, 1]);
    const reversed = (
      await coll.aggregate([{ $project: { _id: 1 } }], { hint: { $natural: -1 } }).toArray()
    ).map((d) => d['_id']);
    assert.deepEqual(reversed, [3, 2, 1]);
  });

  test('aggregate: a hint naming no index fails with 2', async () => {
    await reset();
    await badHint(coll.aggregate([{ $match: { a: 1 } }], { hint: 'nope_1' }).toArray());
    await badHint(coll.aggregate([{ $match: { a: 1 } }], { hint: { c: 1 } }).toArray());
  });

  test('updateOne and deleteOne act on the first document in the hinted index order', async () => {
    await reset();
    await coll.updateOne({ tag: 'x' }, { $set: { hit: 'a' } }, { hint: { a: 1 } });
    assert.deepEqual(
      (await coll.find({ hit: 'a' }).toArray()).map((d) => d['_id']),
      [2],
    );
    await coll.updateOne({ tag: 'x' }, { $set: { hit: 'b' } }, { hint: 'b_1' });
    assert.deepEqual(
      (await coll.find({ hit: 'b' }).toArray()).map((d) => d['_id']),
      [3],
    );
    await coll.updateOne({ tag: 'x' }, { $set: { hit: 'n' } }, { hint: { $natural: -1 } });
    assert.deepEqual(
      (await coll.find({ hit: 'n' }).toArray()).map((d) => d['_id']),
      [3],
    );

    await coll.deleteOne({ tag: 'x' }, { hint: { b: 1 } });
    assert.deepEqual(
      (await coll.find({}).sort({ _id: 1 }).toArray()).map((d) => d['_id']),
      [1, 2],
    );
    await coll.deleteOne({ tag: 'x' }, { hint: 'a_1' });
    assert.deepEqual(
      (await coll.find({}).toArray()).map((d) => d['_id']),
      [1],
    );
  });

  test('findAndModify takes the first document of the hinted index', async () => {
    await reset();
    const updated = await coll.findOneAndUpdate(
      { tag: 'x' },
      { $set: { hit: true } },
      { hint: { a: 1 }, returnDocument: 'after' },
    );
    assert.equal(updated?.['_id'], 2);
    const removed = await coll.findOneAndDelete({ tag: 'x' }, { hint: { b: 1 } });
    assert.equal(removed?.['_id'], 3);
  });

  test('update, delete and findAndModify refuse a hint naming no index (2)', async () => {
    await reset();
    await badHint(coll.updateOne({ tag: 'x' }, { $set: { y: 1 } }, { hint: 'nope_1' }));
    await badHint(coll.deleteOne({ tag: 'x' }, { hint: { c: 1 } }));
    await badHint(coll.findOneAndUpdate({ tag: 'x' }, { $set: { y: 1 } }, { hint: { zz: 1 } }));
    assert.equal(await coll.countDocuments({ y: 1 }), 0);
    assert.equal(await coll.countDocuments({}), 3);
  });

  test('explain of a hinted update and delete shows the hinted index', async () => {
    await reset();
    const db = ts.client.db('hint');
    const upd = await db.command({
      explain: {
        update: 'c',
        updates: [{ q: { tag: 'x', a: { $gt: 0 } }, u: { $set: { z: 1 } }, hint: { b: 1 } }],
      },
      verbosity: 'queryPlanner',
    });
    assert.ok(planNodes(upd['queryPlanner']['winningPlan']).includes('index:b_1'));
    const del = await db.command({
      explain: { delete: 'c', deletes: [{ q: { tag: 'x' }, limit: 1, hint: 'a_1' }] },
      verbosity: 'queryPlanner',
    });
    assert.ok(planNodes(del['queryPlanner']['winningPlan']).includes('index:a_1'));
  });
});
