// The one way the rest of the server gets a storage engine.

import type { EngineName, StorageEngine } from './engine.js';
import { StorageUnavailableError } from './engine.js';
import type { Logger } from '../log.js';
import { MemoryEngine } from './memory/memory-engine.js';
import { LmdbEngine } from './lmdb/lmdb-engine.js';
import { SqliteEngine } from './sqlite/sqlite-engine.js';
import { JsonFileEngine } from './jsonfile/jsonfile-engine.js';

export interface OpenEngineOptions {
  readonly engine: EngineName;
  /** Data directory (lmdb, sqlite, jsonfile; required there, created if missing). */
  readonly path?: string;
  /** lmdb: let commits become visible before their fsync (see lmdb-engine.ts). Default false. */
  readonly overlappingSync?: boolean;
  /**
   * lmdb: commit without fsync (LMDB's MDB_NOSYNC): a process crash loses nothing committed
   * (the OS has the pages), a machine crash may lose the latest commits. flush() syncs.
   * Only for data that may be lost that way (the --oplog-nonlogged oplog). Default false.
   * sqlite: synchronous=NORMAL (same trade). jsonfile: appends without fsync (same trade).
   */
  readonly noSync?: boolean;
  /** lmdb: most snapshots open at distinct commits at once. Default 1024. */
  readonly maxReaders?: number;
  /** memory: longest key; defaults to what lmdb accepts, so tests meet production's limit. */
  readonly maxKeyBytes?: number;
  readonly logger?: Logger;
}

function pathOf(options: OpenEngineOptions): string {
  if (options.path === undefined || options.path === '')
    throw new TypeError(`openEngine: the ${options.engine} engine needs a path`);
  return options.path;
}

export async function openEngine(options: OpenEngineOptions): Promise<StorageEngine> {
  try {
    return await openOne(options);
  } catch (e) {
    if (e instanceof StorageUnavailableError)
      options.logger?.error('STORAGE', 7_310_100, 'Storage engine unavailable', {
        engine: e.engine,
        reason: e.reason,
      });
    throw e;
  }
}

async function openOne(options: OpenEngineOptions): Promise<StorageEngine> {
  const noSync = options.noSync === undefined ? {} : { noSync: options.noSync };
  const logger = options.logger === undefined ? {} : { logger: options.logger };
  switch (options.engine) {
    case 'memory':
      return options.maxKeyBytes === undefined
        ? new MemoryEngine()
        : new MemoryEngine({ maxKeyBytes: options.maxKeyBytes });
    case 'lmdb': {
      if (options.path === undefined || options.path === '')
        throw new TypeError('openEngine: the lmdb engine needs a path');
      return LmdbEngine.open({
        path: options.path,
        ...(options.overlappingSync === undefined
          ? {}
          : { overlappingSync: options.overlappingSync }),
        ...(options.maxReaders === undefined ? {} : { maxReaders: options.maxReaders }),
        ...(options.noSync === undefined ? {} : { noSync: options.noSync }),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      });
    }
    case 'sqlite':
      return SqliteEngine.open({ path: pathOf(options), ...noSync, ...logger });
    case 'jsonfile':
      return JsonFileEngine.open({ path: pathOf(options), ...noSync, ...logger });
    default: {
      const unknown: never = options.engine;
      throw new TypeError(`openEngine: unknown engine ${String(unknown)}`);
    }
  }
}
