// The Jest preset's configuration, as @shelf/jest-mongodb reads it: `jest-mongodb-config.js`
// in the project's rootDir (or the file MONGO_MEMORY_SERVER_FILE names), exporting
// { mongodbMemoryServerOptions, mongoURLEnvName, useSharedDBForAllJestWorkers }. Its
// globalSetup hands what it started to the test environments through an environment
// variable (jest-mongodb writes globalConfig.json into the project instead).

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { MemoryServerOptions } from '../runner-support.js';
import { findFile, loadConfigModule } from '../runner-support.js';

export interface JestMongoConfig {
  /** mongodb-memory-server options; a `replSet` key makes it a MongoMemoryReplSet. */
  readonly mongodbMemoryServerOptions?: MemoryServerOptions;
  /** The environment variable globalSetup puts the URI in. Default MONGO_URL. */
  readonly mongoURLEnvName?: string;
  /** One server for every test file (default), or one per test file. */
  readonly useSharedDBForAllJestWorkers?: boolean;
}

export interface ResolvedJestMongoConfig {
  readonly mongodbMemoryServerOptions: MemoryServerOptions | undefined;
  readonly mongoURLEnvName: string;
  readonly useSharedDBForAllJestWorkers: boolean;
}

/** What globalSetup started, for the test environments (in the workers' environment). */
export interface SharedState {
  readonly mongoUri?: string;
  readonly mongoDBName?: string;
}

/** The variable of one project's state (a multi-project run may use the preset twice). */
export function stateVariable(rootDir: string): string {
  return `SECANTUSDB_JEST_STATE_${createHash('sha256').update(rootDir).digest('hex').slice(0, 16)}`;
}

/** The config file's path, or undefined when the project has none. */
export function configFilePath(rootDir: string): string | undefined {
  const named = process.env['MONGO_MEMORY_SERVER_FILE'];
  if (named !== undefined && named !== '') {
    const path = isAbsolute(named) ? named : resolve(rootDir, named);
    return existsSync(path) ? path : undefined;
  }
  return findFile(rootDir, [
    'jest-mongodb-config.js',
    'jest-mongodb-config.cjs',
    'jest-mongodb-config.mjs',
  ]);
}

export async function readJestMongoConfig(rootDir: string): Promise<ResolvedJestMongoConfig> {
  const path = configFilePath(rootDir);
  const loaded = path === undefined ? {} : await loadConfigModule(path);
  const config = (typeof loaded === 'object' && loaded !== null ? loaded : {}) as JestMongoConfig;
  return {
    mongodbMemoryServerOptions: config.mongodbMemoryServerOptions,
    mongoURLEnvName: config.mongoURLEnvName || 'MONGO_URL',
    useSharedDBForAllJestWorkers: config.useSharedDBForAllJestWorkers ?? true,
  };
}

export function readSharedState(rootDir: string): SharedState {
  const raw = process.env[stateVariable(rootDir)];
  if (raw === undefined || raw === '') return {};
  const parsed: unknown = JSON.parse(raw);
  return typeof parsed === 'object' && parsed !== null ? (parsed as SharedState) : {};
}
