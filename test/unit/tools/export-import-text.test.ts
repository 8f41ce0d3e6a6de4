// The text codecs under secantus-export and secantus-import: Extended JSON as the Go driver
// writes and reads it (numbers typed by their text, doubles that stay doubles), Go's float
// formatting, json.Indent, encoding/csv quoting, mongoexport's CSV cells, mongoimport's
// autoParse and the JSON splitter's errors.

import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import {
  BSONRegExp,
  Binary,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  ObjectId,
  Timestamp,
} from 'mongodb';
import {
  goFloat,
  parseExtendedJson,
  parseExtendedJsonDocument,
  relaxedJson,
} from '../../../src/tools/ejson-text.js';
import {
  csvField,
  csvValue,
  fieldByPath,
  indentJson,
  projectionFor,
} from '../../../src/tools/export.js';
import { autoParse, recordToDocument, upsertSelector } from '../../../src/tools/import.js';
import { jsonPieces } from '../../../src/tools/json-stream.js';
import { validateFields } from '../../../src/tools/io-common.js';

async function pieces(text: string, array = false): Promise<string[]> {
  const out: string[] = [];
  for await (const p of jsonPieces(Readable.from([Buffer.from(text)]), array))
    out.push(`${p.number}@${p.line}:${p.text}`);
  return out;
}

describe('Extended JSON text', () => {
  it("formats doubles as Go's strconv 'g' shortest", () => {
    assert.equal(goFloat(1.5, false), '1.5');
    assert.equal(goFloat(123456, false), '123456');
    assert.equal(goFloat(1e6, false), '1e+06');
    assert.equal(goFloat(1234567, true), '1.234567E+06');
    assert.equal(goFloat(0.0001, false), '0.0001');
    assert.equal(goFloat(0.00001, false), '1e-05');
    assert.equal(goFloat(-0, false), '-0');
  });

  it('writes relaxed Extended JSON as the Go driver does', () => {
    assert.equal(relaxedJson({ a: new Double(2) }), '{"a":2.0}');
    assert.equal(relaxedJson({ a: new Double(1e21) }), '{"a":1E+21}');
    assert.equal(relaxedJson({ a: new Double(-0) }), '{"a":-0.0}');
    assert.equal(relaxedJson({ a: new Double(NaN) }), '{"a":{"$numberDouble":"NaN"}}');
    assert.equal(
      relaxedJson({ a: Long.fromString('-9223372036854775808') }),
      '{"a":-9223372036854775808}',
    );
    assert.equal(
      relaxedJson({ a: new Date('2024-01-02T03:04:05Z') }),
      '{"a":{"$date":"2024-01-02T03:04:05Z"}}',
    );
    assert.equal(
      relaxedJson({ a: new Date('2024-01-02T03:04:05.060Z') }),
      '{"a":{"$date":"2024-01-02T03:04:05.060Z"}}',
    );
    assert.equal(
      relaxedJson({ a: new Date(Date.UTC(1969, 11, 31)) }),
      '{"a":{"$date":{"$numberLong":"-86400000"}}}',
    );
    assert.equal(relaxedJson({ a: [new Int32(1), 'x', null] }), '{"a":[1,"x",null]}');
  });

  it('reads numbers by their text, and $-wrapped values by their wrapper', () => {
    const d = parseExtendedJsonDocument(
      '{"i": 1, "d": 1.0, "e": 1e3, "l": 4294967296, "big": 1e400, "t": {"$timestamp": {"t": 5, "i": 6}}, "q": {"$gt": 2}}',
    );
    assert.ok(d['i'] instanceof Int32);
    assert.ok(d['d'] instanceof Double);
    assert.ok(d['e'] instanceof Double);
    assert.ok(d['l'] instanceof Long);
    assert.equal((d['big'] as Double).value, Infinity);
    assert.ok(Object.is((parseExtendedJsonDocument('{"z": -0.0}')['z'] as Double).value, -0));
    assert.deepEqual(d['t'], new Timestamp({ t: 5, i: 6 }));
    assert.ok(d['q'] !== null && typeof d['q'] === 'object');
    const v = parseExtendedJson('{"$numberDecimal": "1.5"}');
    assert.ok(v instanceof Decimal128);
  });

  it("words syntax errors as Go's encoding/json", () => {
    const message = (text: string): string => {
      try {
        parseExtendedJsonDocument(text);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    assert.equal(message('{"a": }'), "invalid character '}' looking for beginning of value");
    assert.equal(message('{"a" 1}'), "invalid character '1' after object key");
    assert.equal(message('{"a": 1 "b": 2}'), "invalid character '\"' after object key:value pair");
    assert.equal(message('{"a": [1 2]}'), "invalid character '2' after array element");
    assert.equal(message('{"a": tru}'), "invalid character '}' in literal true (expecting 'e')");
    assert.equal(message('{"a": 01}'), "invalid character '1' after object key:value pair");
    assert.equal(message('{"a": "x'), 'unexpected end of JSON input');
    assert.equal(message('[1]'), "invalid character '[' looking for beginning of object");
  });

  it('indents as json.Indent with tabs, and quotes CSV as encoding/csv', () => {
    assert.equal(
      indentJson('{"a":[1,{"b":"x,y"}],"c":{},"d":[]}'),
      '{\n\t"a": [\n\t\t1,\n\t\t{\n\t\t\t"b": "x,y"\n\t\t}\n\t],\n\t"c": {},\n\t"d": []\n}',
    );
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField(''), '');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField(' lead'), '" lead"');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
  });
});

describe('mongoexport CSV cells and mongoimport values', () => {
  it('prints each type as mongoexport', () => {
    assert.equal(
      csvValue(new ObjectId('64b7f0c2a1b2c3d4e5f60718')),
      'ObjectId(64b7f0c2a1b2c3d4e5f60718)',
    );
    assert.equal(csvValue(new Date('2024-01-02T03:04:05Z')), '2024-01-02T03:04:05.000Z');
    assert.equal(csvValue(new Double(1e6)), '1e+06');
    assert.equal(csvValue(new Double(-Infinity)), '-Inf');
    assert.equal(csvValue(new Binary(Buffer.from([0xab, 1]))), 'AB01');
    assert.equal(csvValue(new BSONRegExp('^a', 'i')), '/^a/i');
    assert.equal(csvValue(new Timestamp({ t: 1, i: 2 })), '{ "$timestamp": { "t": 1, "i": 2 } }');
    assert.equal(csvValue(new MaxKey()), '$MaxKey');
    assert.equal(csvValue(null), '');
    assert.equal(csvValue({ a: new Int32(1) }), '{"a":1}');
  });

  it('reaches fields by dotted paths, and projects their first parts', () => {
    const doc = { a: { b: [10, { c: 'deep' }] } };
    assert.equal(fieldByPath(doc, 'a.b.1.c'), 'deep');
    assert.equal(fieldByPath(doc, 'a.b.5'), '');
    assert.equal(fieldByPath(doc, 'a.x'), '');
    assert.deepEqual(projectionFor(['a.b', 'c', 'd.$']), { _id: 1, a: 1, c: 1, 'd.$': 1 });
  });

  it('types CSV values as autoParse does, and builds nested documents', () => {
    assert.ok(autoParse('12') instanceof Int32);
    assert.ok(autoParse('-2147483649') instanceof Long);
    assert.ok(autoParse('1.5') instanceof Double);
    assert.ok(autoParse('1e3') instanceof Double);
    assert.equal(autoParse('12abc'), '12abc');
    assert.equal(autoParse(''), '');
    const d = recordToDocument(['a.b', 'a.c', 'x'], ['1', 'two', '', 'extra'], false, 1);
    assert.deepEqual(d, { a: { b: new Int32(1), c: 'two' }, x: '', field3: 'extra' });
    assert.deepEqual(recordToDocument(['x', 'y'], ['', '2'], true, 1), { y: new Int32(2) });
  });

  it('checks field lists and builds upsert selectors as mongoimport', () => {
    assert.throws(() => validateFields(['a.']), /field `a\.` cannot end with a '\.'/);
    assert.throws(() => validateFields(['$a']), /cannot start with a '\$'/);
    assert.throws(() => validateFields(['a', 'a']), /fields cannot be identical: `a` and `a`/);
    assert.throws(() => validateFields(['a', 'a.b']), /fields `a` and `a.b` are incompatible/);
    assert.deepEqual(upsertSelector(['k', 'n.m'], { k: 1, n: { m: 2 } }), { k: 1, 'n.m': 2 });
    assert.deepEqual(upsertSelector(['k', 'z'], { k: 1 }), { k: 1, z: null });
    assert.equal(upsertSelector(['z'], { k: 1 }), undefined);
  });
});

describe('the JSON splitter', () => {
  it('splits documents on any whitespace, counting lines', async () => {
    assert.deepEqual(await pieces('{"a":1}\n\n{"b":"}{"}  {"c":\n2}\n'), [
      '1@1:{"a":1}',
      '2@3:{"b":"}{"}',
      '3@3:{"c":\n2}',
    ]);
  });

  it('reads a --jsonArray, and its errors as mongoimport words them', async () => {
    assert.deepEqual(await pieces(' [ {"a":1} ,\n{"b":2} ]\n', true), [
      '1@1:{"a":1}',
      '2@2:{"b":2}',
    ]);
    assert.deepEqual(await pieces('[]', true), []);
    await assert.rejects(pieces('[{"a":1}] x', true), /found 'x' after '\]' in input source/);
    await assert.rejects(
      pieces('[{"a":1} {"b":2}]', true),
      /found '\{' outside JSON object\/array/,
    );
  });
});
