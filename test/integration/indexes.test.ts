// Indexes through the driver: createIndexes / listIndexes / dropIndexes / collMod with
// mongod 7.0's codes, key generation on writes (multikey, parallel arrays, unique, sparse,
// partial), long keys, hints, min/max, returnKey, the TTL monitor and mongoose's index sync.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Collection, Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { arrayUpdate } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

let ts: TestServer;
let db: Db;

before(async () => {
  ts = await startTestServer();
  db = ts.client.db('indexes');
});

after(async () => {
  await ts?.stop();
});

async function expectCode(
  p: Promise<unknown>,
  code: number,
  message?: string | RegExp,
): Promise<MongoServerError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof MongoServerError, `expected error ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else if (message !== undefined) assert.match(caught.message, message);
  return caught;
}

async function fresh(name: string, docs: TestDoc[] = []): Promise<Collection<TestDoc>> {
  const c = db.collection<TestDoc>(name);
  await c.drop().catch(() => undefined);
  if (docs.length > 0) await c.insertMany(docs);
  else await db.createCollection(name);
  return c;
}

const names = async (c: Collection<TestDoc>): Promise<string[]> =>
  (await c.listIndexes().toArray()).map((i) => i['name'] as string);

describe('createIndexes', () => {
  test('several at once, on existing data; identical specs are no error', async () => {
    const c = await fresh('many', [
      { _id: 1, a: 1, b: 'x' },
      { _id: 2, a: 2, b: 'y' },
    ]);
    const r = await db.command({
      createIndexes: 'many',
      indexes: [
        { key: { a: 1 }, name: 'a_1' },
        { key: { b: -1, a: 1 }, name: 'b_-1_a_1' },
      ],
    });
    assert.deepEqual(
      [r['numIndexesBefore'], r['numIndexesAfter'], r['createdCollectionAutomatically']],
      [1, 3, false],
    );
    const again = await db.command({
      createIndexes: 'many',
      indexes: [{ key: { a: 1 }, name: 'a_1' }],
    });
    assert.equal(again['note'], 'all indexes already exist');
    assert.equal(again['numIndexesAfter'], 3);
    const some = await db.command({
      createIndexes: 'many',
      indexes: [
        { key: { a: 1 }, name: 'a_1' },
        { key: { c: 1 }, name: 'c_1' },
      ],
    });
    assert.equal(some['note'], 'index already exists');
    assert.deepEqual(await names(c), ['_id_', 'a_1', 'b_-1_a_1', 'c_1']);
    const auto = await db.command({
      createIndexes: 'brandnew',
      indexes: [{ key: { a: 1 }, name: 'a_1' }],
    });
    assert.equal(auto['createdCollectionAutomatically'], true);
  });

  test('conflicts: IndexKeySpecsConflict 86 and IndexOptionsConflict 85 as mongod decides them', async () => {
    const c = await fresh('conflicts');
    await c.createIndex({ a: 1 });
    await c.createIndex({ t: 1 }, { expireAfterSeconds: 10 });
    // Same name, other key: 86.
    await expectCode(
      c.createIndex({ b: 1 }, { name: 'a_1' }),
      86,
      /An existing index has the same name as the requested index/,
    );
    // Same name, other signature option (unique): 86 as well.
    await expectCode(c.createIndex({ a: 1 }, { name: 'a_1', unique: true }), 86);
    // Same name and signature, other non-identifying option: 85.
    await expectCode(
      c.createIndex({ t: 1 }, { name: 't_1', expireAfterSeconds: 20 }),
      85,
      /An equivalent index already exists with the same name but different options/,
    );
    // Same key and signature, other name: 85.
    await expectCode(
      c.createIndex({ a: 1 }, { name: 'other' }),
      85,
      'Index already exists with a different name: a_1',
    );
    await expectCode(
      c.createIndex({ t: 1 }, { name: 'other', expireAfterSeconds: 5 }),
      85,
      /An equivalent index already exists with a different name and options/,
    );
    // unique and sparse are part of the signature: such indexes coexist with a plain one.
    await c.createIndex({ a: 1 }, { name: 'a_unique', unique: true });
    await c.createIndex({ a: 1 }, { name: 'a_sparse', sparse: true });
    await c.createIndex(
      { a: 1 },
      { name: 'a_partial', partialFilterExpression: { a: { $gt: 0, $lt: 10 }, b: 'x' } },
    );
    // A partial filter written another way is the same index.
    const same = await db.command({
      createIndexes: 'conflicts',
      indexes: [
        {
          key: { a: 1 },
          name: 'a_partial',
          partialFilterExpression: { $and: [{ b: 'x' }, { a: { $lt: 10 } }, { a: { $gt: 0 } }] },
        },
      ],
    });
    assert.equal(same['note'], 'all indexes already exist');
    assert.deepEqual(await names(c), ['_id_', 'a_1', 't_1', 'a_unique', 'a_sparse', 'a_partial']);
    // Hinting by a key pattern several indexes share: IndexNotFound, name them instead.
    await expectCode(
      c.find({ a: 1 }).hint({ a: 1 }).toArray(),
      27,
      /Hint matched multiple indexes/,
    );
  });

  test('bad specifications are refused with mongod codes', async () => {
    await fresh('bad');
    const create = (spec: Document): Promise<Document> =>
      db.command({ createIndexes: 'bad', indexes: [spec] });
    await expectCode(
      db.command({ createIndexes: 'bad', indexes: [] }),
      2,
      'Must specify at least one index to create',
    );
    await expectCode(db.command({ createIndexes: 'bad' }), 40414);
    await expectCode(
      db.command({ createIndexes: 'bad', indexes: ['x'] }),
      14,
      "BSON field 'createIndexes.indexes.0' is the wrong type 'string', expected type 'object'",
    );
    await expectCode(
      create({ key: { v: 1 } }),
      9,
      "Error in specification { key: { v: 1 } } :: caused by :: The 'name' field is a required property of an index specification",
    );
    await expectCode(create({ name: 'x' }), 9, /The 'key' field is a required property/);
    await expectCode(create({ key: { v: -1 }, name: '' }), 67, /index name cannot be empty/);
    await expectCode(
      create({ key: { a: 0 }, name: 'z' }),
      67,
      /Values in the index key pattern can only be numbers > 0, numbers < 0, or strings/,
    );
    await expectCode(create({ key: {}, name: 'z' }), 67);
    await expectCode(create({ key: { $a: 1 }, name: 'z' }), 67, /field name starts with '\$'/);
    await expectCode(
      create({ key: { a: 1 }, name: 'z', foo: 1 }),
      197,
      /The field 'foo' is not valid for an index specification/,
    );
    await expectCode(
      create({ key: { a: 1 }, name: 'z', unique: {} }),
      14,
      /which is not convertible to bool/,
    );
    await expectCode(
      create({ key: { _id: 1 }, name: '_id_', unique: true }),
      197,
      /The field 'unique' is not valid for an _id index specification/,
    );
    await expectCode(
      create({ key: { a: 1 }, name: '_id_' }),
      2,
      /The index name '_id_' is reserved for the _id index/,
    );
    await expectCode(create({ key: { a: 1 }, name: '*' }), 2, "The index name '*' is not valid.");
    // Compound wildcard indexes are built (compound-wildcard-index.test.ts); bad ones fail.
    await expectCode(create({ key: { a: 1, '$**': 1 }, name: 'z' }), 67);
    await expectCode(create({ key: { a: 1 }, name: 'z', collation: { locale: 'fr' } }), 238);
  });

  test('partialFilterExpression: the operators mongod allows, and not with sparse', async () => {
    await fresh('partial');
    const create = (pfe: Document, extra: Document = {}): Promise<Document> =>
      db.command({
        createIndexes: 'partial',
        indexes: [
          { key: { a: 1 }, name: `p${Math.random()}`, partialFilterExpression: pfe, ...extra },
        ],
      });
    for (const ok of [
      { a: { $exists: true } },
      { a: { $in: [1, 2] } },
      { a: { $type: 'string' } },
      { $or: [{ a: 1 }, { b: { $gt: 2 } }] },
      { a: { $gte: 1, $lt: 5 } },
      { a: null },
    ]) {
      await create(ok);
    }
    await expectCode(
      create({ a: { $exists: false } }),
      67,
      /Expression not supported in partial index: \$not\n {4}a exists\n/,
    );
    await expectCode(
      create({ a: { $ne: 1 } }),
      67,
      /Expression not supported in partial index: \$not/,
    );
    await expectCode(create({ a: /x/ }), 67, /Expression not supported in partial index: a regex/);
    await expectCode(create({ a: { $size: 2 } }), 67);
    await expectCode(create({ $nor: [{ a: 1 }] }), 67);
    await expectCode(
      create({ $expr: { $eq: ['$a', 1] } }),
      224,
      /\$expr is not allowed in this context/,
    );
    await expectCode(
      create({ $and: [{ $and: [{ $and: [{ $and: [{ a: 1 }] }] }] }] }),
      67,
      /partialFilterExpression depth may not exceed 4/,
    );
    await expectCode(
      create({ a: 1 }, { sparse: true }),
      67,
      /cannot mix "partialFilterExpression" and "sparse" options/,
    );
    await expectCode(
      create('x' as unknown as Document),
      67,
      /"partialFilterExpression" for an index must be a document/,
    );
  });

  test('expireAfterSeconds is validated as mongod does', async () => {
    await fresh('ttlspec');
    const create = (key: Document, expireAfterSeconds: unknown): Promise<Document> =>
      db.command({
        createIndexes: 'ttlspec',
        indexes: [{ key, name: `t${Math.random()}`, expireAfterSeconds }],
      });
    await create({ t: 1 }, 0);
    await expectCode(
      create({ t: 1 }, 'x'),
      67,
      /TTL index 'expireAfterSeconds' option must be numeric, but received a type of 'string'/,
    );
    await expectCode(create({ t: 1 }, -1), 67, /cannot be less than 0/);
    await expectCode(create({ t: 1 }, NaN), 67, /must not be NaN/);
    await expectCode(create({ t: 1 }, 2 ** 31), 67, /must be within the range of a 32-bit integer/);
    await expectCode(
      create({ t: 1, u: 1 }, 10),
      67,
      /TTL indexes are single-field indexes, compound indexes do not support TTL/,
    );
  });

  test('a unique index over duplicates: DuplicateKey with keyPattern and keyValue, and nothing created', async () => {
    const c = await fresh('dups', [
      { _id: 1, a: 1, b: 1 },
      { _id: 2, a: 1, b: 2 },
    ]);
    const e = await expectCode(
      db.command({
        createIndexes: 'dups',
        indexes: [
          { key: { b: 1 }, name: 'b_1' },
          { key: { a: 1 }, name: 'a_1', unique: true },
        ],
      }),
      11000,
      /E11000 duplicate key error collection: indexes.dups index: a_1 dup key: \{ a: 1 \}/,
    );
    assert.deepEqual(e.errorResponse['keyPattern'], { a: 1 });
    assert.deepEqual(e.errorResponse['keyValue'], { a: 1 });
    assert.deepEqual(await names(c), ['_id_'], 'neither index of the request exists');
  });
});

describe('createIndexes in a transaction', () => {
  test('only on a collection without documents, as mongod', async () => {
    await fresh('txfull', [{ _id: 1, a: 1 }]);
    const session = ts.client.startSession();
    try {
      session.startTransaction();
      await expectCode(
        db.collection('txfull').createIndex({ a: 1 }, { session }),
        263,
        /Cannot create new indexes on existing collection indexes.txfull in a multi-document transaction/,
      );
      await session.abortTransaction();
      session.startTransaction();
      await db.collection('txnew').createIndex({ a: 1 }, { session });
      await db.collection<TestDoc>('txnew').insertOne({ _id: 1, a: 5 }, { session });
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    assert.deepEqual(
      (await db.collection('txnew').find({ a: 5 }).hint('a_1').toArray()).map((d) => d['_id']),
      [1],
    );
  });
});

describe('listIndexes and dropIndexes', () => {
  test('listIndexes shows the specs as given; a missing collection is 26', async () => {
    const c = await fresh('listed');
    await c.createIndex({ a: 1 }, { unique: true, background: true });
    await c.createIndex({ b: -1 }, { sparse: true, hidden: true });
    const specs = await c.listIndexes().toArray();
    assert.deepEqual(specs, [
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { a: 1 }, name: 'a_1', unique: true, background: true },
      { v: 2, key: { b: -1 }, name: 'b_-1', sparse: true, hidden: true },
    ]);
    await expectCode(db.command({ listIndexes: 'nope' }), 26, 'ns does not exist: indexes.nope');
  });

  test('dropIndexes by name, key, list and "*", with mongod errors', async () => {
    const c = await fresh('dropped');
    for (const k of ['a', 'b', 'c', 'd']) await c.createIndex({ [k]: 1 });
    await c.createIndex({ e: 1 }, { name: 'e1' });
    await c.createIndex({ e: 1 }, { name: 'e2', unique: true });
    const drop = (index: unknown): Promise<Document> =>
      db.command({ dropIndexes: 'dropped', index });
    assert.equal((await drop('a_1'))['nIndexesWas'], 7);
    await drop({ b: 1 });
    await drop(['c_1', 'd_1']);
    assert.deepEqual(await names(c), ['_id_', 'e1', 'e2']);
    await expectCode(drop('nope'), 27, 'index not found with name [nope]');
    await expectCode(drop(['e1', 'nope']), 27, 'index not found with name [nope]');
    await expectCode(drop({ z: 1 }), 27, "can't find index with key: { z: 1 }");
    await expectCode(drop({ e: 1 }), 181);
    await expectCode(drop('_id_'), 72, 'cannot drop _id index');
    await expectCode(drop({ _id: 1 }), 72, 'cannot drop _id index');
    await expectCode(
      drop(true),
      14,
      "BSON field 'dropIndexes.index' is the wrong type 'bool', expected types '[string, object']",
    );
    await expectCode(drop([1]), 14);
    await expectCode(db.command({ dropIndexes: 'dropped' }), 40414);
    await expectCode(
      db.command({ dropIndexes: 'nope', index: 'x' }),
      26,
      'ns not found indexes.nope',
    );
    const all = await drop('*');
    assert.equal(all['msg'], 'non-_id indexes dropped for collection');
    assert.deepEqual(await names(c), ['_id_']);
  });
});

describe('collMod index', () => {
  test('hidden indexes keep their entries but the planner does not use them', async () => {
    const c = await fresh(
      'hidden',
      Array.from({ length: 50 }, (_, i) => ({ _id: i, a: i })),
    );
    await c.createIndex({ a: 1 });
    const plan = async (): Promise<string> =>
      JSON.stringify(
        (await c.find({ a: 7 }).explain('queryPlanner'))['queryPlanner']['winningPlan'],
      );
    assert.match(await plan(), /IXSCAN/);
    const r = await db.command({ collMod: 'hidden', index: { name: 'a_1', hidden: true } });
    assert.deepEqual([r['hidden_old'], r['hidden_new']], [false, true]);
    assert.match(await plan(), /COLLSCAN/);
    await expectCode(
      c.find({ a: 7 }).hint('a_1').toArray(),
      2,
      /hint provided does not correspond to an existing index/,
    );
    await c.insertOne({ _id: 100, a: 7 });
    await db.command({ collMod: 'hidden', index: { keyPattern: { a: 1 }, hidden: false } });
    assert.match(await plan(), /IXSCAN/);
    assert.deepEqual(
      (await c.find({ a: 7 }).toArray()).map((d) => d['_id']),
      [7, 100],
      'writes while hidden kept the index in step',
    );
    await expectCode(
      db.command({ collMod: 'hidden', index: { name: 'nope', hidden: true } }),
      27,
      'cannot find index nope for ns indexes.hidden',
    );
    await expectCode(
      db.command({ collMod: 'hidden', index: { name: '_id_', hidden: true } }),
      2,
      "can't hide _id index",
    );
    await expectCode(db.command({ collMod: 'hidden', index: { name: 'a_1' } }), 72);
    await expectCode(
      db.command({ collMod: 'hidden', index: { name: 'a_1', keyPattern: { a: 1 }, hidden: true } }),
      72,
    );
  });

  test('expireAfterSeconds changes', async () => {
    const c = await fresh('ttlmod');
    await c.createIndex({ t: 1 }, { expireAfterSeconds: 100 });
    const r = await db.command({
      collMod: 'ttlmod',
      index: { keyPattern: { t: 1 }, expireAfterSeconds: 50 },
    });
    assert.deepEqual([r['expireAfterSeconds_old'], r['expireAfterSeconds_new']], [100, 50]);
    const spec = (await c.listIndexes().toArray()).find((i) => i['name'] === 't_1');
    assert.equal(spec?.['expireAfterSeconds'], 50);
  });
});

describe('keys on writes', () => {
  test('parallel arrays are refused on insert, update and index build (171)', async () => {
    const c = await fresh('parallel', [{ _id: 1, a: [1, 2], b: 1 }]);
    await c.createIndex({ a: 1, b: 1 });
    await expectCode(
      c.insertOne({ _id: 2, a: [1], b: [2] }),
      171,
      'cannot index parallel arrays [b] [a]',
    );
    await expectCode(c.updateOne({ _id: 1 }, { $set: { b: [3] } }), 171);
    await c.insertOne({ _id: 3, x: [1], y: [2] });
    await expectCode(c.createIndex({ x: 1, y: 1 }), 171);
    assert.equal(await c.countDocuments(), 2);
  });

  test('unique: missing fields collide unless sparse or partial; one document may repeat a key', async () => {
    const u = await fresh('uniq');
    await u.createIndex({ a: 1 }, { unique: true });
    await u.insertOne({ _id: 1 });
    await expectCode(u.insertOne({ _id: 2 }), 11000, /dup key: \{ a: null \}/);
    await u.insertOne({ _id: 3, a: [5, 5, 6] });
    await expectCode(u.insertOne({ _id: 4, a: [7, 6] }), 11000, /dup key: \{ a: 6 \}/);
    await u.updateOne({ _id: 3 }, arrayUpdate({ $push: { a: 5 } }));
    const s = await fresh('uniqsparse');
    await s.createIndex({ a: 1 }, { unique: true, sparse: true });
    await s.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3, a: 1 }]);
    await expectCode(s.insertOne({ _id: 4, a: 1 }), 11000);
    const p = await fresh('uniqpartial');
    await p.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await p.insertMany([
      { _id: 1, email: 'x', active: false },
      { _id: 2, email: 'x', active: true },
      { _id: 3, email: 'x' },
    ]);
    await expectCode(p.insertOne({ _id: 4, email: 'x', active: true }), 11000);
    await expectCode(p.updateOne({ _id: 1 }, { $set: { active: true } }), 11000);
  });

  test('multikey is tracked, shown by explain, and kept when arrays go away', async () => {
    const c = await fresh('multikey', [{ _id: 1, a: { b: 1 } }]);
    await c.createIndex({ 'a.b': 1, c: 1 });
    const scan = async (): Promise<Document> => {
      const e = await c.find({ 'a.b': 1 }).explain('queryPlanner');
      let s = e['queryPlanner']['winningPlan'];
      while (s['stage'] !== 'IXSCAN') s = s['inputStage'];
      return s;
    };
    assert.equal((await scan())['isMultiKey'], false);
    await c.updateOne({ _id: 1 }, { $set: { a: [{ b: 1 }, { b: [2, 3] }] } });
    const s = await scan();
    assert.equal(s['isMultiKey'], true);
    assert.deepEqual(s['multiKeyPaths'], { 'a.b': ['a', 'a.b'], c: [] });
    await c.updateOne({ _id: 1 }, { $set: { a: { b: 1 } } });
    assert.equal((await scan())['isMultiKey'], true);
    assert.deepEqual(
      (await c.find({ 'a.b': 1 }).toArray()).map((d) => d['_id']),
      [1],
    );
  });

  test('a cursor whose index becomes multikey between batches stops with QueryPlanKilled (175)', async () => {
    const c = await fresh(
      'killed',
      Array.from({ length: 10 }, (_, i) => ({ _id: i, a: i })),
    );
    await c.createIndex({ a: 1 });
    const cursor = c.find({ a: { $gte: 0 } }, { projection: { _id: 0, a: 1 }, batchSize: 2 });
    assert.deepEqual(await cursor.next(), { a: 0 });
    await c.insertOne({ _id: 100, a: [3, 4] });
    await expectCode(cursor.toArray(), 175, /became multikey/);
    // A new query plans with the new state (and no longer covers).
    assert.equal(
      (await c.find({ a: { $gte: 0 } }, { projection: { _id: 0, a: 1 } }).toArray()).length,
      11,
    );
  });

  test('keys longer than the key limit are stored, found, sorted and kept unique', async () => {
    const c = await fresh('longkeys');
    await c.createIndex({ s: 1 });
    await c.createIndex({ u: 1 }, { unique: true });
    const long = (ch: string, tail: string): string => ch.repeat(5000) + tail;
    const docs = [
      { _id: 1, s: long('m', 'b'), u: long('x', '1') },
      { _id: 2, s: long('m', 'a'), u: long('x', '2') },
      { _id: 3, s: 'short', u: 'y' },
      { _id: 4, s: long('m', 'c'), u: long('z', '') },
    ];
    await c.insertMany(docs);
    assert.deepEqual(
      (await c.find({ s: long('m', 'a') }).toArray()).map((d) => d['_id']),
      [2],
    );
    assert.deepEqual(
      (await c.find({ s: { $gt: long('m', 'a') } }).toArray()).map((d) => d['_id']).sort(),
      [1, 3, 4],
    );
    assert.deepEqual(
      (await c.find({ s: { $gte: 'n' } }).toArray()).map((d) => d['_id']),
      [3],
    );
    assert.deepEqual(
      (await c.find({ s: { $lt: long('m', 'c') } }).toArray()).map((d) => d['_id']).sort(),
      [1, 2],
    );
    assert.deepEqual(
      (await c.find({}).sort({ s: 1 }).toArray()).map((d) => d['_id']),
      [2, 1, 4, 3],
    );
    assert.deepEqual(
      (await c.find({ s: { $gte: 'm' } }, { projection: { _id: 0, s: 1 } }).toArray()).length,
      4,
    );
    await expectCode(c.insertOne({ _id: 5, u: long('x', '1') }), 11000);
    await c.insertOne({ _id: 6, u: long('x', '3') });
    await c.deleteOne({ _id: 1 });
    await c.insertOne({ _id: 7, u: long('x', '1') });
    assert.deepEqual(
      (await c.find({ u: long('x', '1') }).toArray()).map((d) => d['_id']),
      [7],
    );
  });
});

describe('hint, min/max, returnKey', () => {
  test('hint by name or key pattern; a bad hint is BadValue; $natural scans', async () => {
    const c = await fresh(
      'hints',
      Array.from({ length: 20 }, (_, i) => ({ _id: i, a: i % 5, b: i })),
    );
    await c.createIndex({ a: 1 });
    await c.createIndex({ b: 1 });
    const stageOf = async (hint: Document | string): Promise<string> =>
      JSON.stringify(
        (
          await c
            .find({ a: 1, b: { $gt: 3 } })
            .hint(hint)
            .explain('queryPlanner')
        )['queryPlanner']['winningPlan'],
      );
    assert.match(await stageOf('b_1'), /"indexName":"b_1"/);
    assert.match(await stageOf({ a: 1 }), /"indexName":"a_1"/);
    assert.match(await stageOf({ $natural: -1 }), /"COLLSCAN".*"backward"/);
    await expectCode(
      c.find({}).hint('nope').toArray(),
      2,
      /hint provided does not correspond to an existing index/,
    );
    await expectCode(c.find({}).hint({ z: 1 }).toArray(), 2);
    assert.deepEqual(
      (await c.find({ a: 1 }).hint('b_1').toArray())
        .map((d) => d['_id'])
        .sort((x, y) => Number(x) - Number(y)),
      [1, 6, 11, 16],
    );
  });

  test('min/max need a hint and bound the index scan (min inclusive, max exclusive)', async () => {
    const c = await fresh(
      'minmax',
      Array.from({ length: 10 }, (_, i) => ({ _id: i, a: i })),
    );
    await c.createIndex({ a: 1 });
    assert.deepEqual(
      (await c.find({}).min({ a: 3 }).max({ a: 6 }).hint({ a: 1 }).toArray()).map((d) => d['_id']),
      [3, 4, 5],
    );
    assert.deepEqual(
      (
        await c
          .find({ _id: { $ne: 4 } })
          .min({ a: 3 })
          .hint('a_1')
          .toArray()
      ).map((d) => d['_id']),
      [3, 5, 6, 7, 8, 9],
    );
    await expectCode(
      c.find({}).min({ a: 3 }).toArray(),
      51173,
      /When using min\(\)\/max\(\) a hint of which index to use must be provided/,
    );
    await expectCode(c.find({}).min({ b: 3 }).hint({ a: 1 }).toArray(), 51174);
    await expectCode(c.find({}).min({ a: 6 }).max({ a: 3 }).hint({ a: 1 }).toArray(), 51175);
  });

  test('returnKey gives the index key of each document', async () => {
    const c = await fresh('retkey', [
      { _id: 1, a: 5, b: 'x' },
      { _id: 2, a: 6, b: 'y' },
    ]);
    await c.createIndex({ a: 1, b: -1 });
    assert.deepEqual(await c.find({ a: { $gte: 5 } }, { returnKey: true }).toArray(), [
      { a: 5, b: 'x' },
      { a: 6, b: 'y' },
    ]);
    assert.deepEqual(await c.find({ b: 'x' }, { returnKey: true }).toArray(), [{}]);
  });
});

describe('TTL monitor', () => {
  test('deletes expired documents (dates, earliest of an array), through the write path', async () => {
    const admin = ts.client.db('admin');
    const c = await fresh('ttl');
    const now = Date.now();
    await c.insertMany([
      { _id: 'old', at: new Date(now - 3_600_000) },
      { _id: 'new', at: new Date(now + 3_600_000) },
      { _id: 'array', at: [new Date(now + 3_600_000), new Date(now - 3_600_000)] },
      { _id: 'future-array', at: [new Date(now + 3_600_000)] },
      { _id: 'string', at: 'yesterday' },
      { _id: 'missing' },
    ]);
    await c.createIndex({ at: 1 }, { expireAfterSeconds: 60 });
    const p = await fresh('ttlpartial', [
      { _id: 1, at: new Date(0), keep: true },
      { _id: 2, at: new Date(0) },
    ]);
    await p.createIndex(
      { at: 1 },
      { expireAfterSeconds: 0, partialFilterExpression: { keep: { $exists: true } } },
    );
    const was = await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 });
    await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
    try {
      const deadline = Date.now() + 10_000;
      let left: unknown[] = [];
      while (Date.now() < deadline) {
        left = (await c.find({}).toArray()).map((d) => d['_id']);
        if (left.length === 4 && (await p.countDocuments()) === 1) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(left.sort(), ['future-array', 'missing', 'new', 'string']);
      assert.deepEqual(
        (await p.find({}).toArray()).map((d) => d['_id']),
        [2],
      );
    } finally {
      await admin.command({ setParameter: 1, ttlMonitorSleepSecs: was['ttlMonitorSleepSecs'] });
    }
  });
});

describe('mongoose index sync', () => {
  // mongoose is not a dependency: this replays what Model.syncIndexes() sends (mongoose 8,
  // lib/model.js): createCollection (48 ignored), listIndexes (26 means none), dropIndex for
  // each index the schema no longer declares, then createIndex per schema index with
  // background: true, and Model.init()'s ensureIndexes on the next start.
  test('syncIndexes: create, then change the schema, then re-sync', async () => {
    const conn = ts.client.db('mongoose_app');
    const sync = async (schema: Array<{ key: Document; options: Document }>): Promise<string[]> => {
      await conn.createCollection('users').catch((e: unknown) => {
        if (!(e instanceof MongoServerError && e.code === 48)) throw e;
      });
      let existing: Document[] = [];
      try {
        existing = await conn.collection('users').listIndexes().toArray();
      } catch (e) {
        if (!(e instanceof MongoServerError && e.code === 26)) throw e;
      }
      const wanted = (spec: Document): boolean =>
        schema.some(
          (s) =>
            JSON.stringify(s.key) === JSON.stringify(spec['key']) &&
            (s.options['unique'] === true) === (spec['unique'] === true),
        );
      const dropped: string[] = [];
      for (const spec of existing) {
        if (spec['name'] === '_id_' || wanted(spec)) continue;
        await conn.collection('users').dropIndex(spec['name'] as string);
        dropped.push(spec['name'] as string);
      }
      for (const s of schema)
        await conn.collection('users').createIndex(s.key, { background: true, ...s.options });
      return dropped;
    };
    assert.deepEqual(
      await sync([
        { key: { email: 1 }, options: { unique: true } },
        { key: { name: 1, age: -1 }, options: {} },
      ]),
      [],
    );
    await conn.collection('users').insertOne({ email: 'a@x', name: 'a', age: 3 });
    await expectCode(conn.collection('users').insertOne({ email: 'a@x' }), 11000);
    // Restart-style ensureIndexes: the same createIndex calls again are no-ops.
    assert.deepEqual(
      await sync([
        { key: { email: 1 }, options: { unique: true } },
        { key: { name: 1, age: -1 }, options: {} },
      ]),
      [],
    );
    // The schema drops name/age and adds a TTL index.
    assert.deepEqual(
      await sync([
        { key: { email: 1 }, options: { unique: true } },
        { key: { createdAt: 1 }, options: { expireAfterSeconds: 3600 } },
      ]),
      ['name_1_age_-1'],
    );
    const specs = await conn.collection('users').listIndexes().toArray();
    assert.deepEqual(
      specs.map((s) => [s['name'], s['background'] ?? false]),
      [
        ['_id_', false],
        ['email_1', true],
        ['createdAt_1', true],
      ],
    );
  });
});
