// An in-process server leaves nothing behind once stopped: a test runner's process (Jest,
// Vitest, node:test) must exit by itself. Each feature that starts a helper thread or a timer
// (the regular expression workers, SCRAM's key derivation off the loop, wire compression) is
// used in a child process, which must then exit on its own. A handle left referenced (an idle
// worker, an interval) makes the child hang and this test fail at its bound.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const probe = fileURLToPath(new URL('../helpers/exit-probe.ts', import.meta.url));

test('a stopped in-process server lets the process exit by itself', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', probe], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = await new Promise<number | 'hung'>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('hung');
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? -1);
    });
  });
  assert.equal(exited, 0, `child ${String(exited)}; stdout: ${out}; stderr: ${err.slice(-2000)}`);
  assert.deepEqual(JSON.parse(out), { found: 1, counted: 1 });
});
