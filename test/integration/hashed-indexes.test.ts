// Hashed indexes through the driver, as mongod 7.0 shows them: {a: "hashed"} and compound
// hashed indexes, keys that are mongod's hashes ($toHashedIndexKey agrees, explain shows
// them as bounds), equality and $in served by IXSCAN + FETCH (which re-checks the filter),
// ranges and sorts not served by the hashed field, arrays refused at insert and at build
// (16766), and bad specifications with mongod's codes. A property test checks that results
// with and without the index agree on generated data.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal128, Double, Int32, Long } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const CannotIndexArrays = 16766;
const UniqueHashed = 16764;
const TwoHashedFields = 31303;
const CannotCreateIndex = 67;

/** The stages of a winning plan, outermost first. */
function stages(plan: Document): Document[] {
  const out: Document[] = [];
  let node: Document | undefined = plan;
  while (node !== undefined) {
    out.push(node);
    node = (node['inputStage'] as Document | undefined) ?? undefined;
  }
  return out;
}

async function winning(
  db: Db,
  coll: string,
  filter: Document,
  sort?: Document,
): Promise<Document[]> {
  const c = db.collection(coll).find(filter);
  if (sort !== undefined) c.sort(sort);
  const plan = await c.explain('queryPlanner');
  return stages(plan['queryPlanner']['winningPlan'] as Document);
}

describe('hashed indexes', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('hashed_test');
  });
  after(async () => {
    await ts.stop();
  });

  test('createIndex, listIndexes, keys equal to $toHashedIndexKey', async () => {
    const c = db.collection<TestDoc>('basic');
    assert.equal(await c.createIndex({ a: 'hashed' }), 'a_hashed');
    const list = await c.listIndexes().toArray();
    assert.deepEqual(list[1], { v: 2, key: { a: 'hashed' }, name: 'a_hashed' });
    await c.insertMany([
      { _id: 1, a: 42 },
      { _id: 2, a: new Double(42.5) },
      { _id: 3, a: 'abc' },
      { _id: 4, a: { x: [1, 2] } },
      { _id: 5 },
    ]);
    const [row] = await c
      .aggregate([
        { $match: { _id: 1 } },
        { $project: { _id: 0, h: { $toHashedIndexKey: '$a' }, m: { $toHashedIndexKey: '$zz' } } },
      ])
      .toArray();
    assert.deepEqual(row?.['h'], Long.fromString('-944302157085130861'));
    // hint + returnKey shows the stored keys: missing is the hash of null.
    const keys = await c.find({}, { hint: 'a_hashed', returnKey: true }).toArray();
    assert.equal(keys.length, 5);
    assert.ok(keys.some((k) => String(k['a']) === '-944302157085130861'));
    assert.ok(keys.some((k) => String(k['a']) === String(row?.['m'])));
  });

  test('equality and $in: IXSCAN with hashed bounds + FETCH with the filter', async () => {
    const c = db.collection<TestDoc>('basic');
    assert.deepEqual(
      (await c.find({ a: 42 }).toArray()).map((d) => d._id),
      [1],
    );
    // 42.5 hashes as 42: the index finds both, the filter keeps the right one.
    assert.deepEqual(
      (await c.find({ a: 42.5 }).toArray()).map((d) => d._id),
      [2],
    );
    assert.deepEqual(
      (
        await c
          .find({ a: { $in: ['abc', 42] } })
          .sort({ _id: 1 })
          .toArray()
      ).map((d) => d._id),
      [1, 3],
    );
    assert.deepEqual(
      (await c.find({ a: { x: [1, 2] } }).toArray()).map((d) => d._id),
      [4],
    );
    assert.deepEqual(
      (await c.find({ a: null }).toArray()).map((d) => d._id),
      [5],
    );
    const plan = await winning(db, 'basic', { a: 42 });
    assert.deepEqual(
      plan.map((s) => s['stage']),
      ['FETCH', 'IXSCAN'],
    );
    assert.deepEqual(plan[0]?.['filter'], { a: { $eq: 42 } });
    assert.deepEqual(plan[1]?.['keyPattern'], { a: 'hashed' });
    assert.equal(plan[1]?.['isMultiKey'], false);
    assert.deepEqual(plan[1]?.['indexBounds'], {
      a: ['[-944302157085130861, -944302157085130861]'],
    });
    const inPlan = await winning(db, 'basic', { a: { $in: [42, 'abc'] } });
    assert.equal(inPlan[1]?.['stage'], 'IXSCAN');
    assert.equal((inPlan[1]?.['indexBounds'] as Document)['a'].length, 2);
  });

  test('ranges, regexes and sorts are not served by the hashed field', async () => {
    for (const filter of [{ a: { $gt: 1 } }, { a: /ab/ }, { a: { $exists: true } }]) {
      const plan = await winning(db, 'basic', filter);
      assert.equal(plan.at(-1)?.['stage'], 'COLLSCAN', JSON.stringify(filter));
    }
    const sorted = await winning(db, 'basic', {}, { a: 1 });
    assert.ok(!sorted.some((s) => s['stage'] === 'IXSCAN'));
    const c = db.collection<TestDoc>('basic');
    assert.deepEqual(
      (await c.find({ a: { $gte: 42 } }).toArray()).map((d) => d._id).sort(),
      [1, 2],
    );
  });

  test('compound hashed: {a: 1, b: "hashed"} bounds both; sort on the prefix', async () => {
    const c = db.collection<TestDoc>('compound');
    await c.createIndex({ a: 1, b: 'hashed', c: -1 });
    await c.insertMany(
      Array.from({ length: 20 }, (_, i) => ({ _id: i, a: i % 4, b: `s${i % 5}`, c: i })),
    );
    const got = await c.find({ a: 1, b: 's0' }).toArray();
    assert.deepEqual(
      got.map((d) => d._id),
      [5],
    );
    const plan = await winning(db, 'compound', { a: 1, b: 's0' });
    assert.equal(plan[1]?.['stage'], 'IXSCAN');
    const bounds = plan[1]?.['indexBounds'] as Document;
    assert.deepEqual(bounds['a'], ['[1, 1]']);
    assert.equal(bounds['b'].length, 1);
    assert.deepEqual(bounds['c'], ['[MaxKey, MinKey]']);
    // A range on the btree prefix still uses the index; sort on the hashed field does not.
    const range = await winning(db, 'compound', { a: { $gte: 2 } });
    assert.equal(range[1]?.['stage'], 'IXSCAN');
    assert.deepEqual(
      (
        await c
          .find({ a: { $gte: 3 } })
          .sort({ _id: 1 })
          .toArray()
      ).map((d) => d._id),
      [3, 7, 11, 15, 19],
    );
  });

  test('arrays are refused at insert (any field of the index) and at build', async () => {
    const c = db.collection<TestDoc>('arrays');
    await c.createIndex({ 'a.b': 'hashed', c: 1 });
    let e = await expectServerCode(c.insertOne({ _id: 1, a: { b: [1] } }), CannotIndexArrays);
    assert.match(e.message, /Found array at path: a\.b$/);
    e = await expectServerCode(c.insertOne({ _id: 2, a: [{ b: 1 }] }), CannotIndexArrays);
    assert.match(e.message, /Found array at path: a$/);
    await expectServerCode(c.insertOne({ _id: 3, a: { b: 1 }, c: [1] }), CannotIndexArrays);
    await expectServerCode(
      c.updateOne({}, { $set: { c: [2] } }, { upsert: true }),
      CannotIndexArrays,
    );
    // An array below the hashed value is part of that value.
    await c.insertOne({ _id: 4, a: { b: { x: [1] } }, c: 1 });
    assert.equal(await c.countDocuments(), 1);
    // A build over an array fails and leaves no index.
    const d = db.collection<TestDoc>('arraysBuild');
    await d.insertMany([
      { _id: 1, a: 1 },
      { _id: 2, a: [1, 2] },
    ]);
    await expectServerCode(d.createIndex({ a: 'hashed' }), CannotIndexArrays);
    assert.equal((await d.listIndexes().toArray()).length, 1);
    // The other documents and clients are unaffected.
    assert.equal(await d.countDocuments(), 2);
  });

  test('bad specifications answer with mongod codes', async () => {
    const c = db.collection<TestDoc>('bad');
    await expectServerCode(c.createIndex({ a: 'hashed', b: 'hashed' }), TwoHashedFields);
    await expectServerCode(c.createIndex({ a: 'hashed' }, { unique: true }), UniqueHashed);
    await expectServerCode(c.createIndex({ a: 'hashed', b: '2dsphere' }), CannotCreateIndex);
    await expectServerCode(c.createIndex({ a: 'hashed', b: 0 }), CannotCreateIndex);
    assert.deepEqual(
      (
        await c
          .listIndexes()
          .toArray()
          .catch(() => [])
      ).map((i) => i['name']),
      [],
    );
    // Sparse hashed: documents without the field are not indexed, and {a: null} does not use it.
    const s = db.collection<TestDoc>('sparse');
    await s.createIndex({ a: 'hashed' }, { sparse: true });
    await s.insertMany([{ _id: 1 }, { _id: 2, a: 1 }]);
    assert.deepEqual(
      (await s.find({ a: null }).toArray()).map((d) => d._id),
      [1],
    );
    assert.equal((await winning(db, 'sparse', { a: 1 }))[1]?.['stage'], 'IXSCAN');
  });

  test('results with and without the index agree (generated data)', async () => {
    const value = fc.oneof(
      fc.integer({ min: -3, max: 3 }).map((n) => new Int32(n)),
      fc.integer({ min: -3, max: 3 }).map((n) => Long.fromNumber(n)),
      fc.constantFrom(-2.5, -0.5, 0, 0.5, 1.5, 2.5, 3, NaN).map((n) => new Double(n)),
      fc
        .constantFrom('-2.5', '0.5', '1.5', '2.5', '3', '1E+1')
        .map((s) => Decimal128.fromString(s)),
      fc.constantFrom('a', 'b', ''),
      fc.constant(null),
      fc.record({ x: fc.constantFrom(1, 2) }),
    );
    const plain = db.collection<TestDoc>('prop_plain');
    const indexed = db.collection<TestDoc>('prop_indexed');
    await indexed.createIndex({ v: 'hashed' });
    const docs = fc
      .sample(fc.record({ v: value, w: fc.integer({ min: 0, max: 2 }) }, { requiredKeys: ['w'] }), {
        numRuns: 200,
        seed: 17,
      })
      .map((d, i) => ({ _id: i, ...d }));
    await plain.insertMany(docs);
    await indexed.insertMany(docs);
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 3 }), async (vals) => {
        const filter = vals.length === 1 ? { v: vals[0] } : { v: { $in: vals } };
        const ids = async (c: typeof plain): Promise<unknown[]> =>
          (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
        assert.deepEqual(await ids(indexed), await ids(plain), JSON.stringify(filter));
      }),
      { numRuns: 60, seed: 17 },
    );
    const plan = await winning(db, 'prop_indexed', { v: 1 });
    assert.equal(plan[1]?.['stage'], 'IXSCAN');
  });
});
