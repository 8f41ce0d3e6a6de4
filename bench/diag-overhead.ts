// Point reads by _id through the driver against servers built from two source trees, runs
// alternated, so the cost of the per-command counters and the slow-operation check can be
// compared on a shared, noisy machine. Usage:
//   npx tsx bench/diag-overhead.ts <before-tree> <after-tree> [rounds] [reads]
// e.g. npx tsx bench/diag-overhead.ts ../main . 7 3000

import { MongoClient } from 'mongodb';
import { resolve } from 'node:path';

interface Embedded {
  start(options?: object): Promise<{ uri: string; stop(): Promise<void> }>;
}

async function microsPerRead(tree: string, reads: number): Promise<number> {
  const mod = (await import(resolve(tree, 'src/embed/index.ts'))) as { SecantusServer: Embedded };
  const server = await mod.SecantusServer.start();
  const client = new MongoClient(server.uri);
  await client.connect();
  const c = client.db('bench').collection<{ _id: number; v: string }>('c');
  await c.insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: i, v: 'x'.repeat(100) })));
  for (let i = 0; i < 500; i++) await c.findOne({ _id: i % 1000 });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < reads; i++) await c.findOne({ _id: (i * 7919) % 1000 });
  const micros = Number(process.hrtime.bigint() - t0) / 1000 / reads;
  await client.close();
  await server.stop();
  return micros;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

const [before = '', after = '.', roundsArg = '7', readsArg = '3000'] = process.argv.slice(2);
const rounds = Number(roundsArg);
const reads = Number(readsArg);
const a: number[] = [];
const b: number[] = [];
for (let r = 0; r < rounds; r++) {
  a.push(await microsPerRead(before, reads));
  b.push(await microsPerRead(after, reads));
}
process.stdout.write(
  `point read by _id, µs per call (median of ${rounds}, ${reads} reads each)\n` +
    `  before (${before}): ${median(a).toFixed(1)}  [${a.map((x) => x.toFixed(0)).join(' ')}]\n` +
    `  after  (${after}): ${median(b).toFixed(1)}  [${b.map((x) => x.toFixed(0)).join(' ')}]\n`,
);
