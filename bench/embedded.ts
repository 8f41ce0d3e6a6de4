// The embedded client (secantusdb/embedded, no socket) against the driver over a socket to
// the same server code, memory engine: point reads by _id, one request each, and insertMany.
//
//   npx tsx bench/embedded.ts [reads=2000] [docs=20000]
//
// Figures in docs/embedded.md. A short run: medians of 3 passes.

import { MongoClient } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';
import { open } from '../src/embed/embedded/index.js';

interface Row {
  _id: number;
  name: string;
  n: number;
}

interface Target {
  insertMany(docs: Row[]): Promise<unknown>;
  findOne(filter: { _id: number }): Promise<unknown>;
  deleteMany(filter: Record<string, never>): Promise<unknown>;
}

const reads = Number(process.argv[2] ?? 2000);
const docsN = Number(process.argv[3] ?? 20000);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

async function measure(c: Target): Promise<{ readsPerSec: number; insertsPerSec: number }> {
  const readRates: number[] = [];
  const insertRates: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    await c.deleteMany({});
    const docs = Array.from({ length: docsN }, (_, i) => ({ _id: i, name: `user${i}`, n: i % 97 }));
    let t = process.hrtime.bigint();
    await c.insertMany(docs);
    insertRates.push(docsN / (Number(process.hrtime.bigint() - t) / 1e9));
    t = process.hrtime.bigint();
    for (let i = 0; i < reads; i++) await c.findOne({ _id: (i * 7919) % docsN });
    readRates.push(reads / (Number(process.hrtime.bigint() - t) / 1e9));
  }
  return { readsPerSec: median(readRates), insertsPerSec: median(insertRates) };
}

const server = await SecantusServer.start({ storageEngine: 'memory' });
const driver = new MongoClient(server.uri);
await driver.connect();
const socket = await measure(driver.db('bench').collection<Row>('embedded'));
await driver.close();
await server.stop();

const embedded = await open({ engine: 'memory' });
const inProcess = await measure(embedded.db('bench').collection<Row>('embedded'));
await embedded.close();

const row = (name: string, r: { readsPerSec: number; insertsPerSec: number }): string =>
  `| ${name} | ${Math.round(r.readsPerSec)} | ${Math.round(r.insertsPerSec)} |`;
process.stdout.write(
  [
    `| client (memory engine) | point reads/s (${reads}) | insertMany docs/s (${docsN}) |`,
    '|---|---|---|',
    row('driver over the socket', socket),
    row('embedded (no socket)', inProcess),
  ].join('\n') + '\n',
);
