// The aggregate command through the official driver: cursors and batches, countDocuments,
// stage semantics on documents from the MongoDB manual's examples, error codes, $out/$merge.
// Expected results come from the manual's examples and the CRUD spec tests
// (../shared/specs/unified/crud/aggregate*.json, count*.json), not from this server.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Decimal128, Int32, Long } from 'bson';
import type { Collection, Db, Document } from 'mongodb';
import { MongoServerError } from 'mongodb';
import type { TestDoc } from '../helpers/driver.js';
import { clientKindOf, startEitherClient } from '../helpers/either-client.js';
import type { EitherClient } from '../helpers/either-client.js';

// aggregate-embedded.test.ts imports this file again with ?client=embedded.
const kind = clientKindOf(import.meta.url);
let ts: EitherClient;
let db: Db;

before(async () => {
  ts = await startEitherClient(kind);
  db = ts.client.db('aggregate-tests');
});

after(async () => {
  await ts.stop();
});

async function fresh(name: string, docs: TestDoc[]): Promise<Collection<TestDoc>> {
  const c = db.collection<TestDoc>(name);
  await c.deleteMany({});
  if (docs.length > 0) await c.insertMany(docs);
  return c;
}

/** The driver may carry its own copy of the bson package: check types by tag, not instanceof. */
function tagOf(v: unknown): string | undefined {
  return typeof v === 'object' && v !== null && '_bsontype' in v
    ? String((v as { _bsontype: unknown })._bsontype)
    : undefined;
}

async function expectCode(p: Promise<unknown>, code: number): Promise<MongoServerError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof MongoServerError, `not a server error: ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected error ${code}`);
}

describe('aggregate: cursors (spec crud/aggregate.json)', () => {
  const docs = [1, 2, 3, 4, 5, 6].map((i) => ({ _id: i, x: i * 11 }));

  test('multiple batches through getMore', async () => {
    const c = await fresh('coll0', docs);
    const got = await c.aggregate([{ $match: { _id: { $gt: 1 } } }], { batchSize: 2 }).toArray();
    assert.deepEqual(got, docs.slice(1));
  });

  test('multiple stages: $sort then $match', async () => {
    const c = await fresh('coll0', docs);
    const got = await c
      .aggregate([{ $sort: { x: 1 } }, { $match: { _id: { $gt: 1 } } }], { batchSize: 2 })
      .toArray();
    assert.deepEqual(got, docs.slice(1));
  });

  test('reply shape: firstBatch, id, ns', async () => {
    await fresh('coll0', docs);
    const r = await db.command(
      { aggregate: 'coll0', pipeline: [], cursor: { batchSize: 2 } },
      { promoteLongs: false },
    );
    assert.equal(r['cursor'].ns, 'aggregate-tests.coll0');
    assert.equal(r['cursor'].firstBatch.length, 2);
    assert.equal(tagOf(r['cursor'].id), 'Long');
    assert.notEqual(String(r['cursor'].id), '0');
    const more = await db.command(
      { getMore: r['cursor'].id, collection: 'coll0' },
      { promoteLongs: false },
    );
    assert.equal(more['cursor'].nextBatch.length, 4);
    assert.equal(String(more['cursor'].id), '0');
  });

  test('batchSize 0 opens a cursor with an empty first batch', async () => {
    await fresh('coll0', docs);
    const r = await db.command(
      { aggregate: 'coll0', pipeline: [], cursor: { batchSize: 0 } },
      { promoteLongs: false },
    );
    assert.deepEqual(r['cursor'].firstBatch, []);
    assert.notEqual(String(r['cursor'].id), '0');
    await db.command({ killCursors: 'coll0', cursors: [r['cursor'].id] });
  });

  test('a missing collection gives an empty result', async () => {
    assert.deepEqual(
      await db
        .collection('nope')
        .aggregate([{ $match: {} }])
        .toArray(),
      [],
    );
  });

  test('comment is accepted', async () => {
    const c = await fresh('coll0', docs);
    assert.equal((await c.aggregate([], { comment: { content: 'test' } }).toArray()).length, 6);
  });

  test('let variables (spec crud/aggregate-let.json)', async () => {
    const c = await fresh('coll0', [{ _id: 1 }]);
    const got = await c
      .aggregate(
        [
          { $match: { $expr: { $eq: ['$_id', '$$id'] } } },
          { $project: { _id: 0, x: '$$x', y: '$$y', rand: '$$rand' } },
        ],
        {
          let: { id: 1, x: 'foo', y: { $literal: '$bar' }, rand: { $rand: {} } },
        },
      )
      .toArray();
    assert.equal(got.length, 1);
    assert.equal(got[0]?.['x'], 'foo');
    assert.equal(got[0]?.['y'], '$bar');
    assert.equal(typeof got[0]?.['rand'], 'number');
  });

  test('{aggregate: 1} with $documents', async () => {
    const got = await db
      .aggregate([{ $documents: [{ x: 1 }, { x: 2 }] }, { $match: { x: 2 } }])
      .toArray();
    assert.deepEqual(got, [{ x: 2 }]);
  });
});

describe('countDocuments and estimatedDocumentCount (spec crud/count.json)', () => {
  const docs = [
    { _id: 1, x: 11 },
    { _id: 2, x: 22 },
    { _id: 3, x: 33 },
  ];

  test('counts', async () => {
    const c = await fresh('coll', docs);
    assert.equal(await c.estimatedDocumentCount(), 3);
    assert.equal(await c.countDocuments({}), 3);
    assert.equal(await c.countDocuments({ _id: { $gt: 1 } }), 2);
    assert.equal(await c.countDocuments({}, { skip: 1, limit: 3 }), 2);
  });

  test('countDocuments on an empty or missing collection is 0', async () => {
    await fresh('coll', []);
    assert.equal(await db.collection('coll').countDocuments(), 0);
    assert.equal(await db.collection('never-created').countDocuments({ a: 1 }), 0);
  });
});

describe('aggregate: stages (examples from the MongoDB manual)', () => {
  const sales = [
    {
      _id: 1,
      item: 'abc',
      price: new Decimal128('10'),
      quantity: new Int32(2),
      date: new Date('2014-03-01T08:00:00Z'),
    },
    {
      _id: 2,
      item: 'jkl',
      price: new Decimal128('20'),
      quantity: new Int32(1),
      date: new Date('2014-03-01T09:00:00Z'),
    },
    {
      _id: 3,
      item: 'xyz',
      price: new Decimal128('5'),
      quantity: new Int32(10),
      date: new Date('2014-03-15T09:00:00Z'),
    },
    {
      _id: 4,
      item: 'xyz',
      price: new Decimal128('5'),
      quantity: new Int32(20),
      date: new Date('2014-04-04T11:21:39.736Z'),
    },
    {
      _id: 5,
      item: 'abc',
      price: new Decimal128('10'),
      quantity: new Int32(10),
      date: new Date('2014-04-04T21:23:13.331Z'),
    },
    {
      _id: 6,
      item: 'def',
      price: new Decimal128('7.5'),
      quantity: new Int32(5),
      date: new Date('2015-06-04T05:08:13Z'),
    },
    {
      _id: 7,
      item: 'def',
      price: new Decimal128('7.5'),
      quantity: new Int32(10),
      date: new Date('2015-09-10T08:43:00Z'),
    },
    {
      _id: 8,
      item: 'abc',
      price: new Decimal128('10'),
      quantity: new Int32(5),
      date: new Date('2016-02-06T20:20:13Z'),
    },
  ];

  test('$group by item with $sum of $multiply and $avg ($group manual example)', async () => {
    const c = await fresh('sales', sales);
    const got = await c
      .aggregate([
        {
          $group: {
            _id: '$item',
            totalSaleAmount: { $sum: { $multiply: ['$price', '$quantity'] } },
          },
        },
        { $match: { totalSaleAmount: { $gte: 100 } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    assert.deepEqual(
      got.map((d) => [d['_id'], String(d['totalSaleAmount'])]),
      [
        ['abc', '170'],
        ['def', '112.5'],
        ['xyz', '150'],
      ],
    );
  });

  test('$group _id null: totals over the collection ($group manual example)', async () => {
    const c = await fresh('sales', sales);
    const [r] = await c
      .aggregate([
        {
          $group: {
            _id: null,
            totalSaleAmount: { $sum: { $multiply: ['$price', '$quantity'] } },
            averageQuantity: { $avg: '$quantity' },
            count: { $sum: 1 },
          },
        },
      ])
      .toArray();
    assert.ok(r !== undefined);
    assert.equal(tagOf(r['totalSaleAmount']), 'Decimal128');
    assert.equal(String(r['totalSaleAmount']), '452.5');
    assert.equal(r['averageQuantity'], 7.875);
    assert.equal(r['count'], 8);
  });

  test('$group accumulators keep numeric types', async () => {
    const c = await fresh('nums', [
      { g: 1, v: new Int32(1) },
      { g: 1, v: new Long(2) },
      { g: 1, v: 'x' },
      { g: 1 },
    ]);
    const [r] = await c
      .aggregate(
        [
          {
            $group: {
              _id: '$g',
              s: { $sum: '$v' },
              mn: { $min: '$v' },
              mx: { $max: '$v' },
              f: { $first: '$v' },
              l: { $last: '$v' },
              p: { $push: '$v' },
              a: { $addToSet: '$v' },
              n: { $count: {} },
            },
          },
        ],
        {
          promoteLongs: false,
        },
      )
      .toArray();
    assert.ok(r !== undefined);
    assert.equal(tagOf(r['s']), 'Long');
    assert.equal(String(r['s']), '3');
    assert.equal(r['mn'], 1);
    assert.equal(r['mx'], 'x');
    assert.equal(r['f'], 1);
    assert.equal(r['l'], null);
    assert.equal(r['p'].length, 3);
    assert.equal(r['a'].length, 3);
    assert.equal(r['n'], 4);
  });

  test('$group $top / $bottomN', async () => {
    const c = await fresh('scores', [
      { game: 'G1', player: 'A', score: 31 },
      { game: 'G1', player: 'B', score: 33 },
      { game: 'G1', player: 'C', score: 99 },
      { game: 'G1', player: 'D', score: 1 },
    ]);
    const [r] = await c
      .aggregate([
        {
          $group: {
            _id: '$game',
            top: { $top: { output: '$player', sortBy: { score: -1 } } },
            bottom2: { $bottomN: { n: 2, output: '$player', sortBy: { score: -1 } } },
          },
        },
      ])
      .toArray();
    assert.equal(r?.['top'], 'C');
    // sortBy score descending: the bottom two are the lowest scores, in sort order.
    assert.deepEqual(r?.['bottom2'], ['A', 'D']);
  });

  test('$project inclusion, exclusion and computed fields', async () => {
    const c = await fresh('books', [
      {
        _id: 1,
        title: 'abc123',
        isbn: '0001122223334',
        author: { last: 'zzz', first: 'aaa' },
        copies: 5,
      },
    ]);
    assert.deepEqual(await c.aggregate([{ $project: { title: 1, author: 1 } }]).toArray(), [
      { _id: 1, title: 'abc123', author: { last: 'zzz', first: 'aaa' } },
    ]);
    assert.deepEqual(
      await c.aggregate([{ $project: { _id: 0, 'author.first': 0, isbn: 0 } }]).toArray(),
      [{ title: 'abc123', author: { last: 'zzz' }, copies: 5 }],
    );
    assert.deepEqual(
      await c
        .aggregate([
          {
            $project: {
              title: 1,
              isbn: { prefix: { $substr: ['$isbn', 0, 3] } },
              lastName: '$author.last',
            },
          },
        ])
        .toArray(),
      [{ _id: 1, title: 'abc123', isbn: { prefix: '000' }, lastName: 'zzz' }],
    );
  });

  test('$project errors carry mongod codes', async () => {
    const c = await fresh('books', [{ _id: 1 }]);
    await expectCode(c.aggregate([{ $project: {} }]).toArray(), 51272);
    await expectCode(c.aggregate([{ $project: { a: 1, b: 0 } }]).toArray(), 31254);
    await expectCode(c.aggregate([{ $project: { a: 0, b: 1 } }]).toArray(), 31253);
    // A literal or field path in an exclusion is 31310; an operator there is 31252 (projection_parser.cpp).
    await expectCode(c.aggregate([{ $project: { a: 0, b: '$x' } }]).toArray(), 31310);
    await expectCode(c.aggregate([{ $project: { a: 0, b: { $add: [1, 2] } } }]).toArray(), 31252);
    await expectCode(c.aggregate([{ $project: { a: 1, 'a.b': 1 } }]).toArray(), 31249);
    await expectCode(c.aggregate([{ $project: 1 }]).toArray(), 15969);
  });

  test('$addFields / $set on embedded documents and arrays', async () => {
    const c = await fresh('specs', [{ _id: 1, specs: { doors: 4 }, arr: [1, { x: 1 }] }]);
    assert.deepEqual(
      await c.aggregate([{ $addFields: { 'specs.fuel_type': 'unleaded', 'arr.y': 2 } }]).toArray(),
      [{ _id: 1, specs: { doors: 4, fuel_type: 'unleaded' }, arr: [{ y: 2 }, { x: 1, y: 2 }] }],
    );
    assert.deepEqual(
      await c.aggregate([{ $set: { specs: { wheels: 4 } } }, { $unset: ['arr', '_id'] }]).toArray(),
      [{ specs: { doors: 4, wheels: 4 } }],
    );
  });

  test('$unwind with includeArrayIndex and preserveNullAndEmptyArrays ($unwind manual example)', async () => {
    const c = await fresh('inventory2', [
      { _id: 1, item: 'ABC', price: new Decimal128('80'), sizes: ['S', 'M', 'L'] },
      { _id: 2, item: 'EFG', price: new Decimal128('120'), sizes: [] },
      { _id: 3, item: 'IJK', price: new Decimal128('160'), sizes: 'M' },
      { _id: 4, item: 'LMN', price: new Decimal128('10') },
      { _id: 5, item: 'XYZ', price: new Decimal128('5.75'), sizes: null },
    ]);
    const got = await c
      .aggregate([
        {
          $unwind: {
            path: '$sizes',
            includeArrayIndex: 'arrayIndex',
            preserveNullAndEmptyArrays: true,
          },
        },
        { $project: { _id: 1, sizes: 1, arrayIndex: 1 } },
      ])
      .toArray();
    assert.deepEqual(got, [
      { _id: 1, sizes: 'S', arrayIndex: 0 },
      { _id: 1, sizes: 'M', arrayIndex: 1 },
      { _id: 1, sizes: 'L', arrayIndex: 2 },
      { _id: 2, arrayIndex: null },
      { _id: 3, sizes: 'M', arrayIndex: null },
      { _id: 4, arrayIndex: null },
      { _id: 5, sizes: null, arrayIndex: null },
    ]);
    assert.equal((await c.aggregate([{ $unwind: '$sizes' }]).toArray()).length, 4);
    await expectCode(c.aggregate([{ $unwind: 'sizes' }]).toArray(), 28818);
  });

  test('$lookup equality and pipeline forms ($lookup manual examples)', async () => {
    const orders = await fresh('orders', [
      { _id: 1, item: 'almonds', price: 12, quantity: 2 },
      { _id: 2, item: 'pecans', price: 20, quantity: 1 },
      { _id: 3 },
    ]);
    await fresh('inventory', [
      { _id: 1, sku: 'almonds', description: 'product 1', instock: 120 },
      { _id: 2, sku: 'bread', description: 'product 2', instock: 80 },
      { _id: 3, sku: 'cashews', description: 'product 3', instock: 60 },
      { _id: 4, sku: 'pecans', description: 'product 4', instock: 70 },
      { _id: 5, sku: null, description: 'Incomplete' },
      { _id: 6 },
    ]);
    const got = await orders
      .aggregate([
        {
          $lookup: {
            from: 'inventory',
            localField: 'item',
            foreignField: 'sku',
            as: 'inventory_docs',
          },
        },
      ])
      .toArray();
    assert.deepEqual(
      got.map((d) => d['inventory_docs'].map((x: Document) => x['_id'])),
      [[1], [4], [5, 6]],
    );
    const withPipeline = await orders
      .aggregate([
        {
          $lookup: {
            from: 'inventory',
            let: { it: '$item', q: '$quantity' },
            pipeline: [
              {
                $match: {
                  $expr: { $and: [{ $eq: ['$sku', '$$it'] }, { $gte: ['$instock', '$$q'] }] },
                },
              },
              { $project: { _id: 0, sku: 1 } },
            ],
            as: 'stock',
          },
        },
      ])
      .toArray();
    assert.deepEqual(
      withPipeline.slice(0, 2).map((d) => d['stock']),
      [[{ sku: 'almonds' }], [{ sku: 'pecans' }]],
    );
    await expectCode(orders.aggregate([{ $lookup: { from: 'inventory', as: 'x' } }]).toArray(), 9);
  });

  test('$facet, $bucket, $bucketAuto, $sortByCount', async () => {
    const c = await fresh('artwork', [
      {
        _id: 1,
        title: 'The Pillars of Society',
        artist: 'Grosz',
        year: 1926,
        price: new Decimal128('199.99'),
        tags: ['painting', 'satire', 'Expressionism', 'caricature'],
      },
      {
        _id: 2,
        title: 'Melancholy III',
        artist: 'Munch',
        year: 1902,
        price: new Decimal128('280.00'),
        tags: ['woodcut', 'Expressionism'],
      },
      {
        _id: 3,
        title: 'Dancer',
        artist: 'Miro',
        year: 1925,
        price: new Decimal128('76.04'),
        tags: ['oil', 'Surrealism', 'painting'],
      },
      {
        _id: 4,
        title: 'The Great Wave off Kanagawa',
        artist: 'Hokusai',
        price: new Decimal128('167.30'),
        tags: ['woodblock', 'ukiyo-e'],
      },
      {
        _id: 5,
        title: 'The Persistence of Memory',
        artist: 'Dali',
        year: 1931,
        price: new Decimal128('483.00'),
        tags: ['Surrealism', 'painting', 'oil'],
      },
      {
        _id: 6,
        title: 'Composition VII',
        artist: 'Kandinsky',
        year: 1913,
        price: new Decimal128('385.00'),
        tags: ['oil', 'painting', 'abstract'],
      },
      {
        _id: 7,
        title: 'The Scream',
        artist: 'Munch',
        year: 1893,
        tags: ['Expressionism', 'painting', 'oil'],
      },
      {
        _id: 8,
        title: 'Blue Flower',
        artist: "O'Keefe",
        year: 1918,
        price: new Decimal128('118.42'),
        tags: ['abstract', 'painting'],
      },
    ]);
    const [facet] = await c
      .aggregate([
        {
          $facet: {
            categorizedByTags: [{ $unwind: '$tags' }, { $sortByCount: '$tags' }, { $limit: 1 }],
            categorizedByPrice: [
              { $match: { price: { $exists: 1 } } },
              {
                $bucket: {
                  groupBy: '$price',
                  boundaries: [0, 150, 200, 300, 400],
                  default: 'Other',
                  output: { count: { $sum: 1 }, titles: { $push: '$title' } },
                },
              },
            ],
            'categorizedByYears(Auto)': [{ $bucketAuto: { groupBy: '$year', buckets: 4 } }],
          },
        },
      ])
      .toArray();
    assert.ok(facet !== undefined);
    assert.deepEqual(facet['categorizedByTags'], [{ _id: 'painting', count: 6 }]);
    assert.deepEqual(
      facet['categorizedByPrice'].map((b: Document) => [b['_id'], b['count']]),
      [
        [0, 2],
        [150, 2],
        [200, 1],
        [300, 1],
        ['Other', 1],
      ],
    );
    assert.deepEqual(facet['categorizedByYears(Auto)'], [
      { _id: { min: null, max: 1902 }, count: 2 },
      { _id: { min: 1902, max: 1918 }, count: 2 },
      { _id: { min: 1918, max: 1926 }, count: 2 },
      { _id: { min: 1926, max: 1931 }, count: 2 },
    ]);
  });

  test('$graphLookup ($graphLookup manual example)', async () => {
    const c = await fresh('employees', [
      { _id: 1, name: 'Dev' },
      { _id: 2, name: 'Eliot', reportsTo: 'Dev' },
      { _id: 3, name: 'Ron', reportsTo: 'Eliot' },
      { _id: 4, name: 'Andrew', reportsTo: 'Eliot' },
      { _id: 5, name: 'Asya', reportsTo: 'Ron' },
      { _id: 6, name: 'Dan', reportsTo: 'Andrew' },
    ]);
    const [r] = await c
      .aggregate([
        { $match: { name: 'Dan' } },
        {
          $graphLookup: {
            from: 'employees',
            startWith: '$reportsTo',
            connectFromField: 'reportsTo',
            connectToField: 'name',
            as: 'reportingHierarchy',
            depthField: 'depth',
          },
        },
      ])
      .toArray();
    const chain = (r?.['reportingHierarchy'] as Document[])
      .map((d) => [d['name'], d['depth']])
      .sort((a, b) => (a[1] as number) - (b[1] as number));
    assert.deepEqual(chain, [
      ['Andrew', 0],
      ['Eliot', 1],
      ['Dev', 2],
    ]);
  });

  test('$unionWith, $replaceRoot, $replaceWith, $count, $sample', async () => {
    const a = await fresh('u1', [{ _id: 1, n: { v: 1 } }]);
    await fresh('u2', [{ _id: 2, n: { v: 2 } }]);
    assert.deepEqual(
      await a
        .aggregate([
          { $unionWith: { coll: 'u2', pipeline: [{ $project: { n: 1 } }] } },
          { $replaceRoot: { newRoot: '$n' } },
        ])
        .toArray(),
      [{ v: 1 }, { v: 2 }],
    );
    assert.deepEqual(await a.aggregate([{ $unionWith: 'u2' }, { $count: 'total' }]).toArray(), [
      { total: 2 },
    ]);
    assert.deepEqual(await a.aggregate([{ $replaceWith: { x: '$_id' } }]).toArray(), [{ x: 1 }]);
    await expectCode(a.aggregate([{ $replaceRoot: { newRoot: '$missing' } }]).toArray(), 40228);
    assert.equal(
      (await a.aggregate([{ $unionWith: 'u2' }, { $sample: { size: 1 } }]).toArray()).length,
      1,
    );
  });
});

describe('aggregate: writing stages', () => {
  test('$out replaces the target collection', async () => {
    const c = await fresh('src', [
      { _id: 1, x: 1 },
      { _id: 2, x: 2 },
    ]);
    await fresh('dst', [{ _id: 9 }]);
    assert.deepEqual(await c.aggregate([{ $match: { x: 2 } }, { $out: 'dst' }]).toArray(), []);
    assert.deepEqual(await db.collection('dst').find().toArray(), [{ _id: 2, x: 2 }]);
  });

  test('$out with duplicate _id leaves the target unchanged', async () => {
    const c = await fresh('src', [
      { _id: 1, k: 1 },
      { _id: 2, k: 1 },
    ]);
    await fresh('dst', [{ _id: 9 }]);
    await expectCode(c.aggregate([{ $project: { _id: '$k' } }, { $out: 'dst' }]).toArray(), 11000);
    assert.deepEqual(await db.collection('dst').find().toArray(), [{ _id: 9 }]);
  });

  test('$merge modes', async () => {
    const c = await fresh('src', [
      { _id: 1, v: 10 },
      { _id: 2, v: 20 },
    ]);
    await fresh('tgt', [{ _id: 1, v: 1, keep: true }]);
    await c.aggregate([{ $merge: { into: 'tgt' } }]).toArray();
    assert.deepEqual(await db.collection('tgt').find().sort({ _id: 1 }).toArray(), [
      { _id: 1, v: 10, keep: true },
      { _id: 2, v: 20 },
    ]);
    await c
      .aggregate([
        {
          $merge: {
            into: 'tgt',
            whenMatched: [{ $set: { v: { $add: ['$v', '$$new.v'] } } }],
            whenNotMatched: 'discard',
          },
        },
      ])
      .toArray();
    assert.deepEqual(await db.collection('tgt').find().sort({ _id: 1 }).toArray(), [
      { _id: 1, v: 20, keep: true },
      { _id: 2, v: 40 },
    ]);
    await expectCode(
      c.aggregate([{ $merge: { into: 'tgt', whenMatched: 'fail' } }]).toArray(),
      11000,
    );
    await expectCode(c.aggregate([{ $merge: { into: 'tgt', on: 'v' } }]).toArray(), 51183);
  });

  test('$out and $merge must be last', async () => {
    const c = await fresh('src', [{ _id: 1 }]);
    await expectCode(c.aggregate([{ $out: 'x' }, { $match: {} }]).toArray(), 40601);
    await expectCode(c.aggregate([{ $facet: { a: [{ $merge: 'x' }] } }]).toArray(), 40600);
  });
});

describe('aggregate: command errors', () => {
  test('parse errors with mongod codes', async () => {
    const c = await fresh('e', [{ _id: 1 }]);
    await expectCode(c.aggregate([{ $foo: 1 }]).toArray(), 40324);
    await expectCode(c.aggregate([{ $match: {}, $project: { a: 1 } }]).toArray(), 40323);
    await expectCode(c.aggregate([{ $limit: 0 }]).toArray(), 15958);
    await expectCode(c.aggregate([{ $limit: -1 }]).toArray(), 5107201);
    await expectCode(c.aggregate([{ $skip: 'a' }]).toArray(), 5107200);
    await expectCode(c.aggregate([{ $group: { x: { $sum: 1 } } }]).toArray(), 15955);
    await expectCode(c.aggregate([{ $group: { _id: null, x: { $foo: 1 } } }]).toArray(), 15952);
    await expectCode(c.aggregate([{ $sort: { a: 2 } }]).toArray(), 15975);
    await expectCode(c.aggregate([{ $match: 1 }]).toArray(), 15959);
    // The projection parser, not the expression parser, names an unknown operator in $project.
    await expectCode(c.aggregate([{ $project: { a: { $foo: 1 } } }]).toArray(), 31325);
    await expectCode(c.aggregate([{ $changeStream: { bogus: 1 } }]).toArray(), 40415);
    await expectCode(
      c.aggregate(Array.from({ length: 1001 }, () => ({ $match: {} }))).toArray(),
      7749501,
    );
  });

  test('command shape errors', async () => {
    await fresh('e', [{ _id: 1 }]);
    await expectCode(db.command({ aggregate: 'e', pipeline: [] }), 9);
    await expectCode(db.command({ aggregate: 'e', cursor: {} }), 40414);
    await expectCode(db.command({ aggregate: 'e', pipeline: [1], cursor: {} }), 14);
    await expectCode(
      db.command({ aggregate: 'e', pipeline: [], cursor: { batchSize: -1 } }),
      51024,
    );
    await expectCode(db.command({ aggregate: 'e', pipeline: [], cursor: {}, foo: 1 }), 40415);
    await expectCode(db.command({ aggregate: 1, pipeline: [{ $match: {} }], cursor: {} }), 73);
    await expectCode(
      db.command({ aggregate: 'e', pipeline: [], cursor: {}, collation: { locale: 'fr', foo: 1 } }),
      40415,
    );
  });

  test('runtime errors', async () => {
    const c = await fresh('e', [{ _id: 1, a: 'x' }]);
    await expectCode(c.aggregate([{ $project: { v: { $add: ['$a', 1] } } }]).toArray(), 14);
    await expectCode(c.aggregate([{ $project: { v: { $divide: [1, 0] } } }]).toArray(), 2);
  });

  test('explain returns the stages', async () => {
    await fresh('e', [{ _id: 1 }]);
    const r = await db.command({
      aggregate: 'e',
      pipeline: [{ $match: { _id: 1 } }, { $group: { _id: null, n: { $sum: 1 } } }],
      explain: true,
    });
    assert.equal(r['explainVersion'], '1');
    assert.equal(r['stages'][0].$cursor.queryPlanner.winningPlan.stage, 'IDHACK');
    assert.ok('$group' in r['stages'][1]);
  });

  test('numeric types survive the round trip', async () => {
    const c = await fresh('types', [{ _id: 1 }]);
    const [r] = await c
      .aggregate(
        [
          {
            $project: {
              _id: 0,
              i: { $add: [1, 2] },
              l: { $add: [new Long(1), 2] },
              d: { $add: [1, 0.5] },
              m: { $add: [new Decimal128('1.1'), 1] },
              o: { $add: [2147483647, 1] },
            },
          },
        ],
        { promoteValues: false },
      )
      .toArray();
    assert.ok(r !== undefined);
    assert.deepEqual(
      ['i', 'l', 'd', 'm', 'o'].map((k) => [tagOf(r[k]), String(r[k])]),
      [
        ['Int32', '3'],
        ['Long', '3'],
        ['Double', '1.5'],
        ['Decimal128', '2.1'],
        ['Long', '2147483648'],
      ],
    );
  });
});

describe('$expr in find filters', () => {
  test('compares two fields of the document ($expr manual example)', async () => {
    const c = await fresh('monthlyBudget', [
      { _id: 1, category: 'food', budget: 400, spent: 450 },
      { _id: 2, category: 'drinks', budget: 100, spent: 150 },
      { _id: 3, category: 'clothes', budget: 100, spent: 50 },
      { _id: 4, category: 'misc', budget: 500, spent: 300 },
      { _id: 5, category: 'travel', budget: 200, spent: 650 },
    ]);
    const got = await c.find({ $expr: { $gt: ['$spent', '$budget'] } }).toArray();
    assert.deepEqual(
      got.map((d) => d['_id']),
      [1, 2, 5],
    );
    assert.equal(await c.countDocuments({ $expr: { $lt: ['$spent', '$budget'] } }), 2);
  });

  test('sees the command let variables', async () => {
    const c = await fresh('letfind', [
      { _id: 1, v: 'a' },
      { _id: 2, v: 'b' },
    ]);
    const got = await c
      .find({ $expr: { $eq: ['$v', '$$target'] } }, { let: { target: 'b' } })
      .toArray();
    assert.deepEqual(got, [{ _id: 2, v: 'b' }]);
  });

  test('an invalid expression is a parse error', async () => {
    const c = await fresh('letfind', [{ _id: 1 }]);
    await expectCode(c.find({ $expr: { $foo: 1 } }).toArray(), 168);
  });
});

describe('aggregate: window and gap-filling stages (manual examples)', () => {
  const cakeSales = [
    {
      _id: 0,
      type: 'chocolate',
      orderDate: new Date('2020-05-18T14:10:30Z'),
      state: 'CA',
      price: 13,
      quantity: 120,
    },
    {
      _id: 1,
      type: 'chocolate',
      orderDate: new Date('2021-03-20T11:30:05Z'),
      state: 'WA',
      price: 14,
      quantity: 140,
    },
    {
      _id: 2,
      type: 'vanilla',
      orderDate: new Date('2021-01-11T06:31:15Z'),
      state: 'CA',
      price: 12,
      quantity: 145,
    },
    {
      _id: 3,
      type: 'vanilla',
      orderDate: new Date('2020-02-08T13:13:23Z'),
      state: 'WA',
      price: 13,
      quantity: 104,
    },
    {
      _id: 4,
      type: 'strawberry',
      orderDate: new Date('2019-05-18T16:09:01Z'),
      state: 'CA',
      price: 41,
      quantity: 162,
    },
    {
      _id: 5,
      type: 'strawberry',
      orderDate: new Date('2019-01-08T06:12:03Z'),
      state: 'WA',
      price: 43,
      quantity: 134,
    },
  ];

  test('$setWindowFields cumulative sum per state ($setWindowFields manual example)', async () => {
    const c = await fresh('cakeSales', cakeSales);
    const got = await c
      .aggregate([
        {
          $setWindowFields: {
            partitionBy: '$state',
            sortBy: { orderDate: 1 },
            output: {
              cumulativeQuantityForState: {
                $sum: '$quantity',
                window: { documents: ['unbounded', 'current'] },
              },
            },
          },
        },
        { $project: { _id: 1, cumulativeQuantityForState: 1 } },
      ])
      .toArray();
    assert.deepEqual(got, [
      { _id: 4, cumulativeQuantityForState: 162 },
      { _id: 0, cumulativeQuantityForState: 282 },
      { _id: 2, cumulativeQuantityForState: 427 },
      { _id: 5, cumulativeQuantityForState: 134 },
      { _id: 3, cumulativeQuantityForState: 238 },
      { _id: 1, cumulativeQuantityForState: 378 },
    ]);
  });

  test('$setWindowFields $rank and moving average', async () => {
    const c = await fresh('cakeSales', cakeSales);
    const ranks = await c
      .aggregate([
        {
          $setWindowFields: {
            partitionBy: '$state',
            sortBy: { quantity: -1 },
            output: { r: { $rank: {} } },
          },
        },
        { $project: { _id: 1, r: 1 } },
      ])
      .toArray();
    assert.deepEqual(ranks, [
      { _id: 4, r: 1 },
      { _id: 2, r: 2 },
      { _id: 0, r: 3 },
      { _id: 1, r: 1 },
      { _id: 5, r: 2 },
      { _id: 3, r: 3 },
    ]);
    const avg = await c
      .aggregate([
        {
          $setWindowFields: {
            sortBy: { _id: 1 },
            output: { m: { $avg: '$quantity', window: { documents: [-1, 0] } } },
          },
        },
        { $project: { m: 1 } },
        { $limit: 2 },
      ])
      .toArray();
    assert.deepEqual(avg, [
      { _id: 0, m: 120 },
      { _id: 1, m: 130 },
    ]);
    await expectCode(
      c.aggregate([{ $setWindowFields: { output: { r: { $rank: {} } } } }]).toArray(),
      5371602,
    );
  });

  test('$densify full bounds per partition ($densify manual example)', async () => {
    const c = await fresh('coffee', [
      { altitude: 600, variety: 'Arabica Typica', score: 68.3 },
      { altitude: 750, variety: 'Arabica Typica', score: 69.5 },
      { altitude: 950, variety: 'Arabica Typica', score: 70.5 },
      { altitude: 1250, variety: 'Gesha', score: 88.15 },
      { altitude: 1700, variety: 'Gesha', score: 85.5 },
      { altitude: 1600, variety: 'SL28', score: 86.0 },
      { altitude: 1750, variety: 'SL28', score: 88.5 },
      { altitude: 1950, variety: 'SL28', score: 89.0 },
    ]);
    const got = await c
      .aggregate([
        {
          $densify: {
            field: 'altitude',
            partitionByFields: ['variety'],
            range: { bounds: 'full', step: 200 },
          },
        },
        { $project: { _id: 0, altitude: 1, variety: 1 } },
      ])
      .toArray();
    const typica = got.filter((d) => d['variety'] === 'Arabica Typica').map((d) => d['altitude']);
    assert.deepEqual(typica, [600, 750, 800, 950, 1000, 1200, 1400, 1600, 1800]);
    const gesha = got.filter((d) => d['variety'] === 'Gesha').map((d) => d['altitude']);
    assert.deepEqual(gesha, [600, 800, 1000, 1200, 1250, 1400, 1600, 1700, 1800]);
  });

  test('$fill with value, locf and linear', async () => {
    const c = await fresh('fillme', [
      { _id: 1, t: 1, a: 10, b: 'x', c: null },
      { _id: 2, t: 2, c: null },
      { _id: 3, t: 3, a: 30, b: 'y' },
    ]);
    const got = await c
      .aggregate([
        {
          $fill: {
            sortBy: { t: 1 },
            output: { a: { method: 'linear' }, b: { method: 'locf' }, c: { value: 0 } },
          },
        },
      ])
      .toArray();
    assert.deepEqual(got, [
      { _id: 1, t: 1, a: 10, b: 'x', c: 0 },
      { _id: 2, t: 2, c: 0, a: 20, b: 'x' },
      { _id: 3, t: 3, a: 30, b: 'y', c: 0 },
    ]);
  });
});
