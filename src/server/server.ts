// The server: storage engine + catalog + command services behind a TCP listener.
// start() opens storage and listens; stop() stops accepting, lets in-flight requests end,
// closes every socket, then closes storage. Nothing it leaves behind keeps Node alive.

import { chmodSync, rmSync } from 'node:fs';
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
import { defaultParameters } from '../commands/diag/parameters.js';
import { FailPoints } from '../commands/testing/failpoints.js';
import type { BsonDocument } from '../bson/types.js';
import { limits } from '../limits.js';
import { Logger, isRotatable } from '../log.js';
import { randomUUID } from 'node:crypto';
import { ServerMetrics } from '../commands/metrics.js';
import { Profiler } from '../commands/profiler.js';
import type { ProfilerOptions } from '../commands/profiler.js';
import { FsyncLock } from '../commands/fsync-lock.js';
import { MetricsEndpoint } from './metrics-http.js';
import type { MetricsOptions } from './metrics-http.js';
import { CursorManager } from '../query/exec/cursor.js';
import { SpillArea } from '../query/spill/area.js';
import { ClusterClock } from '../repl/clock.js';
import { Oplog } from '../repl/oplog.js';
import { Topology } from '../repl/topology.js';
import { OplogStore, oplogEntryTables } from '../repl/oplog-store.js';
import type { EngineName, StorageEngine } from '../storage/engine.js';
import { openEngine } from '../storage/open.js';
import { InProcessConnection } from './in-process.js';
import { lockSocket } from './socket-lock.js';
import type { DirectoryLock } from '../storage/lock-file.js';
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
import { loadScriptEngine } from '../js/engine.js';
import type { ScriptEngine } from '../js/engine.js';
import { resetServer, restoreServer, ServerSnapshot, snapshotServer } from './fixtures.js';
import type { ResetResult } from './fixtures.js';

import type { ConnectionTransport } from './connection.js';
import { classifyFirstBytes, createTlsIngress } from './tls.js';
import type { TlsMode, TlsOptions, TlsServerSide } from './tls.js';
import { resolveCompressors } from '../wire/compression.js';
import type { CompressorSet } from '../wire/compression.js';
import { createTtlMonitor } from '../commands/admin/indexes.js';
import { IndexBuilds } from '../commands/admin/index-build.js';
import { defaultCompatibilityVersion, reportedVersions } from '../commands/version.js';
import type { CompatibilityVersion } from '../commands/version.js';
import type { TtlMonitor } from '../catalog/ttl-monitor.js';

export interface ServerOptions {
  /** TCP port; 0 picks a free one. Default 27017. */
  readonly port?: number;
  /** Address to listen on. Default 127.0.0.1. */
  readonly bindIp?: string;
  /** Data directory; required for the lmdb engine. */
  readonly dbPath?: string;
  /** Default: lmdb when a dbPath is given, memory otherwise. */
  readonly storageEngine?: EngineName;
  /**
   * Listen on TCP (default true). false: no listener, clients only in process
   * (openInProcess(), secantusdb/embedded); port is then 0.
   */
  readonly listen?: boolean;
  /**
   * Listen on this Unix domain socket instead of TCP (secantusd --unixSocket). The server
   * first takes `<socketPath>.lock` (SocketInUseError when a live process holds it), then
   * the data directory, then replaces whatever file is at the path; it is removed at stop().
   */
  readonly socketPath?: string;
  /**
   * With no client connected for this long, call onIdle (secantusd --idleShutdownSecs, the
   * on-demand daemon of open({ multiProcess: true })). Counted from start and from each
   * moment the last connection ends.
   */
  readonly idle?: { readonly ms: number; readonly onIdle: () => void };
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
  /** mongod's net.tls settings; default: TLS disabled. */
  readonly tls?: TlsOptions;
  /**
   * mongod's --networkMessageCompressors: names separated by commas, or "disabled". Default
   * "snappy,zstd,zlib", keeping those this process can run; a name given explicitly that it
   * cannot run is a startup error.
   */
  readonly networkMessageCompressors?: string;
  /** host:port reported to clients; default bindIp:port (or the hostname when bound to all). */
  readonly advertisedHost?: string;
  readonly logger?: Logger;
  /** The command line, for getCmdLineOpts. */
  readonly argv?: readonly string[];
  /** The resolved options as a document, for getCmdLineOpts. */
  readonly parsed?: BsonDocument;
  /** Profiling level of every database, slowms and sampleRate (--profile, --slowms, --slowOpSampleRate). */
  readonly profiling?: ProfilerOptions;
  /** Serve Prometheus metrics (--metricsPort); off when absent. */
  readonly metrics?: MetricsOptions;
  /** Access control (--auth): every command checks the client's privileges. Default false. */
  readonly auth?: boolean;
  /**
   * The MongoDB version to present and behave as: '7.0' (wire 21) or '8.0' (wire 25: `sort`
   * in update statements). Default src/commands/version.ts defaultCompatibilityVersion.
   */
  readonly compatibilityVersion?: CompatibilityVersion;
  /**
   * Server-side JavaScript ($where, $function, $accumulator, mapReduce) in a sandbox; false is
   * mongod's --noscripting (security.javascriptEnabled: false). Default true.
   */
  readonly javascriptEnabled?: boolean;
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

/** A connection needs its first 16 bytes (a message header, or a TLS ClientHello) to be told apart. */
const firstBytesNeeded = 16;

/** mongod's answer to an HTTP request on the database port. */
const httpReply =
  'HTTP/1.0 200 OK\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 85\r\n\r\n' +
  'It looks like you are trying to access MongoDB over HTTP on the native driver port.\r\n';

/**
 * The JavaScript sandbox, or none when its WebAssembly module cannot be loaded where the server
 * runs (a Jest test file's vm context refuses the dynamic import it needs without
 * --experimental-vm-modules): the server then serves everything else and answers scripts as
 * with --noscripting, and says so in the log.
 */
async function scriptEngineOrNone(logger: Logger): Promise<ScriptEngine | undefined> {
  try {
    return await loadScriptEngine();
  } catch (e) {
    logger.warn(
      'CONTROL',
      9150002,
      'Server-side JavaScript is unavailable: its engine did not load',
      {
        error: e instanceof Error ? e.message : String(e),
      },
    );
    return undefined;
  }
}

export class Server {
  private readonly connections = new Set<Connection>();
  private readonly inProcess = new Set<InProcessConnection>();
  /** Sockets accepted but not yet connections: first bytes or the TLS handshake pending. */
  private readonly pendingSockets = new Set<net.Socket>();
  private nextConnectionId = 1;
  private reaper: NodeJS.Timeout | undefined;
  private ttl: TtlMonitor | undefined;
  private stopping: Promise<void> | undefined;
  private readonly deadlines: ConnectionDeadlines;
  private metricsEndpoint: MetricsEndpoint | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private idle: ServerOptions['idle'];
  private socketLock: DirectoryLock | undefined;
  private socketPath: string | undefined;

  private constructor(
    readonly services: ServerServices,
    private readonly listener: net.Server | undefined,
    private readonly dispatcher: Dispatcher,
    private readonly compressors: CompressorSet,
    private readonly tls: TlsServerSide | undefined,
    private readonly maxConnections: number,
    deadlines: ConnectionDeadlines,
  ) {
    this.deadlines = deadlines;
  }

  get port(): number {
    return this.services.config.port;
  }

  /** The Prometheus endpoint's port, when it runs. */
  get metricsPort(): number | undefined {
    return this.metricsEndpoint?.port;
  }

  get config(): ServerConfig {
    return this.services.config;
  }

  /** The TLS mode, and the CA file clients verify the server with (in-process URI). */
  get tlsMode(): TlsMode {
    return this.tls?.mode ?? 'disabled';
  }

  get tlsCAFile(): string | undefined {
    return this.tls?.caFile;
  }

  static async start(options: ServerOptions = {}): Promise<Server> {
    // Without a logger of its own the server still keeps its recent lines for getLog.
    const logger = options.logger ?? new Logger(undefined);
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
    // Configuration faults surface before any storage is opened.
    const tls = createTlsIngress(options.tls);
    const compressors = await resolveCompressors(options.networkMessageCompressors);
    const replSet = options.replSet ?? 'rs0';
    const oplogMode = {
      async: options.oplogAsync ?? false,
      nonlogged: (options.oplogNonlogged ?? false) && replSet !== '',
    };
    // The socket's lock comes before the data directory's (src/server/socket-lock.ts).
    const socketLock =
      options.socketPath === undefined ? undefined : lockSocket(options.socketPath);
    let mainEngine: StorageEngine;
    try {
      mainEngine = await openEngine({
        engine: storageEngine,
        ...(options.dbPath === undefined ? {} : { path: options.dbPath }),
        logger,
      });
    } catch (e) {
      socketLock?.release();
      throw e;
    }
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
        socketLock?.release();
        throw e;
      }
    }
    const oplogStorage = rawEngine instanceof RoutedEngine ? rawEngine.side : mainEngine;
    const engine = new TrackedEngine(rawEngine, new ConflictTracker());
    let listener: net.Server | undefined;
    // Connections that arrive once the listener listens but before the server exists (a
    // client polling for the socket, as open({ multiProcess }) does) wait here, not dropped.
    const early: net.Socket[] = [];
    const holdEarly = (socket: net.Socket): void => {
      // A reset while held must not be an uncaught error; accept() adds its own handler.
      socket.on('error', () => socket.destroy());
      early.push(socket);
    };
    try {
      const catalog = Catalog.open(engine, logger);
      const metrics = new ServerMetrics();
      catalog.validator = documentValidator(logger);
      listener = options.listen === false ? undefined : net.createServer();
      listener?.on('connection', holdEarly);
      const socketPath = options.socketPath;
      const port =
        listener === undefined
          ? 0
          : socketPath !== undefined
            ? await listenOnPath(listener, socketPath)
            : await listen(listener, options.port ?? 27017, bindIp);
      const enableTestCommands = options.enableTestCommands ?? false;
      const config: ServerConfig = {
        port,
        bindIp,
        advertisedHost:
          options.advertisedHost ??
          (listener === undefined ? 'embedded:0' : (socketPath ?? advertise(bindIp, port))),
        dbPath: options.dbPath,
        storageEngine,
        replSet,
        enableTestCommands,
        auth: options.auth ?? false,

        networkMessageCompressors: compressors.names,
        javascriptEnabled: options.javascriptEnabled ?? true,
        argv: options.argv ?? [],
        parsed: options.parsed ?? {},
        reported: reportedVersions[options.compatibilityVersion ?? defaultCompatibilityVersion],
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
      const parameters = defaultParameters({ enableTestCommands, reported: config.reported });
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
      const sink = logger.state.sink;
      const failPoints = new FailPoints();
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
        failPoints,
        startedAtMs: Date.now(),
        opcounters,
        connections: { current: 0, totalCreated: 0, rejected: 0, max: maxConnections },
        commandNames: () => registry.names(),
        commandDefinition: (name) => registry.get(name),
        parameters,
        spill,
        operations: new OperationRegistry(),
        indexBuilds: new IndexBuilds({ engine, catalog, logger, sessions, failPoints }),
        auth,
        startupWarnings: [],
        compressionCounters: compressors.counters,
        metrics,
        profiler: new Profiler(options.profiling),
        fsyncLock: new FsyncLock(engine, logger),
        rotateLog: () => (isRotatable(sink) ? sink.rotate() : undefined),
        scriptEngine: config.javascriptEnabled ? await scriptEngineOrNone(logger) : undefined,
        topology: new Topology(),
      };
      if (options.initialUser !== undefined) await createInitialUser(services, options.initialUser);
      const server = new Server(
        services,
        listener,
        new Dispatcher(services, registry),
        compressors,
        tls,
        maxConnections,
        deadlines,
      );
      server.socketLock = socketLock;
      server.socketPath = listener === undefined ? undefined : socketPath;
      if (options.metrics !== undefined)
        server.metricsEndpoint = await MetricsEndpoint.start(services, options.metrics);
      listener?.off('connection', holdEarly);
      listener?.on('connection', (socket) => server.accept(socket));
      // One already gone would never emit 'close' again: it would count as a client forever.
      for (const socket of early.splice(0)) if (!socket.destroyed) server.accept(socket);
      server.reaper = setInterval(
        () => server.reap(),
        options.reaperIntervalMs ?? limits.cursorReaperIntervalMs,
      );
      server.ttl = createTtlMonitor(services);
      server.ttl.start();
      await services.indexBuilds.restartUnfinished();
      server.reaper.unref();
      for (const w of startupWarnings(config)) {
        services.startupWarnings.push(logger.startupWarning('CONTROL', w.id, w.msg, w.attr));
      }
      server.idle = options.idle;
      server.clientsChanged();
      logger.info('NETWORK', 23016, 'Waiting for connections', {
        port,
        ...(socketPath === undefined ? { bindIp } : { socketPath }),
        storageEngine,
        replSet,
        ssl: tls === undefined ? 'off' : 'on',
      });
      return server;
    } catch (e) {
      for (const socket of early) socket.destroy();
      listener?.close();
      await rawEngine.close();
      socketLock?.release();
      throw e;
    }
  }

  /** Clients connected now: sockets (pending ones too) and in-process connections. */
  get clientCount(): number {
    return this.connections.size + this.pendingSockets.size + this.inProcess.size;
  }

  /** Start or cancel the idle countdown (ServerOptions.idle) as the client count moves. */
  private clientsChanged(): void {
    const idle = this.idle;
    if (idle === undefined || this.stopping !== undefined) return;
    if (this.clientCount > 0) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      return;
    }
    if (this.idleTimer !== undefined) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.stopping !== undefined || this.clientCount > 0) return;
      this.services.logger.info('CONTROL', 8100002, 'No client for the idle period', {
        idleShutdownSecs: idle.ms / 1000,
      });
      idle.onIdle();
    }, idle.ms);
    this.idleTimer.unref();
  }

  private accept(socket: net.Socket): void {
    if (this.stopping !== undefined) {
      socket.destroy();
      return;
    }
    // Sockets still being told TLS from plain count too.
    if (this.connections.size + this.pendingSockets.size >= this.maxConnections) {
      // mongod accepts, logs and closes: the client sees the connection end before any reply.
      this.services.connections.rejected++;
      this.services.logger.info(
        'NETWORK',
        22942,
        'Connection refused because there are too many open connections',
        {
          remote: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`,
          connectionCount: this.connections.size + this.pendingSockets.size,
        },
      );
      socket.on('error', () => undefined);
      socket.destroy();
      return;
    }
    this.pendingSockets.add(socket);
    this.clientsChanged();
    // A client that never sends the first bytes (TLS or plain is told from them) is held to
    // the first-message deadline too; the connection then times the rest of its message.
    const wait = setTimeout(() => {
      this.services.logger.warn(
        'NETWORK',
        22989,
        'Error receiving request from client. Ending connection',
        {
          remote: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`,
          error: `no message received from the client within ${this.deadlines.firstMessageMs} ms`,
        },
      );
      socket.destroy();
    }, this.deadlines.firstMessageMs);
    wait.unref();
    socket.once('close', () => {
      clearTimeout(wait);
      if (this.pendingSockets.delete(socket)) this.clientsChanged();
    });
    socket.on('error', () => socket.destroy());
    readFirstBytes(socket, firstBytesNeeded, (first) => {
      clearTimeout(wait);
      this.route(socket, first);
    });
  }

  /** Plain, TLS or refused, from the first bytes (mongod's maybeHandshakeSSLForIngress). */
  private route(socket: net.Socket, first: Buffer): void {
    if (this.stopping !== undefined || socket.destroyed) {
      socket.destroy();
      return;
    }
    const { logger } = this.services;
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`;
    const verdict = classifyFirstBytes(first, this.tls?.mode ?? 'disabled');
    if (verdict === 'http') {
      socket.end(httpReply);
      return;
    }
    if (typeof verdict === 'object') {
      logger.info(
        'NETWORK',
        22988,
        'Error receiving request from client. Ending connection from remote',
        {
          error: { code: 'SSLHandshakeFailed', errmsg: verdict.refuse },
          remote,
        },
      );
      socket.destroy();
      return;
    }
    if (verdict === 'plain') {
      if (this.tls?.mode === 'preferTLS') {
        logger.info(
          'NETWORK',
          23838,
          "SSL mode is set to 'preferred' and connection to remote is not using SSL.",
          {
            remote,
          },
        );
      }
      socket.unshift(first);
      this.open(socket, { compressors: this.compressors, tls: undefined });
      return;
    }
    const tls = this.tls;
    if (tls === undefined) {
      socket.destroy();
      return;
    }
    tls.handshake(socket, first, logger, (secure, peer) => {
      if (this.stopping !== undefined) {
        secure.destroy();
        return;
      }
      this.open(secure, { compressors: this.compressors, tls: peer, raw: socket });
    });
  }

  private open(socket: net.Socket, transport: ConnectionTransport): void {
    this.pendingSockets.delete(transport.raw ?? socket);
    const id = this.nextConnectionId++;
    const { logger, metrics } = this.services;
    // mongod's connection lines carry a UUID per connection.
    const uuid = { uuid: { $uuid: randomUUID() } };
    const conn = new Connection(
      socket,
      id,
      this.dispatcher,
      logger,
      (c) => {
        this.connections.delete(c);
        this.services.operations.clientClosed(c.state);
        this.services.connections.current = this.connections.size;
        this.clientsChanged();
        if (!logger.settings.quiet)
          logger.child(`conn${id}`).info('NETWORK', 22944, 'Connection ended', {
            remote: c.state.remote,
            uuid,
            connectionId: id,
            connectionCount: this.connections.size,
          });
      },
      transport,
      this.deadlines,
      metrics.network,
    );
    this.connections.add(conn);
    this.services.operations.clientOpened(conn.state);
    this.services.connections.current = this.connections.size;
    this.services.connections.totalCreated++;
    this.clientsChanged();
    if (!logger.settings.quiet)
      logger.child('listener').info('NETWORK', 22943, 'Connection accepted', {
        remote: conn.state.remote,
        uuid,
        connectionId: id,
        connectionCount: this.connections.size,
        ...(transport.tls === undefined ? {} : { tls: true }),
      });
    socket.resume();
  }

  /**
   * A client connection in this process (secantusdb/embedded): encoded command bodies in,
   * encoded replies out, through the same dispatcher as a socket's. Closed by stop().
   */
  openInProcess(): InProcessConnection {
    if (this.stopping !== undefined) throw new Error('openInProcess(): the server is stopped');
    const id = this.nextConnectionId++;
    const conn = new InProcessConnection(
      id,
      this.dispatcher,
      this.services.logger.child(`conn${id}`),
      (c) => {
        this.inProcess.delete(c);
        this.services.operations.clientClosed(c.state);
        this.clientsChanged();
      },
    );
    this.inProcess.add(conn);
    this.services.operations.clientOpened(conn.state);
    this.clientsChanged();
    return conn;
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
    logger.info('CONTROL', 20562, 'Shutdown: going to close listening sockets');
    if (this.reaper !== undefined) clearInterval(this.reaper);
    clearTimeout(this.idleTimer);
    this.services.fsyncLock.releaseAll();
    const listener = this.listener;
    const closed =
      listener === undefined
        ? Promise.resolve()
        : new Promise<void>((resolve) => listener.close(() => resolve()));
    for (const s of this.pendingSockets) s.destroy();
    this.pendingSockets.clear();
    await this.metricsEndpoint?.close();
    // Awaitable hellos answer now (the topology changes as the server goes away).
    this.services.topology.shutdown();
    // Builds stop at their next slice and stay registered, to start again at the next start.
    const builds = this.services.indexBuilds.shutdown();
    // In-flight requests finish and reply (bounded), then every connection closes.
    await Promise.all(
      [...this.connections, ...this.inProcess].map((c) =>
        c.finishAndClose(limits.shutdownRequestWaitMs),
      ),
    );
    await closed;
    await builds;
    this.services.sessions.endAll();
    this.services.cursors.closeAll();
    this.services.spill.close();
    this.services.snapshots.releaseAll();
    await this.ttl?.stop();
    // Queued oplog entries are written before storage closes (--oplog-async).
    await this.services.oplog?.store.close();
    logger.info('STORAGE', 4784930, 'Shutting down the storage engine');
    await closeEngine(engine.inner);
    // The socket's lock goes last: a next daemon that takes it finds the data directory free.
    if (this.socketPath !== undefined) rmSync(this.socketPath, { force: true });
    this.socketLock?.release();
    logger.info('CONTROL', 20565, 'Now exiting');
  }
}

async function closeEngine(engine: StorageEngine): Promise<void> {
  await engine.flush();
  await engine.close();
}

/**
 * Collect a new socket's first `n` bytes (fewer if it ends first), then pause it and hand them
 * over; the caller pushes them back (unshift) for whoever reads the socket next.
 */
function readFirstBytes(socket: net.Socket, n: number, done: (first: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let got = 0;
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    socket.off('data', onData);
    socket.off('end', finish);
    socket.pause();
    done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, got));
  };
  const onData = (d: Buffer): void => {
    chunks.push(d);
    got += d.length;
    if (got >= n) finish();
  };
  socket.on('data', onData);
  socket.once('end', finish);
}

/**
 * Listen on a Unix domain socket. The caller holds the socket's lock, so a file at the path
 * is the leftover of a daemon that was killed: it is removed first. Only the owner may use
 * the socket (mode 0600). Resolves with port 0.
 */
function listenOnPath(server: net.Server, path: string): Promise<number> {
  rmSync(path, { force: true });
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once('error', onError);
    server.listen({ path, exclusive: true }, () => {
      server.off('error', onError);
      try {
        chmodSync(path, 0o600);
      } catch (e) {
        reject(e as Error);
        return;
      }
      resolve(0);
    });
  });
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
