// explain through the driver, in mongod's shape: winning plans (COLLSCAN, IXSCAN, FETCH, SORT,
// PROJECTION_*, LIMIT, SKIP, IDHACK, OR, EOF), index bounds in mongod's string form, and
// executionStats (keys and documents examined) for find, count, distinct, update, delete,
// findAndModify and aggregate, with the three verbosities.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Collection, Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

let ts: TestServer;
let db: Db;
let big: Collection<TestDoc>;
let small: Collection<TestDoc>;
/** The collection size (bench/index-point-query.ts runs the same point query on 100k documents). */
const N = 20_000;

before(async () => {
  ts = await startTestServer();
  db = ts.client.db('explain');
  big = db.collection('big');
  const docs: Document[] = [];
  for (let i = 0; i < N; i++) docs.push({ _id: i, k: i, g: i % 100, s: `s${i % 1000}` });
  await big.insertMany(docs);
  await big.createIndex({ k: 1 });
  await big.createIndex({ g: 1, s: 1 });
  small = db.collection<TestDoc>('small');
  await small.insertMany([
    { _id: 1, a: 1, b: 'x', tags: ['p', 'q'] },
    { _id: 2, a: 5, b: 'y', tags: ['q'] },
    { _id: 3, a: 9, b: 'z', tags: [] },
    { _id: 4, a: 12, b: 'zz' },
  ]);
  await small.createIndex({ a: 1 });
  await small.createIndex({ b: -1 });
  await small.createIndex({ tags: 1 });
});

after(async () => {
  await ts?.stop();
});

/** The stages of a plan from the root down (first input only). */
function chain(plan: Document): string[] {
  const out: string[] = [];
  for (
    let s: Document | undefined = plan;
    s !== undefined;
    s = s['inputStage'] as Document | undefined
  )
    out.push(s['stage'] as string);
  return out;
}

function find(plan: Document, stage: string): Document {
  if (plan['stage'] === stage) return plan;
  for (const c of [
    plan['inputStage'],
    ...((plan['inputStages'] as Document[] | undefined) ?? []),
  ]) {
    if (c === undefined) continue;
    const found = find(c as Document, stage);
    if (found['stage'] === stage) return found;
  }
  return {};
}

describe('explain find', () => {
  test('a point query on 20k documents examines one key and one document', async () => {
    const e = await big.find({ k: 17_777 }).explain('executionStats');
    assert.deepEqual(chain(e['queryPlanner']['winningPlan']), ['FETCH', 'IXSCAN']);
    const ix = find(e['queryPlanner']['winningPlan'], 'IXSCAN');
    assert.equal(ix['indexName'], 'k_1');
    assert.deepEqual(ix['keyPattern'], { k: 1 });
    assert.deepEqual(ix['indexBounds'], { k: ['[17777, 17777]'] });
    assert.equal(ix['isMultiKey'], false);
    assert.equal(ix['direction'], 'forward');
    const stats = e['executionStats'];
    assert.equal(stats['nReturned'], 1);
    assert.equal(stats['totalKeysExamined'], 1);
    assert.equal(stats['totalDocsExamined'], 1);
    assert.equal(stats['executionSuccess'], true);
    assert.equal(typeof stats['executionTimeMillis'], 'number');
    assert.equal(find(stats['executionStages'], 'IXSCAN')['keysExamined'], 1);
    assert.equal(find(stats['executionStages'], 'FETCH')['docsExamined'], 1);
    assert.equal(e['queryPlanner']['namespace'], 'explain.big');
    assert.deepEqual(e['queryPlanner']['parsedQuery'], { k: { $eq: 17_777 } });
    assert.deepEqual(e['command'], { find: 'big', filter: { k: 17_777 }, $db: 'explain' });
    assert.equal(typeof e['serverInfo']['version'], 'string');
    assert.equal(e['ok'], 1);
  });

  test('without an index: COLLSCAN over every document, with the filter', async () => {
    const e = await big
      .find({ s: 's5', k: { $lt: 100 } })
      .hint({ $natural: 1 })
      .explain('executionStats');
    const plan = e['queryPlanner']['winningPlan'];
    assert.equal(plan['stage'], 'COLLSCAN');
    assert.deepEqual(plan['filter'], { $and: [{ s: { $eq: 's5' } }, { k: { $lt: 100 } }] });
    assert.equal(e['executionStats']['totalDocsExamined'], N);
    assert.equal(e['executionStats']['totalKeysExamined'], 0);
    assert.equal(e['executionStats']['nReturned'], 1);
  });

  test('ranges, compound equality prefixes, and the bounds as mongod prints them', async () => {
    const r = await big.find({ k: { $gt: N - 10 } }).explain('executionStats');
    assert.deepEqual(find(r['queryPlanner']['winningPlan'], 'IXSCAN')['indexBounds'], {
      k: [`(${N - 10}, inf.0]`],
    });
    assert.equal(r['executionStats']['totalKeysExamined'], 9);
    const c = await big.find({ g: 7, s: { $in: ['s7', 's107'] } }).explain('executionStats');
    const ix = find(c['queryPlanner']['winningPlan'], 'IXSCAN');
    assert.equal(ix['indexName'], 'g_1_s_1');
    assert.deepEqual(ix['indexBounds'], { g: ['[7, 7]'], s: ['["s107", "s107"]', '["s7", "s7"]'] });
    assert.equal(c['executionStats']['nReturned'], (2 * N) / 1000);
    assert.equal(c['executionStats']['totalKeysExamined'], (2 * N) / 1000);
    const strings = await small.find({ b: { $gte: 'y' } }).explain('queryPlanner');
    const bix = find(strings['queryPlanner']['winningPlan'], 'IXSCAN');
    assert.deepEqual(bix['indexBounds'], { b: ['({}, "y"]'] });
    const prefix = await small.find({ b: /^z/ }).explain('queryPlanner');
    assert.deepEqual(find(prefix['queryPlanner']['winningPlan'], 'IXSCAN')['indexBounds'], {
      b: ['[/^z/, /^z/]', '("{", "z"]'],
    });
  });

  test('sort by an index: no SORT stage, reverse scans, and a blocking SORT otherwise', async () => {
    const asc = await big.find({}).sort({ k: -1 }).limit(3).explain('executionStats');
    assert.deepEqual(chain(asc['queryPlanner']['winningPlan']), ['LIMIT', 'FETCH', 'IXSCAN']);
    assert.equal(find(asc['queryPlanner']['winningPlan'], 'IXSCAN')['direction'], 'backward');
    assert.equal(asc['executionStats']['totalKeysExamined'], 3);
    const docs = await big.find({}).sort({ k: -1 }).limit(3).toArray();
    assert.deepEqual(
      docs.map((d) => d['_id']),
      [N - 1, N - 2, N - 3],
    );
    const compound = await big.find({ g: 3 }).sort({ s: -1 }).limit(2).explain('queryPlanner');
    assert.deepEqual(chain(compound['queryPlanner']['winningPlan']), ['LIMIT', 'FETCH', 'IXSCAN']);
    const blocking = await small
      .find({ a: { $gt: 0 } })
      .sort({ b: 1, a: 1 })
      .explain('queryPlanner');
    const sort = find(blocking['queryPlanner']['winningPlan'], 'SORT');
    assert.deepEqual(sort['sortPattern'], { b: 1, a: 1 });
    // A multikey field cannot give the order of a sort on it.
    const mk = await small
      .find({ tags: { $exists: true } })
      .sort({ tags: 1 })
      .explain('queryPlanner');
    assert.ok(chain(mk['queryPlanner']['winningPlan']).includes('SORT'));
  });

  test('covered queries: PROJECTION_COVERED and no document examined', async () => {
    const e = await big
      .find({ k: { $gte: 10, $lt: 20 } }, { projection: { _id: 0, k: 1 } })
      .explain('executionStats');
    assert.deepEqual(chain(e['queryPlanner']['winningPlan']), ['PROJECTION_COVERED', 'IXSCAN']);
    assert.equal(e['executionStats']['totalDocsExamined'], 0);
    assert.equal(e['executionStats']['nReturned'], 10);
    const docs = await big
      .find({ k: { $gte: 10, $lt: 13 } }, { projection: { _id: 0, k: 1 } })
      .toArray();
    assert.deepEqual(docs, [{ k: 10 }, { k: 11 }, { k: 12 }]);
    // _id is not in the index: not covered.
    const withId = await big.find({ k: 5 }, { projection: { k: 1 } }).explain('queryPlanner');
    assert.ok(chain(withId['queryPlanner']['winningPlan']).includes('FETCH'));
    // A multikey index never covers.
    const mk = await small
      .find({ tags: 'q' }, { projection: { _id: 0, tags: 1 } })
      .explain('queryPlanner');
    assert.ok(chain(mk['queryPlanner']['winningPlan']).includes('FETCH'));
    assert.deepEqual(
      await small.find({ tags: 'q' }, { projection: { _id: 0, tags: 1 } }).toArray(),
      [{ tags: ['p', 'q'] }, { tags: ['q'] }],
    );
  });

  test('IDHACK, SKIP, LIMIT, EOF, OR and candidate plans', async () => {
    const id = await small.find({ _id: 3 }).explain('executionStats');
    assert.equal(id['queryPlanner']['winningPlan']['stage'], 'IDHACK');
    assert.equal(id['executionStats']['totalKeysExamined'], 1);
    const sl = await small
      .find({ a: { $gt: 0 } })
      .skip(1)
      .limit(2)
      .explain('queryPlanner');
    assert.deepEqual(chain(sl['queryPlanner']['winningPlan']).slice(0, 2), ['LIMIT', 'SKIP']);
    const eof = await db.collection('nothing_here').find({ a: 1 }).explain('queryPlanner');
    assert.equal(eof['queryPlanner']['winningPlan']['stage'], 'EOF');
    const or = await small.find({ $or: [{ a: 1 }, { b: 'z' }] }).explain('executionStats');
    const orStage = find(or['queryPlanner']['winningPlan'], 'OR');
    assert.equal(orStage['stage'], 'OR');
    assert.equal((orStage['inputStages'] as Document[]).length, 2);
    assert.equal(or['executionStats']['nReturned'], 2);
    const two = await big.find({ k: { $lt: 50 }, g: 1 }).explain('allPlansExecution');
    assert.equal(two['queryPlanner']['rejectedPlans'].length, 1);
    assert.equal(two['executionStats']['allPlansExecution'].length, 2);
    assert.equal(two['executionStats']['nReturned'], 1);
  });

  test('verbosities and errors', async () => {
    const qp = await small.find({ a: 1 }).explain('queryPlanner');
    assert.equal(qp['executionStats'], undefined);
    const all = await small.find({ a: 1 }).explain(true);
    assert.ok(Array.isArray(all['executionStats']['allPlansExecution']));
    await assert.rejects(
      db.command({ explain: { find: 'small' }, verbosity: 'loud' }),
      (e: unknown) => e instanceof MongoServerError && e.code === 2,
    );
    await assert.rejects(
      db.command({ explain: { nope: 'small' } }),
      (e: unknown) => e instanceof MongoServerError && e.code === 59,
    );
  });
});

describe('explain other commands', () => {
  test('count, distinct', async () => {
    const c = await db.command({
      explain: { count: 'big', query: { k: { $lt: 5 } } },
      verbosity: 'executionStats',
    });
    assert.deepEqual(chain(c['queryPlanner']['winningPlan']).slice(0, 2), ['COUNT', 'IXSCAN']);
    assert.equal(c['executionStats']['executionStages']['nCounted'], 5);
    assert.equal(
      c['executionStats']['totalDocsExamined'],
      0,
      'a count whose filter the index holds needs no document',
    );
    const fast = await db.command({ explain: { count: 'big' }, verbosity: 'executionStats' });
    assert.equal(fast['queryPlanner']['winningPlan']['stage'], 'RECORD_STORE_FAST_COUNT');
    const d = await db.command({
      explain: { distinct: 'small', key: 'b', query: { a: { $gte: 5 } } },
      verbosity: 'executionStats',
    });
    assert.ok(chain(d['queryPlanner']['winningPlan']).includes('IXSCAN'));
    assert.equal(d['executionStats']['nReturned'], 3);
  });

  test('update, delete and findAndModify explain without writing', async () => {
    const u = await db.command({
      explain: { update: 'small', updates: [{ q: { a: 5 }, u: { $set: { b: 'changed' } } }] },
      verbosity: 'executionStats',
    });
    assert.deepEqual(chain(u['queryPlanner']['winningPlan']), [
      'UPDATE',
      'LIMIT',
      'FETCH',
      'IXSCAN',
    ]);
    assert.equal(u['executionStats']['executionStages']['nMatched'], 1);
    assert.equal(u['executionStats']['executionStages']['nWouldModify'], 1);
    const del = await db.command({
      explain: { delete: 'small', deletes: [{ q: { a: { $gt: 3 } }, limit: 0 }] },
      verbosity: 'executionStats',
    });
    assert.equal(del['queryPlanner']['winningPlan']['stage'], 'DELETE');
    assert.equal(del['executionStats']['executionStages']['nWouldDelete'], 3);
    const fam = await db.command({
      explain: { findAndModify: 'small', query: { b: 'x' }, update: { $inc: { a: 1 } } },
      verbosity: 'queryPlanner',
    });
    assert.equal(fam['queryPlanner']['winningPlan']['stage'], 'UPDATE');
    assert.equal((await small.findOne({ _id: 2 }))?.['b'], 'y');
    assert.equal((await small.findOne({ _id: 1 }))?.['a'], 1);
    assert.equal(await small.countDocuments(), 4);
    await assert.rejects(
      db.command({
        explain: {
          update: 'small',
          updates: [
            { q: {}, u: {} },
            { q: {}, u: {} },
          ],
        },
      }),
      (e: unknown) => e instanceof MongoServerError && e.code === 16,
    );
  });

  test('aggregate: a leading $match and $sort use the index, the rest are stages', async () => {
    const e = await big
      .aggregate([
        { $match: { k: { $lt: 3 } } },
        { $sort: { k: -1 } },
        { $group: { _id: null, n: { $sum: 1 } } },
      ])
      .explain('executionStats');
    const cursor = e['stages'][0]['$cursor'];
    const plan = cursor['queryPlanner']['winningPlan'];
    assert.ok(!chain(plan).includes('SORT'), JSON.stringify(plan));
    assert.equal(find(plan, 'IXSCAN')['indexName'], 'k_1');
    assert.equal(cursor['executionStats']['totalKeysExamined'], 3);
    assert.ok('$group' in e['stages'][1]);
    const only = await big.aggregate([{ $match: { k: 9 } }]).explain('queryPlanner');
    assert.deepEqual(chain(only['queryPlanner']['winningPlan']), ['FETCH', 'IXSCAN']);
    const res = await big
      .aggregate([{ $sort: { k: -1 } }, { $limit: 2 }, { $project: { _id: 1 } }])
      .toArray();
    assert.deepEqual(res, [{ _id: N - 1 }, { _id: N - 2 }]);
  });
});
