// External clients that are not dependencies of the project: Debian's pymongo
// (`apt-get install -y python3-pymongo`) and mongosh (`npm install --prefix /tmp/mongosh mongosh`,
// or MONGOSH=/path/to/mongosh). Tests that need one skip with a line saying how to install it.
//
// They run as child processes against an in-process server, so they must be started
// asynchronously: a synchronous spawn (execFileSync) blocks the event loop the server answers
// on, and the client's handshake then times out.

import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const pymongoMissing =
  'python3 with pymongo not installed (apt-get install -y python3-pymongo)';
export const mongoshMissing =
  'mongosh not installed (npm install --prefix /tmp/mongosh mongosh, or MONGOSH=/path/to/mongosh)';

/** Debian's interpreter first: a python3 earlier in PATH (pyenv, venv) may lack the package. */
export function pymongoPython(): { python: string; version: string } | undefined {
  for (const python of ['/usr/bin/python3', 'python3']) {
    const r = spawnSync(python, ['-c', 'import pymongo; print(pymongo.version)'], {
      encoding: 'utf8',
    });
    if (r.status === 0) return { python, version: r.stdout.trim() };
  }
  return undefined;
}

export function mongoshPath(): string | undefined {
  for (const p of [
    process.env['MONGOSH'],
    '/tmp/mongosh/node_modules/.bin/mongosh',
    '/tmp/mongosh-pkg/node_modules/.bin/mongosh',
  ]) {
    if (p !== undefined && p !== '' && existsSync(p)) return p;
  }
  return undefined;
}

/** Runs a client to completion without blocking the event loop; rejects on a non-zero exit. */
export async function runClient(file: string, args: readonly string[]): Promise<string> {
  const { stdout } = await execFileAsync(file, [...args], { encoding: 'utf8', timeout: 60_000 });
  return stdout;
}

/** mongosh --eval, without a startup file. */
export function runMongosh(mongosh: string, uri: string, code: string): Promise<string> {
  return runClient(mongosh, [uri, '--quiet', '--norc', '--eval', code]);
}
