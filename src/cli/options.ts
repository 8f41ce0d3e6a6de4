// secantusd options from four sources, in order of precedence:
//   command-line flag > SECANTUS_* environment variable > config file (TOML) > default.
// Flags follow mongod's spelling (--port, --bind_ip, --dbpath, --replSet, --storageEngine,
// --config, --setParameter name=value) so that existing scripts keep working.

import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import { limits } from '../limits.js';
import {
  fromNetEnvironment,
  fromNetFlags,
  fromNetTable,
  netDefaults,
  netEnvUsage,
  netFlagSpecs,
  netUsage,
} from './net-options.js';
import type { NetOptions } from './net-options.js';
import { engineNames, type EngineName } from '../storage/engine.js';

export interface DaemonOptions extends NetOptions {
  port: number;
  bindIp: string;
  dbPath: string;
  replSet: string;
  storageEngine: EngineName;
  enableTestCommands: boolean;
  logPath: string | undefined;
  /** Append to an existing log file instead of moving it aside (mongod's --logappend). */
  logAppend: boolean;
  /** Global log verbosity, 0..5 (-v, -vv, ...; TOML `verbosity`). */
  verbosity: number;
  /** mongod's --quiet: no connection lines. */
  quiet: boolean;
  /** Profiling level of every database: 0 off, 1 slow operations, 2 all (--profile). */
  profile: number;
  /** Slow-operation threshold in milliseconds (--slowms). */
  slowMs: number;
  /** Fraction of slow operations logged and profiled (--slowOpSampleRate). */
  slowOpSampleRate: number;
  /** Port of the Prometheus endpoint; undefined: none (--metricsPort). */
  metricsPort: number | undefined;
  /** Address of the Prometheus endpoint (--metricsBindIp, default 127.0.0.1). */
  metricsBindIp: string;
  configFile: string | undefined;
  /** Oplog entries written off the writers' path by a background drainer (docs/architecture.md). */
  oplogAsync: boolean;
  /** The oplog in a second storage that commits without fsync (docs/architecture.md). */
  oplogNonlogged: boolean;
  /** Access control (--auth, security.authorization = "enabled"); implied by a keyFile. */
  auth: boolean;
  /** --keyFile: validated as mongod does; on one node it only turns access control on. */
  keyFile: string | undefined;
  /** A root user created at first start (env or config file only, never a flag). */
  initialRootUser: string | undefined;
  initialRootPassword: string | undefined;
  /** --maxConns, net.maxIncomingConnections: most client connections open at once. */
  maxIncomingConnections: number;
  /** Server-side JavaScript (security.javascriptEnabled); --noscripting turns it off. */
  javascriptEnabled: boolean;
  /** --unixSocket: listen on this Unix domain socket instead of TCP. */
  unixSocket: string | undefined;
  /** --idleShutdownSecs: exit cleanly once no client has been connected for this long. */
  idleShutdownSecs: number | undefined;
}

export const defaults: DaemonOptions = {
  port: 27017,
  bindIp: '127.0.0.1',
  dbPath: './data',
  replSet: 'rs0',
  storageEngine: 'lmdb',
  enableTestCommands: false,
  logPath: undefined,
  logAppend: false,
  verbosity: 0,
  quiet: false,
  profile: 0,
  slowMs: 100,
  slowOpSampleRate: 1,
  metricsPort: undefined,
  metricsBindIp: '127.0.0.1',
  configFile: undefined,
  oplogAsync: false,
  oplogNonlogged: false,
  auth: false,
  keyFile: undefined,
  initialRootUser: undefined,
  initialRootPassword: undefined,
  maxIncomingConnections: limits.connectionsMax,

  ...netDefaults,
  javascriptEnabled: true,
  unixSocket: undefined,
  idleShutdownSecs: undefined,
};

export class OptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionsError';
  }
}

export const usage = `Usage: secantusd [options]

  --port <n>                TCP port (default 27017)
  --bind_ip <addr>          address to listen on (default 127.0.0.1)
  --bind_ip_all             listen on all IPv4 addresses
  --dbpath <dir>            data directory (default ./data)
  --replSet <name>          replica set name (default rs0; '' runs a standalone)
  --storageEngine <name>    lmdb (default), sqlite, jsonfile or memory (docs/engines.md)
  --config <file>           TOML configuration file
  --setParameter <k=v>      server parameter (enableTestCommands=1)
  --logpath <file>          write logs to a file instead of stdout (an existing file is
                            renamed <file>.<time> first, unless --logappend)
  --logappend               append to an existing log file
  -v, --verbose             more verbose logs (-vv, -vvv... up to 5 levels of debug lines)
  --quiet                   no connection accepted / ended lines
  --profile <level>         profiling level of every database: 0 off, 1 slow ops, 2 all
  --slowms <ms>             slow-operation threshold for the log and the profiler (100)
  --slowOpSampleRate <x>    fraction of slow operations logged and profiled (1.0)
  --metricsPort <n>         serve Prometheus metrics on http://<metricsBindIp>:<n>/metrics
  --metricsBindIp <addr>    address of the metrics endpoint (default 127.0.0.1)
  --oplog-async             write oplog entries off the writers' path (a crash may lose
                            entries of acknowledged writes: change streams resuming from
                            before it fail with ChangeStreamHistoryLost)
  --oplog-nonlogged         keep the oplog in a storage committing without fsync (a machine
                            crash, not a process crash, may lose its newest entries)
  --auth                    access control: clients authenticate (SCRAM-SHA-256 / SHA-1)
                            and run only what their roles grant
  --keyFile <file>          a key file as mongod's (base64, 6-1024 chars, not readable by
                            group or others); implies --auth
  --maxConns <n>            most client connections open at once (default 10000); past
                            it a new connection is closed and logged
  --unixSocket <path>       listen on this Unix domain socket instead of a TCP port (its
                            owner holds <path>.lock; a stale socket file is replaced)
  --idleShutdownSecs <s>    exit cleanly (as on SIGTERM) once no client has been connected
                            for s seconds (default: never)

${netUsage}
  --noscripting             no server-side JavaScript ($where, $function, $accumulator,
                            mapReduce are refused, as mongod refuses them)
  --version                 print the version and exit
  --help                    print this help and exit

Environment: SECANTUS_PORT, SECANTUS_BIND_IP, SECANTUS_DBPATH, SECANTUS_REPLSET,
SECANTUS_STORAGE_ENGINE, SECANTUS_CONFIG, SECANTUS_ENABLE_TEST_COMMANDS, SECANTUS_LOGPATH,
SECANTUS_LOGAPPEND, SECANTUS_VERBOSITY, SECANTUS_QUIET, SECANTUS_PROFILE, SECANTUS_SLOWMS,
SECANTUS_SLOW_OP_SAMPLE_RATE, SECANTUS_METRICS_PORT, SECANTUS_METRICS_BIND_IP,
SECANTUS_OPLOG_ASYNC, SECANTUS_OPLOG_NONLOGGED, SECANTUS_AUTH, SECANTUS_KEYFILE,
SECANTUS_JAVASCRIPT_ENABLED, SECANTUS_UNIX_SOCKET, SECANTUS_IDLE_SHUTDOWN_SECS,
SECANTUS_INITIAL_ROOT_USER and SECANTUS_INITIAL_ROOT_PASSWORD
(a root user created at first start; also security.initialRootUser / initialRootPassword in
the config file; security.javascriptEnabled = false is --noscripting), SECANTUS_MAX_CONNS,
${netEnvUsage}.
Config file keys: port, bind_ip, dbpath, replSet, storageEngine, logpath, quiet, oplogAsync,
oplogNonlogged, [setParameter], [security] (authorization, keyFile, initialRootUser,
initialRootPassword), [net.tls] (mode, certificateKeyFile, certificateKeyFilePassword,
CAFile, allowConnectionsWithoutCertificates, allowInvalidCertificates, allowInvalidHostnames),
[net] (maxIncomingConnections), [net.compression] (compressors).
Precedence: flag > environment > config file > default.`;

type Partial_ = Partial<DaemonOptions>;

function fail(message: string): never {
  throw new OptionsError(message);
}

function parsePort(v: unknown, source: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new OptionsError(`${source}: port must be an integer in [0, 65535], got ${String(v)}`);
  return n;
}

function parseMaxConns(v: unknown, source: string): number {
  const n =
    typeof v === 'number'
      ? v
      : typeof v === 'bigint'
        ? Number(v)
        : typeof v === 'string' && /^\d+$/.test(v)
          ? Number(v)
          : NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new OptionsError(`${source}: must be a positive integer, got ${String(v)}`);
  return n;
}

function parseEngine(v: unknown, source: string): EngineName {
  const known: readonly unknown[] = engineNames;
  if (known.includes(v)) return v as EngineName;
  throw new OptionsError(
    `${source}: storageEngine must be one of ${engineNames.map((n) => `'${n}'`).join(', ')}, got ${String(v)}`,
  );
}

function parseProfileLevel(v: unknown, source: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d$/.test(v) ? Number(v) : NaN;
  if (n !== 0 && n !== 1 && n !== 2)
    throw new OptionsError(`${source}: the profiling level must be 0, 1 or 2, got ${String(v)}`);
  return n;
}

/** mongod's operationProfiling.mode. */
function parseProfileMode(v: unknown, source: string): number {
  if (v === 'off') return 0;
  if (v === 'slowOp') return 1;
  if (v === 'all') return 2;
  throw new OptionsError(`${source}: mode must be 'off', 'slowOp' or 'all', got ${String(v)}`);
}

function parseWholeNumber(v: unknown, source: string, min: number, max: number): number {
  const n =
    typeof v === 'number'
      ? v
      : typeof v === 'bigint'
        ? Number(v)
        : typeof v === 'string' && /^-?\d+$/.test(v)
          ? Number(v)
          : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new OptionsError(
      `${source}: expected a whole number in [${min}, ${max}], got ${String(v)}`,
    );
  return n;
}

function parseSampleRate(v: unknown, source: string): number {
  const n =
    typeof v === 'number'
      ? v
      : typeof v === 'bigint'
        ? Number(v)
        : typeof v === 'string' && v.trim() !== ''
          ? Number(v)
          : NaN;
  if (!(n >= 0 && n <= 1))
    throw new OptionsError(
      `${source}: the sample rate must be a number in [0, 1], got ${String(v)}`,
    );
  return n;
}

function parseIdleSecs(v: unknown, source: string): number {
  const n = typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
  if (!(n > 0 && n <= limits.idleShutdownSecsMax))
    throw new OptionsError(
      `${source}: expected a number of seconds in (0, ${limits.idleShutdownSecsMax}], got ${String(v)}`,
    );
  return n;
}

function parseBool(v: unknown, source: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === '1' || v === 'true' || v === 1) return true;
  if (v === '0' || v === 'false' || v === 0) return false;
  throw new OptionsError(`${source}: expected a boolean, got ${String(v)}`);
}

function fromSetParameters(list: readonly string[], source: string): Partial_ {
  const out: Partial_ = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0)
      throw new OptionsError(`${source}: --setParameter takes name=value, got '${item}'`);
    const name = item.slice(0, eq);
    const value = item.slice(eq + 1);
    if (name === 'enableTestCommands')
      out.enableTestCommands = parseBool(value, `${source} enableTestCommands`);
    else throw new OptionsError(`${source}: unknown parameter '${name}'`);
  }
  return out;
}

export interface ParsedCommandLine {
  readonly options: Partial_;
  readonly help: boolean;
  readonly version: boolean;
}

export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        bind_ip: { type: 'string' },
        bind_ip_all: { type: 'boolean' },
        dbpath: { type: 'string' },
        replSet: { type: 'string' },
        storageEngine: { type: 'string' },
        config: { type: 'string', short: 'f' },
        setParameter: { type: 'string', multiple: true },
        logpath: { type: 'string' },
        logappend: { type: 'boolean' },
        verbose: { type: 'boolean', short: 'v', multiple: true },
        quiet: { type: 'boolean' },
        profile: { type: 'string' },
        slowms: { type: 'string' },
        slowOpSampleRate: { type: 'string' },
        metricsPort: { type: 'string' },
        metricsBindIp: { type: 'string' },
        'oplog-async': { type: 'boolean' },
        'oplog-nonlogged': { type: 'boolean' },
        auth: { type: 'boolean' },
        noauth: { type: 'boolean' },
        noscripting: { type: 'boolean' },
        keyFile: { type: 'string' },
        maxConns: { type: 'string' },
        unixSocket: { type: 'string' },
        idleShutdownSecs: { type: 'string' },

        ...netFlagSpecs,
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new OptionsError(e instanceof Error ? e.message : String(e));
  }
  const v = parsed.values;
  const out: Partial_ = {};
  if (v.port !== undefined) out.port = parsePort(v.port, '--port');
  if (v.bind_ip !== undefined) out.bindIp = v.bind_ip;
  if (v.bind_ip_all === true) out.bindIp = '0.0.0.0';
  if (v.dbpath !== undefined) out.dbPath = v.dbpath;
  if (v.replSet !== undefined) out.replSet = v.replSet;
  if (v.storageEngine !== undefined)
    out.storageEngine = parseEngine(v.storageEngine, '--storageEngine');
  if (v.config !== undefined) out.configFile = v.config;
  if (v.setParameter !== undefined)
    Object.assign(out, fromSetParameters(v.setParameter, '--setParameter'));
  if (v.logpath !== undefined) out.logPath = v.logpath;
  if (v.logappend === true) out.logAppend = true;
  if (v.verbose !== undefined) out.verbosity = Math.min(5, v.verbose.length);
  if (v.quiet === true) out.quiet = true;
  if (v.profile !== undefined) out.profile = parseProfileLevel(v.profile, '--profile');
  if (v.slowms !== undefined) out.slowMs = parseWholeNumber(v.slowms, '--slowms', 0, 2 ** 31 - 1);
  if (v.slowOpSampleRate !== undefined)
    out.slowOpSampleRate = parseSampleRate(v.slowOpSampleRate, '--slowOpSampleRate');
  if (v.metricsPort !== undefined) out.metricsPort = parsePort(v.metricsPort, '--metricsPort');
  if (v.metricsBindIp !== undefined) out.metricsBindIp = v.metricsBindIp;
  if (v['oplog-async'] === true) out.oplogAsync = true;
  if (v['oplog-nonlogged'] === true) out.oplogNonlogged = true;
  if (v.auth === true) out.auth = true;
  if (v.noauth === true) out.auth = false;
  if (v.noscripting === true) out.javascriptEnabled = false;
  if (v.keyFile !== undefined) out.keyFile = v.keyFile;
  if (v.maxConns !== undefined)
    out.maxIncomingConnections = parseMaxConns(v.maxConns, '--maxConns');
  if (v.unixSocket !== undefined) out.unixSocket = v.unixSocket;
  if (v.idleShutdownSecs !== undefined)
    out.idleShutdownSecs = parseIdleSecs(v.idleShutdownSecs, '--idleShutdownSecs');

  Object.assign(out, fromNetFlags(v, fail));
  return { options: out, help: v.help === true, version: v.version === true };
}

export function fromEnvironment(env: NodeJS.ProcessEnv): Partial_ {
  const out: Partial_ = {};
  const get = (k: string): string | undefined => {
    const x = env[k];
    return x === undefined || (x === '' && k !== 'SECANTUS_REPLSET') ? undefined : x;
  };
  const port = get('SECANTUS_PORT');
  if (port !== undefined) out.port = parsePort(port, 'SECANTUS_PORT');
  const bind = get('SECANTUS_BIND_IP');
  if (bind !== undefined) out.bindIp = bind;
  const dbPath = get('SECANTUS_DBPATH');
  if (dbPath !== undefined) out.dbPath = dbPath;
  const rs = get('SECANTUS_REPLSET');
  if (rs !== undefined) out.replSet = rs;
  const engine = get('SECANTUS_STORAGE_ENGINE');
  if (engine !== undefined) out.storageEngine = parseEngine(engine, 'SECANTUS_STORAGE_ENGINE');
  const cfg = get('SECANTUS_CONFIG');
  if (cfg !== undefined) out.configFile = cfg;
  const tc = get('SECANTUS_ENABLE_TEST_COMMANDS');
  if (tc !== undefined) out.enableTestCommands = parseBool(tc, 'SECANTUS_ENABLE_TEST_COMMANDS');
  const logPath = get('SECANTUS_LOGPATH');
  if (logPath !== undefined) out.logPath = logPath;
  const logAppend = get('SECANTUS_LOGAPPEND');
  if (logAppend !== undefined) out.logAppend = parseBool(logAppend, 'SECANTUS_LOGAPPEND');
  const verbosity = get('SECANTUS_VERBOSITY');
  if (verbosity !== undefined)
    out.verbosity = parseWholeNumber(verbosity, 'SECANTUS_VERBOSITY', 0, 5);
  const quiet = get('SECANTUS_QUIET');
  if (quiet !== undefined) out.quiet = parseBool(quiet, 'SECANTUS_QUIET');
  const profile = get('SECANTUS_PROFILE');
  if (profile !== undefined) out.profile = parseProfileLevel(profile, 'SECANTUS_PROFILE');
  const slowMs = get('SECANTUS_SLOWMS');
  if (slowMs !== undefined)
    out.slowMs = parseWholeNumber(slowMs, 'SECANTUS_SLOWMS', 0, 2 ** 31 - 1);
  const rate = get('SECANTUS_SLOW_OP_SAMPLE_RATE');
  if (rate !== undefined)
    out.slowOpSampleRate = parseSampleRate(rate, 'SECANTUS_SLOW_OP_SAMPLE_RATE');
  const metricsPort = get('SECANTUS_METRICS_PORT');
  if (metricsPort !== undefined) out.metricsPort = parsePort(metricsPort, 'SECANTUS_METRICS_PORT');
  const metricsBind = get('SECANTUS_METRICS_BIND_IP');
  if (metricsBind !== undefined) out.metricsBindIp = metricsBind;
  const oplogAsync = get('SECANTUS_OPLOG_ASYNC');
  if (oplogAsync !== undefined) out.oplogAsync = parseBool(oplogAsync, 'SECANTUS_OPLOG_ASYNC');
  const oplogNonlogged = get('SECANTUS_OPLOG_NONLOGGED');
  if (oplogNonlogged !== undefined)
    out.oplogNonlogged = parseBool(oplogNonlogged, 'SECANTUS_OPLOG_NONLOGGED');
  const auth = get('SECANTUS_AUTH');
  if (auth !== undefined) out.auth = parseBool(auth, 'SECANTUS_AUTH');
  const scripting = get('SECANTUS_JAVASCRIPT_ENABLED');
  if (scripting !== undefined)
    out.javascriptEnabled = parseBool(scripting, 'SECANTUS_JAVASCRIPT_ENABLED');
  const keyFile = get('SECANTUS_KEYFILE');
  if (keyFile !== undefined) out.keyFile = keyFile;
  const rootUser = get('SECANTUS_INITIAL_ROOT_USER');
  if (rootUser !== undefined) out.initialRootUser = rootUser;
  const rootPassword = get('SECANTUS_INITIAL_ROOT_PASSWORD');
  if (rootPassword !== undefined) out.initialRootPassword = rootPassword;
  const maxConns = get('SECANTUS_MAX_CONNS');
  if (maxConns !== undefined)
    out.maxIncomingConnections = parseMaxConns(maxConns, 'SECANTUS_MAX_CONNS');
  const unixSocket = get('SECANTUS_UNIX_SOCKET');
  if (unixSocket !== undefined) out.unixSocket = unixSocket;
  const idle = get('SECANTUS_IDLE_SHUTDOWN_SECS');
  if (idle !== undefined) out.idleShutdownSecs = parseIdleSecs(idle, 'SECANTUS_IDLE_SHUTDOWN_SECS');

  Object.assign(out, fromNetEnvironment(get, parseBool, fail));
  return out;
}

const fileKeys = new Set([
  'port',
  'bind_ip',
  'dbpath',
  'replSet',
  'storageEngine',
  'logpath',
  'logappend',
  'verbosity',
  'quiet',
  'operationProfiling',
  'metricsPort',
  'metricsBindIp',
  'setParameter',
  'oplogAsync',
  'oplogNonlogged',
  'security',
  'net',
]);

const securityKeys = new Set([
  'authorization',
  'keyFile',
  'initialRootUser',
  'initialRootPassword',
  'javascriptEnabled',
]);

/** The [security] table, nested as mongod's YAML nests it (security.authorization, security.keyFile). */
function fromSecurityTable(v: unknown, src: string, out: Partial_): void {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new OptionsError(`${src} must be a table`);
  for (const [k, value] of Object.entries(v)) {
    if (!securityKeys.has(k)) throw new OptionsError(`${src}: unknown key '${k}'`);
    if (k === 'javascriptEnabled') {
      if (typeof value !== 'boolean')
        throw new OptionsError(`${src}.javascriptEnabled must be a boolean`);
      out.javascriptEnabled = value;
      continue;
    }
    if (typeof value !== 'string') throw new OptionsError(`${src}.${k} must be a string`);
    if (k === 'authorization') {
      if (value !== 'enabled' && value !== 'disabled')
        throw new OptionsError(
          `${src}.authorization must be "enabled" or "disabled", got ${value}`,
        );
      out.auth = value === 'enabled';
    } else if (k === 'keyFile') out.keyFile = value;
    else if (k === 'initialRootUser') out.initialRootUser = value;
    else out.initialRootPassword = value;
  }
}

export function fromConfigFile(path: string): Partial_ {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new OptionsError(
      `cannot read config file ${path}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new OptionsError(
      `config file ${path} is not valid TOML: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const out: Partial_ = {};
  for (const [k, v] of Object.entries(doc)) {
    if (!fileKeys.has(k)) throw new OptionsError(`config file ${path}: unknown key '${k}'`);
    const src = `${path}: ${k}`;
    switch (k) {
      case 'port':
        out.port = parsePort(typeof v === 'bigint' ? Number(v) : v, src);
        break;
      case 'bind_ip':
        if (typeof v !== 'string') throw new OptionsError(`${src} must be a string`);
        out.bindIp = v;
        break;
      case 'dbpath':
        if (typeof v !== 'string') throw new OptionsError(`${src} must be a string`);
        out.dbPath = v;
        break;
      case 'replSet':
        if (typeof v !== 'string') throw new OptionsError(`${src} must be a string`);
        out.replSet = v;
        break;
      case 'storageEngine':
        out.storageEngine = parseEngine(v, src);
        break;
      case 'logpath':
        if (typeof v !== 'string') throw new OptionsError(`${src} must be a string`);
        out.logPath = v;
        break;
      case 'logappend':
        out.logAppend = parseBool(v, src);
        break;
      case 'verbosity':
        out.verbosity = parseWholeNumber(v, src, 0, 5);
        break;
      case 'quiet':
        out.quiet = parseBool(v, src);
        break;
      case 'metricsPort':
        out.metricsPort = parsePort(typeof v === 'bigint' ? Number(v) : v, src);
        break;
      case 'metricsBindIp':
        if (typeof v !== 'string') throw new OptionsError(`${src} must be a string`);
        out.metricsBindIp = v;
        break;
      case 'operationProfiling': {
        if (typeof v !== 'object' || v === null || Array.isArray(v))
          throw new OptionsError(`${src} must be a table`);
        for (const [pk, pv] of Object.entries(v)) {
          const at = `${src}.${pk}`;
          if (pk === 'mode') out.profile = parseProfileMode(pv, at);
          else if (pk === 'slowOpThresholdMs')
            out.slowMs = parseWholeNumber(pv, at, 0, 2 ** 31 - 1);
          else if (pk === 'slowOpSampleRate') out.slowOpSampleRate = parseSampleRate(pv, at);
          else throw new OptionsError(`${src}: unknown key '${pk}'`);
        }
        break;
      }
      case 'oplogAsync':
        out.oplogAsync = parseBool(v, src);
        break;
      case 'oplogNonlogged':
        out.oplogNonlogged = parseBool(v, src);
        break;
      case 'security':
        fromSecurityTable(v, src, out);
        break;
      case 'net': {
        // mongod's net.maxIncomingConnections beside the [net.tls] / [net.compression] tables;
        // port and bind_ip stay top-level keys here.
        if (typeof v !== 'object' || v === null || Array.isArray(v))
          throw new OptionsError(`${src} must be a table`);
        const { maxIncomingConnections, ...rest } = v as Record<string, unknown>;
        if (maxIncomingConnections !== undefined)
          out.maxIncomingConnections = parseMaxConns(
            maxIncomingConnections,
            `${src}.maxIncomingConnections`,
          );
        Object.assign(out, fromNetTable(rest, src, parseBool, fail));
        break;
      }
      case 'setParameter': {
        if (typeof v !== 'object' || v === null || Array.isArray(v))
          throw new OptionsError(`${src} must be a table`);
        for (const [pk, pv] of Object.entries(v)) {
          if (pk === 'enableTestCommands') out.enableTestCommands = parseBool(pv, `${src}.${pk}`);
          else throw new OptionsError(`${src}: unknown parameter '${pk}'`);
        }
        break;
      }
    }
  }
  return out;
}

/** Resolve all sources. The config file is named by a flag or the environment. */
export function resolveOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): { options: DaemonOptions; help: boolean; version: boolean } {
  const cli = parseCommandLine(argv);
  const envOpts = fromEnvironment(env);
  const configFile = cli.options.configFile ?? envOpts.configFile;
  const fileOpts = configFile === undefined ? {} : fromConfigFile(configFile);
  const options: DaemonOptions = { ...defaults, ...fileOpts, ...envOpts, ...cli.options };
  // mongod: a keyFile turns access control on.
  if (options.keyFile !== undefined) {
    validateKeyFile(options.keyFile);
    options.auth = true;
  }
  if ((options.initialRootUser === undefined) !== (options.initialRootPassword === undefined))
    throw new OptionsError(
      'an initial root user needs both SECANTUS_INITIAL_ROOT_USER and SECANTUS_INITIAL_ROOT_PASSWORD (or security.initialRootUser and initialRootPassword)',
    );
  if (options.initialRootPassword === '')
    throw new OptionsError('the initial root password must not be empty');
  return { options, help: cli.help, version: cli.version };
}

/**
 * mongod's key file rules (security_key.cpp): the file is readable, not accessible to group or
 * others (POSIX), and holds 6 to 1024 base64 characters once whitespace is removed. On a single
 * node the key authenticates no cluster members; it only turns access control on.
 */
export function validateKeyFile(path: string): string {
  let text: string;
  try {
    if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0)
      throw new OptionsError(`permissions on ${path} are too open`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof OptionsError) throw e;
    throw new OptionsError(
      `error getting file ${path}: ${e instanceof Error ? e.message.replace(/^[A-Z]+: /, '') : String(e)}`,
    );
  }
  const key = text.replace(/[\s]/g, '');
  if (key.length === 0) throw new OptionsError(`Error reading file ${path}: file is empty`);
  const bad = /[^A-Za-z0-9+/=]/.exec(key);
  if (bad !== null) throw new OptionsError(`invalid char in key file ${path}: ${bad[0]}`);
  if (key.length < 6 || key.length > 1024)
    throw new OptionsError(
      `security key in ${path} has length ${key.length}, must be between 6 and 1024 chars`,
    );
  return key;
}
