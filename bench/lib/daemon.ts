// Starting the built daemon (dist/src/cli/secantusd.js) as a child process for a benchmark:
// a fresh data directory, `--port 0`, readiness from its "Waiting for connections" log line,
// and a stop that always ends the process and removes the directory.
//
// The daemon runs from dist, not through tsx, because that is how it ships: the figures
// must not include a TypeScript loader. ensureBuilt() rebuilds when src is newer than dist.

import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { makeTempDir, removeTempDir, trackChild } from './cleanup.js';
import type { EngineName } from '../../src/storage/engine.js';

export const repoRoot = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
export const daemonScript = join(repoRoot, 'dist/src/cli/secantusd.js');

export type { EngineName };

export interface DaemonOptions {
  readonly engine: EngineName;
  /** Extra daemon flags (e.g. --oplog-async once it exists). */
  readonly args?: readonly string[];
  /** Flags for node itself (e.g. --cpu-prof). */
  readonly nodeArgs?: readonly string[];
  /** How long to wait for the ready line before giving up. */
  readonly startTimeoutMs?: number;
  /** Keep the data directory after stop (for inspection); default false. */
  readonly keepDir?: boolean;
  /**
   * Use this data directory instead of a fresh one (to restart on the data of an earlier
   * run); the caller owns it, so it is never removed here.
   */
  readonly dbPath?: string;
  /** Copy the daemon's stdout (its log, and what node flags such as --trace-gc print) here. */
  readonly stdoutCopy?: string | undefined;
}

export interface Daemon {
  readonly port: number;
  readonly pid: number;
  readonly dbPath: string;
  /** A driver URI; directConnection skips replica-set discovery, which is not what we measure. */
  readonly uri: string;
  /** SIGTERM, wait for a clean exit (bounded), SIGKILL if it does not come; remove the dir. */
  stop(): Promise<void>;
}

function newestMtime(dir: string, ext: string, bound = 10_000): number {
  // Bounded walk: src/ has a few hundred files; the bound only guards against a symlink loop.
  let newest = 0;
  const stack = [dir];
  let visited = 0;
  while (stack.length > 0 && visited++ < bound) {
    const d = stack.pop() as string;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.name.endsWith(ext)) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  }
  return newest;
}

export interface BuildState {
  readonly rebuilt: boolean;
  /** tsc's complaint when the tree does not type-check (it still emits; we run what it emitted). */
  readonly buildErrors: string | undefined;
}

/**
 * Make sure dist holds the daemon of the current src. Other engineers edit src while
 * benchmarks run, so a build may report type errors in their work in progress; tsc emits
 * anyway, and the harness records that fact in its JSON instead of refusing to run.
 */
export function ensureBuilt(log: (line: string) => void): BuildState {
  const stale =
    !existsSync(daemonScript) ||
    newestMtime(join(repoRoot, 'src'), '.ts') > statSync(daemonScript).mtimeMs;
  if (!stale) return { rebuilt: false, buildErrors: undefined };
  log('dist is older than src: npm run build ...');
  const r = spawnSync('npm', ['run', 'build', '--silent'], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (!existsSync(daemonScript))
    throw new Error(`build produced no ${daemonScript}:\n${r.stdout}${r.stderr}`);
  const failed = r.status !== 0;
  if (failed) log('build reported errors (running what tsc emitted); see buildErrors in the JSON');
  return {
    rebuilt: true,
    buildErrors: failed ? `${r.stdout}${r.stderr}`.slice(0, 4000) : undefined,
  };
}

interface LogLine {
  readonly msg?: unknown;
  readonly attr?: { readonly port?: unknown };
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const dbPath = options.dbPath ?? makeTempDir(`db-${options.engine}`);
  const ownsDir = options.dbPath === undefined && options.keepDir !== true;
  const args = [
    ...(options.nodeArgs ?? []),
    daemonScript,
    '--port',
    '0',
    '--bind_ip',
    '127.0.0.1',
    '--dbpath',
    dbPath,
    '--storageEngine',
    options.engine,
    ...(options.args ?? []),
  ];
  const child = trackChild(
    spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const stderrTail: string[] = [];
  // Both pipes are read for the daemon's whole life: a pipe nobody drains fills up and
  // blocks the daemon's next log write, which would show up as a latency spike.
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrTail.push(chunk);
    if (stderrTail.length > 20) stderrTail.shift();
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  if (options.stdoutCopy !== undefined) {
    const copy = createWriteStream(options.stdoutCopy, { flags: 'a' });
    lines.on('line', (line) => copy.write(`${line}\n`));
    lines.once('close', () => copy.end());
  }
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `secantusd did not report "Waiting for connections" within ${options.startTimeoutMs ?? 30_000} ms`,
        ),
      );
    }, options.startTimeoutMs ?? 30_000);
    lines.on('line', (line) => {
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line) as LogLine;
      } catch {
        return;
      }
      if (parsed.msg === 'Waiting for connections' && typeof parsed.attr?.port === 'number') {
        clearTimeout(timer);
        resolve(parsed.attr.port);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `secantusd exited (code ${String(code)}) before it was ready: ${stderrTail.join('').slice(-2000)}`,
        ),
      );
    });
  }).catch((e: unknown) => {
    if (options.dbPath === undefined) removeTempDir(dbPath);
    throw e;
  });

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        // A clean stop flushes storage (and writes a --cpu-prof profile); bounded all the same.
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      }
      lines.close();
      if (ownsDir) removeTempDir(dbPath);
    })();
    return stopped;
  };
  if (child.pid === undefined) throw new Error('secantusd: no pid');
  return {
    port,
    pid: child.pid,
    dbPath,
    uri: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    stop,
  };
}

/**
 * Whether the built daemon accepts a flag: its option parser is strict, so an unknown flag
 * exits with code 2 before anything starts. `--version` makes a known one exit 0 at once.
 */
export function daemonSupportsFlag(flag: string): {
  readonly supported: boolean;
  readonly reason: string;
} {
  const r = spawnSync(process.execPath, [daemonScript, flag, '--version'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (r.status === 0) return { supported: true, reason: '' };
  const why =
    (r.stderr || r.stdout).split('\n').find((l) => l.trim() !== '') ?? `exit ${String(r.status)}`;
  return { supported: false, reason: why.trim() };
}
