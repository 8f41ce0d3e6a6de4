// Vitest helpers, two ways:
//
// 1. As Vitest's globalSetup — one server for the whole run, its URI given to every test
//    with `inject('MONGO_URI')` (and in process.env.MONGO_URL):
//
//      // vitest.config.ts
//      export default defineConfig({ test: { globalSetup: ['secantusdb/vitest'] } });
//      // a test
//      import { inject } from 'vitest';
//      const client = new MongoClient(inject('MONGO_URI'));
//
//    or, with options, a globalSetup file of your own:
//    `export default mongoGlobalSetup({ replSet: '' })`.
//
// 2. As vitest-mongodb's setup()/teardown() in a setupFiles module, setting
//    globalThis.__MONGO_URI__ (a drop-in for `from 'vitest-mongodb'`).
//
// Vitest calls a globalSetup module's `setup(project)` and `teardown()`; setup() tells the two
// uses apart by its argument (Vitest's project has `provide`).

import type { MongoMemoryReplSetOpts, MongoMemoryServerOpts } from './memory-server.js';
import { startMemoryServer, workerDatabaseName } from './runner-support.js';
import type { MemoryServerLike } from './runner-support.js';
import { SecantusServer } from './secantus-server.js';
import type { SecantusServerOptions } from './secantus-server.js';

export { workerDatabaseName };

/** What Vitest passes to a globalSetup's setup (TestProject, GlobalSetupContext before 3.0). */
export interface ProvideContext {
  provide(key: string, value: unknown): void;
}

/** vitest-mongodb's options. */
export type VitestMongoOptions =
  | { type?: 'default'; serverOptions?: MongoMemoryServerOpts }
  | { type: 'replSet'; serverOptions?: Partial<MongoMemoryReplSetOpts> };

function isProvideContext(v: unknown): v is ProvideContext {
  return typeof v === 'object' && v !== null && typeof (v as ProvideContext).provide === 'function';
}

// Global slots: Vitest may load this module more than once in a process (isolated files).
const slot = globalThis as typeof globalThis & {
  __MONGO_URI__?: string;
  __MONGO_DB__?: MemoryServerLike;
  __VITEST_MONGODB_DEFINED__?: boolean;
  __SECANTUS_VITEST_SERVER__?: SecantusServer;
};

/**
 * A globalSetup function starting a SecantusServer with `options` (default: in memory, replica
 * set rs0): provides MONGO_URI to the tests and returns the teardown.
 */
export function mongoGlobalSetup(
  options: SecantusServerOptions = {},
): (project: ProvideContext) => Promise<() => Promise<void>> {
  return async (project) => {
    const server = await SecantusServer.start(options);
    slot.__SECANTUS_VITEST_SERVER__ = server;
    const uri = server.getUri();
    project.provide('MONGO_URI', uri);
    process.env['MONGO_URL'] = uri;
    return async () => {
      if (slot.__SECANTUS_VITEST_SERVER__ === server) slot.__SECANTUS_VITEST_SERVER__ = undefined;
      await server.stop();
    };
  };
}

/**
 * As a globalSetup: start the server and provide MONGO_URI. As vitest-mongodb's setup() (in a
 * setupFiles module): start a mongodb-memory-server-style server once per worker and set
 * globalThis.__MONGO_URI__.
 */
export async function setup(arg?: ProvideContext | VitestMongoOptions): Promise<void> {
  if (isProvideContext(arg)) {
    await mongoGlobalSetup()(arg);
    return;
  }
  if (slot.__VITEST_MONGODB_DEFINED__ === true) return;
  const options = arg ?? {};
  const server = await startMemoryServer(options.serverOptions, options.type === 'replSet');
  slot.__MONGO_DB__ = server;
  slot.__MONGO_URI__ = server.getUri();
  slot.__VITEST_MONGODB_DEFINED__ = true;
}

/** Stop what setup() started. */
export async function teardown(): Promise<void> {
  const fromGlobalSetup = slot.__SECANTUS_VITEST_SERVER__;
  slot.__SECANTUS_VITEST_SERVER__ = undefined;
  await fromGlobalSetup?.stop();
  const fromSetupFile = slot.__MONGO_DB__;
  slot.__MONGO_DB__ = undefined;
  slot.__VITEST_MONGODB_DEFINED__ = false;
  await fromSetupFile?.stop();
}
