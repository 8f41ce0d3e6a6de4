// The startup warnings about access control, logged once when the server starts and kept for
// getLog: 'startupWarnings' (mongod's startup_warnings_common.cpp).

import type { ServerConfig } from '../context.js';

export interface StartupWarning {
  readonly id: number;
  readonly msg: string;
  readonly attr?: Record<string, unknown>;
}

function isLoopbackHost(host: string): boolean {
  const h = host.trim();
  return h === 'localhost' || h === '::1' || h.startsWith('127.') || h === '::ffff:127.0.0.1';
}

export function startupWarnings(config: Pick<ServerConfig, 'auth' | 'bindIp'>): StartupWarning[] {
  if (config.auth) return [];
  const out: StartupWarning[] = [
    {
      id: 22120,
      msg: 'Access control is not enabled for the database. Read and write access to data and configuration is unrestricted',
    },
  ];
  const exposed = config.bindIp.split(',').filter((h) => h.trim() !== '' && !isLoopbackHost(h));
  if (exposed.length > 0) {
    // SecantusDB's own warning (mongod has no line for it): the server is reachable from other
    // hosts with nothing to stop them.
    out.push({
      id: 9150001,
      msg: 'This server listens on a non-loopback address without access control: anyone who can reach it can read, change and delete all data. Start it with --auth (and create a user) or bind it to 127.0.0.1',
      attr: { bindIp: config.bindIp },
    });
  }
  return out;
}
