// Index builds as mongod 4.2+ (src/commands/admin/index-build.ts): the collection stays
// readable and writable while an index is built, writes made meanwhile reach it, a duplicate
// fails a unique build at its commit, currentOp shows the build's progress, and a killed,
// timed-out or dropped build leaves nothing behind; a build cut short by a shutdown or a
// SIGKILL is built again at the next start.
//
// The failpoint hangIndexBuildDuringCollectionScanPhaseAfterInsertion holds a build after a
// slice of its scan, so the tests act in the middle of a build without depending on timing.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { Collection, Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';
import { serverErrorOf, track } from '../helpers/tracked.js';
import { killDaemon, startDaemon } from '../helpers/daemon.js';
import type { Daemon } from '../helpers/daemon.js';

const hang = 'hangIndexBuildDuringCollectionScanPhaseAfterInsertion';
const DOCS = 2000;

async function setHang(db: Db, on: boolean): Promise<void> {
  await db.admin().command({ configureFailPoint: hang, mode: on ? 'alwaysOn' : 'off' });
}

/** The build's currentOp entry, once it shows progress (bounded wait). */
async function buildInProgress(admin: Db, ns: string): Promise<Document> {
  for (let i = 0; i < 1000; i++) {
    const ops = await admin
      .aggregate([
        { $currentOp: {} },
        { $match: { ns, 'command.createIndexes': { $exists: true }, 'progress.done': { $gt: 0 } } },
      ])
      .toArray();
    if (ops[0] !== undefined) return ops[0];
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no index build of ${ns} showed in $currentOp`);
}

async function indexNames(coll: Collection<TestDoc>): Promise<string[]> {
  return (await coll.listIndexes().toArray()).map((i) => String(i['name'])).sort();
}

/**
 * Checks an index on `a` against the documents: a covered scan of the index gives exactly the
 * (a, _id) pairs of the documents, and each value's hinted count equals a collection scan's.
 */
async function assertIndexMatchesDocuments(coll: Collection<TestDoc>, hint: Document) {
  const docs = await coll.find({}, { hint: { $natural: 1 } }).toArray();
  const expected = docs
    .filter((d) => typeof d['a'] === 'number')
    .map((d) => `${d['a']}/${d['_id']}`)
    .sort();
  const covered = await coll
    .find({ a: { $gte: Number.NEGATIVE_INFINITY } }, { hint, projection: { _id: 1, a: 1 } })
    .toArray();
  const got = covered.map((d) => `${d['a']}/${d['_id']}`).sort();
  assert.ok(expected.length > 0);
  assert.deepEqual(got, expected);
  for (const v of [0, 1, 7, 42, 99, 1000]) {
    assert.equal(
      await coll.countDocuments({ a: v }, { hint }),
      await coll.countDocuments({ a: v }, { hint: { $natural: 1 } }),
      `a: ${v}`,
    );
  }
}

describe('index builds while the collection is in use', () => {
  let t: TestServer;
  let db: Db;
  let other: MongoClient;
  let coll: Collection<TestDoc>;

  before(async () => {
    t = await startTestServer({ enableTestCommands: true });
    db = t.client.db('builds');
    other = await t.newClient();
    coll = db.collection<TestDoc>('c');
    const docs: Document[] = [];
    for (let i = 0; i < DOCS; i++) docs.push({ _id: i, a: i % 100, u: i });
    await coll.insertMany(docs);
  });
  after(async () => {
    await setHang(db, false).catch(() => undefined);
    await t.stop();
  });

  test('writes during the build reach the index; currentOp shows progress; ping is served', async () => {
    await setHang(db, true);
    const build = track(coll.createIndex({ a: 1 }, { name: 'a_1' }));
    const op = await buildInProgress(other.db('admin'), 'builds.c');
    assert.match(
      String(op['msg']),
      /^Index Build: scanning collection Index Build: scanning collection: \d+\/2000 \d+%$/,
    );
    const progress = op['progress'] as { done: number; total: number };
    assert.equal(progress.total, DOCS);
    assert.ok(progress.done > 0 && progress.done <= DOCS, `done ${progress.done}`);
    // Another client is served, and the collection is read and written, mid-build.
    assert.equal((await other.db('admin').command({ ping: 1 }))['ok'], 1);
    const o = other.db('builds').collection<TestDoc>('c');
    assert.equal(await o.countDocuments({}), DOCS);
    await o.insertMany([
      { _id: 'n1', a: 7, u: 'n1' },
      { _id: 'n2', a: 1000, u: 'n2' },
    ]);
    // Documents on both sides of the scan's position: moved, removed, changed to no number.
    await o.updateMany({ _id: { $in: [1, 2, 1998, 1999] } }, { $set: { a: 42 } });
    await o.deleteMany({ _id: { $in: [3, 1997] } });
    await o.updateOne({ _id: 4 }, { $set: { a: 'text' } });
    await o.updateOne({ _id: 1996 }, { $unset: { a: '' } });
    assert.equal(build.settled(), false, 'the build was still running');
    assert.deepEqual(await indexNames(coll), ['_id_'], 'a build in progress is not listed');
    await setHang(db, false);
    const name = await build.promise;
    assert.equal(name, 'a_1');
    assert.deepEqual(await indexNames(coll), ['_id_', 'a_1']);
    await assertIndexMatchesDocuments(coll, { a: 1 });
    const plan = await coll.find({ a: 42 }).explain('queryPlanner');
    assert.match(JSON.stringify(plan['queryPlanner']['winningPlan']), /IXSCAN/);
    await coll.dropIndex('a_1');
  });

  test('a duplicate in the documents fails a unique build with 11000, leaving nothing', async () => {
    const e = await serverErrorOf(coll.createIndex({ a: 1 }, { unique: true, name: 'ua' }));
    assert.equal(e?.code, 11000);
    assert.match(
      String(e?.message),
      /^Index build failed: [0-9a-f-]{36}: Collection builds\.c \( [0-9a-f-]{36} \) :: caused by :: E11000 duplicate key error collection: builds\.c index: ua dup key: \{ a: /,
    );
    assert.deepEqual(e?.['keyPattern'], { a: 1 });
    assert.deepEqual(await indexNames(coll), ['_id_']);
    // Nothing left behind: the same name builds afterwards, as another index.
    await coll.createIndex({ u: 1 }, { name: 'ua' });
    assert.deepEqual(await indexNames(coll), ['_id_', 'ua']);
    await coll.dropIndex('ua');
  });

  test('a duplicate written during a unique build fails it at its commit; one removed does not', async () => {
    await setHang(db, true);
    let build = track(coll.createIndex({ u: 1 }, { unique: true, name: 'u_1' }));
    await buildInProgress(other.db('admin'), 'builds.c');
    const o = other.db('builds').collection<TestDoc>('c');
    // As mongod: the write succeeds while the index is being built.
    await o.insertOne({ _id: 'dup', u: 5 });
    await setHang(db, false);
    const e = await serverErrorOf(build.promise);
    assert.equal(e?.code, 11000);
    assert.match(String(e?.message), /index: u_1 dup key: \{ u: 5 \}/);
    assert.deepEqual(await indexNames(coll), ['_id_']);

    await setHang(db, true);
    build = track(coll.createIndex({ u: 1 }, { unique: true, name: 'u_1' }));
    await buildInProgress(other.db('admin'), 'builds.c');
    await o.insertOne({ _id: 'dup2', u: 6 });
    await o.deleteOne({ _id: 'dup' });
    await o.updateOne({ _id: 'dup2' }, { $set: { u: -6 } });
    await o.insertOne({ _id: 'dup3', u: 7 });
    await o.deleteOne({ _id: 7 });
    await setHang(db, false);
    assert.equal(await build.promise, 'u_1');
    // The index holds dup3 for 7 (set aside during the build, entered at the commit).
    const seven = await coll.find({ u: 7 }, { hint: { u: 1 } }).toArray();
    assert.deepEqual(
      seven.map((d) => d['_id']),
      ['dup3'],
    );
    const dup = await serverErrorOf(coll.insertOne({ _id: 'again', u: 7 }));
    assert.equal(dup?.code, 11000);
    await coll.dropIndex('u_1');
    await coll.deleteMany({ _id: { $in: ['dup2', 'dup3'] } });
  });

  test('killOp of the build: Interrupted, nothing left behind', async () => {
    await setHang(db, true);
    const build = track(coll.createIndex({ a: 1 }, { name: 'killed' }));
    const op = await buildInProgress(other.db('admin'), 'builds.c');
    await other.db('admin').command({ killOp: 1, op: op['opid'] });
    const e = await serverErrorOf(build.promise);
    assert.equal(e?.code, 11601);
    assert.match(
      String(e?.message),
      /^Index build failed: .* :: caused by :: operation was interrupted$/,
    );
    await setHang(db, false);
    assert.deepEqual(await indexNames(coll), ['_id_']);
    await coll.createIndex({ a: 1 }, { name: 'killed' });
    await assertIndexMatchesDocuments(coll, { a: 1 });
    await coll.dropIndex('killed');
  });

  test('maxTimeMS stops a build with MaxTimeMSExpired', async () => {
    await setHang(db, true);
    const e = await serverErrorOf(coll.createIndex({ a: 1 }, { name: 'slow', maxTimeMS: 200 }));
    await setHang(db, false);
    assert.equal(e?.code, 50);
    assert.deepEqual(await indexNames(coll), ['_id_']);
  });

  test('dropIndexes of the index being built aborts the build', async () => {
    await setHang(db, true);
    const build = track(coll.createIndex({ a: 1 }, { name: 'dropped' }));
    await buildInProgress(other.db('admin'), 'builds.c');
    const drop = await other.db('builds').command({ dropIndexes: 'c', index: 'dropped' });
    assert.equal(drop['ok'], 1);
    const e = await serverErrorOf(build.promise);
    assert.equal(e?.code, 276);
    assert.equal(e?.codeName, 'IndexBuildAborted');
    await setHang(db, false);
    assert.deepEqual(await indexNames(coll), ['_id_']);
    // The same index asked for again while one is being built waits for it.
    await setHang(db, true);
    const first = track(coll.createIndex({ a: 1 }, { name: 'twice' }));
    await buildInProgress(other.db('admin'), 'builds.c');
    const second = track(
      other.db('builds').collection<TestDoc>('c').createIndex({ a: 1 }, { name: 'twice' }),
    );
    await other.db('admin').command({ ping: 1 });
    assert.equal(second.settled(), false, 'the second request waits for the build');
    await setHang(db, false);
    assert.equal(await first.promise, 'twice');
    assert.equal(await second.promise, 'twice');
    await coll.dropIndex('twice');
  });
});

describe('index builds cut short are built again at the next start', () => {
  test('a server stopped mid-build rebuilds the index when it starts again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'secantus-build-'));
    try {
      let t = await startTestServer({ dbPath: dir, enableTestCommands: true });
      const docs: Document[] = [];
      for (let i = 0; i < DOCS; i++) docs.push({ _id: i, a: i % 100 });
      await t.client.db('r').collection<TestDoc>('c').insertMany(docs);
      await setHang(t.client.db('r'), true);
      const build = track(t.client.db('r').collection<TestDoc>('c').createIndex({ a: 1 }));
      await buildInProgress(t.client.db('admin'), 'r.c');
      await t.stop();
      await build.promise.catch(() => undefined);
      t = await startTestServer({ dbPath: dir });
      try {
        const coll = t.client.db('r').collection<TestDoc>('c');
        let names: string[] = [];
        for (let i = 0; i < 500 && !names.includes('a_1'); i++) {
          names = await indexNames(coll);
          if (!names.includes('a_1')) await new Promise((r) => setTimeout(r, 10));
        }
        assert.deepEqual(names, ['_id_', 'a_1']);
        await assertIndexMatchesDocuments(coll, { a: 1 });
      } finally {
        await t.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a daemon SIGKILLed mid-build has a consistent catalog after restart', async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'secantus-build-kill-'));
    let d: Daemon | undefined;
    let client: MongoClient | undefined;
    try {
      try {
        d = await startDaemon(dir, ['--setParameter', 'enableTestCommands=1']);
      } catch (e) {
        ctx.skip(`secantusd from dist/ did not start (run npm run build): ${String(e)}`);
        return;
      }
      client = await new MongoClient(d.uri, { serverSelectionTimeoutMS: 5000 }).connect();
      const docs: Document[] = [];
      for (let i = 0; i < DOCS; i++) docs.push({ _id: i, a: i % 100 });
      await client.db('k').collection<TestDoc>('c').insertMany(docs);
      await setHang(client.db('k'), true);
      const build = track(client.db('k').collection<TestDoc>('c').createIndex({ a: 1 }));
      await buildInProgress(client.db('admin'), 'k.c');
      await killDaemon(d);
      d = undefined;
      await build.promise.catch(() => undefined);
      await client.close();
      d = await startDaemon(dir);
      client = await new MongoClient(d.uri, { serverSelectionTimeoutMS: 5000 }).connect();
      const coll = client.db('k').collection<TestDoc>('c');
      let names: string[] = [];
      for (let i = 0; i < 500 && !names.includes('a_1'); i++) {
        names = await indexNames(coll);
        if (!names.includes('a_1')) await new Promise((r) => setTimeout(r, 10));
      }
      assert.deepEqual(names, ['_id_', 'a_1']);
      assert.equal(await coll.countDocuments({}), DOCS);
      await assertIndexMatchesDocuments(coll, { a: 1 });
    } finally {
      await client?.close();
      if (d !== undefined) await killDaemon(d);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
