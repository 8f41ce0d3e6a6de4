// Users and roles outlive a restart on lmdb, are written to the oplog as mongod writes them,
// and the daemon's initial root user (from the environment) works without its password
// reaching the log or getCmdLineOpts.

import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { SecantusServer } from '../../src/embed/index.js';
import { expectServerCode } from '../helpers/driver.js';
import { killDaemon, startDaemon } from '../helpers/daemon.js';
import type { TestDoc } from '../helpers/driver.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'secantus-auth-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('users and roles on lmdb', () => {
  it('survive a restart and are in the oplog', async () => {
    const dbPath = tempDir();
    const auth = { username: 'root', password: 'rootpw' };
    let server = await SecantusServer.start({ dbPath, auth });
    let c = new MongoClient(server.uri);
    const admin = c.db('admin');
    await admin.command({
      createRole: 'appReader',
      privileges: [{ resource: { db: 'app', collection: '' }, actions: ['find'] }],
      roles: [],
    });
    await admin.command({ createUser: 'alice', pwd: 'alicepw', roles: ['appReader'] });
    await c.db('app').collection<TestDoc>('c').insertOne({ _id: 1 });
    const oplog = await c
      .db('local')
      .collection<TestDoc>('oplog.rs')
      .find({ ns: { $in: ['admin.system.users', 'admin.system.roles'] } })
      .toArray();
    assert.deepEqual(
      oplog.map((e: Document) => [e['op'], e['ns'], e['o']?._id]),
      [
        ['i', 'admin.system.users', 'admin.root'],
        ['i', 'admin.system.roles', 'admin.appReader'],
        ['i', 'admin.system.users', 'admin.alice'],
      ],
    );
    await c.close();
    await server.stop();

    server = await SecantusServer.start({ dbPath, auth: true });
    try {
      c = new MongoClient(
        `mongodb://alice:alicepw@${server.host}/?replicaSet=rs0&authSource=admin`,
      );
      assert.deepEqual(await c.db('app').collection<TestDoc>('c').findOne({}), { _id: 1 });
      await expectServerCode(c.db('app').collection<TestDoc>('c').insertOne({}), 13);
      await c.close();
      // The localhost exception stays closed: users exist.
      const anon = new MongoClient(server.uri);
      await expectServerCode(
        anon.db('admin').command({ createUser: 'x', pwd: 'y', roles: [] }),
        13,
      );
      await anon.close();
    } finally {
      await server.stop();
    }
  });
});

describe('secantusd --auth with an initial root user', () => {
  it('creates the user at first start and never shows the password', async () => {
    const dbPath = tempDir();
    const password = 'init-Root-Pw-9137';
    const env = {
      ...process.env,
      SECANTUS_INITIAL_ROOT_USER: 'boss',
      SECANTUS_INITIAL_ROOT_PASSWORD: password,
    };
    const d = await startDaemon(dbPath, ['--auth', '--replSet', ''], env);
    let out = '';
    d.proc.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    try {
      const anon = new MongoClient(d.uri);
      await expectServerCode(anon.db('app').collection<TestDoc>('c').findOne({}), 13);
      await anon.close();
      const c = new MongoClient(
        `mongodb://boss:${password}@127.0.0.1:${d.port}/?directConnection=true&authSource=admin`,
      );
      const opts = await c.db('admin').command({ getCmdLineOpts: 1 });
      assert.equal(opts['parsed'].security.authorization, 'enabled');
      assert.ok(!JSON.stringify(opts).includes(password));
      await c.db('app').collection<TestDoc>('c').insertOne({ ok: 1 });
      await c.close();
    } finally {
      await killDaemon(d, 'SIGTERM');
    }
    assert.ok(!out.includes(password));
  });
});
