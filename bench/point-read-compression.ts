// Point reads by _id on an in-process server, plain and through each wire compressor. Prints
// figures only; run with
//   npx tsx bench/point-read-compression.ts [--quick] [--plain-only]
//
// Two clients: the official driver (findOne({_id})) and a raw socket sending the same find as
// one OP_MSG and waiting for its reply (no driver overhead, so the server's per-message path
// shows; its process CPU time per query is reported too, steadier than latency). Sequential requests with distinct random keys, after a warm-up; each figure is the
// median of 3 rounds. --plain-only runs what a tree without compression can run too, so the
// same script measures "compression off" before and after a change (copy it into the other
// tree's bench/ with bench/lib/stats.ts and timing.ts).

import * as net from 'node:net';
import * as os from 'node:os';
import { MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { deserialize, serialize } from 'bson';
import { SecantusServer } from '../src/embed/index.js';
import { median } from './lib/stats.js';
import { timeSequential } from './lib/timing.js';

const quick = process.argv.includes('--quick');
const plainOnly = process.argv.includes('--plain-only');
const docs = 10_000;
const queries = quick ? 1000 : 5000;
const rounds = 3;

function time(n: number, run: (k: number) => Promise<unknown>): Promise<number[]> {
  return timeSequential(n, docs, run);
}

/** A minimal OP_MSG client: one request in flight, reply bytes resolved whole. */
class RawClient {
  private buf: Buffer = Buffer.alloc(0);
  private waiting: ((b: Buffer) => void) | undefined;
  private id = 1;
  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      if (this.buf.length >= 4 && this.buf.length >= this.buf.readInt32LE(0)) {
        const frame = this.buf;
        this.buf = Buffer.alloc(0);
        this.waiting?.(frame);
      }
    });
  }
  static connect(port: number): Promise<RawClient> {
    return new Promise((resolve) => {
      const s = net.connect({ port, host: '127.0.0.1' }, () => resolve(new RawClient(s)));
    });
  }
  command(body: Document): Promise<Buffer> {
    const doc = serialize(body);
    const m = Buffer.alloc(21 + doc.length);
    m.writeInt32LE(m.length, 0);
    m.writeInt32LE(this.id++, 4);
    m.writeInt32LE(2013, 12);
    m.set(doc, 21);
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.socket.write(m);
    });
  }
  close(): void {
    this.socket.destroy();
  }
}

const server = await SecantusServer.start({ replSet: '' });
const rows: string[] = [];
try {
  const loader = new MongoClient(server.uri);
  const coll = loader.db('bench').collection('points');
  const pad = 'lorem ipsum '.repeat(40);
  await coll.insertMany(Array.from({ length: docs }, (_, i): Document => ({ _id: i, k: i, pad })));
  await loader.close();

  const variants: Array<string | undefined> = plainOnly
    ? [undefined]
    : [undefined, 'zlib', 'snappy', 'zstd'];
  for (const compressor of variants) {
    const client = new MongoClient(
      server.uri,
      compressor === undefined ? {} : { compressors: [compressor as 'zlib'] },
    );
    await client.connect();
    const c = client.db('bench').collection('points');
    await time(500, (k) => c.findOne({ _id: k } as Document));
    const mean: number[] = [];
    const p50: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const ms = await time(queries, (k) => c.findOne({ _id: k } as Document));
      mean.push(ms.reduce((a, b) => a + b, 0) / ms.length);
      p50.push(median(ms));
    }
    rows.push(
      `| driver findOne, ${compressor ?? 'no compression'} | ${(median(mean) * 1000).toFixed(0)} µs | ${(median(p50) * 1000).toFixed(0)} µs |`,
    );
    await client.close();
  }

  const raw = await RawClient.connect(server.port);
  const find = (k: number): Promise<Buffer> =>
    raw.command({ find: 'points', filter: { _id: k }, limit: 1, singleBatch: true, $db: 'bench' });
  const check = deserialize((await find(7)).subarray(21)) as Document;
  if (check['cursor']?.['firstBatch']?.[0]?._id !== 7)
    throw new Error('raw find returned the wrong document');
  await time(1000, find);
  const mean: number[] = [];
  const p50: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const before = process.cpuUsage();
    const ms = await time(queries * 2, find);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / ms.length);
    mean.push(ms.reduce((a, b) => a + b, 0) / ms.length);
    p50.push(median(ms));
  }
  rows.push(
    `| raw OP_MSG find, no compression | ${(median(mean) * 1000).toFixed(0)} µs | ${(median(p50) * 1000).toFixed(0)} µs |`,
  );
  // CPU time is steadier than latency on a shared machine: server plus this thin client.
  rows.push(`| raw OP_MSG find, process CPU per query | ${median(cpu).toFixed(1)} µs | |`);
  raw.close();
} finally {
  await server.stop();
}

const load = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
console.log(
  `${docs.toLocaleString('en-US')} documents of ~500 bytes, memory engine, standalone; ${queries} queries x ${rounds} rounds; Node ${process.version}, ${os.cpus().length} CPU; load ${load}`,
);
console.log('| client | mean | p50 |\n|---|--:|--:|');
for (const r of rows) console.log(r);
