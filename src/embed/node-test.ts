// Helpers for node:test and mocha.
//
// useSecantus() registers before/after hooks (node:test's, or mocha's globals when mocha
// runs the file) that start a server for the file and stop it, and, with `reset`, a
// beforeEach hook that empties it (or returns it to a snapshot taken after `seed`). Under
// mocha, call it inside describe(): at a file's top level mocha's hooks belong to the root
// suite of the whole run.
//
//   import { useSecantus } from 'secantusdb/node-test';
//   const db = useSecantus({ reset: true, seed: async (uri) => { ... } });
//   test('...', async () => { const client = new MongoClient(db.uri); ... });
//
// For mocha, `--require secantusdb/node-test` also makes this module a global fixture: one
// server for the whole run (mochaGlobalSetup / mochaGlobalTeardown), its URI in
// process.env.MONGO_URL. Parallel workers get their own database with workerDatabaseName().

import { createRequire } from 'node:module';
import type { ResetResult, ServerSnapshot } from '../server/fixtures.js';
import { workerDatabaseName } from './runner-support.js';
import { SecantusServer } from './secantus-server.js';
import type { SecantusServerOptions } from './secantus-server.js';

export { workerDatabaseName };

type Hook = (fn: () => Promise<void>) => void;

interface Hooks {
  readonly before: Hook;
  readonly after: Hook;
  readonly beforeEach: Hook;
}

/** mocha's globals when mocha runs this file, else node:test's hooks. */
function testHooks(): Hooks {
  const g = globalThis as { before?: unknown; after?: unknown; beforeEach?: unknown };
  if (
    typeof g.before === 'function' &&
    typeof g.after === 'function' &&
    typeof g.beforeEach === 'function'
  )
    return { before: g.before as Hook, after: g.after as Hook, beforeEach: g.beforeEach as Hook };
  // A builtin resolves from anywhere; createRequire works in both the ESM and the CJS build.
  const nodeTest = createRequire(`${process.cwd()}/`)('node:test') as Hooks;
  return { before: nodeTest.before, after: nodeTest.after, beforeEach: nodeTest.beforeEach };
}

export interface UseSecantusOptions extends SecantusServerOptions {
  /** Before each test: reset() the server, or restore() it to the state after `seed`. */
  readonly reset?: boolean;
  /** Runs once after the server starts (with its URI); with `reset`, each test starts from it. */
  readonly seed?: (uri: string) => Promise<void>;
}

/** The server of a test file, once its before hook ran. */
export interface TestDatabase {
  readonly uri: string;
  getUri(dbName?: string): string;
  readonly server: SecantusServer;
  reset(): Promise<ResetResult>;
  snapshot(): Promise<ServerSnapshot>;
  restore(snapshot: ServerSnapshot): Promise<ResetResult>;
}

/** Start a server for this test file (before), stop it (after); see the module comment. */
export function useSecantus(options: UseSecantusOptions = {}): TestDatabase {
  const { reset, seed, ...serverOptions } = options;
  const hooks = testHooks();
  let server: SecantusServer | undefined;
  let seeded: ServerSnapshot | undefined;
  const running = (): SecantusServer => {
    if (server === undefined)
      throw new Error('useSecantus(): the server starts in the before hook; use it in tests');
    return server;
  };
  hooks.before(async () => {
    server = await SecantusServer.start(serverOptions);
    if (seed !== undefined) {
      await seed(server.uri);
      if (reset === true) seeded = await server.snapshot();
    }
  });
  hooks.after(async () => {
    const s = server;
    server = undefined;
    seeded = undefined;
    await s?.stop();
  });
  if (reset === true)
    hooks.beforeEach(async () => {
      const s = running();
      await (seeded === undefined ? s.reset() : s.restore(seeded));
    });
  return {
    get uri() {
      return running().uri;
    },
    getUri: (dbName) => running().getUri(dbName),
    get server() {
      return running();
    },
    reset: () => running().reset(),
    snapshot: () => running().snapshot(),
    restore: (snapshot) => running().restore(snapshot),
  };
}

let fixture: SecantusServer | undefined;

/** mocha global fixture (`--require secantusdb/node-test`): one server for the whole run. */
export async function mochaGlobalSetup(): Promise<void> {
  fixture = await SecantusServer.start();
  process.env['MONGO_URL'] = fixture.getUri();
}

export async function mochaGlobalTeardown(): Promise<void> {
  const s = fixture;
  fixture = undefined;
  await s?.stop();
}
