// A drop-in for mongodb-memory-server (MMS): `MongoMemoryServer` and `MongoMemoryReplSet` with
// the API, options, states, events and errors MMS users call, backed by an in-process
// SecantusServer instead of a downloaded mongod. Replacing `from 'mongodb-memory-server'`
// with `from 'secantusdb/memory-server'` is meant to be the whole migration.
//
// Where the semantics differ, on purpose (docs/testing.md has the table):
// - no binary: `binary` and `spawn` are accepted and ignored (one log line per process);
// - `MongoMemoryServer` is a standalone, as MMS's mongod is (no transactions, no change
//   streams); `MongoMemoryReplSet` is a replica set of one member whatever `count` says — one
//   server serves all, `servers` has one entry and the URI names one host;
// - storage: in memory unless a `dbPath` is given (then lmdb in that folder, kept across
//   stop()/start() as MMS keeps a dbPath). Without a dbPath, `stop({ doCleanup: false })`
//   keeps the data for the next start() as MMS's temporary folder would (a snapshot, O(1));
//   `storageEngine: 'ephemeralForTest'` forgets it at stop(), as mongod's did;
// - `auth` (automatic users): access control on, the root user and `extraUsers` created;
//   getUri() carries no credentials, as MMS's.

import { EventEmitter } from 'node:events';
import { rm, stat } from 'node:fs/promises';
import { Logger, silentLogger, streamSink } from '../log.js';
import type { ResetResult, ServerSnapshot } from '../server/fixtures.js';
import { SecantusServer } from './secantus-server.js';
import type { SecantusServerOptions } from './secantus-server.js';

// ---- options, as MMS names them ----

/** MMS's storage engine names; ours map onto them (see instanceInfo.storageEngine). */
export type StorageEngine = 'ephemeralForTest' | 'wiredTiger';

/** MMS's per-member replica-set settings: accepted; one member serves all. */
export type ReplicaMemberConfig = Record<string, unknown>;

export interface MongoMemoryInstanceOptsBase {
  /**
   * mongod arguments. Understood: --port, --bind_ip, --bind_ip_all, --dbpath,
   * --storageEngine, --replSet. Others are ignored with a log line.
   */
  args?: string[];
  /** Port to try; if taken, a free one is used unless portGeneration is false. */
  port?: number;
  /** Data directory: lmdb there, kept across stop()/start(). Default: in memory. */
  dbPath?: string;
  storageEngine?: StorageEngine;
  /** Accepted, without effect: one member serves all. */
  replicaMemberConfig?: ReplicaMemberConfig;
  /** Accepted, without effect: starting takes milliseconds. */
  launchTimeout?: number;
}

export interface MongoMemoryInstanceOpts extends MongoMemoryInstanceOptsBase {
  /** Ignored, as MMS ignores it here (automatic auth is `opts.auth`). */
  auth?: boolean;
  /** Kept in instanceInfo for helpers (jest-mongodb's __MONGO_DB_NAME__); getUri() ignores it, as MMS's. */
  dbName?: string;
  /** Listen address, default 127.0.0.1. `::,0.0.0.0` (MMS's "all") binds every address. */
  ip?: string;
  /** Run as a replica set of this name (MMS: adds --replSet). */
  replSet?: string;
  /** Accepted, without effect (no keyfile without auth). */
  keyfileLocation?: string;
}

export interface MemoryServerInstanceOpts extends Omit<MongoMemoryInstanceOpts, 'auth'> {
  /** Whether a taken `port` may be replaced by a free one. Default true. */
  portGeneration?: boolean;
}

/** MMS's binary options (version, downloadDir, ...): accepted and ignored. */
export type MongoBinaryOpts = Record<string, unknown>;

export interface CreateUser {
  createUser: string;
  pwd: string;
  roles: unknown;
  database?: string;
  customData?: Record<string, unknown>;
  mechanisms?: ('SCRAM-SHA-1' | 'SCRAM-SHA-256')[];
  authenticationRestrictions?: { clientSource?: string; serverAddress?: string }[];
  digestPassword?: boolean;
}

export interface AutomaticAuth {
  /** Access control on (MMS 9); an `auth` object without it is on unless `disable`. */
  enable?: boolean;
  /** MMS 8's spelling: access control off even though `auth` is given. */
  disable?: boolean;
  extraUsers?: CreateUser[];
  customRootName?: string;
  customRootPwd?: string;
  force?: boolean;
  keyfileContent?: string;
}

export interface Cleanup {
  /** Remove what stop() leaves (the kept data; with `force`, a given dbPath). Default true. */
  doCleanup?: boolean;
  /** Also remove a dbPath you gave. Default false. */
  force?: boolean;
}

export interface DisposeOptions {
  /** Whether `await using` stops the server. Default true. */
  enabled?: boolean;
  /** Cleanup options for that stop. Default { doCleanup: true, force: false }. */
  cleanup?: Cleanup;
}

export interface MongoMemoryServerOpts {
  instance?: MemoryServerInstanceOpts;
  binary?: MongoBinaryOpts;
  spawn?: Record<string, unknown>;
  auth?: AutomaticAuth;
  dispose?: DisposeOptions;
}

// ---- states, events, errors ----

export const MongoMemoryServerStates = {
  new: 'new',
  starting: 'starting',
  running: 'running',
  stopped: 'stopped',
} as const;
export type MongoMemoryServerStates =
  (typeof MongoMemoryServerStates)[keyof typeof MongoMemoryServerStates];

export const MongoMemoryServerEvents = { stateChange: 'stateChange' } as const;
export type MongoMemoryServerEvents =
  (typeof MongoMemoryServerEvents)[keyof typeof MongoMemoryServerEvents];

export const MongoMemoryReplSetStates = {
  init: 'init',
  running: 'running',
  stopped: 'stopped',
} as const;
export type MongoMemoryReplSetStates =
  (typeof MongoMemoryReplSetStates)[keyof typeof MongoMemoryReplSetStates];

export const MongoMemoryReplSetEvents = { stateChange: 'stateChange' } as const;
export type MongoMemoryReplSetEvents =
  (typeof MongoMemoryReplSetEvents)[keyof typeof MongoMemoryReplSetEvents];

/** An operation called in a state that does not allow it (MMS's StateError, same message). */
export class StateError extends Error {
  constructor(
    readonly wantedStates: string[],
    readonly gotState: string,
  ) {
    super(
      `Incorrect State for operation: "${gotState}", allowed States: "[${wantedStates.join(',')}]"`,
    );
    this.name = 'StateError';
  }
}

export class InstanceInfoError extends Error {
  constructor(readonly where: string) {
    super(`"instanceInfo" was undefined when expected to be defined! (where: "${where}")`);
    this.name = 'InstanceInfoError';
  }
}

export class ReplsetCountLowError extends Error {
  constructor(readonly count: number) {
    super(`ReplSet Count needs to be 1 or higher! (specified count: "${count}")`);
    this.name = 'ReplsetCountLowError';
  }
}

/** What MMS would do, but SecantusDB cannot yet. */
export class NotSupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotSupportedError';
  }
}

/** MMS exports its error classes as `errors`. */
export const errors = { StateError, InstanceInfoError, ReplsetCountLowError, NotSupportedError };

// ---- logging: quiet unless MMS's own debug switches are on; ignored options once ----

function debugEnabled(): boolean {
  const env = process.env;
  return (
    ['1', 'on', 'true', 'yes'].includes((env['MONGOMS_DEBUG'] ?? '').toLowerCase()) ||
    /MongoMS/i.test(env['DEBUG'] ?? '')
  );
}

const stderrLogger = new Logger(streamSink(process.stderr));
const reported = new Set<string>();

/** One line per process for each ignored option. */
function reportIgnored(option: string, attr: Record<string, unknown>): void {
  if (reported.has(option)) return;
  reported.add(option);
  stderrLogger.info(
    'CONTROL',
    7_316_001,
    `secantusdb/memory-server: option ${option} ignored (no mongod binary is used)`,
    attr,
  );
}

// ---- the server ----

/** Information about the running instance, as MMS's `instanceInfo`. */
export interface MongoInstanceData {
  port: number;
  /** The data directory: undefined in memory (MMS would have a temporary folder here). */
  dbPath: string | undefined;
  dbName: string;
  ip: string;
  /** 'ephemeralForTest' when in memory, 'wiredTiger' on disk (lmdb), in MMS's terms. */
  storageEngine: StorageEngine;
  replSet?: string;
  /** Never set: nothing is written to a temporary folder. */
  tmpDir?: string;
  /** The SecantusServer itself (MMS: its MongoInstance). */
  instance: SecantusServer;
}

interface ResolvedInstance {
  readonly port: number | undefined;
  readonly ip: string;
  readonly dbPath: string | undefined;
  readonly storageEngine: StorageEngine | undefined;
  readonly replSet: string;
}

/** The mongod arguments that mean something here; the rest is reported and ignored. */
function parseArgs(args: readonly string[]): Partial<ResolvedInstance> {
  const out: { -readonly [K in keyof ResolvedInstance]?: ResolvedInstance[K] } = {};
  const ignored: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = (): string => (eq === -1 ? (args[++i] ?? '') : arg.slice(eq + 1));
    switch (name) {
      case '--port':
        out.port = Number(value());
        break;
      case '--bind_ip':
        out.ip = value();
        break;
      case '--bind_ip_all':
        out.ip = '0.0.0.0';
        break;
      case '--dbpath':
        out.dbPath = value();
        break;
      case '--storageEngine':
        out.storageEngine = value() === 'ephemeralForTest' ? 'ephemeralForTest' : 'wiredTiger';
        break;
      case '--replSet':
        out.replSet = value();
        break;
      default:
        ignored.push(arg);
    }
  }
  if (ignored.length > 0) reportIgnored('instance.args', { ignored });
  return out;
}

/** MMS's ip may list several addresses; we listen on one. */
function bindAddress(ip: string): string {
  const all = ip.split(',').map((s) => s.trim());
  if (all.includes('0.0.0.0')) return '0.0.0.0';
  if (all.includes('::')) return '::';
  return all[0] || '127.0.0.1';
}

function isAddressInUse(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'EADDRINUSE';
}

/**
 * The users MMS's automatic auth creates: root first, then `extraUsers`.
 */
export function automaticAuthUsers(
  auth: AutomaticAuth,
): { user: string; pwd: string; db: string; roles: unknown }[] {
  return [
    {
      user: auth.customRootName ?? 'mongodb-memory-server-root',
      pwd: auth.customRootPwd ?? 'rootuser',
      db: 'admin',
      roles: ['root'],
    },
    ...(auth.extraUsers ?? []).map((u) => ({
      user: u.createUser,
      pwd: u.pwd,
      db: u.database ?? 'admin',
      roles: u.roles,
    })),
  ];
}

/** MMS's rule: an `auth` object turns access control on, unless `disable` or `enable: false`. */
function authEnabled(auth: AutomaticAuth | undefined): auth is AutomaticAuth {
  if (auth === undefined) return false;
  if (auth.disable === true) return false;
  return auth.enable ?? true;
}

/**
 * MMS's automatic auth: the root user exists before the server is handed over (the server
 * creates it), then the extra users, created by root. Users already there (a kept dbPath)
 * are left as they are.
 */
async function createExtraUsers(server: SecantusServer, auth: AutomaticAuth): Promise<void> {
  const extra = automaticAuthUsers(auth).slice(1);
  if (extra.length === 0) return;
  const { MongoClient, MongoServerError } = await import('mongodb');
  const client = new MongoClient(server.uri, { directConnection: true });
  try {
    for (const [i, u] of extra.entries()) {
      const spec = auth.extraUsers?.[i];
      try {
        await client.db(u.db).command({
          createUser: u.user,
          pwd: u.pwd,
          roles: u.roles,
          ...(spec?.customData === undefined ? {} : { customData: spec.customData }),
          ...(spec?.mechanisms === undefined ? {} : { mechanisms: spec.mechanisms }),
          ...(spec?.authenticationRestrictions === undefined
            ? {}
            : { authenticationRestrictions: spec.authenticationRestrictions }),
          ...(spec?.digestPassword === undefined ? {} : { digestPassword: spec.digestPassword }),
        });
      } catch (e) {
        // 51003 UserAlreadyExists: a kept data directory already has the user.
        if (!(e instanceof MongoServerError && e.code === 51003)) throw e;
      }
    }
  } finally {
    await client.close();
  }
}

export class MongoMemoryServer extends EventEmitter implements AsyncDisposable {
  /** The options, as given (MMS keeps them as `opts`). */
  opts: MongoMemoryServerOpts;
  protected _state: MongoMemoryServerStates = MongoMemoryServerStates.new;
  protected _instanceInfo: MongoInstanceData | undefined;
  /** Data kept by stop({ doCleanup: false }) of an in-memory server, for the next start(). */
  private kept: ServerSnapshot | undefined;

  constructor(opts?: MongoMemoryServerOpts) {
    super();
    this.opts = { ...opts };
    if (opts?.binary !== undefined && Object.keys(opts.binary).length > 0)
      reportIgnored('binary', { binary: opts.binary });
    if (opts?.spawn !== undefined && Object.keys(opts.spawn).length > 0) reportIgnored('spawn', {});
  }

  /** A new server, started. */
  static async create(opts?: MongoMemoryServerOpts): Promise<MongoMemoryServer> {
    const server = new MongoMemoryServer({ ...opts });
    await server.start();
    return server;
  }

  get state(): MongoMemoryServerStates {
    return this._state;
  }

  get instanceInfo(): MongoInstanceData | undefined {
    return this._instanceInfo;
  }

  /** The running SecantusServer (reset, snapshot, restore), or undefined. */
  get server(): SecantusServer | undefined {
    return this._state === MongoMemoryServerStates.running
      ? this._instanceInfo?.instance
      : undefined;
  }

  protected stateChange(state: MongoMemoryServerStates): void {
    this._state = state;
    this.emit(MongoMemoryServerEvents.stateChange, state);
  }

  /**
   * Start the server. `forceSamePort`: use instance.port or fail (default: a taken port is
   * replaced by a free one). After stop() without cleanup, the same port is tried again.
   * @throws StateError unless the state is "new" or "stopped"
   */
  async start(forceSamePort?: boolean): Promise<void> {
    if (this._state !== 'new' && this._state !== 'stopped')
      throw new StateError(['new', 'stopped'], this._state);
    this.stateChange(MongoMemoryServerStates.starting);
    try {
      await this.startInstance(forceSamePort);
    } catch (e) {
      this.stateChange(MongoMemoryServerStates.stopped);
      throw e;
    }
    this.stateChange(MongoMemoryServerStates.running);
  }

  private resolveInstance(): ResolvedInstance {
    const inst = this.opts.instance ?? {};
    const fromArgs = parseArgs(inst.args ?? []);
    return {
      port: fromArgs.port ?? inst.port,
      ip: fromArgs.ip ?? inst.ip ?? '127.0.0.1',
      dbPath: fromArgs.dbPath ?? inst.dbPath,
      storageEngine: fromArgs.storageEngine ?? inst.storageEngine,
      replSet: fromArgs.replSet ?? inst.replSet ?? '',
    };
  }

  private async startInstance(forceSamePort: boolean | undefined): Promise<void> {
    const resolved = this.resolveInstance();
    const previous = this._instanceInfo;
    const onDisk = resolved.dbPath !== undefined && resolved.storageEngine !== 'ephemeralForTest';
    const options: SecantusServerOptions = {
      bindIp: bindAddress(resolved.ip),
      replSet: resolved.replSet,
      storageEngine: onDisk ? 'lmdb' : 'memory',
      ...(onDisk ? { dbPath: resolved.dbPath } : {}),
      ...(debugEnabled() ? { logger: stderrLogger } : { logger: silentLogger }),
      ...(authEnabled(this.opts.auth)
        ? {
            auth: {
              username: this.opts.auth.customRootName ?? 'mongodb-memory-server-root',
              password: this.opts.auth.customRootPwd ?? 'rootuser',
            },
          }
        : {}),
    };
    const samePort = forceSamePort ?? !(this.opts.instance?.portGeneration ?? true);
    const wanted = previous?.port ?? resolved.port;
    let server: SecantusServer;
    try {
      server = await SecantusServer.start({ ...options, port: wanted ?? 0 });
    } catch (e) {
      if (!isAddressInUse(e) || samePort || wanted === undefined) throw e;
      server = await SecantusServer.start({ ...options, port: 0 });
    }
    if (authEnabled(this.opts.auth)) await createExtraUsers(server, this.opts.auth);
    if (this.kept !== undefined) {
      await server.restore(this.kept);
      this.kept = undefined;
    }
    this._instanceInfo = {
      port: server.port,
      dbPath: onDisk ? resolved.dbPath : undefined,
      dbName: this.opts.instance?.dbName ?? '',
      ip: resolved.ip,
      storageEngine: onDisk ? 'wiredTiger' : 'ephemeralForTest',
      ...(resolved.replSet === '' ? {} : { replSet: resolved.replSet }),
      instance: server,
    };
  }

  /**
   * Stop the server: every connection is closed when this resolves. Returns false when it
   * never ran. Then, with `doCleanup` (the default), cleanup(): the state becomes "new".
   */
  async stop(cleanupOptions?: Cleanup): Promise<boolean> {
    const cleanup: Cleanup =
      typeof cleanupOptions === 'object' ? cleanupOptions : { doCleanup: true, force: false };
    const info = this._instanceInfo;
    if (info === undefined) return false;
    if (this._state === MongoMemoryServerStates.running) {
      // An in-memory server keeps its data for a restart, as MMS's temporary dbPath does.
      const keep =
        cleanup.doCleanup === false &&
        info.dbPath === undefined &&
        this.resolveInstance().storageEngine !== 'ephemeralForTest';
      if (keep) this.kept = await info.instance.snapshot();
    }
    await info.instance.stop();
    this.stateChange(MongoMemoryServerStates.stopped);
    if (cleanup.doCleanup !== false) await this.cleanup(cleanup);
    return true;
  }

  /**
   * Forget what stop() kept: the in-memory data, and with `force` a dbPath you gave (removed).
   * The state becomes "new".
   * @throws StateError unless the state is "stopped"
   */
  async cleanup(options?: Cleanup): Promise<void> {
    if (this._state !== MongoMemoryServerStates.stopped)
      throw new StateError([MongoMemoryServerStates.stopped], this._state);
    const cleanup: Cleanup = typeof options === 'object' ? options : { doCleanup: true };
    if (cleanup.doCleanup === false) return;
    const info = this._instanceInfo;
    if (info === undefined) return;
    this.kept = undefined;
    if (cleanup.force === true && info.dbPath !== undefined) {
      const st = await stat(info.dbPath).catch(() => undefined);
      if (st !== undefined) {
        if (!st.isDirectory()) throw new Error('Defined dbPath is not a directory');
        await rm(info.dbPath, { recursive: true, force: true });
      }
    }
    this.stateChange(MongoMemoryServerStates.new);
    this._instanceInfo = undefined;
  }

  /** Start the server unless it runs (or wait for the start in progress); its instanceInfo. */
  async ensureInstance(): Promise<MongoInstanceData> {
    switch (this._state) {
      case MongoMemoryServerStates.running:
        if (this._instanceInfo !== undefined) return this._instanceInfo;
        throw new InstanceInfoError('MongoMemoryServer.ensureInstance (state: running)');
      case MongoMemoryServerStates.starting:
        return new Promise((resolve, reject) =>
          this.once(MongoMemoryServerEvents.stateChange, (state: MongoMemoryServerStates) => {
            if (state === MongoMemoryServerStates.running && this._instanceInfo !== undefined)
              resolve(this._instanceInfo);
            else
              reject(
                new Error(
                  `"ensureInstance" waited for "running" but got a different state: "${state}"`,
                ),
              );
          }),
        );
      default:
        await this.start();
        if (this._instanceInfo === undefined)
          throw new InstanceInfoError('MongoMemoryServer.ensureInstance (after starting)');
        return this._instanceInfo;
    }
  }

  /**
   * A connection string, MMS's way: `mongodb://127.0.0.1:PORT/` plus `otherDb` (as given,
   * query string included), with `otherIp` as the host if given. Names no replica set, as
   * MMS's does not.
   * @throws StateError unless the state is "running" or "starting"
   */
  getUri(otherDb?: string, otherIp?: string): string {
    if (this._state !== 'running' && this._state !== 'starting')
      throw new StateError(['running', 'starting'], this._state);
    const info = this._instanceInfo;
    if (info === undefined) throw new InstanceInfoError('MongoMemoryServer.getUri');
    return `mongodb://${otherIp || '127.0.0.1'}:${info.port}/${otherDb ?? ''}`;
  }

  /** Drop every user database (SecantusServer.reset). */
  async reset(): Promise<ResetResult> {
    return this.running().reset();
  }

  /** Capture the user data (SecantusServer.snapshot). */
  async snapshot(): Promise<ServerSnapshot> {
    return this.running().snapshot();
  }

  /** Return the user data to a snapshot (SecantusServer.restore). */
  async restore(snapshot: ServerSnapshot): Promise<ResetResult> {
    return this.running().restore(snapshot);
  }

  private running(): SecantusServer {
    const server = this.server;
    if (server === undefined) throw new StateError([MongoMemoryServerStates.running], this._state);
    return server;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.opts.dispose?.enabled ?? true) await this.stop(this.opts.dispose?.cleanup);
  }
}

// ---- the replica set ----

export interface MongoMemoryReplSetConfigSettings {
  chainingAllowed?: boolean;
  heartbeatTimeoutSecs?: number;
  heartbeatIntervalMillis?: number;
  electionTimeoutMillis?: number;
  catchUpTimeoutMillis?: number;
}

export interface ReplSetOpts {
  auth?: AutomaticAuth;
  args?: string[];
  /** Members MMS would start; one member serves all here. Default 1. */
  count?: number;
  /** Kept in the options; getUri() ignores it, as MMS's. */
  dbName?: string;
  ip?: string;
  /** Replica set name. Default 'testset'. */
  name?: string;
  spawn?: Record<string, unknown>;
  storageEngine?: StorageEngine;
  /** Accepted, without effect: there are no elections. */
  configSettings?: MongoMemoryReplSetConfigSettings;
  dispose?: DisposeOptions;
}

export interface MongoMemoryReplSetOpts {
  /** Options of the members; the first one's (port, dbPath, storageEngine, args) apply. */
  instanceOpts: MongoMemoryInstanceOptsBase[];
  binary: MongoBinaryOpts;
  replSet: ReplSetOpts;
}

type ReplSetDefaults = Required<Omit<ReplSetOpts, 'auth' | 'storageEngine'>> &
  Pick<ReplSetOpts, 'auth' | 'storageEngine'>;

export class MongoMemoryReplSet extends EventEmitter implements AsyncDisposable {
  /** The members: one, whatever `count` asks for (it serves as primary for all). */
  servers: MongoMemoryServer[] = [];
  protected _state: MongoMemoryReplSetStates = MongoMemoryReplSetStates.stopped;
  protected _instanceOpts: MongoMemoryInstanceOptsBase[] = [];
  protected _binaryOpts: MongoBinaryOpts = {};
  protected _replSetOpts: ReplSetDefaults = MongoMemoryReplSet.withDefaults({});

  constructor(opts: Partial<MongoMemoryReplSetOpts> = {}) {
    super();
    this.binaryOpts = { ...opts.binary };
    this.instanceOpts = opts.instanceOpts ?? [];
    this.replSetOpts = { ...opts.replSet };
  }

  /** A new replica set, started. */
  static async create(opts?: Partial<MongoMemoryReplSetOpts>): Promise<MongoMemoryReplSet> {
    const rs = new MongoMemoryReplSet({ ...opts });
    await rs.start();
    return rs;
  }

  private static withDefaults(val: ReplSetOpts): ReplSetDefaults {
    return {
      args: [],
      name: 'testset',
      count: 1,
      dbName: '',
      ip: '127.0.0.1',
      spawn: {},
      configSettings: {},
      dispose: {},
      ...val,
    };
  }

  get state(): MongoMemoryReplSetStates {
    return this._state;
  }

  get instanceOpts(): MongoMemoryInstanceOptsBase[] {
    return this._instanceOpts;
  }
  set instanceOpts(val: MongoMemoryInstanceOptsBase[]) {
    this.assertStopped();
    this._instanceOpts = val;
  }

  get binaryOpts(): MongoBinaryOpts {
    return this._binaryOpts;
  }
  set binaryOpts(val: MongoBinaryOpts) {
    this.assertStopped();
    this._binaryOpts = val;
  }

  /** The replica-set options with their defaults applied. */
  get replSetOpts(): ReplSetOpts {
    return this._replSetOpts;
  }
  set replSetOpts(val: ReplSetOpts) {
    this.assertStopped();
    const opts = MongoMemoryReplSet.withDefaults(val);
    if (!(opts.count > 0)) throw new ReplsetCountLowError(opts.count);
    this._replSetOpts = opts;
  }

  /** The running SecantusServer (reset, snapshot, restore), or undefined. */
  get server(): SecantusServer | undefined {
    return this.servers[0]?.server;
  }

  private assertStopped(): void {
    if (this._state !== MongoMemoryReplSetStates.stopped)
      throw new StateError([MongoMemoryReplSetStates.stopped], this._state);
  }

  protected stateChange(state: MongoMemoryReplSetStates, ...args: unknown[]): void {
    this._state = state;
    this.emit(MongoMemoryReplSetEvents.stateChange, state, ...args);
  }

  /**
   * Start the replica set: its one member is primary as soon as it listens.
   * @throws StateError unless the state is "stopped"
   */
  async start(): Promise<void> {
    if (this._state !== MongoMemoryReplSetStates.stopped)
      throw new StateError([MongoMemoryReplSetStates.stopped], this._state);
    this.stateChange(MongoMemoryReplSetStates.init);
    try {
      const existing = this.servers[0];
      if (existing !== undefined) {
        await existing.start(true);
      } else {
        const member = new MongoMemoryServer({
          binary: this._binaryOpts,
          instance: this.memberOptions(),
          spawn: this._replSetOpts.spawn,
          ...(this._replSetOpts.auth === undefined ? {} : { auth: this._replSetOpts.auth }),
        });
        this.servers = [member];
        await member.start();
      }
    } catch (e) {
      this.stateChange(MongoMemoryReplSetStates.stopped);
      throw e;
    }
    this.stateChange(MongoMemoryReplSetStates.running);
  }

  private memberOptions(): MemoryServerInstanceOpts {
    const first: MongoMemoryInstanceOptsBase = this._instanceOpts[0] ?? {};
    const rs = this._replSetOpts;
    const storageEngine = first.storageEngine ?? rs.storageEngine;
    return {
      args: [...rs.args, ...(first.args ?? [])],
      dbName: rs.dbName,
      ip: rs.ip,
      replSet: rs.name,
      ...(first.port === undefined ? {} : { port: first.port }),
      ...(first.dbPath === undefined ? {} : { dbPath: first.dbPath }),
      ...(storageEngine === undefined ? {} : { storageEngine }),
    };
  }

  /** Resolves once the replica set runs. @throws StateError when "stopped" */
  async waitUntilRunning(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    if (this._state === MongoMemoryReplSetStates.running) return;
    if (this._state === MongoMemoryReplSetStates.stopped)
      throw new StateError(['running', 'init'], this._state);
    await new Promise<void>((resolve) => {
      const wait = (state: MongoMemoryReplSetStates): void => {
        if (state !== MongoMemoryReplSetStates.running) return;
        this.off(MongoMemoryReplSetEvents.stateChange, wait);
        resolve();
      };
      this.on(MongoMemoryReplSetEvents.stateChange, wait);
    });
  }

  /**
   * `mongodb://127.0.0.1:PORT/<otherDb>?replicaSet=<name>`: one host, the replica set named.
   * @throws StateError unless the state is "running" or "init"
   */
  getUri(otherDb?: string, otherIp?: string): string {
    if (this._state !== 'running' && this._state !== 'init')
      throw new StateError(['running', 'init'], this._state);
    const hosts = this.servers
      .map((s) => {
        const port = s.instanceInfo?.port;
        if (port === undefined) throw new Error('Instance Port is undefined!');
        return `${otherIp || '127.0.0.1'}:${port}`;
      })
      .join(',');
    return `mongodb://${hosts}/${otherDb ?? ''}?replicaSet=${this._replSetOpts.name}`;
  }

  /** Stop the member; with `doCleanup` (the default), cleanup() too. */
  async stop(cleanupOptions?: Cleanup): Promise<boolean> {
    const cleanup: Cleanup =
      typeof cleanupOptions === 'object' ? cleanupOptions : { doCleanup: true, force: false };
    let ok = true;
    try {
      await Promise.all(this.servers.map((s) => s.stop({ doCleanup: false, force: false })));
      this.stateChange(MongoMemoryReplSetStates.stopped);
    } catch (e) {
      this.stateChange(MongoMemoryReplSetStates.stopped, e);
      ok = false;
    }
    if (!ok) return false;
    if (cleanup.doCleanup !== false) await this.cleanup(cleanup);
    return true;
  }

  /** Forget the member and what it kept. @throws StateError unless "stopped" */
  async cleanup(options?: Cleanup): Promise<void> {
    this.assertStopped();
    const cleanup: Cleanup = typeof options === 'object' ? options : { doCleanup: true };
    if (cleanup.doCleanup === false) return;
    await Promise.all(this.servers.map((s) => s.cleanup(cleanup)));
    this.servers = [];
  }

  /** Drop every user database (SecantusServer.reset). */
  async reset(): Promise<ResetResult> {
    return this.member().reset();
  }

  /** Capture the user data (SecantusServer.snapshot). */
  async snapshot(): Promise<ServerSnapshot> {
    return this.member().snapshot();
  }

  /** Return the user data to a snapshot (SecantusServer.restore). */
  async restore(snapshot: ServerSnapshot): Promise<ResetResult> {
    return this.member().restore(snapshot);
  }

  private member(): MongoMemoryServer {
    const m = this.servers[0];
    if (m === undefined || this._state !== MongoMemoryReplSetStates.running)
      throw new StateError([MongoMemoryReplSetStates.running], this._state);
    return m;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this._replSetOpts.dispose.enabled ?? true)
      await this.stop(this._replSetOpts.dispose.cleanup);
  }
}

export default MongoMemoryServer;
