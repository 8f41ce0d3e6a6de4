// Names are data: a field called __proto__, constructor, toString, hasOwnProperty or valueOf
// behaves exactly like a field with an ordinary name in every stage, expression, projection,
// sort pattern, update and index. Each case runs twice, once with an ordinary name and once
// with the special one, and the two results must be the same once the name is mapped back.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Collection, Document } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { rawCommand } from '../helpers/wire-client.js';
import type { TestDoc } from '../helpers/driver.js';

const CONTROL = 'plainName';
const SPECIAL = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

/** Computed keys define own properties, even `__proto__`, so these literals are data. */
function seed(f: string): Document[] {
  return [
    { _id: 1, [f]: 3, o: { [f]: 'x', k: 1 }, arr: [{ [f]: 1 }, { [f]: 2 }], s: 'b' },
    { _id: 2, [f]: 1, o: { [f]: 'y', k: 2 }, arr: [{ [f]: 5 }], s: 'a' },
    { _id: 3, [f]: null, o: { k: 3 }, arr: [], s: 'c' },
    { _id: 4, o: { [f]: 'w', k: 4 }, s: 'a' },
    { _id: 5, [f]: 3, s: 'd' },
  ];
}

/** Field names (and dotted-path segments) and string values equal to `from` become `to`, at every level. */
function rename(v: unknown, from: string, to: string): unknown {
  if (typeof v === 'string') return v === from ? to : v;
  if (Array.isArray(v)) return v.map((x) => rename(x, from, to));
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype)
    return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const name = k
      .split('.')
      .map((seg) => (seg === from ? to : seg))
      .join('.');
    Object.defineProperty(out, name, {
      value: rename(x, from, to),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

type Outcome = { ok: unknown } | { code: number | undefined };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await run() };
  } catch (e) {
    if (e instanceof MongoServerError) return { code: e.code as number | undefined };
    throw e;
  }
}

// Pipelines with the field name as a parameter: every stage kind that names fields.
const pipelines: Record<string, (f: string) => Document[]> = {
  match: (f) => [{ $match: { [f]: 3 } }],
  matchNested: (f) => [{ $match: { [`o.${f}`]: 'x' } }],
  matchElem: (f) => [{ $match: { arr: { $elemMatch: { [f]: { $gt: 1 } } } } }],
  matchExists: (f) => [{ $match: { [f]: { $exists: false } } }],
  matchExpr: (f) => [{ $match: { $expr: { $gt: [`$${f}`, 2] } } }],
  projectInclude: (f) => [{ $project: { [f]: 1 } }],
  projectExclude: (f) => [{ $project: { [f]: 0, arr: 0 } }],
  projectNested: (f) => [{ $project: { [`o.${f}`]: 1, _id: 0 } }],
  projectComputed: (f) => [{ $project: { [f]: { $add: [`$${f}`, 1] }, y: `$o.${f}` } }],
  addFields: (f) => [{ $addFields: { [f]: { $ifNull: [`$${f}`, 'none'] } } }],
  setNested: (f) => [{ $set: { [`o.${f}`]: 7 } }],
  unset: (f) => [{ $unset: f }],
  sortAsc: (f) => [{ $sort: { [f]: 1, _id: 1 } }],
  sortDesc: (f) => [{ $sort: { [f]: -1, _id: 1 } }],
  sortNested: (f) => [{ $sort: { [`o.${f}`]: -1, _id: 1 } }],
  group: (f) => [
    { $group: { _id: `$${f}`, [f]: { $sum: 1 }, all: { $push: `$o.${f}` } } },
    { $sort: { _id: 1 } },
  ],
  groupKeyDoc: (f) => [
    { $group: { _id: { [f]: `$o.${f}` }, n: { $sum: 1 } } },
    { $sort: { n: 1, [`_id.${f}`]: 1 } },
  ],
  facet: (f) => [{ $facet: { [f]: [{ $match: { [f]: 3 } }], other: [{ $count: f }] } }],
  redact: (f) => [
    { $redact: { $cond: [{ $eq: [`$${f}`, 1] }, '$$PRUNE', '$$KEEP'] } },
    { $sort: { _id: 1 } },
  ],
  fill: (f) => [{ $fill: { sortBy: { _id: 1 }, output: { [f]: { method: 'locf' } } } }],
  fillValue: (f) => [{ $fill: { output: { [f]: { value: 0 } } } }, { $sort: { _id: 1 } }],
  replaceRoot: (f) => [
    { $replaceRoot: { newRoot: { [f]: { $ifNull: [`$${f}`, 0] }, id: '$_id' } } },
  ],
  replaceWithSub: (_f) => [{ $match: { o: { $exists: true } } }, { $replaceWith: '$o' }],
  unwind: (f) => [{ $unwind: '$arr' }, { $project: { v: `$arr.${f}` } }],
  unwindField: (f) => [
    { $set: { [f]: [1, 2] } },
    { $unwind: { path: `$${f}`, includeArrayIndex: 'i' } },
  ],
  bucket: (f) => [
    { $match: { [f]: { $type: 'number' } } },
    { $bucket: { groupBy: `$${f}`, boundaries: [0, 2, 10], output: { [f]: { $sum: 1 } } } },
  ],
  sortByCount: (f) => [{ $sortByCount: `$o.${f}` }, { $sort: { count: 1, _id: 1 } }],
  count: (f) => [{ $count: f }],
  windowFields: (f) => [
    {
      $setWindowFields: {
        sortBy: { _id: 1 },
        output: { [f]: { $sum: 1, window: { documents: ['unbounded', 'current'] } } },
      },
    },
  ],
  lookup: (f) => [
    { $lookup: { from: 'self', localField: f, foreignField: f, as: f } },
    { $project: { n: { $size: `$${f}` } } },
  ],
  graphLookup: (f) => [
    { $match: { _id: 1 } },
    {
      $graphLookup: {
        from: 'self',
        startWith: `$${f}`,
        connectFromField: f,
        connectToField: '_id',
        as: 'g',
        maxDepth: 2,
      },
    },
    { $project: { n: { $size: '$g' } } },
  ],
  getSetField: (f) => [
    {
      $project: {
        g: { $getField: f },
        h: { $getField: { field: f, input: '$o' } },
        s: { $setField: { field: f, input: { a: 1 }, value: '$_id' } },
        u: { $unsetField: { field: f, input: '$o' } },
      },
    },
  ],
  objectArrays: (f) => [
    { $project: { a: { $objectToArray: '$o' }, b: { $arrayToObject: [[{ k: f, v: 1 }]] } } },
  ],
  mergeObjects: (f) => [{ $project: { m: { $mergeObjects: ['$o', { [f]: 'z' }] } } }],
  literalDoc: (f) => [{ $project: { d: { [f]: '$s', n: { [f]: { $literal: 1 } } } } }],
  filterMap: (f) => [
    {
      $project: {
        a: { $filter: { input: { $ifNull: ['$arr', []] }, cond: { $gt: [`$$this.${f}`, 1] } } },
        b: { $map: { input: { $ifNull: ['$arr', []] }, in: `$$this.${f}` } },
      },
    },
  ],
  sortArray: (f) => [
    { $project: { a: { $sortArray: { input: { $ifNull: ['$arr', []] }, sortBy: { [f]: -1 } } } } },
  ],
  accumulators: (f) => [
    {
      $group: {
        _id: null,
        top: { $top: { sortBy: { [f]: -1, _id: 1 }, output: `$${f}` } },
        max: { $max: `$${f}` },
        set: { $addToSet: `$o.${f}` },
        objs: { $mergeObjects: '$o' },
      },
    },
    { $set: { set: { $sortArray: { input: '$set', sortBy: 1 } } } },
  ],
};

describe('names are data', () => {
  let ts: TestServer;
  let coll: Record<string, Collection<Document>>;

  before(async () => {
    ts = await startTestServer({ replSet: '' });
    coll = {};
    for (const f of [CONTROL, ...SPECIAL]) {
      const db = ts.client.db(`names_${f.replace(/_/g, 'u')}`);
      await db.collection('self').insertMany(seed(f));
      coll[f] = db.collection('self');
    }
  });
  after(async () => {
    await ts.stop();
  });

  function c(f: string): Collection<Document> {
    const x = coll[f];
    assert.ok(x !== undefined);
    return x;
  }

  async function same(
    what: string,
    run: (f: string, col: Collection<Document>) => Promise<unknown>,
  ): Promise<void> {
    const expected = await outcome(() => run(CONTROL, c(CONTROL)));
    assert.ok('ok' in expected, `${what}: the control case runs (${JSON.stringify(expected)})`);
    for (const f of SPECIAL) {
      const got = await outcome(() => run(f, c(f)));
      assert.deepEqual(rename(got, f, CONTROL), expected, `${what} with field ${f}`);
    }
  }

  // Through the wire client: the driver's parser turns the documents of an array under a
  // `__proto__` key into Buffers (its own quirk: the server's bytes are right).
  async function aggregate(col: Collection<Document>, pipeline: Document[]): Promise<unknown> {
    const r = await rawCommand(ts.server.port, {
      aggregate: col.collectionName,
      pipeline,
      cursor: {},
      $db: col.dbName,
    });
    if (r['ok'] !== 1) return { code: r['code'] };
    const cursor = r['cursor'] as { firstBatch: unknown[]; id: unknown };
    return cursor.firstBatch;
  }

  for (const [name, pipeline] of Object.entries(pipelines)) {
    test(`aggregate: ${name}`, async () => {
      await same(name, (f, col) => aggregate(col, pipeline(f)));
    });
  }

  test('find: filter, projection, sort, positional and $elemMatch projection', async () => {
    await same('find', (f, col) =>
      col
        .find({ [f]: { $gte: 1 } }, { projection: { [f]: 1, [`o.${f}`]: 1 } })
        .sort({ [f]: -1, _id: 1 })
        .toArray(),
    );
    await same('find $elemMatch projection', (f, col) =>
      col
        .find({}, { projection: { arr: { $elemMatch: { [f]: { $gte: 2 } } } } })
        .sort({ _id: 1 })
        .toArray(),
    );
    await same('find positional', (f, col) =>
      col.find({ [`arr.${f}`]: 2 }, { projection: { 'arr.$': 1 } }).toArray(),
    );
    await same('distinct', async (f, col) => (await col.distinct(`o.${f}`)).sort());
  });

  test('updates: operators, pipelines, replacement, upsert, findAndModify', async () => {
    const updates: Array<(f: string) => [Document, Document | Document[]]> = [
      (f) => [{ _id: 1 }, { $set: { [f]: 10, [`o.${f}`]: 'set' } }],
      (f) => [{ _id: 1 }, { $inc: { [f]: 1 }, $unset: { [`o.${f}`]: '' } }],
      (f) => [{ _id: 2 }, { $rename: { [f]: 'renamed' } }],
      (f) => [{ _id: 2 }, { $rename: { s: f } }],
      (f) => [{ _id: 1 }, { $push: { arr: { [f]: 9 } } }],
      (f) => [{ _id: 1 }, { $pull: { arr: { [f]: 1 } } }],
      (f) => [{ [`arr.${f}`]: 2 }, { $set: { [`arr.$.${f}`]: 20 } }],
      (f) => [{ _id: 1 }, { $set: { [`arr.$[e].${f}`]: 0 } }],
      (f) => [{ _id: 1 }, { $max: { [f]: 50 }, $min: { [`o.${f}`]: 'a' } }],
      (f) => [{ _id: 1 }, [{ $set: { [f]: { $multiply: [`$${f}`, 2] } } }, { $unset: 'arr' }]],
    ];
    for (const [i, u] of updates.entries()) {
      await same(`update ${i}`, async (f, col) => {
        const db = col.db;
        const tmp = db.collection('upd');
        await tmp.deleteMany({});
        await tmp.insertMany(seed(f));
        const [filter, update] = u(f);
        const options = i === 7 ? { arrayFilters: [{ [`e.${f}`]: { $gt: 1 } }] } : {};
        const r = await tmp.updateOne(filter, update, options);
        const after = await tmp.find().sort({ _id: 1 }).toArray();
        return { modified: r.modifiedCount, after };
      });
    }
    await same('replacement and upsert', async (f, col) => {
      const tmp = col.db.collection<TestDoc>('repl');
      await tmp.insertMany(seed(f));
      await tmp.replaceOne({ _id: 1 }, { [f]: 'replaced', o: { [f]: 1 } });
      await tmp.updateOne({ [f]: 'new' }, { $set: { k: 1 } }, { upsert: true });
      const fam = await tmp.findOneAndUpdate(
        { [f]: 'replaced' },
        { $set: { [`o.${f}`]: 2 } },
        { returnDocument: 'after', projection: { _id: 0 } },
      );
      const after = await tmp
        .find({}, { projection: { _id: 0 } })
        .sort({ [f]: 1, s: 1 })
        .toArray();
      await tmp.drop();
      return { fam, after };
    });
  });

  test('indexes: a key on the name is used, unique, sorted and explained', async () => {
    await same('index', async (f, col) => {
      const tmp = col.db.collection('idx');
      await tmp.insertMany(seed(f));
      const name = await tmp.createIndex({ [f]: 1, [`o.${f}`]: -1 });
      await tmp.createIndex({ [`o.${f}`]: 1 }, { unique: true, sparse: true, name: 'u' });
      const hinted = await tmp
        .find({ [f]: { $gte: 1 } })
        .hint(name)
        .sort({ [f]: 1 })
        .toArray();
      const explain = await tmp
        .find({ [f]: 3 })
        .hint(name)
        .explain('executionStats');
      const stats = explain['executionStats'] as Document;
      const dup = await outcome(() => tmp.insertOne({ o: { [f]: 'y' } }));
      const indexes = (await tmp.listIndexes().toArray()).map((ix) => ix['key'] as unknown);
      await tmp.drop();
      return {
        name: name.replace(f, CONTROL).replace(f, CONTROL),
        hinted,
        keysExamined: stats['totalKeysExamined'],
        dup,
        indexes,
      };
    });
  });
});
