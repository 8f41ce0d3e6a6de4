// Wildcard index keys against the cases of mongod's wildcard_key_generator_test.cpp: one
// [path, value] key per leaf, subdocuments descended, array elements under the array's path,
// nested arrays and empty arrays/objects as values, multikey paths, and the projection
// (inclusion, exclusion, "a.b.$**", _id left out unless included).

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EJSON } from 'bson';
import type { BsonDocument } from '../../../src/bson/types.js';
import {
  compoundWildcardKeys,
  wildcardIndexKeys,
  wildcardProjectionOf,
} from '../../../src/catalog/wildcard-keys.js';
import { parseKeyPattern } from '../../../src/catalog/index-keys.js';
import type { KeyPatternField } from '../../../src/catalog/index-keys.js';

function keysOf(
  field: string,
  projection: string | undefined,
  d: string,
): { keys: string[]; multikey: readonly string[] } {
  const p = wildcardProjectionOf(
    field,
    projection === undefined ? undefined : (EJSON.parse(projection) as BsonDocument),
  );
  const g = wildcardIndexKeys(p, EJSON.parse(d, { relaxed: false }) as BsonDocument);
  return {
    keys: g.keys.map((k) => EJSON.stringify(k as unknown as BsonDocument)).sort(),
    multikey: g.multikeyPathStrings,
  };
}

function expect(keys: Array<[string, unknown]>): string[] {
  return keys
    .map(([p, v]) => EJSON.stringify(EJSON.parse(JSON.stringify([p, v]), { relaxed: false })))
    .sort();
}

describe('wildcard index keys', () => {
  test('leaves of nested documents, _id left out', () => {
    const r = keysOf('$**', undefined, '{"_id": 1, "a": 1, "b": {"c": "x", "d": {"e": true}}}');
    assert.deepEqual(
      r.keys,
      expect([
        ['a', 1],
        ['b.c', 'x'],
        ['b.d.e', true],
      ]),
    );
    assert.deepEqual(r.multikey, []);
  });

  test('arrays: elements under the array path, subdocuments descended, nested arrays whole', () => {
    const r = keysOf('$**', undefined, '{"a": [1, {"b": 2}, [3, 4], [], {}], "c": []}');
    assert.deepEqual(
      r.keys,
      expect([
        ['a', 1],
        ['a.b', 2],
        ['a', [3, 4]],
        ['a', []],
        ['a', {}],
        ['c', []],
      ]),
    );
    assert.deepEqual(r.multikey, ['a', 'c']);
  });

  test('arrays of documents with arrays: every array path is multikey', () => {
    const r = keysOf('$**', undefined, '{"a": [{"b": [1, 2]}, {"b": {"c": 3}}]}');
    assert.deepEqual(
      r.keys,
      expect([
        ['a.b', 1],
        ['a.b', 2],
        ['a.b.c', 3],
      ]),
    );
    assert.deepEqual(r.multikey, ['a', 'a.b']);
  });

  test('an empty subdocument is a value', () => {
    assert.deepEqual(keysOf('$**', undefined, '{"a": {}, "b": null}').keys, [
      ...expect([
        ['a', {}],
        ['b', null],
      ]),
    ]);
  });

  test('a sub-path wildcard indexes only below its path', () => {
    const r = keysOf('a.b.$**', undefined, '{"a": {"b": {"c": 1}, "x": 2}, "b": 3}');
    assert.deepEqual(r.keys, expect([['a.b.c', 1]]));
    assert.deepEqual(keysOf('a.$**', undefined, '{"a": 5}').keys, expect([['a', 5]]));
    assert.deepEqual(keysOf('a.$**', undefined, '{"ab": 5}').keys, []);
  });

  test('inclusion projection: included paths, their parents traversed, not their siblings', () => {
    const d = '{"_id": 0, "a": {"b": 1, "c": 2}, "d": 3, "e": {"f": 4}}';
    assert.deepEqual(
      keysOf('$**', '{"a.b": 1, "d": 1}', d).keys,
      expect([
        ['a.b', 1],
        ['d', 3],
      ]),
    );
    assert.deepEqual(keysOf('$**', '{"a": {"c": true}}', d).keys, expect([['a.c', 2]]));
    // A scalar where an included path would continue is not indexed.
    assert.deepEqual(keysOf('$**', '{"a.b": 1}', '{"a": 7}').keys, []);
  });

  test('exclusion projection, and _id only when included', () => {
    const d = '{"_id": {"x": 1}, "a": {"b": 1, "c": 2}, "d": 3}';
    assert.deepEqual(
      keysOf('$**', '{"a.b": 0}', d).keys,
      expect([
        ['a.c', 2],
        ['d', 3],
      ]),
    );
    assert.deepEqual(
      keysOf('$**', '{"_id": 1, "a": 0}', d).keys,
      expect([
        ['_id.x', 1],
        ['d', 3],
      ]),
    );
    assert.deepEqual(keysOf('$**', '{"_id": 0, "d": 1}', d).keys, expect([['d', 3]]));
    assert.deepEqual(keysOf('$**', '{"_id": 1}', d).keys, expect([['_id.x', 1]]));
  });
});

describe('compound wildcard index keys', () => {
  const layoutOf = (key: BsonDocument): { fields: KeyPatternField[]; wildcardPos: number } => {
    const fields = parseKeyPattern(key);
    return { fields, wildcardPos: fields.findIndex((f) => f.path.endsWith('$**')) };
  };
  const bson = (o: object): BsonDocument =>
    EJSON.parse(JSON.stringify(o), { relaxed: false }) as BsonDocument;
  const keys = (
    spec: Record<string, number>,
    projectionSpec: Record<string, number> | undefined,
    doc: string,
  ): string[] => {
    const key = bson(spec);
    const projection = projectionSpec === undefined ? undefined : bson(projectionSpec);
    const layout = layoutOf(key);
    const field = layout.fields[layout.wildcardPos]?.path ?? '$**';
    const g = compoundWildcardKeys(
      wildcardProjectionOf(field, projection),
      layout,
      EJSON.parse(doc, { relaxed: false }) as BsonDocument,
    );
    return g.keys.map((k) => EJSON.stringify(k as unknown as BsonDocument)).sort();
  };

  test('the regular values around every (path, value) pair', () => {
    assert.deepEqual(
      keys({ a: 1, 'b.$**': 1, c: -1 }, undefined, '{"a": 1, "b": {"x": 2, "y": 3}}'),
      ['[1,"b.x",2,null]', '[1,"b.y",3,null]'],
    );
    assert.deepEqual(keys({ '$**': 1, a: 1 }, { a: 0 }, '{"_id": 1, "a": "s", "z": [1, 2]}'), [
      '["z",1,"s"]',
      '["z",2,"s"]',
    ]);
  });

  test('MinKey path and value without leaves, no key without regular fields either', () => {
    assert.deepEqual(keys({ a: 1, 'b.$**': 1 }, undefined, '{"a": 1, "c": 1}'), [
      '[1,{"$minKey":1},{"$minKey":1}]',
    ]);
    assert.deepEqual(keys({ a: 1, 'b.$**': 1 }, undefined, '{"a": null}'), [
      '[null,{"$minKey":1},{"$minKey":1}]',
    ]);
    assert.deepEqual(keys({ a: 1, 'b.$**': 1 }, undefined, '{"c": 1}'), []);
  });

  test('an array along a regular field is refused (7246301)', () => {
    assert.throws(
      () => keys({ 'a.b': 1, 'c.$**': 1 }, undefined, '{"a": [{"b": 1}]}'),
      (e: unknown) => (e as { code?: number }).code === 7246301,
    );
  });
});
