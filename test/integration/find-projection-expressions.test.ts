// Aggregation expressions in find projections (mongod 4.4+) through the official driver: computed
// fields, literals, field paths, $$REMOVE, how they mix with inclusion / exclusion, the
// positional `$`, $elemMatch and find's $slice, the errors for bad ones, and the same in
// findAndModify's `fields`. Expected results come from mongod's jstests
// (jstests/core/query/project/computed_projections.js, projection_expr_mod.js,
// jstests/core/command_let_variables.js), mongod's projection parser
// (src/mongo/db/query/projection_parser.cpp) and the manual, not from this server.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Decimal128, EJSON, Int32, Long } from 'bson';
import type { Collection, Db, Document } from 'mongodb';
import { expectServerCode, freshCollection } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let ts: TestServer;
let db: Db;

before(async () => {
  ts = await startTestServer();
  db = ts.client.db('find_projection_expressions');
});

after(async () => {
  await ts?.stop();
});

const fresh = (name: string, docs: Document[]): Promise<Collection<TestDoc>> =>
  freshCollection(db, name, docs);
const expectCode = expectServerCode;

const show = (v: unknown): string => EJSON.stringify(v as Document, { relaxed: false });

/** Field names and BSON types exactly, in order. */
function assertSameBson(got: unknown, want: unknown, what: string): void {
  assert.equal(show(got), show(want), what);
}

// The documents of computed_projections.js (numbers the shell writes as doubles are doubles here).
const d = (n: number): Document['x'] => n;
const computedDocs: Document[] = [
  { _id: 0, a: 1, b: 'x', c: 10, zero: 0 },
  { _id: 1, a: 2, b: 'y', c: 11 },
  { _id: 2, a: 3, b: 'z', c: 12 },
  { _id: 3, x: { y: 1 } },
  { _id: 4, x: { y: 2 } },
  { _id: 5, x: { y: [1, 2, 3] }, v: { w: [4, 5, 6] } },
  { _id: 6, x: { y: 4 }, v: { w: 4 } },
  { _id: 7, x: [{ y: 1 }], v: [{ w: 1 }] },
  { _id: 8, x: [{ y: 1 }, { y: 2 }], v: [{ w: 5 }, { w: 6 }] },
  { _id: 9, x: [{ y: 1 }, { y: [1, 2, 3] }], v: [{ w: 4 }, { w: [4, 5, 6] }] },
  { _id: 10, z: 1 },
  { _id: 11, z: 2 },
  { _id: 12, z: [1, 2, 3] },
  { _id: 13, z: 3 },
  { _id: 14, z: 4 },
  { _id: 15, a: 10, x: 1 },
  { _id: 16, a: 10, x: 10 },
  { _id: 17, x: { y: [{ z: 1 }, { z: 2 }] } },
  { _id: 18, x: [[{ y: 1 }, { y: 2 }], { y: 3 }, { y: 4 }, [[[{ y: 5 }]]], { y: 6 }] },
  { _id: 19, i: { j: 5 }, k: { l: 10 } },
  { _id: 20, x: [[{ y: 1 }, { y: 2 }], { y: 3 }, { y: 4 }, [[[{ y: 5 }]]], { y: 6 }] },
  {
    _id: 21,
    x: [
      [{ y: { z: 1 } }, { y: 2 }],
      { y: 3 },
      { y: { z: 2 } },
      [[[{ y: 5 }, { y: { z: 3 } }]]],
      { y: 6 },
    ],
  },
  {
    _id: 22,
    tf: [true, false],
    ff: [false, false],
    t: true,
    f: false,
    n: null,
    a: 1,
    b: 0,
    zero: 0,
  },
  { _id: 23, i1: new Int32(1), i2: new Int32(-1), i3: new Int32(-2147483648) },
  { _id: 24, l1: Long.fromString('12345678900'), l2: Long.fromString('-12345678900') },
  { _id: 25, s: 'string', l: Long.fromString('-9223372036854775808'), n: null },
  {
    _id: 26,
    d1: d(4.6),
    d2: d(-4.6),
    dec1: Decimal128.fromString('4.6'),
    dec2: Decimal128.fromString('-4.6'),
  },
  {
    _id: 27,
    dec1: Decimal128.fromString('-1.0'),
    dec2: Decimal128.fromString('2.0'),
    dec3: Decimal128.fromString('3.0'),
  },
];

/** {_id, foo: true/false} for every document, true for the listed _ids (the jstest's helper). */
function boolValues(spec: Record<string, number[]>): Document[] {
  return computedDocs.map((doc) => {
    const out: Document = { _id: doc['_id'] };
    for (const [k, ids] of Object.entries(spec)) out[k] = ids.includes(doc['_id'] as number);
    return out;
  });
}

const ids = (list: Array<[number, Document?]>): Document[] =>
  list.map(([id, rest]) => ({ _id: id, ...(rest ?? {}) }));
const all = (byId: Record<number, Document>): Document[] =>
  computedDocs.map((doc) => ({ _id: doc['_id'], ...(byId[doc['_id'] as number] ?? {}) }));

interface ComputedCase {
  readonly desc: string;
  readonly query: Document;
  readonly proj: Document;
  readonly expected?: Document[];
  readonly code?: number;
}

const computedCases: ComputedCase[] = [
  {
    desc: 'Single-level path 1',
    query: {},
    proj: { _id: 1, foo: '$a' },
    expected: all({
      0: { foo: 1 },
      1: { foo: 2 },
      2: { foo: 3 },
      15: { foo: 10 },
      16: { foo: 10 },
      22: { foo: 1 },
    }),
  },
  {
    desc: 'Single-level path 2',
    query: {},
    proj: { foo: '$a' },
    expected: all({
      0: { foo: 1 },
      1: { foo: 2 },
      2: { foo: 3 },
      15: { foo: 10 },
      16: { foo: 10 },
      22: { foo: 1 },
    }),
  },
  {
    desc: 'Two single-level paths',
    query: {},
    proj: { _id: 1, foo: '$a', bar: '$b' },
    expected: all({
      0: { foo: 1, bar: 'x' },
      1: { foo: 2, bar: 'y' },
      2: { foo: 3, bar: 'z' },
      15: { foo: 10 },
      16: { foo: 10 },
      22: { foo: 1, bar: 0 },
    }),
  },
  {
    desc: 'Simple addition',
    query: { c: { $gt: 0 } },
    proj: { foo: { $add: ['$a', '$c'] } },
    expected: ids([
      [0, { foo: 11 }],
      [1, { foo: 13 }],
      [2, { foo: 15 }],
    ]),
  },
  {
    desc: '$add with arity 1 and 3',
    query: { dec1: Decimal128.fromString('-1.0') },
    proj: { add1: { $add: '$dec1' }, add3: { $add: ['$dec1', '$dec2', '$dec3'] } },
    expected: ids([
      [27, { add1: Decimal128.fromString('-1.0'), add3: Decimal128.fromString('4.0') }],
    ]),
  },
  {
    desc: 'Single-level path 4',
    query: {},
    proj: { a: 1, foo: '$b' },
    expected: all({
      0: { a: 1, foo: 'x' },
      1: { a: 2, foo: 'y' },
      2: { a: 3, foo: 'z' },
      15: { a: 10 },
      16: { a: 10 },
      22: { a: 1, foo: 0 },
    }),
  },
  {
    desc: 'Two-level path 1',
    query: {},
    proj: { _id: 1, foo: '$x.y' },
    expected: all({
      3: { foo: 1 },
      4: { foo: 2 },
      5: { foo: [1, 2, 3] },
      6: { foo: 4 },
      7: { foo: [1] },
      8: { foo: [1, 2] },
      9: { foo: [1, [1, 2, 3]] },
      17: { foo: [{ z: 1 }, { z: 2 }] },
      18: { foo: [3, 4, 6] },
      20: { foo: [3, 4, 6] },
      21: { foo: [3, { z: 2 }, 6] },
    }),
  },
  {
    desc: 'Addition of two-level paths',
    query: { 'i.j': { $gt: 0 } },
    proj: { foo: { $add: ['$i.j', '$k.l'] } },
    expected: ids([[19, { foo: 15 }]]),
  },
  {
    desc: '$abs operator',
    query: { i1: 1 },
    proj: { abs_i1: { $abs: '$i1' }, abs_i2: { $abs: '$i2' }, abs_i3: { $abs: '$i3' } },
    expected: ids([[23, { abs_i1: 1, abs_i2: 1, abs_i3: 2147483648 }]]),
  },
  {
    desc: '$abs with string input',
    query: { s: 'string' },
    proj: { abs_s: { $abs: '$s' } },
    code: 28765,
  },
  {
    desc: '$abs with MIN_LONG_LONG input',
    query: { s: 'string' },
    proj: { abs_l: { $abs: '$l' } },
    code: 28680,
  },
  {
    desc: '$abs with missing input',
    query: { s: 'string' },
    proj: { abs_n: { $abs: '$n' }, abs_ne: { $abs: '$non_existent' } },
    expected: ids([[25, { abs_n: null, abs_ne: null }]]),
  },
  {
    desc: 'Single-branch $and',
    query: {},
    proj: { foo: { $and: ['$a'] } },
    expected: boolValues({ foo: [0, 1, 2, 15, 16, 22] }),
  },
  {
    desc: '$and with array branch',
    query: { _id: 22, a: 1 },
    proj: { foo: { $and: [] }, bar: { $and: ['$tf', '$t', '$a'] } },
    expected: ids([[22, { foo: true, bar: true }]]),
  },
  {
    desc: 'Three-branch $or',
    query: { _id: 22, a: 1 },
    proj: { foo: { $or: [] }, bar: { $or: ['$f', '$n', '$nonexistent'] } },
    expected: ids([[22, { foo: false, bar: false }]]),
  },
  {
    desc: 'Single-case $switch with default',
    query: {},
    proj: {
      foo: { $switch: { branches: [{ case: { $eq: ['$a', 1] }, then: '$b' }], default: '$c' } },
    },
    expected: all({ 0: { foo: 'x' }, 1: { foo: 11 }, 2: { foo: 12 }, 22: { foo: 0 } }),
  },
  {
    desc: '$cond',
    query: {},
    proj: { foo: { $cond: { if: { $eq: ['$a', 1] }, then: '$b', else: '$c' } } },
    expected: all({ 0: { foo: 'x' }, 1: { foo: 11 }, 2: { foo: 12 }, 22: { foo: 0 } }),
  },
  {
    desc: 'Switch fall-through with no default',
    query: {},
    proj: {
      foo: {
        $switch: {
          branches: [
            { case: { $eq: ['$a', 1] }, then: '$b' },
            { case: { $eq: ['$b', 'y'] }, then: '$a' },
          ],
        },
      },
    },
    code: 40066,
  },
  {
    desc: '$abs with string input as short-circuited $and branch',
    query: { s: 'string' },
    proj: { foo: { $and: ['$n', { $abs: ['$s'] }] } },
    expected: ids([[25, { foo: false }]]),
  },
  {
    desc: '$divide by zero in untaken $cond branch (else)',
    query: { a: 1 },
    proj: {
      foo: { $cond: { if: { $eq: ['$a', 1] }, then: '$b', else: { $divide: [1, '$zero'] } } },
    },
    expected: ids([
      [0, { foo: 'x' }],
      [22, { foo: 0 }],
    ]),
  },
  {
    desc: '$let with $and variable definition',
    query: {},
    proj: { foo: { $let: { vars: { va: { $and: ['$a', '$b'] } }, in: '$$va' } } },
    expected: boolValues({ foo: [0, 1, 2] }),
  },
  {
    desc: '$let renaming $$CURRENT',
    query: {},
    proj: { foo: { $let: { vars: { doc: '$$CURRENT' }, in: '$$doc.a' } } },
    expected: all({
      0: { foo: 1 },
      1: { foo: 2 },
      2: { foo: 3 },
      15: { foo: 10 },
      16: { foo: 10 },
      22: { foo: 1 },
    }),
  },
  {
    desc: '$$REMOVE',
    query: {},
    proj: { a: '$$REMOVE' },
    expected: computedDocs.map((doc) => ({ _id: doc['_id'] })),
  },
  {
    desc: '$$REMOVE with additional path components',
    query: {},
    proj: { a: '$$REMOVE.x.y' },
    expected: computedDocs.map((doc) => ({ _id: doc['_id'] })),
  },
  {
    desc: '$lt',
    query: {},
    proj: {
      foo: { $lt: ['$a', '$x'] },
      bar: { $lt: ['$a', '$b'] },
      baz: { $lt: ['$x.y', '$v.w'] },
      qux: { $lt: ['$a', '$nonexistent'] },
    },
    expected: boolValues({
      foo: [3, 4, 5, 6, 7, 8, 9, 17, 18, 20, 21],
      bar: [0, 1, 2],
      baz: [5, 8, 9],
      qux: [],
    }),
  },
];

describe('find projection expressions: computed_projections.js', () => {
  let coll: Collection<TestDoc>;
  before(async () => {
    coll = await fresh('computed', computedDocs);
  });

  for (const c of computedCases) {
    test(c.desc, async () => {
      const run = coll.find(c.query, { projection: c.proj, sort: { _id: 1 } }).toArray();
      if (c.code !== undefined) {
        await expectCode(run, c.code);
        return;
      }
      // Relaxed Extended JSON: numbers by value, Decimal128 by digits, fields in order.
      assert.equal(EJSON.stringify(await run), EJSON.stringify(c.expected ?? null));
    });
  }

  test('the same projection through an index scan (a computed field is read from the document)', async () => {
    const c = await fresh('computed_indexed', computedDocs);
    await c.createIndex({ a: 1 });
    const got = await c
      .find({ a: { $gte: 2 } }, { projection: { _id: 0, foo: '$a', a: 1 }, sort: { a: 1 } })
      .toArray();
    assert.deepStrictEqual(got, [
      { a: 2, foo: 2 },
      { a: 3, foo: 3 },
      { a: 10, foo: 10 },
      { a: 10, foo: 10 },
    ]);
  });
});

describe('find projection expressions: types and order', () => {
  test('$mod keeps mongod type promotion (projection_expr_mod.js)', async () => {
    const c = await fresh('mod', [
      { _id: 1, n: 'int % int', v: new Int32(8), m: new Int32(3) },
      { _id: 2, n: 'int % long', v: new Int32(8), m: Long.fromNumber(3) },
      { _id: 3, n: 'long % double', v: Long.fromNumber(8), m: 3.25 },
      { _id: 4, n: 'double % int', v: 138.5, m: new Int32(3) },
    ]);
    const got = await c
      .find(
        {},
        {
          projection: { f: { $mod: ['$v', '$m'] }, _id: 0, n: 1 },
          sort: { _id: 1 },
          promoteValues: false,
        },
      )
      .toArray();
    // Included fields first, then computed ones (mongod's inclusion executor).
    assertSameBson(
      got,
      [
        { n: 'int % int', f: new Int32(2) },
        { n: 'int % long', f: Long.fromNumber(2) },
        { n: 'long % double', f: 1.5 },
        { n: 'double % int', f: 0.5 },
      ],
      '$mod results',
    );
    await fresh('mod', [{ _id: 1, a: 10 }]);
    await expectCode(c.find({}, { projection: { f: { $mod: ['$a', 0] } } }).toArray(), 16610);
  });

  test('computed fields come after the included ones, in specification order', async () => {
    const c = await fresh('order', [{ _id: 1, a: 1, b: 2, c: 3 }]);
    const [got] = await c
      .find({}, { projection: { z: { $add: ['$a', '$b'] }, c: 1, y: 'lit', a: 1 } })
      .toArray();
    assert.deepEqual(Object.keys(got ?? {}), ['_id', 'a', 'c', 'z', 'y']);
    assert.deepEqual(got, { _id: 1, a: 1, c: 3, z: 3, y: 'lit' });
  });

  test('$literal, literals, arrays of expressions and a computed _id', async () => {
    const c = await fresh('literals', [{ _id: 1, a: 5, s: 'x' }]);
    const got = await c
      .find(
        {},
        {
          projection: {
            _id: '$s',
            lit: { $literal: '$a' },
            one: { $literal: 1 },
            arr: ['$a', { $add: ['$a', 1] }, 'k'],
            t: true,
          },
        },
      )
      .toArray();
    // `t: true` is an inclusion of a field the document lacks.
    assert.deepEqual(got, [{ _id: 'x', lit: '$a', one: 1, arr: [5, 6, 'k'] }]);
  });

  test('a computed field on a dotted path builds the subdocument, also through arrays', async () => {
    const c = await fresh('dotted', [
      { _id: 1, a: [{ b: 1 }, { b: 2 }], k: 7 },
      { _id: 2, k: 8 },
    ]);
    const got = await c.find({}, { projection: { 'a.c': '$k' }, sort: { _id: 1 } }).toArray();
    assert.deepEqual(got, [
      { _id: 1, a: [{ c: 7 }, { c: 7 }] },
      { _id: 2, a: { c: 8 } },
    ]);
  });

  test('the manual example: $switch, $concat of $toString and $literal', async () => {
    const c = await fresh('inventory', [
      {
        _id: 1,
        item: 'postcard',
        status: 'A',
        size: { h: 10, w: 15.25, uom: 'cm' },
        instock: [{ warehouse: 'B', qty: 15 }],
      },
    ]);
    const got = await c
      .find(
        {},
        {
          projection: {
            _id: 0,
            item: 1,
            status: {
              $switch: {
                branches: [
                  { case: { $eq: ['$status', 'A'] }, then: 'Available' },
                  { case: { $eq: ['$status', 'D'] }, then: 'Discontinued' },
                ],
                default: 'No status found',
              },
            },
            area: {
              $concat: [{ $toString: { $multiply: ['$size.h', '$size.w'] } }, ' ', '$size.uom'],
            },
            reportNumber: { $literal: 1 },
          },
        },
      )
      .toArray();
    assert.deepEqual(got, [
      { item: 'postcard', status: 'Available', area: '152.5 cm', reportNumber: 1 },
    ]);
  });
});

describe('find projection expressions: with find-only operators', () => {
  test('the positional $ and an expression in one inclusion', async () => {
    const c = await fresh('positional', [{ _id: 1, a: [1, 2, 3], b: 4 }]);
    const got = await c.find({ a: 2 }, { projection: { 'a.$': 1, s: { $size: '$a' } } }).toArray();
    assert.deepEqual(got, [{ _id: 1, a: [2], s: 3 }]);
  });

  test('$elemMatch and an expression', async () => {
    const c = await fresh('elemmatch', [{ _id: 1, g: [{ s: 8 }, { s: 5 }] }]);
    const got = await c
      .find({}, { projection: { g: { $elemMatch: { s: 5 } }, n: { $size: '$g' } } })
      .toArray();
    assert.deepEqual(got, [{ _id: 1, g: [{ s: 5 }], n: 2 }]);
  });

  test("$slice that is not find's syntax is the $slice expression", async () => {
    const c = await fresh('slice', [{ _id: 1, arr: [1, 2, 3, 4] }]);
    // ['$arr', 1]: the skip is not a number (31257 in find syntax), so the expression runs.
    assert.deepEqual(await c.find({}, { projection: { s: { $slice: ['$arr', 1] } } }).toArray(), [
      { _id: 1, s: [1] },
    ]);
    // Three arguments: not [skip, limit] (31272), the expression's [array, position, n].
    assert.deepEqual(
      await c.find({}, { projection: { s: { $slice: ['$arr', 1, 2] } } }).toArray(),
      [{ _id: 1, s: [2, 3] }],
    );
    // find's own $slice still slices the stored field.
    assert.deepEqual(await c.find({}, { projection: { arr: { $slice: [1, 2] } } }).toArray(), [
      { _id: 1, arr: [2, 3] },
    ]);
  });

  test('$slice that fits neither syntax reports both, with the expression error code', async () => {
    const c = await fresh('slice', [{ _id: 1, arr: [1, 2, 3, 4] }]);
    const e = await expectCode(c.find({}, { projection: { s: { $slice: 'x' } } }).toArray(), 28667);
    assert.match(
      e.message,
      /^Invalid \$slice syntax\. The given syntax .* did not match the find\(\) syntax because :: Location31273: \$slice only supports numbers and \[skip, limit\] arrays :: The given syntax did not match the expression \$slice syntax\. :: caused by :: Expression \$slice takes at least 2 arguments, and at most 3, but 1 were passed in\.$/,
    );
    // [1, 2, 3] parses as the expression; its first argument is not an array when it runs.
    await expectCode(c.find({}, { projection: { s: { $slice: [1, 2, 3] } } }).toArray(), 28724);
  });
});

describe('find projection expressions: errors', () => {
  let c: Collection<TestDoc>;
  before(async () => {
    c = await fresh('errors', [{ _id: 1, a: [1, 2, 3] }]);
  });

  test('an expression after an exclusion is 31252, an exclusion after an expression 31254', async () => {
    await expectCode(c.find({}, { projection: { x: 0, y: { $add: [1, 2] } } }).toArray(), 31252);
    await expectCode(c.find({}, { projection: { y: { $add: [1, 2] }, x: 0 } }).toArray(), 31254);
    await expectCode(c.find({}, { projection: { x: 0, y: '$a' } }).toArray(), 31310);
  });

  test('_id: 0 may stand beside expressions', async () => {
    assert.deepEqual(await c.find({}, { projection: { _id: 0, n: { $size: '$a' } } }).toArray(), [
      { n: 3 },
    ]);
  });

  test('an unknown $-name is 31325, but $id / $ref / $db name DBRef fields', async () => {
    await expectCode(c.find({}, { projection: { y: { $foo: 1 } } }).toArray(), 31325);
    await fresh('dbrefs', [{ _id: 1, r: { $ref: 'x', $id: 5, $db: 'd' } }]);
    const got = await db.command({ find: 'dbrefs', projection: { r: { $id: 1 } } });
    assert.deepEqual((got['cursor'] as Document)['firstBatch'], [{ _id: 1, r: { $id: 5 } }]);
  });

  test('the positional $ cannot take an expression or a literal', async () => {
    await expectCode(
      c.find({ a: 1 }, { projection: { 'a.$': { $add: [1, 2] } } }).toArray(),
      31271,
    );
    await expectCode(c.find({ a: 1 }, { projection: { 'a.$': '$a' } }).toArray(), 31308);
  });

  test("a '$' name beside other fields is a field name (16410); a bad argument is the operator's error", async () => {
    await expectCode(c.find({}, { projection: { y: { $add: [1], b: 1 } } }).toArray(), 16410);
    await expectCode(c.find({}, { projection: { y: { $abs: [1, 2] } } }).toArray(), 16020);
  });

  test('an undefined variable is 17276', async () => {
    await expectCode(c.find({}, { projection: { y: '$$nope' } }).toArray(), 17276);
  });
});

describe('find projection expressions: let variables (command_let_variables.js)', () => {
  let c: Collection<TestDoc>;
  before(async () => {
    c = await fresh('let', [{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
  });

  test('a let variable initialised with an expression', async () => {
    const r = await db.command({
      find: 'let',
      filter: {},
      projection: { _id: '$$a' },
      limit: 1,
      let: { a: { $add: [2, 3] } },
    });
    assert.deepEqual((r['cursor'] as Document)['firstBatch'], [{ _id: 5 }]);
  });

  test('each let expression sees the earlier ones', async () => {
    const r = await db.command({
      find: 'let',
      filter: {},
      projection: { _id: '$$c' },
      limit: 1,
      let: { a: 2, b: { $add: ['$$a', 3] }, c: { $multiply: ['$$a', '$$b'] } },
    });
    assert.deepEqual((r['cursor'] as Document)['firstBatch'], [{ _id: 10 }]);
  });

  test('let expressions are evaluated once, each separately', async () => {
    const got = await c
      .find({}, { projection: { _id: '$$a' }, let: { a: { $rand: {} } } })
      .toArray();
    assert.equal(got.length, 3);
    assert.equal(new Set(got.map((x) => x['_id'])).size, 1);
    const [four] = await c
      .find(
        {},
        {
          projection: { _id: ['$$a', '$$b', '$$c', '$$d'] },
          limit: 1,
          let: { a: { $rand: {} }, b: { $rand: {} }, c: { $rand: {} }, d: { $rand: {} } },
        },
      )
      .toArray();
    assert.equal(new Set(four?.['_id'] as unknown as number[]).size, 4);
  });

  test('findAndModify fields: expressions read the document and the let variables', async () => {
    await fresh('fam', [{ _id: 1, a: 2, b: 3 }]);
    const r = await db.command({
      findAndModify: 'fam',
      query: { _id: 1 },
      update: { $inc: { a: 1 } },
      new: true,
      fields: { _id: 0, total: { $add: ['$a', '$b', '$$k'] } },
      let: { k: 10 },
    });
    assert.deepEqual(r['value'], { total: 16 });
  });
});

// jstests/core/query/find_and_modify/find_and_modify_positional_new_remove.js
describe('findAndModify fields: the positional $', () => {
  const people = [
    { name: 'john', value: 1 },
    { name: 'jess', value: 2 },
    { name: 'jeff', value: 3 },
  ];

  test('takes the position the query matched in the document found (remove, new: false)', async () => {
    await fresh('fampos', [{ _id: 42, a: [1, 2] }]);
    const removed = await db.command({
      findAndModify: 'fampos',
      query: { a: 2 },
      fields: { 'a.$': 1 },
      remove: true,
    });
    assert.deepEqual(removed['value'], { _id: 42, a: [2] });
    await fresh('fampos', [{ _id: 42, b: people }]);
    const old = await db.command({
      findAndModify: 'fampos',
      query: { b: { $elemMatch: { name: 'john', value: { $lt: 2 } } } },
      fields: { _id: 0, 'b.$': 1 },
      update: { $set: { name: 'james' } },
      new: false,
    });
    assert.deepEqual(old['value'], { b: [{ name: 'john', value: 1 }] });
  });

  test('cannot be used with new: true (BadValue), and nothing is written', async () => {
    const c = await fresh('fampos', [{ _id: 42, a: [1, 2] }]);
    const e = await expectCode(
      db.command({
        findAndModify: 'fampos',
        query: { a: 2 },
        fields: { 'a.$': 1 },
        update: { $set: { 'b.kind': 'xyz' } },
        new: true,
      }),
      2,
    );
    assert.equal(e.message, 'cannot use a positional projection and return the new document');
    assert.deepEqual(await c.findOne({ _id: 42 }), { _id: 42, a: [1, 2] });
  });

  test('$elemMatch in fields reads the document returned, the new one included', async () => {
    await fresh('fampos', [
      {
        _id: 1,
        a: [
          { x: 1, y: 1 },
          { x: 1, y: 2 },
        ],
      },
    ]);
    const r = await db.command({
      findAndModify: 'fampos',
      query: { _id: 1 },
      fields: { a: { $elemMatch: { x: 1 } } },
      update: { $pop: { a: -1 } },
      new: true,
    });
    assert.deepEqual(r['value'], { _id: 1, a: [{ x: 1, y: 2 }] });
  });
});
