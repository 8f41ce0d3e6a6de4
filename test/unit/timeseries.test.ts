// Time-series buckets (src/catalog/timeseries.ts) and the bucket filter that
// $_internalUnpackBucket derives from a $match (src/pipeline/stages/unpack-bucket.ts):
// buckets unpack to what was put in; filtering buckets first never loses a match.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Int32, ObjectId } from 'bson';
import type { BsonDocument } from '../../src/bson/types.js';
import {
  bucketAccepts,
  buildBucket,
  roundDown,
  splitMeta,
  storedMeasurements,
  unpackBucket,
  withMeasurement,
} from '../../src/catalog/timeseries.js';
import type { TimeseriesOptions } from '../../src/catalog/timeseries.js';
import { bucketPredicates } from '../../src/pipeline/stages/unpack-bucket.js';
import { compileQueryFilter } from '../../src/commands/query-language.js';

const o: TimeseriesOptions = {
  timeField: 't',
  metaField: 'm',
  granularity: 'seconds',
  bucketMaxSpanSeconds: 3600,
  bucketRoundingSeconds: 60,
};
const t0 = Date.UTC(2024, 0, 1);

/** Buckets as inserts make them: same meta, within the span, else a new bucket. */
function bucketize(docs: readonly BsonDocument[]): BsonDocument[] {
  const buckets: BsonDocument[] = [];
  for (const d of docs) {
    const { meta, rest } = splitMeta(o, d);
    const ms = (d['t'] as Date).getTime();
    const i = buckets.findIndex((b) => bucketAccepts(o, b, 0, meta, ms, 0));
    if (i >= 0) buckets[i] = withMeasurement(o, buckets[i] as BsonDocument, rest);
    else buckets.push(buildBucket(o, new ObjectId(), meta, [rest]));
  }
  return buckets;
}

const measurement = fc.record({
  _id: fc.integer({ min: 0, max: 1000 }).map((n) => new Int32(n)),
  t: fc.integer({ min: 0, max: 4 * 3600 }).map((s) => new Date(t0 + s * 1000)),
  m: fc.constantFrom('a', 'b', 'c'),
  v: fc.integer({ min: 0, max: 10 }).map((n) => new Int32(n)),
});

const timeOps = ['$gt', '$gte', '$lt', '$lte', '$eq'] as const;
const filterArb: fc.Arbitrary<BsonDocument> = fc.oneof(
  fc.constantFrom('a', 'b', 'z').map((m): BsonDocument => ({ m })),
  fc
    .tuple(fc.constantFrom(...timeOps), fc.integer({ min: -60, max: 4 * 3600 + 60 }))
    .map(([op, s]): BsonDocument => ({ t: { [op]: new Date(t0 + s * 1000) } })),
  fc
    .tuple(
      fc.constantFrom('a', 'b'),
      fc.integer({ min: 0, max: 4 * 3600 }),
      fc.integer({ min: 0, max: 10 }),
    )
    .map(([m, s, v]): BsonDocument => ({
      $and: [
        { m: { $ne: m } },
        { t: { $lte: new Date(t0 + s * 1000) } },
        { v: { $gte: new Int32(v) } },
      ],
    })),
);

describe('time-series buckets', () => {
  test('a bucket: rounded min time, columns by index, unpacked time and meta first', () => {
    const b = buildBucket(o, new ObjectId(), 'x', [
      { t: new Date(t0 + 90_000), v: new Int32(2) },
      { t: new Date(t0 + 30_000), w: 'only here' },
    ]);
    const control = b['control'] as BsonDocument;
    assert.equal(((control['min'] as BsonDocument)['t'] as Date).getTime(), t0);
    assert.equal(((control['max'] as BsonDocument)['t'] as Date).getTime(), t0 + 90_000);
    assert.deepEqual(b['data'], {
      t: { '0': new Date(t0 + 90_000), '1': new Date(t0 + 30_000) },
      v: { '0': new Int32(2) },
      w: { '1': 'only here' },
    });
    assert.deepEqual(unpackBucket(o, b), [
      { t: new Date(t0 + 90_000), m: 'x', v: new Int32(2) },
      { t: new Date(t0 + 30_000), m: 'x', w: 'only here' },
    ]);
    assert.deepEqual(Object.keys(unpackBucket(o, b)[0] as BsonDocument), ['t', 'm', 'v']);
    assert.equal(roundDown(-1, 60), -60_000);
  });

  test('a bucket refuses another meta value, a time outside its span, or a full bucket', () => {
    const b = buildBucket(o, new ObjectId(), 'x', [{ t: new Date(t0 + 120_000) }]);
    assert.equal(bucketAccepts(o, b, 0, 'x', t0 + 120_000 + 3_599_999 - 120_000, 0), true);
    assert.equal(bucketAccepts(o, b, 0, 'y', t0 + 120_000, 0), false);
    assert.equal(bucketAccepts(o, b, 0, undefined, t0 + 120_000, 0), false);
    assert.equal(bucketAccepts(o, b, 0, 'x', t0 + 119_999, 0), false);
    assert.equal(bucketAccepts(o, b, 0, 'x', t0 + 120_000 + 3_600_000, 0), false);
    assert.equal(bucketAccepts(o, b, 125 * 1024, 'x', t0 + 120_000, 1), false);
  });

  test('property: buckets hold what was inserted; the bucket filter keeps every match', () => {
    fc.assert(
      fc.property(fc.array(measurement, { maxLength: 40 }), filterArb, (docs, filter) => {
        const buckets = bucketize(docs);
        const sortKey = (d: BsonDocument): string => JSON.stringify(d);
        const unpacked = buckets.flatMap((b) => unpackBucket(o, b));
        assert.deepEqual(
          unpacked.map(sortKey).sort(),
          docs.map((d) => sortKey({ t: d.t, m: d.m, _id: d._id, v: d.v })).sort(),
        );
        // Stored form round-trips through a rebuild.
        for (const b of buckets)
          assert.deepEqual(
            unpackBucket(
              o,
              buildBucket(o, b['_id'] as ObjectId, b['m'] ?? b['meta'], storedMeasurements(o, b)),
            ),
            unpackBucket(o, b),
          );
        const m = compileQueryFilter(filter);
        const matches = (d: BsonDocument): boolean => m === undefined || m.matches(d);
        const conjuncts = bucketPredicates(o, filter);
        const bm = compileQueryFilter(conjuncts.length === 0 ? {} : { $and: conjuncts });
        const kept = buckets.filter((b) => bm === undefined || bm.matches(b));
        const viaBuckets = kept.flatMap((b) => unpackBucket(o, b)).filter(matches);
        assert.deepEqual(
          viaBuckets.map(sortKey).sort(),
          unpacked.filter(matches).map(sortKey).sort(),
        );
      }),
      { numRuns: 200 },
    );
  });
});
