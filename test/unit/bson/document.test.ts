// Setting a value at a dotted path: the copying form leaves its input alone, the in-place
// form writes into what is there; both replace a non-document on the way, and a field named
// like a prototype member is a field like any other.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { getOwn, setValueAt, withValueAt } from '../../../src/bson/document.js';
import type { BsonDocument } from '../../../src/bson/types.js';

const one = new Int32(1);
const two = new Int32(2);

test('withValueAt copies the documents on the path and changes nothing it was given', () => {
  const inner = { b: one, keep: one };
  const doc: BsonDocument = { a: inner, x: one };
  const out = withValueAt(doc, ['a', 'b'], two);
  assert.deepEqual(out, { a: { b: two, keep: one }, x: one });
  assert.deepEqual(doc, { a: { b: one, keep: one }, x: one });
  assert.equal(inner.b, one);
  // A new field goes last; a scalar on the way becomes a subdocument.
  assert.deepEqual(Object.keys(withValueAt(doc, ['n'], two)), ['a', 'x', 'n']);
  assert.deepEqual(withValueAt(doc, ['x', 'y'], two), { a: inner, x: { y: two } });
});

test('setValueAt writes in place, creating subdocuments where there are none', () => {
  const doc: BsonDocument = { a: { keep: one }, s: one };
  setValueAt(doc, ['a', 'b'], two);
  setValueAt(doc, ['s', 't'], two);
  setValueAt(doc, ['n', 'm', 'o'], one);
  assert.deepEqual(doc, { a: { keep: one, b: two }, s: { t: two }, n: { m: { o: one } } });
});

test('a field named __proto__ or constructor is an own field on both paths', () => {
  const copied = withValueAt({}, ['__proto__', 'constructor'], one);
  assert.deepEqual(Object.keys(copied), ['__proto__']);
  assert.equal(getOwn(getOwn(copied, '__proto__') as BsonDocument, 'constructor'), one);
  assert.equal(Object.getPrototypeOf(copied), Object.prototype);
  const inPlace: BsonDocument = {};
  setValueAt(inPlace, ['constructor', '__proto__'], two);
  assert.equal(getOwn(getOwn(inPlace, 'constructor') as BsonDocument, '__proto__'), two);
  assert.equal(Object.getPrototypeOf(inPlace), Object.prototype);
});
