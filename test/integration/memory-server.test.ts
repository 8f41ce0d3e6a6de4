// secantusdb/memory-server, the mongodb-memory-server (MMS) drop-in, called the way MMS users
// call it: create(), start(), stop({ doCleanup, force }), cleanup(), getUri(), state and its
// events, instanceInfo, instance options (port, ip, dbPath, storageEngine, args), binary
// ignored with one log line, MongoMemoryReplSet for transactions and change streams, and the
// errors MMS throws on misuse (StateError, ReplsetCountLowError). Expected behaviour comes
// from MMS's source (MongoMemoryServer.ts, MongoMemoryReplSet.ts).

import { after, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, MongoServerError } from 'mongodb';
import type { Document } from 'mongodb';
import type { TestDoc } from '../helpers/driver.js';
import {
  MongoMemoryReplSet,
  MongoMemoryServer,
  MongoMemoryServerStates,
  ReplsetCountLowError,
  StateError,
  automaticAuthUsers,
  errors,
} from '../../src/embed/memory-server.js';
import DefaultExport from '../../src/embed/memory-server.js';

const dirs: string[] = [];
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'secantus-mms-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function withClient<T>(uri: string, body: (c: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

async function busyPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  return { port, close: () => new Promise((r) => s.close(() => r())) };
}

describe('MongoMemoryServer', () => {
  test('create(), getUri() as MMS builds it, a standalone the driver uses', async () => {
    const mongod = await MongoMemoryServer.create();
    try {
      assert.equal(mongod.state, 'running');
      const info = mongod.instanceInfo;
      assert.ok(info !== undefined);
      assert.equal(mongod.getUri(), `mongodb://127.0.0.1:${info.port}/`);
      assert.equal(mongod.getUri('app'), `mongodb://127.0.0.1:${info.port}/app`);
      // otherDb goes in as given, query string included, and otherIp replaces the host.
      assert.equal(
        mongod.getUri('app?authSource=admin', 'localhost'),
        `mongodb://localhost:${info.port}/app?authSource=admin`,
      );
      assert.equal(info.ip, '127.0.0.1');
      assert.equal(info.storageEngine, 'ephemeralForTest');
      assert.equal(info.dbPath, undefined);
      await withClient(mongod.getUri('app'), async (c) => {
        await c.db().collection<TestDoc>('c').insertOne({ _id: 1 });
        assert.equal(await c.db('app').collection<TestDoc>('c').countDocuments(), 1);
        // A standalone, as MMS's mongod: no replica set, so no transactions.
        const hello = await c.db('admin').command({ hello: 1 });
        assert.equal(hello['setName'], undefined);
        const session = c.startSession();
        session.startTransaction();
        await assert.rejects(
          c.db().collection<TestDoc>('c').insertOne({ _id: 2 }, { session }),
          (e: unknown) =>
            e instanceof MongoServerError && /does not support retryable writes/.test(e.message),
        );
        await session.endSession();
      });
      assert.equal(DefaultExport, MongoMemoryServer);
      assert.equal(errors.StateError, StateError);
    } finally {
      await mongod.stop();
    }
  });

  test('state goes new → starting → running → stopped → new, with stateChange events', async () => {
    const mongod = new MongoMemoryServer();
    const seen: string[] = [];
    mongod.on('stateChange', (s: string) => seen.push(s));
    assert.equal(mongod.state, MongoMemoryServerStates.new);
    assert.equal(mongod.instanceInfo, undefined);
    assert.equal(await mongod.stop(), false, 'stop() of a server that never ran');
    await mongod.start();
    assert.equal(await mongod.stop(), true);
    assert.deepEqual(seen, ['starting', 'running', 'stopped', 'new']);
    assert.equal(mongod.instanceInfo, undefined);
  });

  test('misuse throws MMS StateError: start twice, getUri or reset when stopped, cleanup when running', async () => {
    const mongod = await MongoMemoryServer.create();
    await assert.rejects(mongod.start(), (e: unknown) => e instanceof StateError);
    await assert.rejects(mongod.cleanup(), (e: unknown) => e instanceof StateError);
    await mongod.stop({ doCleanup: false });
    assert.equal(mongod.state, 'stopped');
    assert.throws(
      () => mongod.getUri(),
      (e: unknown) =>
        e instanceof StateError &&
        e.gotState === 'stopped' &&
        /Incorrect State for operation: "stopped", allowed States: "\[running,starting\]"/.test(
          e.message,
        ),
    );
    await assert.rejects(mongod.reset(), (e: unknown) => e instanceof StateError);
    await mongod.cleanup();
    assert.equal(mongod.state, 'new');
  });

  test('stop({ doCleanup: false }) keeps the data and port for the next start(); cleanup forgets', async () => {
    const mongod = await MongoMemoryServer.create();
    const port = mongod.instanceInfo?.port;
    await withClient(mongod.getUri(), (c) =>
      c.db('keep').collection<TestDoc>('c').insertOne({ _id: 1 }),
    );
    await mongod.stop({ doCleanup: false });
    assert.equal(mongod.instanceInfo?.port, port);
    await mongod.start();
    assert.equal(mongod.instanceInfo?.port, port);
    assert.equal(
      await withClient(mongod.getUri(), (c) =>
        c.db('keep').collection<TestDoc>('c').countDocuments(),
      ),
      1,
    );
    await mongod.stop(); // default: doCleanup
    assert.equal(mongod.state, 'new');
    await mongod.start();
    assert.equal(
      await withClient(mongod.getUri(), (c) =>
        c.db('keep').collection<TestDoc>('c').countDocuments(),
      ),
      0,
    );
    await mongod.stop();
  });

  test("storageEngine 'ephemeralForTest' forgets the data at stop, as mongod's did", async () => {
    const mongod = await MongoMemoryServer.create({
      instance: { storageEngine: 'ephemeralForTest' },
    });
    await withClient(mongod.getUri(), (c) => c.db('e').collection<TestDoc>('c').insertOne({}));
    await mongod.stop({ doCleanup: false });
    await mongod.start();
    assert.equal(
      await withClient(mongod.getUri(), (c) => c.db('e').collection<TestDoc>('c').countDocuments()),
      0,
    );
    await mongod.stop();
  });

  test('a dbPath keeps its data across stop(); cleanup({ force: true }) removes it', async () => {
    const dbPath = join(scratch(), 'data');
    const mongod = await MongoMemoryServer.create({ instance: { dbPath } });
    assert.equal(mongod.instanceInfo?.storageEngine, 'wiredTiger');
    assert.equal(mongod.instanceInfo?.dbPath, dbPath);
    await withClient(mongod.getUri(), (c) =>
      c.db('d').collection<TestDoc>('c').insertOne({ _id: 1 }),
    );
    await mongod.stop(); // a given dbPath is not removed without force
    assert.ok(existsSync(dbPath));
    const again = await MongoMemoryServer.create({ instance: { dbPath } });
    assert.equal(
      await withClient(again.getUri(), (c) => c.db('d').collection<TestDoc>('c').countDocuments()),
      1,
    );
    await again.stop({ doCleanup: true, force: true });
    assert.ok(!existsSync(dbPath));
  });

  test('instance.port: used when free; when taken, another one unless portGeneration is false', async () => {
    const busy = await busyPort();
    try {
      const moved = await MongoMemoryServer.create({ instance: { port: busy.port } });
      assert.notEqual(moved.instanceInfo?.port, busy.port);
      await moved.stop();
      await assert.rejects(
        MongoMemoryServer.create({ instance: { port: busy.port, portGeneration: false } }),
        (e: unknown) => (e as { code?: string }).code === 'EADDRINUSE',
      );
      const forced = new MongoMemoryServer({ instance: { port: busy.port } });
      await assert.rejects(
        forced.start(true),
        (e: unknown) => (e as { code?: string }).code === 'EADDRINUSE',
      );
      assert.equal(forced.state, 'stopped');
    } finally {
      await busy.close();
    }
    const free = await busyPort();
    await free.close();
    const exact = await MongoMemoryServer.create({ instance: { port: free.port } });
    assert.equal(exact.instanceInfo?.port, free.port);
    await exact.stop();
  });

  test('args: --replSet makes a replica set; unknown mongod arguments are ignored', async () => {
    const mongod = await MongoMemoryServer.create({
      instance: { args: ['--replSet', 'argset', '--notablescan'] },
    });
    try {
      const hello = await withClient(mongod.getUri(), (c) => c.db('admin').command({ hello: 1 }));
      assert.equal(hello['setName'], 'argset');
      assert.equal(mongod.instanceInfo?.replSet, 'argset');
    } finally {
      await mongod.stop();
    }
  });

  test('binary is accepted and ignored, with one log line per process', async () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array): boolean => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      for (let i = 0; i < 3; i++) {
        const m = await MongoMemoryServer.create({
          binary: { version: '7.0.14', checkMD5: false },
        });
        await m.stop();
      }
    } finally {
      process.stderr.write = write;
    }
    const about = lines.filter((l) => l.includes('option binary ignored'));
    assert.equal(about.length, 1);
    assert.equal(JSON.parse(about[0] ?? '{}').attr.binary.version, '7.0.14');
  });

  test('auth: root and extraUsers are created, getUri() carries no credentials', async () => {
    const m = await MongoMemoryServer.create({
      auth: {
        enable: true,
        customRootName: 'boss',
        customRootPwd: 'b0ss',
        extraUsers: [{ createUser: 'app', pwd: 'pw', roles: ['readWrite'], database: 'app' }],
      },
    });
    try {
      const uri = m.getUri('app');
      assert.doesNotMatch(uri, /@/);
      const anonymous = new MongoClient(uri);
      const root = new MongoClient(uri, {
        auth: { username: 'boss', password: 'b0ss' },
        authSource: 'admin',
      });
      const app = new MongoClient(uri, { auth: { username: 'app', password: 'pw' } });
      try {
        await assert.rejects(
          anonymous.db('app').collection('c').insertOne({ a: 1 }),
          (e: unknown) => e instanceof MongoServerError && e.code === 13,
        );
        await app.db('app').collection('c').insertOne({ a: 1 });
        await assert.rejects(
          app.db('other').collection('c').insertOne({ a: 1 }),
          (e: unknown) => e instanceof MongoServerError && e.code === 13,
        );
        await root.db('other').collection('c').insertOne({ a: 1 });
        await assert.rejects(
          new MongoClient(uri, { auth: { username: 'app', password: 'wrong' } }).connect(),
          (e: unknown) => e instanceof MongoServerError && e.code === 18,
        );
      } finally {
        await Promise.all([anonymous.close(), root.close(), app.close()]);
      }
    } finally {
      await m.stop();
    }
    assert.deepEqual(automaticAuthUsers({ extraUsers: [] }), [
      { user: 'mongodb-memory-server-root', pwd: 'rootuser', db: 'admin', roles: ['root'] },
    ]);
    // Disabled auth (MMS 9's enable: false, MMS 8's disable: true) leaves access control off.
    for (const auth of [{ enable: false }, { disable: true }]) {
      const off = await MongoMemoryServer.create({ auth });
      const c = new MongoClient(off.getUri());
      await c.db('x').collection('c').insertOne({ a: 1 });
      await c.close();
      await off.stop();
    }
  });

  test('MongoMemoryReplSet with auth: transactions as the root user', async () => {
    const rs = await MongoMemoryReplSet.create({ replSet: { auth: { enable: true } } });
    const c = new MongoClient(rs.getUri(), {
      auth: { username: 'mongodb-memory-server-root', password: 'rootuser' },
      authSource: 'admin',
    });
    try {
      await c.withSession((s) =>
        s.withTransaction(() => c.db('t').collection('c').insertOne({ a: 1 }, { session: s })),
      );
      assert.equal(await c.db('t').collection('c').countDocuments(), 1);
    } finally {
      await c.close();
      await rs.stop();
    }
  });

  test('ensureInstance() starts it, or waits for the start in progress', async () => {
    const m = new MongoMemoryServer();
    const [a, b] = await Promise.all([m.ensureInstance(), (async () => m.ensureInstance())()]);
    assert.equal(a.port, b.port);
    assert.equal((await m.ensureInstance()).port, a.port);
    await m.stop();
  });

  test('Symbol.asyncDispose stops it (await using), as MMS does', async () => {
    const m = await MongoMemoryServer.create();
    await m[Symbol.asyncDispose]();
    assert.equal(m.state, 'new');
    const kept = await MongoMemoryServer.create({ dispose: { enabled: false } });
    await kept[Symbol.asyncDispose]();
    assert.equal(kept.state, 'running');
    await kept.stop();
  });

  test('reset(), snapshot(), restore() and the SecantusServer behind it', async () => {
    const mongod = await MongoMemoryServer.create();
    try {
      await withClient(mongod.getUri(), async (c) => {
        await c
          .db('f')
          .collection<TestDoc>('c')
          .insertMany([{ _id: 1 }, { _id: 2 }]);
        const snap = await mongod.snapshot();
        await mongod.reset();
        assert.equal(await c.db('f').collection<TestDoc>('c').countDocuments(), 0);
        await mongod.restore(snap);
        assert.equal(await c.db('f').collection<TestDoc>('c').countDocuments(), 2);
      });
      assert.equal(mongod.server, mongod.instanceInfo?.instance);
    } finally {
      await mongod.stop();
    }
    assert.equal(mongod.server, undefined);
  });
});

describe('MongoMemoryReplSet', () => {
  test('create({ replSet: { count: 3 } }): one member serves all; transactions and change streams', async () => {
    const rs = await MongoMemoryReplSet.create({ replSet: { count: 3 } });
    try {
      assert.equal(rs.state, 'running');
      assert.equal(rs.servers.length, 1);
      const port = rs.servers[0]?.instanceInfo?.port;
      assert.equal(rs.getUri(), `mongodb://127.0.0.1:${port}/?replicaSet=testset`);
      assert.equal(rs.getUri('app'), `mongodb://127.0.0.1:${port}/app?replicaSet=testset`);
      await withClient(rs.getUri('app'), async (c) => {
        const hello = await c.db('admin').command({ hello: 1 });
        assert.equal(hello['setName'], 'testset');
        const coll = c.db().collection<TestDoc>('c');
        const cs = coll.watch();
        await cs.tryNext();
        const session = c.startSession();
        await session.withTransaction(async () => {
          await coll.insertOne({ _id: 1 }, { session });
          await coll.insertOne({ _id: 2 }, { session });
        });
        await session.endSession();
        const ev = (await cs.next()) as Document;
        assert.equal(ev['operationType'], 'insert');
        assert.deepEqual(ev['documentKey'], { _id: 1 });
        await cs.close();
      });
    } finally {
      await rs.stop();
    }
    assert.equal(rs.state, 'stopped');
    assert.equal(rs.servers.length, 0);
  });

  test('states, a custom name, restart keeping data, and MMS errors on misuse', async () => {
    assert.throws(
      () => new MongoMemoryReplSet({ replSet: { count: 0 } }),
      (e: unknown) => e instanceof ReplsetCountLowError,
    );
    const rs = new MongoMemoryReplSet({ replSet: { name: 'rs-x' } });
    const seen: string[] = [];
    rs.on('stateChange', (s: string) => seen.push(s));
    assert.equal(rs.state, 'stopped');
    assert.throws(
      () => rs.getUri(),
      (e: unknown) => e instanceof StateError,
    );
    await rs.start();
    await rs.waitUntilRunning();
    await assert.rejects(rs.start(), (e: unknown) => e instanceof StateError);
    assert.throws(
      () => {
        rs.replSetOpts = { name: 'other' };
      },
      (e: unknown) => e instanceof StateError,
    );
    assert.match(rs.getUri(), /\?replicaSet=rs-x$/);
    await withClient(rs.getUri(), (c) => c.db('k').collection<TestDoc>('c').insertOne({ _id: 1 }));
    await rs.stop({ doCleanup: false });
    await assert.rejects(rs.waitUntilRunning(), (e: unknown) => e instanceof StateError);
    await rs.start();
    assert.equal(
      await withClient(rs.getUri(), (c) => c.db('k').collection<TestDoc>('c').countDocuments()),
      1,
    );
    await rs.stop();
    assert.deepEqual(seen, ['init', 'running', 'stopped', 'init', 'running', 'stopped']);
  });

  test('instanceOpts[0] gives the member its dbPath and port', async () => {
    const dbPath = scratch();
    const free = await busyPort();
    await free.close();
    const rs = await MongoMemoryReplSet.create({
      instanceOpts: [{ dbPath, port: free.port }],
      replSet: { storageEngine: 'wiredTiger' },
    });
    try {
      assert.equal(rs.servers[0]?.instanceInfo?.port, free.port);
      assert.equal(rs.servers[0]?.instanceInfo?.dbPath, dbPath);
      await withClient(rs.getUri(), (c) => c.db('d').collection<TestDoc>('c').insertOne({}));
      const snap = await rs.snapshot();
      await rs.reset();
      await rs.restore(snap);
      assert.equal(
        await withClient(rs.getUri(), (c) => c.db('d').collection<TestDoc>('c').countDocuments()),
        1,
      );
    } finally {
      await rs.stop();
    }
  });
});
