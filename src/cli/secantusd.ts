#!/usr/bin/env node
// secantusd: the daemon. Resolves options, opens storage, listens, and shuts down cleanly
// on SIGINT / SIGTERM (stop accepting, finish in-flight work, close storage, exit 0), or
// after --idleShutdownSecs with no client (the on-demand daemon of open({ multiProcess })).
// Exit codes follow mongod's: 2 bad options, 48 listen failure (a --unixSocket owned by
// another daemon included), 100 data directory in use.

import { mkdirSync } from 'node:fs';
import * as os from 'node:os';
import { Double, Int32 } from 'bson';
import { DataDirectoryLockedError } from '../storage/engine.js';
import { FileLogSink, Logger, streamSink } from '../log.js';
import type { LogSink } from '../log.js';
import { rotateServerLog } from '../commands/diag/log-commands.js';
import { Server } from '../server/server.js';
import { SocketInUseError } from '../server/socket-lock.js';
import { OptionsError, resolveOptions, usage } from './options.js';
import { netParsedDocument, redactArgv, tlsOptionsOf } from './net-options.js';
import { TlsConfigError } from '../server/tls.js';
import { CompressorConfigError } from '../wire/compression.js';
import type { DaemonOptions } from './options.js';
import type { BsonDocument } from '../bson/types.js';
import { defaultCompatibilityVersion, reportedVersions } from '../commands/version.js';

const ExitCode = { ok: 0, badOptions: 2, netError: 48, dbPathInUse: 100, failure: 1 } as const;

function parsedDocument(o: DaemonOptions): BsonDocument {
  const doc: BsonDocument = {
    net: {
      port: new Int32(o.port),
      bindIp: o.bindIp,
      maxIncomingConnections: new Int32(o.maxIncomingConnections),
      ...(o.unixSocket === undefined ? {} : { unixSocket: o.unixSocket }),
      ...netParsedDocument(o),
    },
    storage: { dbPath: o.dbPath, engine: o.storageEngine },
    replication: { replSet: o.replSet, oplogAsync: o.oplogAsync, oplogNonlogged: o.oplogNonlogged },
    setParameter: { enableTestCommands: o.enableTestCommands ? '1' : '0' },
    operationProfiling: {
      mode: ['off', 'slowOp', 'all'][o.profile] ?? 'off',
      slowOpThresholdMs: new Int32(o.slowMs),
      slowOpSampleRate: new Double(o.slowOpSampleRate),
    },
    systemLog: {
      destination: o.logPath === undefined ? 'stdout' : 'file',
      ...(o.logPath === undefined ? {} : { path: o.logPath }),
      logAppend: o.logAppend,
      verbosity: new Int32(o.verbosity),
      quiet: o.quiet,
    },
  };
  // Never the initial root password (getCmdLineOpts is readable by clusterMonitor).
  if (o.auth || o.keyFile !== undefined) {
    const security: BsonDocument = { authorization: o.auth ? 'enabled' : 'disabled' };
    if (o.keyFile !== undefined) security['keyFile'] = o.keyFile;
    doc['security'] = security;
  }
  if (!o.javascriptEnabled) {
    const security = (doc['security'] as BsonDocument | undefined) ?? {};
    security['javascriptEnabled'] = false;
    doc['security'] = security;
  }
  if (o.configFile !== undefined) doc['config'] = o.configFile;
  return doc;
}

/** Where logs go: a file opened now, before anything else can fail, or stdout. */
function openLogSink(o: DaemonOptions): LogSink {
  if (o.logPath === undefined) return streamSink(process.stdout);
  return new FileLogSink(o.logPath, { append: o.logAppend });
}

/** mongod's first lines: who starts, with what build, on which system, with which options. */
function logStartup(logger: Logger, o: DaemonOptions, argv: readonly string[]): void {
  logger.info('CONTROL', 4615611, 'MongoDB starting', {
    pid: process.pid,
    port: o.port,
    dbPath: o.dbPath,
    architecture: '64-bit',
    host: os.hostname(),
  });
  logger.info('CONTROL', 23403, 'Build Info', {
    buildInfo: {
      version: reportedVersions[defaultCompatibilityVersion].version,
      secantusdb: '0.1.0',
      node: process.version,
    },
  });
  logger.info('CONTROL', 51765, 'Operating System', {
    os: { name: os.type(), version: os.release() },
  });
  logger.info('CONTROL', 21951, 'Options set by command line', {
    options: { argv: ['secantusd', ...argv] },
  });
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let resolved;
  try {
    resolved = resolveOptions(argv, process.env);
  } catch (e) {
    if (e instanceof OptionsError) {
      process.stderr.write(`secantusd: ${e.message}\n\n${usage}\n`);
      return ExitCode.badOptions;
    }
    throw e;
  }
  if (resolved.help) {
    process.stdout.write(`${usage}\n`);
    return ExitCode.ok;
  }
  if (resolved.version) {
    process.stdout.write(
      `secantusd 0.1.0 (MongoDB ${reportedVersions[defaultCompatibilityVersion].version} compatible)\n`,
    );
    return ExitCode.ok;
  }
  const o = resolved.options;
  let sink: LogSink;
  try {
    sink = openLogSink(o);
  } catch (e) {
    process.stderr.write(
      `secantusd: cannot open the log file ${o.logPath ?? ''}: ${e instanceof Error ? e.message : String(e)}\n`,
    );
    return ExitCode.failure;
  }
  const logger = new Logger(sink);
  logger.settings.logLevel = o.verbosity;
  logger.settings.quiet = o.quiet;
  daemonLogger = logger;
  logStartup(logger, o, argv);

  let server: Server;
  // Set below, once shutdown exists; the server calls it only after start() has returned.
  let onIdle = (): void => undefined;
  try {
    if (o.storageEngine !== 'memory') mkdirSync(o.dbPath, { recursive: true });
    server = await Server.start({
      port: o.port,
      bindIp: o.bindIp,
      dbPath: o.dbPath,
      storageEngine: o.storageEngine,
      replSet: o.replSet,
      enableTestCommands: o.enableTestCommands,
      oplogAsync: o.oplogAsync,
      oplogNonlogged: o.oplogNonlogged,
      auth: o.auth,
      maxIncomingConnections: o.maxIncomingConnections,
      javascriptEnabled: o.javascriptEnabled,
      ...(o.unixSocket === undefined ? {} : { socketPath: o.unixSocket }),
      ...(o.idleShutdownSecs === undefined
        ? {}
        : { idle: { ms: o.idleShutdownSecs * 1000, onIdle: () => onIdle() } }),
      ...(o.initialRootUser === undefined || o.initialRootPassword === undefined
        ? {}
        : { initialUser: { username: o.initialRootUser, password: o.initialRootPassword } }),

      tls: tlsOptionsOf(o),
      ...(o.networkMessageCompressors === undefined
        ? {}
        : { networkMessageCompressors: o.networkMessageCompressors }),
      logger,
      argv: ['secantusd', ...redactArgv(argv)],
      parsed: parsedDocument(o),
      profiling: { level: o.profile, slowMs: o.slowMs, sampleRate: o.slowOpSampleRate },
      ...(o.metricsPort === undefined
        ? {}
        : { metrics: { port: o.metricsPort, bindIp: o.metricsBindIp } }),
    });
  } catch (e) {
    if (e instanceof DataDirectoryLockedError) {
      logger.error('STORAGE', 22204, 'Unable to lock the data directory', {
        dbPath: o.dbPath,
        error: e.message,
      });
      process.stderr.write(`secantusd: ${e.message}\n`);
      return exitWith(logger, ExitCode.dbPathInUse);
    }
    if (e instanceof SocketInUseError) {
      logger.error('NETWORK', 23024, 'Failed to listen', {
        socketPath: e.socketPath,
        error: e.message,
      });
      process.stderr.write(`secantusd: ${e.message}\n`);
      return exitWith(logger, ExitCode.netError);
    }
    if (e instanceof TlsConfigError || e instanceof CompressorConfigError) {
      logger.error('CONTROL', 20574, 'Error during global initialization', { error: e.message });
      process.stderr.write(`secantusd: ${e.message}\n`);
      return ExitCode.badOptions;
    }
    const code = (e as { code?: unknown }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      logger.error('NETWORK', 23024, 'Failed to listen', {
        port: o.port,
        bindIp: o.bindIp,
        error: String(code),
      });
      process.stderr.write(
        `secantusd: cannot listen on ${o.unixSocket ?? `${o.bindIp}:${o.port}`}: ${String(code)}\n`,
      );
      return exitWith(logger, ExitCode.netError);
    }
    logger.fatal('CONTROL', 20574, 'Error during global initialization', {
      error: e instanceof Error ? { name: e.name, message: e.message } : String(e),
    });
    process.stderr.write(`secantusd: ${e instanceof Error ? e.message : String(e)}\n`);
    return exitWith(logger, ExitCode.failure);
  }

  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: NodeJS.Signals | 'idle'): void => {
      if (stopping) return;
      stopping = true;
      if (signal !== 'idle')
        logger.info('CONTROL', 23377, 'Received signal', {
          signal: os.constants.signals[signal],
          error: signal === 'SIGTERM' ? 'Terminated' : 'Interrupt',
        });
      logger.info('CONTROL', 23381, 'will terminate after current cmd ends');
      server.stop().then(
        () => resolve(exitWith(logger, ExitCode.ok)),
        (e: unknown) => {
          logger.error('CONTROL', 4784934, 'Error during shutdown', {
            error: e instanceof Error ? e.message : String(e),
          });
          resolve(exitWith(logger, ExitCode.failure));
        },
      );
    };
    onIdle = () => shutdown('idle');
    process.on('SIGINT', () => shutdown('SIGINT'));
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    // As mongod: SIGUSR1 rotates the log file (rename mode).
    process.on('SIGUSR1', () => rotateServerLog(server.services));
  });
}

/** mongod's last line names the exit code. */
function exitWith(logger: Logger, code: number): number {
  logger.info('CONTROL', 23138, 'Shutting down', { exitCode: code });
  return code;
}

/** Set once logging is up, so that a crash's last words go to the log (file) too. */
let daemonLogger: Logger | undefined;

/** A crash: its last words go to the log (file) and stderr, then the process exits. */
function die(e: unknown): never {
  daemonLogger?.fatal('CONTROL', 23081, 'Unhandled exception', {
    error: e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : String(e),
  });
  process.stderr.write(
    `secantusd: fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  if (daemonLogger !== undefined) exitWith(daemonLogger, ExitCode.failure);
  process.exit(ExitCode.failure);
}

process.on('uncaughtException', die);

main().then((code) => process.exit(code), die);
