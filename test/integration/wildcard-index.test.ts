// Wildcard indexes through the driver, as mongod 7.0 has them: {"$**": 1}, {"a.b.$**": 1},
// {"$**": 1} with an inclusion or exclusion wildcardProjection, descending; listIndexes shows
// the spec as given; bad specs fail with mongod's codes (wildcard_index_validindex.js,
// compound_wildcard_index_validation.js). Keys are kept by every write — insert, update,
// replace, delete, transactions, an index build over existing documents — which validate
// checks (every key a document gives is stored, no other entry is). The planner uses a
// wildcard index for a predicate on one path as the index {$_path: 1, <path>: 1} (explain shows
// that key pattern and $_path bounds), also for `$exists: true` (subpath bounds), in $or
// branches, for a sort on a bounded path without arrays and covering a projection of that
// path alone, but not for null, $exists: false, $ne, $not, $elemMatch, objects, arrays or
// positions; results, hinted or not, equal those of a collection without the index on
// generated documents.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Double, Int32, Long } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const BadValue = 2;
const FailedToParse = 9;
const TypeMismatch = 14;
const CannotCreateIndex = 67;

/** validate's verdict and per-index key counts for a collection. */
async function validated(db: Db, coll: string): Promise<{ valid: boolean; keys: Document }> {
  const r = await db.command({ validate: coll });
  return { valid: r['valid'] as boolean, keys: r['keysPerIndex'] as Document };
}

describe('wildcard indexes', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('wildcard_test');
  });
  after(async () => {
    await ts.stop();
  });

  test('create, list and drop the forms mongod accepts', async () => {
    const c = db.collection<TestDoc>('forms');
    assert.equal(await c.createIndex({ '$**': 1 }), '$**_1');
    assert.equal(await c.createIndex({ 'a.b.$**': -1 }), 'a.b.$**_-1');
    assert.equal(
      await c.createIndex({ '$**': 1 }, { name: 'incl', wildcardProjection: { a: 1, 'b.c': 1 } }),
      'incl',
    );
    assert.equal(
      await c.createIndex(
        { '$**': 1 },
        { name: 'excl', wildcardProjection: { _id: 1, a: 0, b: { c: false } } },
      ),
      'excl',
    );
    await c.createIndex(
      { '$**': 1 },
      { name: 'partial', partialFilterExpression: { a: { $gt: 0 } }, wildcardProjection: { z: 1 } },
    );
    const list = await c.listIndexes().toArray();
    assert.deepEqual(list.slice(1), [
      { v: 2, key: { '$**': 1 }, name: '$**_1' },
      { v: 2, key: { 'a.b.$**': -1 }, name: 'a.b.$**_-1' },
      { v: 2, key: { '$**': 1 }, name: 'incl', wildcardProjection: { a: 1, 'b.c': 1 } },
      {
        v: 2,
        key: { '$**': 1 },
        name: 'excl',
        wildcardProjection: { _id: 1, a: 0, b: { c: false } },
      },
      {
        v: 2,
        key: { '$**': 1 },
        name: 'partial',
        partialFilterExpression: { a: { $gt: 0 } },
        wildcardProjection: { z: 1 },
      },
    ]);
    // The same spec again is no error; the same key with another projection is another index,
    // but not under a name already taken.
    assert.equal(await c.createIndex({ '$**': 1 }), '$**_1');
    await expectServerCode(
      c.createIndex({ '$**': 1 }, { name: 'incl', wildcardProjection: { a: 1 } }),
      86,
    );
    await c.dropIndex('a.b.$**_-1');
    await c.dropIndex('incl');
    await c.dropIndex('partial');
    await c.dropIndex('excl');
    await db.command({ dropIndexes: 'forms', index: { '$**': 1 } });
    assert.deepEqual(
      (await c.listIndexes().toArray()).map((i) => i['name']),
      ['_id_'],
    );
  });

  test('bad specs fail with mongod codes', async () => {
    const c = db.collection<TestDoc>('bad');
    await c.insertOne({ _id: 1 });
    const create = (key: Document, options: Document = {}): Promise<unknown> =>
      db.command({ createIndexes: 'bad', indexes: [{ key, name: 'w', ...options }] });
    const cases: Array<[Document, Document, number]> = [
      [{ '$**': 0 }, {}, CannotCreateIndex],
      [{ '$**': 1 }, { sparse: true }, CannotCreateIndex],
      [{ '$**': 1 }, { unique: true }, CannotCreateIndex],
      [{ '$**': 1 }, { v: 1 }, CannotCreateIndex],
      [{ '$**': 1 }, { v: 0 }, CannotCreateIndex],
      [{ '$**': 1 }, { expireAfterSeconds: 3600 }, CannotCreateIndex],
      [{ '$**': 'hashed' }, {}, CannotCreateIndex],
      [{ '$**': '2dsphere' }, {}, CannotCreateIndex],
      [{ '$**': '2d' }, {}, CannotCreateIndex],
      [{ 'a.$**': 'text' }, {}, CannotCreateIndex],
      [{ a: 'wildcard' }, {}, CannotCreateIndex],
      [{ '$**': 'wildcard' }, {}, CannotCreateIndex],
      [{ '$**': 'hello' }, {}, CannotCreateIndex],
      [{ 'a.$**.$**': 1 }, {}, CannotCreateIndex],
      [{ '$**.$**': 1 }, {}, CannotCreateIndex],
      [{ 'a.$**': 1, 'b.$**': 1 }, {}, 7246201],
      [{ 'a.$**': 1, b: 'text' }, {}, CannotCreateIndex],
      [{ 'a.$**': 1, b: 'hashed' }, {}, CannotCreateIndex],
      [{ '$**': 1 }, { wildcardProjection: { a: 1, b: 0 } }, 31254],
      [{ '$**': 1 }, { wildcardProjection: { a: 0, b: 1 } }, 31253],
      [{ '$**': 1 }, { wildcardProjection: { a: 1, b: 'string' } }, 51271],
      [{ '$**': 1 }, { wildcardProjection: { 'a.b': 1, 'a.b.c': 1 } }, 7246200],
      [{ '$**': 1 }, { wildcardProjection: {} }, FailedToParse],
      [{ a: 1 }, { wildcardProjection: { a: 1, b: 1 } }, BadValue],
      [{ '$**': 'text' }, { wildcardProjection: { a: 1, b: 1 } }, BadValue],
      [{ 'a.$**': 1 }, { wildcardProjection: 'string' }, TypeMismatch],
      [{ 'a.$**': 1 }, { wildcardProjection: { a: 1 } }, FailedToParse],
      [{ 'a.$**': 1 }, { wildcardProjection: { b: 0 } }, FailedToParse],
      // A '$'-prefixed component anywhere in an ordinary key is refused as mongod does.
      [{ 'a.$b': 1 }, {}, CannotCreateIndex],
    ];
    for (const [key, options, code] of cases) {
      await expectServerCode(create(key, options), code).catch((e: unknown) => {
        throw new Error(`${JSON.stringify(key)} ${JSON.stringify(options)}: ${String(e)}`);
      });
    }
    // The DBRef fields stay indexable, and mongod's _id mixing is allowed.
    await create({ 'a.$id': 1 });
    await create({ '$**': 1 }, { name: 'x', wildcardProjection: { _id: 0, a: 1 } });
    assert.deepEqual(
      (await c.listIndexes().toArray()).map((i) => i['name']),
      ['_id_', 'w', 'x'],
    );
  });

  test('every write keeps the keys (validate), builds over existing documents', async () => {
    const c = db.collection<TestDoc>('writes');
    // Built by a hybrid build over existing documents.
    await c.insertMany([
      { _id: 1, a: 1, b: { c: [1, 2, { d: 3 }], e: {} } }, // a, b.c ×2, b.c.d, b.e
      { _id: 2, a: [], x: 'y' }, // a, x
    ]);
    await c.createIndex({ '$**': 1 });
    await c.createIndex({ 'b.$**': 1 });
    await c.createIndex({ '$**': -1 }, { name: 'onlyA', wildcardProjection: { a: 1 } });
    let v = await validated(db, 'writes');
    assert.equal(v.valid, true);
    assert.deepEqual(v.keys, { _id_: 2, '$**_1': 7, 'b.$**_1': 4, onlyA: 2 });

    await c.insertOne({ _id: 3, b: { c: 'z' }, a: { deep: { er: [1, [2]] } } });
    await c.updateOne({ _id: 1 }, { $set: { 'b.c': 5 }, $unset: { a: '' } });
    await c.replaceOne({ _id: 2 }, { a: new Long(4), q: [null] });
    await c.deleteOne({ _id: 3 });
    v = await validated(db, 'writes');
    assert.equal(v.valid, true);
    // _id 1: b.c, b.e; _id 2: a, q.
    assert.deepEqual(v.keys, { _id_: 2, '$**_1': 4, 'b.$**_1': 2, onlyA: 1 });

    const session = ts.client.startSession();
    try {
      await session.withTransaction(async () => {
        await c.insertOne({ _id: 4, a: [1, 2, 3] }, { session });
        await c.updateOne({ _id: 2 }, { $set: { b: { n: new Double(1.5) } } }, { session });
      });
    } finally {
      await session.endSession();
    }
    v = await validated(db, 'writes');
    assert.equal(v.valid, true);
    assert.deepEqual(v.keys, { _id_: 3, '$**_1': 8, 'b.$**_1': 3, onlyA: 4 });

    // Writes whose filter the wildcard index serves.
    const u = await c.updateMany({ a: { $gte: 1 } }, { $set: { a: 0 }, $inc: { n: 1 } });
    assert.equal(u.modifiedCount, 2);
    assert.equal((await c.deleteMany({ 'b.n': 1.5 })).deletedCount, 1);
    v = await validated(db, 'writes');
    assert.equal(v.valid, true);
    // _id 1: b.c, b.e; _id 4: a, n.
    assert.deepEqual(v.keys, { _id_: 2, '$**_1': 4, 'b.$**_1': 2, onlyA: 1 });
  });

  test('queries scan and answer as without the index (generated documents)', async () => {
    const scalar = fc.oneof(
      fc.integer({ min: -2, max: 2 }).map((n) => new Int32(n)),
      fc.constantFrom(0.5, 2).map((n) => new Double(n)),
      fc.constantFrom('a', 'b'),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar,
        fc.array(tie('value'), { maxLength: 3 }),
        fc.record({ x: tie('value'), y: tie('value') }, { requiredKeys: [] }),
      ),
    }));
    const docs = fc
      .sample(fc.record({ a: value, b: value }, { requiredKeys: [] }), { numRuns: 120, seed: 7 })
      .map((d, i) => ({ _id: i, ...d }));
    const plain = db.collection<TestDoc>('prop_plain');
    const indexed = db.collection<TestDoc>('prop_indexed');
    await indexed.createIndex({ '$**': 1 });
    await indexed.createIndex({ 'a.$**': 1 });
    await plain.insertMany(docs);
    await indexed.insertMany(docs);
    assert.equal((await validated(db, 'prop_indexed')).valid, true);
    const path = fc.constantFrom('a', 'b', 'a.x', 'a.y', 'b.x', 'a.x.y');
    const predicate = fc.oneof(
      scalar,
      scalar.map((s) => ({ $gt: s })),
      scalar.map((s) => ({ $lte: s })),
      fc.array(scalar, { maxLength: 3 }).map((s) => ({ $in: s })),
      fc.constantFrom(
        { $exists: true },
        { $exists: false },
        { $ne: null },
        { $size: 0 },
        { $regex: '^a' },
        { $type: 'string' },
        { $gt: {} },
        { $lt: [] },
      ),
      scalar.map((s) => ({ $elemMatch: { $eq: s } })),
    );
    await fc.assert(
      fc.asyncProperty(path, predicate, fc.boolean(), async (p, pred, hint) => {
        const filter = { [p]: pred };
        const ids = async (c: typeof plain, h?: Document): Promise<unknown[]> => {
          const cursor = c.find(filter).sort({ _id: 1 });
          if (h !== undefined) cursor.hint(h);
          return (await cursor.toArray()).map((d) => d._id);
        };
        const expected = await ids(plain);
        assert.deepEqual(await ids(indexed), expected, JSON.stringify(filter));
        const h = hint ? { '$**': 1 } : 'a.$**_1';
        assert.deepEqual(await ids(indexed, h as Document), expected, JSON.stringify(filter));
      }),
      { numRuns: 100, seed: 7 },
    );
  });

  test('$or, sorts and covered projections answer as without the index (generated)', async () => {
    // Scalars and subdocuments, no arrays: every path can provide a sort.
    const scalar = fc.oneof(
      fc.integer({ min: -2, max: 2 }).map((n) => new Int32(n)),
      fc.constantFrom(0.5, 2).map((n) => new Double(n)),
      fc.constantFrom('a', 'b'),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar,
        fc.record({ x: tie('value'), y: tie('value') }, { requiredKeys: [] }),
      ),
    }));
    const docs = fc
      .sample(fc.record({ a: value, b: value }, { requiredKeys: [] }), { numRuns: 120, seed: 11 })
      .map((d, i) => ({ _id: i, ...d }));
    const plain = db.collection<TestDoc>('prop2_plain');
    const indexed = db.collection<TestDoc>('prop2_indexed');
    await indexed.createIndex({ '$**': 1 });
    await plain.insertMany(docs);
    await indexed.insertMany(docs);
    const path = fc.constantFrom('a', 'b', 'a.x', 'a.y', 'b.x', 'a.x.y');
    const predicate = fc.oneof(
      scalar,
      scalar.map((s) => ({ $gt: s })),
      scalar.map((s) => ({ $lte: s })),
      fc.array(scalar, { maxLength: 3 }).map((s) => ({ $in: s })),
      fc.constantFrom({ $exists: true }, { $regex: '^a' }),
    );
    await fc.assert(
      fc.asyncProperty(
        path,
        predicate,
        path,
        predicate,
        fc.constantFrom(1, -1),
        async (p, pred, q, qred, dir) => {
          // $or: the same documents.
          const or = { $or: [{ [p]: pred }, { [q]: qred }] };
          const ids = async (c: typeof plain): Promise<unknown[]> =>
            (await c.find(or).sort({ _id: 1 }).toArray()).map((d) => d._id);
          assert.deepEqual(await ids(indexed), await ids(plain), JSON.stringify(or));
          // A sort on the filtered path, projected to that path: the same values in order
          // (equal sort keys are equal values here, or numbers of one value).
          const values = async (c: typeof plain): Promise<unknown[]> =>
            c
              .find({ [p]: pred }, { projection: { [p]: 1, _id: 0 } })
              .sort({ [p]: dir })
              .toArray();
          assert.deepEqual(
            await values(indexed),
            await values(plain),
            `${p} ${JSON.stringify(pred)}`,
          );
        },
      ),
      { numRuns: 100, seed: 11 },
    );
    // The sort came from the index, and some projections were covered.
    const e = await indexed
      .find({ a: { $gt: 0 } }, { projection: { a: 1, _id: 0 } })
      .sort({ a: 1 })
      .explain('queryPlanner');
    assert.equal(e['queryPlanner']['winningPlan']['stage'], 'PROJECTION_COVERED');
  });

  test('the planner: IXSCAN on {$_path, path} for the predicates mongod serves', async () => {
    const c = db.collection<TestDoc>('plans');
    await c.insertMany([
      { _id: 1, a: 1, b: { c: 'xy' } },
      { _id: 2, a: [1, 2], b: [{ c: 'xz' }, { c: 5 }] },
      { _id: 3, b: { c: null } },
      { _id: 4, a: { x: 1 } },
    ]);
    await c.createIndex({ '$**': 1 });
    const plan = async (filter: Document, hint?: Document | string): Promise<Document> => {
      const cursor = c.find(filter);
      if (hint !== undefined) cursor.hint(hint);
      return (await cursor.explain('queryPlanner'))['queryPlanner']['winningPlan'] as Document;
    };
    const ixscan = (p: Document): Document | undefined =>
      p['stage'] === 'FETCH' && p['inputStage']['stage'] === 'IXSCAN' ? p['inputStage'] : undefined;
    const ix = ixscan(await plan({ a: 1 }));
    assert.ok(ix !== undefined);
    assert.deepEqual(ix['keyPattern'], { $_path: 1, a: 1 });
    assert.equal(ix['indexName'], '$**_1');
    assert.deepEqual(ix['indexBounds'], { $_path: ['["a", "a"]'], a: ['[1, 1]'] });
    // Multikey paths are tracked per path: "a" and "b" hold arrays, "d" does not (yet).
    assert.equal(ix['isMultiKey'], true);
    assert.deepEqual(ix['multiKeyPaths'], { $_path: [], a: ['a'] });
    const bc = ixscan(await plan({ 'b.c': { $gt: 1, $lt: 9 } }));
    assert.deepEqual(bc?.['keyPattern'], { $_path: 1, 'b.c': 1 });
    assert.deepEqual(bc?.['multiKeyPaths'], { $_path: [], 'b.c': ['b'] });
    assert.deepEqual(bc?.['indexBounds']['b.c'], ['(1, inf.0]']);
    await c.insertOne({ _id: 5, d: 3 });
    let d = ixscan(await plan({ d: { $gt: 1, $lt: 5 } }));
    assert.equal(d?.['isMultiKey'], false);
    assert.deepEqual(d?.['indexBounds'], { $_path: ['["d", "d"]'], d: ['(1, 5)'] });
    await c.insertOne({ _id: 6, d: [2, 9] });
    d = ixscan(await plan({ d: { $gt: 1, $lt: 5 } }));
    assert.equal(d?.['isMultiKey'], true);
    assert.deepEqual(
      (
        await c
          .find({ d: { $gt: 1, $lt: 5 } })
          .sort({ _id: 1 })
          .toArray()
      ).map((x) => x._id),
      [5, 6],
    );
    await c.deleteMany({ _id: { $in: [5, 6] } });
    for (const served of [{ a: { $in: [1, 2] } }, { 'b.c': /^x/ }, { a: { $gte: 2 } }])
      assert.ok(ixscan(await plan(served)) !== undefined, JSON.stringify(served));
    // Not answerable from (path, value) keys: a scan.
    for (const scanned of [
      { a: null },
      { a: { $exists: false } },
      { a: { $ne: 1 } },
      { a: { $not: { $gt: 1 } } },
      { a: { $elemMatch: { $gt: 1 } } },
      { a: { x: 1 } },
      { a: [1, 2] },
      { 'a.0': 1 },
    ]) {
      const p = await plan(scanned);
      assert.equal(p['stage'], 'COLLSCAN', JSON.stringify(scanned));
      assert.equal(ixscan(await plan(scanned, '$**_1')), undefined, JSON.stringify(scanned));
    }
    // "a" holds arrays: the index does not provide a sort on it.
    const sorted = await plan({ a: { $gt: 0 } });
    assert.ok(ixscan(sorted) !== undefined);
    const withSort = (
      await c
        .find({ a: { $gt: 0 } })
        .sort({ a: 1 })
        .explain('queryPlanner')
    )['queryPlanner']['winningPlan'] as Document;
    assert.equal(withSort['stage'], 'SORT');
    assert.deepEqual(
      (
        await c
          .find({ a: { $gt: 0 } })
          .sort({ a: -1, _id: 1 })
          .toArray()
      ).map((d) => d._id),
      [2, 1],
    );
    // min/max cannot use a wildcard index (51174), whatever their fields.
    for (const bounds of [
      { min: { a: 0.5 } },
      { max: { '$**': 1 } },
      { min: { a: 0 }, max: { a: 2 } },
    ])
      await expectServerCode(
        db.command({ find: 'plans', filter: { a: 1 }, hint: { '$**': 1 }, ...bounds }),
        51174,
      );
    // Hints by name and by key pattern.
    assert.ok(ixscan(await plan({ a: 1 }, '$**_1')) !== undefined);
    assert.ok(ixscan(await plan({ a: 1 }, { '$**': 1 })) !== undefined);
    assert.deepEqual(
      (await c.find({ a: 1 }).hint({ '$**': 1 }).toArray()).map((d) => d._id),
      [1, 2],
    );
  });

  test('$exists: true, $or branches, sorts and covered queries as mongod', async () => {
    const c = db.collection<TestDoc>('served');
    await c.insertMany([
      { _id: 1, a: 1, d: 5 },
      { _id: 2, a: { x: 3 } },
      { _id: 3, b: 1, d: 2 },
      { _id: 4, a: null },
      { _id: 5, a: {}, d: 9 },
      { _id: 6, ab: 1, 'a/': 2 },
      { _id: 7, e: [1, 2] },
    ]);
    await c.createIndex({ '$**': 1 });
    const explain = async (cursor: { explain(v: string): Promise<Document> }): Promise<Document> =>
      (await cursor.explain('queryPlanner'))['queryPlanner']['winningPlan'] as Document;
    const ids = async (filter: Document): Promise<unknown[]> =>
      (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);

    // $exists: true reads the path and every path below it, and the filter re-checks.
    const exists = await explain(c.find({ a: { $exists: true } }));
    assert.equal(exists['stage'], 'FETCH');
    assert.deepEqual(exists['filter'], { a: { $exists: true } });
    const ix = exists['inputStage'] as Document;
    assert.equal(ix['stage'], 'IXSCAN');
    assert.deepEqual(ix['keyPattern'], { $_path: 1, a: 1 });
    assert.deepEqual(ix['indexBounds'], {
      $_path: ['["a", "a"]', '["a.", "a/")'],
      a: ['[MinKey, MaxKey]'],
    });
    assert.equal(ix['isSparse'], false);
    assert.deepEqual(await ids({ a: { $exists: true } }), [1, 2, 4, 5]);
    // One document with several keys under the path is returned once.
    await c.insertOne({ _id: 8, a: { x: 1, y: { z: 2 } } });
    assert.deepEqual(await ids({ a: { $exists: true } }), [1, 2, 4, 5, 8]);
    const stats = await c.find({ a: { $exists: true } }).explain('executionStats');
    assert.equal(stats['executionStats']['nReturned'], 5);

    // Each $or branch may use the index.
    const or = await explain(c.find({ $or: [{ a: 1 }, { d: { $gt: 6 } }] }));
    assert.equal(or['inputStage']['stage'], 'OR');
    assert.deepEqual(
      (or['inputStage']['inputStages'] as Document[]).map((s) => [s['stage'], s['keyPattern']]),
      [
        ['IXSCAN', { $_path: 1, a: 1 }],
        ['IXSCAN', { $_path: 1, d: 1 }],
      ],
    );
    assert.deepEqual(await ids({ $or: [{ a: 1 }, { d: { $gt: 6 } }] }), [1, 5]);
    // A branch no index serves: a collection scan.
    assert.equal((await explain(c.find({ $or: [{ a: 1 }, { z: null }] })))['stage'], 'COLLSCAN');

    // A sort on the queried path, which holds no arrays, comes from the index.
    const sorted = await explain(c.find({ d: { $gt: 0 } }).sort({ d: -1 }));
    assert.equal(sorted['stage'], 'FETCH');
    assert.equal(sorted['inputStage']['direction'], 'backward');
    assert.deepEqual(
      (
        await c
          .find({ d: { $gt: 0 } })
          .sort({ d: -1 })
          .toArray()
      ).map((d) => d._id),
      [5, 1, 3],
    );
    // Not on another path, nor on a path that holds arrays.
    assert.equal((await explain(c.find({ d: { $gt: 0 } }).sort({ a: 1 })))['stage'], 'SORT');
    assert.equal((await explain(c.find({ e: { $gt: 0 } }).sort({ e: 1 })))['stage'], 'SORT');

    // A projection of the queried path alone, without _id, is covered.
    const covered = await explain(c.find({ d: { $gt: 0 } }, { projection: { d: 1, _id: 0 } }));
    assert.equal(covered['stage'], 'PROJECTION_COVERED');
    assert.equal(covered['inputStage']['stage'], 'IXSCAN');
    assert.deepEqual(
      await c
        .find({ d: { $gt: 0 } }, { projection: { d: 1, _id: 0 } })
        .sort({ d: 1 })
        .toArray(),
      [{ d: 2 }, { d: 5 }, { d: 9 }],
    );
    for (const projection of [{ d: 1 }, { d: 1, a: 1, _id: 0 }]) {
      const p = await explain(c.find({ d: { $gt: 0 } }, { projection }));
      assert.notEqual(p['stage'], 'PROJECTION_COVERED', JSON.stringify(projection));
    }
    assert.notEqual(
      (await explain(c.find({ e: { $gt: 0 } }, { projection: { e: 1, _id: 0 } })))['stage'],
      'PROJECTION_COVERED',
    );
  });

  test('$exists: true with a projection leaving out a path below it scans', async () => {
    const c = db.collection<TestDoc>('excluded_below');
    await c.insertMany([{ _id: 1, a: { b: 1 } }, { _id: 2, a: { c: 1 } }, { _id: 3 }]);
    await c.createIndex({ '$**': 1 }, { wildcardProjection: { 'a.b': 0 } });
    const p = (await c.find({ a: { $exists: true } }).explain('queryPlanner'))['queryPlanner'];
    assert.equal(p['winningPlan']['stage'], 'COLLSCAN');
    assert.deepEqual(
      (await c.find({ a: { $exists: true } }).toArray()).map((d) => d._id),
      [1, 2],
    );
    // Another path is served.
    const q = (await c.find({ 'a.c': { $exists: true } }).explain('queryPlanner'))['queryPlanner'];
    assert.equal(q['winningPlan']['stage'], 'FETCH');
  });
});
