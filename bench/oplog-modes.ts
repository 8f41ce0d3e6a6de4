// Insert throughput with each oplog write mode (default, --oplog-async, --oplog-nonlogged,
// both), through the driver on an in-process server on LMDB. Prints figures only; run with
//   npx tsx bench/oplog-modes.ts [--quick]
//
// Two workloads per mode, on a fresh data directory each time, modes interleaved over the
// repetitions (the machine is shared: its load drifts), medians reported:
// - insertMany: one client, batches of 100 documents of ~1 KiB, sequential;
// - insertOne x 16: sixteen clients each inserting one ~1 KiB document at a time (group
//   commit shares fsyncs between them).
// Every write is acknowledged with the default write concern (on disk); the async modes are
// stopped cleanly so their queued entries are written, and the oplog is counted afterwards.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';
import type { SecantusServerOptions } from '../src/embed/index.js';

const quick = process.argv.includes('--quick');
const reps = quick ? 1 : 3;
const manyDocs = quick ? 5_000 : 10_000;
const oneDocs = quick ? 2_000 : 3_000;
const pad = 'x'.repeat(1000);

const modes: ReadonlyArray<{ name: string; options: SecantusServerOptions }> = [
  { name: 'default', options: {} },
  { name: '--oplog-async', options: { oplogAsync: true } },
  { name: '--oplog-nonlogged', options: { oplogNonlogged: true } },
  { name: 'both', options: { oplogAsync: true, oplogNonlogged: true } },
];

async function run(options: SecantusServerOptions): Promise<{ many: number; one: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secantus-oplogbench-'));
  let server = await SecantusServer.start({ dbPath: dir, ...options });
  const clients: MongoClient[] = [];
  try {
    const main = new MongoClient(server.uri, { maxPoolSize: 32 });
    clients.push(main);
    const many = main.db('b').collection<{ _id: number; pad: string }>('many');
    let t = performance.now();
    for (let i = 0; i < manyDocs; i += 100)
      await many.insertMany(Array.from({ length: 100 }, (_, k) => ({ _id: i + k, pad })));
    const manyRate = (manyDocs * 1000) / (performance.now() - t);
    const one = main.db('b').collection<{ _id: number; pad: string }>('one');
    t = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < oneDocs; i = next++) await one.insertOne({ _id: i, pad });
      }),
    );
    const oneRate = (oneDocs * 1000) / (performance.now() - t);
    await main.close();
    clients.length = 0;
    // A clean stop writes what is queued; the restarted server must show every entry.
    await server.stop();
    server = await SecantusServer.start({ dbPath: dir, ...options });
    const check = new MongoClient(server.uri);
    clients.push(check);
    // (find: the oplog is read through find, not aggregate)
    const entries = (
      await check
        .db('local')
        .collection('oplog.rs')
        .find({ op: 'i', ns: { $in: ['b.many', 'b.one'] } }, { projection: { ts: 1 } })
        .toArray()
    ).length;
    if (entries !== manyDocs + oneDocs)
      throw new Error(`oplog has ${entries} insert entries, expected ${manyDocs + oneDocs}`);
    return { many: manyRate, one: oneRate };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const results = new Map<string, { many: number[]; one: number[] }>(
  modes.map((m) => [m.name, { many: [], one: [] }]),
);
for (let r = 0; r < reps; r++) {
  // Rotate the order each repetition so drift in the machine's load spreads over all modes.
  for (let k = 0; k < modes.length; k++) {
    const m = modes[(k + r) % modes.length] as (typeof modes)[number];
    process.stderr.write(`rep ${r + 1}/${reps}: ${m.name}\n`);
    const x = await run(m.options);
    const slot = results.get(m.name) as { many: number[]; one: number[] };
    slot.many.push(x.many);
    slot.one.push(x.one);
  }
}
const load = os.loadavg()[0]?.toFixed(2) ?? '?';
console.log(
  `${os.cpus().length} cores, Node ${process.version}, load ${load}; ${reps} repetition(s), medians; ~1 KiB documents, default write concern (on disk)\n`,
);
console.log(
  '| oplog mode | insertMany (1 client, 100/batch) docs/s | insertOne x 16 clients docs/s |',
);
console.log('|---|--:|--:|');
const base = results.get('default') as { many: number[]; one: number[] };
for (const m of modes) {
  const x = results.get(m.name) as { many: number[]; one: number[] };
  const rel = (a: number[], b: number[]): string =>
    m.name === 'default' ? '' : ` (${(median(a) / median(b)).toFixed(2)}×)`;
  console.log(
    `| ${m.name} | ${Math.round(median(x.many)).toLocaleString('en-US')}${rel(x.many, base.many)} | ${Math.round(median(x.one)).toLocaleString('en-US')}${rel(x.one, base.one)} |`,
  );
}
