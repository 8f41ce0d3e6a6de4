// Diagnostics drivers, shells and test harnesses ask for at start-up: buildInfo, ping,
// whatsmyuri, connectionStatus, listCommands; this file's list also carries the parameter
// commands (parameters.ts) and serverStatus / hostInfo (server-status.ts).

import type { BsonDocument } from '../../bson/types.js';
import { Int32 } from 'bson';
import { limits } from '../../limits.js';
import { engineNames } from '../../storage/engine.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { authenticatedOnly, noAuth, onCluster } from '../authorization.js';
import { getCmdLineOpts, getParameter, setParameter } from './parameters.js';
import { hostInfo, serverStatus } from './server-status.js';

const int = (n: number): Int32 => new Int32(n);

export const buildInfo = defineCommand({
  name: 'buildInfo',
  auth: noAuth,
  aliases: ['buildinfo'],
  args: {},
  traits: { apiVersion1: false },
  run: ({ services }) => ({
    version: services.config.reported.version,
    gitVersion: '0000000000000000000000000000000000000000',
    versionArray: services.config.reported.versionArray.map(int),
    bits: int(64),
    debug: false,
    maxBsonObjectSize: int(limits.bsonObjectSizeMax),
    storageEngines: [...engineNames],
    // mongod reports its engine (mozjs) or 'none' with --noscripting; test suites read it.
    javascriptEngine: services.scriptEngine === undefined ? 'none' : 'quickjs',
    modules: [],
    allocator: 'system',
    openssl: {
      running: `OpenSSL ${process.versions.openssl}`,
      compiled: `OpenSSL ${process.versions.openssl}`,
    },
    buildEnvironment: {
      target_os: process.platform,
      target_arch: process.arch,
      distmod: 'secantusdb',
    },
    secantusdb: { version: '0.1.0', node: process.version },
  }),
});

export const ping = defineCommand({
  name: 'ping',
  auth: noAuth,
  args: {},
  traits: { apiVersion1: true },
  run: () => ({}),
});

export const whatsmyuri = defineCommand({
  name: 'whatsmyuri',
  auth: authenticatedOnly,
  args: {},
  run: ({ connection }) => ({ you: connection.remote }),
});

export const connectionStatus = defineCommand({
  name: 'connectionStatus',
  auth: noAuth,
  args: { showPrivileges: t.bool },
  run: ({ services, connection, args }) => {
    services.auth.refresh(connection);
    const user = connection.auth.user;
    const authInfo: BsonDocument = {
      authenticatedUsers: user === undefined ? [] : [{ user: user.user, db: user.db }],
      authenticatedUserRoles:
        user === undefined ? [] : user.roles.map((r) => ({ role: r.role, db: r.db })),
    };
    if (args.showPrivileges === true)
      authInfo['authenticatedUserPrivileges'] =
        user === undefined ? [] : user.privileges.toDocuments();
    return { authInfo };
  },
});

export const listCommands = defineCommand({
  name: 'listCommands',
  auth: noAuth,
  args: {},
  help: 'get a list of all db commands',
  run: ({ services }) => {
    const commands: BsonDocument = {};
    for (const name of services.commandNames()) {
      const def = services.commandDefinition(name);
      commands[name] = {
        help: def?.help ?? '',
        requiresAuth: def?.auth.requiresAuth !== false,
        secondaryOk: true,
        adminOnly: def?.traits?.adminOnly === true,
        apiVersions: def?.traits?.apiVersion1 === true ? ['1'] : [],
        deprecatedApiVersions: [],
      };
    }
    return { commands };
  },
});

export const getFreeMonitoringStatus = defineCommand({
  name: 'getFreeMonitoringStatus',
  auth: onCluster('checkFreeMonitoringStatus'),
  args: {},
  traits: { adminOnly: true },
  run: () => ({ state: 'disabled' }),
});

export const serverInfoCommands: CommandDefinition[] = [
  buildInfo,
  ping,
  getParameter,
  setParameter,
  getCmdLineOpts,
  serverStatus,
  hostInfo,
  whatsmyuri,
  connectionStatus,
  listCommands,
  getFreeMonitoringStatus,
];
