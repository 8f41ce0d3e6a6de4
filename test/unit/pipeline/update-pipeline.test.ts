// Pipeline-style updates through compileUpdatePipeline, the update layer's compilePipeline hook.
// Expected documents follow the MongoDB manual ("Updates with Aggregation Pipeline").

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { CommandError } from '../../../src/errors.js';
import { compileUpdatePipeline } from '../../../src/pipeline/index.js';
import { compileUpdate } from '../../../src/update/index.js';

const i = (n: number): Int32 => new Int32(n);
const ctx = { isInsert: false, now: new Date('2024-01-01T00:00:00Z') };

test('update pipeline: $set with expressions and $unset (manual example)', () => {
  const u = compileUpdate(
    [{ $set: { modified: '$$NOW', total: { $add: ['$a', '$b'] } } }, { $unset: ['misc'] }],
    {
      compilePipeline: (p) => compileUpdatePipeline(p),
    },
  );
  assert.equal(u.type, 'pipeline');
  const r = u.apply({ _id: i(1), a: i(1), b: i(2), misc: 'x' }, ctx);
  assert.equal(r.modified, true);
  assert.deepEqual(Object.keys(r.doc), ['_id', 'a', 'b', 'modified', 'total']);
  assert.equal((r.doc['total'] as Int32).value, 3);
  assert.ok(r.doc['modified'] instanceof Date);
  // mongod's computeOplogDiff: misc removed, the new fields appended as inserts. The document
  // is too small for the diff to pay off against its size, so it is logged as a replacement.
  assert.equal(r.diff, undefined);
});

test('update pipeline: $replaceRoot and let variables', () => {
  const u = compileUpdatePipeline([{ $replaceWith: { _id: '$_id', v: '$$k' } }], {
    variables: { k: 'x' },
  });
  const r = u.apply({ _id: i(1), a: i(1) }, ctx);
  assert.deepEqual(r.doc, { _id: i(1), v: 'x' });
  assert.equal(r.diff, undefined, 'a diff larger than the document: a replacement');
});

test('update pipeline: an unchanged document is not modified', () => {
  const u = compileUpdatePipeline([{ $set: { a: '$a' } }]);
  const doc = { _id: i(1), a: i(1) };
  const r = u.apply(doc, ctx);
  assert.equal(r.modified, false);
  assert.equal(r.doc, doc);
});

test('update pipeline: upsert seeds from the query equalities', () => {
  const u = compileUpdatePipeline([{ $set: { b: { $add: ['$a', i(1)] } } }]);
  const r = u.upsert({ a: i(5) }, { now: new Date() });
  assert.equal(Object.keys(r.doc)[0], '_id');
  assert.equal((r.doc['a'] as Int32).value, 5);
  assert.equal((r.doc['b'] as Int32).value, 6);
});

test('update pipeline: only reshaping stages are allowed', () => {
  assert.throws(
    () => compileUpdatePipeline([{ $group: { _id: null } }]),
    (e: unknown) =>
      e instanceof CommandError &&
      e.code === 72 &&
      e.message === '$group is not allowed to be used within an update',
  );
});

// mongod applies a pipeline's output as a replacement (PipelineExecutor →
// ObjectReplaceExecutor::applyReplacementUpdate): the stored _id stays when the output has none.
test('update pipeline: $replaceRoot without _id keeps the stored _id first (spec crud/updateOne-pipeline.json)', () => {
  const u = compileUpdatePipeline([
    { $replaceRoot: { newRoot: '$t' } },
    { $addFields: { foo: i(1) } },
  ]);
  const r = u.apply({ _id: i(1), x: i(1), y: i(1), t: { u: { v: i(1) } } }, ctx);
  assert.equal(r.modified, true);
  assert.deepEqual(r.doc, { _id: i(1), u: { v: i(1) }, foo: i(1) });
  assert.deepEqual(Object.keys(r.doc), ['_id', 'u', 'foo']);
});

test('update pipeline: an output with _id elsewhere is stored with _id first', () => {
  const u = compileUpdatePipeline([{ $replaceWith: { v: i(2), _id: '$_id' } }]);
  const r = u.apply({ _id: i(1), a: i(1) }, ctx);
  assert.deepEqual(Object.keys(r.doc), ['_id', 'v']);
});

test('update pipeline: changing _id fails as a replacement does (66)', () => {
  const u = compileUpdatePipeline([{ $set: { _id: i(2) } }]);
  assert.throws(
    () => u.apply({ _id: i(1), a: i(1) }, ctx),
    (e: unknown) =>
      e instanceof CommandError &&
      e.code === 66 &&
      e.message ===
        "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2",
  );
});

test('update pipeline: the output is checked for storage, top-level $ names allowed', () => {
  const u = compileUpdatePipeline([{ $replaceWith: { $literal: { _id: i(1), $a: i(1) } } }]);
  assert.deepEqual(u.apply({ _id: i(1) }, ctx).doc, { _id: i(1), $a: i(1) });
  const deep = compileUpdatePipeline([
    { $replaceWith: { $literal: { _id: i(1), a: { $b: i(1) }, c: { _id: { $x: i(1) } } } } },
  ]);
  assert.equal(deep.apply({ _id: i(1) }, ctx).modified, true);
  const arrayId = compileUpdatePipeline([{ $set: { _id: [i(1)] } }]);
  assert.throws(
    () => arrayId.apply({ _id: i(1) }, ctx),
    (e: unknown) => e instanceof CommandError && e.code === 53,
  );
});
