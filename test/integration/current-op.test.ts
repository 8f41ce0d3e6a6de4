// $currentOp, the currentOp and killOp commands, and $listSessions, through the driver. A
// slow operation is a command held by the failCommand failpoint (blockConnection), or a
// change-stream getMore waiting for events; another client sees it and kills it.
//
// Expected shapes and codes: mongod 7.0's document_source_current_op.cpp (options, namespace
// rule), curop.cpp (reportCurrentOpForClient / reportState: field names and types),
// current_op_common.cpp (the currentOp command's pipeline and filter), kill_op_cmd_base.cpp /
// kill_op.cpp (killOp), document_source_list_sessions.cpp and logical_session_id_helpers.cpp
// (kNoAuthDigest), and the manual's $currentOp and currentOp pages.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Int32, UUID } from 'bson';
import type { Binary, Long } from 'bson';
import { MongoServerError } from 'mongodb';
import type { ClientSession, Db, Document, MongoClient } from 'mongodb';
import { bsonType, eventually, raw } from '../helpers/driver.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

async function currentOps(
  admin: Db,
  spec: Document = {},
  match: Document = {},
): Promise<Document[]> {
  return admin.aggregate([{ $currentOp: spec }, { $match: match }], raw).toArray();
}

/** Holds the next `command` of the client named `appName` in the server for `ms`. */
async function block(admin: Db, command: string, appName: string, ms = 10_000): Promise<void> {
  await admin.command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: [command], blockConnection: true, blockTimeMS: ms, appName },
  });
}

async function rejection(p: Promise<unknown>): Promise<MongoServerError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof MongoServerError, `a server error, got ${String(e)}`);
    return e;
  }
  assert.fail('the operation succeeded');
}

async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  const code = (await rejection(p)).code;
  return code === undefined ? undefined : Number(code);
}

describe('$currentOp and killOp', () => {
  let ts: TestServer;
  let admin: Db;
  before(async () => {
    ts = await startTestServer();
    admin = ts.client.db('admin');
  });
  after(async () => {
    await admin.command({ configureFailPoint: 'failCommand', mode: 'off' }).catch(() => undefined);
    await ts.stop();
  });

  test('another client sees a slow find with mongod’s fields, and killOp interrupts it', async () => {
    const victim = await ts.newClient({ appName: 'victim-find' });
    await victim.db('co').collection('slow').insertOne({ x: 1 });
    await block(admin, 'find', 'victim-find');
    const started = Date.now();
    const find = victim
      .db('co')
      .collection('slow')
      .find({ x: 1 }, { comment: 'slow find' })
      .toArray();
    find.catch(() => undefined);

    const op = await eventually(
      async () => (await currentOps(admin, {}, { 'command.find': 'slow' }))[0],
      'the find in $currentOp',
    );
    assert.equal(op['type'], 'op');
    assert.equal(op['active'], true);
    assert.equal(op['op'], 'query', 'find is a query (logicalOpToString)');
    assert.equal(op['ns'], 'co.slow');
    assert.deepEqual(Object.keys(op['command']['filter']), ['x']);
    assert.equal(op['command']['filter']['x'].value, 1);
    assert.equal(op['command']['comment'], 'slow find');
    assert.equal(op['command']['$db'], 'co');
    assert.equal(op['appName'], 'victim-find');
    assert.equal(op['clientMetadata']['application']['name'], 'victim-find');
    assert.equal(bsonType(op['opid']), 'Int32', 'opid is an int');
    assert.equal(bsonType(op['connectionId']), 'Int32');
    assert.equal(op['desc'], `conn${op['connectionId'].value}`);
    assert.match(op['client'], /^127\.0\.0\.1:\d+$/);
    assert.match(op['host'], /:\d+$/);
    assert.equal(bsonType(op['secs_running']), 'Long');
    assert.equal(bsonType(op['microsecs_running']), 'Long');
    assert.ok(op['microsecs_running'].toNumber() > 0);
    assert.equal(typeof op['currentOpTime'], 'string');
    assert.ok(
      !Number.isNaN(Date.parse(op['currentOpTime'])),
      'currentOpTime is an ISO date string',
    );
    assert.ok(
      bsonType(op['lsid']['id']) === 'Binary' && op['lsid']['id'].sub_type === 4,
      'the implicit session',
    );
    assert.equal(bsonType(op['lsid']['uid']), 'Binary');
    assert.equal(op['waitingForLock'], false);
    assert.equal(op['killPending'], undefined, 'killPending shows only once killed');
    assert.deepEqual(op['locks'], {});

    // The aggregate running $currentOp reports itself.
    const self = await currentOps(
      admin,
      {},
      { 'command.aggregate': new Int32(1), 'command.pipeline.0.$currentOp': { $exists: true } },
    );
    assert.equal(self.length, 1);
    assert.equal(self[0]?.['ns'], 'admin.$cmd.aggregate');
    assert.equal(self[0]?.['op'], 'command');

    const r = await admin.command({ killOp: 1, op: op['opid'] });
    assert.equal(r['info'], 'attempting to kill op');
    assert.equal(r['ok'], 1);
    const err = await rejection(find);
    assert.equal(err.code, 11601);
    assert.equal(err.codeName, 'Interrupted');
    assert.equal(err.message, 'operation was interrupted');
    assert.ok(
      Date.now() - started < 8000,
      'the op stopped at the kill, not at the end of its 10 s block',
    );
    assert.deepEqual(
      await currentOps(admin, {}, { 'command.find': 'slow' }),
      [],
      'a finished op is gone',
    );
  });

  test('the currentOp command: {inprog}, its filter form, truncated commands, admin only', async () => {
    const victim = await ts.newClient({ appName: 'victim-currentop' });
    await block(admin, 'find', 'victim-currentop');
    const big = 'y'.repeat(2000);
    const find = victim.db('co').collection('big').find({ big }).toArray();
    find.catch(() => undefined);

    const found = await eventually(async () => {
      // The filter applies to the reported (truncated) document: match on the client, not the command.
      const r = await admin.command({ currentOp: 1, appName: 'victim-currentop' }, raw);
      return (r['inprog'] as Document[])[0];
    }, 'the find in currentOp');
    // The command form truncates commands past 1000 bytes ({$truncated: "<text>..."}).
    const truncated = found['command']['$truncated'];
    assert.equal(typeof truncated, 'string');
    assert.equal(truncated.length, 1000);
    assert.ok(truncated.endsWith('...'));
    assert.ok(truncated.startsWith('{ find: "big"'));
    // $currentOp does not truncate by default.
    const full = await currentOps(admin, {}, { 'command.find': 'big' });
    assert.equal(full[0]?.['command']['filter']['big'], big);

    const none = await admin.command({ currentOp: 1, 'command.find': 'no such collection' });
    assert.deepEqual(none['inprog'], []);
    const own = await admin.command({
      currentOp: true,
      $ownOps: true,
      appName: 'victim-currentop',
    });
    assert.equal(
      (own['inprog'] as Document[]).length,
      1,
      'without authentication every op is the caller’s',
    );
    assert.equal(await codeOf(ts.client.db('co').command({ currentOp: 1 })), 13);

    await admin.command({ killOp: 1, op: found['opid'] });
    assert.equal(await codeOf(find), 11601);
  });

  test('idle connections are listed only with idleConnections (currentOp: $all)', async () => {
    const idler = await ts.newClient({ appName: 'idler' });
    await idler.db('admin').command({ ping: 1 });
    const idle = await currentOps(admin, { idleConnections: true }, { appName: 'idler' });
    assert.ok(idle.length >= 1);
    for (const c of idle) {
      assert.equal(c['active'], false);
      assert.equal(c['type'], 'op');
      assert.equal(c['opid'], undefined, 'an idle connection runs no operation');
      assert.match(c['desc'], /^conn\d+$/);
    }
    assert.deepEqual(await currentOps(admin, {}, { appName: 'idler' }), []);
    const all = await admin.command({ currentOp: 1, $all: true, appName: 'idler' });
    assert.equal((all['inprog'] as Document[]).length, idle.length);
  });

  test('idle cursors with idleCursors: type idleCursor and the cursor id', async () => {
    const coll = ts.client.db('co').collection('cursors');
    await coll.insertMany([1, 2, 3, 4, 5].map((v) => ({ v })));
    const r = await ts.client.db('co').command({ find: 'cursors', batchSize: 2 }, raw);
    const id = r['cursor']['id'] as Long;
    const found = await currentOps(
      admin,
      { idleCursors: true },
      { type: 'idleCursor', 'cursor.cursorId': id },
    );
    assert.equal(found.length, 1);
    assert.equal(found[0]?.['ns'], 'co.cursors');
    assert.equal(found[0]?.['cursor']['nDocsReturned'].toNumber(), 2);
    assert.equal(found[0]?.['cursor']['tailable'], false);
    assert.deepEqual(
      await currentOps(admin, {}, { type: 'idleCursor' }),
      [],
      'not without idleCursors',
    );
    await ts.client.db('co').command({ killCursors: 'cursors', cursors: [id] });
  });

  test('an open transaction between statements is an idleSession (idleSessions defaults to true)', async () => {
    const session = ts.client.startSession();
    try {
      session.startTransaction();
      await ts.client.db('co').collection('txn').insertOne({ a: 1 }, { session });
      const id = session.id?.['id'];
      const found = await currentOps(admin, {}, { type: 'idleSession', 'lsid.id': id });
      assert.equal(found.length, 1);
      const s = found[0] as Document;
      assert.equal(s['active'], false);
      assert.equal(s['desc'], 'inactive transaction');
      assert.equal(s['transaction']['parameters']['autocommit'], false);
      assert.equal(bsonType(s['transaction']['parameters']['txnNumber']), 'Long');
      assert.deepEqual(
        await currentOps(admin, { idleSessions: false }, { type: 'idleSession', 'lsid.id': id }),
        [],
      );
    } finally {
      await session.abortTransaction();
      await session.endSession();
    }
  });

  test('killOp wakes a change-stream getMore waiting for events', async () => {
    const victim = await ts.newClient({ appName: 'victim-stream' });
    const db = victim.db('co');
    const opened = await db.command(
      { aggregate: 'stream', pipeline: [{ $changeStream: {} }], cursor: {} },
      raw,
    );
    const cursorId = opened['cursor']['id'] as Long;
    const started = Date.now();
    const getMore = db.command({ getMore: cursorId, collection: 'stream', maxAwaitTimeMS: 10_000 });
    getMore.catch(() => undefined);
    const op = await eventually(
      async () => (await currentOps(admin, {}, { 'command.getMore': cursorId }))[0],
      'the getMore in $currentOp',
    );
    assert.equal(op['op'], 'getmore');
    assert.equal(op['ns'], 'co.stream');
    await admin.command({ killOp: 1, op: op['opid'] });
    assert.equal(await codeOf(getMore), 11601);
    assert.ok(Date.now() - started < 8000, 'the wait ended at the kill');
  });

  test('killSessions interrupts the running operations of the sessions it lists, not others', async () => {
    const victim = await ts.newClient({ appName: 'victim-killsessions' });
    const coll = victim.db('co').collection('ks');
    await coll.insertOne({ x: 1 });
    const session = victim.startSession();
    try {
      await block(admin, 'find', 'victim-killsessions');
      const started = Date.now();
      const find = coll.find({ x: 1 }, { session }).toArray();
      find.catch(() => undefined);
      await eventually(
        async () => (await currentOps(admin, {}, { 'command.find': 'ks' }))[0],
        'the find in $currentOp',
      );
      // A session nobody uses: killing it touches no running operation.
      await admin.command({ killSessions: [{ id: new UUID() }] });
      assert.equal(
        (await currentOps(admin, {}, { 'command.find': 'ks' })).length,
        1,
        'the find still runs',
      );
      const r = await admin.command({ killSessions: [{ id: session.id?.['id'] }] });
      assert.equal(r['ok'], 1);
      assert.equal(await codeOf(find), 11601);
      assert.ok(
        Date.now() - started < 8000,
        'the find stopped at the kill, not at the end of its 10 s block',
      );
    } finally {
      await session.endSession();
    }
  });

  test('killAllSessions wakes a change-stream getMore waiting in a session', async () => {
    const victim = await ts.newClient({ appName: 'victim-killall' });
    const db = victim.db('co');
    const opened = await db.command(
      { aggregate: 'stream2', pipeline: [{ $changeStream: {} }], cursor: {} },
      raw,
    );
    const cursorId = opened['cursor']['id'] as Long;
    const started = Date.now();
    const getMore = db.command({
      getMore: cursorId,
      collection: 'stream2',
      maxAwaitTimeMS: 10_000,
    });
    getMore.catch(() => undefined);
    await eventually(
      async () => (await currentOps(admin, {}, { 'command.getMore': cursorId }))[0],
      'the getMore in $currentOp',
    );
    const r = await admin.command({ killAllSessions: [] });
    assert.equal(r['ok'], 1, 'the killing command is not interrupted itself');
    assert.equal(await codeOf(getMore), 11601);
    assert.ok(Date.now() - started < 8000, 'the wait ended at the kill');
  });

  test('killOp of no running operation still answers ok; bad op values get bsonExtractIntegerField’s codes', async () => {
    const r = await admin.command({ killOp: 1, op: 2_000_000_000 });
    assert.equal(r['ok'], 1);
    assert.equal(await codeOf(admin.command({ killOp: 1 })), 4);
    assert.equal(await codeOf(admin.command({ killOp: 1, op: 'x' })), 14);
    assert.equal(await codeOf(admin.command({ killOp: 1, op: 1.5 })), 2);
    assert.equal(await codeOf(admin.command({ killOp: 1, op: 2 ** 40 })), 26823);
    assert.equal(await codeOf(ts.client.db('co').command({ killOp: 1, op: 1 })), 13);
  });

  test('$currentOp bad input: options, position, namespace', async () => {
    assert.equal(
      await codeOf(currentOps(admin, { bogus: true })),
      9,
      'Unrecognized option (FailedToParse)',
    );
    assert.equal(await codeOf(currentOps(admin, { idleConnections: 1 })), 9);
    assert.equal(
      await codeOf(currentOps(admin, { allUsers: 'yes' })),
      14,
      'allUsers is checked by the lite parse (TypeMismatch)',
    );
    assert.equal(await codeOf(admin.aggregate([{ $currentOp: 1 }]).toArray()), 14);
    assert.equal(
      await codeOf(admin.aggregate([{ $documents: [] }, { $currentOp: {} }]).toArray()),
      40602,
    );
    assert.equal(
      await codeOf(admin.aggregate([{ $facet: { a: [{ $currentOp: {} }] } }]).toArray()),
      40600,
    );
    assert.equal(
      await codeOf(
        ts.client
          .db('co')
          .aggregate([{ $currentOp: {} }])
          .toArray(),
      ),
      73,
    );
    assert.equal(
      await codeOf(
        admin
          .collection('c')
          .aggregate([{ $currentOp: {} }])
          .toArray(),
      ),
      73,
    );
    // Options mongod accepts on a replica-set member, with no effect here.
    const ok = await currentOps(
      admin,
      { allUsers: true, localOps: true, backtrace: false, truncateOps: false },
      { 'command.aggregate': new Int32(1) },
    );
    assert.equal(ok.length, 1);
  });
});

describe('$listSessions', () => {
  let ts: TestServer;
  let client: MongoClient;
  before(async () => {
    ts = await startTestServer();
    client = ts.client;
  });
  after(async () => {
    await ts.stop();
  });

  const sessions = (spec: Document): Promise<Document[]> =>
    client
      .db('config')
      .collection('system.sessions')
      .aggregate([{ $listSessions: spec }])
      .toArray();

  test('lists a session the driver used, with _id {id, uid} and lastUse', async () => {
    const session = client.startSession();
    try {
      await client.db('ls').collection('c').insertOne({ a: 1 }, { session });
      const id = session.id?.['id'] as Binary;
      await client.db('admin').command({ refreshLogicalSessionCacheNow: 1 });
      for (const spec of [{}, { allUsers: true }]) {
        const mine = (await sessions(spec)).filter(
          (s) => (s['_id']['id'] as Binary).toString('hex') === id.toString('hex'),
        );
        assert.equal(mine.length, 1, JSON.stringify(spec));
        const s = mine[0] as Document;
        // Without authentication a session's uid is mongod's kNoAuthDigest, SHA-256 of nothing.
        assert.deepEqual(
          Buffer.from((s['_id']['uid'] as Binary).buffer),
          createHash('sha256').digest(),
        );
        assert.ok(s['lastUse'] instanceof Date);
      }
      assert.deepEqual(
        await sessions({ users: [{ user: 'someone', db: 'admin' }] }),
        [],
        'no session of that user',
      );
      const local = await client
        .db('admin')
        .aggregate([{ $listLocalSessions: {} }, { $match: { '_id.id': id } }])
        .toArray();
      assert.equal(local.length, 1, '$listLocalSessions reads the same cache');
    } finally {
      await session.endSession();
    }
  });

  test('in a multi-document transaction: $currentOp and $listLocalSessions refuse (263), $listSessions meets the config-database rule', async () => {
    const admin = client.db('admin');
    const attempts: Array<[string, (session: ClientSession) => Promise<unknown>, string]> = [
      [
        '$currentOp',
        (session) => admin.aggregate([{ $currentOp: {} }], { session }).toArray(),
        'Operation not permitted in transaction :: caused by :: Aggregation stage $currentOp cannot run within a multi-document transaction.',
      ],
      [
        '$listLocalSessions',
        (session) => admin.aggregate([{ $listLocalSessions: {} }], { session }).toArray(),
        'Operation not permitted in transaction :: caused by :: Aggregation stage $listLocalSessions cannot run within a multi-document transaction.',
      ],
      // mongod refuses any command on the config (or local) database in a transaction first.
      [
        '$listSessions',
        (session) =>
          client
            .db('config')
            .collection('system.sessions')
            .aggregate([{ $listSessions: {} }], { session })
            .toArray(),
        'Cannot run command against the config database in a transaction.',
      ],
      [
        'find on local',
        (session) => client.db('local').collection('oplog.rs').find({}, { session }).toArray(),
        "Cannot run command against the 'local' database in a transaction.",
      ],
    ];
    for (const [what, run, message] of attempts) {
      const session = client.startSession();
      try {
        session.startTransaction();
        const err = await rejection(run(session));
        assert.equal(err.code, 263, what);
        assert.equal(err.codeName, 'OperationNotSupportedInTransaction', what);
        assert.equal(err.message, message, what);
      } finally {
        await session.abortTransaction().catch(() => undefined);
        await session.endSession();
      }
    }
    // Outside a transaction, in the same session, they run.
    const session = client.startSession();
    try {
      assert.ok(Array.isArray(await admin.aggregate([{ $currentOp: {} }], { session }).toArray()));
      assert.ok(
        Array.isArray(await admin.aggregate([{ $listLocalSessions: {} }], { session }).toArray()),
      );
    } finally {
      await session.endSession();
    }
  });

  test('bad input: namespace, spec type, unknown field, allUsers with users', async () => {
    assert.equal(
      await codeOf(
        client
          .db('admin')
          .aggregate([{ $listSessions: {} }])
          .toArray(),
      ),
      73,
    );
    assert.equal(
      await codeOf(
        client
          .db('config')
          .collection('other')
          .aggregate([{ $listSessions: {} }])
          .toArray(),
      ),
      73,
    );
    assert.equal(await codeOf(sessions(1 as unknown as Document)), 14);
    assert.equal(await codeOf(sessions({ bogus: 1 })), 40415);
    assert.equal(await codeOf(sessions({ allUsers: true, users: [{ user: 'u', db: 'd' }] })), 12);
    assert.equal(
      await codeOf(
        client
          .db('config')
          .collection('system.sessions')
          .aggregate([{ $match: {} }, { $listSessions: {} }])
          .toArray(),
      ),
      40602,
    );
  });
});
