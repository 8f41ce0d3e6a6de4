// updateDescription from a $v:2 diff. Expected values follow mongod's
// change_stream_document_diff_parser (its unit tests' cases): dotted paths in updatedFields and
// removedFields, truncatedArrays from `l`, and disambiguatedPaths for paths with numeric field
// names (below the top level) or dotted field names, array indexes as integers.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { describeDiff } from '../../../src/repl/update-description.js';
import type { BsonDocument } from '../../../src/bson/types.js';

const i = (n: number): Int32 => new Int32(n);

test('dotted field names are disambiguated, and everything below them', () => {
  const d = describeDiff({
    u: { 'a.b': i(1) },
    'sc.d.': { u: { e: i(1), 'f.g': i(1) }, sh: { u: { 'i.j': i(1) } } },
    sk: { u: { 'l.m': i(1) } },
  });
  assert.deepEqual(d.updatedFields, {
    'a.b': i(1),
    'c.d..e': i(1),
    'c.d..f.g': i(1),
    'c.d..h.i.j': i(1),
    'k.l.m': i(1),
  });
  assert.deepEqual(d.disambiguatedPaths, {
    'a.b': ['a.b'],
    'c.d..e': ['c.d.', 'e'],
    'c.d..f.g': ['c.d.', 'f.g'],
    'c.d..h.i.j': ['c.d.', 'h', 'i.j'],
    'k.l.m': ['k', 'l.m'],
  });
  assert.deepEqual(d.removedFields, []);
  assert.deepEqual(d.truncatedArrays, []);
});

test('a numeric field name below the top level is ambiguous; an array index is an integer', () => {
  assert.deepEqual(describeDiff({ sa: { u: { 0: i(1) } } }).disambiguatedPaths, {
    'a.0': ['a', '0'],
  });
  const d = describeDiff({ sa: { s0: { a: true, u0: i(1) } } });
  assert.deepEqual(d.updatedFields, { 'a.0.0': i(1) });
  assert.deepEqual(d.disambiguatedPaths, { 'a.0.0': ['a', '0', i(0)] });
});

test('not ambiguous: a numeric name at the top level, a leading zero, array indexes only', () => {
  assert.deepEqual(describeDiff({ u: { 0: i(1) } }), {
    updatedFields: { 0: i(1) },
    removedFields: [],
    truncatedArrays: [],
    disambiguatedPaths: {},
  });
  const lead = describeDiff({ sa: { u: { '01': i(1) } } });
  assert.deepEqual(lead.updatedFields, { 'a.01': i(1) });
  assert.deepEqual(lead.disambiguatedPaths, {});
  const idx = describeDiff({ sa: { a: true, s0: { u: { b: i(1) } } } });
  assert.deepEqual(idx.updatedFields, { 'a.0.b': i(1) });
  assert.deepEqual(idx.disambiguatedPaths, {});
});

test('removed fields and truncated arrays are disambiguated too', () => {
  const r = describeDiff({ d: { 'a.b': false }, sc: { d: { 0: false } } });
  assert.deepEqual(r.removedFields, ['a.b', 'c.0']);
  assert.deepEqual(r.disambiguatedPaths, { 'a.b': ['a.b'], 'c.0': ['c', '0'] });
  const t = describeDiff({ 'sa.b': { a: true, l: i(5) }, sc: { s0: { a: true, l: i(5) } } });
  assert.deepEqual(t.truncatedArrays, [
    { field: 'a.b', newSize: i(5) },
    { field: 'c.0', newSize: i(5) },
  ]);
  assert.deepEqual(t.disambiguatedPaths, { 'a.b': ['a.b'], 'c.0': ['c', '0'] });
});

test('a combination: arrays in dotted parents, dotted and numeric names in arrays', () => {
  const diff: BsonDocument = {
    'sa.b': { a: true, s0: { u: { 1: i(1) } } },
    sc: { a: true, s0: { u: { 'd.e': i(1) } }, s1: { u: { 2: i(1) } } },
    sf: { s1: { u: { 'g.h': i(1) }, s2: { a: true, u3: i(1), s4: { u: { 5: i(1) } } } } },
  };
  const d = describeDiff(diff);
  assert.deepEqual(d.updatedFields, {
    'a.b.0.1': i(1),
    'c.0.d.e': i(1),
    'c.1.2': i(1),
    'f.1.g.h': i(1),
    'f.1.2.3': i(1),
    'f.1.2.4.5': i(1),
  });
  assert.deepEqual(d.disambiguatedPaths, {
    'a.b.0.1': ['a.b', i(0), '1'],
    'c.0.d.e': ['c', i(0), 'd.e'],
    'c.1.2': ['c', i(1), '2'],
    'f.1.g.h': ['f', '1', 'g.h'],
    'f.1.2.3': ['f', '1', '2', i(3)],
    'f.1.2.4.5': ['f', '1', '2', i(4), '5'],
  });
});

test('updates, then inserts, then removals, then sub-diffs (mongod reading order)', () => {
  const d = describeDiff({
    d: { x: false },
    u: { a: i(1) },
    i: { b: i(2) },
    sc: { a: true, l: i(1), u0: i(3) },
  });
  assert.deepEqual(Object.keys(d.updatedFields), ['a', 'b', 'c.0']);
  assert.deepEqual(d.removedFields, ['x']);
  assert.deepEqual(d.truncatedArrays, [{ field: 'c', newSize: i(1) }]);
});

test('entries written with flat dotted paths (before the diff was nested) still read', () => {
  const d = describeDiff({ u: { 'a.b': i(1), c: i(2) }, d: { 'e.f': false } });
  assert.deepEqual(d.updatedFields, { 'a.b': i(1), c: i(2) });
  assert.deepEqual(d.removedFields, ['e.f']);
  assert.deepEqual(d.truncatedArrays, []);
});
