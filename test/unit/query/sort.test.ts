// Runs the sort corpus with a stable sort, and checks the bad specifications' codes.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { compareBson } from '../../../src/bson/compare.js';
import { CommandError } from '../../../src/errors.js';
import { compileSort } from '../../../src/query/sort.js';
import { sortCases, sortErrorCases } from './corpus/sort.js';
import { bs, doc } from './corpus/values.js';

for (const c of sortCases) {
  test(`sort: ${c.name}`, () => {
    const spec = compileSort(doc(c.sort));
    const sorted = c.docs.map((d) => doc(d)).sort((a, b) => spec.compare(a, b));
    const got = sorted.map((d) => d['_id']);
    const want = c.expected.map(bs);
    assert.equal(got.length, want.length);
    got.forEach((id, i) =>
      assert.equal(
        compareBson(id ?? null, want[i] ?? null),
        0,
        `${JSON.stringify(got)} (${c.source})`,
      ),
    );
  });
}

for (const c of sortErrorCases) {
  test(`sort error: ${c.name}`, () => {
    assert.throws(
      () => {
        const spec = compileSort(doc(c.sort));
        (c.docs ?? []).map((d) => doc(d)).sort((a, b) => spec.compare(a, b));
      },
      (e: unknown) => e instanceof CommandError && e.code === c.code,
      `expected code ${c.code} (${c.source})`,
    );
  });
}

test('sort: $natural is reported to the caller', () => {
  assert.equal(compileSort(doc({ $natural: -1 })).natural, -1);
  assert.equal(compileSort(doc({ $natural: 1 })).natural, 1);
  assert.equal(compileSort(doc({ a: 1 })).natural, undefined);
  assert.throws(
    () => compileSort(doc({ $natural: 1, a: 1 })),
    (e: unknown) => e instanceof CommandError && e.code === 2,
  );
});

test('sort: keyOf exposes the chosen key', () => {
  const spec = compileSort(doc({ 'a.b': 1, 'a.c': -1 }));
  const key = spec.keyOf(
    doc({
      a: [
        { b: 1, c: 0 },
        { b: 0, c: 3 },
        { b: 0, c: 1 },
      ],
    }),
  );
  assert.equal(compareBson(key, bs([0, 3]) as never), 0);
});
