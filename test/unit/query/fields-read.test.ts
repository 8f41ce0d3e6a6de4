// Matching a stored record on the fields its filter reads (src/query/exec/stages.ts,
// matchRecord): decodeFields gives those fields exactly as decoding the whole record does
// (repeated names, DBRef-shaped values, `__proto__`, the undefined type), and a filter whose
// fields are known (topLevelFieldsRead) answers on them alone as on the whole document.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Double, Int32, serialize } from 'bson';
import type { Document } from 'bson';
import {
  FieldNames,
  decodeDocument,
  decodeFields,
  encodeDocument,
} from '../../../src/bson/codec.js';
import { documentFrom, getOwn, hasOwn, setOwn } from '../../../src/bson/document.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { compileFilter } from '../../../src/query/match/index.js';
import type { Matcher } from '../../../src/query/match/index.js';
import { topLevelFieldsRead } from '../../../src/query/match/fields.js';
import { bsonDocumentArb, bsonValueArb } from '../bson/arbitraries.js';
import { filterArb } from './filter-arbitraries.js';

/** The element bytes of `name: value`. */
function element(name: string, value: BsonValue): Buffer {
  const one: BsonDocument = {};
  setOwn(one, name, value);
  const bytes = Buffer.from(serialize(one, { checkKeys: false, ignoreUndefined: false }));
  return bytes.subarray(4, bytes.length - 1);
}

function docOf(elements: readonly Buffer[]): Buffer {
  const body = Buffer.concat(elements);
  const out = Buffer.alloc(body.length + 5);
  out.writeInt32LE(out.length, 0);
  body.copy(out, 4);
  return out;
}

/** Record bytes: a generated document, perhaps a name repeated, perhaps an undefined (0x06). */
const recordArb: fc.Arbitrary<Buffer> = fc
  .record({
    doc: bsonDocumentArb,
    repeat: fc.option(bsonValueArb({ maxDepth: 1 }), { nil: undefined }),
    undefinedAt: fc.option(fc.nat(4), { nil: undefined }),
  })
  .map(({ doc, repeat, undefinedAt }) => {
    const entries = Object.entries(doc);
    const elements = entries.map(([k, v]) => element(k, v));
    const first = entries[0];
    if (repeat !== undefined && first !== undefined) elements.push(element(first[0], repeat));
    if (undefinedAt !== undefined)
      elements.splice(
        Math.min(undefinedAt, elements.length),
        0,
        Buffer.from([0x06, 0x61, 0x00]), // a: undefined
      );
    return docOf(elements);
  });

const names = ['a', 'b', '', '_id', '10', '__proto__', 'constructor', 'é', 'ab', 'zz'];

test('decodeFields decodes the named fields as decoding the whole document does', () => {
  fc.assert(
    fc.property(recordArb, fc.subarray(names), (bytes, wanted) => {
      const whole = decodeDocument(bytes);
      const expected = documentFrom(
        Object.keys(whole)
          .filter((k) => wanted.includes(k))
          .map((k) => [k, getOwn(whole, k) as BsonValue] as const),
      );
      const got = decodeFields(bytes, new FieldNames(wanted));
      assert.deepEqual(Buffer.from(encodeDocument(got)), Buffer.from(encodeDocument(expected)));
      for (const k of names) assert.equal(hasOwn(got, k), hasOwn(expected, k), k);
    }),
    { numRuns: 400 },
  );
});

// ---- filters ------------------------------------------------------------------------------

function compiled(filter: BsonDocument): Matcher | undefined {
  try {
    return compileFilter(filter);
  } catch {
    return undefined; // a filter mongod refuses: nothing to compare
  }
}

function outcome(m: Matcher, doc: BsonDocument): [boolean | string, string | undefined] {
  const details: { elemMatchKey?: string | undefined } = {};
  try {
    return [m.matches(doc, details), details.elemMatchKey];
  } catch (e) {
    return [`throws ${(e as { code?: unknown }).code}`, undefined];
  }
}

test('a filter answers on the fields it reads as on the whole document', () => {
  let compared = 0;
  fc.assert(
    fc.property(recordArb, filterArb, (bytes, filter) => {
      const m = compiled(filter);
      if (m === undefined) return;
      assert.notEqual(m.fieldsRead, undefined, JSON.stringify(filter));
      const sparse = decodeFields(bytes, new FieldNames(m.fieldsRead ?? []));
      assert.deepEqual(outcome(m, sparse), outcome(m, decodeDocument(bytes)));
      compared++;
    }),
    { numRuns: 600 },
  );
  assert.ok(compared > 300, `only ${compared} filters compiled`);
});

test('topLevelFieldsRead: the first component of each path; undefined for whole-document nodes', () => {
  const read = (f: Document, options = {}) =>
    topLevelFieldsRead(compileFilter(f as BsonDocument, options).tree)?.sort();
  assert.deepEqual(
    read({ 'a.b': 1, $or: [{ c: 1 }, { d: { $elemMatch: { e: 1, 'f.g': 2 } } }], a: 2 }),
    ['a', 'c', 'd'],
  );
  assert.deepEqual(read({}), []);
  assert.deepEqual(
    read({ $nor: [{ x: { $not: { $size: new Int32(1) } } }], y: { $exists: false } }),
    ['x', 'y'],
  );
  const compileExpr = () => () => true;
  assert.equal(read({ a: 1, $expr: { $eq: ['$b', 1] } }, { compileExpr }), undefined);
  assert.equal(read({ $or: [{ a: 1 }, { $jsonSchema: { required: ['b'] } }] }), undefined);
  assert.equal(read({ $sampleRate: new Double(0.5) }), undefined);
});
