import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  BSONRegExp,
  Binary,
} from 'bson';
import fc from 'fast-check';
import { compareBson, compareStrings, sortedBson } from '../../../src/bson/compare.js';
import { bsonScalarArb, doubleArb, int32Arb } from './arbitraries.js';
import type { BsonValue } from '../../../src/bson/types.js';

const d = (x: number) => new Double(x);

test('cross-type order follows MongoDB canonical ranks', () => {
  const ordered: BsonValue[] = [
    new MinKey(),
    null,
    new Int32(1),
    'a',
    { a: new Int32(1) },
    [new Int32(1)],
    new Binary(Buffer.from([1])),
    new ObjectId('000000000000000000000001'),
    false,
    new Date(0),
    new Timestamp({ t: 1, i: 1 }),
    new BSONRegExp('a', ''),
    new MaxKey(),
  ];
  for (let i = 0; i + 1 < ordered.length; i++) {
    assert.equal(
      compareBson(ordered[i] as BsonValue, ordered[i + 1] as BsonValue),
      -1,
      `rank ${i}`,
    );
    assert.equal(
      compareBson(ordered[i + 1] as BsonValue, ordered[i] as BsonValue),
      1,
      `rank ${i} reversed`,
    );
  }
});

test('numbers compare by exact value across types', () => {
  assert.equal(compareBson(new Int32(1), d(1)), 0);
  assert.equal(compareBson(Long.fromInt(1), Decimal128.fromString('1.0')), 0);
  assert.equal(compareBson(d(NaN), d(-Infinity)), -1);
  assert.equal(compareBson(d(NaN), Decimal128.fromString('NaN')), 0);
  assert.equal(compareBson(d(-0), new Int32(0)), 0);
  // 2^53 + 1 is not a double: the long must compare above the double 2^53.
  assert.equal(compareBson(Long.fromString('9007199254740993'), d(9007199254740992)), 1);
  assert.equal(compareBson(d(9007199254740992), Long.fromString('9007199254740993')), -1);
  assert.equal(compareBson(Long.fromInt(2), d(2.5)), -1);
  assert.equal(compareBson(Long.fromInt(3), d(2.5)), 1);
  assert.equal(compareBson(Decimal128.fromString('0.1'), d(0.1)), -1); // double 0.1 is slightly above 1/10
  assert.equal(compareBson(Decimal128.fromString('1E+400'), d(Infinity)), -1);
  assert.equal(compareBson(Long.MAX_VALUE, d(9223372036854775807)), -1); // the double rounds up to 2^63
});

test('strings compare by UTF-8 bytes', () => {
  assert.equal(compareStrings('a', 'b'), -1);
  assert.equal(compareStrings('ab', 'a'), 1);
  // U+FF5E (3 UTF-8 bytes, EF BD 9E) is below U+1F600 (4 bytes, F0 ...) in UTF-8 order,
  // though its UTF-16 unit is above the surrogate D83D.
  assert.equal(compareStrings('\uff5e', '\u{1f600}'), -1);
});

test('documents compare field by field: type, name, value', () => {
  assert.equal(compareBson({ a: new Int32(1) }, { a: new Int32(1), b: new Int32(0) }), -1);
  assert.equal(compareBson({ a: new Int32(2) }, { b: new Int32(1) }), -1);
  assert.equal(compareBson({ a: 'x' }, { a: new Int32(5) }), 1);
  assert.equal(compareBson([new Int32(1), new Int32(2)], [new Int32(1), d(2)]), 0);
});

test('non-canonical decimal128 (coefficient above 10^34 - 1) is zero, as IEEE 754 and mongod read it', () => {
  // Coefficient 10^34 + 7 with exponent -6: bson's toString prints it as a 35-digit number.
  const c = 10n ** 34n + 7n;
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, c & 0xffffffffffffffffn, true);
  view.setBigUint64(8, (BigInt(6176 - 6) << 49n) | (c >> 64n), true);
  const nonCanonical = new Decimal128(bytes);
  assert.equal(compareBson(nonCanonical, new Int32(0)), 0);
  assert.equal(compareBson(nonCanonical, Decimal128.fromString('1E-6176')), -1);
  assert.equal(compareBson(d(-1), nonCanonical), -1);
});

test('equal numbers compare as 0, never -0', () => {
  assert.ok(Object.is(compareBson(new Int32(1), Long.ONE), 0));
  assert.ok(Object.is(compareBson(d(-1), Long.fromInt(-1)), 0));
});

test('sortedBson orders as compareBson does, stably: the numeric fast path and the general one', () => {
  const general = (xs: readonly BsonValue[]): BsonValue[] =>
    [...xs].sort((a, b) => compareBson(a, b));
  for (const arb of [fc.oneof(int32Arb, doubleArb), bsonScalarArb]) {
    fc.assert(
      fc.property(fc.array(arb, { maxLength: 60 }), (xs) => {
        const got = sortedBson(xs);
        const want = general(xs);
        // The same objects in the same places: equal values keep their input order.
        assert.ok(got.length === want.length && got.every((v, i) => v === want[i]));
      }),
      { numRuns: 300 },
    );
  }
});
