import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Double, Int32 } from 'bson';
import { parseCollation } from '../../../src/bson/collation.js';
import { ValueMap } from '../../../src/bson/value-map.js';

const strength2 = parseCollation({ locale: 'en', strength: new Int32(2) });

test('without a collator, strings are keys byte for byte; numbers of equal value are one key', () => {
  const m = new ValueMap<number>();
  m.set('a', 1);
  m.set('A', 2);
  m.set(new Int32(1), 3);
  m.set(new Double(1), 4);
  assert.equal(m.size, 3);
  assert.equal(m.get('a'), 1);
  assert.equal(m.get(new Int32(1)), 4);
});

test('with a collator, strings (alone or inside documents and arrays) that it equates are one key, the first kept', () => {
  const m = new ValueMap<number>(strength2);
  for (const [i, k] of ['b', 'A', 'a', 'B', 'c'].entries()) m.set(k, (m.get(k) ?? 0) + i);
  assert.deepEqual(
    m.entries().map((e) => [e.key, e.value]),
    [
      ['b', 3],
      ['A', 3],
      ['c', 4],
    ],
  );
  m.set({ x: 'Q', n: new Int32(1) }, 1);
  m.set({ x: 'q', n: new Double(1) }, 2);
  m.set(['Z'], 5);
  assert.equal(m.get(['z']), 5);
  assert.equal(m.get({ x: 'Q', n: new Int32(1) }), 2);
  assert.equal(m.get({ x: 'q', n: new Int32(2) }), undefined);
  assert.equal(m.size, 5);
});

test('has tells a key held with an undefined value from one never set', () => {
  const m = new ValueMap<undefined>();
  m.set(new Int32(7), undefined);
  assert.equal(m.has(new Double(7)), true);
  assert.equal(m.has(new Int32(8)), false);
  const c = new ValueMap<undefined>(strength2);
  c.set('Straße', undefined);
  assert.equal(c.has('STRASSE'), false);
  assert.equal(c.has('straße'), true);
});
