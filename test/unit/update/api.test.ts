// The update layer's API beyond the corpus: what it reports about changed paths, how it
// treats its inputs, upsertSeed on its own, and robustness against arbitrary updates.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { DBRef, Double, Int32 } from 'bson';
import { assertUpdatedDocumentSize, compileUpdate, upsertSeed } from '../../../src/update/index.js';
import { bsonSize } from '../../../src/bson/codec.js';
import { compileFilter } from '../../../src/query/match/index.js';
import type { MatchDetails } from '../../../src/query/match/index.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { isCommandError } from '../../../src/errors.js';
import { assertSameBson, encode } from './bson-assert.js';
import { fakeCompileFilter } from './fake-matcher.js';
import { shellDoc } from './values.js';

const ctx = { isInsert: false, now: new Date(0) };
const apply = (
  doc: unknown,
  update: unknown,
  extra: Partial<typeof ctx> & { positional?: number } = {},
) =>
  compileUpdate(shellDoc(update), { compileFilter: fakeCompileFilter }).apply(shellDoc(doc), {
    ...ctx,
    ...extra,
  });

/** The diff an update logged; fails the test when it logged none (as for a replacement). */
function diffOf(r: { readonly diff?: BsonDocument | undefined }): BsonDocument {
  assert.ok(r.diff !== undefined, 'the update logged no diff');
  return r.diff;
}

// Expected diffs: mongod's V2LogBuilder (v2_log_builder.cpp / modifier_node.cpp): a changed
// value in `u`, a created path in `i` at its first new component, a removed field in `d`,
// changes inside subdocuments and arrays as nested `s<field>` diffs; array elements are `u<i>`.
describe('the oplog diff of an update ($v: 2)', () => {
  test('a set field and a created subtree', () => {
    const r = apply({ _id: 1, a: 1 }, { $set: { a: 2, 'b.c': 3 } });
    assertSameBson(diffOf(r), shellDoc({ u: { a: 2 }, i: { b: { c: 3 } } }));
  });

  test('a created subtree is logged once, at its top', () => {
    const r = apply({ _id: 1 }, { $set: { 'x.y': 1, 'x.z': 2 } });
    assertSameBson(diffOf(r), shellDoc({ i: { x: { y: 1, z: 2 } } }));
  });

  test('removed fields, and $unset of an array element (set to null)', () => {
    const r = apply({ _id: 1, a: 1, b: [1, 2] }, { $unset: { a: 1, 'b.0': 1 } });
    assertSameBson(diffOf(r), shellDoc({ d: { a: false }, sb: { a: true, u0: null } }));
  });

  test('$push appending logs the new positions', () => {
    const r = apply({ _id: 1, a: [1] }, { $push: { a: { $each: [2, 3] } } });
    assertSameBson(diffOf(r), shellDoc({ sa: { a: true, u1: 2, u2: 3 } }));
  });

  test('$push with $sort logs the whole array', () => {
    const r = apply({ _id: 1, a: [3] }, { $push: { a: { $each: [1], $sort: 1 } } });
    assertSameBson(diffOf(r), shellDoc({ u: { a: [1, 3] } }));
  });

  test('$rename logs the removed field and the created one', () => {
    const r = apply({ _id: 1, a: 1 }, { $rename: { a: 'b' } });
    assertSameBson(diffOf(r), shellDoc({ d: { a: false }, i: { b: 1 } }));
  });

  test('$[] logs each element changed, inside the array diff', () => {
    const r = apply({ _id: 1, a: [{ b: 1 }, { b: 2 }] }, { $inc: { 'a.$[].b': 1 } });
    assertSameBson(
      diffOf(r),
      shellDoc({ sa: { a: true, s0: { u: { b: 2 } }, s1: { u: { b: 3 } } } }),
    );
  });

  test('a numeric field name is a field, an array position an array element', () => {
    const r = apply({ _id: 1, a: { 1: 1 }, b: [{ 1: 1 }] }, { $set: { 'a.1': 2, 'b.0.1': 2 } });
    assertSameBson(
      diffOf(r),
      shellDoc({ sa: { u: { 1: 2 } }, sb: { a: true, s0: { u: { 1: 2 } } } }),
    );
  });

  test('creating past the end of an array logs the new element only (applying it pads)', () => {
    const r = apply({ _id: 1, a: [] }, { $set: { 'a.2': 1 } });
    assertSameBson(r.doc, shellDoc({ _id: 1, a: [null, null, 1] }));
    assertSameBson(diffOf(r), shellDoc({ sa: { a: true, u2: 1 } }));
  });

  test('a created element holding a new subdocument', () => {
    const r = apply({ _id: 1, a: [] }, { $set: { 'a.0.c': 1 } });
    assertSameBson(diffOf(r), shellDoc({ sa: { a: true, u0: { c: 1 } } }));
  });

  test('a replacement is logged whole (no diff); no-ops are not modified', () => {
    assert.equal(apply({ _id: 1, a: 1 }, { a: 2 }).diff, undefined);
    const r = apply({ _id: 1, a: 1 }, { $set: { a: 1 }, $unset: { b: 1 } });
    assert.equal(r.modified, false);
  });
});

describe('compiled updates', () => {
  test('needsPositional tells whether the caller must supply the matched index', () => {
    assert.equal(compileUpdate(shellDoc({ $set: { 'a.$.b': 1 } })).needsPositional, true);
    assert.equal(compileUpdate(shellDoc({ $set: { 'a.b': 1 } })).needsPositional, false);
    assert.equal(compileUpdate(shellDoc({ a: 1 })).needsPositional, false);
    assert.equal(compileUpdate(shellDoc({ a: 1 })).type, 'replacement');
    assert.equal(compileUpdate(shellDoc({ $set: { a: 1 } })).type, 'operator');
  });

  test('one compiled update applies to many documents (merge caches included)', () => {
    const u = compileUpdate(shellDoc({ $set: { 'a.$[i].x': 1, 'a.$[j].y': 2 } }), {
      arrayFilters: [shellDoc({ 'i.k': 0 }), shellDoc({ 'j.k': 0 })],
      compileFilter: fakeCompileFilter,
    });
    for (let k = 0; k < 3; k++) {
      const r = u.apply(shellDoc({ _id: k, a: [{ k: 0 }, { k: 1 }] }), ctx);
      assertSameBson(r.doc, shellDoc({ _id: k, a: [{ k: 0, x: 1, y: 2 }, { k: 1 }] }));
    }
  });

  test('untouched subdocuments are shared with the input, touched ones are copies', () => {
    const input = shellDoc({ _id: 1, keep: { deep: [1, 2] }, change: { x: 1 } });
    const r = compileUpdate(shellDoc({ $set: { 'change.x': 2 } })).apply(input, ctx);
    assert.equal(r.doc['keep'], input['keep']);
    assert.notEqual(r.doc['change'], input['change']);
    assertSameBson(input, shellDoc({ _id: 1, keep: { deep: [1, 2] }, change: { x: 1 } }));
  });

  test('values from the update are not changed by later updates of the result', () => {
    const u1 = compileUpdate(shellDoc({ $set: { a: { list: [1] } } }));
    const r1 = u1.apply(shellDoc({ _id: 1 }), ctx);
    const u2 = compileUpdate(shellDoc({ $push: { 'a.list': 2 } }));
    u2.apply(r1.doc, ctx);
    // Applying u1 again still sets the original value.
    assertSameBson(u1.apply(shellDoc({ _id: 2 }), ctx).doc, shellDoc({ _id: 2, a: { list: [1] } }));
  });

  test('a DBRef field can be updated below', () => {
    const input: BsonDocument = { _id: new Int32(1), ref: new DBRef('c', new Double(1) as never) };
    const r = compileUpdate(shellDoc({ $set: { 'ref.$id': 2 } })).apply(input, ctx);
    assert.equal(r.modified, true);
    const ref = r.doc['ref'] as BsonDocument;
    assert.equal(Object.keys(ref).join(','), '$ref,$id');
  });

  test('the positional index comes straight from the matcher (elemMatchKey)', () => {
    const doc = shellDoc({
      _id: 4,
      grades: [
        { grade: 80, std: 8 },
        { grade: 85, std: 5 },
      ],
    });
    const details: MatchDetails = {};
    assert.ok(compileFilter(shellDoc({ 'grades.grade': 85 })).matches(doc, details));
    const u = compileUpdate(shellDoc({ $set: { 'grades.$.std': 6 } }));
    assert.equal(u.needsPositional, true);
    const r = u.apply(doc, { ...ctx, positional: details.elemMatchKey });
    assertSameBson(
      r.doc,
      shellDoc({
        _id: 4,
        grades: [
          { grade: 80, std: 8 },
          { grade: 85, std: 6 },
        ],
      }),
    );
  });

  test('a path with too many parts is refused before walking it', () => {
    const path = Array.from({ length: 1001 }, () => 'a').join('.');
    assert.throws(
      () => compileUpdate({ $set: { [path]: new Int32(1) } }),
      (e: unknown) => isCommandError(e) && e.code === 15,
    );
  });
});

describe('document size', () => {
  const big = 'x'.repeat(16 * 1024 * 1024);
  test('an update that makes the document too large fails with 17419', () => {
    assert.throws(
      () => apply({ _id: 1 }, { $set: { big } }),
      (e: unknown) =>
        isCommandError(e) &&
        e.code === 17419 &&
        e.message === 'Resulting document after update is larger than 16777216',
    );
  });
  test('a caller that encodes the document can check the size itself', () => {
    const r = compileUpdate(shellDoc({ $set: { big } })).apply(shellDoc({ _id: 1 }), {
      ...ctx,
      checkSize: false,
    });
    assert.throws(
      () => assertUpdatedDocumentSize(bsonSize(r.doc)),
      (e: unknown) => isCommandError(e) && e.code === 17419,
    );
  });
  test('an upsert that builds a too large document fails with 17420', () => {
    assert.throws(
      () =>
        compileUpdate(shellDoc({ $set: { big } })).upsert(shellDoc({ _id: 1 }), {
          now: new Date(0),
        }),
      (e: unknown) =>
        isCommandError(e) &&
        e.code === 17420 &&
        e.message === 'Document to upsert is larger than 16777216',
    );
  });
});

describe('upsertSeed', () => {
  test('equalities become fields, dotted paths documents, _id first', () => {
    assertSameBson(
      upsertSeed(shellDoc({ b: 1, 'c.d': 2, _id: 3, e: { $gt: 1 } })),
      shellDoc({ _id: 3, b: 1, c: { d: 2 } }),
    );
  });
  test('replacement style takes only _id', () => {
    assertSameBson(
      upsertSeed(shellDoc({ b: 1, _id: 3 }), { replacement: true }),
      shellDoc({ _id: 3 }),
    );
  });
  test('conflicts', () => {
    assert.throws(
      () => upsertSeed(shellDoc({ a: 1, $and: [{ a: 2 }] })),
      (e: unknown) =>
        isCommandError(e) &&
        e.code === 54 &&
        e.message === "cannot infer query fields to set, path 'a' is matched twice",
    );
    assert.throws(
      () => upsertSeed(shellDoc({ 'a.b': 1, a: { b: 1 } })),
      (e: unknown) => isCommandError(e) && e.code === 54,
    );
  });
  test('the filter is not changed', () => {
    const filter = shellDoc({ a: { b: 1 } });
    const seed = upsertSeed(filter);
    assert.equal(seed['a'], filter['a']);
  });
});

describe('robustness', () => {
  const key = fc.constantFrom('a', 'b', 'c', '0', '1', '$x', '__proto__', '');
  const leaf = fc.oneof(
    fc.integer().map((n) => new Int32(n)),
    fc.double().map((n) => new Double(n)),
    fc.string(),
    fc.constant(null),
  );
  const value = fc.letrec<{ v: BsonValue }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('v'), { maxLength: 3 }),
      fc.dictionary(key, tie('v'), { maxKeys: 3 }),
    ),
  })).v;
  const docArb = fc
    .dictionary(key, value, { maxKeys: 4 })
    .map((d): BsonDocument => ({ _id: new Int32(1), ...d }));
  const pathArb = fc
    .array(fc.constantFrom('a', 'b', '0', '1', '$', '$[]', '$[i]', '5', 'c'), {
      minLength: 1,
      maxLength: 4,
    })
    .map((p) => p.join('.'));
  const opArb = fc.record({
    op: fc.constantFrom(
      '$set',
      '$unset',
      '$inc',
      '$push',
      '$addToSet',
      '$pop',
      '$pull',
      '$min',
      '$max',
      '$mul',
      '$rename',
      '$setOnInsert',
      '$bit',
    ),
    path: pathArb,
    arg: value,
  });

  test('arbitrary updates either apply or fail with a CommandError, and never change the input', () => {
    fc.assert(
      fc.property(
        docArb,
        fc.array(opArb, { minLength: 1, maxLength: 3 }),
        fc.option(fc.nat({ max: 3 }), { nil: undefined }),
        (doc, ops, positional) => {
          const spec: BsonDocument = {};
          for (const o of ops) {
            const inner = (spec[o.op] as BsonDocument | undefined) ?? {};
            inner[o.path] =
              o.op === '$rename'
                ? 'r.' + o.path
                : o.op === '$pop'
                  ? new Int32(1)
                  : o.op === '$bit'
                    ? { or: new Int32(1) }
                    : o.arg;
            spec[o.op] = inner;
          }
          const before = encode(doc);
          try {
            const u = compileUpdate(spec, {
              arrayFilters: [{ i: new Int32(0) }],
              compileFilter: fakeCompileFilter,
            });
            u.apply(doc, { ...ctx, positional });
          } catch (e) {
            if (!isCommandError(e)) throw e;
          }
          assert.ok(encode(doc).equals(before));
        },
      ),
      { numRuns: 400 },
    );
  });
});
