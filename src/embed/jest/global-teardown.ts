// The Jest preset's globalTeardown: stops the shared server globalSetup started for the project.

import { stateVariable } from './config.js';
import { sharedServers } from './global-setup.js';

interface JestConfig {
  readonly rootDir: string;
}

export default async function globalTeardown(
  globalConfig: JestConfig,
  projectConfig?: JestConfig,
): Promise<void> {
  const rootDir = projectConfig?.rootDir ?? globalConfig.rootDir;
  const servers = sharedServers();
  const server = servers.get(rootDir);
  servers.delete(rootDir);
  delete process.env[stateVariable(rootDir)];
  await server?.stop();
}
