// Geospatial indexes and queries through the driver, from mongod's documentation examples
// (reference/operator/query/{geoWithin,geoIntersects,near,nearSphere,box,center,centerSphere,
// polygon}, reference/operator/aggregation/geoNear) and jstests/core/geo_*.js: results, distances,
// explain, error codes, index upkeep. Property tests check that $geoWithin / $geoIntersects give
// the same documents with and without a geo index, and that $geoNear returns exactly the points
// within reach, nearest first, at the distances a haversine formula gives.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode, freshCollection } from '../helpers/driver.js';

const EARTH_RADIUS_M = 6378100;

function haversine(a: readonly number[], b: readonly number[]): number {
  const rad = Math.PI / 180;
  const [lng1, lat1] = [(a[0] as number) * rad, (a[1] as number) * rad];
  const [lng2, lat2] = [(b[0] as number) * rad, (b[1] as number) * rad];
  const h =
    Math.sin((lat2 - lat1) / 2) ** 2 +
    Math.cos(lat1) * Math.cos(lat2) * Math.sin((lng2 - lng1) / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

const places: Document[] = [
  {
    _id: 1,
    name: 'Central Park',
    location: { type: 'Point', coordinates: [-73.97, 40.77] },
    category: 'Parks',
  },
  {
    _id: 2,
    name: 'Sara D. Roosevelt Park',
    location: { type: 'Point', coordinates: [-73.9928, 40.7193] },
    category: 'Parks',
  },
  {
    _id: 3,
    name: 'Polo Grounds',
    location: { type: 'Point', coordinates: [-73.9375, 40.8303] },
    category: 'Stadiums',
  },
];

const ids = (docs: Document[]): unknown[] => docs.map((d) => d['_id']);
const sortedIds = (docs: Document[]): unknown[] => ids(docs).sort((a, b) => Number(a) - Number(b));

describe('geospatial indexes and queries', () => {
  let t: TestServer;
  let db: Db;

  before(async () => {
    t = await startTestServer();
    db = t.client.db('geo');
  });
  after(async () => {
    await t.stop();
  });

  test('2dsphere: listIndexes, $near with distances, $geoNear with its options', async () => {
    const c = await freshCollection(db, 'places', places);
    await c.createIndex({ location: '2dsphere' });
    const spec = (await c.listIndexes().toArray()).find((i) => i['name'] === 'location_2dsphere');
    assert.deepEqual(spec, {
      v: 2,
      key: { location: '2dsphere' },
      name: 'location_2dsphere',
      '2dsphereIndexVersion': 3,
    });
    const from = [-73.9667, 40.78];
    const near = (extra: Document = {}): Promise<Document[]> =>
      c
        .find({
          location: { $near: { $geometry: { type: 'Point', coordinates: from }, ...extra } },
        })
        .toArray();
    assert.deepEqual(ids(await near()), [1, 3, 2]);
    assert.deepEqual(ids(await near({ $minDistance: 1000, $maxDistance: 5000 })), [1]);
    assert.deepEqual(ids(await near({ $maxDistance: 500 })), []);
    // The legacy form with a GeoJSON point, and $nearSphere.
    assert.deepEqual(
      ids(
        await c
          .find({
            location: { $nearSphere: { type: 'Point', coordinates: from }, $maxDistance: 7000 },
          })
          .toArray(),
      ),
      [1, 3],
    );
    const out = await c
      .aggregate([
        {
          $geoNear: {
            near: { type: 'Point', coordinates: [-73.99279, 40.719296] },
            distanceField: 'dist.calculated',
            maxDistance: 2,
            query: { category: 'Parks' },
            includeLocs: 'dist.location',
            spherical: true,
          },
        },
      ])
      .toArray();
    assert.deepEqual(ids(out), [2]);
    const dist = out[0]?.['dist'] as Document;
    assert.deepEqual(dist['location'], { type: 'Point', coordinates: [-73.9928, 40.7193] });
    const expected = haversine([-73.99279, 40.719296], [-73.9928, 40.7193]) * EARTH_RADIUS_M;
    assert.ok(Math.abs((dist['calculated'] as number) - expected) < 1e-6 * Math.max(1, expected));
    const km = await c
      .aggregate([
        {
          $geoNear: {
            near: { type: 'Point', coordinates: [-73.98142, 40.71782] },
            key: 'location',
            distanceField: 'dist.calculated',
            distanceMultiplier: 0.001,
            minDistance: 2000,
          },
        },
        { $project: { d: '$dist.calculated', m: { $meta: 'geoNearDistance' } } },
      ])
      .toArray();
    assert.deepEqual(ids(km), [1, 3]);
    for (const d of km) assert.ok(Math.abs((d['d'] as number) * 1000 - (d['m'] as number)) < 1e-6);
  });

  test('$geoWithin with $geometry, $centerSphere; $geoIntersects; holes and lines', async () => {
    const c = await freshCollection(db, 'shapes', [
      { _id: 1, g: { type: 'Point', coordinates: [5, 5] } },
      { _id: 2, g: { type: 'Point', coordinates: [15, 5] } },
      {
        _id: 3,
        g: {
          type: 'LineString',
          coordinates: [
            [1, 1],
            [2, 2],
          ],
        },
      },
      {
        _id: 4,
        g: {
          type: 'LineString',
          coordinates: [
            [-5, 5],
            [5, 5],
          ],
        },
      },
      {
        _id: 5,
        g: {
          type: 'Polygon',
          coordinates: [
            [
              [1, 1],
              [3, 1],
              [3, 3],
              [1, 1],
            ],
          ],
        },
      },
      { _id: 6, g: [4.9, 5.1] },
      {
        _id: 7,
        g: {
          type: 'MultiPoint',
          coordinates: [
            [5, 5],
            [30, 30],
          ],
        },
      },
      {
        _id: 8,
        g: {
          type: 'GeometryCollection',
          geometries: [
            { type: 'Point', coordinates: [2, 8] },
            {
              type: 'LineString',
              coordinates: [
                [2, 9],
                [3, 9],
              ],
            },
          ],
        },
      },
      { _id: 9, other: 1 },
    ]);
    const square = {
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 10],
          [0, 10],
          [0, 0],
        ],
      ],
    };
    const withHole = {
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 10],
          [0, 10],
          [0, 0],
        ],
        [
          [4, 4],
          [6, 4],
          [6, 6],
          [4, 6],
          [4, 4],
        ],
      ],
    };
    const run = async (filter: Document): Promise<unknown[]> =>
      sortedIds(await c.find(filter).toArray());
    const cases: Array<[Document, unknown[]]> = [
      [{ g: { $geoWithin: { $geometry: square } } }, [1, 3, 5, 6, 8]],
      [{ g: { $within: { $geometry: square } } }, [1, 3, 5, 6, 8]],
      [{ g: { $geoWithin: { $geometry: withHole } } }, [3, 5, 8]],
      [{ g: { $geoIntersects: { $geometry: square } } }, [1, 3, 4, 5, 6, 7, 8]],
      [{ g: { $geoIntersects: { $geometry: { type: 'Point', coordinates: [5, 5] } } } }, [1, 4, 7]],
      [{ g: { $geoWithin: { $centerSphere: [[5, 5], 0.01] } } }, [1, 6]],
      [
        {
          g: {
            $geoWithin: {
              $geometry: {
                type: 'MultiPolygon',
                coordinates: [
                  square.coordinates,
                  [
                    [
                      [29, 29],
                      [31, 29],
                      [31, 31],
                      [29, 31],
                      [29, 29],
                    ],
                  ],
                ],
              },
            },
          },
        },
        // The multi-point's two points are each in one of the polygons.
        [1, 3, 5, 6, 7, 8],
      ],
    ];
    const without = [];
    for (const [f] of cases) without.push(await run(f));
    await c.createIndex({ g: '2dsphere' });
    for (const [i, [f, expected]] of cases.entries()) {
      assert.deepEqual(await run(f), expected, JSON.stringify(f));
      assert.deepEqual(without[i], expected, `without index: ${JSON.stringify(f)}`);
    }
    const plan = (await c.find(cases[0]?.[0] as Document).explain()) as Document;
    const winning = plan['queryPlanner']['winningPlan'];
    assert.equal(winning['stage'], 'FETCH');
    assert.equal(winning['inputStage']['stage'], 'IXSCAN');
    assert.deepEqual(winning['inputStage']['keyPattern'], { g: '2dsphere' });
    assert.ok(winning['inputStage']['indexBounds']['g'].length > 0);
    const scan = (await c
      .find(cases[0]?.[0] as Document)
      .hint({ $natural: 1 })
      .explain()) as Document;
    assert.equal(scan['queryPlanner']['winningPlan']['stage'], 'COLLSCAN');
  });

  test('2d: legacy pairs, $box, $polygon, $center, $centerSphere, $near and $nearSphere', async () => {
    const c = await freshCollection(db, 'legacy', [
      { _id: 1, loc: [0, 0] },
      { _id: 2, loc: [3, 4] },
      { _id: 3, loc: { lng: 10, lat: 10 } },
      {
        _id: 4,
        loc: [
          [50, 50],
          [1, 1],
        ],
      },
      { _id: 5, loc: [-20, 5] },
      { _id: 6, name: 'no location' },
    ]);
    await c.createIndex({ loc: '2d' });
    const run = async (filter: Document): Promise<unknown[]> =>
      sortedIds(await c.find(filter).toArray());
    assert.deepEqual(
      await run({
        loc: {
          $geoWithin: {
            $box: [
              [0, 0],
              [5, 5],
            ],
          },
        },
      }),
      [1, 2, 4],
    );
    assert.deepEqual(
      await run({
        loc: {
          $geoWithin: {
            $polygon: [
              [0, 0],
              [3, 6],
              [6, 0],
            ],
          },
        },
      }),
      [1, 2, 4],
    );
    assert.deepEqual(await run({ loc: { $geoWithin: { $center: [[0, 0], 5] } } }), [1, 2, 4]);
    assert.deepEqual(
      await run({ loc: { $geoWithin: { $centerSphere: [[0, 0], (6 * Math.PI) / 180] } } }),
      [1, 2, 4],
    );
    const near = await c.find({ loc: { $near: [0, 0], $maxDistance: 6 } }).toArray();
    assert.deepEqual(ids(near), [1, 4, 2]);
    const sphere = await c
      .find({ loc: { $nearSphere: [0, 0] } })
      .limit(3)
      .toArray();
    assert.deepEqual(ids(sphere), [1, 4, 2]);
    const agg = await c
      .aggregate([{ $geoNear: { near: [0, 0], distanceField: 'd' } }, { $limit: 3 }])
      .toArray();
    assert.deepEqual(
      agg.map((d) => [d['_id'], d['d']]),
      [
        [1, 0],
        [4, Math.SQRT2],
        [2, 5],
      ],
    );
    const plan = (await c.find({ loc: { $near: [0, 0] } }).explain()) as Document;
    assert.equal(plan['queryPlanner']['winningPlan']['stage'], 'GEO_NEAR_2D');
    await expectServerCode(c.insertOne({ loc: [200, 0] }), 13027);
    await expectServerCode(c.insertOne({ loc: 'here' }), 16804);
    await expectServerCode(
      db.command({
        createIndexes: 'legacy_bits',
        indexes: [{ key: { p: '2d' }, name: 'p', bits: 33 }],
      }),
      16803,
    );
    await expectServerCode(
      db.command({
        createIndexes: 'legacy_bits',
        indexes: [{ key: { a: 1, p: '2d' }, name: 'p' }],
      }),
      16801,
    );
  });

  test('bad geometries and operators get mongod codes; nothing is stored', async () => {
    const c = await freshCollection(db, 'invalid', []);
    await c.createIndex({ loc: '2dsphere' });
    const bad: Document[] = [
      { loc: { type: 'Point', coordinates: [200, 0] } },
      { loc: { type: 'Point', coordinates: 'x' } },
      {
        loc: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [1, 1],
              [1, 0],
            ],
          ],
        },
      },
      {
        loc: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [10, 10],
              [10, 0],
              [0, 10],
              [0, 0],
            ],
          ],
        },
      },
      { loc: { type: 'LineString', coordinates: [[0, 0]] } },
      { loc: { type: 'Circle', coordinates: [0, 0] } },
      { loc: 'home' },
      { loc: [{ type: 'Point', coordinates: [1, 1] }] },
    ];
    for (const d of bad) {
      const e = await expectServerCode(c.insertOne(d), 16755);
      assert.match(e.message, /^Can't extract geo keys: /);
    }
    // Missing, null and [] are not indexed (2dsphere indexes are sparse).
    await c.insertMany([{ _id: 'a' }, { _id: 'b', loc: null }, { _id: 'c', loc: [] }]);
    assert.equal(await c.countDocuments(), 3);
    await expectServerCode(c.updateOne({ _id: 'a' }, { $set: { loc: [500, 500] } }), 16755);
    assert.deepEqual(await c.findOne({ _id: 'a' }), { _id: 'a' });

    const q = (filter: Document): Promise<Document[]> => c.find(filter).toArray();
    await expectServerCode(
      q({ loc: { $geoWithin: { $geometry: { type: 'Point', coordinates: [0, 0] } } } }),
      2,
    );
    await expectServerCode(
      q({
        loc: {
          $geoIntersects: {
            $box: [
              [0, 0],
              [1, 1],
            ],
          },
        },
      }),
      2,
    );
    await expectServerCode(q({ loc: { $geoWithin: { $foo: [] } } }), 2);
    await expectServerCode(q({ loc: { $geoWithin: {} } }), 2);
    await expectServerCode(q({ loc: { $geoWithin: { $centerSphere: [[0, 0], -1] } } }), 2);
    await expectServerCode(
      q({
        loc: { $near: { $geometry: { type: 'Point', coordinates: [0, 0] }, $maxDistance: -1 } },
      }),
      16900,
    );
    await expectServerCode(
      q({
        loc: { $near: { $geometry: { type: 'Point', coordinates: [0, 0] }, $minDistance: 'x' } },
      }),
      16897,
    );
    await expectServerCode(q({ loc: { $near: [0, 0], $maxDistance: -2 } }), 16896);
    await expectServerCode(q({ loc: { $near: [0, 0], $foo: 1 } }), 34413);
    await expectServerCode(q({ loc: { $near: { $geometry: [0, 0] } } }), 16681);
    await expectServerCode(q({ loc: { $nearSphere: [500, 0] } }), 17444);
    await expectServerCode(q({ $or: [{ loc: { $near: [0, 0] } }, { a: 1 }] }), 2);
    await expectServerCode(
      q({ $and: [{ loc: { $near: [0, 0] } }, { loc: { $near: [1, 1] } }] }),
      2,
    );
    // Legacy $near needs a 2d index: this collection has only a 2dsphere one.
    await expectServerCode(q({ loc: { $near: [0, 0] } }), 291);
    const plain = await freshCollection(db, 'no_geo_index', [{ loc: [1, 1] }]);
    await expectServerCode(
      plain
        .find({ loc: { $near: { $geometry: { type: 'Point', coordinates: [0, 0] } } } })
        .toArray(),
      291,
    );
    await expectServerCode(
      plain.aggregate([{ $geoNear: { near: [0, 0], distanceField: 'd' } }]).toArray(),
      27,
    );
    await expectServerCode(plain.aggregate([{ $geoNear: { near: [0, 0] } }]).toArray(), 16606);
    await expectServerCode(
      plain.aggregate([{ $geoNear: { distanceField: 'd' } }]).toArray(),
      5860400,
    );
    await expectServerCode(
      plain.aggregate([{ $geoNear: { near: [0, 0], distanceField: 'd', limit: 5 } }]).toArray(),
      50858,
    );
    await expectServerCode(
      plain
        .aggregate([{ $match: {} }, { $geoNear: { near: [0, 0], distanceField: 'd' } }])
        .toArray(),
      40602,
    );
    // $geoWithin works without an index.
    assert.deepEqual(
      ids(
        await plain
          .find(
            {
              loc: {
                $geoWithin: {
                  $box: [
                    [0, 0],
                    [2, 2],
                  ],
                },
              },
            },
            { projection: { _id: 0 } },
          )
          .toArray(),
      ),
      [undefined],
    );
  });

  test('index upkeep through updates, replacements, deletes, findAndModify and bulk writes', async () => {
    const c = await freshCollection(db, 'upkeep_geo', [
      { _id: 1, p: { type: 'Point', coordinates: [0, 0] } },
      { _id: 2, p: { type: 'Point', coordinates: [1, 1] } },
    ]);
    await c.createIndex({ p: '2dsphere', kind: 1 });
    const box = {
      $geoWithin: {
        $geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [-0.5, -0.5],
              [0.5, -0.5],
              [0.5, 0.5],
              [-0.5, 0.5],
              [-0.5, -0.5],
            ],
          ],
        },
      },
    };
    const inBox = async (): Promise<unknown[]> => sortedIds(await c.find({ p: box }).toArray());
    assert.deepEqual(await inBox(), [1]);
    await c.updateOne({ _id: 2 }, { $set: { 'p.coordinates': [0.1, 0.1] } });
    assert.deepEqual(await inBox(), [1, 2]);
    await c.replaceOne({ _id: 1 }, { p: { type: 'Point', coordinates: [9, 9] } });
    assert.deepEqual(await inBox(), [2]);
    await c.findOneAndUpdate({ _id: 1 }, { $set: { p: [0.2, 0.2] } });
    assert.deepEqual(await inBox(), [1, 2]);
    await c.bulkWrite([
      {
        insertOne: {
          document: { _id: 3, p: { type: 'Point', coordinates: [0.3, -0.3] }, kind: 'a' },
        },
      },
      { deleteOne: { filter: { _id: 2 } } },
    ]);
    assert.deepEqual(await inBox(), [1, 3]);
    const nearest = await c
      .find({ p: { $near: { $geometry: { type: 'Point', coordinates: [0.3, -0.3] } } }, kind: 'a' })
      .toArray();
    assert.deepEqual(ids(nearest), [3]);
  });

  test('property: $geoWithin and $geoIntersects agree with and without the index', async () => {
    const coord = fc.tuple(
      fc.double({ min: -20, max: 20, noNaN: true }),
      fc.double({ min: -20, max: 20, noNaN: true }),
    );
    const geometry = fc.oneof(
      coord.map((c) => ({ type: 'Point', coordinates: c })),
      coord.map((c) => [c[0], c[1]]),
      fc.tuple(coord, coord).map(([a, b]) => ({
        type: 'LineString',
        coordinates: [a, [a[0] + 0.5 + Math.abs(b[0]) / 20, a[1] + 0.3]],
      })),
      coord.map(([x, y]) => ({
        type: 'Polygon',
        coordinates: [
          [
            [x, y],
            [x + 1, y],
            [x + 1, y + 1],
            [x, y + 1],
            [x, y],
          ],
        ],
      })),
    );
    const region = fc.oneof(
      fc.tuple(coord, fc.double({ min: 0.5, max: 15, noNaN: true })).map(([[x, y], s]) => ({
        op: '$geoWithin',
        shape: {
          $geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [x, y],
                [x + s, y],
                [x + s, y + s],
                [x, y + s],
                [x, y],
              ],
            ],
          },
        },
      })),
      fc.tuple(coord, fc.double({ min: 0.5, max: 15, noNaN: true })).map(([[x, y], s]) => ({
        op: '$geoIntersects',
        shape: {
          $geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [x, y],
                [x + s, y],
                [x + s, y + s],
                [x, y + s],
                [x, y],
              ],
            ],
          },
        },
      })),
      fc.tuple(coord, fc.double({ min: 0.001, max: 0.3, noNaN: true })).map(([c, r]) => ({
        op: '$geoWithin',
        shape: { $centerSphere: [c, r] },
      })),
    );
    const indexed = await freshCollection(db, 'prop_indexed', []);
    await indexed.createIndex({ g: '2dsphere' });
    const plain = await freshCollection(db, 'prop_plain', []);
    await fc.assert(
      fc.asyncProperty(
        fc.array(geometry, { minLength: 1, maxLength: 25 }),
        region,
        async (geoms, q) => {
          const docs = geoms.map((g, i) => ({ _id: i, g }));
          await indexed.deleteMany({});
          await plain.deleteMany({});
          await indexed.insertMany(docs);
          await plain.insertMany(docs);
          const filter = { g: { [q.op]: q.shape } };
          const a = sortedIds(await indexed.find(filter).toArray());
          const b = sortedIds(await plain.find(filter).toArray());
          const h = sortedIds(await indexed.find(filter).hint({ $natural: 1 }).toArray());
          assert.deepEqual(a, b, JSON.stringify(filter));
          assert.deepEqual(a, h, JSON.stringify(filter));
        },
      ),
      { numRuns: 40 },
    );
  });

  test('property: $geoNear finds every point within reach, nearest first, at haversine distances', async () => {
    const c = await freshCollection(db, 'prop_near', []);
    await c.createIndex({ p: '2dsphere' });
    const coord = fc.tuple(
      fc.double({ min: -179, max: 179, noNaN: true }),
      fc.double({ min: -85, max: 85, noNaN: true }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(coord, { minLength: 1, maxLength: 40 }),
        coord,
        fc.option(fc.double({ min: 1000, max: 5e6, noNaN: true }), { nil: undefined }),
        async (points, from, max) => {
          await c.deleteMany({});
          await c.insertMany(
            points.map((p, i) => ({ _id: i, p: { type: 'Point', coordinates: p } })),
          );
          const out = await c
            .aggregate([
              {
                $geoNear: {
                  near: { type: 'Point', coordinates: from },
                  distanceField: 'd',
                  ...(max === undefined ? {} : { maxDistance: max }),
                },
              },
            ])
            .toArray();
          const expected = points
            .map((p, i) => ({ i, d: haversine(from, p) * EARTH_RADIUS_M }))
            .filter((e) => max === undefined || e.d <= max);
          const slack = (d: number): number => 1e-6 * Math.max(1, d);
          assert.equal(
            out.length,
            expected.filter((e) => max === undefined || e.d <= max - slack(max)).length +
              expected.filter(
                (e) =>
                  max !== undefined && e.d > max - slack(max) && out.some((o) => o['_id'] === e.i),
              ).length,
          );
          let last = -1;
          for (const d of out) {
            const dist = d['d'] as number;
            assert.ok(dist >= last - 1e-9, 'nearest first');
            last = dist;
            const e = expected.find((x) => x.i === d['_id']);
            assert.ok(e !== undefined, `unexpected ${String(d['_id'])}`);
            assert.ok(
              Math.abs(e.d - dist) <= slack(e.d) + 1e-3,
              `distance of ${e.i}: ${dist} vs ${e.d}`,
            );
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
