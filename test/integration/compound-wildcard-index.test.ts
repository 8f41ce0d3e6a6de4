// Compound wildcard indexes (mongod 7.0) through the driver: the specs mongod accepts and the
// codes of those it refuses (compound_wildcard_index_validation.js); keys kept by every write
// and by builds, which validate checks, one per wildcard leaf with the regular fields' values
// around it, one with MinKey for a document with regular fields but no leaf, none for a
// document with neither; an array in a regular field refused; the planner's views as explain
// shows them (query_golden/compound_wildcard_index.md): {$_path, path, regular} for a predicate
// on a wildcard path, {regular, $_path} with [MinKey, MinKey] and ["", {}) for predicates on the
// regular prefix alone, both in $or branches; results equal those of a collection without the
// index on generated documents.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Double, Int32 } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const BadValue = 2;
const FailedToParse = 9;
const CannotCreateIndex = 67;

describe('compound wildcard indexes', () => {
  let ts: TestServer;
  let db: Db;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('cwi_test');
  });
  after(async () => {
    await ts.stop();
  });

  test('the specs mongod accepts and the codes of those it refuses', async () => {
    const c = db.collection<TestDoc>('specs');
    await c.insertOne({ _id: 1 });
    const ok: Array<[Document, Document]> = [
      [{ a: 1, 'b.$**': 1 }, {}],
      [{ 'a.$**': 1, b: 1 }, {}],
      [{ a: 1, 'b.$**': -1, c: 1 }, {}],
      [{ a: 1, '$**': 1 }, { wildcardProjection: { a: 0 } }],
      [{ '$**': 1, a: 1 }, { wildcardProjection: { a: 0 } }],
      [{ a: 1, '$**': -1, b: 1 }, { wildcardProjection: { a: 0, b: 0 } }],
      [{ '$**': 1, other: 1 }, { wildcardProjection: { _id: 0, a: 1 } }],
      [{ '$**': 1, another: 1 }, { wildcardProjection: { _id: 1, a: 0, another: 0 } }],
      [{ '$**': 1, yetAnother: 1 }, { wildcardProjection: { _id: 1 } }],
      [{ '$**': 1, d: 1 }, { wildcardProjection: { a: { b: 1, c: 1 } } }],
      [{ '$**': 1, c: 1 }, { wildcardProjection: { _id: 0, b: 1 } }],
      [{ '$**': 1, e: 1 }, { wildcardProjection: { _id: 1, e: 0 } }],
      [{ '$**': 1, _id: 1, e: 1 }, { wildcardProjection: { _id: 0, a: 1 } }],
      [{ _id: 1, '$**': 1 }, { wildcardProjection: { _id: 0 } }],
      [{ _id: 1, a: 1, '$**': 1 }, { wildcardProjection: { _id: 0, a: 0 } }],
      [{ e: 1, '$**': 1 }, { wildcardProjection: { _id: 1, f: 1 } }],
      [{ _id: 1, 'a.b': 1, '$**': 1 }, { wildcardProjection: { _id: 0, a: 0 } }],
      [{ '$**': 1, _id: 1, 'e.b': 1 }, { wildcardProjection: { _id: 0, 'a.b': 1 } }],
      [{ '$**': 1, 'e.b': 1 }, { wildcardProjection: { _id: 1, e: 0 } }],
    ];
    let n = 0;
    for (const [key, options] of ok) {
      await c.createIndex(key, { ...options, name: `ok${n++}` }).catch((e: unknown) => {
        throw new Error(`${JSON.stringify(key)} ${JSON.stringify(options)}: ${String(e)}`);
      });
    }
    const bad: Array<[Document, Document, number]> = [
      [{ a: 1, 'a.$**': 1 }, {}, 7246204],
      [{ 'a.b.c': 1, 'a.b.$**': 1 }, {}, 7246204],
      [{ '$**': 1, c: 1 }, { wildcardProjection: { 'a.b': 1, 'a.b.c': 1 } }, 7246200],
      [{ 'a.$**': 1, 'b.$**': 1 }, {}, 7246201],
      [{ 'a.$**': 1, b: 'text' }, {}, CannotCreateIndex],
      [{ 'a.$**': 1, b: 'hashed' }, {}, CannotCreateIndex],
      [{ 'a.$**': 1, b: '2dsphere' }, {}, CannotCreateIndex],
      [{ 'a.$**': 1, b: 1 }, { unique: true }, CannotCreateIndex],
      [{ 'a.$**': 1, b: 1 }, { sparse: true }, CannotCreateIndex],
      [{ 'a.$**': 1, b: 1 }, { expireAfterSeconds: 60 }, CannotCreateIndex],
      [{ a: 1, '$**': 1 }, {}, CannotCreateIndex],
      [{ a: 1, '$**': 1 }, { wildcardProjection: {} }, FailedToParse],
      [{ a: 1, b: 1 }, { wildcardProjection: { c: 1 } }, BadValue],
      [{ a: 1, '$**': 1 }, { wildcardProjection: { a: 1 } }, 7246208],
      [{ a: 1, '$**': 1 }, { wildcardProjection: { a: 1, b: 1 } }, 7246208],
      [{ a: 1, '$**': 1, b: 1 }, { wildcardProjection: { a: 1, b: 1 } }, 7246208],
      [{ _id: 1, '$**': 1 }, { wildcardProjection: { _id: 1 } }, 7246208],
      [{ '$**': 1, c: 1 }, { wildcardProjection: { _id: 0, a: 0, b: 1 } }, 7246211],
      [{ '$**': 1, c: 1 }, { wildcardProjection: { _id: 1, a: 0, b: 1 } }, 7246211],
      [{ '$**': 1, _id: 1, e: 1 }, { wildcardProjection: { _id: 1, e: 0 } }, 7246209],
      [{ st: 1, '$**': 1 }, { wildcardProjection: { a: 'something' } }, 51271],
      [{ a: 1, '$**': 1 }, { wildcardProjection: { _id: 0 } }, 7246210],
      [{ '$**': 1, a: 1 }, { wildcardProjection: { _id: 0 } }, 7246210],
      [{ b: 1, '$**': 1, a: 1 }, { wildcardProjection: { _id: 0 } }, 7246210],
      [{ _id: 1, '$**': 1, a: 1 }, { wildcardProjection: { _id: 0 } }, 7246210],
      [{ a: 1, _id: 1, '$**': 1 }, { wildcardProjection: { a: 0 } }, 7246209],
      [{ a: 1, b: 1, '$**': 1 }, { wildcardProjection: { b: 0 } }, 7246209],
      [{ b: 1, '$**': 1 }, { wildcardProjection: { _id: 0, a: 0 } }, 7246210],
      [{ a: 1, '$**': 1 }, { wildcardProjection: { _id: 0, a: 1 } }, 7246208],
      [{ a: 1, '$**': 1 }, { wildcardProjection: { _id: 1, a: 1 } }, 7246208],
      [{ _id: 1, '$**': 1 }, { wildcardProjection: { _id: 1, a: 1 } }, 7246208],
      [{ '$**': 1, d: 1 }, { wildcardProjection: { _id: 1, e: 0 } }, 7246209],
      [{ _id: 1, a: 1, '$**': 1 }, { wildcardProjection: { _id: 0, 'a.b': 0 } }, 7246209],
      [{ a: 1, '$**': 1 }, { wildcardProjection: { _id: 0, 'a.b': 0 } }, 7246209],
      [{ '$**': 1, e: 1 }, { wildcardProjection: { _id: 1, 'e.b': 0 } }, 7246209],
      [{ '$**': 1, 'e.c': 1 }, { wildcardProjection: { _id: 1, 'e.b': 0 } }, 7246210],
      [{ a: 1, 'b.$**': 1 }, { wildcardProjection: { b: 1 } }, FailedToParse],
    ];
    for (const [key, options, code] of bad) {
      const create = db.command({
        createIndexes: 'specs',
        indexes: [{ key, name: 'x', ...options }],
      });
      await expectServerCode(create, code).catch((e: unknown) => {
        throw new Error(`${JSON.stringify(key)} ${JSON.stringify(options)}: ${String(e)}`);
      });
    }
    assert.equal((await c.listIndexes().toArray()).length, ok.length + 1);
    // A query on a dotted field with '$' still answers with such indexes present.
    await db.command({ find: 'specs', filter: { 'a.$b': 5 } });
  });

  test('keys: one per leaf with the regular values, MinKey without leaves; arrays refused', async () => {
    const c = db.collection<TestDoc>('keys');
    // Built over existing documents.
    await c.insertMany([
      { _id: 1, a: 1, b: { c: 1, d: [2, 3] } },
      { _id: 2, a: 2 },
      { _id: 3, z: 1 },
      { _id: 4, b: { c: 'x' } },
    ]);
    await c.createIndex({ a: 1, 'b.$**': 1 });
    await c.createIndex({ '$**': 1, a: -1 }, { wildcardProjection: { a: 0 } });
    const keys = async (): Promise<Document> => {
      const r = await db.command({ validate: 'keys', full: true });
      assert.equal(r['valid'], true, JSON.stringify(r));
      return r['keysPerIndex'] as Document;
    };
    // a_1_b.$**_1: _id 1: b.c, b.d ×2; _id 2: MinKey; _id 3: none; _id 4: b.c.
    // $**_1_a_-1: _id 1: b.c, b.d ×2; _id 2: MinKey; _id 3: z; _id 4: b.c.
    assert.deepEqual(await keys(), { _id_: 4, 'a_1_b.$**_1': 5, '$**_1_a_-1': 6 });
    // Every write keeps them.
    await c.updateOne({ _id: 2 }, { $set: { 'b.e': 1 } });
    await c.updateOne({ _id: 3 }, { $set: { a: 5 } });
    await c.deleteOne({ _id: 4 });
    await c.replaceOne({ _id: 1 }, { a: 1 });
    // _id 1 {a: 1}: MinKey in both; _id 2: b.e in both; _id 3 {z, a}: MinKey, z.
    assert.deepEqual(await keys(), { _id_: 3, 'a_1_b.$**_1': 3, '$**_1_a_-1': 3 });
    // A regular field holds one value: an array along its path is refused, nothing written.
    await expectServerCode(c.insertOne({ _id: 9, a: [1, 2] }), 7246301);
    await expectServerCode(c.updateOne({ _id: 2 }, { $set: { a: [1] } }), 7246301);
    assert.equal(await c.countDocuments({ _id: 9 }), 0);
    assert.deepEqual((await c.findOne({ _id: 2 }))?.['a'], 2);
    // An index build over such a document fails the same way.
    const d = db.collection<TestDoc>('keys_build');
    await d.insertOne({ _id: 1, a: { x: [1] } });
    await expectServerCode(d.createIndex({ 'a.x': 1, 'b.$**': 1 }), 7246301);
  });

  test('the planner: views as mongod explains them', async () => {
    const c = db.collection<TestDoc>('golden');
    await c.insertMany([
      { _id: 0, num: 1, sub: { num: 5 } },
      { _id: 1, num: 100, sub: { num: 5 } },
      { _id: 2, num: 1, sub: { num: 0 } },
      { _id: 3, num: 1, sub: [{ num: 5 }] },
      { _id: 4, num: 1, sub: [{ num: 0 }] },
      { _id: 5, num: 1, sub: { num: [5] } },
      { _id: 11, str: '1', sub: { num: 9 } },
      { _id: 12, str: 'not_matching', sub: { num: 9 } },
      { _id: 13, str: '1', sub: { num: 11 } },
    ]);
    await c.createIndex({ 'sub.$**': 1, num: 1 });
    await c.createIndex({ num: 1, 'sub.$**': 1 });
    const scans = async (filter: Document, hint?: string): Promise<Document[]> => {
      const cursor = c.find(filter);
      if (hint !== undefined) cursor.hint(hint);
      const plan = (await cursor.explain('queryPlanner'))['queryPlanner']['winningPlan'];
      const out: Document[] = [];
      const walk = (s: Document): void => {
        if (s['stage'] === 'IXSCAN')
          out.push({
            indexName: s['indexName'],
            keyPattern: s['keyPattern'],
            bounds: s['indexBounds'],
          });
        for (const child of [s['inputStage'], ...((s['inputStages'] as Document[]) ?? [])])
          if (child !== undefined) walk(child as Document);
      };
      walk(plan as Document);
      return out;
    };
    const ids = async (filter: Document): Promise<unknown[]> =>
      (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);

    // 1. Only the wildcard field of {"sub.$**": 1, num: 1}.
    assert.deepEqual(await scans({ 'sub.num': { $gt: 4 } }, 'sub.$**_1_num_1'), [
      {
        indexName: 'sub.$**_1_num_1',
        keyPattern: { $_path: 1, 'sub.num': 1, num: 1 },
        bounds: {
          $_path: ['["sub.num", "sub.num"]'],
          'sub.num': ['(4, inf.0]'],
          num: ['[MinKey, MaxKey]'],
        },
      },
    ]);
    assert.deepEqual(await ids({ 'sub.num': { $gt: 4 } }), [0, 1, 3, 5, 11, 12, 13]);
    // 2. Both fields.
    const both = await scans({ num: 1, 'sub.num': { $gt: 4 } }, 'sub.$**_1_num_1');
    assert.deepEqual(both[0]?.['bounds']['num'], ['[1, 1]']);
    assert.deepEqual(await ids({ num: 1, 'sub.num': { $gt: 4 } }), [0, 3, 5]);
    // 3, 4. $elemMatch on the regular and the wildcard fields.
    assert.deepEqual(await ids({ num: 1, sub: { $elemMatch: { num: { $gt: 4 } } } }), [3]);
    assert.deepEqual(await ids({ num: 1, 'sub.num': { $elemMatch: { $gt: 4 } } }), [5]);
    // 5. Only the regular prefix of {num: 1, "sub.$**": 1}.
    assert.deepEqual(await scans({ num: 1 }, 'num_1_sub.$**_1'), [
      {
        indexName: 'num_1_sub.$**_1',
        keyPattern: { num: 1, $_path: 1 },
        bounds: { num: ['[1, 1]'], $_path: ['[MinKey, MinKey]', '["", {})'] },
      },
    ]);
    assert.deepEqual(await ids({ num: 1 }), [0, 2, 3, 4, 5]);
    // Each document once, though it has several keys there.
    const stats = await c.find({ num: 1 }).hint('num_1_sub.$**_1').explain('executionStats');
    assert.equal(stats['executionStats']['nReturned'], 5);
    // 6. Both fields of {num: 1, "sub.$**": 1}.
    assert.deepEqual(await scans({ num: 1, 'sub.num': { $gt: 4 } }, 'num_1_sub.$**_1'), [
      {
        indexName: 'num_1_sub.$**_1',
        keyPattern: { num: 1, $_path: 1, 'sub.num': 1 },
        bounds: { num: ['[1, 1]'], $_path: ['["sub.num", "sub.num"]'], 'sub.num': ['(4, inf.0]'] },
      },
    ]);
    // 7. An $or whose branches use the two views.
    const or = await scans({ $or: [{ num: 1 }, { 'sub.num': { $gt: 4 } }] });
    assert.equal(or.length, 2);
    assert.deepEqual(or[0]?.['keyPattern'], { num: 1, $_path: 1 });
    assert.deepEqual(
      await ids({ $or: [{ num: 1 }, { 'sub.num': { $gt: 4 } }] }),
      [0, 1, 2, 3, 4, 5, 11, 12, 13],
    );
    // The regular prefix alone never serves a predicate that matches a missing field.
    for (const filter of [{ num: null }, { num: { $exists: false } }, { num: { $ne: 1 } }])
      assert.deepEqual(await scans(filter), [], JSON.stringify(filter));
    // A field after the wildcard alone does not use the index (its first field is unbounded).
    assert.deepEqual(await scans({ num: 100 }).then((s) => s.map((x) => x['indexName'])), [
      'num_1_sub.$**_1',
    ]);
  });

  test('queries answer as without the index (generated documents)', async () => {
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
      .sample(fc.record({ r: scalar, s: scalar, a: value, b: value }, { requiredKeys: [] }), {
        numRuns: 150,
        seed: 17,
      })
      .map((d, i) => ({ _id: i, ...d }));
    const plain = db.collection<TestDoc>('prop_plain');
    const indexed = db.collection<TestDoc>('prop_indexed');
    await indexed.createIndex({ r: 1, 'a.$**': 1 });
    await indexed.createIndex({ r: -1, '$**': 1, s: 1 }, { wildcardProjection: { r: 0, s: 0 } });
    await indexed.createIndex({ 'b.$**': -1, s: 1 });
    await plain.insertMany(docs);
    await indexed.insertMany(docs);
    assert.equal((await db.command({ validate: 'prop_indexed', full: true }))['valid'], true);
    const path = fc.constantFrom('r', 's', 'a', 'b', 'a.x', 'a.y', 'b.x', 'a.x.y');
    const predicate = fc.oneof(
      scalar,
      scalar.map((s) => ({ $gt: s })),
      scalar.map((s) => ({ $lte: s })),
      fc.array(scalar, { maxLength: 3 }).map((s) => ({ $in: s })),
      fc.constantFrom({ $exists: true }, { $exists: false }, { $ne: null }, { $regex: '^a' }),
    );
    const hints: Array<string | undefined> = [
      undefined,
      'r_1_a.$**_1',
      'r_-1_$**_1_s_1',
      'b.$**_-1_s_1',
    ];
    await fc.assert(
      fc.asyncProperty(
        path,
        predicate,
        path,
        predicate,
        fc.constantFrom('and', 'or'),
        fc.constantFrom(...hints),
        async (p, pred, q, qred, op, hint) => {
          const filter =
            op === 'and'
              ? { $and: [{ [p]: pred }, { [q]: qred }] }
              : { $or: [{ [p]: pred }, { [q]: qred }] };
          const ids = async (c: typeof plain, h?: string): Promise<unknown[]> => {
            const cursor = c.find(filter).sort({ _id: 1 });
            if (h !== undefined) cursor.hint(h);
            return (await cursor.toArray()).map((d) => d._id);
          };
          const expected = await ids(plain);
          assert.deepEqual(await ids(indexed, hint), expected, `${JSON.stringify(filter)} ${hint}`);
        },
      ),
      { numRuns: 150, seed: 17 },
    );
  });
});
