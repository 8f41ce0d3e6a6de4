// A benchmark's worker: a forked Node process (run through tsx) that talks to the harness over
// IPC. `next` waits for its next message of some types, so a harness can release all its
// workers at once and wait for every one of them (the synchronized start of a phase); a
// worker that exits or stays silent past the timeout is an error, never a hang.

import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { trackChild } from './cleanup.js';
import { repoRoot } from './daemon.js';

export interface WorkerProcess<From extends { readonly type: string }, To> {
  readonly child: ChildProcess;
  /** The first message not yet taken whose type is one of `type`. */
  next(type: From['type'] | readonly From['type'][], timeoutMs: number): Promise<From>;
  send(m: To): void;
}

export interface WorkerOptions {
  /** The worker's own name in an error, e.g. (pid) => `writer ${pid}`. */
  readonly name: (child: ChildProcess) => string;
  /** The error when the process has exited. */
  readonly exitedMessage: (child: ChildProcess) => string;
}

/** Forks `script` and waits for its 'hello'. */
export async function forkWorker<From extends { readonly type: string }, To>(
  script: URL,
  options: WorkerOptions,
): Promise<WorkerProcess<From, To>> {
  const child = trackChild(
    fork(script.pathname, [], {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const inbox: From[] = [];
  let waiter: (() => void) | undefined;
  child.on('message', (m: unknown) => {
    inbox.push(m as From);
    waiter?.();
  });
  child.once('exit', () => waiter?.());
  const next = async (
    type: From['type'] | readonly From['type'][],
    timeoutMs: number,
  ): Promise<From> => {
    const types: readonly string[] = typeof type === 'string' ? [type] : type;
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const i = inbox.findIndex((m) => types.includes(m.type));
      if (i >= 0) return inbox.splice(i, 1)[0] as From;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(options.exitedMessage(child));
      const left = deadline - performance.now();
      if (left <= 0)
        throw new Error(`${options.name(child)}: no '${types.join('|')}' within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiter = () => {
          clearTimeout(timer);
          waiter = undefined;
          resolve();
        };
      });
    }
  };
  const w: WorkerProcess<From, To> = { child, next, send: (m) => child.send(m as object) };
  await w.next('hello' as From['type'], 60_000);
  return w;
}
