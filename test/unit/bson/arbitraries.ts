// fast-check generators for BSON values as the server holds them (Int32/Double/Long/
// Decimal128 kept distinct, see CONTRIBUTING), biased toward edge values and toward
// collisions (equal values of different numeric types, shared string prefixes, small byte
// alphabets) so that order and equality properties meet the interesting cases often.
// Also `typedEquals`: equality that tells types and representations apart (1 vs 1.0,
// -0 vs 0, 1.0m vs 1.00m), for round-trip tests where compareBson is too lenient.

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
import { documentFrom } from '../../../src/bson/document.js';
import { bsonTypeName } from '../../../src/bson/types.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';

// ---- numbers -------------------------------------------------------------------------------

/** A Decimal128 from its parts (coefficient < 2^113; exponent q in [-6176, 6111]). */
export function decimalFromParts(negative: boolean, coefficient: bigint, q: number): Decimal128 {
  const hi = (negative ? 1n << 63n : 0n) | (BigInt(q + 6176) << 49n) | (coefficient >> 64n);
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, coefficient & 0xffffffffffffffffn, true);
  view.setBigUint64(8, hi, true);
  return new Decimal128(bytes);
}

/** A non-canonical decimal128: coefficient above 10^34 - 1, whose value IEEE defines as zero. */
export function nonCanonicalDecimal(
  negative: boolean,
  q: number,
  form: 'large' | 'implicit',
): Decimal128 {
  if (form === 'large') return decimalFromParts(negative, 10n ** 34n + 7n, q);
  // The "11" combination form: coefficient 0b100 followed by 111 bits, always > 10^34.
  const hi = (negative ? 1n << 63n : 0n) | (3n << 61n) | (BigInt(q + 6176) << 47n) | 5n;
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, 9n, true);
  view.setBigUint64(8, hi, true);
  return new Decimal128(bytes);
}

/** The exact decimal form of a finite double as a Decimal128, when it fits in 34 digits. */
export function exactDecimalOfDouble(d: number): Decimal128 | undefined {
  if (!Number.isFinite(d)) return undefined;
  if (d === 0) return decimalFromParts(Object.is(d, -0), 0n, 0);
  let m = Math.abs(d);
  let e = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    e--;
  }
  // |d| = m × 2^e = m × 5^-e × 10^e
  let coefficient = BigInt(m) * 5n ** BigInt(-e);
  let q = e;
  while (coefficient % 10n === 0n && coefficient > 0n) {
    coefficient /= 10n;
    q++;
  }
  if (coefficient >= 10n ** 34n || q < -6176 || q > 6111) return undefined;
  return decimalFromParts(d < 0, coefficient, q);
}

const int32Edges = [
  0, 1, -1, 2, 127, 128, 255, 256, 1000, -1000, 2147483647, -2147483648, -2147483647,
];

export const int32Arb: fc.Arbitrary<Int32> = fc
  .oneof(fc.constantFrom(...int32Edges), fc.integer({ min: -300, max: 300 }), fc.integer())
  .map((n) => new Int32(n));

const two53 = 2n ** 53n;
const int64Edges = [
  0n,
  1n,
  -1n,
  two53,
  two53 + 1n,
  two53 - 1n,
  -two53,
  -two53 - 1n,
  two53 + 2n,
  2n ** 62n + 1n,
  2n ** 63n - 1n,
  -(2n ** 63n),
  -(2n ** 63n) + 1n,
  10n ** 18n,
  1700000000000000001n,
];

export const int64Arb: fc.Arbitrary<Long> = fc
  .oneof(
    fc.constantFrom(...int64Edges),
    fc.bigInt({ min: -1000n, max: 1000n }),
    // Around 2^53 .. 2^64, where not every integer is a double.
    fc
      .tuple(fc.integer({ min: 53, max: 63 }), fc.bigInt({ min: -4096n, max: 4096n }), fc.boolean())
      .map(([p, d, neg]) => {
        const v = 2n ** BigInt(p) + d;
        const capped = v > 2n ** 63n - 1n ? 2n ** 63n - 1n : v;
        return neg ? -capped : capped;
      }),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  )
  .map((b) => Long.fromBigInt(b));

const doubleEdges = [
  0,
  -0,
  1,
  -1,
  0.5,
  0.1,
  -0.1,
  1.5,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  2 ** 63,
  -(2 ** 63),
  2 ** 64,
  2 ** -16,
  2 ** -17,
  2 ** 63 - 1024,
  1e308,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  -Number.MIN_VALUE,
  2.2250738585072014e-308,
  2.225073858507201e-308,
  1e-320,
  NaN,
  Infinity,
  -Infinity,
  9007199254740993,
  1e23,
  0.30000000000000004,
];

export const doubleArb: fc.Arbitrary<Double> = fc
  .oneof(
    fc.constantFrom(...doubleEdges),
    fc.integer({ min: -300, max: 300 }),
    fc.integer({ min: -300, max: 300 }).map((n) => n / 8),
    fc.double(),
    fc.double({ min: -1e-300, max: 1e-300 }),
  )
  .map((x) => new Double(x));

const decimalEdges = [
  'NaN',
  'Infinity',
  '-Infinity',
  '0',
  '-0',
  '0E-6176',
  '0E+6111',
  '-0E+3',
  '1',
  '1.0',
  '1.00',
  '-1.000',
  '0.1',
  '-0.1',
  '0.5',
  '9007199254740993',
  '9007199254740993.5',
  '9223372036854775807',
  '9223372036854775808',
  '1E+400',
  '1E-400',
  '1E+6144',
  '9.999999999999999999999999999999999E+6144',
  '1E-6176',
  '-1E-6176',
  '1E+23',
  '1E+22',
  '4.9406564584124654E-324',
  '1.7976931348623157E+308',
  '1.7976931348623159E+308',
  '19.99',
  '0.30000000000000004',
  '123456789012345678901234567890.1234',
];

export const decimalArb: fc.Arbitrary<Decimal128> = fc.oneof(
  fc.constantFrom(...decimalEdges).map((s) => Decimal128.fromString(s)),
  fc
    .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10000n }), fc.integer({ min: -8, max: 8 }))
    .map(([neg, c, q]) => decimalFromParts(neg, c, q)),
  fc
    .tuple(
      fc.boolean(),
      fc.bigInt({ min: 0n, max: 10n ** 34n - 1n }),
      fc.integer({ min: -6176, max: 6111 }),
    )
    .map(([neg, c, q]) => decimalFromParts(neg, c, q)),
  fc
    .tuple(
      fc.boolean(),
      fc.bigInt({ min: 1n, max: 10n ** 34n - 1n }),
      fc.integer({ min: -40, max: 20 }),
    )
    .map(([neg, c, q]) => decimalFromParts(neg, c, q)),
  fc
    .tuple(
      fc.boolean(),
      fc.integer({ min: -30, max: 30 }),
      fc.constantFrom<'large' | 'implicit'>('large', 'implicit'),
    )
    .map(([neg, q, form]) => nonCanonicalDecimal(neg, q, form)),
  doubleArb.map((d) => exactDecimalOfDouble(d.value) ?? Decimal128.fromString('NaN')),
);

/** One numeric value in every type that can hold it exactly (int32, int64, double, decimal). */
export const numericAliasesArb: fc.Arbitrary<BsonValue[]> = fc.oneof(
  fc
    .integer({ min: -100000, max: 100000 })
    .map((n) => [
      new Int32(n),
      Long.fromInt(n),
      new Double(n),
      Decimal128.fromString(String(n)),
      decimalFromParts(n < 0, BigInt(Math.abs(n)) * 1000n, -3),
    ]),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((b) => {
    const out: BsonValue[] = [Long.fromBigInt(b), Decimal128.fromString(b.toString())];
    if (BigInt(Number(b)) === b) out.push(new Double(Number(b)));
    return out;
  }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => {
    const out: BsonValue[] = [new Double(d)];
    const dec = exactDecimalOfDouble(d);
    if (dec) out.push(dec);
    if (Number.isInteger(d) && Math.abs(d) < 2 ** 63) out.push(Long.fromBigInt(BigInt(d)));
    if (Number.isInteger(d) && Math.abs(d) < 2 ** 31) out.push(new Int32(d));
    return out;
  }),
  fc.constant<BsonValue[]>([new Double(NaN), Decimal128.fromString('NaN')]),
  fc.constant<BsonValue[]>([
    new Double(-0),
    new Double(0),
    new Int32(0),
    Long.ZERO,
    Decimal128.fromString('-0'),
    Decimal128.fromString('0E+10'),
    nonCanonicalDecimal(false, -6, 'large'),
  ]),
);

export const bsonNumberArb: fc.Arbitrary<Int32 | Long | Double | Decimal128> = fc.oneof(
  int32Arb,
  int64Arb,
  doubleArb,
  decimalArb,
);

// ---- strings and other scalars -------------------------------------------------------------

const trickyUnits = [
  'a',
  'b',
  '\0',
  '\x01',
  '\x02',
  '\x7f',
  '\x80',
  'é',
  '\u07ff',
  '\u0800',
  '\ud7ff',
  '\ue000',
  '\uffff',
  '\u{10000}',
  '\u{1f600}',
  '\u{10ffff}',
];

/** Valid strings (no lone surrogates: BSON strings are UTF-8), with NUL, 0x01 and astral code points. */
export const bsonStringArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.constantFrom(...trickyUnits), maxLength: 5 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({
    unit: fc.constantFrom('a', 'b', '\0', '\x01', '\u{1f600}'),
    minLength: 45,
    maxLength: 70,
  }),
);

const fieldNameArb = fc.constantFrom(
  'a',
  'b',
  '',
  'ab',
  '_id',
  '1',
  '10',
  '__proto__',
  'constructor',
  'é',
  '\u{1f600}',
  '$x',
);

const bytesArb = fc.oneof(
  fc.uint8Array({ min: 0, max: 2, maxLength: 4 }),
  fc.uint8Array({ maxLength: 20 }),
  fc.uint8Array({ min: 0, max: 1, minLength: 250, maxLength: 260 }),
);

export const binaryArb: fc.Arbitrary<Binary> = fc
  .tuple(bytesArb, fc.constantFrom(0, 1, 3, 4, 5, 0x80, 0xff))
  .map(([b, sub]) => new Binary(b, sub));

export const objectIdArb: fc.Arbitrary<ObjectId> = fc
  .oneof(
    fc.uint8Array({ min: 0, max: 1, minLength: 12, maxLength: 12 }),
    fc.uint8Array({ minLength: 12, maxLength: 12 }),
  )
  .map((b) => new ObjectId(b));

const dateMsMax = 8.64e15;
export const dateArb: fc.Arbitrary<Date> = fc
  .oneof(
    fc.constantFrom(0, -1, 1, dateMsMax, -dateMsMax, 2 ** 32, -(2 ** 32), NaN),
    fc.integer({ min: -dateMsMax, max: dateMsMax }),
    fc.integer({ min: -5000, max: 5000 }),
  )
  .map((ms) => new Date(ms));

const uint32Arb = fc.oneof(
  fc.constantFrom(0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1),
  fc.nat({ max: 3 }),
  fc.integer({ min: 0, max: 2 ** 32 - 1 }),
);
export const timestampArb: fc.Arbitrary<Timestamp> = fc
  .tuple(uint32Arb, uint32Arb)
  .map(([t, i]) => new Timestamp({ t, i }));

const noNulString = bsonStringArb.map((s) => s.replace(/\0/g, ''));
export const regexArb: fc.Arbitrary<BSONRegExp> = fc
  .tuple(noNulString, fc.subarray(['i', 'l', 'm', 's', 'u', 'x']))
  .map(([p, o]) => new BSONRegExp(p, o.join('')));

export const bsonScalarArb: fc.Arbitrary<BsonValue> = fc.oneof(
  fc.constantFrom<BsonValue>(null, undefined, true, false, new MinKey(), new MaxKey()),
  bsonNumberArb,
  bsonStringArb,
  bsonStringArb.map((s) => new BSONSymbol(s)),
  binaryArb,
  objectIdArb,
  dateArb,
  timestampArb,
  regexArb,
  bsonStringArb.map((s) => new Code(s)),
);

// ---- documents and arrays ------------------------------------------------------------------

export interface BsonValueArbOptions {
  /** Nesting depth of documents and arrays (default 3). */
  readonly maxDepth?: number;
  /** Fields per document and elements per array (default 4). */
  readonly maxLength?: number;
}

/** Any BSON value: scalars, documents (incl. DBRef), arrays, code with scope. */
export function bsonValueArb(options: BsonValueArbOptions = {}): fc.Arbitrary<BsonValue> {
  const maxLength = options.maxLength ?? 4;
  const tree = fc.letrec<{ value: BsonValue; doc: BsonDocument; arr: BsonValue[] }>((tie) => ({
    value: fc.oneof(
      { maxDepth: options.maxDepth ?? 3, depthSize: 'small' },
      bsonScalarArb,
      tie('doc'),
      tie('arr'),
      fc.tuple(bsonStringArb, tie('doc')).map(([code, scope]) => new Code(code, scope)),
      fc
        .tuple(
          fc.constantFrom('coll', 'c', 'x'),
          tie('value'),
          fc.constantFrom(undefined, 'db'),
          tie('doc'),
        )
        .map(
          ([coll, id, db, fields]) =>
            new DBRef(coll, id as ObjectId, db, withoutDollarRefKeys(fields)),
        ),
    ),
    doc: fc
      .array(fc.tuple(fieldNameArb, tie('value')), { maxLength })
      .map((entries) => documentFrom(entries)),
    arr: fc.array(tie('value'), { maxLength }),
  }));
  return tree.value;
}

function withoutDollarRefKeys(doc: BsonDocument): BsonDocument {
  return documentFrom(
    Object.entries(doc).filter(([k]) => k !== '$ref' && k !== '$id' && k !== '$db'),
  );
}

export const bsonDocumentArb: fc.Arbitrary<BsonDocument> = fc
  .array(fc.tuple(fieldNameArb, bsonValueArb({ maxDepth: 2 })), { maxLength: 4 })
  .map((entries) => documentFrom(entries));

// ---- typed equality ------------------------------------------------------------------------

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function documentsEqual(a: BsonDocument, b: BsonDocument): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (k !== kb[i]) return false;
    if (!typedEquals(a[k] as BsonValue, b[k] as BsonValue)) return false;
  }
  return true;
}

/**
 * Same BSON type and same representation: Int32(1) != Double(1), Double(-0) != Double(0),
 * Decimal128 1.0 != 1.00 (compared by bytes), NaN == NaN, documents in field order.
 */
export function typedEquals(a: BsonValue, b: BsonValue): boolean {
  const type = bsonTypeName(a);
  if (type !== bsonTypeName(b)) return false;
  switch (type) {
    case 'minKey':
    case 'maxKey':
    case 'null':
    case 'undefined':
      return true;
    case 'bool':
    case 'string':
      return a === b;
    case 'int':
      return (a as Int32).value === (b as Int32).value;
    case 'double':
      return Object.is((a as Double).value, (b as Double).value);
    case 'long':
      return (a as Long).equals(b as Long);
    case 'decimal':
      return bytesEqual((a as Decimal128).bytes, (b as Decimal128).bytes);
    case 'symbol':
      return (a as BSONSymbol).value === (b as BSONSymbol).value;
    case 'binData': {
      const x = a as Binary;
      const y = b as Binary;
      return (
        x.sub_type === y.sub_type &&
        bytesEqual(x.buffer.subarray(0, x.position), y.buffer.subarray(0, y.position))
      );
    }
    case 'objectId':
      return (a as ObjectId).equals(b as ObjectId);
    case 'date':
      return Object.is((a as Date).getTime(), (b as Date).getTime());
    case 'timestamp':
      return (a as Timestamp).t === (b as Timestamp).t && (a as Timestamp).i === (b as Timestamp).i;
    case 'regex':
      return (
        (a as BSONRegExp).pattern === (b as BSONRegExp).pattern &&
        (a as BSONRegExp).options === (b as BSONRegExp).options
      );
    case 'javascript':
      return (a as Code).code === (b as Code).code;
    case 'javascriptWithScope':
      return (
        (a as Code).code === (b as Code).code &&
        documentsEqual((a as Code).scope as BsonDocument, (b as Code).scope as BsonDocument)
      );
    case 'array': {
      const x = a as BsonValue[];
      const y = b as BsonValue[];
      return x.length === y.length && x.every((v, i) => typedEquals(v, y[i] as BsonValue));
    }
    case 'object': {
      if (a instanceof DBRef || b instanceof DBRef) {
        if (!(a instanceof DBRef && b instanceof DBRef)) return false;
        return (
          a.collection === b.collection &&
          a.db === b.db &&
          typedEquals(a.oid as BsonValue, b.oid as BsonValue) &&
          documentsEqual(a.fields as BsonDocument, b.fields as BsonDocument)
        );
      }
      return documentsEqual(a as BsonDocument, b as BsonDocument);
    }
    case 'dbPointer':
      return false;
  }
}
