// Collation through the official driver: locale-aware string comparison in find, count,
// distinct, update, delete and findAndModify; a collection's default collation and the simple
// override; the index rule (a simple-collation index never answers string bounds of a collated
// query); bad collation documents. Expected values come from MongoDB's collation manual
// (reference/collation, the case-insensitive index and numericOrdering examples) and the crud
// spec tests (distinct-collation, updateOne-collation, deleteMany-collation,
// findOneAndUpdate-collation), not from this server.

import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Collection, Db, Document } from 'mongodb';
import {
  arrayUpdate,
  collectionInfo,
  expectServerCode,
  freshCollection,
} from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let ts: TestServer;
let db: Db;

before(async () => {
  ts = await startTestServer();
  db = ts.client.db('collation_tests');
});

after(async () => {
  await ts?.stop();
});

const fresh = (name: string, docs: Document[]): Promise<Collection<TestDoc>> =>
  freshCollection(db, name, docs);
const ids = (docs: Document[]): unknown[] => docs.map((d) => d['_id']);

const fruit = [
  { _id: 1, type: 'apple' },
  { _id: 2, type: 'Apple' },
  { _id: 3, type: 'APPLE' },
  { _id: 4, type: 'àpple' },
  { _id: 5, type: 'pear' },
];

test('strength 2 finds case-insensitively, strength 1 also ignores diacritics, the default is binary', async () => {
  const c = await fresh('fruit', fruit);
  assert.deepEqual(ids(await c.find({ type: 'apple' }).sort({ _id: 1 }).toArray()), [1]);
  assert.deepEqual(
    ids(
      await c
        .find({ type: 'apple' }, { collation: { locale: 'en', strength: 2 } })
        .sort({ _id: 1 })
        .toArray(),
    ),
    [1, 2, 3],
  );
  assert.deepEqual(
    ids(
      await c
        .find({ type: 'apple' }, { collation: { locale: 'en', strength: 1 } })
        .sort({ _id: 1 })
        .toArray(),
    ),
    [1, 2, 3, 4],
  );
  assert.equal(
    await c.countDocuments({ type: 'APPLE' }, { collation: { locale: 'en', strength: 2 } }),
    3,
  );
  assert.deepEqual(
    ids(
      await c
        .find({ type: { $in: ['PEAR', 'x'] } }, { collation: { locale: 'en', strength: 2 } })
        .toArray(),
    ),
    [5],
  );
  assert.deepEqual(
    ids(
      await c
        .find({ type: { $gt: 'APPLE', $lt: 'z' } }, { collation: { locale: 'en', strength: 2 } })
        .sort({ _id: 1 })
        .toArray(),
    ),
    [4, 5],
  );
  // Regular expressions do not use the collation.
  assert.deepEqual(
    ids(
      await c
        .find({ type: { $regex: '^apple' } }, { collation: { locale: 'en', strength: 2 } })
        .toArray(),
    ),
    [1],
  );
});

test('numericOrdering sorts digit runs as numbers; caseFirst upper sorts capitals first', async () => {
  const c = await fresh('numbers', [
    { _id: 1, n: '10' },
    { _id: 2, n: '2' },
    { _id: 3, n: '1' },
    { _id: 4, n: '20' },
  ]);
  const sorted = await c
    .find({}, { collation: { locale: 'en_US', numericOrdering: true } })
    .sort({ n: 1 })
    .toArray();
  assert.deepEqual(
    sorted.map((d) => d['n']),
    ['1', '2', '10', '20'],
  );
  const binary = await c.find({}).sort({ n: 1 }).toArray();
  assert.deepEqual(
    binary.map((d) => d['n']),
    ['1', '10', '2', '20'],
  );
  const letters = await fresh('letters', [
    { _id: 1, s: 'a' },
    { _id: 2, s: 'A' },
    { _id: 3, s: 'b' },
    { _id: 4, s: 'B' },
  ]);
  const upper = await letters
    .find({}, { collation: { locale: 'en', caseFirst: 'upper' } })
    .sort({ s: 1 })
    .toArray();
  assert.deepEqual(
    upper.map((d) => d['s']),
    ['A', 'a', 'B', 'b'],
  );
  const lower = await letters
    .find({}, { collation: { locale: 'en', caseFirst: 'lower' } })
    .sort({ s: 1 })
    .toArray();
  assert.deepEqual(
    lower.map((d) => d['s']),
    ['a', 'A', 'b', 'B'],
  );
});

test('distinct with a collation returns one value per collation-equal group (crud spec distinct-collation)', async () => {
  const c = await fresh('distinct', [
    { _id: 1, string: 'PING' },
    { _id: 2, string: 'ping' },
  ]);
  assert.deepEqual(
    await c.distinct('string', {}, { collation: { locale: 'en_US', strength: 2 } }),
    ['PING'],
  );
  assert.deepEqual((await c.distinct('string')).sort(), ['PING', 'ping']);
});

test('update, delete and findAndModify match with the statement collation (crud spec tests)', async () => {
  const u = await fresh('upd', [
    { _id: 1, x: 11 },
    { _id: 2, x: 'ping' },
  ]);
  const r = await u.updateOne(
    { x: 'PING' },
    { $set: { x: 1 } },
    { collation: { locale: 'en_US', strength: 2 } },
  );
  assert.equal(r.matchedCount, 1);
  assert.deepEqual(await u.findOne({ _id: 2 }), { _id: 2, x: 1 });
  const d = await fresh('del', [
    { _id: 1, x: 11 },
    { _id: 2, x: 'ping' },
    { _id: 3, x: 'pINg' },
  ]);
  assert.equal(
    (await d.deleteMany({ x: 'PING' }, { collation: { locale: 'en_US', strength: 2 } }))
      .deletedCount,
    2,
  );
  assert.deepEqual(await d.find().toArray(), [{ _id: 1, x: 11 }]);
  const f = await fresh('fam', [
    { _id: 1, x: 11 },
    { _id: 2, x: 'ping' },
    { _id: 3, x: 'pINg' },
  ]);
  const before = await f.findOneAndUpdate(
    { x: 'PING' },
    { $set: { x: 'pong' } },
    { collation: { locale: 'en_US', strength: 2 }, sort: { _id: 1 } },
  );
  assert.deepEqual(before, { _id: 2, x: 'ping' });
  const removed = await f.findOneAndDelete(
    { x: 'PING' },
    { collation: { locale: 'en_US', strength: 2 } },
  );
  assert.deepEqual(removed, { _id: 3, x: 'pINg' });
});

test('update operators compare by the collation: $addToSet, $pull, $pullAll, $min, $max, $push $sort, arrayFilters', async () => {
  const collation = { locale: 'en', strength: 2 };
  const c = await fresh('upd_ops', [
    { _id: 1, a: ['foo', 'bar'], s: 'b', n: ['10', '9'], t: ['x', 'y'] },
  ]);
  await c.updateOne({ _id: 1 }, { $addToSet: { a: 'FOO' } }, { collation });
  assert.deepEqual((await c.findOne({ _id: 1 }))?.['a'], ['foo', 'bar']);
  await c.updateOne({ _id: 1 }, arrayUpdate({ $pull: { a: 'BAR' } }), { collation });
  assert.deepEqual((await c.findOne({ _id: 1 }))?.['a'], ['foo']);
  await c.updateOne({ _id: 1 }, arrayUpdate({ $pullAll: { a: ['FOO'] } }), { collation });
  assert.deepEqual((await c.findOne({ _id: 1 }))?.['a'], []);
  // 'B' equals 'b' at strength 2: $max keeps the stored value.
  await c.updateOne({ _id: 1 }, { $max: { s: 'B' } }, { collation });
  assert.equal((await c.findOne({ _id: 1 }))?.['s'], 'b');
  await c.updateOne({ _id: 1 }, { $max: { s: 'B' } });
  assert.equal((await c.findOne({ _id: 1 }))?.['s'], 'b'); // binary: 'B' < 'b'
  await c.updateOne({ _id: 1 }, arrayUpdate({ $push: { n: { $each: ['100'], $sort: 1 } } }), {
    collation: { locale: 'en', numericOrdering: true },
  });
  assert.deepEqual((await c.findOne({ _id: 1 }))?.['n'], ['9', '10', '100']);
  await c.updateOne(
    { _id: 1 },
    { $set: { 't.$[e]': 'z' } },
    { collation, arrayFilters: [{ e: 'X' }] },
  );
  assert.deepEqual((await c.findOne({ _id: 1 }))?.['t'], ['z', 'y']);
});

test('a collection default collation applies when the operation gives none; {locale: "simple"} overrides it', async () => {
  await db
    .collection<TestDoc>('ci')
    .drop()
    .catch(() => undefined);
  const c = await db.createCollection<TestDoc>('ci', { collation: { locale: 'en', strength: 2 } });
  await c.insertMany([
    { _id: 1, name: 'Alice' },
    { _id: 2, name: 'alice' },
    { _id: 3, name: 'Bob' },
  ]);
  assert.deepEqual(ids(await c.find({ name: 'ALICE' }).sort({ _id: 1 }).toArray()), [1, 2]);
  assert.deepEqual(
    ids(await c.find({ name: 'ALICE' }, { collation: { locale: 'simple' } }).toArray()),
    [],
  );
  assert.deepEqual(
    ids(await c.find({ name: 'alice' }, { collation: { locale: 'simple' } }).toArray()),
    [2],
  );
  assert.equal((await c.deleteMany({ name: 'BOB' })).deletedCount, 1);
  const collation = (await collectionInfo(db, 'ci')).options?.['collation'] as Document;
  assert.equal(collation['locale'], 'en');
  assert.equal(collation['strength'], 2);
  assert.equal(collation['caseLevel'], false);
  assert.equal(collation['alternate'], 'non-ignorable');
  // Indexes would inherit the default collation, which they cannot hold: refused unless simple.
  await expectServerCode(c.createIndex({ name: 1 }), 238);
  await c.createIndex({ name: 1 }, { collation: { locale: 'simple' } });
  assert.deepEqual(ids(await c.find({ name: 'ALICE' }).sort({ _id: 1 }).toArray()), [1, 2]);
  // Aggregation: $match, $sort and $group keys follow the default collation; the group keeps
  // the first key it saw.
  const groups = await c
    .aggregate([{ $match: { name: 'ALICE' } }, { $group: { _id: '$name', n: { $sum: 1 } } }])
    .toArray();
  assert.deepEqual(groups, [{ _id: 'Alice', n: 2 }]);
  // Expressions compare by it too ($eq, $in, set operators...), in pipelines and in find's $expr.
  const same = await c
    .aggregate([
      { $project: { same: { $eq: ['$name', 'ALICE'] }, listed: { $in: ['$name', ['ALICE']] } } },
      { $sort: { _id: 1 } },
    ])
    .toArray();
  assert.deepEqual(same, [
    { _id: 1, same: true, listed: true },
    { _id: 2, same: true, listed: true },
  ]);
  assert.deepEqual(
    ids(
      await c
        .find({ $expr: { $eq: ['$name', 'ALICE'] } })
        .sort({ _id: 1 })
        .toArray(),
    ),
    [1, 2],
  );
  assert.deepEqual(
    ids(
      await c
        .find({ $expr: { $eq: ['$name', 'ALICE'] } }, { collation: { locale: 'simple' } })
        .toArray(),
    ),
    [],
  );
  // Stages and operators that do not follow a collation yet are refused, not answered in binary order.
  await expectServerCode(
    c.aggregate([{ $bucketAuto: { groupBy: '$name', buckets: 2 } }]).toArray(),
    238,
  );
  await expectServerCode(
    c.aggregate([{ $group: { _id: null, top: { $maxN: { input: '$name', n: 1 } } } }]).toArray(),
    238,
  );
  // A view has its own (simple) default collation, not its collection's; a command may not override it.
  await db
    .collection('ci_view')
    .drop()
    .catch(() => undefined);
  await db.createCollection('ci_view', { viewOn: 'ci', pipeline: [] });
  assert.deepEqual(ids(await db.collection('ci_view').find({ name: 'ALICE' }).toArray()), []);
  await expectServerCode(
    db
      .collection('ci_view')
      .find({}, { collation: { locale: 'en', strength: 2 } })
      .toArray(),
    167,
  );
});

test('aggregate: $match, $sort and $group follow the command collation (countDocuments too)', async () => {
  const c = await fresh('agg', [
    { _id: 1, s: 'b' },
    { _id: 2, s: 'A' },
    { _id: 3, s: 'a' },
    { _id: 4, s: 'B' },
    { _id: 5, s: 'c' },
  ]);
  const collation = { locale: 'en', strength: 2 };
  assert.equal(await c.countDocuments({ s: 'A' }, { collation }), 2);
  const groups = await c
    .aggregate([{ $group: { _id: '$s', n: { $sum: 1 } } }, { $sort: { _id: 1 } }], { collation })
    .toArray();
  assert.deepEqual(groups, [
    { _id: 'A', n: 2 },
    { _id: 'b', n: 2 },
    { _id: 'c', n: 1 },
  ]);
  const sorted = await c
    .aggregate([{ $match: { s: { $lte: 'B' } } }, { $sort: { s: -1, _id: 1 } }], { collation })
    .toArray();
  assert.deepEqual(ids(sorted), [1, 4, 2, 3]);
  const set = await c
    .aggregate([{ $group: { _id: null, set: { $addToSet: '$s' } } }], { collation })
    .toArray();
  assert.deepEqual(set, [{ _id: null, set: ['b', 'A', 'c'] }]);
  // Binary order puts 'B' before 'a'; the collation puts 'a' first.
  const mm = await fresh('agg_minmax', [
    { _id: 1, t: 'a' },
    { _id: 2, t: 'B' },
  ]);
  const [collated] = await mm
    .aggregate([{ $group: { _id: null, lo: { $min: '$t' }, hi: { $max: '$t' } } }], { collation })
    .toArray();
  assert.deepEqual(collated, { _id: null, lo: 'a', hi: 'B' });
  const [binary] = await mm
    .aggregate([{ $group: { _id: null, lo: { $min: '$t' }, hi: { $max: '$t' } } }])
    .toArray();
  assert.deepEqual(binary, { _id: null, lo: 'B', hi: 'a' });
});

function stagesOf(plan: Document): string[] {
  const out: string[] = [];
  for (
    let s: Document | undefined = plan;
    s !== undefined;
    s = s['inputStage'] as Document | undefined
  )
    out.push(String(s['stage']));
  return out;
}

test('a simple-collation index never answers string bounds of a collated query; other bounds still use it', async () => {
  const c = await fresh('indexed', [...fruit, { _id: 6, type: 7 }]);
  await c.createIndex({ type: 1 });
  const collation = { locale: 'en', strength: 2 };
  const strings = await c.find({ type: 'apple' }, { collation }).explain('queryPlanner');
  assert.ok(
    !stagesOf(strings['queryPlanner'].winningPlan).includes('IXSCAN'),
    JSON.stringify(strings['queryPlanner'].winningPlan),
  );
  assert.deepEqual(
    ids(await c.find({ type: 'apple' }, { collation }).sort({ _id: 1 }).toArray()),
    [1, 2, 3],
  );
  const numbers = await c.find({ type: 7 }, { collation }).explain('queryPlanner');
  assert.ok(stagesOf(numbers['queryPlanner'].winningPlan).includes('IXSCAN'));
  // The index's binary order is not the collation's: a blocking sort orders.
  const sorted = await c
    .find({}, { collation })
    .sort({ type: 1 })
    .hint({ type: 1 })
    .explain('queryPlanner');
  assert.ok(stagesOf(sorted['queryPlanner'].winningPlan).includes('SORT'));
  // Without a collation the index serves the string equality.
  const plain = await c.find({ type: 'apple' }).explain('queryPlanner');
  assert.ok(stagesOf(plain['queryPlanner'].winningPlan).includes('IXSCAN'));
  // A string _id is not pinned through the binary _id index either.
  const byId = await fresh('byid', [{ _id: 'abc' }, { _id: 'x' }]);
  assert.equal(await byId.countDocuments({ _id: 'ABC' }, { collation }), 1);
});

test('$lookup and $graphLookup match by the pipeline collation, also past an index on the foreign field', async () => {
  const orders = await fresh('orders', [
    { _id: 1, item: 'ABC' },
    { _id: 2, item: 'xyz' },
  ]);
  const inventory = await fresh('inventory', [
    { _id: 10, sku: 'abc' },
    { _id: 11, sku: 'Abc' },
    { _id: 12, sku: 'XYZ' },
  ]);
  await inventory.createIndex({ sku: 1 });
  const collation = { locale: 'en', strength: 2 };
  const joined = await orders
    .aggregate(
      [
        { $lookup: { from: 'inventory', localField: 'item', foreignField: 'sku', as: 'stock' } },
        { $project: { n: { $size: '$stock' } } },
        { $sort: { _id: 1 } },
      ],
      { collation },
    )
    .toArray();
  assert.deepEqual(joined, [
    { _id: 1, n: 2 },
    { _id: 2, n: 1 },
  ]);
  const binary = await orders
    .aggregate([
      { $lookup: { from: 'inventory', localField: 'item', foreignField: 'sku', as: 'stock' } },
      { $project: { n: { $size: '$stock' } } },
      { $sort: { _id: 1 } },
    ])
    .toArray();
  assert.deepEqual(binary, [
    { _id: 1, n: 0 },
    { _id: 2, n: 0 },
  ]);
  const graph = await orders
    .aggregate(
      [
        { $match: { _id: 1 } },
        {
          $graphLookup: {
            from: 'inventory',
            startWith: '$item',
            connectFromField: 'sku',
            connectToField: 'sku',
            as: 'g',
          },
        },
        { $project: { n: { $size: '$g' } } },
      ],
      { collation },
    )
    .toArray();
  assert.deepEqual(graph, [{ _id: 1, n: 2 }]);
});

test('an $elemMatch projection follows the collation; change streams with one are refused', async () => {
  const c = await fresh('proj', [{ _id: 1, a: [{ b: 'x' }, { b: 'Y' }] }]);
  const doc = await c.findOne(
    { _id: 1 },
    { projection: { a: { $elemMatch: { b: 'y' } } }, collation: { locale: 'en', strength: 2 } },
  );
  assert.deepEqual(doc, { _id: 1, a: [{ b: 'Y' }] });
  const stream = c.watch([], { collation: { locale: 'en', strength: 2 } });
  await expectServerCode(stream.tryNext(), 238);
  await stream.close();
});

test('a view default collation: reads use it, a different one is refused (167), views on it must share it', async () => {
  const base = await fresh('people', [
    { _id: 1, name: 'Ann' },
    { _id: 2, name: 'ann' },
    { _id: 3, name: 'Bob' },
  ]);
  assert.ok(base);
  for (const v of ['people_ci', 'people_ci2', 'people_bin'])
    await db
      .collection(v)
      .drop()
      .catch(() => undefined);
  await db.createCollection('people_ci', {
    viewOn: 'people',
    pipeline: [],
    collation: { locale: 'en', strength: 2 },
  });
  const view = db.collection('people_ci');
  assert.deepEqual(ids(await view.find({ name: 'ANN' }).sort({ _id: 1 }).toArray()), [1, 2]);
  assert.equal(await view.countDocuments({ name: 'ANN' }), 2);
  assert.deepEqual(await view.distinct('name', { name: 'ann' }), ['Ann']);
  // The same collation may be restated; another one (even simple) may not.
  assert.deepEqual(
    ids(await view.find({ name: 'BOB' }, { collation: { locale: 'en', strength: 2 } }).toArray()),
    [3],
  );
  await expectServerCode(view.find({}, { collation: { locale: 'simple' } }).toArray(), 167);
  const info = await collectionInfo(db, 'people_ci');
  assert.equal((info.options?.['collation'] as Document)['strength'], 2);
  await db.createCollection('people_ci2', {
    viewOn: 'people_ci',
    pipeline: [],
    collation: { locale: 'en', strength: 2 },
  });
  assert.deepEqual(ids(await db.collection('people_ci2').find({ name: 'bob' }).toArray()), [3]);
  await expectServerCode(
    db.createCollection('people_bin', { viewOn: 'people_ci', pipeline: [] }),
    167,
  );
  // A $lookup from a simple-collation pipeline into the view would change its collation.
  await expectServerCode(
    base.aggregate([{ $lookup: { from: 'people_ci', pipeline: [], as: 'x' } }]).toArray(),
    167,
  );
  // collMod of the view keeps its collation.
  await db.command({
    collMod: 'people_ci',
    viewOn: 'people',
    pipeline: [{ $match: { _id: { $gte: 1 } } }],
  });
  assert.deepEqual(ids(await view.find({ name: 'ANN' }).sort({ _id: 1 }).toArray()), [1, 2]);
});

test('indexes: a non-simple collation answers NotImplemented, the simple one is accepted', async () => {
  const c = await fresh('idx_collation', [{ _id: 1, a: 'x' }]);
  await expectServerCode(
    c.createIndex({ a: 1 }, { collation: { locale: 'en', strength: 2 } }),
    238,
  );
  await c.createIndex({ a: 1 }, { collation: { locale: 'simple' } });
});

test('bad collation documents answer with mongod codes', async () => {
  const c = await fresh('bad', [{ _id: 1 }]);
  const find = (collation: Document): Promise<unknown> =>
    db.command({ find: 'bad', filter: {}, collation });
  await expectServerCode(find({ locale: 'en', foo: 1 }), 40415);
  await expectServerCode(find({ strength: 2 }), 40414);
  const e = await expectServerCode(find({ locale: 'not_a_locale' }), 2);
  assert.match(e.message, /Field 'locale' is invalid/);
  await expectServerCode(find({ locale: 'en', caseLevel: 'yes' }), 14);
  await expectServerCode(find({ locale: 'en', caseFirst: 'sideways' }), 2);
  await expectServerCode(find({ locale: 'simple', strength: 1 }), 9);
  await expectServerCode(
    c.updateOne({}, { $set: { a: 1 } }, { collation: { locale: 'en', bogus: true } as never }),
    40415,
  );
  await expectServerCode(c.deleteOne({}, { collation: { locale: 'zz_ZZ_bad' } }), 2);
  await expectServerCode(
    db.createCollection('bad_default', { collation: { locale: 'en', strength: 7 } }),
    51024,
  );
});
