// Handshake and diagnostics through the official driver.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Long, MongoClient, MongoServerError, ObjectId, UUID } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { SecantusServer } from '../../src/embed/index.js';
import type { TestDoc } from '../helpers/driver.js';
import { rawCommand } from '../helpers/wire-client.js';

describe('handshake (replica-set mode)', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });

  test('the driver connects with the URI the server gives, and with directConnection / no options', async () => {
    const host = ts.server.host;
    for (const uri of [ts.uri, `mongodb://${host}/?directConnection=true`, `mongodb://${host}/`]) {
      const c = await ts.newClient({}, uri);
      const r = await c.db('admin').command({ ping: 1 });
      assert.equal(r['ok'], 1);
      const topology = c.options.replicaSet;
      if (uri.includes('replicaSet')) assert.equal(topology, 'rs0');
    }
  });

  test('hello reports a writable primary of a one-member replica set', async () => {
    const r = await ts.client.db('admin').command({ hello: 1 });
    assert.equal(r['isWritablePrimary'], true);
    assert.equal(r['setName'], 'rs0');
    assert.deepEqual(r['hosts'], [ts.server.host]);
    assert.equal(r['primary'], ts.server.host);
    assert.equal(r['me'], ts.server.host);
    assert.equal(r['secondary'], false);
    assert.equal(r['maxBsonObjectSize'], 16777216);
    assert.equal(r['maxMessageSizeBytes'], 48000000);
    assert.equal(r['maxWriteBatchSize'], 100000);
    assert.equal(r['logicalSessionTimeoutMinutes'], 30);
    assert.equal(r['minWireVersion'], 0);
    assert.equal(r['maxWireVersion'], 25);
    assert.ok(r['localTime'] instanceof Date);
    assert.equal(typeof r['connectionId'], 'number');
    assert.ok(r['topologyVersion']?.processId instanceof ObjectId, 'hello carries topologyVersion');
    assert.equal(Number(r['topologyVersion'].counter), 0);
    assert.ok(r['$clusterTime'] !== undefined, 'replica-set replies carry $clusterTime');
    assert.ok(r['operationTime'] !== undefined);
  });

  test('legacy isMaster answers ismaster', async () => {
    const r = await ts.client.db('admin').command({ isMaster: 1 });
    assert.equal(r['ismaster'], true);
    assert.equal(r['isWritablePrimary'], undefined);
  });

  test('buildInfo, getParameter, getCmdLineOpts, serverStatus, hostInfo, listCommands', async () => {
    const admin = ts.client.db('admin');
    const bi = await admin.command({ buildInfo: 1 });
    assert.match(String(bi['version']), /^8\.0\./);
    assert.deepEqual(bi['versionArray'].slice(0, 2), [8, 0]);
    assert.equal(bi['bits'], 64);
    const gp = await admin.command({ getParameter: '*' });
    assert.equal(gp['enableTestCommands'], true);
    const one = await admin.command({ getParameter: 1, featureCompatibilityVersion: 1 });
    assert.deepEqual(one['featureCompatibilityVersion'], { version: '8.0' });
    const opts = await admin.command({ getCmdLineOpts: 1 });
    assert.ok(Array.isArray(opts['argv']));
    assert.equal(typeof opts['parsed'], 'object');
    const ss = await admin.command({ serverStatus: 1 });
    assert.equal(ss['process'], 'secantusd');
    assert.equal(ss['storageEngine']['name'], 'memory');
    assert.ok(ss['connections']['current'] >= 1);
    assert.equal(typeof ss['opcounters']['insert'], 'number');
    const hi = await admin.command({ hostInfo: 1 });
    assert.ok(hi['system']['numCores'] >= 1);
    const lc = await admin.command({ listCommands: 1 });
    for (const name of ['find', 'insert', 'hello', 'getMore', 'listCommands'])
      assert.ok(name in lc['commands'], name);
    const w = await admin.command({ whatsmyuri: 1 });
    assert.match(String(w['you']), /^127\.0\.0\.1:\d+$/);
  });

  test('unknown command: CommandNotFound (59)', async () => {
    await assert.rejects(ts.client.db('x').command({ noSuchCommand: 1 }), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, 59);
      assert.equal(e.codeName, 'CommandNotFound');
      assert.match(e.message, /no such command: 'noSuchCommand'/);
      return true;
    });
  });

  test('unknown field: 40415; wrong type: TypeMismatch (14)', async () => {
    await assert.rejects(ts.client.db('x').command({ find: 'c', bogus: 1 }), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, 40415);
      assert.match(e.message, /BSON field 'find.bogus' is an unknown field/);
      return true;
    });
    await assert.rejects(
      ts.client.db('x').command({ find: 'c', filter: 'not a document' }),
      (e: unknown) => {
        assert.ok(e instanceof MongoServerError);
        assert.equal(e.code, 14);
        assert.equal(e.codeName, 'TypeMismatch');
        return true;
      },
    );
  });

  test("failCommand with an appName fails a new connection's handshake hello", async () => {
    await ts.client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['hello', 'isMaster'], appName: 'fp-handshake', errorCode: 91 },
    });
    try {
      const handshake = {
        $db: 'admin',
        client: {
          application: { name: 'fp-handshake' },
          driver: { name: 'raw', version: '0' },
          os: { type: 'Linux' },
        },
      };
      const other = await rawCommand(ts.server.port, {
        hello: 1,
        ...handshake,
        client: { ...handshake.client, application: { name: 'another-app' } },
      });
      assert.equal(other['ok'], 1, 'another app is not failed');
      const failed = await rawCommand(ts.server.port, { hello: 1, ...handshake });
      assert.equal(failed['code'], 91);
      const next = await rawCommand(ts.server.port, { hello: 1, ...handshake });
      assert.equal(next['ok'], 1, 'times: 1 is used up');
    } finally {
      await ts.client.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
    }
  });

  test('admin-only commands refuse other databases', async () => {
    await assert.rejects(ts.client.db('x').command({ listDatabases: 1 }), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, 13);
      return true;
    });
  });
});

describe('standalone mode', () => {
  test('transactions and txnNumbers are refused with IllegalOperation, as by mongod', async () => {
    const server = await SecantusServer.start({ replSet: '' });
    const client = new MongoClient(server.uri);
    try {
      const coll = client.db('t').collection<TestDoc>('c');
      const session = client.startSession();
      session.startTransaction();
      await assert.rejects(
        coll.insertOne({ _id: 1 }, { session }),
        // The driver rewords code 20 as "This MongoDB deployment does not support retryable writes".
        (e: unknown) =>
          e instanceof MongoServerError && /does not support retryable writes/.test(e.message),
      );
      await session.endSession();
      const raw = await client
        .db('t')
        .command({
          insert: 'c',
          documents: [{ _id: 2 }],
          lsid: { id: new UUID() },
          txnNumber: Long.fromInt(1),
        })
        .catch((e: unknown) => e);
      assert.ok(raw instanceof MongoServerError && raw.code === 20);
      assert.match(raw.message, /only allowed on a replica set member or mongos/);
      // Sessions without txnNumber are fine, and nothing was written.
      const plain = client.startSession();
      await coll.insertOne({ _id: 3 }, { session: plain });
      await plain.endSession();
      assert.deepEqual(await coll.find().toArray(), [{ _id: 3 }]);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  test('hello has no replica-set fields and replies carry no $clusterTime', async () => {
    const server = await SecantusServer.start({ replSet: '' });
    const client = new MongoClient(server.uri);
    try {
      const r = await client.db('admin').command({ hello: 1 });
      assert.equal(r['isWritablePrimary'], true);
      assert.equal(r['setName'], undefined);
      assert.equal(r['$clusterTime'], undefined);
      await client.db('t').collection('c').insertOne({ a: 1 });
      assert.equal(await client.db('t').collection('c').countDocuments({}), 1);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  test('w > 1 is refused on a standalone', async () => {
    const server = await SecantusServer.start({ replSet: '' });
    const client = new MongoClient(server.uri);
    try {
      await assert.rejects(
        client.db('t').command({ insert: 'c', documents: [{ a: 1 }], writeConcern: { w: 2 } }),
        (e: unknown) => e instanceof MongoServerError && e.code === 2,
      );
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

describe('in-process server lifecycle', () => {
  test('port 0 picks a free port; two servers run side by side; stop() closes everything', async () => {
    const a = await SecantusServer.start();
    const b = await SecantusServer.start();
    assert.notEqual(a.port, b.port);
    assert.ok(a.port > 0);
    const client = new MongoClient(a.uri);
    await client.db('t').collection('c').insertOne({ x: 1 });
    await client.close();
    await Promise.all([a.stop(), b.stop()]);
    await a.stop(); // idempotent
    const c2 = new MongoClient(a.uri, { serverSelectionTimeoutMS: 300 });
    await assert.rejects(c2.connect());
    await c2.close();
  });

  test('Symbol.asyncDispose stops the server', async () => {
    let port: number;
    {
      await using server = await SecantusServer.start();
      port = server.port;
    }
    const c = new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`, {
      serverSelectionTimeoutMS: 300,
    });
    await assert.rejects(c.connect());
    await c.close();
  });
});

describe('shutdown', () => {
  test('stop() lets a running request finish and reply before closing', async () => {
    const server = await SecantusServer.start();
    const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 2000 });
    await client.connect();
    // Hold an insert in the server for 300 ms (failCommand blockConnection), then stop.
    await client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['insert'], blockConnection: true, blockTimeMS: 300 },
    });
    const insert = client.db('s').collection<TestDoc>('c').insertOne({ _id: 1 });
    await new Promise((r) => setTimeout(r, 100));
    const stopped = server.stop();
    const r = await insert;
    assert.equal(r.insertedId, 1, 'the in-flight write was acknowledged');
    await stopped;
    await client.close(true);
  });
});
