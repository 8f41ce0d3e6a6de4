// What $currentOp reports about a query while it runs, and about idle cursors, through the
// driver: planSummary and queryFramework once the query is planned, the `cursor` sub-document
// of a running getMore, effectiveUsers with access control, and killOp interrupting server-side
// JavaScript while other clients are served. A query that runs long is a $where (or $function)
// doing work for every document: each call is short, the scan yields between documents, so
// other clients' commands (the $currentOp and the killOp here) run meanwhile.
//
// Expected shapes: mongod 7.0's curop.cpp (reportCurrentOpForClient: effectiveUsers after
// currentOpTime; reportState: queryFramework, planSummary and cursor after command;
// truncateAndSerializeGenericCursor), generic_cursor.idl (the cursor fields and their order),
// ClientCursor::toGenericCursor, and the idle-cursor report (ns, lsid, planSummary at the top).

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Collection, Db, Document, MongoClient } from 'mongodb';
import { freshCollection, bsonType, eventually, raw } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const currentOps = (admin: Db, spec: Document, match: Document): Promise<Document[]> =>
  admin.aggregate([{ $currentOp: spec }, { $match: match }], raw).toArray();

/** Resolves with the server error `p` fails with. */
async function serverError(p: Promise<unknown>): Promise<MongoServerError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof MongoServerError, `a server error, got ${String(e)}`);
    return e;
  }
  assert.fail('the operation succeeded');
}

/** Work done per document by the scripts: well under the per-call limit, long over many documents. */
const busy = 'for (var i = 0; i < 100000; i++) {}';
const docCount = 4000;

async function manyDocs(db: Db, name: string): Promise<Collection> {
  return freshCollection(
    db,
    name,
    Array.from({ length: docCount }, (_, i) => ({ _id: i, a: i })),
  );
}

/** A running operation on `ns` that is not a $currentOp, as $currentOp reports it. */
function running(admin: Db, ns: string, op: string): Promise<Document> {
  return eventually(
    async () => (await currentOps(admin, {}, { ns, op }))[0],
    `the ${op} on ${ns} in $currentOp`,
    10_000,
  );
}

describe('$currentOp fields of running queries and idle cursors', () => {
  let ts: TestServer;
  let admin: Db;
  let db: Db;
  before(async () => {
    // A quick reaper, for the noCursorTimeout test (cursorTimeoutMillis stays 10 min elsewhere).
    ts = await startTestServer({ reaperIntervalMs: 50 });
    admin = ts.client.db('admin');
    db = ts.client.db('cof');
  });
  after(() => ts.stop());

  test('a running find: planSummary COLLSCAN and queryFramework classic; killOp stops its $where with 11601', async () => {
    await manyDocs(db, 'where_scan');
    const victim = await ts.newClient();
    const find = victim
      .db('cof')
      .collection('where_scan')
      .find({ $where: `${busy}; return false` })
      .toArray();
    const failed = serverError(find);
    const op = await running(admin, 'cof.where_scan', 'query');
    // The report's fields in mongod's order: command, then queryFramework and planSummary.
    const keys = Object.keys(op);
    assert.equal(op['queryFramework'], 'classic');
    assert.equal(op['planSummary'], 'COLLSCAN');
    assert.ok(keys.indexOf('command') < keys.indexOf('queryFramework'));
    assert.ok(keys.indexOf('queryFramework') < keys.indexOf('planSummary'));
    assert.ok(keys.indexOf('planSummary') < keys.indexOf('numYields'));
    assert.equal(op['cursor'], undefined, 'a find has no cursor yet');
    assert.equal(op['effectiveUsers'], undefined, 'no access control, no users');
    // Other clients are served while the script runs: this ping, the $currentOp above, the killOp.
    assert.equal((await admin.command({ ping: 1 }))['ok'], 1);
    await admin.command({ killOp: 1, op: op['opid'] });
    const e = await failed;
    assert.equal(e.code, 11601);
    assert.equal(e.codeName, 'Interrupted');
    assert.equal(await db.collection('where_scan').countDocuments({}), docCount);
  });

  test('a running aggregate with $function: planSummary of its index scan; killOp interrupts it', async () => {
    const c = await manyDocs(db, 'function_ixscan');
    await c.createIndex({ a: 1 });
    const victim = await ts.newClient();
    const agg = victim
      .db('cof')
      .collection('function_ixscan')
      .aggregate([
        { $match: { a: { $gte: 0 } } },
        {
          $match: {
            $expr: {
              $function: { body: `function () { ${busy}; return false }`, args: [], lang: 'js' },
            },
          },
        },
      ])
      .toArray();
    const failed = serverError(agg);
    const op = await eventually(
      async () =>
        (
          await currentOps(
            admin,
            {},
            { ns: 'cof.function_ixscan', 'command.aggregate': 'function_ixscan' },
          )
        )[0],
      'the aggregate in $currentOp',
      10_000,
    );
    assert.equal(op['op'], 'command');
    assert.equal(op['queryFramework'], 'classic');
    assert.equal(op['planSummary'], 'IXSCAN { a: 1 }');
    await admin.command({ killOp: 1, op: op['opid'] });
    assert.equal((await failed).code, 11601);
  });

  test('a running count and updateMany show their plans too; killOp stops them, nothing is written', async () => {
    await manyDocs(db, 'count_update');
    const victim = await ts.newClient();
    const vc = victim.db('cof').collection('count_update');
    const where = `${busy}; return false`;
    const counting = serverError(vc.countDocuments({ $where: where }));
    const count = await eventually(
      async () => (await currentOps(admin, {}, { 'command.aggregate': 'count_update' }))[0],
      'the count in $currentOp',
      10_000,
    );
    assert.equal(count['planSummary'], 'COLLSCAN');
    assert.equal(count['queryFramework'], 'classic');
    await admin.command({ killOp: 1, op: count['opid'] });
    assert.equal((await counting).code, 11601);

    // An interruption fails the whole write command, not one statement (mongod's handleError).
    const updating = serverError(
      victim.db('cof').command({
        update: 'count_update',
        updates: [{ q: { $where: where }, u: { $set: { x: 1 } }, multi: true }],
      }),
    );
    const update = await running(admin, 'cof.count_update', 'update');
    assert.equal(update['planSummary'], 'COLLSCAN');
    assert.equal(update['queryFramework'], 'classic');
    await admin.command({ killOp: 1, op: update['opid'] });
    assert.equal((await updating).code, 11601);
    assert.equal(await db.collection('count_update').countDocuments({ x: 1 }), 0);
  });

  test('a command that plans no query (a blocked ping) has neither planSummary nor queryFramework', async () => {
    const victim = await ts.newClient({ appName: 'plain-ping' });
    await admin.command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: {
        failCommands: ['ping'],
        blockConnection: true,
        blockTimeMS: 10_000,
        appName: 'plain-ping',
      },
    });
    const ping = victim.db('admin').command({ ping: 1 });
    const failed = serverError(ping);
    const op = await eventually(
      async () => (await currentOps(admin, {}, { appName: 'plain-ping' }))[0],
      'the ping in $currentOp',
      10_000,
    );
    assert.equal(op['planSummary'], undefined);
    assert.equal(op['queryFramework'], undefined);
    await admin.command({ killOp: 1, op: op['opid'] });
    assert.equal((await failed).code, 11601);
  });

  test('a running getMore reports its cursor as mongod’s GenericCursor, and killOp ends it', async () => {
    await manyDocs(db, 'getmore_scan');
    const victim = await ts.newClient();
    // Two quick matches fill the first batch; the getMore then works through the rest.
    const cursor = victim
      .db('cof')
      .collection('getmore_scan')
      .find({ $where: `if (this._id < 2) return true; ${busy}; return false` })
      .batchSize(2)
      .comment('long getMore');
    assert.ok((await cursor.next()) !== null);
    assert.ok((await cursor.next()) !== null);
    const failed = serverError(cursor.next());
    const op = await running(admin, 'cof.getmore_scan', 'getmore');
    assert.equal(op['planSummary'], 'COLLSCAN');
    assert.equal(op['queryFramework'], 'classic');
    const c = op['cursor'] as Document;
    assert.ok(c !== undefined, 'the cursor sub-document');
    assert.deepEqual(Object.keys(c), [
      'cursorId',
      'createdDate',
      'lastAccessDate',
      'nDocsReturned',
      'nBatchesReturned',
      'noCursorTimeout',
      'tailable',
      'awaitData',
      'originatingCommand',
      'operationUsingCursorId',
    ]);
    assert.equal(bsonType(c['cursorId']), 'Long');
    assert.equal(c['cursorId'].toString(), cursor.id?.toString());
    assert.ok(c['createdDate'] instanceof Date);
    assert.ok(c['lastAccessDate'] instanceof Date);
    assert.equal(bsonType(c['nDocsReturned']), 'Long');
    assert.equal(c['nDocsReturned'].toNumber(), 2);
    assert.equal(bsonType(c['nBatchesReturned']), 'Long');
    assert.equal(c['nBatchesReturned'].toNumber(), 1, 'the first batch so far');
    assert.equal(c['noCursorTimeout'], false);
    assert.equal(c['tailable'], false);
    assert.equal(c['awaitData'], false);
    assert.equal(c['originatingCommand']['find'], 'getmore_scan');
    assert.equal(c['originatingCommand']['comment'], 'long getMore');
    assert.equal(typeof c['originatingCommand']['filter']['$where'], 'string');
    assert.equal(bsonType(c['operationUsingCursorId']), 'Long');
    assert.equal(c['operationUsingCursorId'].toNumber(), op['opid'].value);
    await admin.command({ killOp: 1, op: op['opid'] });
    assert.equal((await failed).code, 11601);
  });

  test('idle cursors: planSummary at the top, nBatchesReturned, originatingCommand, noCursorTimeout', async () => {
    const c = await freshCollection(
      db,
      'idle',
      Array.from({ length: 10 }, (_, i) => ({ _id: i, a: i })),
    );
    await c.createIndex({ a: 1 });
    const plain = c.find({ a: { $gte: 0 } }).batchSize(2);
    await plain.next();
    await plain.next();
    await plain.next(); // a getMore: two batches returned
    const keep = c.find({}, { noCursorTimeout: true, batchSize: 1 });
    await keep.next();
    const idle = await currentOps(
      admin,
      { idleCursors: true },
      { type: 'idleCursor', ns: 'cof.idle' },
    );
    const byId = new Map(idle.map((d) => [String(d['cursor']['cursorId']), d]));
    const p = byId.get(String(plain.id));
    assert.ok(p !== undefined, 'the first cursor is listed');
    assert.deepEqual(Object.keys(p).slice(0, 3), ['type', 'host', 'ns']);
    assert.equal(p['planSummary'], 'IXSCAN { a: 1 }');
    assert.ok(Object.keys(p).indexOf('planSummary') < Object.keys(p).indexOf('cursor'));
    const pc = p['cursor'] as Document;
    assert.equal(pc['nDocsReturned'].toNumber(), 4);
    assert.equal(pc['nBatchesReturned'].toNumber(), 2);
    assert.equal(pc['noCursorTimeout'], false);
    assert.equal(pc['originatingCommand']['find'], 'idle');
    assert.equal(pc['originatingCommand']['batchSize'].value, 2);
    assert.equal(pc['operationUsingCursorId'], undefined, 'nothing uses an idle cursor');
    for (const f of ['ns', 'lsid', 'planSummary'])
      assert.equal(pc[f], undefined, `${f} is reported at the top only`);
    const k = byId.get(String(keep.id));
    assert.ok(k !== undefined, 'the noCursorTimeout cursor is listed');
    assert.equal(k['planSummary'], 'COLLSCAN');
    assert.equal(k['cursor']['noCursorTimeout'], true);
    assert.equal(k['cursor']['nBatchesReturned'].toNumber(), 1);
    await plain.close();
    await keep.close();
  });

  test('a noCursorTimeout cursor outlives cursorTimeoutMillis; an ordinary one does not', async () => {
    const c = await freshCollection(
      db,
      'timeout',
      Array.from({ length: 5 }, (_, i) => ({ _id: i })),
    );
    const before = await admin.command({ getParameter: 1, cursorTimeoutMillis: 1 });
    const ordinary = c.find({}).batchSize(1);
    const kept = c.find({}, { noCursorTimeout: true, batchSize: 1 });
    await ordinary.next();
    await kept.next();
    await admin.command({ setParameter: 1, cursorTimeoutMillis: 1 });
    try {
      // The reaper runs on its own timer: wait until it has closed the ordinary cursor.
      await eventually(
        async () => {
          const open = await currentOps(admin, { idleCursors: true }, { ns: 'cof.timeout' });
          return open.some((d) => String(d['cursor']['cursorId']) === String(ordinary.id))
            ? undefined
            : true;
        },
        'the ordinary cursor reaped',
        10_000,
      );
    } finally {
      await admin.command({ setParameter: 1, cursorTimeoutMillis: before['cursorTimeoutMillis'] });
    }
    const e = await serverError(ordinary.toArray());
    assert.equal(e.code, 43, 'CursorNotFound');
    assert.equal((await kept.toArray()).length, 4, 'the noCursorTimeout cursor still answers');
  });
});

describe('$currentOp with access control', () => {
  let ts: TestServer;
  let admin: Db;
  let user: MongoClient;
  before(async () => {
    ts = await startTestServer({ auth: { username: 'root', password: 'rootpw' } });
    admin = ts.client.db('admin');
    await admin.command({ createUser: 'worker', pwd: 'workpw', roles: ['readWriteAnyDatabase'] });
    user = await ts.newClient(
      { appName: 'as-worker' },
      `mongodb://worker:workpw@${ts.server.host}/?replicaSet=rs0&authSource=admin`,
    );
  });
  after(() => ts.stop());

  test('effectiveUsers names the authenticated user, after currentOpTime, on operations and idle connections', async () => {
    await user.db('acl').collection<TestDoc>('c').insertOne({ _id: 1 });
    await admin.command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: {
        failCommands: ['find'],
        blockConnection: true,
        blockTimeMS: 10_000,
        appName: 'as-worker',
      },
    });
    const find = user.db('acl').collection('c').find({}).toArray();
    const failed = serverError(find);
    const op = await eventually(
      async () => (await currentOps(admin, { allUsers: true }, { 'command.find': 'c' }))[0],
      'the find in $currentOp',
      10_000,
    );
    assert.deepEqual(op['effectiveUsers'], [{ user: 'worker', db: 'admin' }]);
    const keys = Object.keys(op);
    assert.equal(keys.indexOf('effectiveUsers'), keys.indexOf('currentOpTime') + 1);
    assert.equal(keys.indexOf('threaded'), keys.indexOf('effectiveUsers') + 1);
    // The root's own $currentOp connection, idle or not, names root.
    const mine = await currentOps(
      admin,
      { allUsers: true, idleConnections: true },
      { 'effectiveUsers.user': 'root' },
    );
    assert.ok(mine.length >= 1);
    await admin.command({ killOp: 1, op: op['opid'] });
    assert.equal((await failed).code, 11601);
  });
});
