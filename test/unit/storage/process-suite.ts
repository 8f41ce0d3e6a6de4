// What every engine with a data directory must do across processes, registered once per
// engine by lmdb.test.ts, sqlite.test.ts and jsonfile.test.ts: the directory lock (in this
// process and against another), and no acknowledged durable write lost to kill -9.

import { after, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DataDirectoryLockedError,
  type EngineName,
  type StorageEngine,
} from '../../../src/storage/engine.js';
import { lockFileName } from '../../../src/storage/lock-file.js';
import { openEngine } from '../../../src/storage/open.js';
import type { EngineHarness } from './contract.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const openModule = new URL('../../../src/storage/open.ts', import.meta.url).href;

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: string[];
  stderr: string;
}

/**
 * Run ES module code in a child `node --import tsx`, with `openEngine` in scope. `onLine`
 * sees stdout line by line and may kill the child.
 */
export function runChild(
  body: string,
  onLine?: (line: string, kill: () => void) => void,
): Promise<ChildResult> {
  const code = `const { openEngine } = await import(${JSON.stringify(openModule)});\n${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      lines.push(line);
      onLine?.(line, () => child.kill('SIGKILL'));
    }
  });
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, lines, stderr })),
  );
}

/**
 * Fresh data directories under one temporary root (removed after the test file), an engine
 * opened on one through openEngine, and the contract harness that reopens it there.
 */
export function diskEngineFixture(
  engine: EngineName,
  propertyRuns: number,
): {
  freshDir(): string;
  openAt(dir: string): Promise<StorageEngine>;
  readonly contract: EngineHarness;
} {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `secantus-${engine}-test-`));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  let dirs = 0;
  const freshDir = (): string => path.join(root, `db${dirs++}`);
  const pathOf = new WeakMap<StorageEngine, string>();
  const openAt = async (dir: string): Promise<StorageEngine> => {
    const e = await openEngine({ engine, path: dir });
    pathOf.set(e, dir);
    return e;
  };
  const contract: EngineHarness = {
    name: engine,
    open: () => openAt(freshDir()),
    reopen: async (e) => {
      const dir = pathOf.get(e);
      if (dir === undefined) throw new Error('reopen: engine not opened by this harness');
      await e.close();
      return openAt(dir);
    },
    propertyRuns,
  };
  return { freshDir, openAt, contract };
}

export interface ProcessHarness {
  readonly engine: EngineName;
  /** A new, empty data directory path. */
  freshDir(): string;
  /** Open the engine on `dir` in this process. */
  openAt(dir: string): Promise<StorageEngine>;
  /** Acknowledged writes before each kill -9 (one trial each). Default [150, 250]. */
  readonly killAfter?: readonly number[];
}

export function registerProcessSuite(h: ProcessHarness): void {
  describe(`data directory across processes: ${h.engine}`, () => {
    it('locks the data directory against a second engine in this process', async () => {
      const dir = h.freshDir();
      const e = await h.openAt(dir);
      assert.equal(
        fs.readFileSync(path.join(dir, lockFileName), 'utf8').trim(),
        String(process.pid),
      );
      await assert.rejects(
        h.openAt(dir),
        (err: unknown) => err instanceof DataDirectoryLockedError && err.holderPid === process.pid,
      );
      await e.close();
      assert.equal(fs.existsSync(path.join(dir, lockFileName)), false, 'close removes the lock');
      const again = await h.openAt(dir);
      await again.close();
    });

    it('locks the data directory against another process', async () => {
      const dir = h.freshDir();
      const e = await h.openAt(dir);
      const r = await runChild(`
        try {
          const e = await openEngine({ engine: ${JSON.stringify(h.engine)}, path: ${JSON.stringify(dir)} });
          console.log(JSON.stringify({ opened: true }));
          await e.close();
        } catch (err) {
          console.log(JSON.stringify({ name: err.name, holderPid: err.holderPid, message: err.message }));
        }`);
      assert.equal(r.code, 0, r.stderr);
      const got = JSON.parse(r.lines[0] ?? '{}') as Record<string, unknown>;
      assert.deepEqual(
        { name: got['name'], holderPid: got['holderPid'] },
        { name: 'DataDirectoryLockedError', holderPid: process.pid },
      );
      assert.match(String(got['message']), /in use by another secantusd process/);
      await e.close();
    });

    it('never loses an acknowledged durable write to kill -9', async () => {
      for (const killAt of h.killAfter ?? [150, 250]) {
        const dir = h.freshDir();
        let acked = 0;
        const r = await runChild(
          `
          const e = await openEngine({ engine: ${JSON.stringify(h.engine)}, path: ${JSON.stringify(dir)} });
          // Waves of concurrent writes, so acknowledgements come from shared commits.
          for (let i = 0; ; i += 16) {
            await Promise.all(Array.from({ length: 16 }, (_, j) =>
              e.write((t) => t.put('t', Buffer.from(String(i + j).padStart(8, '0')), Buffer.alloc(512, j)), { durable: true })
                .then(() => process.stdout.write((i + j) + '\\n'))));
          }`,
          (_line, kill) => {
            acked++;
            if (acked === killAt) kill();
          },
        );
        assert.equal(r.signal, 'SIGKILL', r.stderr);
        const ackedKeys = r.lines.map((l) => Number(l));
        const e = await h.openAt(dir); // also: the dead child's lock is stale and taken over
        try {
          const s = e.snapshot();
          for (const i of ackedKeys)
            assert.ok(
              s.get('t', Buffer.from(String(i).padStart(8, '0'))) !== undefined,
              `acked write ${i} lost`,
            );
          assert.ok(s.count('t') >= ackedKeys.length);
          assert.ok(e.committedSeq >= ackedKeys.length);
          s.release();
        } finally {
          await e.close();
        }
      }
    });
  });
}
