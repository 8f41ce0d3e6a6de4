// An indexed point query against a collection scan, through the driver on an in-process
// server. Prints figures only; run with
//   npx tsx bench/index-point-query.ts [--quick] [--lmdb]
//
// 100k documents ({_id, k, g, s, pad}) with an index on k; the same find({k: v}) runs with
// the planner's plan (IXSCAN on k_1, one key and one document examined) and hinted to
// {$natural: 1} (COLLSCAN over every document). Latencies are per query, sequential, after
// a warm-up, with distinct random keys.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';
import { timeSequential } from './lib/timing.js';

const quick = process.argv.includes('--quick');
const lmdb = process.argv.includes('--lmdb');
const docs = 100_000;
const indexedQueries = quick ? 500 : 5000;
const scanQueries = quick ? 10 : 50;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function summary(label: string, ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const f = (n: number): string => `${n.toFixed(3).padStart(9)} ms`;
  return `${label.padEnd(34)} mean ${f(mean)}  p50 ${f(percentile(s, 50))}  p99 ${f(percentile(s, 99))}  (${s.length} queries)`;
}

function timeQueries(n: number, run: (k: number) => Promise<unknown>): Promise<number[]> {
  return timeSequential(n, docs, run);
}

const dir = lmdb ? fs.mkdtempSync(path.join(os.tmpdir(), 'secantus-bench-')) : undefined;
const server = await SecantusServer.start(dir === undefined ? {} : { dbPath: dir });
const client = new MongoClient(server.uri);
try {
  await client.connect();
  const coll = client.db('bench').collection('points');
  const pad = 'x'.repeat(200);
  let t = performance.now();
  const batch: Document[] = [];
  for (let i = 0; i < docs; i++) batch.push({ _id: i, k: i, g: i % 100, s: `s${i % 1000}`, pad });
  for (let i = 0; i < docs; i += 10_000) await coll.insertMany(batch.slice(i, i + 10_000));
  const loadMs = performance.now() - t;
  t = performance.now();
  await coll.createIndex({ k: 1 });
  const buildMs = performance.now() - t;

  const explain = await coll.find({ k: 4242 }).explain('executionStats');
  const stats = explain['executionStats'] as Document;
  const scanExplain = await coll.find({ k: 4242 }).hint({ $natural: 1 }).explain('executionStats');
  const scanStats = scanExplain['executionStats'] as Document;

  // Warm-up.
  await timeQueries(200, (k) => coll.findOne({ k }));
  await timeQueries(3, (k) => coll.find({ k }).hint({ $natural: 1 }).toArray());
  const indexed = await timeQueries(indexedQueries, (k) => coll.find({ k }).toArray());
  const scanned = await timeQueries(scanQueries, (k) =>
    coll.find({ k }).hint({ $natural: 1 }).toArray(),
  );
  const byId = await timeQueries(indexedQueries, (k) =>
    coll.find({ _id: k } as Document).toArray(),
  );

  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    `engine: ${lmdb ? 'lmdb' : 'memory'}, ${docs.toLocaleString('en-US')} documents of ~280 bytes, Node ${process.version}, ${os.cpus().length} CPU ${os.cpus()[0]?.model ?? ''}`,
  );
  console.log(
    `load: ${(loadMs / 1000).toFixed(1)} s, index build on k: ${(buildMs / 1000).toFixed(2)} s`,
  );
  const winning = (explain['queryPlanner'] as Document)['winningPlan'] as Document;
  console.log(
    `plan of find({k}): ${String(winning['stage'])} over ${String((winning['inputStage'] as Document | undefined)?.['stage'])}, keys examined ${stats['totalKeysExamined']}, documents examined ${stats['totalDocsExamined']}`,
  );
  console.log(
    `plan with hint $natural: COLLSCAN, documents examined ${scanStats['totalDocsExamined']}`,
  );
  console.log(summary('find({k}) via IXSCAN k_1', indexed));
  console.log(summary('find({_id}) via IDHACK', byId));
  console.log(summary('find({k}) via COLLSCAN', scanned));
  console.log(`index speed-up: ${(mean(scanned) / mean(indexed)).toFixed(0)}x`);
} finally {
  await client.close();
  await server.stop();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
}
