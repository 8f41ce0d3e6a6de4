// What a command sees: the server's services, the connection it came on, and the operation
// (deadline, session, write concern). The server layer implements these interfaces.

import type { EngineName } from '../storage/engine.js';
import type { BsonDocument } from '../bson/types.js';
import type { Catalog } from '../catalog/catalog.js';
import { CommandError, ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { CursorManager } from '../query/exec/cursor.js';
import type { ClusterClock } from '../repl/clock.js';
import type { Oplog } from '../repl/oplog.js';
import type { Topology } from '../repl/topology.js';
import type { FailPoints } from './testing/failpoints.js';
import type { WriteConcern } from './write-concern.js';
import type { DataAccess } from '../txn/access.js';
import type { SessionCatalog, Session } from '../txn/sessions.js';
import type { TrackedEngine } from '../txn/tracked-engine.js';
import type { SnapshotHistory } from '../txn/snapshot-history.js';
import type { Timestamp } from 'bson';
import type { SpillArea } from '../query/spill/area.js';
import type { OperationRegistry } from './operations.js';
import { interruptedError } from './operations.js';
import type { ServerMetrics } from './metrics.js';
import type { Profiler } from './profiler.js';
import type { FsyncLock } from './fsync-lock.js';
import { OpDebug } from './op-debug.js';
import type { StageStats } from '../query/exec/stages.js';
import type { CurOpStatus } from './connection.js';
import type { AuthService } from './auth/service.js';
import type { ScriptEngine } from '../js/engine.js';
import type { IndexBuilds } from './admin/index-build.js';
import type { ReportedVersion } from './version.js';

/**
 * What listCommands reads of a command's declaration (registry.ts's CommandDefinition), so
 * that the services, which every command declaration names, do not import the registry.
 */
export interface CommandSummary {
  readonly help?: string;
  readonly auth: { readonly requiresAuth?: boolean };
  readonly traits?: { readonly adminOnly?: boolean; readonly apiVersion1?: boolean };
}

export interface ServerConfig {
  readonly port: number;
  readonly bindIp: string;
  /** host:port that clients should use to reach this server (hello's `me`, `hosts`). */
  readonly advertisedHost: string;
  readonly dbPath: string | undefined;
  readonly storageEngine: EngineName;
  /** Replica set name; '' runs as a standalone. */
  readonly replSet: string;
  readonly enableTestCommands: boolean;
  /** Access control is on (--auth, --keyFile): commands check the client's privileges. */
  readonly auth: boolean;

  /** Compressors this server accepts and offers in hello, in its order of preference. */
  readonly networkMessageCompressors: readonly string[];
  /** Server-side JavaScript is on (mongod's security.javascriptEnabled; off: --noscripting). */
  readonly javascriptEnabled: boolean;
  /** The command line as given (getCmdLineOpts). */
  readonly argv: readonly string[];
  /** The resolved options as a document (getCmdLineOpts.parsed). */
  readonly parsed: BsonDocument;
  /** The MongoDB version this server presents itself as, and behaves as (version.ts). */
  readonly reported: ReportedVersion;
}

export interface OpCounters {
  insert: number;
  query: number;
  update: number;
  delete: number;
  getmore: number;
  command: number;
}

export interface ServerServices {
  readonly config: ServerConfig;
  /** The storage engine, wrapped for transaction conflict tracking. */
  readonly engine: TrackedEngine;
  readonly sessions: SessionCatalog;
  /** Labelled snapshots for readConcern snapshot outside transactions. */
  readonly snapshots: SnapshotHistory;
  readonly catalog: Catalog;
  readonly cursors: CursorManager;
  readonly logger: Logger;
  readonly clock: ClusterClock;
  /** The oplog, in replica-set mode. */
  readonly oplog: Oplog | undefined;
  readonly failPoints: FailPoints;
  readonly startedAtMs: number;
  readonly opcounters: OpCounters;
  /** Open connections; `max` is maxIncomingConnections, `rejected` those refused past it. */
  readonly connections: {
    current: number;
    totalCreated: number;
    rejected: number;
    readonly max: number;
  };
  /** Names of every registered command (listCommands). */
  commandNames(): string[];
  /** The declaration of a registered command (listCommands): a CommandDefinition. */
  commandDefinition(name: string): CommandSummary | undefined;
  /** Server parameters (getParameter / setParameter). */
  readonly parameters: Map<string, unknown>;
  /** Where blocking stages spill to disk (src/query/spill). */
  readonly spill: SpillArea;
  /** The operations in progress and the open connections (currentOp, killOp). */
  readonly operations: OperationRegistry;
  /** Per-command, document, network and per-namespace counters (serverStatus, top). */
  readonly metrics: ServerMetrics;
  /** Profiling levels, slowms, sampleRate and filters; the slow-operation log. */
  readonly profiler: Profiler;
  /** fsync {lock: true} / fsyncUnlock. */
  readonly fsyncLock: FsyncLock;
  /** Rotates the log file (logRotate, SIGUSR1); undefined when logs go to no file. */
  rotateLog(): string | undefined;
  /** The index builds in progress (createIndexes, dropIndexes, restart). */
  readonly indexBuilds: IndexBuilds;
  /** Users, roles and authentication (admin.system.users, admin.system.roles). */
  readonly auth: AuthService;
  /** The log lines of startup warnings, for getLog: 'startupWarnings'. */
  readonly startupWarnings: string[];

  /** Bytes through each enabled wire compressor (serverStatus network.compression). */
  readonly compressionCounters: ReadonlyMap<string, CompressionCounters>;
  /** Server-side JavaScript; undefined with --noscripting (security.javascriptEnabled: false). */
  readonly scriptEngine: ScriptEngine | undefined;
  /** topologyVersion and the awaitable hellos waiting on it. */
  readonly topology: Topology;
}

/** mongod's per-compressor counters: uncompressed bytes in / compressed out, and back. */
export interface CompressionCounters {
  readonly compressor: { bytesIn: number; bytesOut: number };
  readonly decompressor: { bytesIn: number; bytesOut: number };
}

export type { ConnectionState, CurOpStatus, TlsPeerState } from './connection.js';

export interface OperationContext {
  /** Milliseconds since the epoch after which the operation fails with MaxTimeMSExpired. */
  readonly deadlineMs: number | undefined;
  readonly writeConcern: WriteConcern;
  readonly comment: unknown;
  /** Where reads and writes go (a fresh snapshot / commit, or the transaction). */
  readonly access: DataAccess;
  /** The logical session and txnNumber the command carries. */
  readonly session: SessionBinding | undefined;
  /** For a snapshot read: the cluster time its data reflects (returned as atClusterTime). */
  readonly atClusterTime: Timestamp | undefined;
  /** Aborted when killOp kills the operation: waits listen to it and stop early. */
  readonly signal: AbortSignal;
  /** Throw Interrupted once the operation was killed, MaxTimeMSExpired once the deadline passed. */
  checkDeadline(): void;
  /** What the operation did, for its slow-operation line and profile entry. */
  readonly debug: OpDebug;
  /** Counts a yield of the operation's reads (numYields). */
  noteYield(): void;
  /** The plan the operation runs, from now on ($currentOp's planSummary, the slow-query line). */
  notePlan(stats: StageStats): void;
  /** Its currentOp message and progress (an index build sets them). */
  readonly curOp: CurOpStatus;
}

export interface SessionBinding {
  readonly session: Session;
  /** The command's txnNumber (retryable write or transaction). */
  readonly txnNumber: number | undefined;
  /** Statement ids of a retryable write: the command's stmtIds, or stmtId + index. */
  stmtIdFor(index: number): number;
  /** True for a retryable write (txnNumber without autocommit). */
  readonly retryableWrite: boolean;
}

export function makeOperationContext(
  deadlineMs: number | undefined,
  writeConcern: WriteConcern,
  comment: unknown,
  access: DataAccess,
  session: SessionBinding | undefined,
  atClusterTime?: Timestamp,
  signal: AbortSignal = new AbortController().signal,
  debug: OpDebug = new OpDebug(),
  curOp: CurOpStatus = {},
): OperationContext {
  return {
    debug,
    curOp,
    deadlineMs,
    writeConcern,
    comment,
    access,
    session,
    atClusterTime,
    signal,
    noteYield() {
      debug.numYields++;
    },
    notePlan(stats) {
      debug.plan = stats;
    },
    checkDeadline() {
      if (signal.aborted) throw interruptedError();
      if (deadlineMs !== undefined && Date.now() > deadlineMs) {
        throw new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
      }
    },
  };
}
