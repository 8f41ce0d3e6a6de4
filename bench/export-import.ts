// secantus-export and secantus-import on one collection, in each format (JSON lines,
// canonical JSON, CSV, Parquet): time, throughput, file size, and the tool's peak memory
// (VmHWM of its process), which stays bounded: documents are streamed (Parquet: one row group
// of at most limits.parquetRowGroupRowsMax rows is held; its schema read costs a second pass).
//
//   npx tsx bench/export-import.ts [--docs 200000]
//
// The server runs in this process (memory engine); each tool runs as its own process, from
// dist/ when built (npm run build), else through tsx. Figures are one run on a shared machine:
// compare them only within a run.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';

const args = process.argv.slice(2);
const docsArg = args.indexOf('--docs');
const docs = docsArg >= 0 ? Number(args[docsArg + 1]) : 200_000;
const root = join(import.meta.dirname, '..');

function toolCommand(name: string): string[] {
  const built = join(root, 'dist/src/tools', `${name}.js`);
  return existsSync(built) ? [built] : ['--import', 'tsx', join(root, 'src/tools', `${name}.ts`)];
}

interface ToolRun {
  readonly ms: number;
  readonly peakRssMiB: number;
  readonly stderr: string;
}

/** Runs a tool, sampling its peak resident memory (VmHWM) until it exits. */
function runTool(name: string, toolArgs: readonly string[]): Promise<ToolRun> {
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

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'secantus-bench-export-'));
  const server = await SecantusServer.start();
  const client = new MongoClient(server.uri);
  try {
    await client.connect();
    const coll = client.db('bench').collection<{ _id: number }>('docs');
    const batch = 10_000;
    for (let i = 0; i < docs; i += batch) {
      const n = Math.min(batch, docs - i);
      await coll.insertMany(
        Array.from({ length: n }, (_, k) => ({
          _id: i + k,
          name: `user-${i + k}`,
          email: `user${i + k}@example.com`,
          score: (i + k) % 1000,
          ratio: (i + k) / 7,
          when: new Date(1_700_000_000_000 + (i + k) * 1000),
          tags: ['a', 'b', String((i + k) % 17)],
          profile: {
            city: 'Paris',
            zip: String(75000 + ((i + k) % 20)),
            active: (i + k) % 2 === 0,
          },
        })),
        { ordered: false },
      );
    }
    const formats: Array<[string, string[], string[]]> = [
      ['json (relaxed, one a line)', [], []],
      ['json --jsonFormat=canonical', ['--jsonFormat=canonical'], []],
      [
        'csv (8 fields)',
        ['--type=csv', '--fields=_id,name,email,score,ratio,when,tags,profile.city'],
        ['--type=csv', '--headerline'],
      ],
      ['parquet', ['--type=parquet'], ['--type=parquet']],
    ];
    const lines = [
      `${docs.toLocaleString('en-US')} documents of 8 fields (string, int, double, date, array, document), server in the harness process (memory engine), node ${process.version}`,
      '',
      '| format | file | export | import | peak RSS export / import |',
      '|---|--:|--:|--:|--:|',
    ];
    const rate = (r: ToolRun): string =>
      `${(r.ms / 1000).toFixed(1)} s, ${Math.round(docs / (r.ms / 1000)).toLocaleString('en-US')} docs/s`;
    for (const [name, exportArgs, importArgs] of formats) {
      const file = join(dir, `out-${lines.length}`);
      const e = await runTool('secantus-export', [
        '--uri',
        server.uri,
        '-d',
        'bench',
        '-c',
        'docs',
        '-o',
        file,
        ...exportArgs,
      ]);
      const i = await runTool('secantus-import', [
        '--uri',
        server.uri,
        '-d',
        'bench',
        '-c',
        `in${lines.length}`,
        '--file',
        file,
        ...importArgs,
      ]);
      const n = await client.db('bench').collection(`in${lines.length}`).estimatedDocumentCount();
      if (n !== docs) throw new Error(`${name}: imported ${n} of ${docs}`);
      const size = statSync(file).size;
      lines.push(
        `| ${name} | ${(size / 1024 / 1024).toFixed(1)} MiB | ${rate(e)} | ${rate(i)} | ${e.peakRssMiB.toFixed(0)} / ${i.peakRssMiB.toFixed(0)} MiB |`,
      );
      process.stderr.write(`${name} done\n`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await client.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
