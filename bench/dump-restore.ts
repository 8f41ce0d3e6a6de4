// secantus-dump and secantus-restore on a large collection: time, throughput, output size, and
// the tools' peak memory (VmHWM of the tool's process), which must stay bounded whatever the
// collection's size because documents are streamed, never held whole.
//
//   npx tsx bench/dump-restore.ts [--docs 1000000] [--gzip]
//
// The server runs in this process (memory engine); each tool runs as its own process, from
// dist/ when built (npm run build), else through tsx. Figures are one run on a shared machine:
// compare them only within a run.

import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';
import { insertUserDocs, runTool } from './lib/tool-process.js';
import type { ToolRun } from './lib/tool-process.js';

const args = process.argv.slice(2);
const docsArg = args.indexOf('--docs');
const docs = docsArg >= 0 ? Number(args[docsArg + 1]) : 1_000_000;
const gzip = args.includes('--gzip');

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'secantus-bench-dump-'));
  const source = await SecantusServer.start();
  const target = await SecantusServer.start();
  const client = new MongoClient(source.uri);
  try {
    await client.connect();
    const coll = client.db('bench').collection<{ _id: number }>('docs');
    const t0 = performance.now();
    await insertUserDocs(coll, docs, {
      onBatch: (inserted, batchIndex) => {
        if (batchIndex % 10 === 0) process.stderr.write(`\rloading ${inserted}/${docs}`);
      },
    });
    process.stderr.write(
      `\rloaded ${docs} documents in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    const archive = join(dir, gzip ? 'bench.archive.gz' : 'bench.archive');
    const flags = gzip ? ['--gzip'] : [];
    const d = await runTool('secantus-dump', [
      '--uri',
      source.uri,
      `--archive=${archive}`,
      ...flags,
    ]);
    const r = await runTool('secantus-restore', [
      '--uri',
      target.uri,
      `--archive=${archive}`,
      ...flags,
    ]);
    const check = new MongoClient(target.uri);
    await check.connect();
    const restored = await check.db('bench').collection('docs').estimatedDocumentCount();
    await check.close();
    if (restored !== docs) throw new Error(`restored ${restored} of ${docs} documents`);
    const size = statSync(archive).size;
    const row = (what: string, run: ToolRun): string =>
      `| ${what} | ${(run.ms / 1000).toFixed(1)} s | ${Math.round(docs / (run.ms / 1000)).toLocaleString('en-US')} docs/s | ${run.peakRssMiB.toFixed(0)} MiB |`;
    process.stdout.write(
      [
        `${docs.toLocaleString('en-US')} documents, archive${gzip ? ' (gzip)' : ''} of ${(size / 1024 / 1024).toFixed(1)} MiB, server in the harness process (memory engine), node ${process.version}`,
        '',
        '| tool | time | throughput | peak RSS of the tool |',
        '|---|--:|--:|--:|',
        row('secantus-dump --archive', d),
        row('secantus-restore --archive', r),
        '',
      ].join('\n'),
    );
  } finally {
    await client.close();
    await source.stop();
    await target.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
