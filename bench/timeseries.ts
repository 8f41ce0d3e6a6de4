// Time-series collections against a plain collection holding the same measurements: insertMany
// throughput, a query on the meta field and one on a time range (which reach the buckets
// through control.min/max and meta), and the buckets' count. Prints figures only:
//   npx tsx bench/timeseries.ts [--quick]
// In-process memory server; each query is run a few times and the median is printed (ms).

import { MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';

const quick = process.argv.includes('--quick');
const total = quick ? 20_000 : 100_000;
const sensors = 20;
const batch = 1000;
const t0 = Date.UTC(2024, 0, 1);

function measurement(i: number): Document {
  return { sensor: `s${i % sensors}`, t: new Date(t0 + i * 1000), v: i % 97 };
}

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const server = await SecantusServer.start({});
  const client = new MongoClient(server.uri);
  try {
    const db = client.db('bench_ts');
    await db.createCollection('ts', { timeseries: { timeField: 't', metaField: 'sensor' } });
    await db.createCollection('plain');
    const rows: string[] = [];
    for (const name of ['ts', 'plain']) {
      const c = db.collection(name);
      const start = performance.now();
      for (let i = 0; i < total; i += batch) {
        const docs: Document[] = [];
        for (let j = i; j < Math.min(total, i + batch); j++) docs.push(measurement(j));
        await c.insertMany(docs);
      }
      const insertMs = performance.now() - start;
      const lo = new Date(t0 + (total / 2) * 1000);
      const hi = new Date(t0 + (total / 2 + 600) * 1000);
      const meta = await median(3, () => c.find({ sensor: 's3' }).toArray());
      const range = await median(3, () => c.find({ t: { $gte: lo, $lt: hi } }).toArray());
      const count = await median(3, () => c.countDocuments({ sensor: 's3', v: { $lt: 10 } }));
      rows.push(
        `${name.padEnd(6)} insert ${Math.round((total / insertMs) * 1000)} docs/s  ` +
          `meta query ${meta.toFixed(1)} ms  10-minute range ${range.toFixed(1)} ms  ` +
          `count ${count.toFixed(1)} ms`,
      );
    }
    const buckets = await db.collection('system.buckets.ts').countDocuments();
    console.log(`${total} measurements, ${sensors} sensors, one a second; ${buckets} buckets`);
    for (const r of rows) console.log(r);
  } finally {
    await client.close();
    await server.stop();
  }
}

await main();
