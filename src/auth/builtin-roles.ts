// mongod's built-in roles (src/mongo/db/auth/builtin_roles.yml): each role's privileges and the
// roles it includes. Database roles (read, readWrite, dbAdmin, dbOwner, userAdmin) exist on
// every database and apply to it; the others exist only on admin.

import type { ActionType } from './actions.js';
import type { Privilege } from './privileges.js';
import type { ResourcePattern } from './resource.js';
import {
  anyNormalResource,
  anyResource,
  clusterResource,
  collectionNameResource,
  databaseResource,
  namespaceResource,
} from './resource.js';

type Match =
  | { readonly on: 'database'; readonly db?: string }
  | { readonly on: 'namespace'; readonly db?: string; readonly coll: string }
  | { readonly on: 'collection'; readonly coll: string }
  | { readonly on: 'cluster' }
  | { readonly on: 'anyNormal' }
  | { readonly on: 'anySystemBuckets' }
  | { readonly on: 'any' };

interface Grant {
  readonly match: Match;
  readonly actions: readonly ActionType[];
}

interface BuiltinRole {
  readonly adminOnly: boolean;
  readonly roles: readonly { readonly role: string; readonly db?: string }[];
  readonly grants: readonly Grant[];
}

const readActions: readonly ActionType[] = [
  'changeStream',
  'collStats',
  'dbHash',
  'dbStats',
  'find',
  'killCursors',
  'listCollections',
  'listIndexes',
  'listSearchIndexes',
  'planCacheRead',
];

const readWriteActions: readonly ActionType[] = [
  ...readActions,
  'cleanupStructuredEncryptionData',
  'compactStructuredEncryptionData',
  'convertToCapped',
  'createCollection',
  'createIndex',
  'createSearchIndexes',
  'dropCollection',
  'dropIndex',
  'dropSearchIndex',
  'insert',
  'remove',
  'renameCollectionSameDB',
  'update',
  'updateSearchIndex',
];

const userAdminActions: readonly ActionType[] = [
  'changeCustomData',
  'changePassword',
  'createUser',
  'createRole',
  'dropUser',
  'dropRole',
  'grantRole',
  'revokeRole',
  'setAuthenticationRestriction',
  'viewUser',
  'viewRole',
];

const dbAdminActions: readonly ActionType[] = [
  'analyze',
  'bypassDocumentValidation',
  'collMod',
  'collStats',
  'compact',
  'convertToCapped',
  'createCollection',
  'dbStats',
  'dropCollection',
  'dropDatabase',
  'dropIndex',
  'dropSearchIndex',
  'createIndex',
  'createSearchIndexes',
  'enableProfiler',
  'listCollections',
  'listIndexes',
  'listSearchIndexes',
  'updateSearchIndex',
  'planCacheIndexFilter',
  'planCacheRead',
  'planCacheWrite',
  'reIndex',
  'renameCollectionSameDB',
  'storageDetails',
  'validate',
  'configureQueryAnalyzer',
];

const profileActions: readonly ActionType[] = [
  ...readActions,
  'convertToCapped',
  'createCollection',
  'dropCollection',
];

const readAndIndexActions: readonly ActionType[] = [
  ...readActions,
  'createIndex',
  'createSearchIndexes',
  'dropIndex',
  'dropSearchIndex',
];

const clusterMonitorDatabaseActions: readonly ActionType[] = [
  'collStats',
  'dbStats',
  'getDatabaseVersion',
  'getShardVersion',
  'indexStats',
];

const clusterManagerDatabaseActions: readonly ActionType[] = [
  'analyzeShardKey',
  'configureQueryAnalyzer',
  'clearJumboFlag',
  'splitChunk',
  'moveChunk',
  'moveCollection',
  'enableSharding',
  'splitVector',
  'refineCollectionShardKey',
  'reshardCollection',
];

const writeActions: readonly ActionType[] = ['insert', 'update', 'remove'];

const restoreWriteActions: readonly ActionType[] = [
  'bypassDocumentValidation',
  'collMod',
  'convertToCapped',
  'createCollection',
  'createIndex',
  'createSearchIndexes',
  'dropCollection',
  'insert',
  'updateSearchIndex',
];

const db = (actions: readonly ActionType[], name?: string): Grant => ({
  match: name === undefined ? { on: 'database' } : { on: 'database', db: name },
  actions,
});
const ns = (coll: string, actions: readonly ActionType[], name?: string): Grant => ({
  match: name === undefined ? { on: 'namespace', coll } : { on: 'namespace', db: name, coll },
  actions,
});
const coll = (name: string, actions: readonly ActionType[]): Grant => ({
  match: { on: 'collection', coll: name },
  actions,
});
const cluster = (actions: readonly ActionType[]): Grant => ({ match: { on: 'cluster' }, actions });
const anyNormal = (actions: readonly ActionType[]): Grant => ({
  match: { on: 'anyNormal' },
  actions,
});
const buckets = (actions: readonly ActionType[]): Grant => ({
  match: { on: 'anySystemBuckets' },
  actions,
});
const any = (actions: readonly ActionType[]): Grant => ({ match: { on: 'any' }, actions });

const roles: Record<string, BuiltinRole> = {
  read: { adminOnly: false, roles: [], grants: [db(readActions), ns('system.js', readActions)] },
  readWrite: {
    adminOnly: false,
    roles: [],
    grants: [db(readWriteActions), ns('system.js', readWriteActions)],
  },
  userAdmin: { adminOnly: false, roles: [], grants: [db(userAdminActions)] },
  dbAdmin: {
    adminOnly: false,
    roles: [],
    grants: [db(dbAdminActions), ns('system.profile', profileActions)],
  },
  dbOwner: {
    adminOnly: false,
    roles: [{ role: 'readWrite' }, { role: 'dbAdmin' }, { role: 'userAdmin' }],
    grants: [],
  },
  enableSharding: {
    adminOnly: false,
    roles: [],
    grants: [
      anyNormal([
        'analyzeShardKey',
        'enableSharding',
        'moveCollection',
        'refineCollectionShardKey',
        'reshardCollection',
      ]),
    ],
  },
  readAnyDatabase: {
    adminOnly: true,
    roles: [],
    grants: [
      anyNormal(readActions),
      cluster(['listDatabases']),
      coll('system.js', readActions),
      buckets(readActions),
    ],
  },
  readWriteAnyDatabase: {
    adminOnly: true,
    roles: [{ role: 'readAnyDatabase' }],
    grants: [
      anyNormal(readWriteActions),
      coll('system.js', readWriteActions),
      buckets(readWriteActions),
    ],
  },
  userAdminAnyDatabase: {
    adminOnly: true,
    roles: [],
    grants: [
      anyNormal([...userAdminActions, 'listCachedAndActiveUsers']),
      db(userAdminActions, 'local'),
      db(userAdminActions, 'config'),
      cluster(['listDatabases', 'authSchemaUpgrade', 'invalidateUserCache', 'viewUser']),
      ns('system.users', readAndIndexActions, 'admin'),
      ns('system.roles', readAndIndexActions, 'admin'),
      coll('system.users', readActions),
      ns('system.version', readActions, 'admin'),
      ns('system.backup_users', readActions, 'admin'),
    ],
  },
  dbAdminAnyDatabase: {
    adminOnly: true,
    roles: [],
    grants: [
      cluster(['listDatabases', 'applyOps']),
      anyNormal(dbAdminActions),
      coll('system.profile', profileActions),
      buckets(dbAdminActions),
    ],
  },
  clusterMonitor: {
    adminOnly: true,
    roles: [
      { role: 'read', db: 'config' },
      { role: 'read', db: 'local' },
    ],
    grants: [
      cluster([
        'connPoolStats',
        'getCmdLineOpts',
        'getDefaultRWConcern',
        'getLog',
        'getParameter',
        'getShardMap',
        'hostInfo',
        'listDatabases',
        'listSampledQueries',
        'listSessions',
        'listShards',
        'netstat',
        'operationMetrics',
        'replSetGetConfig',
        'replSetGetStatus',
        'serverStatus',
        'top',
        'useUUID',
        'inprog',
        'shardingState',
        'allCollectionStats',
        'shardedDataDistribution',
        'checkFreeMonitoringStatus',
      ]),
      anyNormal(clusterMonitorDatabaseActions),
      db(clusterMonitorDatabaseActions, 'config'),
      ns('system.sessions', clusterMonitorDatabaseActions, 'config'),
      db(clusterMonitorDatabaseActions, 'local'),
      ns('system.replset', ['find'], 'local'),
      ns('replset.election', ['find'], 'local'),
      ns('replset.minvalid', ['find'], 'local'),
      coll('system.profile', ['find']),
    ],
  },
  hostManager: {
    adminOnly: true,
    roles: [],
    grants: [
      cluster([
        'applicationMessage',
        'auditConfigure',
        'connPoolSync',
        'dropConnections',
        'logRotate',
        'oidReset',
        'setParameter',
        'shutdown',
        'touch',
        'unlock',
        'flushRouterConfig',
        'fsync',
        'invalidateUserCache',
        'killAnyCursor',
        'killAnySession',
        'killop',
        'replSetResizeOplog',
        'resync',
        'trafficRecord',
        'rotateCertificates',
        'setFreeMonitoring',
      ]),
      anyNormal(['killCursors']),
    ],
  },
  clusterManager: {
    adminOnly: true,
    roles: [{ role: 'read', db: 'config' }],
    grants: [
      cluster([
        'appendOplogNote',
        'applicationMessage',
        'replSetConfigure',
        'replSetGetConfig',
        'replSetGetStatus',
        'replSetStateChange',
        'resync',
        'addShard',
        'removeShard',
        'listSessions',
        'listShards',
        'flushRouterConfig',
        'cleanupOrphaned',
        'getDefaultRWConcern',
        'runTenantMigration',
        'setDefaultRWConcern',
        'setFeatureCompatibilityVersion',
        'setClusterParameter',
        'getClusterParameter',
        'setChangeStreamState',
        'getChangeStreamState',
        'checkMetadataConsistency',
        'transitionFromDedicatedConfigServer',
        'transitionToDedicatedConfigServer',
      ]),
      anyNormal(clusterManagerDatabaseActions),
      buckets(clusterManagerDatabaseActions),
      db(clusterManagerDatabaseActions, 'config'),
      db(clusterManagerDatabaseActions, 'local'),
      ns('system.replset', readActions, 'local'),
      any(['dbCheck']),
      ns('system.healthlog', readActions, 'local'),
      db(writeActions, 'config'),
      db(writeActions, 'local'),
      ns('replset.election', writeActions, 'local'),
      ns('replset.minvalid', writeActions, 'local'),
    ],
  },
  clusterAdmin: {
    adminOnly: true,
    roles: [{ role: 'clusterMonitor' }, { role: 'hostManager' }, { role: 'clusterManager' }],
    grants: [anyNormal(['dropDatabase']), any(['importCollection', 'exportCollection'])],
  },
  __queryableBackup: {
    adminOnly: true,
    roles: [],
    grants: [
      any(['collStats', 'listCollections', 'listIndexes', 'listSearchIndexes']),
      anyNormal(['find']),
      buckets(['find']),
      cluster(['getParameter', 'listDatabases', 'useUUID']),
      db(['find'], 'config'),
      db(['find'], 'local'),
      ns('replset.election', ['find'], 'local'),
      ns('replset.minvalid', ['find'], 'local'),
      coll('system.js', ['find']),
      coll('system.users', ['find']),
      coll('system.profile', ['find']),
      ns('system.backup_users', ['find'], 'admin'),
      ns('system.roles', ['find'], 'admin'),
      ns('system.version', ['find'], 'admin'),
      ns('settings', ['find'], 'config'),
    ],
  },
  backup: {
    adminOnly: true,
    roles: [{ role: '__queryableBackup' }],
    grants: [
      cluster(['appendOplogNote', 'serverStatus', 'setUserWriteBlockMode']),
      ns('settings', ['insert', 'update'], 'config'),
    ],
  },
  restore: {
    adminOnly: true,
    roles: [],
    grants: [
      cluster([
        'getParameter',
        'forceUUID',
        'useUUID',
        'bypassWriteBlockingMode',
        'setUserWriteBlockMode',
        'applyOps',
      ]),
      db(restoreWriteActions, 'local'),
      db(restoreWriteActions, 'config'),
      buckets(restoreWriteActions),
      ns('system.replset', restoreWriteActions, 'local'),
      ns('replset.election', restoreWriteActions, 'local'),
      ns('replset.minvalid', restoreWriteActions, 'local'),
      any(['listCollections']),
      anyNormal([...restoreWriteActions, ...userAdminActions]),
      coll('system.js', restoreWriteActions),
      ns('tempusers', ['find'], 'admin'),
      ns('temproles', ['find'], 'admin'),
      ns('system.backup_users', restoreWriteActions, 'admin'),
      ns('system.version', [...restoreWriteActions, 'find'], 'admin'),
      coll('system.users', [...restoreWriteActions, 'find', 'update', 'remove']),
      ns('system.roles', ['createIndex'], 'admin'),
    ],
  },
  root: {
    adminOnly: true,
    roles: [
      { role: 'clusterAdmin' },
      { role: 'userAdminAnyDatabase' },
      { role: 'dbAdminAnyDatabase' },
      { role: 'readWriteAnyDatabase' },
      { role: 'backup' },
      { role: 'restore' },
      { role: 'directShardOperations' },
    ],
    grants: [
      any(['validate']),
      cluster(['useTenant']),
      ns('system.preimages', ['find', 'remove'], 'config'),
      ns('system.change_collection', ['find', 'insert', 'remove', 'update'], 'config'),
    ],
  },
  directShardOperations: {
    adminOnly: true,
    roles: [],
    grants: [cluster(['issueDirectShardOperations'])],
  },
  __system: { adminOnly: true, roles: [], grants: [any(['anyAction'])] },
};

export interface RoleName {
  readonly role: string;
  readonly db: string;
}

function lookup(role: RoleName): BuiltinRole | undefined {
  if (!Object.hasOwn(roles, role.role)) return undefined;
  const r = roles[role.role];
  if (r === undefined || (r.adminOnly && role.db !== 'admin')) return undefined;
  return r;
}

/** Whether `name@db` is a built-in role (database roles exist on every database). */
export function isBuiltinRole(role: RoleName): boolean {
  return lookup(role) !== undefined;
}

/** Names a user-defined role may not take on `db`. */
export function isBuiltinRoleName(name: string): boolean {
  return Object.hasOwn(roles, name);
}

function resourceOf(match: Match, roleDb: string): ResourcePattern {
  switch (match.on) {
    case 'database':
      return databaseResource(match.db ?? roleDb);
    case 'namespace':
      return namespaceResource(match.db ?? roleDb, match.coll);
    case 'collection':
      return collectionNameResource(match.coll);
    case 'cluster':
      return clusterResource;
    case 'anyNormal':
      return anyNormalResource;
    case 'anySystemBuckets':
      return { kind: 'anySystemBuckets' };
    case 'any':
      return anyResource;
  }
}

/** A built-in role's own privileges (not those of the roles it includes). */
export function builtinPrivileges(role: RoleName): Privilege[] | undefined {
  const r = lookup(role);
  if (r === undefined) return undefined;
  return r.grants.map((g) => ({ resource: resourceOf(g.match, role.db), actions: g.actions }));
}

/** The roles a built-in role includes directly. */
export function builtinSubroles(role: RoleName): RoleName[] {
  const r = lookup(role);
  return r === undefined ? [] : r.roles.map((s) => ({ role: s.role, db: s.db ?? role.db }));
}

/** The built-in roles that exist on `db` (rolesInfo with showBuiltinRoles). */
export function builtinRoleNames(db: string): string[] {
  return Object.entries(roles)
    .filter(([name, r]) => !name.startsWith('__') && (!r.adminOnly || db === 'admin'))
    .map(([name]) => name)
    .sort();
}
