// The storage checks' walks over a document: the one-pass check of field names and depth
// (namesEncodableAndDepthExceeds) and nestingDepthExceeds give the answers of the two plain
// recursive definitions below, on generated documents nested to random depths, with NUL and
// `__proto__` names at random places.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Int32 } from 'bson';
import { setOwn } from '../../../src/bson/document.js';
import { isArray, isPlainDocument } from '../../../src/bson/types.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import {
  checkFieldNamesEncodable,
  namesEncodableAndDepthExceeds,
  nestingDepthExceeds,
} from '../../../src/catalog/validate-document.js';
import { bsonScalarArb } from '../bson/arbitraries.js';

/** Depth by the definition: a scalar 0, a document or array one more than its deepest value. */
function depthOf(v: BsonValue): number {
  if (isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (isPlainDocument(v)) return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

/** Every field name holding a NUL, at any depth. */
function nulNames(v: BsonValue): string[] {
  if (isArray(v)) return v.flatMap(nulNames);
  if (isPlainDocument(v))
    return Object.entries(v).flatMap(([k, x]) => [
      ...(k.includes('\0') ? [k] : []),
      ...nulNames(x),
    ]);
  return [];
}

const nameArb = fc.oneof(
  fc.constantFrom('a', 'b', '__proto__', 'constructor', 'x\0y', '\0'),
  fc.string({ maxLength: 3 }),
);

const valueArb: fc.Arbitrary<BsonValue> = fc.letrec<{ value: BsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    bsonScalarArb,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(nameArb, tie('value')), { maxLength: 3 }).map((entries) => {
      const d: BsonDocument = {};
      for (const [k, x] of entries) setOwn(d, k, x);
      return d;
    }),
  ),
})).value;

/** A document at least `extra` levels deeper than `v`: `v` under a chain of documents. */
function nested(v: BsonValue, extra: number): BsonDocument {
  let out: BsonValue = v;
  for (let i = 0; i < extra; i++) out = i % 2 === 0 ? { n: out } : [new Int32(i), out];
  return isPlainDocument(out) ? out : { top: out };
}

test('one walk of names and depth answers as the two definitions', () => {
  fc.assert(
    fc.property(valueArb, fc.nat(8), fc.nat(12), (v, extra, max) => {
      const doc = nested(v, extra);
      const nul = nulNames(doc);
      assert.equal(nestingDepthExceeds(doc, max), depthOf(doc) > max);
      // The name refused is the one checkFieldNamesEncodable (names only) refuses first.
      let expected: string | undefined;
      try {
        checkFieldNamesEncodable(doc);
      } catch (e) {
        expected = (e as Error).message;
      }
      assert.equal(expected !== undefined, nul.length > 0);
      if (expected !== undefined)
        assert.throws(
          () => namesEncodableAndDepthExceeds(doc, max),
          (e: Error) => e.message === expected,
        );
      else assert.equal(namesEncodableAndDepthExceeds(doc, max), depthOf(doc) > max);
    }),
    { numRuns: 500 },
  );
});

test('a NUL name is refused before the depth, however deep the document', () => {
  const deep = nested({ ok: new Int32(1) }, 300);
  assert.equal(namesEncodableAndDepthExceeds(deep, 100), true);
  const both = nested({ 'a\0b': new Int32(1) }, 300);
  assert.throws(() => namesEncodableAndDepthExceeds(both, 100));
  const shallowNul: BsonDocument = { x: nested({ ok: new Int32(1) }, 300), 'c\0': new Int32(1) };
  assert.throws(() => namesEncodableAndDepthExceeds(shallowNul, 100));
});
