// What mongod checks in a request beyond a command's own arguments, through the driver and
// raw OP_MSG: gossiped $clusterTime and afterClusterTime, the handshake's client metadata,
// option combinations (explain with writeConcern, change streams with a read concern), and
// the cursors of listCollections / listIndexes and of collection-less aggregates.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Binary, Long, Timestamp } from 'mongodb';
import type { ClusterTime, Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import { rawCommand } from '../helpers/wire-client.js';

const zeroSignature = { hash: new Binary(Buffer.alloc(20)), keyId: Long.fromNumber(0) };

function nowSecs(): number {
  return Math.floor(Date.now() / 1000);
}

/** The reply's cluster time (raw replies are decoded by the server's bson, not the driver's). */
function clusterTimeOf(reply: Document): Timestamp {
  const ct: unknown = (reply['$clusterTime'] as ClusterTime | undefined)?.clusterTime;
  assert.ok(isTimestamp(ct), 'reply carries $clusterTime');
  return new Timestamp({ t: ct.t, i: ct.i });
}

function isTimestamp(v: unknown): v is { t: number; i: number } {
  return (v as { _bsontype?: unknown } | undefined)?._bsontype === 'Timestamp';
}

function signed(t: number, i = 1): Document {
  return { clusterTime: new Timestamp({ t, i }), signature: zeroSignature };
}

describe('request checks (no access control)', () => {
  let ts: TestServer;
  const raw = (body: Document): Promise<Document> =>
    rawCommand(ts.server.port, { ...body, $db: 'admin' });

  before(async () => {
    ts = await startTestServer();
    await ts.client
      .db('rc')
      .collection('a')
      .insertMany([{ x: 1 }, { x: 2 }, { x: 3 }]);
  });
  after(() => ts.stop());

  it('$clusterTime: a far-future time is refused and does not move the clock', async () => {
    for (const t of [nowSecs() + 2 * 365 * 24 * 3600, 0xffffffff]) {
      const r = await raw({ ping: 1, $clusterTime: signed(t) });
      assert.equal(r['code'], 209, JSON.stringify(r));
      assert.equal(r['codeName'], 'ClusterTimeFailsRateLimiter');
    }
    const after = clusterTimeOf(await raw({ ping: 1 }));
    assert.ok(after.t <= nowSecs() + 1, `clock stayed near the wall clock: ${after.t}`);
    // A write after the refused gossip gets an ordinary timestamp in the oplog.
    await ts.client.db('rc').collection('clock').insertOne({ a: 1 });
    const last = await ts.client
      .db('local')
      .collection('oplog.rs')
      .find()
      .sort({ $natural: -1 })
      .limit(1)
      .next();
    assert.ok(isTimestamp(last?.['ts']) && last['ts'].t <= nowSecs() + 1);
  });

  it('$clusterTime: a time within the drift limit moves the clock (the client may, without auth)', async () => {
    const ahead = nowSecs() + 120;
    assert.equal((await raw({ ping: 1, $clusterTime: signed(ahead) }))['ok'], 1);
    assert.ok(clusterTimeOf(await raw({ ping: 1 })).t >= ahead);
  });

  it('$clusterTime: malformed gossip gets mongod codes', async () => {
    const cases: [Document, number][] = [
      [{ clusterTime: 5, signature: zeroSignature }, 14],
      [{ signature: zeroSignature }, 4],
      [{ clusterTime: new Timestamp({ t: 1, i: 1 }), signature: 'x' }, 14],
      [{ clusterTime: new Timestamp({ t: 1, i: 1 }), signature: { keyId: 0 } }, 4],
      [
        {
          clusterTime: new Timestamp({ t: 1, i: 1 }),
          signature: { hash: new Binary(Buffer.alloc(3)), keyId: 0 },
        },
        12,
      ],
      [
        {
          clusterTime: new Timestamp({ t: 1, i: 1 }),
          signature: { hash: new Binary(Buffer.alloc(20), 4), keyId: 0 },
        },
        12,
      ],
      [{ clusterTime: new Timestamp({ t: 1, i: 1 }), signature: { hash: zeroSignature.hash } }, 4],
      [
        {
          clusterTime: new Timestamp({ t: 1, i: 1 }),
          signature: { hash: zeroSignature.hash, keyId: 'k' },
        },
        14,
      ],
      [
        {
          clusterTime: new Timestamp({ t: 1, i: 1 }),
          signature: { hash: zeroSignature.hash, keyId: 1.5 },
        },
        2,
      ],
    ];
    for (const [ct, code] of cases) {
      const r = await raw({ ping: 1, $clusterTime: ct });
      assert.equal(r['code'], code, `${JSON.stringify(ct)} → ${JSON.stringify(r)}`);
    }
    assert.equal((await raw({ ping: 1, $clusterTime: 'x' }))['code'], 14);
    // Without a signature it counts as unsigned (mongod 8.0).
    const unsigned = await raw({
      ping: 1,
      $clusterTime: { clusterTime: new Timestamp({ t: 1, i: 1 }) },
    });
    assert.equal(unsigned['ok'], 1);
    // The server still serves.
    assert.equal((await ts.client.db('admin').command({ ping: 1 }))['ok'], 1);
  });

  it('readConcern afterClusterTime later than the cluster time: InvalidOptions (72)', async () => {
    const later = new Timestamp({ t: nowSecs() + 3600, i: 1 });
    const e = await expectServerCode(
      ts.client.db('rc').command({ find: 'a', readConcern: { afterClusterTime: later } }),
      72,
    );
    assert.match(
      e.message,
      /afterClusterTime value must not be greater than the current clusterTime/,
    );
    const now = clusterTimeOf(await raw({ ping: 1 }));
    const ok = await ts.client
      .db('rc')
      .command({ find: 'a', readConcern: { afterClusterTime: now } });
    assert.equal(ok['cursor'].firstBatch.length, 3);
  });

  it('client metadata in the handshake is checked as mongod does', async () => {
    const driver = { name: 'raw', version: '0' };
    const os = { type: 'Linux' };
    const cases: [Document, number][] = [
      [{ driver, os, padding: 'p'.repeat(1100) }, 185],
      [{ driver, os, application: { name: 'a'.repeat(129) } }, 184],
      [{ driver, os, application: { name: 5 } }, 14],
      [{ driver, os, application: 'app' }, 14],
      [{ driver }, 183],
      [{ os }, 183],
      [{ driver: { name: 'raw' }, os }, 183],
      [{ driver: { version: '0' }, os }, 183],
      [{ driver: { name: 1, version: '0' }, os }, 14],
      [{ driver, os: {} }, 183],
      [{ driver, os: { type: 1 } }, 14],
      [{ driver: 'raw', os }, 14],
    ];
    for (const [client, code] of cases) {
      const r = await raw({ hello: 1, client });
      assert.equal(
        r['code'],
        code,
        `${JSON.stringify(client).slice(0, 80)} → ${String(r['errmsg'])}`,
      );
    }
    const good = await raw({
      hello: 1,
      client: { driver, os, application: { name: 'a'.repeat(128) }, extra: { any: 1 } },
    });
    assert.equal(good['ok'], 1);
  });

  it('aggregate explain with a writeConcern: FailedToParse (9); explain inside explain: 9', async () => {
    const db = ts.client.db('rc');
    const e = await expectServerCode(
      db.command({ aggregate: 'a', pipeline: [], explain: true, writeConcern: { w: 1 } }),
      9,
    );
    assert.match(e.message, /Aggregation explain does not support the'writeConcern' option/);
    await expectServerCode(
      db.command({ explain: { aggregate: 'a', pipeline: [], cursor: {}, writeConcern: { w: 1 } } }),
      9,
    );
    await expectServerCode(
      db.command({ explain: { aggregate: 'a', pipeline: [], explain: true } }),
      9,
    );
    const fine = await db.command({ aggregate: 'a', pipeline: [], explain: true });
    assert.ok(fine['queryPlanner'] !== undefined || fine['stages'] !== undefined);
  });

  it('a change stream refuses an explicit read concern other than majority (72)', async () => {
    const coll = ts.client.db('rc').collection('a');
    for (const level of ['local', 'available', 'linearizable']) {
      const e = await expectServerCode(
        ts.client.db('rc').command({
          aggregate: 'a',
          pipeline: [{ $changeStream: {} }],
          cursor: {},
          readConcern: { level },
        }),
        72,
      );
      assert.match(e.message, /cannot run with a readConcern other than 'majority'/);
    }
    // The driver's watch() on a collection with readConcern local is refused the same way.
    const local = ts.client.db('rc').collection('a', { readConcern: { level: 'local' } });
    const cs = local.watch();
    await assert.rejects(cs.tryNext(), (e: Error & { code?: number }) => e.code === 72);
    await cs.close();
    // Majority, and no level at all (afterClusterTime only), are accepted.
    const majority = ts.client.db('rc').collection('a', { readConcern: { level: 'majority' } });
    const ok = majority.watch();
    await ok.tryNext();
    await ok.close();
    const at = clusterTimeOf(await raw({ ping: 1 }));
    const r = await ts.client.db('rc').command({
      aggregate: 'a',
      pipeline: [{ $changeStream: {} }],
      cursor: {},
      readConcern: { afterClusterTime: at },
    });
    assert.equal(r['ok'], 1);
    await ts.client.db('rc').command({ killCursors: 'a', cursors: [r['cursor'].id] });
    await coll.findOne({});
  });

  it('listCollections and listIndexes honour cursor.batchSize; getMore reads the rest', async () => {
    const db = ts.client.db('lc');
    for (const n of ['c1', 'c2', 'c3', 'c4', 'c5']) await db.createCollection(n);
    const first = await db.command({
      listCollections: 1,
      nameOnly: true,
      cursor: { batchSize: 2 },
    });
    assert.equal(first['cursor'].firstBatch.length, 2);
    assert.ok(!Long.fromValue(first['cursor'].id).isZero(), 'cursor stays open');
    assert.equal(first['cursor'].ns, 'lc.$cmd.listCollections');
    const more = await db.command({
      getMore: first['cursor'].id,
      collection: '$cmd.listCollections',
      batchSize: 10,
    });
    assert.deepEqual(
      [...first['cursor'].firstBatch, ...more['cursor'].nextBatch].map((d: Document) => d['name']),
      ['c1', 'c2', 'c3', 'c4', 'c5'],
    );
    assert.ok(Long.fromValue(more['cursor'].id).isZero());
    // The driver's cursor walks it with any batch size.
    const names = await db.listCollections({}, { nameOnly: true, batchSize: 1 }).toArray();
    assert.equal(names.length, 5);

    const coll = db.collection('c1');
    await coll.createIndexes([{ key: { a: 1 } }, { key: { b: 1 } }, { key: { c: 1 } }]);
    const li = await db.command({ listIndexes: 'c1', cursor: { batchSize: 0 } });
    assert.equal(li['cursor'].firstBatch.length, 0);
    assert.equal(li['cursor'].ns, 'lc.$cmd.listIndexes.c1');
    const liMore = await db.command({
      getMore: li['cursor'].id,
      collection: '$cmd.listIndexes.c1',
    });
    assert.equal(liMore['cursor'].nextBatch.length, 4);
    assert.equal((await coll.listIndexes({ batchSize: 1 }).toArray()).length, 4);

    // Killing them by their command namespace.
    const open = await db.command({ listCollections: 1, cursor: { batchSize: 1 } });
    const k = await db.command({
      killCursors: '$cmd.listCollections',
      cursors: [open['cursor'].id],
    });
    assert.equal(k['cursorsKilled'].length, 1);
    const openIdx = await db.command({ listIndexes: 'c1', cursor: { batchSize: 1 } });
    const ki = await db.command({
      killCursors: '$cmd.listIndexes.c1',
      cursors: [openIdx['cursor'].id],
    });
    assert.equal(ki['cursorsKilled'].length, 1);

    // Bad cursor options: mongod's IDL codes.
    await expectServerCode(db.command({ listCollections: 1, cursor: { batchSize: -1 } }), 51024);
    await expectServerCode(db.command({ listCollections: 1, cursor: { foo: 1 } }), 40415);
    await expectServerCode(db.command({ listIndexes: 'c1', cursor: { batchSize: 'x' } }), 14);
  });

  it('maxTimeAlwaysTimeOut fails operations that have a time limit, cursors included', async () => {
    const admin = ts.client.db('admin');
    const coll = ts.client.db('rc').collection('a');
    try {
      await admin.command({ configureFailPoint: 'maxTimeAlwaysTimeOut', mode: { times: 1 } });
      assert.equal((await coll.find({}).toArray()).length, 3, 'no limit: not affected');
      await expectServerCode(coll.find({}).maxTimeMS(60_000).toArray(), 50);
      assert.equal((await coll.find({}).maxTimeMS(60_000).toArray()).length, 3, 'times: 1 used');

      // A cursor opened with maxTimeMS keeps its limit for its getMores; one without has none.
      const limited = await ts.client
        .db('rc')
        .command({ find: 'a', batchSize: 1, maxTimeMS: 60_000 });
      const unlimited = await ts.client.db('rc').command({ find: 'a', batchSize: 1 });
      await admin.command({ configureFailPoint: 'maxTimeAlwaysTimeOut', mode: 'alwaysOn' });
      const more = await ts.client
        .db('rc')
        .command({ getMore: unlimited['cursor'].id, collection: 'a' });
      assert.equal(more['cursor'].nextBatch.length, 2);
      await expectServerCode(
        ts.client.db('rc').command({ getMore: limited['cursor'].id, collection: 'a' }),
        50,
      );
      const agg = coll.aggregate([{ $match: {} }], { maxTimeMS: 60_000 });
      await assert.rejects(agg.toArray(), (e: Error & { code?: number }) => e.code === 50);
    } finally {
      await admin.command({ configureFailPoint: 'maxTimeAlwaysTimeOut', mode: 'off' });
    }
  });

  it('maxTimeNeverTimeOut lifts time limits: a write waiting on fsyncLock outlives its maxTimeMS', async () => {
    const admin = ts.client.db('admin');
    const coll = ts.client.db('rc').collection('never');
    await admin.command({ fsync: 1, lock: true });
    try {
      await expectServerCode(coll.insertOne({ a: 1 }, { maxTimeMS: 50 }), 50);
      await admin.command({ configureFailPoint: 'maxTimeNeverTimeOut', mode: 'alwaysOn' });
      const pending = coll.insertOne({ a: 2 }, { maxTimeMS: 50 });
      await new Promise((r) => setTimeout(r, 200));
      await admin.command({ fsyncUnlock: 1 });
      await pending;
      assert.equal(await coll.countDocuments({ a: 2 }), 1);
    } finally {
      await admin.command({ configureFailPoint: 'maxTimeNeverTimeOut', mode: 'off' });
      await admin.command({ fsyncUnlock: 1 }).catch(() => undefined);
    }
  });

  it('killCursors kills a database-level change stream on <db>.$cmd.aggregate', async () => {
    const db = ts.client.db('rc');
    const cs = await db.command({ aggregate: 1, pipeline: [{ $changeStream: {} }], cursor: {} });
    assert.equal(cs['cursor'].ns, 'rc.$cmd.aggregate');
    const r = await db.command({ killCursors: '$cmd.aggregate', cursors: [cs['cursor'].id] });
    assert.equal(r['cursorsKilled'].length, 1);
    await expectServerCode(
      db.command({ getMore: cs['cursor'].id, collection: '$cmd.aggregate' }),
      43,
    );
    // And the driver closes one without an error.
    const stream = db.watch();
    await stream.tryNext();
    await stream.close();
    // Other $-names stay invalid.
    await expectServerCode(db.command({ killCursors: '$cmd.other', cursors: [Long.ONE] }), 73);
  });
});

describe('request checks (access control)', () => {
  let ts: TestServer;
  let reader: MongoClient;

  before(async () => {
    ts = await startTestServer({ auth: { username: 'root', password: 'rootpw' } });
    await ts.client.db('admin').command({
      createUser: 'reader',
      pwd: 'readpw',
      roles: [{ role: 'read', db: 'app' }],
    });
    reader = await ts.newClient(
      {},
      `mongodb://reader:readpw@${ts.server.host}/?replicaSet=rs0&authSource=admin`,
    );
  });
  after(() => ts.stop());

  it('a user without advanceClusterTime cannot present a time the server never gave out (211)', async () => {
    const session = reader.startSession();
    try {
      session.advanceClusterTime({
        clusterTime: new Timestamp({ t: nowSecs() + 600, i: 1 }),
        signature: zeroSignature,
      });
      await expectServerCode(reader.db('app').command({ ping: 1 }, { session }), 211);
    } finally {
      await session.endSession();
    }
    // Times the server handed out are fine: the driver gossips them on every command.
    assert.equal((await reader.db('app').command({ ping: 1 }))['ok'], 1);
  });

  it('an unauthenticated client’s unsigned time is ignored, not applied', async () => {
    const ahead = nowSecs() + 600;
    const r = await rawCommand(ts.server.port, {
      hello: 1,
      $db: 'admin',
      $clusterTime: signed(ahead),
    });
    assert.equal(r['ok'], 1);
    const now = await ts.client.db('admin').command({ ping: 1 });
    assert.ok(clusterTimeOf(now).t < ahead, 'the clock did not move');
  });
});
