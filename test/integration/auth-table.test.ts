// Every registered command × a few roles: the dispatcher's decision (Unauthorized or not) must
// be the one the command's declared privileges give for that role. A command without a
// declaration fails here (and does not compile).

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Long } from 'mongodb';
import type { Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { allCommands } from '../../src/commands/all.js';
import { parseArgs } from '../../src/commands/args.js';
import type { GenericArgs } from '../../src/commands/args.js';
import { meets } from '../../src/commands/authorization.js';
import type { CommandDefinition, Requirement } from '../../src/commands/registry.js';
import type { ConnectionState, ServerServices } from '../../src/commands/context.js';
import type { BsonDocument } from '../../src/bson/types.js';
import { bdoc } from '../helpers/bson-values.js';

const bsonSamples = (o: Record<string, Record<string, unknown>>): Record<string, BsonDocument> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, bdoc(v)]));
import { ConnectionAuth } from '../../src/auth/session.js';
import type { Server } from '../../src/server/server.js';

/** Bodies that get past argument parsing, for commands whose bare form would not. */
const samples: Record<string, BsonDocument> = bsonSamples({
  aggregate: { aggregate: 'coll', pipeline: [{ $match: {} }], cursor: {} },
  explain: { explain: { find: 'coll' } },
  insert: { insert: 'coll', documents: [{ a: 1 }] },
  update: { update: 'coll', updates: [{ q: {}, u: { $set: { a: 1 } } }] },
  delete: { delete: 'coll', deletes: [{ q: { none: 1 }, limit: 0 }] },
  findAndModify: { findAndModify: 'coll', query: { none: 1 }, update: { $set: { a: 1 } } },
  getMore: { getMore: Long.fromNumber(12345), collection: 'coll' },
  killCursors: { killCursors: 'coll', cursors: [] },
  currentOp: { currentOp: 1 },
  killOp: { killOp: 1, op: 999999 },
  usersInfo: { usersInfo: 1 },
  rolesInfo: { rolesInfo: 1 },
  createUser: { createUser: 'tableUser', pwd: 'x', roles: [] },
  createRole: { createRole: 'tableRole', privileges: [], roles: [] },
  killAllSessions: { killAllSessions: [] },
  killAllSessionsByPattern: { killAllSessionsByPattern: [] },
  endSessions: { endSessions: [] },
  killSessions: { killSessions: [] },
  refreshSessions: { refreshSessions: [] },
  setParameter: { setParameter: 1, notablescan: false },
  getParameter: { getParameter: 1, notablescan: 1 },
  renameCollection: { renameCollection: 'test.coll', to: 'test.coll2' },
  listDatabases: { listDatabases: 1, nameOnly: true },
  dropDatabase: { dropDatabase: 1 },
  logout: { logout: 1 },
});

const roles: Record<string, { role: string; db: string } | undefined> = {
  read: { role: 'read', db: 'test' },
  readWrite: { role: 'readWrite', db: 'test' },
  dbAdmin: { role: 'dbAdmin', db: 'test' },
  userAdmin: { role: 'userAdmin', db: 'test' },
  clusterMonitor: { role: 'clusterMonitor', db: 'admin' },
  root: { role: 'root', db: 'admin' },
  none: undefined,
};

function bodyFor(def: CommandDefinition): { body: BsonDocument; db: string } {
  const body = samples[def.name] ?? { [def.name]: 'coll' };
  return { body, db: def.traits?.adminOnly === true ? 'admin' : 'test' };
}

describe('every command × roles: the decision follows the declaration', () => {
  let ts: TestServer;
  let services: ServerServices;
  const clients = new Map<string, MongoClient>();

  before(async () => {
    ts = await startTestServer({ auth: { username: 'root', password: 'rootpw' } });
    services = (ts.server as unknown as { server: Server }).server.services;
    await ts.client.db('test').collection('coll').insertOne({ a: 0 });
    for (const [name, role] of Object.entries(roles)) {
      if (role === undefined) {
        clients.set(name, await ts.newClient({}, `mongodb://${ts.server.host}/?replicaSet=rs0`));
        continue;
      }
      await ts.client.db('admin').command({ createUser: `u_${name}`, pwd: 'pw', roles: [role] });
      clients.set(
        name,
        await ts.newClient(
          {},
          `mongodb://u_${name}:pw@${ts.server.host}/?replicaSet=rs0&authSource=admin`,
        ),
      );
    }
  });
  after(() => ts.stop());

  it('every command declares its access control', () => {
    for (const def of allCommands) {
      assert.ok(def.auth !== undefined, `${def.name} has no auth declaration`);
      if (def.auth.requiresAuth !== false) {
        assert.equal(typeof def.auth.required, 'function', `${def.name} declares no privileges`);
        assert.ok(def.auth.summary.length > 0, `${def.name} has no summary`);
      }
    }
  });

  it('for each role, refused exactly when the declared privileges are not held', async () => {
    const mismatches: string[] = [];
    let checked = 0;
    for (const [roleName, role] of Object.entries(roles)) {
      const client = clients.get(roleName);
      assert.ok(client !== undefined);
      const user =
        role === undefined ? undefined : services.auth.loadUser('admin', `u_${roleName}`);
      for (const def of allCommands) {
        const { body, db } = bodyFor(def);
        let expectAllowed: boolean;
        if (def.auth.requiresAuth === false) expectAllowed = true;
        else if (user === undefined) expectAllowed = false;
        else {
          const auth = new ConnectionAuth(true);
          auth.user = user;
          const connection: ConnectionState = {
            id: 0,
            remote: '127.0.0.1:1',
            local: '127.0.0.1:2',
            clientMetadata: undefined,
            appName: undefined,
            auth,
          };
          const name = def.name;
          const args = parseArgs(name, body, def.args, name, false) as GenericArgs;
          const requirement: Requirement = def.auth.required({
            services,
            connection,
            db,
            target: body[name],
            body,
            args,
            name,
            requirementOf: (inner, innerDb) => {
              const d = allCommands.find((c) => c.name === Object.keys(inner)[0]);
              if (d === undefined || d.auth.requiresAuth === false) return [[]];
              const n = d.name;
              return d.auth.required({
                services,
                connection,
                db: innerDb,
                target: inner[n],
                body: inner,
                args: parseArgs(n, inner, d.args, n, false) as GenericArgs,
                name: n,
                requirementOf: () => [[]],
              });
            },
          });
          expectAllowed = meets(user.privileges, requirement);
        }
        let code: number | undefined;
        try {
          await client.db(db).command(body as Document);
        } catch (e) {
          code = (e as { code?: number }).code;
        }
        checked++;
        const refused = code === 13;
        if (refused === expectAllowed)
          mismatches.push(
            `${roleName} ${def.name}: expected ${expectAllowed ? 'allowed' : 'refused'}, got code ${String(code)}`,
          );
      }
    }
    assert.ok(checked >= allCommands.length * 7, `checked ${checked}`);
    assert.deepEqual(mismatches, []);
  });

  it("spot checks against mongod's built-in roles", async () => {
    const code = async (role: string, db: string, body: Document): Promise<number | undefined> => {
      try {
        await clients.get(role)?.db(db).command(body);
        return undefined;
      } catch (e) {
        return (e as { code?: number }).code;
      }
    };
    assert.notEqual(await code('read', 'test', { find: 'coll' }), 13);
    assert.equal(await code('read', 'test', { insert: 'coll', documents: [{}] }), 13);
    assert.notEqual(await code('readWrite', 'test', { insert: 'coll', documents: [{}] }), 13);
    assert.equal(await code('readWrite', 'test', { dropDatabase: 1 }), 13);
    assert.notEqual(await code('dbAdmin', 'test', { collStats: 'coll' }), 13);
    assert.equal(await code('dbAdmin', 'test', { find: 'coll' }), 13);
    assert.notEqual(await code('userAdmin', 'test', { usersInfo: 1 }), 13);
    assert.equal(await code('userAdmin', 'test', { find: 'coll' }), 13);
    assert.notEqual(await code('clusterMonitor', 'admin', { serverStatus: 1 }), 13);
    assert.equal(await code('clusterMonitor', 'test', { find: 'coll' }), 13);
    assert.notEqual(await code('clusterMonitor', 'local', { find: 'oplog.rs', limit: 1 }), 13);
    assert.equal(await code('none', 'test', { find: 'coll' }), 13);
  });
});
