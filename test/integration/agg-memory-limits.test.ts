// Memory limits of the computing stages ($bucketAuto, $setWindowFields, $graphLookup), set
// small through their server parameters (as mongod names them), and the nesting bound of values
// built by $reduce. Expected results are computed here from the inserted documents or taken
// from the same pipeline under the default limits; nothing stored changes and the server keeps
// serving.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Collection, Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

const N = 2_000;

async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return e instanceof MongoServerError && typeof e.code === 'number' ? e.code : -1;
  }
}

const parameters = [
  'internalDocumentSourceBucketAutoMaxMemoryBytes',
  'internalDocumentSourceSetWindowFieldsMaxMemoryBytes',
  'internalDocumentSourceGraphLookupMaxMemoryBytes',
];

describe('memory limits of the computing stages', () => {
  let t: TestServer;
  let db: Db;
  let coll: Collection<Document>;
  const defaults: Document = {};

  before(async () => {
    t = await startTestServer();
    db = t.client.db('memlimits');
    coll = db.collection<TestDoc>('c');
    const docs: Document[] = [];
    for (let i = 0; i < N; i++)
      docs.push({ _id: i, a: i, g: i % 10, next: i + 1, s: 'x'.repeat(50) });
    await coll.insertMany(docs);
    // The chain search of the $graphLookup test reads by index, one step per query.
    await coll.createIndex({ a: 1 });
    const got = await t.client
      .db('admin')
      .command({ getParameter: 1, ...Object.fromEntries(parameters.map((p) => [p, 1])) });
    for (const p of parameters) defaults[p] = got[p];
  });
  after(async () => {
    await t.stop();
  });

  async function withLimit<T>(name: string, bytes: number, fn: () => Promise<T>): Promise<T> {
    await t.client.db('admin').command({ setParameter: 1, [name]: bytes });
    try {
      return await fn();
    } finally {
      await t.client.db('admin').command({ setParameter: 1, [name]: defaults[name] });
    }
  }

  test('the parameters exist with mongod defaults and refuse bad values', async () => {
    for (const p of parameters) assert.equal(Number(defaults[p]), 100 * 1024 * 1024, p);
    const bad = await codeOf(
      t.client.db('admin').command({ setParameter: 1, [parameters[0] as string]: 'lots' }),
    );
    assert.equal(bad, 2);
  });

  const bucketAuto = [{ $bucketAuto: { groupBy: '$a', buckets: 7, output: { n: { $sum: 1 } } } }];
  const windowed = [
    {
      $setWindowFields: {
        partitionBy: '$g',
        sortBy: { a: 1 },
        output: { run: { $sum: '$a', window: { documents: ['unbounded', 'current'] } } },
      },
    },
    { $sort: { _id: 1 } },
    { $project: { run: 1 } },
  ];

  test('$bucketAuto past its limit: 292 without allowDiskUse, the same result with it', async () => {
    const expected = await coll.aggregate(bucketAuto).toArray();
    assert.equal(expected.length, 7);
    assert.equal(
      expected.reduce((n, b) => n + Number(b['n']), 0),
      N,
    );
    await withLimit(parameters[0] as string, 10_000, async () => {
      assert.equal(
        await codeOf(coll.aggregate(bucketAuto, { allowDiskUse: false }).toArray()),
        292,
      );
      assert.deepEqual(
        await coll.aggregate(bucketAuto, { allowDiskUse: true }).toArray(),
        expected,
      );
    });
  });

  test('$setWindowFields past its limit: 5414201 without allowDiskUse, the same result with it', async () => {
    const expected = await coll.aggregate(windowed).toArray();
    // Running sums per partition, computed here.
    const sums = new Map<number, number>();
    for (let i = 0; i < N; i++) {
      const s = (sums.get(i % 10) ?? 0) + i;
      sums.set(i % 10, s);
      assert.equal(Number(expected[i]?.['run']), s);
    }
    await withLimit(parameters[1] as string, 10_000, async () => {
      assert.equal(
        await codeOf(coll.aggregate(windowed, { allowDiskUse: false }).toArray()),
        5414201,
      );
      assert.deepEqual(await coll.aggregate(windowed, { allowDiskUse: true }).toArray(), expected);
    });
  });

  test('$graphLookup past its limit fails with 40099, with or without allowDiskUse', async () => {
    const pipeline = [
      { $match: { _id: 0 } },
      {
        $graphLookup: {
          from: 'c',
          startWith: '$next',
          connectFromField: 'next',
          connectToField: 'a',
          as: 'chain',
        },
      },
      { $project: { n: { $size: '$chain' } } },
    ];
    assert.deepEqual(await coll.aggregate(pipeline).toArray(), [{ _id: 0, n: N - 1 }]);
    await withLimit(parameters[2] as string, 20_000, async () => {
      assert.equal(await codeOf(coll.aggregate(pipeline).toArray()), 40099);
      assert.equal(await codeOf(coll.aggregate(pipeline, { allowDiskUse: true }).toArray()), 40099);
      // A search within the limit still answers.
      const short = [
        { ...pipeline[0] },
        { $graphLookup: { ...(pipeline[1]?.['$graphLookup'] as Document), maxDepth: 5 } },
        pipeline[2],
      ];
      assert.deepEqual(await coll.aggregate(short as Document[]).toArray(), [{ _id: 0, n: 6 }]);
    });
    assert.equal(await coll.countDocuments({}), N);
  });
});

describe('$reduce building a deep document', () => {
  let t: TestServer;
  let db: Db;

  before(async () => {
    t = await startTestServer();
    db = t.client.db('deep');
  });
  after(async () => {
    await t.stop();
  });

  const nest = (levels: number): Document[] => [
    { $documents: [{}] },
    {
      $project: {
        d: { $reduce: { input: { $range: [0, levels] }, initialValue: {}, in: { a: '$$value' } } },
      },
    },
  ];

  test('100,000 levels are refused while building, with mongod Overflow (15)', async () => {
    const err = await db
      .aggregate(nest(100_000))
      .toArray()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof MongoServerError, String(err));
    assert.equal(err.code, 15);
    assert.match(err.message, /exceeds the limit of 200 levels of nesting/);
    // Even when a later stage would drop the value, it is never built.
    const dropped = await db
      .aggregate([...nest(100_000), { $project: { ok: { $literal: 1 } } }])
      .toArray()
      .then(
        () => 0,
        (e: unknown) => (e instanceof MongoServerError ? e.code : -1),
      );
    assert.equal(dropped, 15);
    const ping = await db.admin().command({ ping: 1 });
    assert.equal(ping['ok'], 1);
  });

  test('a value as deep as a reply may hold is built and returned', async () => {
    const [doc] = await db.aggregate(nest(150)).toArray();
    let depth = 0;
    for (let d: unknown = doc?.['d']; d !== undefined; d = (d as Document)['a']) depth++;
    assert.equal(depth, 151);
  });

  test('$reduce concatenating arrays is not limited by length', async () => {
    const [doc] = await db
      .aggregate([
        { $documents: [{}] },
        {
          $project: {
            n: {
              $size: {
                $reduce: {
                  input: { $range: [0, 2000] },
                  initialValue: [],
                  in: { $concatArrays: ['$$value', [{ v: '$$this' }]] },
                },
              },
            },
          },
        },
      ])
      .toArray();
    assert.equal(doc?.['n'], 2000);
  });
});
