// Regression guard: every test listed in conformance/expected-pass.txt must still pass.
// Runs the conformance CLI in --check mode (only the listed tests, so it stays quick) in a
// child process, against an in-process server (or SECANTUS_URI).
import { it } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readExpected } from './lib/report.js';
import { serverAvailable } from './lib/server.js';
import { specsDir, specsMissing } from '../helpers/specs.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
// A bound on a hang, not a speed target: ~100 s on an idle 2-core machine, ~3 min when shared.
const LIMIT_MS = 480_000;

it(
  'tests listed in conformance/expected-pass.txt still pass',
  { timeout: LIMIT_MS + 10_000 },
  async (t) => {
    const listed = await readExpected(join(REPO, 'conformance', 'expected-pass.txt'));
    if (listed.length === 0) {
      t.skip('conformance/expected-pass.txt lists no tests yet');
      return;
    }
    if (process.env['SPECS_DIR'] === undefined && specsDir('unified') === undefined) {
      t.skip(specsMissing('unified'));
      return;
    }
    if (!serverAvailable()) {
      t.skip('no server: src/embed/index.ts does not exist and SECANTUS_URI is not set');
      return;
    }
    const { code, output } = await new Promise<{ code: number | null; output: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          [
            '--import',
            'tsx',
            join('test', 'conformance', 'run.ts'),
            '--check',
            '--listed-only',
            '--no-results',
          ],
          { cwd: REPO, timeout: LIMIT_MS, maxBuffer: 64 * 1024 * 1024 },
          (error, stdout, stderr) => {
            const exit = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
            resolve({ code: exit, output: `${stdout}${stderr}` });
          },
        );
      },
    );
    const tail = output.split('\n').slice(-80).join('\n');
    assert.equal(code, 0, `conformance --check failed (exit ${String(code)}):\n${tail}`);
  },
);
