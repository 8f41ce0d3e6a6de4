// Log attribute truncation: an attribute whose JSON is over the limit keeps the leading fields
// that fit and reports its size, measured without stringifying it. The size must equal the
// length JSON.stringify gives (for any JSON value whose strings are under the limit), and a
// 16 MB string must not be stringified to be measured. Logged documents are relaxed EJSON.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal128, Double, EJSON, Int32, Long, ObjectId } from 'bson';
import { Logger, logDocument } from '../../src/log.js';
import { limits } from '../../src/limits.js';

/** Names the logger redacts (their values are logged as ###): not generated here. */
const secretLike = /pass|pwd|key|secret|token|nonce|salt|proof|payload|auth|cred/i;

function logOnce(attr: Record<string, unknown>): Record<string, unknown> {
  const lines: string[] = [];
  new Logger({ write: (l) => lines.push(l) }, 'info').info('COMMAND', 51803, 'Slow query', attr);
  assert.equal(lines.length, 1);
  return (JSON.parse(lines[0] as string) as { attr: Record<string, unknown> }).attr;
}

test('the size reported for a truncated attribute is its JSON length', () => {
  const small = fc
    .jsonValue({ maxDepth: 3 })
    .filter((v) => JSON.stringify(v).length < 500 && !secretLike.test(JSON.stringify(v)));
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.string({ maxLength: 12 }), small), { maxLength: 60 }),
      (pairs) => {
        const command: Record<string, unknown> = {
          pad: 'p'.repeat(limits.logAttributeBytesMax - 400),
        };
        for (const [i, [k, v]] of pairs.entries())
          if (!secretLike.test(k)) command[`f${i}${k}`] = v;
        const out = logOnce({ command });
        const length = JSON.stringify(command).length;
        if (length <= limits.logAttributeBytesMax) {
          assert.equal(out['truncated'], undefined);
          assert.ok(JSON.stringify(out['command']) === JSON.stringify(command), 'logged whole');
        } else {
          assert.deepEqual(out['size'], { command: length });
          assert.ok(JSON.stringify(out['command']).length <= limits.logAttributeBytesMax);
        }
      },
    ),
    { numRuns: 200 },
  );
});

test('a 16 MB string field is cut from the line, the fields after it kept', () => {
  const s = 'y'.repeat(16 * 1024 * 1024);
  const out = logOnce({ command: { insert: 'c', documents: [{ s }], ordered: true } });
  assert.deepEqual(out['command'], { insert: 'c', ordered: true });
  assert.deepEqual(out['truncated'], { command: { omittedFields: 1 } });
  const size = (out['size'] as Record<string, number>)['command'] as number;
  assert.ok(size > s.length && size < s.length + 100, `size ${size}`);
});

test('documents are logged as relaxed Extended JSON, numbers and ObjectIds as EJSON writes them', () => {
  const values = [
    new Int32(-5),
    new Int32(2147483647),
    new Double(1),
    new Double(-0),
    new Double(1.5),
    new Double(NaN),
    new Double(-Infinity),
    new Double(5e-324),
    new ObjectId('6b10269979753991db746fad'),
    Long.fromNumber(7),
    new Decimal128('1.10'),
  ];
  const doc = { v: values, nested: { x: new Int32(1), y: [new Double(2.5)] } };
  const out = logOnce({ filter: logDocument(doc) });
  assert.deepEqual(
    out['filter'],
    JSON.parse(JSON.stringify(EJSON.serialize(doc, { relaxed: true }))),
  );
});

test('names that JSON escapes count at their escaped length: the kept fields fit the limit', () => {
  const command: Record<string, unknown> = {};
  for (let i = 0; i < 400; i++) command[`${'"'.repeat(20)}${i}`] = 'x'.repeat(20);
  const out = logOnce({ command });
  assert.ok(out['truncated'] !== undefined);
  assert.ok(JSON.stringify(out['command']).length <= limits.logAttributeBytesMax);
});

test('a logged document is measured as its relaxed Extended JSON, and cut to the limit', () => {
  const scalar = fc.oneof(
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((n) => new Int32(n)),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => new Double(d)),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((b) => Long.fromBigInt(b)),
    fc.uint8Array({ minLength: 12, maxLength: 12 }).map((b) => new ObjectId(b)),
    // Dates EJSON writes as the logger does (ISO with milliseconds; the logger keeps ".000").
    fc
      .date({ noInvalidDate: true, min: new Date(0), max: new Date('9999-12-31') })
      .filter((d) => d.getUTCMilliseconds() !== 0),
    fc.string({ maxLength: 30 }).filter((t) => !secretLike.test(t)),
    // Quotes, backslashes, controls, astral characters and lone surrogates: what JSON escapes.
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.string({
      unit: fc.constantFrom('"', '\\', '\n', '\u0001', '\ud800', '\udc00', 'é'),
      maxLength: 6,
    }),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, scalar, tie('arr'), tie('doc')),
    arr: fc.array(tie('v'), { maxLength: 5 }),
    doc: fc.dictionary(
      fc.string({ unit: 'binary', maxLength: 8 }).filter((t) => !secretLike.test(t)),
      tie('v'),
      { maxKeys: 5 },
    ),
  })).v;
  fc.assert(
    fc.property(fc.array(value, { minLength: 1, maxLength: 400 }), fc.boolean(), (docs, big) => {
      const command: Record<string, unknown> = { insert: 'c', documents: docs, ordered: true };
      if (big) command['pad'] = 'p'.repeat(limits.logAttributeBytesMax);
      const out = logOnce({ command: logDocument(command) });
      const expected = JSON.stringify(EJSON.serialize(command, { relaxed: true }));
      if (expected.length <= limits.logAttributeBytesMax) {
        assert.equal(out['size'], undefined);
        assert.equal(JSON.stringify(out['command']), expected);
      } else {
        assert.deepEqual(out['size'], { command: expected.length });
        assert.ok(JSON.stringify(out['command']).length <= limits.logAttributeBytesMax);
        const kept = EJSON.serialize(command, { relaxed: true }) as Record<string, unknown>;
        for (const [k, v] of Object.entries(out['command'] as Record<string, unknown>))
          assert.deepEqual(v, JSON.parse(JSON.stringify(kept[k])), k);
      }
    }),
    { numRuns: 150 },
  );
});

test('a field named __proto__ is logged as a field, plain or in a logged document', () => {
  const doc = JSON.parse('{"a": 1, "__proto__": "x", "n": {"__proto__": {"y": 2}}}') as Record<
    string,
    unknown
  >;
  const line = (attr: Record<string, unknown>): string => {
    const lines: string[] = [];
    new Logger({ write: (l) => lines.push(l) }, 'info').info('COMMAND', 51803, 'Slow query', attr);
    return lines[0] as string;
  };
  for (const value of [doc, logDocument(doc)]) {
    const text = line({ command: value });
    assert.ok(text.includes('"command":{"a":1,"__proto__":"x","n":{"__proto__":{"y":2}}}'), text);
  }
});
