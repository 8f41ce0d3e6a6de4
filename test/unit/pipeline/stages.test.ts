// Stage parsing and behaviour on in-memory input (no server): mongod's error codes for
// malformed stages, and stage semantics from the MongoDB manual's examples.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Double, Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { CommandError } from '../../../src/errors.js';
import {
  buildPipeline,
  newEnv,
  newScope,
  parsePipeline,
  runToArray,
} from '../../../src/pipeline/index.js';
import type { PipelineContext, Runtime } from '../../../src/pipeline/index.js';

const i = (n: number): Int32 => new Int32(n);

function run(pipeline: BsonValue[], input: BsonDocument[] = []): BsonDocument[] {
  const env = newEnv();
  const ctx: PipelineContext = {
    env,
    scope: newScope(undefined),
    db: 'test',
    collection: 'c',
    allowDiskUse: false,
    subPipelineDepth: 0,
    inFacet: false,
    inLookup: false,
  };
  const rt: Runtime = {
    catalog: undefined,
    db: 'test',
    frame: env.frame,
    allowDiskUse: false,
    interrupt: () => undefined,
  };
  return runToArray(
    buildPipeline(parsePipeline(pipeline, ctx), { documents: input }, rt).plan,
    undefined as never,
    rt,
  );
}

const errors: Array<[string, BsonValue[], number]> = [
  ['unknown stage', [{ $foo: {} }], 40324],
  ['two fields in a stage', [{ $match: {}, $skip: i(1) }], 40323],
  ['empty stage', [{}], 40323],
  ['$match not an object', [{ $match: i(1) }], 15959],
  ['$limit zero', [{ $limit: i(0) }], 15958],
  ['$limit string', [{ $limit: 'a' }], 5107201],
  ['$limit fractional', [{ $limit: new Double(1.5) }], 5107201],
  ['$skip negative', [{ $skip: i(-1) }], 5107200],
  ['$sort not an object', [{ $sort: i(1) }], 15973],
  ['$sort empty', [{ $sort: {} }], 15976],
  ['$sort bad direction', [{ $sort: { a: i(2) } }], 15975],
  ['$sort bad value', [{ $sort: { a: 'x' } }], 15974],
  ['$group not an object', [{ $group: i(1) }], 15947],
  ['$group without _id', [{ $group: { n: { $sum: i(1) } } }], 15955],
  ['$group field not an accumulator', [{ $group: { _id: null, n: i(1) } }], 40234],
  ['$group dotted field', [{ $group: { _id: null, 'a.b': { $sum: i(1) } } }], 40235],
  ['$group two accumulators', [{ $group: { _id: null, n: { $sum: i(1), $avg: i(1) } } }], 40238],
  ['$group array argument', [{ $group: { _id: null, n: { $sum: [i(1)] } } }], 40237],
  ['$group unknown accumulator', [{ $group: { _id: null, n: { $foo: i(1) } } }], 15952],
  ['$project not an object', [{ $project: 'a' }], 15969],
  ['$project empty', [{ $project: {} }], 51272],
  ['$addFields not an object', [{ $addFields: i(1) }], 40272],
  ['$unset empty', [{ $unset: [] }], 31119],
  ['$unset non-string', [{ $unset: [i(1)] }], 31120],
  ['$unset number', [{ $unset: i(1) }], 31002],
  ['$count empty', [{ $count: '' }], 40157],
  ['$count dollar', [{ $count: '$a' }], 40158],
  ['$count dotted', [{ $count: 'a.b' }], 40160],
  ['$count number', [{ $count: i(1) }], 40156],
  ['$unwind no $', [{ $unwind: 'a' }], 28818],
  ['$unwind bad option', [{ $unwind: { path: '$a', x: i(1) } }], 28811],
  ['$unwind no path', [{ $unwind: {} }], 28812],
  ['$unwind number', [{ $unwind: i(1) }], 15981],
  ['$unwind index with $', [{ $unwind: { path: '$a', includeArrayIndex: '$i' } }], 28822],
  ['$replaceRoot missing newRoot', [{ $replaceRoot: {} }], 40414],
  ['$sample no size', [{ $sample: {} }], 28749],
  ['$sample negative', [{ $sample: { size: i(-1) } }], 28747],
  ['$sample bad option', [{ $sample: { size: i(1), x: i(1) } }], 28748],
  ['$sortByCount non-$ string', [{ $sortByCount: 'a' }], 40148],
  ['$bucket without boundaries', [{ $bucket: { groupBy: '$a' } }], 40198],
  ['$bucket one boundary', [{ $bucket: { groupBy: '$a', boundaries: [i(1)] } }], 40192],
  [
    '$bucket unsorted boundaries',
    [{ $bucket: { groupBy: '$a', boundaries: [i(2), i(1)] } }],
    40194,
  ],
  [
    '$bucket mixed boundary types',
    [{ $bucket: { groupBy: '$a', boundaries: [i(1), 'a'] } }],
    40193,
  ],
  [
    '$bucket default inside range',
    [{ $bucket: { groupBy: '$a', boundaries: [i(1), i(5)], default: i(2) } }],
    40199,
  ],
  ['$bucket bad groupBy', [{ $bucket: { groupBy: 'a', boundaries: [i(1), i(2)] } }], 40202],
  ['$bucketAuto without buckets', [{ $bucketAuto: { groupBy: '$a' } }], 40246],
  ['$bucketAuto zero buckets', [{ $bucketAuto: { groupBy: '$a', buckets: i(0) } }], 40243],
  [
    '$bucketAuto bad granularity',
    [{ $bucketAuto: { groupBy: '$a', buckets: i(1), granularity: 'X' } }],
    40257,
  ],
  ['$facet empty', [{ $facet: {} }], 40169],
  ['$facet non-array', [{ $facet: { a: i(1) } }], 40170],
  ['$facet inside $facet', [{ $facet: { a: [{ $facet: { b: [] } }] } }], 40600],
  ['$lookup missing as', [{ $lookup: { from: 'x', localField: 'a', foreignField: 'b' } }], 9],
  ['$lookup unknown argument', [{ $lookup: { from: 'x', as: 'y', z: i(1) } }], 9],
  ['$lookup only localField', [{ $lookup: { from: 'x', as: 'y', localField: 'a' } }], 9],
  ['$graphLookup missing fields', [{ $graphLookup: { from: 'x', as: 'y' } }], 40105],
  [
    '$graphLookup negative maxDepth',
    [
      {
        $graphLookup: {
          from: 'x',
          as: 'y',
          startWith: '$a',
          connectFromField: 'a',
          connectToField: 'b',
          maxDepth: i(-1),
        },
      },
    ],
    40101,
  ],
  ['$graphLookup unknown argument', [{ $graphLookup: { from: 'x', z: i(1) } }], 40104],
  ['$out not last', [{ $out: 'x' }, { $match: {} }], 40601],
  ['$out bad argument', [{ $out: i(1) }], 16990],
  ['$merge bad whenMatched', [{ $merge: { into: 'x', whenMatched: 'nope' } }], 2],
  ['$merge let without pipeline', [{ $merge: { into: 'x', let: {} } }], 51199],
  ['$documents not first', [{ $match: {} }, { $documents: [] }], 40602],
  ['$changeStream unknown option', [{ $changeStream: { bogus: i(1) } }], 40415],
  ['$setWindowFields unknown function', [{ $setWindowFields: { output: { a: { $foo: {} } } } }], 9],
  [
    '$setWindowFields rank without sortBy',
    [{ $setWindowFields: { output: { a: { $rank: {} } } } }],
    5371602,
  ],
  ['$densify missing range', [{ $densify: { field: 'a' } }], 40414],
  ['$fill missing output', [{ $fill: {} }], 40414],
];

for (const [name, pipeline, code] of errors) {
  test(`stage error: ${name}`, () => {
    assert.throws(
      () => run(pipeline),
      (e: unknown) => {
        assert.ok(e instanceof CommandError, String(e));
        assert.equal(e.code, code, e.message);
        return true;
      },
    );
  });
}

test('$bucket with default and output ($bucket manual example)', () => {
  const docs = [1926, 1902, 1925, 1931, 1913, 1893, 1918].map((year, k) => ({
    _id: i(k),
    year: i(year),
  }));
  docs.push({ _id: i(99), year: 'unknown' as unknown as Int32 });
  const out = run(
    [
      {
        $bucket: {
          groupBy: '$year',
          boundaries: [i(1890), i(1910), i(1920), i(1940)],
          default: 'Unknown',
          output: { count: { $sum: i(1) } },
        },
      },
    ],
    docs,
  );
  assert.deepEqual(
    out.map((d) => [String(d['_id']), String(d['count'])]),
    [
      ['1890', '2'],
      ['1910', '2'],
      ['1920', '3'],
      ['Unknown', '1'],
    ],
  );
});

test('$sortByCount orders by count, descending', () => {
  const out = run([{ $sortByCount: '$t' }], [{ t: 'a' }, { t: 'b' }, { t: 'b' }]);
  assert.deepEqual(out, [
    { _id: 'b', count: i(2) },
    { _id: 'a', count: i(1) },
  ]);
});

test('$redact with $$DESCEND / $$PRUNE', () => {
  const out = run(
    [{ $redact: { $cond: [{ $gt: ['$level', i(4)] }, '$$PRUNE', '$$DESCEND'] } }],
    [{ level: i(1), sub: { level: i(5) }, arr: [{ level: i(2) }, { level: i(9) }] }],
  );
  assert.deepEqual(out, [{ level: i(1), arr: [{ level: i(2) }] }]);
});

test('$group keys 1, 1.0 and NumberLong(1) as one group, keeping the first key', () => {
  const out = run(
    [{ $group: { _id: '$k', n: { $sum: i(1) } } }],
    [{ k: new Double(1) }, { k: i(1) }, { k: 'x' }],
  );
  assert.equal(out.length, 2);
  assert.ok(out[0]?.['_id'] instanceof Double);
  assert.equal((out[0]?.['n'] as Int32).value, 2);
});

test('$project keeps input field order for inclusions, appends computed fields', () => {
  const out = run(
    [{ $project: { b: i(1), x: '$a', a: i(1) } }],
    [{ _id: i(1), a: i(1), b: i(2), c: i(3) }],
  );
  assert.deepEqual(Object.keys(out[0] ?? {}), ['_id', 'a', 'b', 'x']);
});

test('$skip then $limit, $limit then $skip', () => {
  const docs = [1, 2, 3, 4, 5].map((n) => ({ n: i(n) }));
  assert.deepEqual(
    run([{ $skip: i(1) }, { $limit: i(2) }], docs).map((d) => (d['n'] as Int32).value),
    [2, 3],
  );
  assert.deepEqual(
    run([{ $limit: i(3) }, { $skip: i(1) }], docs).map((d) => (d['n'] as Int32).value),
    [2, 3],
  );
});

// The manual's Comparison/Sort Order: "A comparison of an empty array ... considers the empty
// array as less than a null value or a missing field value"; mongod's $sort takes its keys from
// the same SortKeyGenerator as find (an empty array's key is undefined).
test('$sort: an empty array sorts below null and missing, and last when descending', () => {
  const docs = (): BsonDocument[] => [
    { _id: i(1), a: null },
    { _id: i(2), a: [] },
    { _id: i(3), a: i(0) },
    { _id: i(4) },
  ];
  assert.deepEqual(
    run([{ $sort: { a: i(1) } }], docs()).map((d) => (d['_id'] as Int32).value),
    [2, 1, 4, 3],
  );
  assert.deepEqual(
    run([{ $sort: { a: i(-1) } }], docs()).map((d) => (d['_id'] as Int32).value),
    [3, 1, 4, 2],
  );
});

test('$top and $bottom order an empty array below null', () => {
  const out = run(
    [
      {
        $group: {
          _id: null,
          top: { $top: { sortBy: { a: i(1) }, output: '$_id' } },
          bottom: { $bottom: { sortBy: { a: i(1) }, output: '$_id' } },
        },
      },
    ],
    [
      { _id: i(1), a: null },
      { _id: i(2), a: [] },
      { _id: i(3), a: i(0) },
    ],
  );
  assert.deepEqual(out, [{ _id: null, top: i(2), bottom: i(3) }]);
});
