// Running one of the tools (secantus-dump, -restore, -export, -import) as its own process for a
// benchmark, from dist/ when built (npm run build), else through tsx, with its time and its
// peak memory (VmHWM, sampled from /proc until it exits); and the documents such a benchmark
// moves, loaded into a collection in batches.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Collection } from 'mongodb';
import { repoRoot } from './daemon.js';

export interface ToolRun {
  readonly ms: number;
  readonly peakRssMiB: number;
  readonly stderr: string;
}

function toolCommand(name: string): string[] {
  const built = join(repoRoot, 'dist/src/tools', `${name}.js`);
  return existsSync(built)
    ? [built]
    : ['--import', 'tsx', join(repoRoot, 'src/tools', `${name}.ts`)];
}

/** Runs a tool, sampling its peak resident memory (VmHWM) until it exits. */
export function runTool(name: string, toolArgs: readonly string[]): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...toolCommand(name), ...toolArgs], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let peakKiB = 0;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const sample = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const m = /VmHWM:\s+(\d+) kB/.exec(status);
        if (m !== null) peakKiB = Math.max(peakKiB, Number(m[1]));
      } catch {
        // the process is gone
      }
    }, 20);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sample);
      if (code !== 0) reject(new Error(`${name} exited with ${code}: ${stderr}`));
      else resolve({ ms: performance.now() - started, peakRssMiB: peakKiB / 1024, stderr });
    });
  });
}

export interface UserDocsOptions {
  /** Also a double (`ratio`) and a date (`when`): the types a format must keep. */
  readonly typed?: boolean;
  /** Called after each batch of 10,000 with the count inserted so far. */
  readonly onBatch?: (inserted: number, batchIndex: number) => void;
}

/** Inserts `count` user documents (_id 0..count-1), 10,000 a batch, unordered. */
export async function insertUserDocs(
  coll: Collection<{ _id: number }>,
  count: number,
  options: UserDocsOptions = {},
): Promise<void> {
  const batch = 10_000;
  for (let i = 0; i < count; i += batch) {
    const n = Math.min(batch, count - i);
    await coll.insertMany(
      Array.from({ length: n }, (_, k) => {
        const id = i + k;
        return {
          _id: id,
          name: `user-${id}`,
          email: `user${id}@example.com`,
          score: id % 1000,
          ...(options.typed === true
            ? { ratio: id / 7, when: new Date(1_700_000_000_000 + id * 1000) }
            : {}),
          tags: ['a', 'b', String(id % 17)],
          profile: { city: 'Paris', zip: String(75000 + (id % 20)), active: id % 2 === 0 },
        };
      }),
      { ordered: false },
    );
    options.onBatch?.(i + n, i / batch);
  }
}
