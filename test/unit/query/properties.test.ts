// Property tests: the matcher against compareBson, and operators against their definitions
// ($in as an $or of $eq, $not/$ne/$nin as negations), projection idempotence, sort antisymmetry.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { BSONRegExp, Decimal128, Double, Int32, Long } from 'bson';
import { compareBson } from '../../../src/bson/compare.js';
import { canonicalTypeRank } from '../../../src/bson/types.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { compileFilter } from '../../../src/query/match/index.js';
import { compileProjection } from '../../../src/query/projection/index.js';
import { compileSort } from '../../../src/query/sort.js';

const number: fc.Arbitrary<BsonValue> = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map((n) => new Int32(n)),
  fc.double({ noNaN: true, min: -1e6, max: 1e6 }).map((n) => new Double(n)),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => Long.fromBigInt(n)),
  fc.integer({ min: -100000, max: 100000 }).map((n) => Decimal128.fromString(`${n}E-2`)),
);
const scalar: fc.Arbitrary<BsonValue> = fc.oneof(
  number,
  fc.string({ maxLength: 4 }),
  fc.boolean(),
  fc.constant(null),
  fc.integer({ min: 0, max: 1e12 }).map((t) => new Date(t)),
);
const value: fc.Arbitrary<BsonValue> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.record({ y: scalar }) as fc.Arbitrary<BsonValue> },
);
/** A document with field x, or without it. */
const docWithX: fc.Arbitrary<BsonDocument> = fc.oneof(
  value.map((v): BsonDocument => ({ _id: new Int32(0), x: v })),
  fc.constant<BsonDocument>({ _id: new Int32(0) }),
);

const matches = (filter: BsonDocument, doc: BsonDocument): boolean =>
  compileFilter(filter).matches(doc);

test('property: $gt on scalars of one bracket agrees with compareBson', () => {
  fc.assert(
    fc.property(scalar, scalar, (a, b) => {
      fc.pre(b !== null && canonicalTypeRank(a) === canonicalTypeRank(b));
      assert.equal(matches({ x: { $gt: b } }, { x: a }), compareBson(a, b) > 0);
      assert.equal(matches({ x: { $lte: b } }, { x: a }), compareBson(a, b) <= 0);
    }),
    { numRuns: 500 },
  );
});

test('property: comparisons never cross type brackets (except null/missing)', () => {
  fc.assert(
    fc.property(scalar, scalar, (a, b) => {
      fc.pre(a !== null && b !== null && canonicalTypeRank(a) !== canonicalTypeRank(b));
      for (const op of ['$gt', '$gte', '$lt', '$lte', '$eq'])
        assert.equal(matches({ x: { [op]: b } }, { x: a }), false, op);
    }),
    { numRuns: 300 },
  );
});

test('property: $in is the $or of $eq', () => {
  fc.assert(
    fc.property(docWithX, fc.array(value, { minLength: 1, maxLength: 4 }), (doc, list) => {
      const viaIn = matches({ x: { $in: list } }, doc);
      const viaOr = matches({ $or: list.map((v) => ({ x: { $eq: v } })) }, doc);
      assert.equal(viaIn, viaOr);
    }),
    { numRuns: 500 },
  );
});

test('property: $ne, $nin and $not negate $eq, $in and the inner operator', () => {
  fc.assert(
    fc.property(docWithX, value, fc.array(value, { maxLength: 3 }), (doc, v, list) => {
      assert.equal(matches({ x: { $ne: v } }, doc), !matches({ x: { $eq: v } }, doc));
      assert.equal(matches({ x: { $nin: list } }, doc), !matches({ x: { $in: list } }, doc));
      assert.equal(matches({ x: { $not: { $gte: v } } }, doc), !matches({ x: { $gte: v } }, doc));
      assert.equal(matches({ $nor: [{ x: v }] }, doc), !matches({ x: v }, doc));
    }),
    { numRuns: 500 },
  );
});

test('property: a literal pattern, escaped, matches its own string', () => {
  const escape = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), (s) => {
      fc.pre(!s.includes('\0'));
      assert.equal(matches({ x: { $regex: `^${escape(s)}$` } }, { x: s }), true);
      assert.equal(matches({ x: new BSONRegExp(escape(s), 's') }, { x: `..${s}..` }), true);
    }),
    { numRuns: 300 },
  );
});

test('property: an inclusion projection is idempotent', () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), value),
      fc.subarray(['a', 'b', 'c', 'x']),
      (fields, keep) => {
        const doc: BsonDocument = { _id: new Int32(1), ...fields };
        const spec: BsonDocument = Object.fromEntries(keep.map((k) => [k, new Int32(1)]));
        const p = compileProjection(spec);
        const once = p.apply(doc);
        assert.equal(compareBson(p.apply(once), once), 0);
      },
    ),
    { numRuns: 300 },
  );
});

test('property: the sort comparator is antisymmetric and agrees with compareBson on scalars', () => {
  const sort = compileSort({ x: new Int32(1) });
  fc.assert(
    fc.property(docWithX, docWithX, (a, b) => {
      assert.equal(Math.sign(sort.compare(a, b)) + Math.sign(sort.compare(b, a)), 0);
    }),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(scalar, scalar, (a, b) => {
      assert.equal(Math.sign(sort.compare({ x: a }, { x: b })) || 0, compareBson(a, b));
    }),
    { numRuns: 300 },
  );
});
