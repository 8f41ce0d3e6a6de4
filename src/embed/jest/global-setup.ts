// The Jest preset's globalSetup (`preset: 'secantusdb'`): with useSharedDBForAllJestWorkers
// (the default), one server for the whole run, its URI in process.env.MONGO_URL (or the
// configured name) and in every test file's globalThis.__MONGO_URI__.

import type { MongoMemoryServerOpts } from '../memory-server.js';
import { isReplSetOptions, startMemoryServer } from '../runner-support.js';
import type { MemoryServerLike } from '../runner-support.js';
import { readJestMongoConfig, stateVariable } from './config.js';
import type { SharedState } from './config.js';

/** Where globalTeardown finds the servers, by project (globalSetup and globalTeardown share a realm). */
export function sharedServers(): Map<string, MemoryServerLike> {
  const slot = globalThis as Record<symbol, Map<string, MemoryServerLike> | undefined>;
  const key = Symbol.for('secantusdb.jest.servers');
  return (slot[key] ??= new Map());
}

interface JestConfig {
  readonly rootDir: string;
}

/**
 * Jest passes (globalConfig, projectConfig); the config file is looked for in the project's
 * rootDir (the same as the global one but in multi-project runs).
 */
export default async function globalSetup(
  globalConfig: JestConfig,
  projectConfig?: JestConfig,
): Promise<void> {
  const rootDir = projectConfig?.rootDir ?? globalConfig.rootDir;
  const config = await readJestMongoConfig(rootDir);
  const options = config.mongodbMemoryServerOptions;
  let mongoUri: string | undefined;
  if (config.useSharedDBForAllJestWorkers) {
    const server = await startMemoryServer(options);
    sharedServers().set(rootDir, server);
    mongoUri = server.getUri();
    process.env[config.mongoURLEnvName] = mongoUri;
  }
  // As jest-mongodb: the configured instance.dbName, none for a replica set.
  const dbName = isReplSetOptions(options)
    ? undefined
    : (options as MongoMemoryServerOpts | undefined)?.instance?.dbName;
  const state: SharedState = {
    ...(mongoUri === undefined ? {} : { mongoUri }),
    ...(dbName === undefined || dbName === '' ? {} : { mongoDBName: dbName }),
  };
  process.env[stateVariable(rootDir)] = JSON.stringify(state);
}
