// Everything a harness starts or creates is registered here, so that it is undone however
// the harness ends: normal return, thrown error, Ctrl-C (SIGINT), SIGTERM, or an uncaught
// exception. Child processes get SIGKILL on the way out (a graceful stop is the normal path,
// done by their owners before this runs); temporary directories are removed.
//
// What cannot be covered: a SIGKILL of the harness itself. Node has no parent-death signal,
// so a daemon started by a harness killed with -9 outlives it (it still listens only on
// 127.0.0.1 and its data directory is under the system temp dir).

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
const hooks = new Set<() => void>();
let installed = false;

function killAll(): void {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      try {
        c.kill('SIGKILL');
      } catch {
        // Already gone: nothing to do.
      }
    }
  }
  children.clear();
}

function removeAll(): void {
  for (const d of dirs) {
    try {
      rmSync(d, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Best effort: a directory that cannot be removed is reported by nobody; it is in tmp.
    }
  }
  dirs.clear();
}

/** Synchronous: runs from process 'exit', where nothing asynchronous gets to finish. */
export function cleanupNow(): void {
  for (const h of hooks) {
    try {
      h();
    } catch {
      // Keep going: the remaining children and directories matter more than one hook.
    }
  }
  hooks.clear();
  killAll();
  removeAll();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', cleanupNow);
  const onSignal = (signal: NodeJS.Signals, code: number): void => {
    process.stderr.write(`\nbench: ${signal}, stopping child processes and removing temp dirs\n`);
    cleanupNow();
    process.exit(code);
  };
  process.once('SIGINT', () => onSignal('SIGINT', 130));
  process.once('SIGTERM', () => onSignal('SIGTERM', 143));
}

/** Register a child process: it is SIGKILLed if still alive when the harness exits. */
export function trackChild(child: ChildProcess): ChildProcess {
  install();
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** A fresh directory under the system temp dir, removed when the harness exits at the latest. */
export function makeTempDir(prefix: string): string {
  install();
  const dir = mkdtempSync(join(tmpdir(), `secantus-bench-${prefix}-`));
  dirs.add(dir);
  return dir;
}

/** Remove a directory made by makeTempDir now (its owner is done with it). */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  dirs.delete(dir);
}

/** A synchronous undo step (e.g. stopping a progress bar so the terminal is left clean). */
export function onCleanup(hook: () => void): () => void {
  install();
  hooks.add(hook);
  return () => hooks.delete(hook);
}
