// applyDiff undoes computeDiff: for a document and a changed version of it, applying the diff
// of the two to the first gives the second, byte for byte (the diffs applyOps receives are the
// ones the oplog writes).

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Int32 } from 'bson';
import { encodeDocument } from '../../../src/bson/codec.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { applyDiff } from '../../../src/update/apply-diff.js';
import { computeDiff } from '../../../src/update/diff.js';

const leaf: fc.Arbitrary<BsonValue> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer({ min: -5, max: 5 }).map((n) => new Int32(n)),
  fc.boolean(),
  fc.constant(null),
);
const value: fc.Arbitrary<BsonValue> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('v'), { maxKeys: 3 }),
  ),
})).v as fc.Arbitrary<BsonValue>;
const doc = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), value, { maxKeys: 5 });

/** A changed version of a document: a field set, removed or changed inside (so a diff pays). */
const edited = doc.chain((pre) =>
  fc
    .tuple(fc.constant(pre), fc.constantFrom('a', 'b', 'c', 'z'), value, fc.boolean())
    .map(([d, k, v, remove]) => {
      const post: BsonDocument = { ...d, big: 'x'.repeat(64) };
      const pre2: BsonDocument = { ...d, big: 'x'.repeat(64) };
      if (remove) delete post[k];
      else post[k] = v;
      return [pre2, post] as const;
    }),
);

test('applyDiff(pre, computeDiff(pre, post)) is post', () => {
  let diffs = 0;
  fc.assert(
    fc.property(
      fc.oneof(fc.tuple(doc, doc), edited),
      ([pre, post]: readonly [BsonDocument, BsonDocument]) => {
        const diff = computeDiff(pre, post);
        if (diff === undefined) return; // logged as a replacement instead
        diffs++;
        assert.deepEqual(
          Buffer.from(encodeDocument(applyDiff(pre, diff))),
          Buffer.from(encodeDocument(post)),
        );
      },
    ),
    { numRuns: 500 },
  );
  assert.ok(diffs > 100, `only ${diffs} runs produced a diff`);
});

test('a malformed diff is FailedToParse', () => {
  assert.throws(() => applyDiff({ a: new Int32(1) }, { sa: { a: true, u0: new Int32(1) } }), {
    code: 9,
  });
  assert.throws(() => applyDiff({ a: [new Int32(1)] }, { sa: { a: true, x1: new Int32(1) } }), {
    code: 9,
  });
});
