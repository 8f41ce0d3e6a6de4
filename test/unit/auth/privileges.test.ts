// Resource matching and the built-in roles, checked against what mongod grants.

import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveRoles } from '../../../src/auth/roles.js';
import type { RoleSource } from '../../../src/auth/roles.js';
import {
  clusterResource,
  databaseResource,
  namespaceResource,
  patternFromDocument,
  patternToDocument,
} from '../../../src/auth/resource.js';
import type { ActionType } from '../../../src/auth/actions.js';
import type { ResourcePattern } from '../../../src/auth/resource.js';

const none: RoleSource = { custom: () => undefined };

function can(roles: { role: string; db: string }[], r: ResourcePattern, a: ActionType): boolean {
  return resolveRoles(roles, none).privileges.allows(r, a);
}

describe('built-in roles', () => {
  it('read: find in its database, not writes, not system collections, not other databases', () => {
    const read = [{ role: 'read', db: 'app' }];
    assert.ok(can(read, namespaceResource('app', 'c'), 'find'));
    assert.ok(can(read, databaseResource('app'), 'listCollections'));
    assert.ok(can(read, namespaceResource('app', 'system.js'), 'find'));
    assert.ok(!can(read, namespaceResource('app', 'c'), 'insert'));
    assert.ok(!can(read, namespaceResource('app', 'system.users'), 'find'));
    assert.ok(!can(read, namespaceResource('other', 'c'), 'find'));
    assert.ok(!can(read, clusterResource, 'serverStatus'));
  });

  it('dbOwner includes readWrite, dbAdmin and userAdmin', () => {
    const owner = resolveRoles([{ role: 'dbOwner', db: 'app' }], none);
    assert.deepEqual(owner.inherited.map((r) => r.role).sort(), [
      'dbAdmin',
      'readWrite',
      'userAdmin',
    ]);
    assert.ok(owner.privileges.allows(namespaceResource('app', 'c'), 'insert'));
    assert.ok(owner.privileges.allows(databaseResource('app'), 'dropDatabase'));
    assert.ok(owner.privileges.allows(databaseResource('app'), 'createUser'));
  });

  it('readAnyDatabase reads every normal database but not local or config', () => {
    const any = [{ role: 'readAnyDatabase', db: 'admin' }];
    assert.ok(can(any, namespaceResource('x', 'c'), 'find'));
    assert.ok(can(any, clusterResource, 'listDatabases'));
    assert.ok(!can(any, namespaceResource('local', 'oplog.rs'), 'find'));
    assert.ok(!can(any, namespaceResource('config', 'c'), 'find'));
    assert.ok(!can(any, namespaceResource('x', 'c'), 'insert'));
  });

  it('admin-only roles exist only on admin', () => {
    assert.equal(resolveRoles([{ role: 'root', db: 'app' }], none).missing.length, 1);
    assert.equal(resolveRoles([{ role: 'root', db: 'admin' }], none).missing.length, 0);
  });

  it('root reaches the cluster, every database and the users collection', () => {
    const root = [{ role: 'root', db: 'admin' }];
    for (const a of ['serverStatus', 'killop', 'inprog', 'setParameter', 'listDatabases'] as const)
      assert.ok(can(root, clusterResource, a), a);
    assert.ok(can(root, namespaceResource('x', 'c'), 'insert'));
    assert.ok(can(root, databaseResource('x'), 'dropDatabase'));
    assert.ok(can(root, namespaceResource('admin', 'system.users'), 'find'));
    assert.ok(can(root, namespaceResource('local', 'oplog.rs'), 'find'));
  });

  it('clusterMonitor reads local and config, monitors the cluster, writes nothing', () => {
    const m = [{ role: 'clusterMonitor', db: 'admin' }];
    assert.ok(can(m, namespaceResource('local', 'oplog.rs'), 'find'));
    assert.ok(can(m, clusterResource, 'serverStatus'));
    assert.ok(can(m, clusterResource, 'inprog'));
    assert.ok(!can(m, clusterResource, 'killop'));
    assert.ok(!can(m, namespaceResource('app', 'c'), 'find'));
  });

  it('user-defined roles inherit, and cycles end the walk', () => {
    const source: RoleSource = {
      custom: (r) =>
        r.role === 'a'
          ? {
              privileges: [{ resource: namespaceResource('app', 'c'), actions: ['find'] }],
              roles: [{ role: 'b', db: 'admin' }],
            }
          : r.role === 'b'
            ? {
                privileges: [],
                roles: [
                  { role: 'a', db: 'admin' },
                  { role: 'read', db: 'x' },
                ],
              }
            : undefined,
    };
    const r = resolveRoles([{ role: 'a', db: 'admin' }], source);
    assert.ok(r.privileges.allows(namespaceResource('app', 'c'), 'find'));
    assert.ok(r.privileges.allows(namespaceResource('x', 'd'), 'find'));
    assert.deepEqual(
      r.all.map((x) => x.role),
      ['a', 'b', 'read'],
    );
  });
});

describe('resource documents', () => {
  it("round-trip through mongod's forms", () => {
    for (const doc of [
      { cluster: true },
      { anyResource: true },
      { db: '', collection: '' },
      { db: 'a', collection: '' },
      { db: '', collection: 'c' },
      { db: 'a', collection: 'c' },
      { db: 'a', system_buckets: 'c' },
    ])
      assert.deepEqual(patternToDocument(patternFromDocument(doc)), doc);
  });

  it('refuse other shapes with BadValue', () => {
    for (const bad of [
      undefined,
      1,
      {},
      { cluster: false },
      { db: 1, collection: '' },
      { db: 'a' },
      { db: 'a', collection: 'c', x: 1 },
    ])
      assert.throws(() => patternFromDocument(bad as never), { code: 2 });
  });
});
