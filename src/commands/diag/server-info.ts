// Diagnostics drivers, shells and test harnesses ask for at start-up: buildInfo, ping,
// getParameter, setParameter, getCmdLineOpts, serverStatus, hostInfo, whatsmyuri,
// connectionStatus, listCommands, getLog.

import * as os from 'node:os';
import { readFileSync } from 'node:fs';
import { Double, Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import { engineNames } from '../../storage/engine.js';
import { t } from '../args.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import type { ReportedVersion } from '../version.js';
import { componentVerbosity, parseLogLevel, setComponentVerbosity } from './log-commands.js';
import { authenticatedOnly, noAuth, onCluster } from '../authorization.js';

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
  ...[
    'internalDocumentSourceBucketAutoMaxMemoryBytes',
    'internalDocumentSourceSetWindowFieldsMaxMemoryBytes',
    'internalDocumentSourceGraphLookupMaxMemoryBytes',
  ].map((p): [string, (name: string, v: unknown) => BsonValue] => [
    p,
    (name, v) => Long.fromNumber(byteCount(name, v, Number.MAX_SAFE_INTEGER, 1)),
  ]),
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
export function defaultParameters(services: {
  enableTestCommands: boolean;
  reported: ReportedVersion;
}): Map<string, unknown> {
  return new Map<string, unknown>([
    ['enableTestCommands', services.enableTestCommands],
    // mongod's test-only parameter: API Version 2 for the API test commands.
    ...(services.enableTestCommands ? [['acceptApiVersion2', false] as const] : []),
    ['featureCompatibilityVersion', { version: services.reported.featureCompatibilityVersion }],
    ['ttlMonitorSleepSecs', int(60)],
    ['ttlMonitorEnabled', true],
    ['transactionLifetimeLimitSeconds', int(60)],
    ['maxTransactionLockRequestTimeoutMillis', int(5)],
    ['cursorTimeoutMillis', Long.fromNumber(limits.cursorIdleTimeoutMs)],
    ['logicalSessionRefreshMillis', int(300000)],
    ['localLogicalSessionTimeoutMinutes', int(limits.logicalSessionTimeoutMinutes)],
    ['internalQueryMaxBlockingSortMemoryUsageBytes', int(limits.sortMemoryBytesMax)],
    ['internalDocumentSourceGroupMaxMemoryBytes', Long.fromNumber(limits.groupMemoryBytesMax)],
    [
      'internalDocumentSourceBucketAutoMaxMemoryBytes',
      Long.fromNumber(limits.bucketAutoMemoryBytesMax),
    ],
    [
      'internalDocumentSourceSetWindowFieldsMaxMemoryBytes',
      Long.fromNumber(limits.setWindowFieldsMemoryBytesMax),
    ],
    [
      'internalDocumentSourceGraphLookupMaxMemoryBytes',
      Long.fromNumber(limits.graphLookupMemoryBytesMax),
    ],
    ['allowDiskUseByDefault', true],
    ['authenticationMechanisms', ['SCRAM-SHA-1', 'SCRAM-SHA-256']],
    ['enableLocalhostAuthBypass', true],
    ['scramIterationCount', int(10000)],
    ['scramSHA256IterationCount', int(15000)],
    ['requireApiVersion', false],
    ['notablescan', false],
    ['quiet', false],
    ['logLevel', int(0)],
    ['logComponentVerbosity', {}],
  ]);
}

/** Parameters whose value lives elsewhere (the logger's settings): read and written there. */
const liveParameters = new Map<
  string,
  {
    get(services: ServerServices): BsonValue;
    set(services: ServerServices, value: BsonValue): void;
  }
>([
  [
    'logLevel',
    {
      get: (s) => int(s.logger.settings.logLevel),
      set: (s, v) => (s.logger.settings.logLevel = parseLogLevel(v)),
    },
  ],
  [
    'logComponentVerbosity',
    {
      get: (s) => componentVerbosity(s.logger.settings),
      set: (s, v) => setComponentVerbosity(s.logger.settings, v),
    },
  ],
  [
    'quiet',
    {
      get: (s) => s.logger.settings.quiet,
      set: (s, v) => {
        if (typeof v !== 'boolean')
          throw new CommandError(
            ErrorCode.BadValue,
            'Invalid value for parameter quiet: expected a boolean',
          );
        s.logger.settings.quiet = v;
      },
    },
  ],
]);

function parameterValue(services: ServerServices, key: string): BsonValue {
  const live = liveParameters.get(key);
  return live !== undefined ? live.get(services) : (services.parameters.get(key) as BsonValue);
}

const settable = new Set([
  'acceptApiVersion2',
  'ttlMonitorSleepSecs',
  'ttlMonitorEnabled',
  'transactionLifetimeLimitSeconds',
  'cursorTimeoutMillis',
  'notablescan',
  'logLevel',
  'logComponentVerbosity',
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
      for (const k of params.keys()) reply[k] = parameterValue(services, k);
      return reply;
    }
    for (const key of Object.keys(body)) {
      if (key === 'getParameter' || key.startsWith('$') || key === 'comment') continue;
      if (params.has(key)) reply[key] = parameterValue(services, key);
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
      // Test-only parameters exist only under enableTestCommands.
      if (!settable.has(key) || !(services.parameters.has(key) || liveParameters.has(key)))
        continue;
      reply['was'] = parameterValue(services, key);
      const live = liveParameters.get(key);
      if (live !== undefined) live.set(services, value);
      else services.parameters.set(key, memoryParameters.get(key)?.(key, value) ?? value);
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

/** Virtual memory of the process in bytes (Linux /proc; the resident size elsewhere). */
function virtualBytes(): number | undefined {
  try {
    const m = /^VmSize:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return m?.[1] === undefined ? undefined : Number(m[1]) * 1024;
  } catch {
    return undefined;
  }
}

const long = (n: number): Long => Long.fromNumber(n);
const latency = (c: { time: number; count: number }): BsonDocument => ({
  latency: long(c.time),
  ops: long(c.count),
});

/** serverStatus sections, each built only when asked for (mongod's ServerStatusSection). */
const statusSections: ReadonlyArray<readonly [string, (s: ServerServices) => BsonValue]> = [
  [
    'asserts',
    (s) => {
      let failed = 0;
      for (const c of s.metrics.commands.values()) failed += c.failed;
      return {
        regular: int(0),
        warning: int(0),
        msg: int(0),
        user: int(failed),
        tripwire: int(0),
        rollovers: int(0),
      };
    },
  ],
  [
    'connections',
    (s) => ({
      current: int(s.connections.current),
      available: int(Math.max(0, s.connections.max - s.connections.current)),
      totalCreated: int(s.connections.totalCreated),
      rejected: int(s.connections.rejected),
      active: int(new Set(s.operations.operations().map((o) => o.client.id)).size),
      threaded: int(s.connections.current),
      exhaustIsMaster: long(0),
      exhaustHello: long(0),
      awaitingTopologyChanges: long(0),
    }),
  ],
  [
    'extra_info',
    () => {
      const cpu = process.cpuUsage();
      const usage = process.resourceUsage();
      return {
        note: 'fields vary by platform',
        user_time_us: long(cpu.user),
        system_time_us: long(cpu.system),
        maximum_resident_set_kb: long(usage.maxRSS),
        page_faults: long(usage.majorPageFault),
      };
    },
  ],
  [
    'globalLock',
    (s) => {
      const ops = s.operations.operations();
      const writers = ops.filter((o) => o.isWrite).length;
      const queuedWriters = s.fsyncLock.locked ? writers : 0;
      return {
        totalTime: long((Date.now() - s.startedAtMs) * 1000),
        currentQueue: {
          total: int(queuedWriters),
          readers: int(0),
          writers: int(queuedWriters),
        },
        activeClients: {
          total: int(ops.length),
          readers: int(ops.length - writers),
          writers: int(writers - queuedWriters),
        },
      };
    },
  ],
  [
    'network',
    (s) => {
      const n = s.metrics.network;
      return {
        bytesIn: long(n.bytesIn),
        bytesOut: long(n.bytesOut),
        physicalBytesIn: long(n.bytesIn),
        physicalBytesOut: long(n.bytesOut),
        numSlowDNSOperations: long(0),
        numSlowSSLOperations: long(0),
        numRequests: long(n.numRequests),
        compression: compressionStatus(s),
      };
    },
  ],
  [
    'opLatencies',
    (s) => ({
      reads: latency(s.metrics.opLatencies.reads),
      writes: latency(s.metrics.opLatencies.writes),
      commands: latency(s.metrics.opLatencies.commands),
      transactions: latency({ time: 0, count: 0 }),
    }),
  ],
  [
    'opcounters',
    (s) => {
      const oc = s.opcounters;
      return {
        insert: long(oc.insert),
        query: long(oc.query),
        update: long(oc.update),
        delete: long(oc.delete),
        getmore: long(oc.getmore),
        command: long(oc.command),
      };
    },
  ],
  [
    'opcountersRepl',
    () => ({
      insert: long(0),
      query: long(0),
      update: long(0),
      delete: long(0),
      getmore: long(0),
      command: long(0),
    }),
  ],
  [
    'repl',
    (s) =>
      s.config.replSet === ''
        ? undefined
        : {
            setName: s.config.replSet,
            isWritablePrimary: true,
            secondary: false,
            hosts: [s.config.advertisedHost],
            primary: s.config.advertisedHost,
            me: s.config.advertisedHost,
          },
  ],
  [
    'storageEngine',
    (s) => ({
      name: s.engine.name,
      supportsCommittedReads: true,
      persistent: s.engine.persistent,
      dataSizeBytes: long(s.engine.stats().storageSizeBytes),
    }),
  ],
  [
    'mem',
    () => {
      const rss = process.memoryUsage().rss;
      return {
        bits: int(64),
        resident: int(Math.round(rss / 1048576)),
        virtual: int(Math.round((virtualBytes() ?? rss) / 1048576)),
        supported: true,
      };
    },
  ],
  [
    'metrics',
    (s) => {
      const commands: BsonDocument = {};
      for (const [name, c] of [...s.metrics.commands].sort(([a], [b]) => (a < b ? -1 : 1)))
        commands[name] =
          name === '<UNKNOWN>' ? long(c.total) : { failed: long(c.failed), total: long(c.total) };
      if (!('<UNKNOWN>' in commands)) commands['<UNKNOWN>'] = long(0);
      const d = s.metrics.document;
      return {
        commands,
        cursor: { open: { total: long(s.cursors.size), noTimeout: long(0), pinned: long(0) } },
        document: {
          deleted: long(d.deleted),
          inserted: long(d.inserted),
          returned: long(d.returned),
          updated: long(d.updated),
        },
        queryExecutor: {
          scanned: long(s.metrics.queryExecutor.scanned),
          scannedObjects: long(s.metrics.queryExecutor.scannedObjects),
        },
      };
    },
  ],
];

export const serverStatus = defineCommand({
  name: 'serverStatus',
  auth: onCluster('serverStatus'),
  args: {},
  // As mongod's: any other field names a section to leave out (0) or include (1).
  strict: false,
  help: 'returns lots of administrative server statistics',
  run: ({ services, body }) => {
    const reply: BsonDocument = {
      host: os.hostname(),
      version: services.config.reported.version,
      process: 'secantusd',
      pid: long(process.pid),
      uptime: new Double(Math.floor(uptimeSecs(services))),
      uptimeMillis: long(Date.now() - services.startedAtMs),
      uptimeEstimate: long(Math.floor(uptimeSecs(services))),
      localTime: new Date(),
    };
    for (const [name, build] of statusSections) {
      const asked = body[name];
      if (asked !== undefined && (asked === false || numericValue(asked) === 0)) continue;
      const section = build(services);
      if (section !== undefined) reply[name] = section;
    }
    return reply;
  },
});

function compressionStatus(services: ServerServices): BsonDocument {
  const out: BsonDocument = {};
  const side = (c: { bytesIn: number; bytesOut: number }): BsonDocument => ({
    bytesIn: Long.fromNumber(c.bytesIn),
    bytesOut: Long.fromNumber(c.bytesOut),
  });
  for (const [name, c] of services.compressionCounters) {
    out[name] = { compressor: side(c.compressor), decompressor: side(c.decompressor) };
  }
  return out;
}

/** The distribution's name (PRETTY_NAME of /etc/os-release), else the kernel's. */
function osName(): string {
  try {
    const m = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (m?.[1] !== undefined) return m[1];
  } catch {
    // not Linux, or no os-release
  }
  return os.type();
}

export const hostInfo = defineCommand({
  name: 'hostInfo',
  auth: onCluster('hostInfo'),
  args: {},
  help: "returns information about the daemon's host",
  run: () => {
    const cpus = os.cpus();
    const memMB = Math.round(os.totalmem() / 1048576);
    const constrained = process.constrainedMemory?.() ?? 0;
    return {
      system: {
        currentTime: new Date(),
        hostname: os.hostname(),
        cpuAddrSize: int(64),
        memSizeMB: long(memMB),
        memLimitMB: long(constrained > 0 ? Math.round(constrained / 1048576) : memMB),
        numCores: int(cpus.length),
        numPhysicalCores: int(cpus.length),
        numCpuSockets: int(1),
        cpuArch: process.arch,
        numaEnabled: false,
        numNumaNodes: int(1),
      },
      os: { type: os.type(), name: osName(), version: os.release() },
      extra: {
        versionString: os.version(),
        kernelVersion: os.release(),
        cpuString: cpus[0]?.model ?? '',
        cpuFrequencyMHz: String(cpus[0]?.speed ?? 0),
        pageSize: long(4096),
        physicalCores: int(cpus.length),
        nodeVersion: process.version,
      },
    };
  },
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
