#!/usr/bin/env node
// secantusd: the daemon. Resolves options, opens storage, listens, and shuts down cleanly
// on SIGINT / SIGTERM (stop accepting, finish in-flight work, close storage, exit 0).
// Exit codes follow mongod's: 2 bad options, 48 listen failure, 100 data directory in use.

import { createWriteStream, mkdirSync } from 'node:fs';
import { Int32 } from 'bson';
import { DataDirectoryLockedError } from '../storage/engine.js';
import { Logger, streamSink } from '../log.js';
import { Server } from '../server/server.js';
import { OptionsError, resolveOptions, usage } from './options.js';
import type { DaemonOptions } from './options.js';
import type { BsonDocument } from '../bson/types.js';
import { serverVersion } from '../commands/diag/handshake.js';

const ExitCode = { ok: 0, badOptions: 2, netError: 48, dbPathInUse: 100, failure: 1 } as const;

function parsedDocument(o: DaemonOptions): BsonDocument {
  const doc: BsonDocument = {
    net: {
      port: new Int32(o.port),
      bindIp: o.bindIp,
      maxIncomingConnections: new Int32(o.maxIncomingConnections),
    },
    storage: { dbPath: o.dbPath, engine: o.storageEngine },
    replication: { replSet: o.replSet, oplogAsync: o.oplogAsync, oplogNonlogged: o.oplogNonlogged },
    setParameter: { enableTestCommands: o.enableTestCommands ? '1' : '0' },
  };
  // Never the initial root password (getCmdLineOpts is readable by clusterMonitor).
  if (o.auth || o.keyFile !== undefined) {
    const security: BsonDocument = { authorization: o.auth ? 'enabled' : 'disabled' };
    if (o.keyFile !== undefined) security['keyFile'] = o.keyFile;
    doc['security'] = security;
  }
  if (o.configFile !== undefined) doc['config'] = o.configFile;
  return doc;
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
    process.stdout.write(`secantusd 0.1.0 (MongoDB ${serverVersion} compatible)\n`);
    return ExitCode.ok;
  }
  const o = resolved.options;
  const sink =
    o.logPath === undefined
      ? streamSink(process.stdout)
      : streamSink(createWriteStream(o.logPath, { flags: 'a' }));
  const logger = new Logger(sink, o.quiet ? 'warning' : 'info');
  if (o.storageEngine === 'lmdb') mkdirSync(o.dbPath, { recursive: true });

  let server: Server;
  try {
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
      ...(o.initialRootUser === undefined || o.initialRootPassword === undefined
        ? {}
        : { initialUser: { username: o.initialRootUser, password: o.initialRootPassword } }),
      logger,
      argv: ['secantusd', ...argv],
      parsed: parsedDocument(o),
    });
  } catch (e) {
    if (e instanceof DataDirectoryLockedError) {
      logger.error('STORAGE', 22204, 'Unable to lock the data directory', {
        dbPath: o.dbPath,
        error: e.message,
      });
      process.stderr.write(`secantusd: ${e.message}\n`);
      return ExitCode.dbPathInUse;
    }
    const code = (e as { code?: unknown }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      logger.error('NETWORK', 23024, 'Failed to listen', {
        port: o.port,
        bindIp: o.bindIp,
        error: String(code),
      });
      process.stderr.write(`secantusd: cannot listen on ${o.bindIp}:${o.port}: ${String(code)}\n`);
      return ExitCode.netError;
    }
    throw e;
  }

  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      logger.info('CONTROL', 23377, 'Received signal', { signal });
      server.stop().then(
        () => resolve(ExitCode.ok),
        (e: unknown) => {
          logger.error('CONTROL', 4784934, 'Error during shutdown', {
            error: e instanceof Error ? e.message : String(e),
          });
          resolve(ExitCode.failure);
        },
      );
    };
    process.on('SIGINT', () => shutdown('SIGINT'));
    process.on('SIGTERM', () => shutdown('SIGTERM'));
  });
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(
      `secantusd: fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
    process.exit(ExitCode.failure);
  },
);
