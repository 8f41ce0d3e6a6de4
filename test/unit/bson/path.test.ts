// Dotted-path traversal (src/bson/path.ts): the values a path reaches and the array offsets
// mongod records for them (src/mongo/db/matcher/path.cpp semantics).

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Int32 } from 'bson';
import {
  MISSING,
  forEachPathValue,
  getPathValue,
  isArrayIndexComponent,
  splitPath,
} from '../../../src/bson/path.js';
import type { LeafArrayMode, PathValue } from '../../../src/bson/path.js';
import type { BsonDocument } from '../../../src/bson/types.js';

const i = (n: number): Int32 => new Int32(n);

function reached(
  doc: BsonDocument,
  path: string,
  mode: LeafArrayMode = 'traverse',
): Array<[unknown, string | undefined]> {
  const out: Array<[unknown, string | undefined]> = [];
  forEachPathValue(doc, splitPath(path), mode, (v: PathValue, offset) => {
    out.push([
      v === MISSING
        ? 'MISSING'
        : v instanceof Int32
          ? v.value
          : Array.isArray(v)
            ? 'array'
            : 'object',
      offset,
    ]);
    return false;
  });
  return out;
}

test('path: a scalar, a missing field, a scalar in the way', () => {
  assert.deepEqual(reached({ a: i(1) }, 'a'), [[1, undefined]]);
  assert.deepEqual(reached({}, 'a'), [['MISSING', undefined]]);
  assert.deepEqual(reached({ a: i(4) }, 'a.b'), [['MISSING', undefined]]);
});

test('path: a leaf array yields its elements, then itself', () => {
  assert.deepEqual(reached({ a: [i(1), i(2)] }, 'a'), [
    [1, '0'],
    [2, '1'],
    ['array', undefined],
  ]);
  assert.deepEqual(reached({ a: [i(1), i(2)] }, 'a', 'omitArray'), [
    [1, '0'],
    [2, '1'],
  ]);
  assert.equal(reached({ a: [i(1), i(2)] }, 'a', 'whole').length, 1);
});

test('path: arrays in the middle reach subdocuments, with the outer offset', () => {
  const doc = { a: [{ b: i(1) }, i(7), {}, { b: [i(2), i(3)] }] } as BsonDocument;
  assert.deepEqual(reached(doc, 'a.b'), [
    [1, '0'],
    ['MISSING', '2'],
    [2, '3'],
    [3, '3'],
    ['array', '3'],
  ]);
  assert.deepEqual(reached({ a: [] }, 'a.b'), []);
});

test('path: a numeric component is a position and a field name', () => {
  assert.deepEqual(reached({ a: [i(5), i(6)] }, 'a.1'), [[6, undefined]]);
  assert.deepEqual(reached({ a: { '1': i(6) } }, 'a.1'), [[6, undefined]]);
  assert.deepEqual(reached({ a: [{ '0': i(8) }] } as BsonDocument, 'a.0'), [
    [8, '0'],
    ['object', undefined],
  ]);
  assert.deepEqual(reached({ a: [[i(1), i(2)]] } as BsonDocument, 'a.0.1'), [[2, undefined]]);
});

test('path: early stop', () => {
  let n = 0;
  forEachPathValue({ a: [i(1), i(2), i(3)] }, ['a'], 'traverse', () => ++n === 2);
  assert.equal(n, 2);
});

test('path: __proto__ is data, prototype fields are not reached', () => {
  const doc: BsonDocument = {};
  Object.defineProperty(doc, '__proto__', {
    value: { x: i(1) },
    enumerable: true,
    writable: true,
    configurable: true,
  });
  assert.deepEqual(reached(doc, '__proto__.x'), [[1, undefined]]);
  assert.deepEqual(reached({}, 'toString'), [['MISSING', undefined]]);
  assert.deepEqual(reached({}, 'constructor.name'), [['MISSING', undefined]]);
});

test('path: getPathValue reads without traversal', () => {
  const doc = { a: [{ b: i(1) }, { b: i(2) }] } as BsonDocument;
  assert.equal((getPathValue(doc, 'a.1.b') as Int32).value, 2);
  assert.equal(getPathValue(doc, 'a.b'), MISSING);
  assert.equal(getPathValue(doc, 'a.01.b'), MISSING);
  assert.equal(isArrayIndexComponent('12'), true);
  assert.equal(isArrayIndexComponent('1a'), false);
  assert.equal(isArrayIndexComponent(''), false);
});
