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
const docs = docsArg >= 0 ? Number(args[docsArg + 1]) : 200_000;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'secantus-bench-export-'));
  const server = await SecantusServer.start();
  const client = new MongoClient(server.uri);
  try {
    await client.connect();
    const coll = client.db('bench').collection<{ _id: number }>('docs');
    await insertUserDocs(coll, docs, { typed: true });
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
