// Index key generation against mongod's btree_key_generator_test.cpp cases (key sets and
// multikey paths), with today's rule that every expanded array — single-element and empty
// ones included — makes its path component multikey (btree_key_generator.cpp).

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EJSON } from 'bson';
import { compareBson } from '../../../src/bson/compare.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { CommandError } from '../../../src/errors.js';
import { generateIndexKeys, parseKeyPattern } from '../../../src/catalog/index-keys.js';
import { bs, doc } from '../query/corpus/values.js';
import type { Literal } from '../query/corpus/values.js';

const SOURCE = 'mongod src/mongo/db/index/btree_key_generator_test.cpp';

function keysOf(
  pattern: { [k: string]: Literal },
  d: { [k: string]: Literal },
  sparse = false,
): { keys: string[]; multikey: number[][] } {
  // A key pattern as mongod's tests write it may repeat a field ({a: 1, a: 1}): pass it as pairs.
  const fields = parseKeyPattern(doc(pattern));
  const g = generateIndexKeys(fields, doc(d), { sparse });
  const unique: BsonValue[][] = [];
  for (const k of g.keys) if (!unique.some((u) => compareBson(u, k) === 0)) unique.push(k);
  unique.sort((a, b) => compareBson(a, b));
  return {
    keys: unique.map((k) => EJSON.stringify(k as unknown as BsonDocument, { relaxed: true })),
    multikey: g.multikeyPaths,
  };
}

function expectKeys(
  pattern: { [k: string]: Literal },
  d: { [k: string]: Literal },
  keys: Literal[][],
  multikey: number[][],
  sparse = false,
): void {
  const got = keysOf(pattern, d, sparse);
  const want = keys
    .map((k) => k.map((v) => bs(v)))
    .sort((a, b) => compareBson(a, b))
    .map((k) => EJSON.stringify(k as unknown as BsonDocument, { relaxed: true }));
  assert.deepEqual(
    got.keys,
    want,
    `keys of ${JSON.stringify(d)} for ${JSON.stringify(pattern)} (${SOURCE})`,
  );
  assert.deepEqual(got.multikey, multikey, `multikey paths of ${JSON.stringify(d)}`);
}

test('scalars, missing fields, compound keys', () => {
  expectKeys({ a: 1 }, { b: 1 }, [[null]], [[]]);
  expectKeys({ x: 1, y: 1 }, { x: 'a', y: 'b' }, [['a', 'b']], [[], []]);
  expectKeys({ x: 1, y: 1 }, { x: 'a' }, [['a', null]], [[], []]);
  expectKeys({ 'a.b': 1 }, { a: { b: 4 } }, [[4]], [[]]);
  expectKeys({ 'a.b': 1 }, { a: 4 }, [[null]], [[]]);
});

test('arrays expand one key per element and are multikey', () => {
  expectKeys(
    { a: 1, b: 1 },
    { a: [1, 2, 3], b: 2 },
    [
      [1, 2],
      [2, 2],
      [3, 2],
    ],
    [[0], []],
  );
  expectKeys(
    { first: 1, a: 1 },
    { first: 5, a: [1, 2, 3] },
    [
      [5, 1],
      [5, 2],
      [5, 3],
    ],
    [[], [0]],
  );
  expectKeys({ 'a.b': 1 }, { a: { b: [1, 2, 3] } }, [[1], [2], [3]], [[1]]);
  expectKeys(
    { 'a.b': 1 },
    {
      a: [
        { b: 1, c: 4 },
        { b: 2, c: 4 },
        { b: 3, c: 4 },
      ],
    },
    [[1], [2], [3]],
    [[0]],
  );
  expectKeys({ 'a.b.c': 1 }, { a: { b: [{ c: 1 }, { c: 2 }] } }, [[1], [2]], [[1]]);
  expectKeys(
    { 'a.b': 1, d: 99 },
    {
      a: [
        { b: 1, c: 4 },
        { b: 2, c: 4 },
        { b: 3, c: 4 },
      ],
      d: 99,
    },
    [
      [1, 99],
      [2, 99],
      [3, 99],
    ],
    [[0], []],
  );
  expectKeys(
    { 'a.b': 1 },
    { a: [{ foo: 41 }, { b: 1, c: 4 }, { b: 2, c: 4 }, { b: 3, c: 4 }] },
    [[null], [1], [2], [3]],
    [[0]],
  );
  expectKeys({ 'a.b': 1 }, { a: [{ foo: 41 }, { foo: 41 }, { foo: 41 }] }, [[null]], [[0]]);
  expectKeys({ 'a.b': 1 }, { a: [1, 2] }, [[null]], [[0]]);
  expectKeys(
    { 'a.b': 1, 'a.c': 1 },
    { a: [{ b: 1 }, { c: 2 }] },
    [
      [null, 2],
      [1, null],
    ],
    [[0], [0]],
  );
  expectKeys({ 'a.b': 1 }, { a: [{ b: 1 }, { b: [1, 2, 3] }] }, [[1], [2], [3]], [[0, 1]]);
  expectKeys({ 'a.b': 1 }, { a: [{ b: [1, 2] }, { b: [2, 3] }] }, [[1], [2], [3]], [[0, 1]]);
  expectKeys({ a: 1 }, { a: [1, 2] }, [[1], [2]], [[0]]);
  expectKeys({ a: 1 }, { a: [1] }, [[1]], [[0]]);
  expectKeys({ a: 1 }, { a: null }, [[null]], [[]]);
});

test('empty arrays: undefined where the path ends, null below', () => {
  expectKeys({ a: 1 }, { a: [] }, [[undefined]], [[0]]);
  expectKeys({ a: 1, b: 1 }, { a: 1, b: [] }, [[1, undefined]], [[], [0]]);
  expectKeys({ 'a.b': 1 }, { a: [] }, [[null]], [[0]]);
  expectKeys({ 'a.b': 1, 'a.c': 1 }, { a: [] }, [[null, null]], [[0], [0]]);
  expectKeys({ a: 1, 'a.b': 1 }, { a: [] }, [[undefined, null]], [[0], [0]]);
  expectKeys({ a: 1, 'a.b': 1 }, { a: [{ b: 1 }] }, [[{ b: 1 }, 1]], [[0], [0]]);
  expectKeys({ a: 1, 'a.b': 1 }, { a: [{ b: [] }] }, [[{ b: [] }, undefined]], [[0], [0, 1]]);
  expectKeys({ 'a.b': 1, a: 1 }, { a: [] }, [[null, undefined]], [[0], [0]]);
});

test('nested arrays are one value; positions select one element', () => {
  expectKeys({ a: 1 }, { a: [[1, 2], 3] }, [[[1, 2]], [3]], [[0]]);
  expectKeys({ 'a.0': 1 }, { a: [1, 2, 3] }, [[1]], [[]]);
  expectKeys({ 'a.0': 1 }, { a: [[1, 2], [3]] }, [[[1, 2]]], [[]]);
  expectKeys({ 'a.1.b': 1 }, { a: [{ b: 1 }, { b: 2 }] }, [[2]], [[]]);
  expectKeys({ 'a.0.b': 1 }, { a: [{ b: [5, 6] }] }, [[5], [6]], [[2]]);
});

test('sparse indexes skip a document only when every field is missing', () => {
  expectKeys({ 'a.b': 1 }, { a: 1 }, [], [[]], true);
  expectKeys({ 'a.b': 1 }, { a: [{ c: 1 }] }, [], [[0]], true);
  expectKeys({ z: 1, 'a.b': 1 }, { a: 1 }, [], [[], []], true);
  expectKeys({ z: 1, 'a.b': 1 }, { z: 1 }, [[1, null]], [[], []], true);
  expectKeys({ 'a.b': 1, a: 1 }, { a: [] }, [[null, undefined]], [[0], [0]], true);
});

test('the _id index takes _id as it is', () => {
  expectKeys({ _id: 1 }, { _id: { x: [1, 2] } }, [[{ x: [1, 2] }]], [[]]);
  expectKeys({ _id: 1 }, { a: 1 }, [[null]], [[]]);
});

test('parallel arrays and ambiguous positions are refused as mongod refuses them', () => {
  const fails = (
    pattern: { [k: string]: Literal },
    d: { [k: string]: Literal },
    code: number,
    message?: string,
  ): void => {
    assert.throws(
      () => generateIndexKeys(parseKeyPattern(doc(pattern)), doc(d), { sparse: false }),
      (e: unknown) =>
        e instanceof CommandError &&
        e.code === code &&
        (message === undefined || e.message === message),
    );
  };
  fails(
    { a: 1, b: 1 },
    { a: [1, 2, 3], b: [1, 2, 3] },
    171,
    'cannot index parallel arrays [b] [a]',
  );
  fails(
    { 'a.b': 1, 'a.c': 1 },
    { a: [{ b: [1], c: [2] }] },
    171,
    'cannot index parallel arrays [c] [b]',
  );
  fails({ 'a.0': 1 }, { a: [{ 0: 1 }] }, 16746);
});
