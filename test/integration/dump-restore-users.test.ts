// Users and roles through secantus-dump and secantus-restore, between two servers with access
// control: the dump holds admin.system.users / system.roles, the restore merges them with
// _mergeAuthzCollections as mongorestore does (added without --drop, made exactly the dump's
// with it), and a restored user logs in on the target with the password it had on the source.
// Then the command itself, with bad input.

import * as assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MongoClient, MongoServerError } from 'mongodb';
import type { Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { dump, restore } from '../helpers/tools.js';

const sourceRoot = 'source-root-pw';
const targetRoot = 'target-root-pw';

function hostOf(uri: string): string {
  const m = /@([^/]+)\//.exec(uri);
  assert.ok(m !== null, uri);
  return m[1] as string;
}

async function login(host: string, user: string, pwd: string, db: string): Promise<MongoClient> {
  const c = new MongoClient(
    `mongodb://${encodeURIComponent(user)}:${encodeURIComponent(pwd)}@${host}/?authSource=${db}&directConnection=true`,
    { serverSelectionTimeoutMS: 5000 },
  );
  await c.connect();
  return c;
}

/** Every user with credentials and every role with privileges, as usersInfo/rolesInfo show them. */
async function authState(client: MongoClient): Promise<{ users: Document[]; roles: Document[] }> {
  const admin = client.db('admin');
  const users = (
    (await admin.command({ usersInfo: { forAllDBs: true }, showCredentials: true })) as {
      users: Document[];
    }
  ).users;
  const roles: Document[] = [];
  for (const db of ['admin', 'app'])
    roles.push(
      ...(
        (await client
          .db(db)
          .command({ rolesInfo: 1, showPrivileges: true, showBuiltinRoles: false })) as {
          roles: Document[];
        }
      ).roles,
    );
  const byId = (a: Document, b: Document): number =>
    String(a['_id'] ?? `${a['db']}.${a['role']}`).localeCompare(
      String(b['_id'] ?? `${b['db']}.${b['role']}`),
    );
  return { users: users.sort(byId), roles: roles.sort(byId) };
}

describe('users and roles through secantus-dump / secantus-restore', () => {
  let source: TestServer;
  let dir: string;
  before(async () => {
    source = await startTestServer({ auth: { username: 'root', password: sourceRoot } });
    const app = source.client.db('app');
    await app.command({
      createRole: 'reporter',
      privileges: [{ resource: { db: 'app', collection: 'reports' }, actions: ['find'] }],
      roles: [{ role: 'read', db: 'app' }],
    });
    await app.command({
      createUser: 'alice',
      pwd: 'alice-pw',
      roles: ['readWrite'],
      customData: { team: 'ops' },
    });
    await app.command({ createUser: 'carol', pwd: 'carol-pw', roles: ['reporter'] });
    await source.client.db('admin').command({
      createUser: 'bob',
      pwd: 'bob-pw',
      roles: [{ role: 'read', db: 'app' }],
      mechanisms: ['SCRAM-SHA-1'],
    });
    await source.client.db('admin').command({ createRole: 'auditor', privileges: [], roles: [] });
    await app.collection('reports').insertOne({ _id: 1, total: 3 } as Document);
    dir = await mkdtemp(join(tmpdir(), 'secantus-dump-users-'));
  });
  after(async () => {
    await source.stop();
    await rm(dir, { recursive: true, force: true });
  });

  for (const form of ['directory', 'gzip archive'] as const) {
    it(`restores users and roles into a server that has its own (${form})`, async () => {
      const out = join(dir, form.replace(' ', '-'));
      const dumpArgs =
        form === 'directory' ? ['--out', out] : [`--archive=${out}.archive.gz`, '--gzip'];
      const restoreArgs = form === 'directory' ? [out] : [`--archive=${out}.archive.gz`, '--gzip'];
      const d = await dump(['--uri', source.uri, ...dumpArgs]);
      assert.equal(d.code, 0, d.stderr);
      if (form === 'directory') {
        const files = await readdir(join(out, 'admin'));
        for (const f of ['system.users.bson', 'system.roles.bson'])
          assert.ok(files.includes(f), files.join(' '));
      }

      const target = await startTestServer({ auth: { username: 'root', password: targetRoot } });
      try {
        await target.client
          .db('app')
          .command({ createUser: 'dave', pwd: 'dave-pw', roles: ['read'] });
        const host = hostOf(target.uri);
        const r = await restore(['--uri', target.uri, ...restoreArgs]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /restoring users from the dump/);

        // Without --drop: the dump's users and roles are added, the target's own are kept as
        // they were (its root keeps its password, dave stays).
        const want = await authState(source.client);
        const got = await authState(target.client);
        const named = (docs: Document[], name: string): Document | undefined =>
          docs.find((u) => u['_id'] === name);
        for (const id of ['app.alice', 'app.carol', 'admin.bob'])
          assert.deepEqual(named(got.users, id), named(want.users, id), id);
        assert.deepEqual(
          got.roles.map((x) => `${x['db']}.${x['role']}`),
          ['admin.auditor', 'app.reporter'],
        );
        assert.deepEqual(got.roles, want.roles);
        assert.ok(named(got.users, 'app.dave') !== undefined);
        assert.notDeepEqual(named(got.users, 'admin.root'), named(want.users, 'admin.root'));
        assert.equal(await target.client.db('admin').collection('tempusers').countDocuments(), 0);

        // A restored user logs in with its source password and has its roles.
        const carol = await login(host, 'carol', 'carol-pw', 'app');
        try {
          assert.equal((await carol.db('app').collection('reports').find().toArray()).length, 1);
          await assert.rejects(
            carol
              .db('app')
              .collection('reports')
              .insertOne({ _id: 2 } as Document),
            (e: unknown) => e instanceof MongoServerError && e.code === 13,
          );
        } finally {
          await carol.close();
        }
        (await login(host, 'bob', 'bob-pw', 'admin')).close().catch(() => undefined);
        (await login(host, 'root', targetRoot, 'admin')).close().catch(() => undefined);

        // With --drop: the users and roles become exactly the dump's.
        const again = await restore(['--uri', target.uri, '--drop', ...restoreArgs]);
        assert.equal(again.code, 0, again.stderr);
        const admin = await login(host, 'root', sourceRoot, 'admin');
        try {
          const after = await authState(admin);
          assert.deepEqual(after.users, want.users);
          assert.deepEqual(after.roles, want.roles);
        } finally {
          await admin.close();
        }
        await assert.rejects(login(host, 'dave', 'dave-pw', 'app'), /Authentication failed/);
      } finally {
        await target.stop();
      }
    });
  }
});

describe('_mergeAuthzCollections', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ auth: { username: 'root', password: 'root-pw' } });
  });
  after(() => ts.stop());

  async function code(cmd: Document, db = 'admin'): Promise<number | undefined> {
    try {
      await ts.client.db(db).command(cmd);
      return undefined;
    } catch (e) {
      assert.ok(e instanceof MongoServerError, String(e));
      return e.code as number;
    }
  }

  it('refuses bad input with mongod codes and changes nothing', async () => {
    const admin = ts.client.db('admin');
    const before = await admin.collection('system.users').find().sort({ _id: 1 }).toArray();
    assert.equal(await code({ _mergeAuthzCollections: 1, db: '' }), 2);
    assert.equal(
      await code({ _mergeAuthzCollections: 1, tempUsersCollection: 'admin.t', db: '' }, 'app'),
      13,
    );
    assert.equal(
      await code({ _mergeAuthzCollections: 1, tempUsersCollection: 'admin.t', db: 5 }),
      14,
    );
    assert.equal(await code({ _mergeAuthzCollections: 1, tempUsersCollection: 'admin.t' }), 40414);
    assert.equal(
      await code({ _mergeAuthzCollections: 1, tempUsersCollection: 'other.t', db: '' }),
      2,
    );
    assert.equal(
      await code({ _mergeAuthzCollections: 1, tempUsersCollection: 'nodot', db: '' }),
      73,
    );
    // One good user and one document that is not a user: all or nothing.
    await admin.collection('badtemp').insertMany([
      { _id: 'app.ok', user: 'ok', db: 'app', roles: [] },
      { _id: 'x', name: 'not a user' },
    ] as Document[]);
    assert.equal(
      await code({ _mergeAuthzCollections: 1, tempUsersCollection: 'admin.badtemp', db: '' }),
      2,
    );
    assert.deepEqual(
      await admin.collection('system.users').find().sort({ _id: 1 }).toArray(),
      before,
    );
    // The server still serves, and a good merge works afterwards.
    await admin.collection('badtemp').deleteOne({ _id: 'x' } as Document);
    assert.equal(
      await code({ _mergeAuthzCollections: 1, tempUsersCollection: 'admin.badtemp', db: 'app' }),
      undefined,
    );
    const users = (await admin.command({ usersInfo: { user: 'ok', db: 'app' } })) as {
      users: Document[];
    };
    assert.equal(users.users.length, 1);
  });

  it('scopes to one database with db, and needs user-administration privileges', async () => {
    const admin = ts.client.db('admin');
    await admin.collection('scoped').insertMany([
      { _id: 'a.u1', user: 'u1', db: 'a', roles: [] },
      { _id: 'b.u2', user: 'u2', db: 'b', roles: [] },
    ] as Document[]);
    await admin.command({
      _mergeAuthzCollections: 1,
      tempUsersCollection: 'admin.scoped',
      db: 'a',
    });
    const ids = (await admin.collection('system.users').find().toArray()).map((u) =>
      String(u['_id']),
    );
    assert.ok(ids.includes('a.u1'));
    assert.ok(!ids.includes('b.u2'));

    await ts.client
      .db('app')
      .command({ createUser: 'plain', pwd: 'plain-pw', roles: ['readWrite'] });
    const plain = await login(hostOf(ts.uri), 'plain', 'plain-pw', 'app');
    try {
      await assert.rejects(
        plain
          .db('admin')
          .command({ _mergeAuthzCollections: 1, tempUsersCollection: 'admin.scoped', db: '' }),
        (e: unknown) => e instanceof MongoServerError && e.code === 13,
      );
    } finally {
      await plain.close();
    }
  });
});
