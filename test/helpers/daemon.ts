// Test helper: secantusd (from dist/, so `npm run build` first) as a child process on a
// kernel-chosen port, for tests that kill and restart it.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const daemonScript = join(import.meta.dirname, '../../dist/src/cli/secantusd.js');

export interface Daemon {
  readonly proc: ChildProcess;
  readonly port: number;
  /** A connection string that talks to this one process. */
  readonly uri: string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** Start secantusd on `dbPath` and wait for its "Waiting for connections" log line. */
export function startDaemon(
  dbPath: string,
  extraArgs: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Daemon> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [daemonScript, '--port', '0', '--dbpath', dbPath, ...extraArgs],
      { stdio: ['ignore', 'pipe', 'pipe'], env },
    );
    const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`secantusd did not start within 90 s: ${out} ${err}`));
    }, 90_000);
    proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      // Only whole lines: the last element may be a line still being written.
      for (const line of out.split('\n').slice(0, -1)) {
        if (!line.includes('Waiting for connections')) continue;
        const port = (JSON.parse(line) as { attr: { port: number } }).attr.port;
        clearTimeout(timer);
        out = '';
        resolve({ proc, port, uri: `mongodb://127.0.0.1:${port}/?directConnection=true`, exited });
        return;
      }
      // Keep memory bounded: only the unfinished last line is needed.
      out = out.slice(out.lastIndexOf('\n') + 1);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`secantusd exited with ${code}: ${err}`));
    });
  });
}

/** SIGKILL (or another signal) and wait until the process is gone. */
export async function killDaemon(
  d: Daemon,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<number | null> {
  d.proc.kill(signal);
  return d.exited;
}
