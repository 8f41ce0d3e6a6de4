// What the test-runner helpers (jest preset, vitest, node:test / mocha) share: loading a
// user's config file whether it is CommonJS or ESM, per-worker database names, and starting
// a server from mongodb-memory-server options.

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MongoMemoryReplSet, MongoMemoryServer } from './memory-server.js';
import type { MongoMemoryReplSetOpts, MongoMemoryServerOpts } from './memory-server.js';

/**
 * `import()` that survives the CommonJS build: tsc turns a literal `import()` into
 * `require()` there, which cannot load an ES module on Node < 20.19.
 */
const importModule = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<unknown>;

/** The default export of a config module (or the module itself), CommonJS or ESM. */
export async function loadConfigModule(path: string): Promise<unknown> {
  let mod: unknown;
  try {
    mod = createRequire(path)(path);
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'ERR_REQUIRE_ESM') throw e;
    mod = await importModule(pathToFileURL(path).href);
  }
  // An ES module (imported, or required on Node >= 20.19) keeps its default export apart.
  if (typeof mod === 'object' && mod !== null && 'default' in mod) {
    const esm = mod as { default: unknown; __esModule?: unknown; [Symbol.toStringTag]?: unknown };
    if (esm.__esModule === true || esm[Symbol.toStringTag] === 'Module') return esm.default;
  }
  return mod;
}

/** The first of `names` that exists in `dir`. */
export function findFile(dir: string, names: readonly string[]): string | undefined {
  for (const name of names) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/**
 * A database name of its own for this worker: `base` plus the runner's worker id (Jest's
 * JEST_WORKER_ID, Vitest's VITEST_POOL_ID, else the process id: mocha's parallel workers and
 * node:test's per-file processes), so parallel workers sharing one server never see each
 * other's data.
 */
export function workerDatabaseName(base = 'test'): string {
  const env = process.env;
  const id = env['JEST_WORKER_ID'] ?? env['VITEST_POOL_ID'];
  return `${base}_${id ?? String(process.pid)}`;
}

/** A name no other test file uses (jest-mongodb's __MONGO_DB_NAME__ when none is configured). */
export function uniqueDatabaseName(): string {
  return randomUUID();
}

/** mongodb-memory-server options of either kind, as jest-mongodb and vitest-mongodb take them. */
export type MemoryServerOptions = MongoMemoryServerOpts | Partial<MongoMemoryReplSetOpts>;

export type MemoryServerLike = MongoMemoryServer | MongoMemoryReplSet;

/** jest-mongodb's rule: options with a `replSet` key describe a replica set. */
export function isReplSetOptions(
  options: MemoryServerOptions | undefined,
): options is Partial<MongoMemoryReplSetOpts> {
  return typeof options === 'object' && options !== null && 'replSet' in options;
}

/** A started MongoMemoryServer, or MongoMemoryReplSet when the options say replSet. */
export async function startMemoryServer(
  options: MemoryServerOptions | undefined,
  replSet = isReplSetOptions(options),
): Promise<MemoryServerLike> {
  if (replSet) return MongoMemoryReplSet.create((options ?? {}) as Partial<MongoMemoryReplSetOpts>);
  return MongoMemoryServer.create((options ?? {}) as MongoMemoryServerOpts);
}
