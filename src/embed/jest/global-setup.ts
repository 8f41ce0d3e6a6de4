// The Jest preset's globalSetup (`preset: 'secantusdb'`): with useSharedDBForAllJestWorkers
// (the default), one server for the whole run, its URI in process.env.MONGO_URL (or the
// configured name) and in every test file's globalThis.__MONGO_URI__.

import type { MongoMemoryServerOpts } from '../memory-server.js';
import { isReplSetOptions, startMemoryServer } from '../runner-support.js';
import type { MemoryServerLike } from '../runner-support.js';
import { readJestMongoConfig, stateVariable } from './config.js';
import type { SharedState } from './config.js';

/** Where globalTeardown finds the server (globalSetup and globalTeardown share a realm). */
export const serverKey = Symbol.for('secantusdb.jest.server');

interface JestGlobalConfig {
  readonly rootDir: string;
}

export default async function globalSetup(globalConfig: JestGlobalConfig): Promise<void> {
  const config = await readJestMongoConfig(globalConfig.rootDir);
  const options = config.mongodbMemoryServerOptions;
  let mongoUri: string | undefined;
  if (config.useSharedDBForAllJestWorkers) {
    const server = await startMemoryServer(options);
    (globalThis as Record<symbol, MemoryServerLike | undefined>)[serverKey] = server;
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
  process.env[stateVariable] = JSON.stringify(state);
}
