// Memory limits of blocking stages and accumulators, with mongod's codes: $group and $sort
// without allowDiskUse (292), $push/$addToSet whatever allowDiskUse says (146), and the depth
// of nested sub-pipelines (232). The documents share one large string, so the approximate
// accounting passes the limits without allocating 100 MB.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { CommandError } from '../../../src/errors.js';
import { limits } from '../../../src/limits.js';
import {
  buildPipeline,
  newEnv,
  newScope,
  parsePipeline,
  runToArray,
} from '../../../src/pipeline/index.js';
import type { PipelineContext, Runtime } from '../../../src/pipeline/index.js';

const big = 'x'.repeat(1024 * 1024);
const docs: BsonDocument[] = Array.from(
  { length: Math.ceil(limits.groupMemoryBytesMax / big.length) + 2 },
  (_, i) => ({ _id: new Int32(i), s: big }),
);

function run(
  pipeline: BsonValue[],
  allowDiskUse: boolean,
  input: BsonDocument[] = docs,
): BsonDocument[] {
  const env = newEnv();
  const ctx: PipelineContext = {
    env,
    scope: newScope(undefined),
    db: 'test',
    collection: undefined,
    allowDiskUse,
    subPipelineDepth: 0,
    inFacet: false,
    inLookup: false,
  };
  const rt: Runtime = {
    catalog: undefined,
    db: 'test',
    frame: env.frame,
    allowDiskUse,
    interrupt: () => undefined,
  };
  const built = buildPipeline(parsePipeline(pipeline, ctx), { documents: input }, rt);
  return runToArray(built.plan, undefined as never, rt);
}

function code(e: unknown): number {
  assert.ok(e instanceof CommandError, String(e));
  return e.code;
}

test('$group beyond its memory limit needs allowDiskUse (292)', () => {
  assert.throws(
    () => run([{ $group: { _id: '$_id', s: { $first: '$s' } } }], false),
    (e) => code(e) === 292,
  );
  assert.equal(run([{ $group: { _id: '$_id', s: { $first: '$s' } } }], true).length, docs.length);
});

test('$sort beyond its memory limit needs allowDiskUse (292)', () => {
  assert.throws(
    () => run([{ $sort: { _id: new Int32(-1) } }], false),
    (e) => code(e) === 292,
  );
  assert.equal(
    run([{ $sort: { _id: new Int32(-1) } }], true)[0]?.['_id']?.valueOf(),
    docs.length - 1,
  );
});

test('$sort + $limit keeps only the top k and stays under the limit', () => {
  const out = run([{ $sort: { _id: new Int32(-1) } }, { $limit: new Int32(2) }], false);
  assert.deepEqual(
    out.map((d) => (d['_id'] as Int32).value),
    [docs.length - 1, docs.length - 2],
  );
});

test('$push past its limit fails with ExceededMemoryLimit (146) even with allowDiskUse', () => {
  assert.throws(
    () => run([{ $group: { _id: null, all: { $push: '$s' } } }], true),
    (e) => code(e) === 146,
  );
});

test('sub-pipelines nest at most limits.subPipelineDepthMax deep (232)', () => {
  let stage: BsonValue = { $match: {} };
  for (let i = 0; i <= limits.subPipelineDepthMax; i++) stage = { $facet: { f: [stage] } };
  // $facet inside $facet is refused first (40600); $lookup nests freely.
  let lookup: BsonValue = { $match: {} };
  for (let i = 0; i <= limits.subPipelineDepthMax; i++)
    lookup = { $lookup: { from: 'c', pipeline: [lookup], as: 'x' } };
  assert.throws(
    () => run([lookup], false, []),
    (e) => code(e) === 232,
  );
});

test('pipelines longer than limits.pipelineStagesMax are refused', () => {
  assert.throws(
    () =>
      run(
        Array.from({ length: limits.pipelineStagesMax + 1 }, () => ({ $match: {} })),
        false,
        [],
      ),
    (e) => code(e) === 7749501,
  );
});
