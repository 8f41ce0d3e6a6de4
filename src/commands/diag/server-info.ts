// Diagnostics drivers, shells and test harnesses ask for at start-up: buildInfo, ping,
// getParameter, setParameter, getCmdLineOpts, serverStatus, hostInfo, whatsmyuri,
// connectionStatus, listCommands, getLog.

import * as os from 'node:os';
import { Double, Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import { t } from '../args.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { maxWireVersion, serverVersion, versionArray } from './handshake.js';
import { authenticatedOnly, noAuth, onCluster } from '../authorization.js';

const int = (n: number): Int32 => new Int32(n);

export const buildInfo = defineCommand({
  name: 'buildInfo',
  auth: noAuth,
  aliases: ['buildinfo'],
  args: {},
  traits: { apiVersion1: false },
  run: () => ({
    version: serverVersion,
    gitVersion: '0000000000000000000000000000000000000000',
    versionArray: versionArray.map(int),
    bits: int(64),
    debug: false,
    maxBsonObjectSize: int(limits.bsonObjectSizeMax),
    storageEngines: ['lmdb', 'memory'],
    javascriptEngine: 'none',
    modules: [],
    allocator: 'system',
    openssl: { running: 'disabled', compiled: 'disabled' },
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

/**
 * Typed parameters of the memory limits and disk use of blocking stages (mongod's
 * query_knobs.idl): each normalises a value given to setParameter or refuses it with BadValue.
 * Commands read them when they start (src/commands/crud/disk-use.ts).
 */
const memoryParameters = new Map<string, (name: string, v: unknown) => BsonValue>([
  [
    'internalQueryMaxBlockingSortMemoryUsageBytes',
    (name, v) => int(byteCount(name, v, 2 ** 31 - 1)),
  ],
  [
    'internalDocumentSourceGroupMaxMemoryBytes',
    (name, v) => Long.fromNumber(byteCount(name, v, Number.MAX_SAFE_INTEGER, 1)),
  ],
  [
    'allowDiskUseByDefault',
    (name, v) => {
      if (typeof v !== 'boolean')
        throw new CommandError(
          ErrorCode.BadValue,
          `Invalid value for parameter ${name}: expected a boolean`,
        );
      return v;
    },
  ],
]);

function byteCount(name: string, v: unknown, max: number, min = 0): number {
  const n = numericValue(v as BsonValue);
  if (n === undefined || !Number.isInteger(n))
    throw new CommandError(
      ErrorCode.BadValue,
      `Invalid value for parameter ${name}: expected an integer`,
    );
  if (n < min || n > max)
    throw new CommandError(
      ErrorCode.BadValue,
      `Invalid value for parameter ${name}: ${n} is out of range [${min}, ${max}]`,
    );
  return n;
}

/** Server parameters reported by getParameter and changed by setParameter. */
export function defaultParameters(services: { enableTestCommands: boolean }): Map<string, unknown> {
  return new Map<string, unknown>([
    ['enableTestCommands', services.enableTestCommands],
    ['featureCompatibilityVersion', { version: '7.0' }],
    ['ttlMonitorSleepSecs', int(60)],
    ['ttlMonitorEnabled', true],
    ['transactionLifetimeLimitSeconds', int(60)],
    ['maxTransactionLockRequestTimeoutMillis', int(5)],
    ['cursorTimeoutMillis', Long.fromNumber(limits.cursorIdleTimeoutMs)],
    ['logicalSessionRefreshMillis', int(300000)],
    ['localLogicalSessionTimeoutMinutes', int(limits.logicalSessionTimeoutMinutes)],
    ['internalQueryMaxBlockingSortMemoryUsageBytes', int(limits.sortMemoryBytesMax)],
    ['internalDocumentSourceGroupMaxMemoryBytes', Long.fromNumber(limits.groupMemoryBytesMax)],
    ['allowDiskUseByDefault', true],
    ['authenticationMechanisms', ['SCRAM-SHA-1', 'SCRAM-SHA-256']],
    ['enableLocalhostAuthBypass', true],
    ['scramIterationCount', int(10000)],
    ['scramSHA256IterationCount', int(15000)],
    ['requireApiVersion', false],
    ['notablescan', false],
    ['quiet', false],
    ['logLevel', int(0)],
  ]);
}

const settable = new Set([
  'ttlMonitorSleepSecs',
  'ttlMonitorEnabled',
  'transactionLifetimeLimitSeconds',
  'cursorTimeoutMillis',
  'notablescan',
  'logLevel',
  'quiet',
  'maxTransactionLockRequestTimeoutMillis',
  ...memoryParameters.keys(),
]);

export const getParameter = defineCommand({
  name: 'getParameter',
  auth: onCluster('getParameter'),
  args: { allParameters: t.any, showDetails: t.any, setAt: t.any },
  strict: false,
  traits: { adminOnly: true },
  run: ({ services, target, body }) => {
    const params = services.parameters;
    const all = target === '*' || (isPlainDocument(target) && target['allParameters'] === true);
    const reply: BsonDocument = {};
    if (all) {
      for (const [k, v] of params) reply[k] = v as BsonValue;
      return reply;
    }
    for (const key of Object.keys(body)) {
      if (key === 'getParameter' || key.startsWith('$') || key === 'comment') continue;
      if (params.has(key)) reply[key] = params.get(key) as BsonValue;
    }
    if (Object.keys(reply).length === 0)
      throw new CommandError(ErrorCode.InvalidOptions, 'no option found to get');
    return reply;
  },
});

export const setParameter = defineCommand({
  name: 'setParameter',
  auth: onCluster('setParameter'),
  args: Object.fromEntries([...settable].map((k) => [k, t.any])),
  traits: { adminOnly: true },
  run: ({ services, body }) => {
    const reply: BsonDocument = {};
    let n = 0;
    for (const [key, value] of Object.entries(body)) {
      if (
        key === 'setParameter' ||
        key.startsWith('$') ||
        key === 'comment' ||
        key === 'lsid' ||
        key === '$clusterTime'
      )
        continue;
      if (!settable.has(key)) continue;
      reply['was'] = services.parameters.get(key) as BsonValue;
      services.parameters.set(key, memoryParameters.get(key)?.(key, value) ?? value);
      n++;
    }
    if (n === 0)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'no option found to set, use help:true to see options',
      );
    return reply;
  },
});

export const getCmdLineOpts = defineCommand({
  name: 'getCmdLineOpts',
  auth: onCluster('getCmdLineOpts'),
  args: {},
  traits: { adminOnly: true },
  run: ({ services }) => ({ argv: [...services.config.argv], parsed: services.config.parsed }),
});

function uptimeSecs(services: ServerServices): number {
  return (Date.now() - services.startedAtMs) / 1000;
}

export const serverStatus = defineCommand({
  name: 'serverStatus',
  auth: onCluster('serverStatus'),
  args: {},
  run: ({ services }) => {
    const mem = process.memoryUsage();
    const oc = services.opcounters;
    return {
      host: os.hostname(),
      version: serverVersion,
      process: 'secantusd',
      pid: Long.fromNumber(process.pid),
      uptime: new Double(Math.floor(uptimeSecs(services))),
      uptimeMillis: Long.fromNumber(Date.now() - services.startedAtMs),
      uptimeEstimate: Long.fromNumber(Math.floor(uptimeSecs(services))),
      localTime: new Date(),
      connections: {
        current: int(services.connections.current),
        available: int(Math.max(0, services.connections.max - services.connections.current)),
        totalCreated: int(services.connections.totalCreated),
        rejected: int(services.connections.rejected),
        active: int(services.connections.current),
      },
      opcounters: {
        insert: Long.fromNumber(oc.insert),
        query: Long.fromNumber(oc.query),
        update: Long.fromNumber(oc.update),
        delete: Long.fromNumber(oc.delete),
        getmore: Long.fromNumber(oc.getmore),
        command: Long.fromNumber(oc.command),
      },
      storageEngine: {
        name: services.engine.name,
        supportsCommittedReads: true,
        persistent: services.engine.persistent,
      },
      mem: {
        bits: int(64),
        resident: int(Math.round(mem.rss / 1048576)),
        virtual: int(Math.round(mem.rss / 1048576)),
        supported: true,
      },
      metrics: { cursor: { open: { total: Long.fromNumber(services.cursors.size) } } },
      ...(services.config.replSet === ''
        ? {}
        : {
            repl: {
              setName: services.config.replSet,
              isWritablePrimary: true,
              primary: services.config.advertisedHost,
            },
          }),
    };
  },
});

export const hostInfo = defineCommand({
  name: 'hostInfo',
  auth: onCluster('hostInfo'),
  args: {},
  run: () => ({
    system: {
      currentTime: new Date(),
      hostname: os.hostname(),
      cpuAddrSize: int(64),
      memSizeMB: Long.fromNumber(Math.round(os.totalmem() / 1048576)),
      numCores: int(os.cpus().length),
      cpuArch: process.arch,
      numaEnabled: false,
    },
    os: { type: os.type(), name: os.type(), version: os.release() },
    extra: { versionString: os.version(), pageSize: Long.fromInt(4096) },
  }),
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
  run: ({ services }) => {
    const commands: BsonDocument = {};
    for (const name of services.commandNames()) {
      const def = services.commandDefinition(name);
      commands[name] = {
        help: def?.help ?? '',
        requiresAuth: def?.auth.requiresAuth !== false,
        secondaryOk: true,
        adminOnly: def?.traits?.adminOnly === true,
      };
    }
    return { commands };
  },
});

export const getLog = defineCommand({
  name: 'getLog',
  auth: onCluster('getLog'),
  args: {},
  traits: { adminOnly: true },
  run: ({ target, services }) => {
    if (target === '*') return { names: ['global', 'startupWarnings'] };
    if (target === 'startupWarnings')
      return {
        totalLinesWritten: int(services.startupWarnings.length),
        log: [...services.startupWarnings],
      };
    if (target === 'global') return { totalLinesWritten: int(0), log: [] };
    throw new CommandError(
      ErrorCode.BadValue,
      'Argument to getLog must be of type String; found a value of an unknown type or an unknown log name',
    );
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
  getLog,
  getFreeMonitoringStatus,
];

export { maxWireVersion };
