// Unit tests for the Unified Test Format matcher ("Evaluating Matches").
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  Binary,
  Decimal128,
  Double,
  EJSON,
  Int32,
  Long,
  ObjectId,
  Timestamp,
  BSONRegExp,
  MinKey,
  MaxKey,
} from 'bson';
import { MatchError, TestFileError, assertMatch, matches, type EntityLookup } from './lib/match.js';
import { exactDifference, possibleTypes, show } from './lib/bson-values.js';

/** Expected values are parsed the way the runner parses test files. */
const X = (json: string): unknown => EJSON.parse(json, { relaxed: false });

function ok(
  expected: unknown,
  actual: unknown,
  opts: Parameters<typeof assertMatch>[2] = {},
): void {
  assertMatch(expected, actual, opts);
}
function no(
  expected: unknown,
  actual: unknown,
  opts: Parameters<typeof assertMatch>[2] = {},
): MatchError {
  let caught: unknown;
  try {
    assertMatch(expected, actual, opts);
  } catch (e) {
    caught = e;
  }
  if (!(caught instanceof MatchError))
    throw new assert.AssertionError({
      message: `expected a MatchError for ${show(expected)}, got ${String(caught)}`,
    });
  return caught;
}

const lsid0 = { id: new Binary(Buffer.from('00112233445566778899aabbccddeeff', 'hex'), 4) };
const lsid1 = { id: new Binary(Buffer.from('ffeeddccbbaa99887766554433221100', 'hex'), 4) };
const entities: EntityLookup = {
  entityValue(name) {
    if (name === 'oid0') return new ObjectId('000000000000000000000007');
    if (name === 'doc0') return { a: 1, b: { c: 2 } };
    throw new TestFileError(`no entity ${name}`);
  },
  sessionLsid(name) {
    if (name === 'session0') return lsid0;
    if (name === 'session1') return lsid1;
    throw new TestFileError(`no session ${name}`);
  },
};

describe('matcher: documents', () => {
  it('root document may have extra fields', () => {
    ok(X('{"x": 1}'), { x: 1, y: 2 });
  });
  it('expected fields must be present', () => {
    no(X('{"x": 1, "y": 1}'), { x: 1 });
  });
  it('nested document may not have extra fields', () => {
    const e = no(X('{"x": {"y": 1}}'), { x: { y: 1, z: 1 } });
    assert.match(e.message, /\$\.x: unexpected field\(s\) z/);
  });
  it('nested documents inside arrays may not have extra fields', () => {
    no(X('{"a": [{"y": 1}]}'), { a: [{ y: 1, z: 1 }] });
    ok(X('{"a": [{"y": 1}]}'), { a: [{ y: 1 }] });
  });
  it('root option false makes the top level strict', () => {
    no(X('{"x": 1}'), { x: 1, y: 2 }, { root: false });
  });
  it('key order does not matter', () => {
    ok(X('{"x": {"a": 1, "b": 2}}'), { x: { b: 2, a: 1 } });
  });
  it('a field whose value is undefined counts as absent', () => {
    ok(X('{"x": {"a": 1}}'), { x: { a: 1, b: undefined } });
    no(X('{"x": 1}'), { x: undefined });
  });
  it('Maps from the driver are compared as documents', () => {
    ok(X('{"r": {"0": {"n": 1}}}'), { r: new Map([[0, { n: 1 }]]) });
    no(X('{"r": {}}'), { r: new Map([[0, { n: 1 }]]) });
  });
  it('a document does not match a scalar or array', () => {
    no(X('{"x": {"a": 1}}'), { x: 1 });
    no(X('{"x": {}}'), { x: [] });
    no(X('{"x": 1}'), { x: { a: 1 } });
  });
  it('null matches only null', () => {
    ok(X('{"x": null}'), { x: null });
    no(X('{"x": null}'), {});
    no(X('{"x": null}'), { x: 0 });
  });
});

describe('matcher: arrays', () => {
  it('must have the same length', () => {
    no(X('[1, 2, 3]'), [1, 2, 3, 4]);
    no(X('[1, 2, 3]'), [1, 2]);
    ok(X('[1, 2, 3]'), [1, 2, 3]);
  });
  it('are compared in order', () => {
    no(X('[1, 2]'), [2, 1]);
  });
  it('documents in a plain array are nested (distinct-like results)', () => {
    no(X('[{"x": 1}]'), [{ x: 1, y: 1 }]);
  });
  it('rootElements treats each element as a root document (find-like results)', () => {
    ok(
      X('[{"x": 1}, {"x": 2}]'),
      [
        { x: 1, y: 1 },
        { x: 2, y: 2 },
      ],
      { rootElements: true },
    );
    no(X('[{"x": 1}]'), [{ x: 1 }, { x: 2 }], { rootElements: true });
    no(X('[{"x": {"a": 1}}]'), [{ x: { a: 1, b: 1 } }], { rootElements: true });
  });
  it('an empty array matches only an empty array', () => {
    ok(X('[]'), []);
    no(X('[]'), [1]);
    no(X('{"a": []}'), { a: {} });
  });
});

describe('matcher: numbers', () => {
  it('int32, int64 and double compare by value', () => {
    ok(new Int32(1), 1);
    ok(new Int32(1), new Double(1.0));
    ok(Long.fromNumber(1), 1);
    ok(new Double(1.0), Long.fromNumber(1));
    ok(1, new Int32(1));
    ok(X('{"ok": 1}'), { ok: 1.0 });
    ok(X('{"n": {"$numberLong": "2"}}'), { n: 2 });
    ok(X('{"n": {"$numberDouble": "2.0"}}'), { n: new Int32(2) });
  });
  it('different values do not match', () => {
    no(new Int32(1), 1.5);
    no(X('{"n": 1}'), { n: 2 });
    no(Long.fromString('9007199254740993'), Long.fromString('9007199254740992'));
  });
  it('large int64 values compare exactly', () => {
    ok(Long.fromString('9223372036854775807'), Long.fromString('9223372036854775807'));
  });
  it('numbers do not match other types', () => {
    no(new Int32(1), '1');
    no(new Int32(1), true);
    no(new Int32(0), null);
    no('1', 1);
  });
  it('NaN matches NaN', () => {
    ok(new Double(NaN), NaN);
  });
  it('decimal128 is not flexible', () => {
    ok(Decimal128.fromString('1.5'), Decimal128.fromString('1.5'));
    no(Decimal128.fromString('1'), 1);
  });
});

describe('matcher: other BSON values', () => {
  it('ObjectId, Binary, Date, Timestamp, regex, MinKey/MaxKey', () => {
    ok(new ObjectId('000000000000000000000001'), new ObjectId('000000000000000000000001'));
    no(new ObjectId('000000000000000000000001'), new ObjectId('000000000000000000000002'));
    no(new ObjectId('000000000000000000000001'), '000000000000000000000001');
    ok(new Binary(Buffer.from([1, 2])), new Binary(Buffer.from([1, 2])));
    no(new Binary(Buffer.from([1, 2])), new Binary(Buffer.from([1, 2]), 4));
    no(new Binary(Buffer.from([1, 2])), new Binary(Buffer.from([1, 3])));
    ok(new Date(5), new Date(5));
    no(new Date(5), new Date(6));
    ok(new Timestamp({ t: 1, i: 2 }), new Timestamp({ t: 1, i: 2 }));
    no(new Timestamp({ t: 1, i: 2 }), new Timestamp({ t: 1, i: 3 }));
    ok(new BSONRegExp('^a', 'mi'), /^a/im);
    no(new BSONRegExp('^a', 'i'), /^a/);
    ok(new MinKey(), new MinKey());
    no(new MinKey(), new MaxKey());
  });
  it('strings and booleans are exact', () => {
    ok('a', 'a');
    no('a', 'A');
    ok(true, true);
    no(true, 1);
  });
});

describe('matcher: $$exists', () => {
  it('true requires the field, any value including null', () => {
    ok(X('{"x": {"$$exists": true}}'), { x: null });
    ok(X('{"x": {"$$exists": true}}'), { x: 0 });
    no(X('{"x": {"$$exists": true}}'), {});
  });
  it('false requires the field to be absent', () => {
    ok(X('{"x": {"$$exists": false}}'), {});
    no(X('{"x": {"$$exists": false}}'), { x: null });
  });
  it('a field named by $$exists: false is not an extra field in a nested document', () => {
    ok(X('{"a": {"x": 1, "y": {"$$exists": false}}}'), { a: { x: 1 } });
    no(X('{"a": {"x": 1, "y": {"$$exists": false}}}'), { a: { x: 1, z: 1 } });
  });
  it('a non-boolean argument is an error in the test file', () => {
    assert.throws(() => assertMatch(X('{"x": {"$$exists": 1}}'), { x: 1 }), TestFileError);
  });
});

describe('matcher: $$type', () => {
  it('single type names', () => {
    ok(X('{"x": {"$$type": "string"}}'), { x: 'a' });
    ok(X('{"x": {"$$type": "objectId"}}'), { x: new ObjectId() });
    ok(X('{"x": {"$$type": "date"}}'), { x: new Date() });
    ok(X('{"x": {"$$type": "object"}}'), { x: { a: 1 } });
    ok(X('{"x": {"$$type": "array"}}'), { x: [1, 'a'] });
    ok(X('{"x": {"$$type": "binData"}}'), { x: new Binary(Buffer.from([1])) });
    ok(X('{"x": {"$$type": "bool"}}'), { x: false });
    ok(X('{"x": {"$$type": "null"}}'), { x: null });
    ok(X('{"x": {"$$type": "timestamp"}}'), { x: new Timestamp({ t: 1, i: 1 }) });
    ok(X('{"x": {"$$type": "decimal"}}'), { x: Decimal128.fromString('1') });
    no(X('{"x": {"$$type": "string"}}'), { x: 1 });
    no(X('{"x": {"$$type": "object"}}'), { x: [] });
    no(X('{"x": {"$$type": "array"}}'), { x: {} });
  });
  it('a list of type names matches any of them', () => {
    ok(X('{"x": {"$$type": ["int", "long"]}}'), { x: Long.fromNumber(5) });
    ok(X('{"x": {"$$type": ["int", "long"]}}'), { x: new Int32(5) });
    no(X('{"x": {"$$type": ["int", "long"]}}'), { x: 'a' });
  });
  it('wrapped numbers have exactly one type', () => {
    ok(X('{"x": {"$$type": "int"}}'), { x: new Int32(1) });
    no(X('{"x": {"$$type": "int"}}'), { x: new Double(1) });
    no(X('{"x": {"$$type": "double"}}'), { x: Long.fromNumber(1) });
    no(X('{"x": {"$$type": "long"}}'), { x: new Int32(1) });
  });
  it('"number" is an alias for int, long, double and decimal', () => {
    for (const v of [
      new Int32(1),
      Long.fromNumber(1),
      new Double(1.5),
      Decimal128.fromString('1'),
      3,
      2.5,
    ]) {
      ok(X('{"x": {"$$type": "number"}}'), { x: v });
    }
    no(X('{"x": {"$$type": "number"}}'), { x: '1' });
  });
  it('plain JavaScript numbers may be any numeric type they could have come from', () => {
    assert.deepEqual([...possibleTypes(1)].sort(), ['double', 'int', 'long', 'number']);
    assert.deepEqual([...possibleTypes(2 ** 40)].sort(), ['double', 'long', 'number']);
    assert.deepEqual([...possibleTypes(1.5)].sort(), ['double', 'number']);
  });
  it('requires the value to exist', () => {
    no(X('{"x": {"$$type": "null"}}'), {});
  });
  it('does not look into array elements', () => {
    no(X('{"x": {"$$type": "int"}}'), { x: [new Int32(1)] });
  });
  it('an unknown type name is an error in the test file', () => {
    assert.throws(() => assertMatch(X('{"x": {"$$type": "integer"}}'), { x: 1 }), TestFileError);
  });
});

describe('matcher: $$unsetOrMatches', () => {
  it('matches an absent field', () => {
    ok(X('{"a": {"x": {"$$unsetOrMatches": 1}}}'), { a: {} });
  });
  it('matches a present field that matches', () => {
    ok(X('{"a": {"x": {"$$unsetOrMatches": 1}}}'), { a: { x: 1 } });
    no(X('{"a": {"x": {"$$unsetOrMatches": 1}}}'), { a: { x: 2 } });
  });
  it('matches an absent result (insertOne may return nothing)', () => {
    ok(X('{"$$unsetOrMatches": {"insertedId": {"$$unsetOrMatches": 2}}}'), undefined);
    ok(X('{"$$unsetOrMatches": {"insertedId": {"$$unsetOrMatches": 2}}}'), {
      insertedId: 2,
      acknowledged: true,
    });
    no(X('{"$$unsetOrMatches": {"insertedId": {"$$unsetOrMatches": 2}}}'), { insertedId: 3 });
  });
  it('does not change root-ness: a nested value stays strict', () => {
    no(X('{"a": {"$$unsetOrMatches": {"x": 1}}}'), { a: { x: 1, y: 1 } });
  });
  it('at the root, extra fields stay allowed', () => {
    ok(X('{"$$unsetOrMatches": {"x": 1}}'), { x: 1, y: 1 });
  });
  it('null is a value, not unset', () => {
    no(X('{"x": {"$$unsetOrMatches": 1}}'), { x: null });
  });
});

describe('matcher: $$matchesEntity', () => {
  it('matches the saved entity value', () => {
    ok(
      X('{"_id": {"$$matchesEntity": "oid0"}}'),
      { _id: new ObjectId('000000000000000000000007') },
      { entities },
    );
    no(
      X('{"_id": {"$$matchesEntity": "oid0"}}'),
      { _id: new ObjectId('000000000000000000000008') },
      { entities },
    );
  });
  it('matching a document entity follows the usual rules', () => {
    ok(X('{"d": {"$$matchesEntity": "doc0"}}'), { d: { a: 1, b: { c: 2 } } }, { entities });
    no(X('{"d": {"$$matchesEntity": "doc0"}}'), { d: { a: 1, b: { c: 2 }, e: 1 } }, { entities });
  });
  it('an undefined entity is an error', () => {
    assert.throws(
      () => assertMatch(X('{"_id": {"$$matchesEntity": "nope"}}'), { _id: 1 }, { entities }),
      TestFileError,
    );
  });
});

describe('matcher: $$matchesHexBytes', () => {
  it('compares bytes exactly', () => {
    ok(X('{"$$matchesHexBytes": "1122ab"}'), Buffer.from([0x11, 0x22, 0xab]));
    ok(X('{"$$matchesHexBytes": "1122AB"}'), Buffer.from([0x11, 0x22, 0xab]));
    ok(X('{"$$matchesHexBytes": ""}'), Buffer.alloc(0));
    no(X('{"$$matchesHexBytes": "1122"}'), Buffer.from([0x11, 0x22, 0x33]));
    no(X('{"$$matchesHexBytes": "112233"}'), Buffer.from([0x11, 0x22]));
    no(X('{"$$matchesHexBytes": "11"}'), 17);
  });
  it('a malformed hex string is an error in the test file', () => {
    assert.throws(
      () => assertMatch(X('{"$$matchesHexBytes": "123"}'), Buffer.from([1])),
      TestFileError,
    );
    assert.throws(
      () => assertMatch(X('{"$$matchesHexBytes": "zz"}'), Buffer.from([1])),
      TestFileError,
    );
  });
});

describe('matcher: $$sessionLsid', () => {
  it('matches the session lsid', () => {
    ok(
      X('{"lsid": {"$$sessionLsid": "session0"}}'),
      { lsid: { id: new Binary(Buffer.from('00112233445566778899aabbccddeeff', 'hex'), 4) } },
      { entities },
    );
  });
  it('does not match another session', () => {
    no(X('{"lsid": {"$$sessionLsid": "session0"}}'), { lsid: lsid1 }, { entities });
  });
  it('requires the field', () => {
    no(X('{"lsid": {"$$sessionLsid": "session0"}}'), {}, { entities });
  });
});

describe('matcher: $$lte', () => {
  it('compares numerically across types', () => {
    ok(X('{"x": {"$$lte": 1}}'), { x: 1.0 });
    ok(X('{"x": {"$$lte": 1}}'), { x: 0 });
    ok(X('{"x": {"$$lte": 1}}'), { x: Long.fromNumber(-5) });
    no(X('{"x": {"$$lte": 1}}'), { x: 1.1 });
    no(X('{"x": {"$$lte": 1}}'), { x: '0' });
    no(X('{"x": {"$$lte": 1}}'), {});
  });
});

describe('matcher: $$matchAsDocument', () => {
  it('parses an Extended JSON string and matches it as a nested document', () => {
    ok(X('{"j": {"$$matchAsDocument": {"x": 1, "y": 2}}}'), { j: '{ "x": 1, "y": 2 }' });
    no(X('{"j": {"$$matchAsDocument": {"x": 1}}}'), { j: '{ "x": 1, "y": 2 }' });
    no(X('{"j": {"$$matchAsDocument": {"x": 1}}}'), { j: { x: 1 } });
    no(X('{"j": {"$$matchAsDocument": {"x": 1}}}'), { j: 'not json' });
  });
  it('combines with $$matchAsRoot', () => {
    ok(X('{"j": {"$$matchAsDocument": {"$$matchAsRoot": {"x": 1}}}}'), { j: '{ "x": 1, "y": 2 }' });
  });
});

describe('matcher: $$matchAsRoot', () => {
  it('allows extra fields in a nested document', () => {
    ok(X('{"x": {"$$matchAsRoot": {"y": 2}}}'), { x: { y: 2, z: 3 } });
    no(X('{"x": {"$$matchAsRoot": {"y": 2}}}'), { x: { y: 3, z: 3 } });
  });
  it('evaluates special operators inside', () => {
    ok(X('{"x": {"$$matchAsRoot": {"y": 2, "z": {"$$exists": true}}}}'), { x: { y: 2, z: 3 } });
    no(X('{"x": {"$$matchAsRoot": {"y": 2, "w": {"$$exists": true}}}}'), { x: { y: 2, z: 3 } });
  });
  it('documents nested below it are strict again', () => {
    no(X('{"x": {"$$matchAsRoot": {"y": {"a": 1}}}}'), { x: { y: { a: 1, b: 1 } } });
  });
  it('requires a document', () => {
    no(X('{"x": {"$$matchAsRoot": {"y": 2}}}'), { x: 5 });
  });
});

describe('matcher: extraFieldsInNested (used only for driver-sent commands)', () => {
  it('allows extra fields at every level but still requires the expected ones', () => {
    ok(
      X('{"writeConcern": {"w": "majority"}}'),
      { writeConcern: { w: 'majority', wtimeout: 10000 } },
      { extraFieldsInNested: true },
    );
    ok(
      X('{"a": [{"b": {"c": 1}}]}'),
      { a: [{ b: { c: 1, d: 2 }, e: 3 }] },
      { extraFieldsInNested: true },
    );
    no(
      X('{"writeConcern": {"w": "majority"}}'),
      { writeConcern: { w: 1, wtimeout: 10000 } },
      { extraFieldsInNested: true },
    );
    no(
      X('{"writeConcern": {"w": "majority", "j": true}}'),
      { writeConcern: { w: 'majority' } },
      { extraFieldsInNested: true },
    );
    no(X('{"a": [1, 2]}'), { a: [1, 2, 3] }, { extraFieldsInNested: true });
    no(
      X('{"writeConcern": {"$$exists": false}}'),
      { writeConcern: {} },
      { extraFieldsInNested: true },
    );
  });
});

describe('matcher: special operator detection', () => {
  it('only a single-key document whose key starts with $$ is an operator', () => {
    // A document with two keys is a plain document even if one key starts with $$.
    no(X('{"x": {"$$exists": true, "y": 1}}'), { x: 1 });
  });
  it('an unknown $$ operator is an error in the test file', () => {
    assert.throws(() => assertMatch(X('{"x": {"$$bogus": 1}}'), { x: 1 }), TestFileError);
  });
  it('error messages carry the path', () => {
    const e = no(X('{"a": {"b": [1, {"c": 2}]}}'), { a: { b: [1, { c: 3 }] } });
    assert.match(e.message, /^\$\.a\.b\[1\]\.c:/);
  });
  it('matches() returns a boolean', () => {
    assert.equal(matches(X('{"x": 1}'), { x: 1 }), true);
    assert.equal(matches(X('{"x": 1}'), { x: 2 }), false);
  });
});

describe('exact comparison (outcome)', () => {
  it('no extra fields even at the root, flexible numerics, free key order', () => {
    assert.equal(
      exactDifference(X('{"_id": 1, "x": 11}'), { x: 11.0, _id: Long.fromNumber(1) }),
      undefined,
    );
    assert.match(exactDifference(X('{"_id": 1}'), { _id: 1, x: 1 }) ?? '', /unexpected field/);
    assert.match(exactDifference(X('{"_id": 1, "x": 1}'), { _id: 1 }) ?? '', /missing/);
    assert.match(exactDifference(X('[{"_id": 1}]'), []) ?? '', /expected 1 elements/);
  });
});
