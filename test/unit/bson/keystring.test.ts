import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';
import { compareBson } from '../../../src/bson/compare.js';
import {
  decodeKey,
  encodeKey,
  encodeKeyAndTypeInfo,
  encodeKeyWithSuffix,
  encodeTypeInfo,
  keyPartsLength,
  keyPrefixUpperBound,
  keyScanBounds,
} from '../../../src/bson/keystring.js';
import type { KeyDirection, KeyScanBounds } from '../../../src/bson/keystring.js';
import { documentFrom } from '../../../src/bson/document.js';
import type { BsonValue } from '../../../src/bson/types.js';
import {
  bsonNumberArb,
  bsonStringArb,
  bsonValueArb,
  decimalFromParts,
  nonCanonicalDecimal,
  numericAliasesArb,
  typedEquals,
} from './arbitraries.js';

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);
const negate = (n: number): number => (n === 0 ? 0 : -n);
const enc = (v: BsonValue, dir: KeyDirection = 1): Uint8Array => encodeKey([v], [dir]);
const hex = (u: Uint8Array): string => Buffer.from(u).toString('hex');
/** A RecordId as catalog/record-id.ts writes it: 8 bytes, unsigned big-endian. */
const recordIdSuffix = (id: bigint): Uint8Array => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(id);
  return b;
};
const readRecordIdSuffix = (key: Uint8Array): bigint =>
  Buffer.from(key.buffer, key.byteOffset + key.length - 8, 8).readBigUInt64BE();
const show = (v: BsonValue): string => {
  try {
    return `${(v as { _bsontype?: string } | null)?._bsontype ?? typeof v}:${String(v instanceof Object && 'toString' in v ? v.toString() : v)}`;
  } catch {
    return typeof v;
  }
};

function compoundCompare(
  a: readonly BsonValue[],
  b: readonly BsonValue[],
  dirs: readonly KeyDirection[],
): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareBson(a[i] as BsonValue, b[i] as BsonValue) * (dirs[i] ?? 1);
    if (c !== 0) return c;
  }
  return sign(a.length - b.length);
}

function isProperPrefix(p: Uint8Array, k: Uint8Array): boolean {
  return p.length < k.length && p.every((x, i) => x === k[i]);
}

function assertOrder(a: BsonValue, b: BsonValue): void {
  const expected = compareBson(a, b);
  const ka = enc(a);
  const kb = enc(b);
  const got = sign(Buffer.compare(ka, kb));
  assert.equal(got, expected, `${show(a)} ${hex(ka)} vs ${show(b)} ${hex(kb)}`);
  assert.equal(sign(Buffer.compare(enc(a, -1), enc(b, -1))), negate(expected), 'descending');
  if (expected !== 0) {
    assert.ok(!isProperPrefix(ka, kb) && !isProperPrefix(kb, ka), `prefix: ${hex(ka)} ${hex(kb)}`);
  }
}

function assertRoundTrip(parts: BsonValue[], dirs: KeyDirection[]): void {
  const key = encodeKey(parts, dirs);
  const typeInfo = encodeTypeInfo(parts);
  const back = decodeKey(key, dirs, typeInfo);
  assert.equal(back.length, parts.length);
  for (let i = 0; i < parts.length; i++) {
    assert.ok(
      typedEquals(back[i] as BsonValue, parts[i] as BsonValue),
      `round trip of ${show(parts[i] as BsonValue)}: got ${show(back[i] as BsonValue)}`,
    );
  }
}

// ---- properties ----------------------------------------------------------------------------

test('property: byte order of single values equals compareBson (numbers)', () => {
  fc.assert(
    fc.property(bsonNumberArb, bsonNumberArb, (a, b) => assertOrder(a, b)),
    { numRuns: 4000 },
  );
});

test('property: byte order of single values equals compareBson (strings)', () => {
  fc.assert(
    fc.property(bsonStringArb, bsonStringArb, (a, b) => assertOrder(a, b)),
    { numRuns: 2000 },
  );
});

test('property: byte order of single values equals compareBson (all types, nested)', () => {
  const v = bsonValueArb();
  fc.assert(
    fc.property(v, v, (a, b) => assertOrder(a, b)),
    { numRuns: 3000 },
  );
});

test('property: documents and arrays that share structure order like compareBson', () => {
  // Pairs built from the same skeleton differ deep inside, not at the first type byte.
  const leaf = fc.oneof(
    bsonNumberArb,
    bsonStringArb,
    fc.constantFrom<BsonValue>(null, true, new MinKey()),
  );
  const pair = fc.tuple(fc.constantFrom('a', 'b', 'ab'), leaf, leaf, leaf, fc.boolean());
  fc.assert(
    fc.property(pair, ([name, shared, x, y, asArray]) => {
      const a: BsonValue = asArray
        ? [shared, x]
        : documentFrom([
            [name, shared],
            ['z', x],
          ]);
      const b: BsonValue = asArray
        ? [shared, y]
        : documentFrom([
            [name, shared],
            ['z', y],
          ]);
      assertOrder(a, b);
      assertOrder({ k: a }, { k: b });
    }),
    { numRuns: 1500 },
  );
});

test('property: equal values of different numeric types encode identically', () => {
  fc.assert(
    fc.property(numericAliasesArb, (aliases) => {
      const first = hex(enc(aliases[0] as BsonValue));
      for (const v of aliases) {
        assert.equal(compareBson(v, aliases[0] as BsonValue), 0, show(v));
        assert.equal(hex(enc(v)), first, `${show(v)} vs ${show(aliases[0] as BsonValue)}`);
      }
    }),
    { numRuns: 2000 },
  );
});

test('property: compound keys with mixed directions order lexicographically', () => {
  const value = fc.oneof(
    bsonNumberArb,
    bsonStringArb,
    bsonValueArb({ maxDepth: 1 }),
    fc.constantFrom<BsonValue>(null, 'a', new Int32(1)),
  );
  const compound = fc
    .integer({ min: 1, max: 4 })
    .chain((n) =>
      fc.tuple(
        fc.array(value, { minLength: n, maxLength: n }),
        fc.array(value, { minLength: n, maxLength: n }),
        fc.array(fc.constantFrom<KeyDirection>(1, -1), { minLength: n, maxLength: n }),
        fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      ),
    );
  fc.assert(
    fc.property(compound, ([a, b, dirs, share]) => {
      // Share some parts so that later parts decide.
      const b2 = b.map((v, i) => (share[i] ? (a[i] as BsonValue) : v));
      const expected = compoundCompare(a, b2, dirs);
      const ka = encodeKey(a, dirs);
      const kb = encodeKey(b2, dirs);
      assert.equal(
        sign(Buffer.compare(ka, kb)),
        expected,
        `${a.map(show).join(',')} vs ${b2.map(show).join(',')} dirs ${dirs.join(',')}`,
      );
      // With RecordId suffixes, distinct keys keep their order; equal keys order by RecordId.
      const sa = encodeKeyWithSuffix(a, dirs, recordIdSuffix(5n));
      const sb = encodeKeyWithSuffix(b2, dirs, recordIdSuffix(3n));
      assert.equal(sign(Buffer.compare(sa, sb)), expected === 0 ? 1 : expected);
    }),
    { numRuns: 2500 },
  );
});

test('property: round trip through decodeKey restores types and representations', () => {
  const parts = fc.array(bsonValueArb(), { minLength: 1, maxLength: 3 });
  fc.assert(
    fc.property(
      parts,
      fc.array(fc.constantFrom<KeyDirection>(1, -1), { minLength: 3, maxLength: 3 }),
      (p, d) => assertRoundTrip(p, d.slice(0, p.length)),
    ),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(bsonNumberArb, fc.constantFrom<KeyDirection>(1, -1), (v, d) =>
      assertRoundTrip([v], [d]),
    ),
    { numRuns: 3000 },
  );
});

test('property: keyPartsLength finds the suffix; encodeKeyAndTypeInfo agrees with the separate calls', () => {
  const parts = fc.array(bsonValueArb({ maxDepth: 2 }), { minLength: 1, maxLength: 3 });
  fc.assert(
    fc.property(parts, fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), (p, rid) => {
      const dirs = p.map((_, i) => (i % 2 === 0 ? 1 : -1) as KeyDirection);
      const plain = encodeKey(p, dirs);
      const { key, typeInfo } = encodeKeyAndTypeInfo(p, dirs, recordIdSuffix(rid));
      assert.equal(keyPartsLength(key, dirs), plain.length);
      assert.equal(hex(key.subarray(0, plain.length)), hex(plain));
      assert.equal(readRecordIdSuffix(key), rid);
      assert.equal(hex(typeInfo), hex(encodeTypeInfo(p)));
      // decodeKey reads the parts and ignores the suffix.
      decodeKey(key, dirs, typeInfo).forEach((v, i) =>
        assert.ok(typedEquals(v, p[i] as BsonValue)),
      );
    }),
    { numRuns: 1000 },
  );
});

function inRange(key: Uint8Array, r: KeyScanBounds): boolean {
  if (r.start !== undefined) {
    const c = Buffer.compare(key, r.start);
    if (c < 0 || (c === 0 && !r.startInclusive)) return false;
  }
  if (r.end !== undefined) {
    const c = Buffer.compare(key, r.end);
    if (c > 0 || (c === 0 && !r.endInclusive)) return false;
  }
  return true;
}

test('property: keyScanBounds selects exactly the keys whose leading parts are within the bounds', () => {
  const small = fc.oneof(
    fc.integer({ min: -3, max: 3 }).map((n) => new Int32(n) as BsonValue),
    fc.constantFrom<BsonValue>(
      'a',
      'ab',
      '',
      null,
      new MinKey(),
      new MaxKey(),
      new Double(1.5),
      new Double(NaN),
    ),
  );
  const entry = fc.tuple(small, small, fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }));
  const bound = fc.option(
    fc.record({
      parts: fc.oneof(
        fc.array(small, { minLength: 1, maxLength: 1 }),
        fc.array(small, { minLength: 2, maxLength: 2 }),
      ),
      inclusive: fc.boolean(),
    }),
    { nil: undefined },
  );
  const dirsArb = fc.tuple(
    fc.constantFrom<KeyDirection>(1, -1),
    fc.constantFrom<KeyDirection>(1, -1),
  );
  fc.assert(
    fc.property(
      fc.array(entry, { maxLength: 12 }),
      bound,
      bound,
      dirsArb,
      (entries, low, high, dirs) => {
        const range = keyScanBounds(low, high, dirs);
        for (const [x, y, rid] of entries) {
          const parts = [x, y];
          const key = encodeKeyWithSuffix(parts, dirs, recordIdSuffix(rid));
          let expected = true;
          if (low !== undefined) {
            const c = compoundCompare(parts.slice(0, low.parts.length), low.parts, dirs);
            expected &&= c > 0 || (c === 0 && low.inclusive);
          }
          if (high !== undefined) {
            const c = compoundCompare(parts.slice(0, high.parts.length), high.parts, dirs);
            expected &&= c < 0 || (c === 0 && high.inclusive);
          }
          assert.equal(
            inRange(key, range),
            expected,
            `${parts.map(show).join(',')} low ${JSON.stringify(low?.inclusive)} high ${JSON.stringify(high?.inclusive)}`,
          );
        }
      },
    ),
    { numRuns: 1500 },
  );
});

// ---- hand-written cases --------------------------------------------------------------------

const d = (x: number): Double => new Double(x);
const dec = (s: string): Decimal128 => Decimal128.fromString(s);

test('numbers: a hand-ordered ladder across types and magnitudes', () => {
  const ladder: BsonValue[][] = [
    [d(NaN), dec('NaN'), dec('-NaN')],
    [d(-Infinity), dec('-Infinity')],
    [dec('-9.999999999999999999999999999999999E+6144')],
    [dec('-1E+400')],
    [d(-Number.MAX_VALUE)],
    [Long.MIN_VALUE, d(-(2 ** 63))],
    [Long.fromString('-9223372036854775807')],
    [Long.fromString('-9007199254740993')],
    [d(-(2 ** 53)), Long.fromString('-9007199254740992')],
    [new Int32(-2147483648), Long.fromInt(-2147483648), d(-2147483648)],
    [new Int32(-1), d(-1), Long.fromInt(-1), dec('-1.000')],
    [dec('-0.5000000000000000000000000000000001')],
    [d(-0.5), dec('-0.5')],
    [d(-0.1)],
    [dec('-0.1')],
    [dec('-1E-400')],
    [
      d(-0),
      d(0),
      new Int32(0),
      Long.ZERO,
      dec('0'),
      dec('-0'),
      dec('0E-6176'),
      dec('0E+6111'),
      nonCanonicalDecimal(true, 3, 'implicit'),
    ],
    [dec('1E-6176')],
    [dec('1E-400')],
    [d(Number.MIN_VALUE)],
    [d(2.2250738585072014e-308)],
    [dec('0.1')],
    [d(0.1)],
    [dec('0.1000000000000000055511151231257828')],
    [d(0.5), dec('0.50')],
    [dec('0.9999999999999999999999999999999999')],
    [
      new Int32(1),
      d(1),
      Long.ONE,
      dec('1'),
      dec('1.0'),
      dec('1.00'),
      decimalFromParts(false, 10n ** 33n, -33),
    ],
    [d(1 + 2 ** -52)],
    [d(1.5), dec('1.5')],
    [new Int32(255)],
    [new Int32(256)],
    [new Int32(2147483647), d(2147483647)],
    [d(2 ** 31), Long.fromNumber(2 ** 31)],
    [d(2 ** 53), Long.fromString('9007199254740992'), dec('9007199254740992')],
    [Long.fromString('9007199254740993'), dec('9007199254740993')],
    [dec('9007199254740993.5')],
    [d(2 ** 53 + 2), Long.fromString('9007199254740994')],
    [d(2 ** 63 - 1024)],
    [Long.fromString('9223372036854774785')],
    [Long.MAX_VALUE, dec('9223372036854775807')],
    [d(2 ** 63), dec('9223372036854775808')],
    [d(2 ** 64)],
    [d(1e23)],
    [dec('1E+23')],
    [d(Number.MAX_VALUE)],
    [dec('1.7976931348623159E+308')],
    [dec('1E+6144')],
    [dec('9.999999999999999999999999999999999E+6144')],
    [d(Infinity), dec('Infinity')],
  ];
  for (let i = 0; i < ladder.length; i++) {
    const rung = ladder[i] as BsonValue[];
    for (const v of rung) {
      assert.equal(hex(enc(v)), hex(enc(rung[0] as BsonValue)), `rung ${i}: ${show(v)}`);
      assertRoundTrip([v], [1]);
      assertRoundTrip([v], [-1]);
    }
    if (i > 0) assertOrder((ladder[i - 1] as BsonValue[])[0] as BsonValue, rung[0] as BsonValue);
    if (i > 0)
      assert.equal(
        compareBson((ladder[i - 1] as BsonValue[])[0] as BsonValue, rung[0] as BsonValue),
        -1,
        `rung ${i}`,
      );
  }
});

test('numbers: common values are short', () => {
  assert.equal(enc(new Int32(0)).length, 1);
  assert.equal(enc(new Int32(1)).length, 2);
  assert.equal(enc(new Int32(255)).length, 2);
  assert.equal(enc(new Int32(-100)).length, 2);
  assert.equal(enc(new Int32(65535)).length, 4);
  assert.equal(enc(new Int32(2147483647)).length, 6);
  assert.equal(enc(d(0.1)).length, 9);
  assert.equal(enc(d(Number.MIN_VALUE)).length, 4);
  assert.ok(enc(d(1e-310)).length <= 11);
  assert.ok(enc(Long.MAX_VALUE).length <= 23);
  assert.ok(enc(dec('-9.999999999999999999999999999999999E-6143')).length <= 33);
});

test('numbers: type info keeps -0, decimal exponents and non-canonical decimals', () => {
  assert.equal(encodeTypeInfo([new Int32(5), 'x', { a: new Int32(1) }]).length, 0);
  for (const v of [
    d(-0),
    d(0),
    dec('-0'),
    dec('0E+17'),
    dec('1.000'),
    dec('-0.0010'),
    nonCanonicalDecimal(false, 0, 'large'),
    nonCanonicalDecimal(true, -6, 'implicit'),
    dec('-NaN'),
    dec('-Infinity'),
  ]) {
    assertRoundTrip([v], [1]);
  }
  const [negZero] = decodeKey(enc(d(-0)), [1], encodeTypeInfo([d(-0)]));
  assert.ok(negZero instanceof Double && Object.is(negZero.value, -0));
});

test('non-canonical decimals are zero, as IEEE 754 and mongod define them', () => {
  for (const v of [
    nonCanonicalDecimal(false, 0, 'large'),
    nonCanonicalDecimal(false, -6, 'large'),
    nonCanonicalDecimal(true, 5, 'implicit'),
  ]) {
    assert.equal(hex(enc(v)), hex(enc(new Int32(0))), show(v));
  }
});

test('strings: UTF-8 byte order, NUL and 0x01 escaped, symbols equal to strings', () => {
  const ordered = [
    '',
    '\0',
    '\0\0',
    '\0a',
    '\x01',
    '\x02',
    'a',
    'a\0',
    'a\x01',
    'ab',
    'b',
    '\x7f',
    '\x80',
    '\u07ff',
    '\ud7ff',
    '\ue000',
    '\uff5e',
    '\uffff',
    '\u{10000}',
    '\u{1f600}',
    '\u{10ffff}',
  ];
  for (let i = 1; i < ordered.length; i++)
    assertOrder(ordered[i - 1] as string, ordered[i] as string);
  assert.equal(hex(enc('a\0b')), 'c061010162' + '00');
  assert.equal(hex(enc(new BSONSymbol('abc'))), hex(enc('abc')));
  assertRoundTrip([new BSONSymbol('x\0y'), 'x\0y'], [1, -1]);
  const long = 'x\0'.repeat(40) + '\u{1f600}';
  assertOrder(long, long + '\0');
  assertRoundTrip([long], [-1]);
  // Lone surrogates are not valid UTF-8: written as U+FFFD, like the BSON serializer does.
  assert.equal(hex(enc('\ud800')), hex(enc('\ufffd')));
});

test('objects: type rank before field name, then value; arrays element by element', () => {
  const ordered: BsonValue[] = [
    {},
    { a: null },
    { b: null },
    { a: new Int32(5) },
    { b: new Int32(1) },
    { a: new Int32(5), b: new Int32(1) },
    { a: 'x' },
    { a: {} },
    [],
    [new MinKey()],
    [null],
    [new Int32(1)],
    [new Int32(1), new Int32(2)],
    [new Int32(2)],
    ['a'],
  ];
  for (let i = 1; i < ordered.length; i++)
    assertOrder(ordered[i - 1] as BsonValue, ordered[i] as BsonValue);
  assert.equal(hex(enc([new Int32(1), d(2)])), hex(enc([Long.ONE, dec('2.0')])));
  const withProto = documentFrom([
    ['__proto__', new Int32(1)],
    ['a', 'b'],
  ]);
  assertRoundTrip([withProto], [1]);
  assert.equal(
    Object.getPrototypeOf(decodeKey(enc(withProto), [1], encodeTypeInfo([withProto]))[0]),
    Object.prototype,
  );
});

test('DBRef compares and encodes as its document, and decodes back to a DBRef', () => {
  const oid = new ObjectId('0123456789abcdef01234567');
  const ref = new DBRef('coll', oid, 'db', { extra: new Int32(1) });
  const asDoc = documentFrom([
    ['$ref', 'coll'],
    ['$id', oid],
    ['$db', 'db'],
    ['extra', new Int32(1)],
  ]);
  assert.equal(hex(enc(ref)), hex(enc(asDoc)));
  assertRoundTrip([ref, asDoc], [1, 1]);
  const dotted = new DBRef('a', oid);
  dotted.collection = 'x.y';
  assertRoundTrip([dotted], [1]);
});

test('binData by length, then subtype, then bytes; long lengths escaped', () => {
  const ordered = [
    new Binary(new Uint8Array([]), 0),
    new Binary(new Uint8Array([]), 4),
    new Binary(new Uint8Array([9]), 0),
    new Binary(new Uint8Array([1]), 5),
    new Binary(new Uint8Array([0, 0]), 0),
    new Binary(new Uint8Array(254).fill(0xff), 0),
    new Binary(new Uint8Array(255), 0),
    new Binary(new Uint8Array(256), 0),
    new Binary(new Uint8Array(70000), 0),
  ];
  for (let i = 1; i < ordered.length; i++)
    assertOrder(ordered[i - 1] as Binary, ordered[i] as Binary);
  for (const b of ordered) assertRoundTrip([b], [-1]);
});

test('other scalars: ObjectId, bool, Date (negative and invalid), Timestamp (unsigned), regex, code', () => {
  const ordered: BsonValue[] = [
    new ObjectId('000000000000000000000000'),
    new ObjectId('0000000000000000000000ff'),
    new ObjectId('ff0000000000000000000000'),
    false,
    true,
    new Date(NaN),
    new Date(-8.64e15),
    new Date(-(2 ** 32) - 1),
    new Date(-1),
    new Date(0),
    new Date(2 ** 32),
    new Date(8.64e15),
    new Timestamp({ t: 0, i: 0 }),
    new Timestamp({ t: 0, i: 2 ** 32 - 1 }),
    new Timestamp({ t: 1, i: 0 }),
    new Timestamp({ t: 2 ** 31, i: 0 }),
    new Timestamp({ t: 2 ** 32 - 1, i: 2 ** 32 - 1 }),
    new BSONRegExp('', ''),
    new BSONRegExp('', 'i'),
    new BSONRegExp('a', ''),
    new BSONRegExp('a', 'im'),
    new BSONRegExp('a', 'm'),
    new BSONRegExp('ab', ''),
    new Code(''),
    new Code('a'),
    new Code('', {}),
    new Code('', { a: new Int32(1) }),
    new Code('a', {}),
    new MaxKey(),
  ];
  for (let i = 1; i < ordered.length; i++)
    assertOrder(ordered[i - 1] as BsonValue, ordered[i] as BsonValue);
  for (const v of ordered) assertRoundTrip([v], [-1]);
  assert.equal(compareBson(new Date(NaN), new Date(NaN)), 0);
  assert.equal(hex(enc(new Date(NaN))), hex(enc(new Date(NaN))));
});

test('cross-type order: every type rank in sequence, both directions', () => {
  const ordered: BsonValue[] = [
    new MinKey(),
    undefined,
    null,
    d(NaN),
    new Int32(1),
    '',
    {},
    [],
    new Binary(new Uint8Array([])),
    new ObjectId('000000000000000000000000'),
    false,
    new Date(NaN),
    new Timestamp({ t: 0, i: 0 }),
    new BSONRegExp('', ''),
    new Code('zzz'),
    new Code('', {}),
    new MaxKey(),
  ];
  for (let i = 1; i < ordered.length; i++)
    assertOrder(ordered[i - 1] as BsonValue, ordered[i] as BsonValue);
  for (const v of ordered) assertRoundTrip([v], [1]);
});

test('prefix-freeness: a descending part followed by more parts keeps its order', () => {
  // 'a' is a byte prefix of 'a\0' in UTF-8; the escaped encoding must keep them apart.
  const dirs: KeyDirection[] = [-1, 1];
  const k1 = encodeKey(['a\0', new MinKey()], dirs);
  const k2 = encodeKey(['a', new MaxKey()], dirs);
  assert.equal(sign(Buffer.compare(k1, k2)), -1);
  assert.equal(sign(Buffer.compare(encodeKey(['a'], [-1]), encodeKey(['a\0'], [-1]))), 1);
});

test('keyPrefixUpperBound and keyScanBounds edge cases', () => {
  assert.equal(keyPrefixUpperBound(new Uint8Array([])), undefined);
  assert.equal(keyPrefixUpperBound(new Uint8Array([0xff, 0xff])), undefined);
  assert.equal(hex(keyPrefixUpperBound(new Uint8Array([1, 0xff, 0xff])) ?? new Uint8Array()), '02');
  assert.equal(hex(keyPrefixUpperBound(new Uint8Array([1, 2])) ?? new Uint8Array()), '0103');
  // All keys whose first part equals 'a' (any second part, any suffix).
  const r = keyScanBounds(
    { parts: ['a'], inclusive: true },
    { parts: ['a'], inclusive: true },
    [1, -1],
  );
  for (const second of [new MinKey(), null, new Int32(1), 'zz', new MaxKey()]) {
    assert.ok(
      inRange(encodeKeyWithSuffix(['a', second], [1, -1], recordIdSuffix(2n ** 63n - 1n)), r),
    );
  }
  assert.ok(!inRange(encodeKey(['a\0', null], [1, -1]), r));
  assert.ok(!inRange(encodeKey(['', null], [1, -1]), r));
  const open = keyScanBounds(undefined, undefined);
  assert.equal(open.start, undefined);
  assert.equal(open.end, undefined);
});

test('bad input to the decoder is an invariant failure, not a crash or a wrong value', () => {
  assert.throws(() => decodeKey(new Uint8Array([0x01]), [1]), /invariant/);
  assert.throws(() => decodeKey(new Uint8Array([0xc0, 0x61]), [1]), /invariant/);
  // 1.5 with type info int32 is not an int32.
  assert.throws(() => decodeKey(enc(d(1.5)), [1], new Uint8Array()), /invariant/);
  assert.throws(() => encodeKey([new Map() as unknown as BsonValue]), /invariant/);
});
