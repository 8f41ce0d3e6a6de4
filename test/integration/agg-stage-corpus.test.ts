// The aggregation stage corpus (test/integration/agg-stage-corpus/) through a real server and
// the official driver: every stage, every accumulator (in $group and in $setWindowFields) and
// every window function, with their parse and run-time errors. Each case runs on a database of
// its own: its documents go into `input` (and its other collections beside it), the pipeline
// runs with promoteValues: false, and the output is compared as canonical Extended JSON, so
// BSON types and field order count; `unordered` cases compare as multisets (mongod leaves the
// order unspecified). Error cases compare mongod's code (and a message fragment when given).
// $out/$merge cases also compare the target collection afterwards.
//
// The expectations come from MongoDB's manual, mongod's jstests and mongod's source, named in
// each case's `source`; never from this server. A completeness test fails when a registered
// stage, accumulator or window function has no case.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EJSON } from 'bson';
import { MongoServerError } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { accumulators } from '../../src/pipeline/accumulators/index.js';
import { stageDefinitions, unsupportedStages } from '../../src/pipeline/stages/index.js';
import { windowFunctionNames } from '../../src/pipeline/window/functions.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { allCases } from './agg-stage-corpus/index.js';
import type { StageCase } from './agg-stage-corpus/types.js';

const key = (v: unknown): string => EJSON.stringify(v as Document, { relaxed: false });

let ts: TestServer;

before(async () => {
  ts = await startTestServer();
});

after(async () => {
  await ts?.stop();
});

async function load(db: Db, c: StageCase): Promise<void> {
  const colls: Array<[string, readonly Document[]]> = Object.entries(c.collections ?? {});
  if (c.docs !== undefined) colls.push(['input', c.docs]);
  await Promise.all(
    colls.map(async ([name, docs]) => {
      // Copies: the driver adds _id to the objects it inserts.
      if (docs.length > 0) await db.collection(name).insertMany(docs.map((d) => ({ ...d })));
      else await db.createCollection(name);
    }),
  );
  for (const ix of c.indexes ?? [])
    await db
      .collection(ix.collection)
      .createIndex(ix.key, ix.unique === true ? { unique: true } : {});
}

async function run(db: Db, c: StageCase): Promise<Document[]> {
  const options = { ...(c.options ?? {}), promoteValues: false };
  const pipeline = c.pipeline.map((s) => ({ ...s }));
  if (c.docs === undefined) return db.aggregate(pipeline, options).toArray();
  return db.collection('input').aggregate(pipeline, options).toArray();
}

function describeCase(c: StageCase): string {
  return `${c.name} (${c.source})`;
}

describe('aggregation stage corpus through the driver', () => {
  allCases.forEach((c, n) => {
    test(c.name, async () => {
      const db = ts.client.db(`agg_stage_${n}`);
      await load(db, c);
      let out: Document[];
      try {
        out = await run(db, c);
      } catch (e) {
        if (c.error === undefined || !(e instanceof MongoServerError)) throw e;
        // With promoteValues: false the reply's code arrives as an Int32.
        const code = Number(e.code);
        assert.equal(
          code,
          c.error,
          `${describeCase(c)}: code ${code} (${e.message}), expected ${c.error}`,
        );
        if (c.errorMessage !== undefined)
          assert.ok(
            e.message.includes(c.errorMessage),
            `${describeCase(c)}: message "${e.message}" lacks "${c.errorMessage}"`,
          );
        if (c.after !== undefined) await checkAfter(db, c);
        return;
      }
      assert.equal(
        c.error,
        undefined,
        `${describeCase(c)}: succeeded with ${key(out)}, expected error ${String(c.error)}`,
      );
      if (c.expected !== undefined) {
        const got = out.map(key);
        const want = c.expected.map(key);
        if (c.unordered === true) {
          got.sort();
          want.sort();
        }
        assert.deepEqual(got, want, describeCase(c));
      }
      c.check?.(out);
      if (c.after !== undefined) await checkAfter(db, c);
    });
  });
});

async function checkAfter(db: Db, c: StageCase): Promise<void> {
  const a = c.after;
  if (a === undefined) return;
  const got = await db
    .collection(a.collection)
    .find({}, { promoteValues: false })
    .sort({ _id: 1 })
    .toArray();
  assert.deepEqual(
    got.map(key),
    a.docs.map(key),
    `${describeCase(c)}: contents of ${a.collection}`,
  );
}

// ---- completeness ---------------------------------------------------------------------------

interface Coverage {
  readonly stages: Set<string>;
  readonly groupAccumulators: Set<string>;
  readonly windowFunctions: Set<string>;
}

function isDoc(v: unknown): v is Document {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.getPrototypeOf(v) === Object.prototype
  );
}

function opsOf(
  fields: unknown,
  into: Set<string>,
  skip: (k: string) => boolean = () => false,
): void {
  if (!isDoc(fields)) return;
  for (const [k, v] of Object.entries(fields)) {
    if (skip(k) || !isDoc(v)) continue;
    for (const op of Object.keys(v)) if (op.startsWith('$')) into.add(op);
  }
}

/** Walks a pipeline, recording stage names, $group/$bucket accumulators and window functions. */
function cover(pipeline: unknown, cov: Coverage): void {
  if (!Array.isArray(pipeline)) return;
  for (const stage of pipeline) {
    if (!isDoc(stage)) continue;
    for (const [name, arg] of Object.entries(stage)) {
      cov.stages.add(name);
      if (name === '$group') opsOf(arg, cov.groupAccumulators, (k) => k === '_id');
      if ((name === '$bucket' || name === '$bucketAuto') && isDoc(arg))
        opsOf(arg['output'], cov.groupAccumulators);
      if (name === '$setWindowFields' && isDoc(arg)) opsOf(arg['output'], cov.windowFunctions);
      if (name === '$facet' && isDoc(arg)) for (const sub of Object.values(arg)) cover(sub, cov);
      if ((name === '$lookup' || name === '$unionWith') && isDoc(arg)) cover(arg['pipeline'], cov);
    }
  }
}

describe('aggregation stage corpus: completeness', () => {
  const cov: Coverage = {
    stages: new Set(),
    groupAccumulators: new Set(),
    windowFunctions: new Set(),
  };
  for (const c of allCases) cover(c.pipeline, cov);

  test('every registered stage (and every refused one) has a case', () => {
    const missing = [...stageDefinitions.keys(), ...unsupportedStages.keys()].filter(
      (s) => !cov.stages.has(s),
    );
    assert.deepEqual(missing, []);
  });

  test('every accumulator has a $group case', () => {
    const missing = [...accumulators.keys()].filter((a) => !cov.groupAccumulators.has(a));
    assert.deepEqual(missing, []);
  });

  test('every window function has a $setWindowFields case', () => {
    const missing = windowFunctionNames.filter((f) => !cov.windowFunctions.has(f));
    assert.deepEqual(missing, []);
  });

  test('every case names its source', () => {
    assert.deepEqual(
      allCases.filter((c) => c.source.trim() === '').map((c) => c.name),
      [],
    );
  });

  test('case names are unique', () => {
    const seen = new Set<string>();
    const dup = allCases
      .filter((c) => (seen.has(c.name) ? true : (seen.add(c.name), false)))
      .map((c) => c.name);
    assert.deepEqual(dup, []);
  });
});
