// serverStatus, with the sections monitoring tools read (each built only when asked for),
// and hostInfo: what the process and its machine are.

import * as os from 'node:os';
import { readFileSync } from 'node:fs';
import { Double, Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { numericValue } from '../../bson/types.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import { onCluster } from '../authorization.js';

const int = (n: number): Int32 => new Int32(n);

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
