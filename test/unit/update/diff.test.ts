// The $v:2 diff of a pipeline update: computeDiff compares the documents as mongod's
// doc_diff::computeOplogDiff does. Expected diffs follow the cases of mongod's
// document_diff_calculator tests, in today's serialization (`s<field>`, `u<index>`).

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { computeDiff, DiffBuilder } from '../../../src/update/index.js';
import { assertSameBson } from './bson-assert.js';
import { NumberInt, shell, shellDoc } from './values.js';

const diffOf = (pre: unknown, post: unknown) => computeDiff(shellDoc(pre), shellDoc(post));
const expectDiff = (pre: unknown, post: unknown, expected: unknown): void => {
  const d = diffOf(pre, post);
  assert.ok(d !== undefined, 'a diff, not a replacement');
  assertSameBson(d, shellDoc(expected));
};

describe('computeDiff', () => {
  test('equal documents: an empty diff', () => {
    const doc = { field1: [0, 1, 2, 3, 4], field2: 'some longer value', '0': [[{ '0': [[]] }]] };
    expectDiff(doc, doc, {});
  });

  test('a diff that does not pay off against the document is a replacement', () => {
    assert.equal(diffOf({ a: 1, b: 2, c: 3 }, { A: 1, B: 2, C: 3 }), undefined);
    assert.equal(diffOf({ b: 1, c: 1, d: 1 }, { a: 1, b: 1, c: 1, d: 1 }), undefined);
    assert.equal(diffOf({ b: 1 }, {}), undefined);
  });

  test('a moved field is re-inserted at the end', () => {
    expectDiff(
      { a: 1, b: 2, c: 3, d: 4, e: 'padding value' },
      { b: 2, c: 3, d: 4, e: 'padding value', a: 1 },
      { i: { a: 1 } },
    );
  });

  test('removals: trailing ones in order, the others in ascending name order', () => {
    const pad = 'a value long enough for the diff to be worth it';
    expectDiff(
      { pad, b: 1, a: 2, c: 'value', d: 'value', e: 'value', g: 1, f: 1 },
      { pad, c: 'value', d: 'value', e: 'value' },
      { d: { g: false, f: false, a: false, b: false } },
    );
  });

  test('a changed numeric type is a change; a subdocument changes in place', () => {
    expectDiff(
      { a: 1, b: 2, c: { subField1: 1, subField2: 3.5 }, d: 4 },
      { a: 1, b: 2, c: { subField1: 1, subField2: 3 }, d: 4 },
      { sc: { u: { subField2: 3 } } },
    );
  });

  test('an appended array element; a shortened array (truncatedArrays)', () => {
    expectDiff(
      { field1: 'abcd', field2: [1, 2, 3] },
      { field1: 'abcd', field2: [1, 2, 3, 4] },
      { sfield2: { a: true, u3: 4 } },
    );
    expectDiff(
      { _id: 1, a: 1, array: ['foo', { a: 'bar' }, 1, 2, 3] },
      { _id: 1, a: 1, array: ['foo', { a: 'bar' }] },
      { sarray: { a: true, l: NumberInt(2) } },
    );
  });

  test('nested arrays: a sub-diff when smaller than the new element, the element otherwise', () => {
    expectDiff(
      { field1: 'abcd', field2: [1, 2, 3, [[2]]] },
      { field1: 'abcd', field2: [1, 2, 3, [[4]]] },
      { sfield2: { a: true, u3: [[4]] } },
    );
    expectDiff(
      { field1: 'abcd', field2: [1, 2, 3, [1, 'longString', [2], 4, 5, 6], 5, 5, 5] },
      { field1: 'abcd', field2: [1, 2, 3, [1, 'longString', [4], 4], 5, 6] },
      { sfield2: { a: true, l: NumberInt(6), s3: { a: true, l: NumberInt(4), u2: [4] }, u5: 6 } },
    );
  });

  test('a subdocument replaced when its diff would be larger', () => {
    expectDiff(
      { field: { p: 1, q: 2, r: { a: 1, b: 2, c: 3, d: 4 }, s: 3 } },
      { field: { p: 1, q: 2, r: { p: 1, q: 2 }, s: 3 } },
      { sfield: { u: { r: { p: 1, q: 2 } } } },
    );
  });
});

describe('DiffBuilder', () => {
  test('sections in mongod order: d, u, i, then sub-diffs; array elements sorted', () => {
    const b = new DiffBuilder();
    b.insert(['n'], NumberInt(1));
    b.update(['arr', 3, 'x'], NumberInt(2));
    b.update(['arr', 1], NumberInt(5));
    b.update(['a'], NumberInt(2));
    b.delete(['z']);
    assertSameBson(
      b.serialize(),
      shellDoc({
        d: { z: false },
        u: { a: NumberInt(2) },
        i: { n: NumberInt(1) },
        sarr: { a: true, u1: NumberInt(5), s3: { u: { x: NumberInt(2) } } },
      }),
    );
  });

  test('a change below a logged value is covered by it; a change above replaces what was below', () => {
    const b = new DiffBuilder();
    b.update(['a', 'b'], shell(1));
    b.update(['a'], shellDoc({ b: 1, c: 2 }));
    b.update(['a', 'c'], shell(3));
    assertSameBson(b.serialize(), shellDoc({ u: { a: { b: 1, c: 2 } } }));
  });
});
