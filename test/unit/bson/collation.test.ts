import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Double, Int32 } from 'bson';
import { parseCollation } from '../../../src/bson/collation.js';
import type { Collator } from '../../../src/bson/collation.js';
import { compareBson } from '../../../src/bson/compare.js';
import type { BsonDocument } from '../../../src/bson/types.js';
import { CommandError } from '../../../src/errors.js';

function collator(spec: BsonDocument): Collator {
  const c = parseCollation(spec);
  assert.ok(c !== undefined);
  return c;
}

function rejects(spec: unknown, code: number, message?: RegExp): void {
  assert.throws(
    () => parseCollation(spec as BsonDocument),
    (e: unknown) => {
      assert.ok(e instanceof CommandError);
      assert.equal(e.code, code, e.message);
      if (message !== undefined) assert.match(e.message, message);
      return true;
    },
  );
}

test('{locale: "simple"} is binary comparison: no collator', () => {
  assert.equal(parseCollation({ locale: 'simple' }), undefined);
});

test('strength 1 ignores case and diacritics, strength 2 only case, strength 3 neither', () => {
  const s1 = collator({ locale: 'en', strength: new Int32(1) });
  assert.equal(s1.compare('café', 'Cafe'), 0);
  const s2 = collator({ locale: 'en', strength: new Int32(2) });
  assert.equal(s2.compare('cafe', 'CAFE'), 0);
  assert.notEqual(s2.compare('café', 'cafe'), 0);
  const s3 = collator({ locale: 'en' });
  assert.notEqual(s3.compare('cafe', 'Cafe'), 0);
});

test('numericOrdering compares digit runs as numbers; caseFirst upper puts capitals first', () => {
  assert.equal(collator({ locale: 'en', numericOrdering: true }).compare('10', '2'), 1);
  assert.equal(collator({ locale: 'en' }).compare('10', '2'), -1);
  assert.equal(collator({ locale: 'en', caseFirst: 'upper' }).compare('A', 'a'), -1);
  assert.equal(collator({ locale: 'en', caseFirst: 'lower' }).compare('A', 'a'), 1);
});

test('alternate shifted ignores punctuation and spaces below strength 4', () => {
  const c = collator({ locale: 'en', strength: new Int32(1), alternate: 'shifted' });
  assert.equal(c.compare('black-bird', 'blackbird'), 0);
  assert.equal(c.compare('black bird', 'Blackbird'), 0);
  assert.notEqual(
    collator({ locale: 'en', strength: new Int32(1) }).compare('black-bird', 'blackbird'),
    0,
  );
});

test('caseLevel at strength 1 tells case apart but not diacritics', () => {
  const c = collator({ locale: 'en', strength: new Int32(1), caseLevel: true });
  assert.equal(c.compare('cafe', 'café'), 0);
  assert.notEqual(c.compare('cafe', 'Cafe'), 0);
});

test('locales with tailorings: German phonebook, Swedish', () => {
  // Swedish sorts ä after z; English sorts it with a.
  assert.equal(collator({ locale: 'sv' }).compare('ä', 'z'), 1);
  assert.equal(collator({ locale: 'en' }).compare('ä', 'z'), -1);
  assert.ok(collator({ locale: 'de@collation=phonebook' }) !== undefined);
  assert.ok(collator({ locale: 'en_US' }) !== undefined);
});

test('the full specification has every field, as listCollections shows it', () => {
  const c = collator({ locale: 'fr', strength: new Double(2) });
  assert.deepEqual(c.spec, {
    locale: 'fr',
    caseLevel: false,
    caseFirst: 'off',
    strength: new Int32(2),
    numericOrdering: false,
    alternate: 'non-ignorable',
    maxVariable: 'punct',
    normalization: false,
    backwards: false,
    version: '57.1',
  });
});

test('compareBson compares strings inside documents and arrays with the collator, other types as before', () => {
  const c = collator({ locale: 'en', strength: new Int32(2) });
  assert.equal(compareBson({ a: 'X' }, { a: 'x' }, c), 0);
  assert.equal(compareBson(['X', 'y'], ['x', 'Y'], c), 0);
  assert.equal(compareBson({ A: 'x' }, { a: 'x' }, c), -1); // field names stay binary
  assert.equal(compareBson(new Int32(1), 'a', c), -1);
  assert.equal(compareBson('X', 'x'), -1);
});

test('bad collation documents answer with mongod codes', () => {
  rejects({}, 40414, /'collation.locale' is missing/);
  rejects({ locale: 'en', foo: 1 }, 40415, /'collation.foo' is an unknown field/);
  rejects({ locale: 1 }, 14);
  rejects({ locale: 'en', caseLevel: 'yes' }, 14);
  rejects({ locale: 'en', strength: 'high' }, 14);
  rejects({ locale: 'en', strength: new Int32(0) }, 51024);
  rejects({ locale: 'en', strength: new Int32(6) }, 51024);
  rejects({ locale: 'en', caseFirst: 'middle' }, 2);
  rejects({ locale: 'en', alternate: 'ignore' }, 2);
  rejects({ locale: 'en', maxVariable: 'all' }, 2);
  rejects({ locale: 'xx_NOPE' }, 2, /Field 'locale' is invalid/);
  rejects({ locale: '' }, 2);
  rejects({ locale: 'simple', strength: new Int32(1) }, 9);
  rejects({ locale: 'en', strength: new Int32(1), backwards: true }, 2);
  rejects({ locale: 'en', strength: new Int32(2), caseFirst: 'upper' }, 2);
  rejects({ locale: 'en', version: '1.0' }, 12);
  rejects('en', 14);
});
