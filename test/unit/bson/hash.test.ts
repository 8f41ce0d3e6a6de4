// mongod's hash of BSON values (hashed index keys, $toHashedIndexKey): the expected values are
// the test vectors of mongod's src/mongo/db/hasher_test.cpp (seed 0), one per BSON type and
// the numeric edge cases; then the properties the hash must keep (equal numbers of every type
// hash alike after truncation, string and symbol alike).

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
} from 'bson';
import { hashBsonValue } from '../../../src/bson/hash.js';
import type { BsonValue } from '../../../src/bson/types.js';

const bytes = (...b: number[]): Buffer => Buffer.from(b);

/** [description, value, expected hash] from hasher_test.cpp. */
const vectors: ReadonlyArray<readonly [string, BsonValue, bigint]> = [
  ['int 42', new Int32(42), -944302157085130861n],
  ['double 42.123', new Double(42.123), -944302157085130861n],
  ['long 42', Long.fromNumber(42), -944302157085130861n],
  ['int 0', new Int32(0), 4854801880128277513n],
  ['double 0.456', new Double(0.456), 4854801880128277513n],
  ['NaN hashes as 0', new Double(NaN), 4854801880128277513n],
  ['int 1', new Int32(1), 5902408780260971510n],
  ['double 1.987', new Double(1.987), 5902408780260971510n],
  ['int -1', new Int32(-1), 1140205862565771219n],
  ['double -1.789', new Double(-1.789), 1140205862565771219n],
  ['int min', new Int32(-2147483648), 6165898260261354870n],
  ['double int min', new Double(-2147483648), 6165898260261354870n],
  ['int max', new Int32(2147483647), 1143184177162245883n],
  ['long int max', Long.fromNumber(2147483647), 1143184177162245883n],
  ['double max clamps to long max', new Double(Number.MAX_VALUE), 921523596458303250n],
  ['long max', Long.MAX_VALUE, 921523596458303250n],
  ['-double max clamps to long min', new Double(-Number.MAX_VALUE), 4532067210535695462n],
  ['long min', Long.MIN_VALUE, 4532067210535695462n],
  ['MinKey', new MinKey(), 7961148599568647290n],
  ['MaxKey', new MaxKey(), 5504842513779440750n],
  ['undefined', undefined, 40158834000849533n],
  ['string', 'abc', 8478485326885698097n],
  ['symbol', new BSONSymbol('abc'), 8478485326885698097n],
  ['empty string', '', 2049396243249673340n],
  ['document', { a: 'abc', b: Long.fromNumber(123) }, 4771603801758380216n],
  ['empty document', {}, 7980500913326740417n],
  ['array', ['bar', 'baz', 'qux'], -2938911267422831539n],
  ['empty array', [], 8849948234993459283n],
  ['binary', new Binary(bytes(0, 1, 2, 3, 4, 6), 0), 7252465090394235301n],
  ['binary custom', new Binary(bytes(0, 1, 2, 3, 4, 6), 128), 5736670452907618262n],
  [
    'uuid',
    new Binary(bytes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), 4),
    6084661258071355978n,
  ],
  ['ObjectId', new ObjectId('010203040506070809101112'), -5588663249627035708n],
  ['zero ObjectId', new ObjectId('000000000000000000000000'), -4293118519463489418n],
  ['true', true, 6405873908747105701n],
  ['false', false, 6289544573401934092n],
  ['date 0', new Date(0), -1178696894582842035n],
  ['regex', new BSONRegExp('mongodb', ''), -7275792090268217043n],
  ['regex with flags', new BSONRegExp('.*', 'i'), 7095855029187981886n],
  ['code', new Code('func f() { return 1; }'), 6861638109178014270n],
  ['code with scope', new Code('func f() { return 1; }', { c: true }), 501342939894575968n],
];

describe('hashBsonValue: mongod test vectors', () => {
  for (const [name, value, expected] of vectors) {
    test(name, () => {
      assert.equal(hashBsonValue(value).toBigInt(), expected);
    });
  }
});

describe('hashBsonValue: properties', () => {
  test('a number hashes as its truncation, whatever its type', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e15, max: 1e15, noNaN: true }), (x) => {
        const t = Math.trunc(x);
        const h = hashBsonValue(new Double(x)).toBigInt();
        assert.equal(h, hashBsonValue(Long.fromNumber(t)).toBigInt());
        assert.equal(h, hashBsonValue(Decimal128.fromString(String(t))).toBigInt());
      }),
    );
  });

  test('a decimal rounds half to even; NaN and infinities as mongod', () => {
    const h = (v: BsonValue): bigint => hashBsonValue(v).toBigInt();
    assert.equal(h(Decimal128.fromString('2.5')), h(new Int32(2)));
    assert.equal(h(Decimal128.fromString('3.5')), h(new Int32(4)));
    assert.equal(h(Decimal128.fromString('-2.5')), h(new Int32(-2)));
    assert.equal(h(Decimal128.fromString('NaN')), h(new Int32(0)));
    assert.equal(h(Decimal128.fromString('Infinity')), h(Long.MAX_VALUE));
    assert.equal(h(Decimal128.fromString('-Infinity')), h(Long.MIN_VALUE));
    assert.equal(h(Decimal128.fromString('1E+30')), h(Long.MAX_VALUE));
    // The double 2^63 keeps the historical overflow to -2^63.
    assert.equal(h(new Double(2 ** 63)), h(Long.MIN_VALUE));
    assert.equal(h(new Double(Infinity)), h(Long.MAX_VALUE));
  });

  test('field names and order matter inside documents; strings and symbols alike', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        assert.equal(hashBsonValue(s).toBigInt(), hashBsonValue(new BSONSymbol(s)).toBigInt());
        assert.notEqual(
          hashBsonValue({ a: s, b: new Int32(1) }).toBigInt(),
          hashBsonValue({ b: new Int32(1), a: s }).toBigInt(),
        );
      }),
      { numRuns: 50 },
    );
  });
});
