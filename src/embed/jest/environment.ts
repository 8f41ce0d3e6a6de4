// The Jest preset's test environment: Jest's node environment plus, in every test file,
// globalThis.__MONGO_URI__ (the shared server's, or a server of the file's own when
// useSharedDBForAllJestWorkers is false) and globalThis.__MONGO_DB_NAME__ (the configured
// instance.dbName, else a fresh name per test file: parallel workers never share data). With
// a server of its own, globalThis.__SECANTUS_SERVER__ is that server (reset, snapshot,
// restore).
//
// jest-environment-node comes from the project (Jest installs it); it is looked up from the
// project root, then through Jest's own dependencies (pnpm does not hoist it).

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startMemoryServer, uniqueDatabaseName } from '../runner-support.js';
import type { MemoryServerLike } from '../runner-support.js';
import { readJestMongoConfig, readSharedState } from './config.js';

interface JestEnvironmentConfig {
  readonly globalConfig: { readonly rootDir: string };
  readonly projectConfig?: { readonly rootDir: string };
}

interface NodeEnvironment {
  global: Record<string, unknown>;
  setup(): Promise<void>;
  teardown(): Promise<void>;
}

type NodeEnvironmentClass = new (
  config: JestEnvironmentConfig,
  context: unknown,
) => NodeEnvironment;

/** jest-environment-node's class, from the project or from Jest's own dependencies. */
export function loadNodeEnvironment(projectDir: string): NodeEnvironmentClass {
  const chain = ['jest', '@jest/core', 'jest-config'];
  let from = join(projectDir, 'package.json');
  const bases = [from];
  for (const pkg of chain) {
    try {
      from = createRequire(from).resolve(`${pkg}/package.json`);
      bases.push(from);
    } catch {
      break;
    }
  }
  for (const base of bases) {
    let mod: { TestEnvironment?: unknown; default?: unknown };
    try {
      mod = createRequire(base)('jest-environment-node') as typeof mod;
    } catch {
      continue;
    }
    const cls = mod.TestEnvironment ?? mod.default;
    if (typeof cls === 'function') return cls as NodeEnvironmentClass;
  }
  throw new Error(
    "secantusdb's Jest preset needs jest-environment-node: install it beside jest (npm install -D jest-environment-node)",
  );
}

const Base = loadNodeEnvironment(process.cwd());

export default class SecantusEnvironment extends Base {
  private readonly rootDir: string;
  private server: MemoryServerLike | undefined;

  constructor(config: JestEnvironmentConfig, context: unknown) {
    super(config, context);
    this.rootDir = config.projectConfig?.rootDir ?? config.globalConfig.rootDir;
  }

  override async setup(): Promise<void> {
    const shared = readSharedState(this.rootDir);
    if (shared.mongoUri !== undefined) {
      this.global['__MONGO_URI__'] = shared.mongoUri;
    } else {
      const config = await readJestMongoConfig(this.rootDir);
      this.server = await startMemoryServer(config.mongodbMemoryServerOptions);
      this.global['__MONGO_URI__'] = this.server.getUri();
      this.global['__SECANTUS_SERVER__'] = this.server;
    }
    this.global['__MONGO_DB_NAME__'] = shared.mongoDBName ?? uniqueDatabaseName();
    await super.setup();
  }

  override async teardown(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
    await super.teardown();
  }
}
