// The Jest preset's globalTeardown: stops the shared server globalSetup started.

import type { MemoryServerLike } from '../runner-support.js';
import { stateVariable } from './config.js';
import { serverKey } from './global-setup.js';

export default async function globalTeardown(): Promise<void> {
  const slot = globalThis as Record<symbol, MemoryServerLike | undefined>;
  const server = slot[serverKey];
  slot[serverKey] = undefined;
  delete process.env[stateVariable];
  await server?.stop();
}
