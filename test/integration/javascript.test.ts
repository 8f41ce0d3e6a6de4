// Server-side JavaScript through the official driver: $where (string, Code, in find, count,
// delete and aggregate $match; refused where mongod refuses it), $function, $accumulator and
// mapReduce, with mongod's JS types crossing into the sandbox (this.field, obj, ObjectId,
// NumberLong, Date); hostile code (an endless loop, a huge allocation, reaching for process,
// require or the host's globals, throwing) fails with mongod's codes while other clients are
// served; --noscripting (javascriptEnabled: false) brings back mongod's refusals.

import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Code, Int32, Long, ObjectId } from 'mongodb';
import type { Collection, Db, Document } from 'mongodb';
import { expectServerCode, freshCollection } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let ts: TestServer;
let off: TestServer;
let db: Db;

before(async () => {
  [ts, off] = await Promise.all([startTestServer(), startTestServer({ javascriptEnabled: false })]);
  db = ts.client.db('js_tests');
});

after(async () => {
  await Promise.all([ts?.stop(), off?.stop()]);
});

const fresh = (name: string, docs: Document[]): Promise<Collection<TestDoc>> =>
  freshCollection(db, name, docs);
const ids = (docs: Document[]): unknown[] => docs.map((d) => d['_id']);
/** A reply without the fields every reply carries ($clusterTime, operationTime). */
const body = (reply: Document): Document => {
  const { $clusterTime: _c, operationTime: _o, ...rest } = reply;
  return rest;
};

const people = [
  { _id: 1, name: 'ann', age: 31, tags: ['a', 'b'] },
  { _id: 2, name: 'bob', age: 17, tags: [] },
  { _id: 3, name: 'cy', age: 45, tags: ['b'] },
];

test('$where takes an expression string, a function string and Code, with this and obj', async () => {
  const c = await fresh('where_basic', people);
  assert.deepEqual(
    ids(await c.find({ $where: 'this.age > 18' }).sort({ _id: 1 }).toArray()),
    [1, 3],
  );
  assert.deepEqual(
    ids(await c.find({ $where: 'function() { return obj.tags.length === 1; }' }).toArray()),
    [3],
  );
  assert.deepEqual(
    ids(
      await c.find({ $where: new Code('return this.name.startsWith("b")') } as Document).toArray(),
    ),
    [2],
  );
  // Combined with other predicates, in count and in delete.
  assert.equal(await c.countDocuments({ age: { $gt: 20 }, $where: 'this.name.length === 2' }), 1);
  const r = await c.deleteMany({ $where: 'this.age < 18' });
  assert.equal(r.deletedCount, 1);
  assert.deepEqual(ids(await c.find().sort({ _id: 1 }).toArray()), [1, 3]);
});

test('$where in an aggregate $match', async () => {
  const c = await fresh('where_agg', people);
  const out = await c
    .aggregate([{ $match: { $where: 'this.tags.indexOf("b") >= 0' } }, { $sort: { _id: 1 } }])
    .toArray();
  assert.deepEqual(ids(out), [1, 3]);
});

test('BSON values reach the code as mongod JS types', async () => {
  const oid = new ObjectId('64b7f0c2a1b2c3d4e5f60718');
  const c = await fresh('where_types', [
    {
      _id: 1,
      o: oid,
      n: Long.fromString('9007199254740993'),
      d: new Date(86_400_000),
      i: new Int32(7),
    },
  ]);
  const checks = [
    'this.o instanceof ObjectId && this.o.str === "64b7f0c2a1b2c3d4e5f60718"',
    'this.n instanceof NumberLong && this.n.toString() === \'NumberLong("9007199254740993")\'',
    'this.d instanceof Date && this.d.getTime() === 86400000',
    'typeof this.i === "number" && this.i === 7',
    'this.missing === undefined',
  ];
  for (const check of checks) {
    assert.equal(await c.countDocuments({ $where: check }), 1, check);
  }
});

test('$where is refused where mongod refuses it', async () => {
  const c = await fresh('where_refused', people);
  await expectServerCode(c.find({ a: { $elemMatch: { $where: 'true' } } }).toArray(), 2);
  await expectServerCode(c.find({ a: { $where: 'true' } }).toArray(), 2);
  await expectServerCode(
    db.createCollection('where_validator', { validator: { $where: 'true' } }),
    2,
  );
  await expectServerCode(c.find({ $where: 5 } as Document).toArray(), 2);
});

test('$function: body as a string or Code, args evaluated per document', async () => {
  const c = await fresh('function_basic', people);
  const out = await c
    .aggregate([
      {
        $project: {
          greeting: {
            $function: {
              body: 'function(n, a) { return n + " is " + a; }',
              args: ['$name', '$age'],
              lang: 'js',
            },
          },
          // A missing field is null in an array expression, as in mongod.
          missing: {
            $function: {
              body: new Code('function(x) { return x === null; }'),
              args: ['$nope'],
              lang: 'js',
            },
          },
        },
      },
      { $sort: { _id: 1 } },
    ])
    .toArray();
  assert.deepEqual(out[0], { _id: 1, greeting: 'ann is 31', missing: true });
  // In find's $expr too.
  const found = await c
    .find({
      $expr: {
        $function: { body: 'function(a) { return a % 2 === 1; }', args: ['$age'], lang: 'js' },
      },
    })
    .sort({ _id: 1 })
    .toArray();
  // Ages 31, 17, 45: all odd.
  assert.deepEqual(ids(found), [1, 2, 3]);
});

test("$function errors are mongod's", async () => {
  const c = await fresh('function_errors', people);
  const run = (f: Document): Promise<unknown> =>
    c.aggregate([{ $project: { x: { $function: f } } }]).toArray();
  await expectServerCode(run({ args: [], lang: 'js' }), 31261);
  await expectServerCode(run({ body: 1, args: [], lang: 'js' }), 31262);
  await expectServerCode(run({ body: 'function(){}', lang: 'js' }), 31263);
  await expectServerCode(run({ body: 'function(){}', args: [] }), 31418);
  await expectServerCode(run({ body: 'function(){}', args: [], lang: 'py' }), 31419);
  await expectServerCode(run({ body: 'function(){}', args: '$name', lang: 'js' }), 31266);
  await expectServerCode(
    run({ body: 'function(){ throw new Error("boom"); }', args: [], lang: 'js' }),
    139,
  );
});

test('$accumulator: init, initArgs, accumulate, accumulateArgs, merge, finalize', async () => {
  const c = await fresh('accumulator', [
    { _id: 1, g: 'x', v: 1 },
    { _id: 2, g: 'x', v: 2 },
    { _id: 3, g: 'y', v: 10 },
  ]);
  const out = await c
    .aggregate([
      {
        $group: {
          _id: '$g',
          avg: {
            $accumulator: {
              init: 'function(start) { return { sum: start, n: 0 }; }',
              initArgs: [100],
              accumulate: 'function(s, v) { return { sum: s.sum + v, n: s.n + 1 }; }',
              accumulateArgs: ['$v'],
              merge: 'function(a, b) { return { sum: a.sum + b.sum, n: a.n + b.n }; }',
              finalize: 'function(s) { return s.sum / s.n; }',
              lang: 'js',
            },
          },
          state: {
            $accumulator: {
              init: 'function() { return []; }',
              accumulate: 'function(s, v, id) { s.push(v * 2); return s; }',
              accumulateArgs: ['$v', '$_id'],
              merge: 'function(a, b) { return a.concat(b); }',
              lang: 'js',
            },
          },
        },
      },
      { $sort: { _id: 1 } },
    ])
    .toArray();
  assert.deepEqual(out, [
    { _id: 'x', avg: 103 / 2, state: [2, 4] },
    { _id: 'y', avg: 110, state: [20] },
  ]);
  await expectServerCode(
    c
      .aggregate([
        {
          $group: {
            _id: null,
            a: {
              $accumulator: {
                init: 'function(){}',
                accumulateArgs: [],
                merge: 'function(){}',
                lang: 'js',
              },
            },
          },
        },
      ])
      .toArray(),
    4544702,
  );
});

test('hostile code: an endless loop stops at the limit and other clients are served', async () => {
  const c = await fresh('hostile_loop', [{ _id: 1 }]);
  const other = await ts.newClient();
  const slow = expectServerCode(c.find({ $where: 'while (true) {}' }).toArray(), 139);
  const pings = (async () => {
    for (let i = 0; i < 3; i++) await other.db('admin').command({ ping: 1 });
  })();
  await Promise.all([slow, pings]);
  // With maxTimeMS the operation's deadline stops it first.
  await expectServerCode(c.find({ $where: 'for (;;) {}' }).maxTimeMS(50).toArray(), 50);
  assert.equal(await c.countDocuments({}), 1);
});

test('hostile code: a huge allocation, recursion, and reaching for the host fail cleanly', async () => {
  const c = await fresh('hostile_escape', [{ _id: 1 }]);
  const e = await expectServerCode(
    c.find({ $where: 'var s = "x"; for (;;) s = s + s; return true' }).toArray(),
    139,
  );
  assert.match(e.message, /string too long|Out of memory/);
  await expectServerCode(
    c.find({ $where: 'var a = []; for (;;) a.push(new Array(1000)); ' }).toArray(),
    139,
  );
  await expectServerCode(
    c.find({ $where: 'function f() { return f() + 1 } return f()' }).toArray(),
    139,
  );
  for (const probe of [
    'typeof process === "undefined"',
    'typeof require === "undefined"',
    'typeof setTimeout === "undefined"',
    'function() { return typeof globalThis.constructor.constructor("return this")().process === "undefined" }',
    'function() { return typeof (function(){ return this })().process === "undefined" }',
    'function() { try { return typeof eval("import.meta") !== "object" } catch (e) { return true } }',
    'function() { return Object.keys(globalThis).every(k => k !== "process" && k !== "Buffer") }',
  ]) {
    assert.equal(await c.countDocuments({ $where: probe }), 1, probe);
  }
  const thrown = await expectServerCode(
    c.find({ $where: 'throw new TypeError("nope")' }).toArray(),
    139,
  );
  assert.match(thrown.message, /TypeError: nope/);
  // The server still works after all of that, sandbox included.
  assert.equal(await c.countDocuments({ $where: 'this._id === 1' }), 1);
});

test('javascriptEnabled: false answers as mongod with --noscripting', async () => {
  const c = off.client.db('js_tests').collection<TestDoc>('noscripting');
  await c.insertOne({ _id: 1, a: 1 });
  await expectServerCode(c.find({ $where: 'true' }).toArray(), 6108304);
  await expectServerCode(
    c
      .aggregate([
        { $project: { x: { $function: { body: 'function(){}', args: [], lang: 'js' } } } },
      ])
      .toArray(),
    31264,
  );
  await expectServerCode(
    c
      .aggregate([
        {
          $group: {
            _id: null,
            a: {
              $accumulator: {
                init: 'function(){}',
                accumulate: 'function(){}',
                accumulateArgs: [],
                merge: 'function(){}',
                lang: 'js',
              },
            },
          },
        },
      ])
      .toArray(),
    31264,
  );
  const info = await off.client.db('admin').command({ buildInfo: 1 });
  assert.equal(info['javascriptEngine'], 'none');
});

const orders = [
  { _id: 1, cust: 'a', amount: 10, status: 'A' },
  { _id: 2, cust: 'a', amount: 5, status: 'A' },
  { _id: 3, cust: 'b', amount: 7, status: 'B' },
  { _id: 4, cust: 'c', amount: 1, status: 'A' },
];
const mapFn = 'function() { emit(this.cust, this.amount); }';
const reduceFn = 'function(key, values) { return Array.sum(values); }';

test('mapReduce inline: query, sort, limit, finalize, scope', async () => {
  await fresh('mr_orders', orders);
  const inline = body(
    await db.command({
      mapReduce: 'mr_orders',
      map: mapFn,
      reduce: reduceFn,
      out: { inline: 1 },
    }),
  );
  assert.deepEqual(inline, {
    results: [
      { _id: 'a', value: 15 },
      { _id: 'b', value: 7 },
      { _id: 'c', value: 1 },
    ],
    ok: 1,
  });
  const filtered = await db.command({
    mapReduce: 'mr_orders',
    map: new Code('function() { emit(this.cust, { n: 1, total: this.amount * factor }); }'),
    reduce: new Code(
      'function(k, vs) { var r = { n: 0, total: 0 }; vs.forEach(function(v) { r.n += v.n; r.total += v.total; }); return r; }',
    ),
    finalize: new Code('function(k, v) { return v.total / v.n; }'),
    query: { status: 'A' },
    sort: { _id: -1 },
    limit: 2,
    scope: { factor: 2 },
    jsMode: true,
    out: { inline: 1 },
  });
  // Docs 4 and 2 (the first two by _id descending with status A).
  assert.deepEqual(filtered['results'], [
    { _id: 'a', value: 10 },
    { _id: 'c', value: 2 },
  ]);
});

test('mapReduce into a collection: replace, merge, reduce, and another db', async () => {
  await fresh('mr_src', orders);
  await fresh('mr_out', [
    { _id: 'a', value: 100 },
    { _id: 'z', value: 1 },
  ]);
  const base = { mapReduce: 'mr_src', map: mapFn, reduce: reduceFn };
  const sorted = (name: string, dbName = 'js_tests'): Promise<Document[]> =>
    ts.client.db(dbName).collection(name).find().sort({ _id: 1 }).toArray();

  assert.deepEqual(body(await db.command({ ...base, out: { reduce: 'mr_out' } })), {
    result: 'mr_out',
    ok: 1,
  });
  assert.deepEqual(await sorted('mr_out'), [
    { _id: 'a', value: 115 },
    { _id: 'b', value: 7 },
    { _id: 'c', value: 1 },
    { _id: 'z', value: 1 },
  ]);
  await db.command({ ...base, out: { merge: 'mr_out' } });
  assert.deepEqual(await sorted('mr_out'), [
    { _id: 'a', value: 15 },
    { _id: 'b', value: 7 },
    { _id: 'c', value: 1 },
    { _id: 'z', value: 1 },
  ]);
  assert.deepEqual(body(await db.command({ ...base, out: 'mr_out' })), { result: 'mr_out', ok: 1 });
  assert.deepEqual(ids(await sorted('mr_out')), ['a', 'b', 'c']);
  assert.deepEqual(
    body(await db.command({ ...base, out: { replace: 'mr_other', db: 'js_tests_out' } })),
    { result: { db: 'js_tests_out', collection: 'mr_other' }, ok: 1 },
  );
  assert.deepEqual(ids(await sorted('mr_other', 'js_tests_out')), ['a', 'b', 'c']);
});

test('mapReduce errors: missing fields, bad out, throwing functions; nothing written', async () => {
  await fresh('mr_bad', orders);
  const base = { mapReduce: 'mr_bad', map: mapFn, reduce: reduceFn };
  await expectServerCode(
    db.command({ mapReduce: 'mr_bad', reduce: reduceFn, out: { inline: 1 } }),
    40414,
  );
  await expectServerCode(
    db.command({ mapReduce: 'mr_bad', map: mapFn, out: { inline: 1 } }),
    40414,
  );
  await expectServerCode(db.command({ ...base }), 40414);
  await expectServerCode(db.command({ ...base, out: 5 }), 13606);
  await expectServerCode(db.command({ ...base, out: { db: 'x' } }), 13522);
  await expectServerCode(db.command({ ...base, map: 5, out: { inline: 1 } }), 14);
  await expectServerCode(
    db.command({ ...base, map: 'function() { emit(1); }', out: { inline: 1 } }),
    139,
  );
  await expectServerCode(
    db.command({ ...base, reduce: 'function() { throw new Error("r"); }', out: 'mr_bad_out' }),
    139,
  );
  const names = (await db.listCollections({ name: 'mr_bad_out' }).toArray()).map((c) => c.name);
  assert.deepEqual(names, []);
  await expectServerCode(off.client.db('js_tests').command({ ...base, out: { inline: 1 } }), 31264);
});
