// The document codec: DBRef-shaped documents ({$ref, $id, $db}) decode as plain documents with
// their fields in the order of the bytes (MongoDB preserves field order; to it a DBRef is an
// ordinary document), wherever they stand: top level, nested, in arrays, inside one another.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  BSONRegExp,
  Binary,
  Code,
  DBRef,
  Int32,
  MinKey,
  ObjectId,
  deserialize,
  serialize,
} from 'bson';
import type { Document } from 'bson';
import {
  decodeDocument,
  decodeOptions,
  encodeDocument,
  joinDocuments,
  keepSequenceBytes,
  sequenceSourceBytes,
  withIdFirst,
} from '../../../src/bson/codec.js';
import type { BsonDocument } from '../../../src/bson/types.js';
import { bsonDocumentArb } from './arbitraries.js';

/** Encodes `doc` with the bson package, decodes it with the codec, and re-encodes the result. */
function roundTrip(doc: Document): { decoded: BsonDocument; same: boolean } {
  const bytes = serialize(doc, { checkKeys: false });
  const decoded = decodeDocument(bytes);
  return { decoded, same: Buffer.from(encodeDocument(decoded)).equals(Buffer.from(bytes)) };
}

function noDbRefInstances(v: unknown): boolean {
  if (v instanceof DBRef) return false;
  if (v instanceof Code) return v.scope === null || noDbRefInstances(v.scope);
  if (Array.isArray(v)) return v.every(noDbRefInstances);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return Object.values(v).every(noDbRefInstances);
  return true;
}

const cases: Array<[string, Document]> = [
  [
    'a well-formed DBRef',
    { _id: 1, r: { $ref: 'coll', $id: new ObjectId('0123456789abcdef01234567'), $db: 'db' } },
  ],
  ['$id before $ref', { _id: 1, r: { $id: new Int32(1), $ref: 'x' } }],
  ['a field before $ref', { _id: 1, r: { a: new Int32(1), $ref: 'x', $id: new Int32(2), b: 'z' } }],
  [
    'a $ref with one dot (the DBRef class would split it)',
    { _id: 1, r: { $ref: 'a.b', $id: new Int32(2) } },
  ],
  ['$db before $id', { _id: 1, r: { $ref: 'x', $db: 'd', $id: new Int32(2) } }],
  ['DBRef fields at the top level', { _id: 1, a: 'x', $ref: 'c', $id: new Int32(2) }],
  ['a document that starts with $ref', { $ref: 'c', $id: new Int32(2), _id: 1 }],
  [
    'DBRefs in arrays, in DBRefs and in their $id',
    {
      a: [1, { $id: 2, $ref: 'x' }, [{ z: 1, $ref: 'y', $id: { $ref: 'in', $id: 3 } }]],
      b: { $ref: 'p', $id: 1, sub: { $id: 1, $ref: 'q' } },
    },
  ],
  [
    'DBRefs in a code-with-scope scope (in a subdocument, an array, a nested scope)',
    {
      c: new Code('x', { a: { n: new Int32(1), $ref: 'coll', $id: new Int32(2) } }),
      d: new Code('y', {
        a: [{ $id: 1, $ref: 'x' }],
        s: new Code('z', { r: { $id: 1, $ref: 'y' } }),
      }),
      r: { a: 1, $ref: 'p', $id: 1, c: new Code('w', { r: { b: 1, $ref: 'q', $id: 2 } }) },
    },
  ],
  ['__proto__ beside a DBRef', { ['__proto__']: { $id: 1, $ref: 'x' }, k: 1 }],
  [
    'other types around it',
    {
      re: new BSONRegExp('a.c', 'i'),
      bin: new Binary(Buffer.from([1, 2, 3]), 0),
      code: new Code('x'),
      n: null,
      r: { $id: 1, $ref: 'x' },
      s: 'after',
    },
  ],
];

for (const [name, doc] of cases) {
  test(`codec: ${name} decodes in byte order, as a plain document`, () => {
    const { decoded, same } = roundTrip(doc);
    assert.ok(same, `re-encoded bytes differ: ${JSON.stringify(decoded)}`);
    assert.ok(noDbRefInstances(decoded), 'a DBRef instance is left');
  });
}

test('codec: a string "$ref" that is a value, not a DBRef, changes nothing', () => {
  const { decoded, same } = roundTrip({ _id: 1, s: '\u0002$ref\u0000', t: { a: 1 } });
  assert.ok(same);
  assert.equal(decoded['s'], '\u0002$ref\u0000');
});

test('codec: a $ref that is not a string is no DBRef for the bson package either', () => {
  const { decoded, same } = roundTrip({ r: { $ref: 1, $id: 2 } });
  assert.ok(same);
  assert.deepEqual(Object.keys(decoded['r'] as object), ['$ref', '$id']);
});

/** A document of these elements, in this order (names may repeat): raw bytes. */
function withElements(...fields: Array<[string, unknown]>): Buffer {
  const body = Buffer.concat(
    fields.map(([k, v]) => {
      const one = serialize({ [k]: v }, { checkKeys: false });
      return one.subarray(4, one.length - 1);
    }),
  );
  const out = Buffer.alloc(body.length + 5);
  out.writeInt32LE(out.length, 0);
  body.copy(out, 4);
  return out;
}

test('codec: of a repeated name, the last value is kept at the first place, DBRefs or not', () => {
  // The first `a` holds a field named like an Object.prototype member, the last is a DBRef.
  const proto = decodeDocument(
    withElements(['a', { constructor: new Int32(0) }], ['a', { $ref: 'c', $id: new Int32(1) }]),
  );
  assert.ok(noDbRefInstances(proto));
  assert.deepEqual(
    Buffer.from(encodeDocument(proto)),
    serialize({ a: { $ref: 'c', $id: new Int32(1) } }),
  );
  // Repeated names inside a DBRef: a non-string $db first, a DBRef then a plain document.
  const inner = withElements(
    ['$ref', 'c'],
    ['$db', new Int32(5)],
    ['$id', new Int32(1)],
    ['$db', 'x'],
    ['s', { $id: new Int32(2), $ref: 'q' }],
    ['s', { $ref: 'z', $id: new Int32(3), k: new Int32(1) }],
  );
  const r = Buffer.concat([Buffer.from([0x03, 0x72, 0x00]), inner]); // r: <inner>
  const nested = decodeDocument(
    Buffer.concat([Buffer.from([r.length + 5, 0, 0, 0]), r, Buffer.from([0])]),
  );
  assert.ok(noDbRefInstances(nested));
  assert.deepEqual(
    Buffer.from(encodeDocument(nested)),
    serialize({
      r: {
        $ref: 'c',
        $db: 'x',
        $id: new Int32(1),
        s: { $ref: 'z', $id: new Int32(3), k: new Int32(1) },
      },
    }),
  );
});

// ---- joining encoded documents (oplog entries reuse the record's bytes) ----------------------

test('codec: joinDocuments writes the BSON of the merged fields, an encoded document as an embedded document', () => {
  // {a: int32 1} then {é: {}}, by the spec's grammar: int32 size, elements, 0x00; an element is
  // its type byte, the name as a C string (UTF-8) and the value; int32 0x10, document 0x03.
  const expected = Buffer.from([
    0x15, 0, 0, 0, 0x10, 0x61, 0, 1, 0, 0, 0, 0x03, 0xc3, 0xa9, 0, 5, 0, 0, 0, 0, 0,
  ]);
  const joined = joinDocuments([
    encodeDocument({ a: new Int32(1) }),
    { name: 'é', document: encodeDocument({}) },
  ]);
  assert.deepEqual([...joined], [...expected]);
  assert.deepEqual(decodeDocument(joined), { a: new Int32(1), é: {} });
  assert.deepEqual([...joinDocuments([])], [5, 0, 0, 0, 0]);
});

test('codec: joinDocuments of parts equals encodeDocument of the merged document (any documents)', () => {
  const prefixed = (p: string) =>
    bsonDocumentArb.map(
      (d) => Object.fromEntries(Object.entries(d).map(([k, v]) => [`${p}${k}`, v])) as BsonDocument,
    );
  fc.assert(
    fc.property(prefixed('h'), bsonDocumentArb, prefixed('t'), (head, o, tail) => {
      const joined = joinDocuments([
        encodeDocument(head),
        { name: 'o', document: encodeDocument(o) },
        encodeDocument(tail),
      ]);
      assert.deepEqual([...joined], [...encodeDocument({ ...head, o, ...tail })]);
    }),
    { numRuns: 300 },
  );
});

test('codec: withIdFirst moves the _id element in front and keeps the others in order', () => {
  // Names are prefixed so that none is an array index (a JS object lists those first).
  const named = bsonDocumentArb.map(
    (d) => Object.fromEntries(Object.entries(d).map(([k, v]) => [`f${k}`, v])) as BsonDocument,
  );
  fc.assert(
    fc.property(named, fc.nat(8), fc.integer(), (doc, at, n) => {
      const id = new Int32(n);
      const entries = Object.entries(doc);
      entries.splice(Math.min(at, entries.length), 0, ['_id', id]);
      const bytes = encodeDocument(Object.fromEntries(entries) as BsonDocument);
      const moved = withIdFirst(bytes);
      assert.ok(moved !== undefined);
      assert.deepEqual([...moved], [...encodeDocument({ _id: id, ...doc })]);
    }),
    { numRuns: 300 },
  );
  const one = new Int32(1);
  assert.equal(withIdFirst(encodeDocument({ a: one, b: { _id: one } })), undefined);
  // "_idx" and "_i" are not "_id".
  const near = encodeDocument({ _idx: one, _i: new Int32(2), _id: new Int32(3) });
  assert.deepEqual(
    [...(withIdFirst(near) ?? [])],
    [...encodeDocument({ _id: new Int32(3), _idx: one, _i: new Int32(2) })],
  );
});

/** {s: <string whose UTF-8 bytes are `utf8`>} followed by `extra` elements, as raw BSON. */
function withStringBytes(utf8: number[], extra: Document = {}): Uint8Array {
  const placeholder = 'P'.repeat(utf8.length);
  const bytes = Buffer.from(serialize({ s: placeholder, ...extra }));
  const at = bytes.indexOf(placeholder, 0, 'latin1');
  Buffer.from(utf8).copy(bytes, at);
  return bytes;
}

test('strings that are not UTF-8 are refused, whatever else the document holds', () => {
  const bad = [[0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x61, 0xff, 0x62]];
  for (const utf8 of bad) {
    assert.throws(() => decodeDocument(withStringBytes(utf8)), /UTF-8|utf8|Invalid/i);
    assert.throws(
      () =>
        decodeDocument(
          withStringBytes(utf8, { m: new MinKey(), b: new Binary(Buffer.from([0xff])) }),
        ),
      /UTF-8|utf8|Invalid/i,
    );
  }
  // Good multi-byte strings beside bytes that are not UTF-8 (MinKey, binary) decode.
  const good = decodeDocument(
    withStringBytes([0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80], {
      m: new MinKey(),
      b: new Binary(Buffer.from([0x80])),
    }),
  );
  assert.equal(good['s'], 'é😀');
  assert.ok(good['m'] instanceof MinKey);
});

test('a document decodes the same whether or not its strings are checked one by one', () => {
  fc.assert(
    fc.property(bsonDocumentArb, (doc) => {
      const bytes = serialize(doc, { checkKeys: false });
      assert.ok(Buffer.from(encodeDocument(decodeDocument(bytes))).equals(Buffer.from(bytes)));
    }),
    { numRuns: 200 },
  );
});

// Bytes that are not UTF-8 as a whole (binary data, as in every driver command's lsid) have
// their strings checked one by one by the decoder's walk: wherever a bad string is (nested,
// in an array, in code, in a code-with-scope's code or scope), it is still refused.
test('beside binary data, a bad string anywhere is refused and good ones decode', () => {
  const bin = new Binary(Buffer.from([0xff, 0x80]));
  const places: Array<(s: string) => Document> = [
    (s) => ({ b: bin, s }),
    (s) => ({ b: bin, d: { e: { s } } }),
    (s) => ({ b: bin, a: [1, 'ok', s] }),
    (s) => ({ b: bin, c: new Code(s) }),
    (s) => ({ b: bin, c: new Code('f()', { s }) }),
    (s) => ({ b: bin, long: 'y'.repeat(1000), a: [{ s }] }),
  ];
  const marker = 'MARKERMARKERMARKERMARKERMARKER'; // longer than the in-place check
  for (const [i, place] of places.entries()) {
    const good = Buffer.from(serialize(place(`é${marker}`)));
    assert.deepEqual(
      encodeDocument(decodeDocument(good)),
      good,
      `place ${i}: a good string decodes`,
    );
    for (const s of [marker, 'short']) {
      const bytes = Buffer.from(serialize(place(s)));
      const at = bytes.indexOf(s, 0, 'latin1');
      bytes[at + 1] = 0xff; // not UTF-8
      assert.throws(() => decodeDocument(bytes), /UTF-8|utf8|Invalid/i, `place ${i}, ${s}`);
    }
  }
});

test('beside binary data, malformed bytes are still refused, never decoded', () => {
  const good = Buffer.from(
    serialize({ b: new Binary(Buffer.from([0xff])), s: 'abc', d: { x: 1 } }),
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: good.length - 1 }),
      fc.integer({ min: 0, max: 255 }),
      (at, byte) => {
        const bytes = Buffer.from(good);
        bytes[at] = byte;
        // Whatever the walk answers, the outcome is the package's with every string checked.
        const outcome = (decode: () => unknown): unknown => {
          try {
            return encodeDocument(decode() as BsonDocument);
          } catch {
            return 'refused';
          }
        };
        assert.deepEqual(
          outcome(() => decodeDocument(bytes)),
          outcome(() => deserialize(bytes, decodeOptions)),
        );
      },
    ),
    { numRuns: 300 },
  );
});

test('a document with binary data decodes as the checked path decodes it (any documents)', () => {
  fc.assert(
    fc.property(bsonDocumentArb, (doc) => {
      const bytes = serialize(
        { ...doc, zz: new Binary(Buffer.from([0xff, 0xfe])) },
        {
          checkKeys: false,
        },
      );
      assert.ok(Buffer.from(encodeDocument(decodeDocument(bytes))).equals(Buffer.from(bytes)));
    }),
    { numRuns: 200 },
  );
});

test('codec: a document sequence remembers the bytes of each document while it is in place', () => {
  const bytes = [{ a: new Int32(1) }, { b: 'x' }].map((d: BsonDocument) => encodeDocument(d));
  const docs = bytes.map((b) => decodeDocument(b));
  keepSequenceBytes(docs, bytes);
  assert.equal(sequenceSourceBytes(docs, 0, docs[0]), bytes[0]);
  assert.equal(sequenceSourceBytes(docs, 1, docs[1]), bytes[1]);
  // Another index, another array, or a document put in its place: no bytes.
  assert.equal(sequenceSourceBytes(docs, 1, docs[0]), undefined);
  assert.equal(sequenceSourceBytes([...docs], 0, docs[0]), undefined);
  const first = docs[0];
  docs[0] = { a: new Int32(1) };
  assert.equal(sequenceSourceBytes(docs, 0, docs[0]), undefined);
  assert.equal(sequenceSourceBytes(docs, 0, first), bytes[0]);
  assert.throws(() => keepSequenceBytes(docs, bytes.slice(1)));
});
