// Long reads share the event loop (src/query/exec/yield.ts): while one runs, another client is
// served; maxTimeMS stops it mid-operation with MaxTimeMSExpired (50) and killOp from another
// connection with Interrupted (11601), for every kind of long read: a find scan, a sort, a
// group, a $lookup, the computing stages ($bucketAuto, $setWindowFields, $graphLookup), count,
// distinct, and a regular expression waiting in its worker. Results
// of a yielding read equal a collection scan's ($in with 100,000 values).
//
// No timing is asserted: "answered while it runs" is checked as an order of events (the ping
// settles while the long read has not), and each long read is ended by the test itself.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Collection, Db, Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

const DOCS = 20_000;

/**
 * An expression that costs ~tens of microseconds per document. It reads a field, so it cannot
 * be folded into a constant once at parse time (a constant $range is: the read would then be
 * fast enough to end before a 100 ms maxTimeMS on a quiet machine).
 */
const slowValue = { $size: { $range: [0, { $add: [4000, { $multiply: ['$a', 0] }] }] } };
/** A filter of that cost that matches nothing. */
const slowFilter = { $expr: { $lt: [slowValue, 0] } };

interface Tracked<T> {
  readonly promise: Promise<T>;
  settled(): boolean;
}

function track<T>(p: Promise<T>): Tracked<T> {
  let done = false;
  const promise = p.finally(() => {
    done = true;
  });
  // The test reads the outcome later; keep an early rejection from being reported as unhandled.
  promise.catch(() => undefined);
  return { promise, settled: () => done };
}

async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return e instanceof MongoServerError && typeof e.code === 'number' ? e.code : -1;
  }
}

/** The long reads under test, each tagged with a comment so currentOp can find it. */
type LongRead = (db: Db, options: { maxTimeMS?: number; comment: string }) => Promise<unknown>;

const longReads: Record<string, LongRead> = {
  'find scan': (db, o) => db.collection<TestDoc>('c').find(slowFilter, o).toArray(),
  sort: (db, o) =>
    db
      .collection<TestDoc>('c')
      .aggregate([{ $addFields: { r: slowValue } }, { $sort: { r: 1, a: -1 } }], o)
      .toArray(),
  group: (db, o) =>
    db
      .collection<TestDoc>('c')
      .aggregate([{ $group: { _id: '$g', n: { $sum: slowValue } } }], o)
      .toArray(),
  lookup: (db, o) =>
    db
      .collection<TestDoc>('c')
      .aggregate(
        [
          { $match: { a: { $lt: 2000 } } },
          { $lookup: { from: 'c', localField: 'a', foreignField: 'notIndexed', as: 'j' } },
        ],
        o,
      )
      .toArray(),
  // $unwind of large arrays into a $group: the unwound documents are made one at a time, so
  // the read yields between them (each array is a $range read from a field: not folded).
  '$unwind of large arrays into $group': (db, o) =>
    db
      .collection<TestDoc>('c')
      .aggregate(
        [
          { $match: { a: { $lt: 200 } } },
          { $project: { x: { $range: [0, { $add: [50_000, { $multiply: ['$a', 0] }] }] } } },
          { $unwind: '$x' },
          { $group: { _id: { $mod: ['$x', 1000] }, n: { $sum: 1 } } },
        ],
        o,
      )
      .toArray(),
  // Stages whose work is done after their input is read: it yields too.
  $bucketAuto: (db, o) =>
    db
      .collection<TestDoc>('c')
      .aggregate([{ $bucketAuto: { groupBy: slowValue, buckets: 10 } }], o)
      .toArray(),
  $setWindowFields: (db, o) =>
    db
      .collection<TestDoc>('c')
      .aggregate(
        [
          {
            $setWindowFields: {
              partitionBy: '$g',
              sortBy: { a: 1 },
              output: { s: { $sum: slowValue, window: { documents: [-5, 5] } } },
            },
          },
        ],
        o,
      )
      .toArray(),
  // Each search reaches every document, through scans of the whole collection: it yields
  // inside its queries and between the documents it visits.
  $graphLookup: (db, o) =>
    db
      .collection<TestDoc>('c')
      .aggregate(
        [
          {
            $graphLookup: {
              from: 'c',
              startWith: '$notIndexed',
              connectFromField: 'g',
              connectToField: 'notIndexed',
              as: 'reached',
            },
          },
        ],
        o,
      )
      .toArray(),
  count: (db, o) => db.command({ count: 'c', query: slowFilter, ...o }),
  distinct: (db, o) => db.command({ distinct: 'c', key: 'g', query: slowFilter, ...o }),
  'regex in its worker': (db, o) =>
    db
      .collection<TestDoc>('r')
      .find({ s: { $regex: '^(?:a|a){16}(?:a|a){10}$' } }, o)
      .toArray(),
};

describe('long reads yield to other clients', () => {
  let t: TestServer;
  let db: Db;
  let other: MongoClient;
  let coll: Collection<Document>;

  before(async () => {
    t = await startTestServer();
    db = t.client.db('yielding');
    other = await t.newClient();
    coll = db.collection<TestDoc>('c');
    const docs: Document[] = [];
    for (let i = 0; i < DOCS; i++) docs.push({ _id: i, a: i, g: i % 50, notIndexed: -1 });
    await coll.insertMany(docs);
    // 26 characters where the pattern fails only after 2^26 ways: seconds of backtracking.
    await db
      .collection<TestDoc>('r')
      .insertMany([1, 2, 3, 4].map((i) => ({ _id: i, s: `${'a'.repeat(25)}b` })));
  });
  after(async () => {
    await other.close();
    await t.stop();
  });

  /** Finds the running operation tagged `comment` from the other client. */
  async function opidOf(comment: string): Promise<unknown> {
    for (let i = 0; i < 500; i++) {
      const ops = await other
        .db('admin')
        .aggregate([{ $currentOp: {} }, { $match: { 'command.comment': comment } }])
        .toArray();
      if (ops[0] !== undefined) return ops[0]['opid'];
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`operation ${comment} never showed in $currentOp`);
  }

  for (const [kind, run] of Object.entries(longReads)) {
    test(`${kind}: another client's ping is answered while it runs; killOp interrupts it`, async () => {
      const comment = `kill ${kind}`;
      const read = track(run(db, { comment }));
      const opid = await opidOf(comment);
      // The other client is served in the middle of the read (before, the ping waited for it).
      const ping = await other.db('admin').command({ ping: 1 });
      assert.equal(ping['ok'], 1);
      assert.equal(
        read.settled(),
        false,
        'the long read was still running when the ping came back',
      );
      const kill = await other.db('admin').command({ killOp: 1, op: opid });
      assert.equal(kill['ok'], 1);
      assert.equal(await codeOf(read.promise), 11601);
    });

    test(`${kind}: maxTimeMS stops it mid-operation with MaxTimeMSExpired`, async () => {
      assert.equal(await codeOf(run(db, { maxTimeMS: 100, comment: `maxTime ${kind}` })), 50);
    });
  }

  test('the server still answers correctly after the interruptions', async () => {
    assert.equal(await coll.countDocuments({}), DOCS);
    assert.equal(await coll.countDocuments({ a: { $lt: 100 } }), 100);
  });
});

describe('$in and $nin with large lists', () => {
  let t: TestServer;
  let coll: Collection<Document>;
  // Enough documents for every kind of value; the list itself is 100,000 values long.
  const N = 30_000;

  before(async () => {
    t = await startTestServer();
    coll = t.client.db('big_in').collection<TestDoc>('c');
    const docs: Document[] = [];
    for (let i = 0; i < N; i++) docs.push({ _id: i, a: i % 2 === 0 ? i : `s${i}` });
    for (let i = 0; i < N; i += 20_000) await coll.insertMany(docs.slice(i, i + 20_000));
    await coll.createIndex({ a: 1 });
  });
  after(async () => {
    await t.stop();
  });

  test('100,000 values on an indexed field return what a collection scan returns', async () => {
    // Every third number, some strings, values that match nothing; in no particular order.
    const values: Array<number | string> = [];
    for (let i = N - 1; i >= 0; i -= 3) values.push(i);
    for (let i = 1; i < 2000; i += 7) values.push(`s${i}`);
    const size = values.length;
    for (let i = 0; i < 100_000 - size; i++) values.push(N + i);
    assert.equal(values.length, 100_000);
    const byIndex = await coll
      .find({ a: { $in: values } }, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .toArray();
    const byScan = await coll
      .find({ a: { $in: values } }, { projection: { _id: 1 }, hint: { $natural: 1 } })
      .sort({ _id: 1 })
      .toArray();
    // Computed here from how the documents were made: even _ids hold numbers, odd ones strings.
    const stored = new Set<number | string>();
    for (let i = 0; i < N; i++) stored.add(i % 2 === 0 ? i : `s${i}`);
    const expected = new Set(values.filter((v) => stored.has(v))).size;
    assert.ok(expected > 5_000, `non-trivial result (${expected})`);
    assert.equal(byIndex.length, expected);
    assert.deepEqual(byIndex, byScan);
    const plan = await coll.find({ a: { $in: values } }).explain('queryPlanner');
    assert.match(JSON.stringify(plan['queryPlanner']['winningPlan']), /IXSCAN/);

    const ninIndex = await coll.countDocuments({ a: { $nin: values } });
    const ninScan = await coll.countDocuments({ a: { $nin: values } }, { hint: { $natural: 1 } });
    assert.equal(ninIndex, ninScan);
    assert.equal(ninIndex + byIndex.length, N);
  });

  // Building the bounds of a long $in (sorting its values) ran in one piece before the plan
  // was chosen: an empty indexed collection made the whole find that one piece, so no other
  // client was served and neither maxTimeMS nor killOp could stop it. Now it runs in slices.
  describe('planning a $in of 150,000 values', () => {
    const many: number[] = [];
    for (let i = 0; i < 150_000; i++) many.push((i * 7919) % 300_007);
    let empty: Collection<Document>;
    let other: MongoClient;
    before(async () => {
      empty = t.client.db('big_in').collection<TestDoc>('empty');
      await empty.createIndex({ a: 1 });
      other = await t.newClient();
    });
    after(async () => {
      await other.close();
    });

    test("another client's currentOp and ping are answered while it plans; killOp stops it", async () => {
      const comment = 'plan big $in';
      const read = track(empty.find({ a: { $in: many } }, { comment }).toArray());
      let opid: unknown;
      for (let i = 0; i < 500 && opid === undefined && !read.settled(); i++) {
        const ops = await other
          .db('admin')
          .aggregate([{ $currentOp: {} }, { $match: { 'command.comment': comment } }])
          .toArray();
        opid = ops[0]?.['opid'];
      }
      assert.notEqual(opid, undefined, 'the find was seen running by another client');
      const ping = await other.db('admin').command({ ping: 1 });
      assert.equal(ping['ok'], 1);
      assert.equal(read.settled(), false, 'the find was still planning when the ping came back');
      await other.db('admin').command({ killOp: 1, op: opid });
      assert.equal(await codeOf(read.promise), 11601);
    });

    test('maxTimeMS stops it while it plans with MaxTimeMSExpired', async () => {
      assert.equal(await codeOf(empty.find({ a: { $in: many } }, { maxTimeMS: 1 }).toArray()), 50);
    });

    test('the bounds built in slices select the same documents', async () => {
      await empty.insertMany([{ a: 7919 }, { a: -1 }, { a: 400_000 }, { a: 0 }]);
      const found = await empty.find({ a: { $in: many } }, { projection: { _id: 0 } }).toArray();
      // The scan follows the merged bounds in key order: a value the merge misplaced is missed.
      assert.deepEqual(
        found.map((d) => d['a']),
        [0, 7919],
      );
      await empty.deleteMany({});
    });
  });
});

// collMod's conversion of an index to unique scans the index for duplicate keys. The scan ran
// inside collMod's storage transaction, in one piece: no other client was served meanwhile and
// killOp answered only after it. It now runs before the transaction, on a snapshot, in slices.
describe('collMod unique conversion: the duplicate scan yields', () => {
  let t: TestServer;
  let db: Db;
  let other: MongoClient;
  // Each document holds 100 distinct keys: 300,000 index entries, no duplicate among them.
  const DOCS = 3_000;
  const KEYS = 100;

  before(async () => {
    t = await startTestServer();
    db = t.client.db('collmod_yield');
    other = await t.newClient();
    const coll = db.collection<TestDoc>('c');
    for (let i = 0; i < DOCS; i += 500) {
      const docs: Document[] = [];
      for (let j = i; j < i + 500; j++)
        docs.push({ _id: j, x: Array.from({ length: KEYS }, (_, k) => j * KEYS + k) });
      await coll.insertMany(docs);
    }
    await coll.createIndex({ x: 1 });
    await db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, prepareUnique: true } });
  });
  after(async () => {
    await other.close();
    await t.stop();
  });

  const convert = (extra: Document) =>
    db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, unique: true }, ...extra });

  for (const dryRun of [true, false]) {
    test(`${dryRun ? 'dryRun' : 'conversion'}: another client is served while it scans; killOp interrupts it`, async () => {
      const comment = `collMod scan ${String(dryRun)}`;
      const run = track(convert({ dryRun, comment }));
      let opid: unknown;
      for (let i = 0; i < 1000 && opid === undefined && !run.settled(); i++) {
        const ops = await other
          .db('admin')
          .aggregate([{ $currentOp: {} }, { $match: { 'command.comment': comment } }])
          .toArray();
        opid = ops[0]?.['opid'];
      }
      assert.notEqual(opid, undefined, 'the collMod was seen running by another client');
      const ping = await other.db('admin').command({ ping: 1 });
      assert.equal(ping['ok'], 1);
      assert.equal(run.settled(), false, 'the collMod was still scanning when the ping came back');
      await other.db('admin').command({ killOp: 1, op: opid });
      assert.equal(await codeOf(run.promise), 11601);
      // Interrupted during its scan, it changed nothing.
      const index = (await db.collection('c').listIndexes().toArray()).find(
        (i) => i['name'] === 'x_1',
      );
      assert.equal(index?.['unique'], undefined);
      assert.equal(index?.['prepareUnique'], true);
    });
  }

  test('maxTimeMS stops the scan with MaxTimeMSExpired', async () => {
    assert.equal(await codeOf(convert({ dryRun: true, maxTimeMS: 1 })), 50);
  });

  test('a duplicate key found by the scan fails it; without one the index becomes unique', async () => {
    const coll = db.collection<TestDoc>('c');
    // prepareUnique refuses a new duplicate; one made before it was set is found by the scan.
    await db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, prepareUnique: false } });
    await coll.insertOne({ _id: 'dup', x: [7, KEYS * DOCS + 1] });
    await db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, prepareUnique: true } });
    const e = await convert({}).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(e instanceof MongoServerError);
    assert.equal(e.code, 359);
    assert.deepEqual(e['violations'] ?? e.errInfo?.['violations'] ?? e['info']?.['violations'], [
      { ids: [0, 'dup'] },
    ]);
    await coll.deleteOne({ _id: 'dup' });
    assert.equal((await convert({ dryRun: true }))['ok'], 1);
    const reply = await convert({});
    assert.equal(reply['unique_new'], true);
    await assert.rejects(coll.insertOne({ _id: 'again', x: 7 }), { code: 11000 });
  });
});
