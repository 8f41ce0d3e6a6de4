// The server: storage engine + catalog + command services behind a TCP listener.
// start() opens storage and listens; stop() stops accepting, lets in-flight requests end,
// closes every socket, then closes storage. Nothing it leaves behind keeps Node alive.

import * as net from 'node:net';
import * as os from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../catalog/catalog.js';
import { createRegistry } from '../commands/all.js';
import { documentValidator } from '../commands/crud/document-validation.js';
import type {
  ConnectionState,
  OpCounters,
  ServerConfig,
  ServerServices,
} from '../commands/context.js';
import { Dispatcher } from '../commands/dispatch.js';
import { OperationRegistry } from '../commands/operations.js';
import { defaultParameters } from '../commands/diag/server-info.js';
import { FailPoints } from '../commands/testing/failpoints.js';
import type { BsonDocument } from '../bson/types.js';
import { limits } from '../limits.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { CursorManager } from '../query/exec/cursor.js';
import { SpillArea } from '../pipeline/spill/area.js';
import { ClusterClock } from '../repl/clock.js';
import { Oplog } from '../repl/oplog.js';
import { OplogStore, oplogEntryTables } from '../repl/oplog-store.js';
import type { StorageEngine } from '../storage/engine.js';
import { openEngine } from '../storage/open.js';
import { RoutedEngine } from '../storage/routed-engine.js';
import { ConflictTracker } from '../txn/conflicts.js';
import { SessionCatalog } from '../txn/sessions.js';
import { SnapshotHistory } from '../txn/snapshot-history.js';
import { TrackedEngine } from '../txn/tracked-engine.js';
import { AuthService, watchAuthCollections } from '../commands/auth/service.js';
import { createInitialUser } from '../commands/auth/users.js';
import { startupWarnings } from '../commands/auth/startup-warnings.js';
import { noopObserver } from '../catalog/observer.js';
import { numericValue } from '../bson/types.js';
import { Connection } from './connection.js';
import type { ConnectionDeadlines } from './connection.js';
import { resetServer, restoreServer, ServerSnapshot, snapshotServer } from './fixtures.js';
import type { ResetResult } from './fixtures.js';
import { createTtlMonitor } from '../commands/admin/indexes.js';
import type { TtlMonitor } from '../catalog/ttl-monitor.js';

export interface ServerOptions {
  /** TCP port; 0 picks a free one. Default 27017. */
  readonly port?: number;
  /** Address to listen on. Default 127.0.0.1. */
  readonly bindIp?: string;
  /** Data directory; required for the lmdb engine. */
  readonly dbPath?: string;
  /** Default: lmdb when a dbPath is given, memory otherwise. */
  readonly storageEngine?: 'memory' | 'lmdb';
  /** Replica set name; '' for a standalone. Default 'rs0'. */
  readonly replSet?: string;
  /** Allow configureFailPoint and other test commands. Default false. */
  readonly enableTestCommands?: boolean;
  /** How often idle cursors, sessions and transactions are reaped. Default 15 s. */
  readonly reaperIntervalMs?: number;
  /** Oplog size budget in bytes (replica-set mode); oldest entries are pruned beyond it. */
  readonly oplogSizeBytes?: number;
  /**
   * Write oplog entries off the writers' path, by a background drainer (--oplog-async). A
   * crash can lose the entries of acknowledged writes; docs/architecture.md. Default false.
   */
  readonly oplogAsync?: boolean;
  /**
   * Keep the oplog in a second storage that commits without fsync (--oplog-nonlogged): for
   * lmdb an environment in <dbPath>/oplog-nonlogged. Default false.
   */
  readonly oplogNonlogged?: boolean;
  /** host:port reported to clients; default bindIp:port (or the hostname when bound to all). */
  readonly advertisedHost?: string;
  readonly logger?: Logger;
  /** The command line, for getCmdLineOpts. */
  readonly argv?: readonly string[];
  /** The resolved options as a document, for getCmdLineOpts. */
  readonly parsed?: BsonDocument;
  /** Access control (--auth): every command checks the client's privileges. Default false. */
  readonly auth?: boolean;
  /**
   * A user created with the root role on admin at start-up when admin.system.users has no user
   * of that name (the daemon's initial root user, the in-process server's auth option).
   */
  readonly initialUser?: { readonly username: string; readonly password: string };
  /**
   * Most client connections open at once (mongod's net.maxIncomingConnections, --maxConns);
   * past it a new connection is logged and closed. Default limits.connectionsMax.
   */
  readonly maxIncomingConnections?: number;
  /** A wire message must arrive whole within this long of its first byte. Default limits.frameReceiveTimeMsMax. */
  readonly frameReceiveTimeoutMs?: number;
  /** A new connection must send its first message within this long. Default limits.firstMessageWaitMsMax. */
  readonly firstMessageTimeoutMs?: number;
}

function positiveInteger(v: number | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v < 1)
    throw new RangeError(`${name} must be a positive integer, got ${String(v)}`);
  return v;
}

function advertise(bindIp: string, port: number): string {
  const host =
    bindIp === '0.0.0.0' || bindIp === '::'
      ? os.hostname()
      : bindIp.includes(':')
        ? `[${bindIp}]`
        : bindIp;
  return `${host}:${port}`;
}

export class Server {
  private readonly connections = new Set<Connection>();
  private nextConnectionId = 1;
  private reaper: NodeJS.Timeout | undefined;
  private ttl: TtlMonitor | undefined;
  private stopping: Promise<void> | undefined;
  private readonly deadlines: ConnectionDeadlines;

  private constructor(
    readonly services: ServerServices,
    private readonly listener: net.Server,
    private readonly dispatcher: Dispatcher,
    private readonly maxConnections: number,
    deadlines: ConnectionDeadlines,
  ) {
    this.deadlines = deadlines;
  }

  get port(): number {
    return this.services.config.port;
  }

  get config(): ServerConfig {
    return this.services.config;
  }

  static async start(options: ServerOptions = {}): Promise<Server> {
    const logger = options.logger ?? silentLogger;
    const maxConnections = positiveInteger(
      options.maxIncomingConnections,
      'maxIncomingConnections',
      limits.connectionsMax,
    );
    const deadlines: ConnectionDeadlines = {
      frameMs: positiveInteger(
        options.frameReceiveTimeoutMs,
        'frameReceiveTimeoutMs',
        limits.frameReceiveTimeMsMax,
      ),
      firstMessageMs: positiveInteger(
        options.firstMessageTimeoutMs,
        'firstMessageTimeoutMs',
        limits.firstMessageWaitMsMax,
      ),
    };
    const storageEngine =
      options.storageEngine ?? (options.dbPath !== undefined ? 'lmdb' : 'memory');
    const bindIp = options.bindIp ?? '127.0.0.1';
    const replSet = options.replSet ?? 'rs0';
    const oplogMode = {
      async: options.oplogAsync ?? false,
      nonlogged: (options.oplogNonlogged ?? false) && replSet !== '',
    };
    const mainEngine = await openEngine({
      engine: storageEngine,
      ...(options.dbPath === undefined ? {} : { path: options.dbPath }),
      logger,
    });
    let rawEngine: StorageEngine = mainEngine;
    if (oplogMode.nonlogged) {
      try {
        const side = await openEngine({
          engine: storageEngine,
          ...(options.dbPath === undefined
            ? {}
            : { path: join(options.dbPath, 'oplog-nonlogged') }),
          noSync: true,
          logger,
        });
        rawEngine = new RoutedEngine(mainEngine, side, oplogEntryTables);
      } catch (e) {
        await mainEngine.close();
        throw e;
      }
    }
    const oplogStorage = rawEngine instanceof RoutedEngine ? rawEngine.side : mainEngine;
    const engine = new TrackedEngine(rawEngine, new ConflictTracker());
    let listener: net.Server | undefined;
    try {
      const catalog = Catalog.open(engine, logger);
      catalog.validator = documentValidator(logger);
      listener = net.createServer();
      const port = await listen(listener, options.port ?? 27017, bindIp);
      const enableTestCommands = options.enableTestCommands ?? false;
      const config: ServerConfig = {
        port,
        bindIp,
        advertisedHost: options.advertisedHost ?? advertise(bindIp, port),
        dbPath: options.dbPath,
        storageEngine,
        replSet,
        enableTestCommands,
        auth: options.auth ?? false,
        argv: options.argv ?? [],
        parsed: options.parsed ?? {},
      };
      const registry = createRegistry();
      const opcounters: OpCounters = {
        insert: 0,
        query: 0,
        update: 0,
        delete: 0,
        getmore: 0,
        command: 0,
      };
      const cursors = new CursorManager();
      // The clock resumes after the newest timestamp storage knows, so it never goes backwards.
      const oplogState = OplogStore.readState(mainEngine, oplogStorage);
      const clock = new ClusterClock(OplogStore.newestTimestamp(oplogState));
      let oplog: Oplog | undefined;
      if (replSet !== '') {
        const store = new OplogStore({
          main: mainEngine,
          store: oplogStorage,
          mode: oplogMode,
          maxBytes: options.oplogSizeBytes ?? limits.oplogSizeBytesDefault,
          onWritten: () => oplog?.notify(),
          logger,
        });
        await store.open(oplogState, () => clock.tick());
        oplog = new Oplog(clock, store);
      }
      const snapshots = new SnapshotHistory(
        engine,
        () => clock.now(),
        (from, to) => oplog?.reader.changedBetween(from, to) ?? false,
      );
      const parameters = defaultParameters({ enableTestCommands });
      const auth = new AuthService({
        catalog,
        engine,
        enabled: config.auth,
        localhostBypassEnabled: () => parameters.get('enableLocalhostAuthBypass') !== false,
        logger,
      });
      catalog.observer = watchAuthCollections(oplog ?? noopObserver, () => auth.bump());
      // Spill files left by a crash belong to no operation any more.
      const spill = SpillArea.forServer(options.dbPath);
      spill.wipe();
      const sessions = new SessionCatalog({ onSessionGone: (s) => cursors.killForSession(s.key) });
      const services: ServerServices = {
        config,
        engine,
        sessions,
        snapshots,
        catalog,
        cursors,
        logger,
        clock,
        oplog,
        failPoints: new FailPoints(),
        startedAtMs: Date.now(),
        opcounters,
        connections: { current: 0, totalCreated: 0, rejected: 0, max: maxConnections },
        commandNames: () => registry.names(),
        commandDefinition: (name) => registry.get(name),
        parameters,
        spill,
        operations: new OperationRegistry(),
        auth,
        startupWarnings: [],
      };
      if (options.initialUser !== undefined) await createInitialUser(services, options.initialUser);
      const server = new Server(
        services,
        listener,
        new Dispatcher(services, registry),
        maxConnections,
        deadlines,
      );
      listener.on('connection', (socket) => server.accept(socket));
      server.reaper = setInterval(
        () => server.reap(),
        options.reaperIntervalMs ?? limits.cursorReaperIntervalMs,
      );
      server.ttl = createTtlMonitor(services);
      server.ttl.start();
      server.reaper.unref();
      for (const w of startupWarnings(config)) {
        services.startupWarnings.push(logger.startupWarning('CONTROL', w.id, w.msg, w.attr));
      }
      logger.info('NETWORK', 23016, 'Waiting for connections', {
        port,
        bindIp,
        storageEngine,
        replSet,
      });
      return server;
    } catch (e) {
      listener?.close();
      await rawEngine.close();
      throw e;
    }
  }

  private accept(socket: net.Socket): void {
    if (this.stopping !== undefined) {
      socket.destroy();
      return;
    }
    if (this.connections.size >= this.maxConnections) {
      // mongod accepts, logs and closes: the client sees the connection end before any reply.
      this.services.connections.rejected++;
      this.services.logger.info(
        'NETWORK',
        22942,
        'Connection refused because there are too many open connections',
        {
          remote: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`,
          connectionCount: this.connections.size,
        },
      );
      socket.on('error', () => undefined);
      socket.destroy();
      return;
    }
    const id = this.nextConnectionId++;
    const conn = new Connection(
      socket,
      id,
      this.dispatcher,
      this.services.logger,
      (c) => {
        this.connections.delete(c);
        this.services.operations.clientClosed(c.state);
        this.services.connections.current = this.connections.size;
      },
      this.deadlines,
    );
    this.connections.add(conn);
    this.services.operations.clientOpened(conn.state);
    this.services.connections.current = this.connections.size;
    this.services.connections.totalCreated++;
    this.services.logger.debug('NETWORK', 22943, 'Connection accepted', {
      remote: conn.state.remote,
      connectionId: id,
    });
  }

  private reap(): void {
    const { parameters, cursors, sessions, logger } = this.services;
    const now = Date.now();
    const timeout =
      numericValue(parameters.get('cursorTimeoutMillis')) ?? limits.cursorIdleTimeoutMs;
    const n = cursors.reapIdle(now, timeout);
    if (n > 0) logger.info('QUERY', 20528, 'Closed idle cursors', { count: n });
    const sessionMinutes =
      numericValue(parameters.get('localLogicalSessionTimeoutMinutes')) ??
      limits.logicalSessionTimeoutMinutes;
    const lifetimeSecs = numericValue(parameters.get('transactionLifetimeLimitSeconds')) ?? 60;
    const r = sessions.reap(now, sessionMinutes * 60_000, lifetimeSecs * 1000);
    if (r.sessions + r.transactions > 0)
      logger.info('TXN', 20529, 'Expired sessions and transactions', r);
  }

  /** Drop every user database (test fixtures; src/server/fixtures.ts). */
  async reset(): Promise<ResetResult> {
    this.checkRunning('reset');
    return resetServer(this.services);
  }

  /** Capture the user data (test fixtures; src/server/fixtures.ts). */
  async snapshot(): Promise<ServerSnapshot> {
    this.checkRunning('snapshot');
    return snapshotServer(this.services);
  }

  /** Return the user data to a snapshot (test fixtures; src/server/fixtures.ts). */
  async restore(snapshot: ServerSnapshot): Promise<ResetResult> {
    this.checkRunning('restore');
    if (!(snapshot instanceof ServerSnapshot))
      throw new TypeError('restore(): expected a snapshot from snapshot()');
    return restoreServer(this.services, snapshot);
  }

  private checkRunning(what: string): void {
    if (this.stopping !== undefined) throw new Error(`${what}(): the server is stopped`);
  }

  connectionStates(): ConnectionState[] {
    return [...this.connections].map((c) => c.state);
  }

  /** Stop accepting, close all connections, close storage. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    const { logger, engine } = this.services;
    logger.info('CONTROL', 23138, 'Shutting down');
    if (this.reaper !== undefined) clearInterval(this.reaper);
    const closed = new Promise<void>((resolve) => this.listener.close(() => resolve()));
    // In-flight requests finish and reply (bounded), then every connection closes.
    await Promise.all(
      [...this.connections].map((c) => c.finishAndClose(limits.shutdownRequestWaitMs)),
    );
    await closed;
    this.services.sessions.endAll();
    this.services.cursors.closeAll();
    this.services.spill.close();
    this.services.snapshots.releaseAll();
    await this.ttl?.stop();
    // Queued oplog entries are written before storage closes (--oplog-async).
    await this.services.oplog?.store.close();
    await closeEngine(engine.inner);
    logger.info('CONTROL', 20565, 'Now exiting');
  }
}

async function closeEngine(engine: StorageEngine): Promise<void> {
  await engine.flush();
  await engine.close();
}

function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once('error', onError);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', onError);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr !== null ? addr.port : port);
    });
  });
}
