// Fairness: while one client runs a long operation, another connection pings every 10 ms.
// For each operation the report gives its duration (and outcome), the pinger's p50 / p99 /
// max round trip during it, and the daemon's peak resident memory (RSS, from /proc). The
// target (issue 14): ping p99 <= 20 ms and max <= 50 ms during every operation.
//
//   npx tsx bench/fairness.ts [--quick] [--out bench/results] [--only <substring>]...
//
// --only (repeatable) runs just the rows whose name contains one of the substrings and
// writes no result files, so a single row can be measured before and after a change.
//
// The daemon is the built one (dist/), on the memory engine, in a child process; the long
// operation runs here, the pinger in a process of its own (bench/fairness-pinger.ts), so the
// driver's work for the operation in this process does not delay the pings. Rows owned by other work
// (index builds, many-document writes, TTL passes, reply checks) are printed as measured.
// Writes bench/results/fairness.json and docs/bench/fairness.svg.

import { readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { MongoClient, MongoServerError } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { cleanupNow } from './lib/cleanup.js';
import { writeJson } from './lib/config.js';
import { ensureBuilt, repoRoot, startDaemon } from './lib/daemon.js';
import { horizontalBarsSvg, writeSvg } from './lib/chart.js';
import { machineInfo } from './lib/machine.js';
import { forkWorker } from './lib/worker-process.js';
import type { WorkerProcess } from './lib/worker-process.js';
import type { FromPinger, ToPinger } from './fairness-pinger.js';

type Pinger = WorkerProcess<FromPinger, ToPinger>;

if (process.argv.includes('--help')) {
  process.stdout.write(
    'usage: npx tsx bench/fairness.ts [--quick] [--out <dir>] [--only <substring>]...\n' +
      '  --quick            smaller sizes\n' +
      '  --out <dir>        where fairness.json goes (default bench/results)\n' +
      '  --only <substring> run only rows whose name contains it (repeatable); writes no files\n',
  );
  process.exit(0);
}
const quick = process.argv.includes('--quick');
const only: string[] = [];
for (let i = 0; i < process.argv.length; i++)
  if (process.argv[i] === '--only' && process.argv[i + 1] !== undefined)
    only.push(process.argv[i + 1] as string);
const selected = (operation: string) =>
  only.length === 0 || only.some((o) => operation.includes(o));
const outIndex = process.argv.indexOf('--out');
const outDir = outIndex >= 0 ? (process.argv[outIndex + 1] ?? 'bench/results') : 'bench/results';
const sizes = quick
  ? {
      docs: 50_000,
      range: 200_000,
      inDocs: 20_000,
      inValues: 30_000,
      lookup: 20_000,
      ttl: 50_000,
      graph: 5_000,
      bigIn: 20_000,
      del: 50_000,
    }
  : {
      docs: 400_000,
      range: 1_000_000,
      inDocs: 20_000,
      inValues: 30_000,
      lookup: 100_000,
      ttl: 200_000,
      graph: 20_000,
      bigIn: 100_000,
      del: 500_000,
    };

const targetP99Ms = 20;
const targetMaxMs = 50;

interface Row {
  readonly operation: string;
  readonly owner: 'yields' | 'writes' | 'other';
  readonly durationMs: number;
  readonly outcome: string;
  readonly pings: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly peakRssMiB: number;
  readonly meetsTarget: boolean;
}

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/** Runs `op` while the pinger process pings every 10 ms; the ping latencies and the peak RSS. */
async function measure(
  operation: string,
  owner: Row['owner'],
  pinger: Pinger,
  op: () => Promise<unknown>,
): Promise<Row> {
  pinger.send({ type: 'start' });
  await pinger.next('started', 30_000);
  await new Promise((r) => setTimeout(r, 30)); // the pinger is going before the operation starts
  const started = performance.now();
  let outcome = 'ok';
  try {
    await op();
  } catch (e) {
    outcome = e instanceof MongoServerError ? `error ${e.code} (${e.codeName})` : String(e);
  }
  const durationMs = performance.now() - started;
  pinger.send({ type: 'stop' });
  const stopped = await pinger.next('stopped', 60_000);
  if (stopped.type !== 'stopped') throw new Error('fairness: the pinger answered out of turn');
  const sorted = [...stopped.latenciesMs].sort((a, b) => a - b);
  const peak = stopped.peakRssMiB;
  const p99Ms = quantile(sorted, 0.99);
  const maxMs = sorted[sorted.length - 1] ?? 0;
  const row: Row = {
    operation,
    owner,
    durationMs,
    outcome,
    pings: sorted.length,
    p50Ms: quantile(sorted, 0.5),
    p99Ms,
    maxMs,
    peakRssMiB: peak,
    meetsTarget: p99Ms <= targetP99Ms && maxMs <= targetMaxMs,
  };
  process.stderr.write(
    `fairness: ${operation}: ${durationMs.toFixed(0)} ms, ${outcome}, ping p99 ${p99Ms.toFixed(1)} max ${maxMs.toFixed(1)} ms\n`,
  );
  return row;
}

/** Signals the daemon to write a heap snapshot into `dir` and waits until it is written. */
async function heapSnapshot(pid: number, dir: string): Promise<void> {
  const sizes = () =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.heapsnapshot'))
      .map((f) => statSync(join(dir, f)).size);
  const before = sizes().length;
  process.kill(pid, 'SIGUSR2');
  let last = -1;
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = sizes();
    const size = now.length > before ? (now[now.length - 1] as number) : -1;
    if (size > 0 && size === last) break;
    last = size;
  }
  process.stderr.write(`fairness: heap snapshot written to ${dir}\n`);
}

async function insertMany(db: Db, name: string, n: number, make: (i: number) => Document) {
  const coll = db.collection(name);
  for (let i = 0; i < n; i += 10_000) {
    const batch: Document[] = [];
    for (let j = i; j < Math.min(n, i + 10_000); j++) batch.push(make(j));
    await coll.insertMany(batch, { ordered: false });
  }
}

async function main(): Promise<void> {
  ensureBuilt((line) => process.stderr.write(`${line}\n`));
  // FAIRNESS_CPU_PROF=<dir>: the daemon writes a V8 CPU profile there when it stops.
  // FAIRNESS_NODE_ARGS="--trace-gc ...": more flags for the daemon's node (its stdout, where
  // --trace-gc prints, is copied to FAIRNESS_DAEMON_LOG=<file> when that is set).
  // FAIRNESS_HEAP_SNAPSHOT=<dir>: the daemon writes a heap snapshot there after the last row.
  const profDir = process.env['FAIRNESS_CPU_PROF'];
  const heapDir = process.env['FAIRNESS_HEAP_SNAPSHOT'];
  const extraNodeArgs = (process.env['FAIRNESS_NODE_ARGS'] ?? '').split(/\s+/).filter((a) => a);
  const daemon = await startDaemon({
    engine: 'memory',
    nodeArgs: [
      ...(profDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profDir]),
      ...(heapDir === undefined
        ? []
        : ['--heapsnapshot-signal=SIGUSR2', '--diagnostic-dir', heapDir]),
      ...extraNodeArgs,
    ],
    stdoutCopy: process.env['FAIRNESS_DAEMON_LOG'],
  });
  const client = new MongoClient(daemon.uri, { serverSelectionTimeoutMS: 10_000 });
  const pinger: Pinger = await forkWorker<FromPinger, ToPinger>(
    new URL('./fairness-pinger.ts', import.meta.url),
    {
      name: (c) => `pinger ${String(c.pid)}`,
      exitedMessage: (c) => `the pinger exited (${String(c.exitCode ?? c.signalCode)})`,
    },
  );
  const rows: Row[] = [];
  const loadStart = loadavg()[0] ?? 0;
  try {
    await client.connect();
    pinger.send({ type: 'open', uri: daemon.uri, pid: daemon.pid });
    await pinger.next('ready', 30_000);
    const db = client.db('fairness');
    const admin = client.db('admin');
    process.stderr.write(`fairness: loading ${sizes.docs} documents\n`);
    await insertMany(db, 'big', sizes.docs, (i) => ({
      _id: i,
      a: i,
      g: i % 1000,
      s: 'x'.repeat(40),
    }));
    await insertMany(db, 'inq', sizes.inDocs, (i) => ({ _id: i, a: i }));
    await db.collection('inq').createIndex({ a: 1 });
    await insertMany(db, 'chain', sizes.graph, (i) => ({ _id: i, a: i, next: i + 1 }));
    await db.collection('chain').createIndex({ a: 1 });
    await insertMany(db, 'bigin', sizes.bigIn, (i) => ({ _id: i, a: i }));
    await db.collection('bigin').createIndex({ a: 1 });
    await insertMany(db, 'regex', 20, (i) => ({ _id: i, s: `${'a'.repeat(35)}b` }));
    await insertMany(db, 'regex26', 20, (i) => ({ _id: i, s: `${'a'.repeat(25)}b` }));
    const past = new Date(Date.now() - 3_600_000);
    await insertMany(db, 'ttl', sizes.ttl, (i) => ({ _id: i, at: past }));
    const m = async (name: string, owner: Row['owner'], op: () => Promise<unknown>) => {
      if (selected(name)) rows.push(await measure(name, owner, pinger, op));
    };
    const k = (n: number) => `${n >= 1e6 ? `${n / 1e6}M` : `${n / 1000}k`}`;

    await m(`createIndex over ${k(sizes.docs)} documents`, 'writes', () =>
      db.collection('big').createIndex({ a: 1 }),
    );
    await m(`unique createIndex over ${k(sizes.docs)} documents`, 'writes', () =>
      db.collection('big').createIndex({ g: 1, a: 1 }, { unique: true }),
    );
    const rangeDocs = [{ $documents: [{ x: { $range: [0, sizes.range] } }] }, { $unwind: '$x' }];
    await m(`$group over ${k(sizes.range)} docs from $range + $unwind`, 'yields', () =>
      db
        .aggregate([...rangeDocs, { $group: { _id: { $mod: ['$x', 1000] }, n: { $sum: 1 } } }])
        .toArray(),
    );
    await m(`$group with 1M groups (${k(sizes.range)} docs)`, 'yields', () =>
      db.aggregate([...rangeDocs, { $group: { _id: '$x' } }, { $count: 'n' }]).toArray(),
    );
    await m(`$sort over ${k(sizes.range)} docs from $range + $unwind`, 'yields', () =>
      db.aggregate([...rangeDocs, { $sort: { x: -1 } }, { $skip: sizes.range - 10 }]).toArray(),
    );
    const sliding = { documents: [-50, 50] };
    await m(`$bucketAuto over ${k(sizes.range)} docs from $range + $unwind`, 'yields', () =>
      db
        .aggregate([
          ...rangeDocs,
          { $bucketAuto: { groupBy: { $mod: ['$x', 7919] }, buckets: 20 } },
        ])
        .toArray(),
    );
    await m(`$setWindowFields (sliding sum) over ${k(sizes.range)} docs`, 'yields', () =>
      db
        .aggregate([
          ...rangeDocs,
          {
            $setWindowFields: {
              partitionBy: { $mod: ['$x', 10] },
              sortBy: { x: 1 },
              output: { s: { $sum: '$x', window: sliding } },
            },
          },
          { $count: 'n' },
        ])
        .toArray(),
    );
    await m(`$densify to ${k(sizes.range)} docs`, 'yields', () =>
      db
        .aggregate([
          { $documents: [{ x: 0 }, { x: sizes.range }] },
          { $densify: { field: 'x', range: { step: 1, bounds: 'full' } } },
          { $count: 'n' },
        ])
        .toArray(),
    );
    await m(`$facet of $sort and $group over ${k(sizes.range)} docs`, 'yields', () =>
      db
        .aggregate([
          ...rangeDocs,
          {
            $facet: {
              top: [{ $sort: { x: -1 } }, { $limit: 1 }],
              groups: [{ $group: { _id: { $mod: ['$x', 100] } } }, { $count: 'n' }],
            },
          },
        ])
        .toArray(),
    );
    await m(`$graphLookup chains of ${k(sizes.graph)} docs (indexed)`, 'yields', () =>
      db
        .collection('chain')
        .aggregate([
          { $match: { _id: 0 } },
          {
            $graphLookup: {
              from: 'chain',
              startWith: '$next',
              connectFromField: 'next',
              connectToField: 'a',
              as: 'c',
            },
          },
          { $project: { n: { $size: '$c' } } },
        ])
        .toArray(),
    );
    const bigValues: number[] = [];
    for (let i = 0; i < sizes.bigIn; i++) bigValues.push((i * 7919) % (2 * sizes.bigIn));
    await m(
      `find $in of ${k(sizes.bigIn)} values, indexed field (${k(sizes.bigIn)} docs)`,
      'yields',
      () =>
        db
          .collection('bigin')
          .find({ a: { $in: bigValues } }, { projection: { _id: 1 } })
          .toArray(),
    );
    const values: number[] = [];
    for (let i = 0; i < sizes.inValues; i++) values.push(i * 3);
    await m(
      `find $in of ${k(sizes.inValues)} values, indexed field (${k(sizes.inDocs)} docs)`,
      'yields',
      () =>
        db
          .collection('inq')
          .find({ a: { $in: values } })
          .toArray(),
    );
    await m(`find full scan with a filter (${k(sizes.docs)} docs)`, 'yields', () =>
      db.collection('big').find({ s: 'nothing' }).toArray(),
    );
    await m(`count with a filter (${k(sizes.docs)} docs)`, 'yields', () =>
      db.command({ count: 'big', query: { s: 'nothing' } }),
    );
    await m(`regex /^(a+)+$/ on 'a'x35+'b' (20 docs)`, 'yields', () =>
      db
        .collection('regex')
        .find({ s: { $regex: '^(a+)+$' } })
        .toArray(),
    );
    await m(`regex ^(?:a|a){16}(?:a|a){10}$ on 26 chars, maxTimeMS 100`, 'yields', () =>
      db
        .collection('regex26')
        .find({ s: { $regex: '^(?:a|a){16}(?:a|a){10}$' } }, { maxTimeMS: 100 })
        .toArray(),
    );
    await m(`$lookup of ${k(sizes.lookup)} docs on an indexed field`, 'yields', () =>
      db
        .collection('big')
        .aggregate([
          { $match: { a: { $lt: sizes.lookup } } },
          { $lookup: { from: 'big', localField: 'a', foreignField: 'a', as: 'j' } },
          { $count: 'n' },
        ])
        .toArray(),
    );
    await m('16 MiB document round trip', 'other', async () => {
      const big = { _id: 'big', s: 'y'.repeat(16 * 1024 * 1024 - 100) };
      const coll = db.collection<{ _id: string; s: string }>('doc16');
      await coll.insertOne(big);
      await coll.findOne({ _id: 'big' });
    });
    // collMod's unique conversion scans the index for duplicates (yielding), then rewrites
    // its entries in the unique layout (in its transaction); dryRun is the scan alone.
    const collModRows = selected('collMod unique conversion');
    if (collModRows) {
      await db.collection('big').createIndex({ a: 1, s: 1 });
      await db.command({
        collMod: 'big',
        index: { keyPattern: { a: 1, s: 1 }, prepareUnique: true },
      });
    }
    await m(`collMod unique conversion, dryRun (${k(sizes.docs)} keys)`, 'writes', () =>
      db.command({
        collMod: 'big',
        index: { keyPattern: { a: 1, s: 1 }, unique: true },
        dryRun: true,
      }),
    );
    await m(`collMod unique conversion (${k(sizes.docs)} keys)`, 'writes', () =>
      db.command({ collMod: 'big', index: { keyPattern: { a: 1, s: 1 }, unique: true } }),
    );
    if (collModRows) await db.collection('big').dropIndex('a_1_s_1'); // the rows below run as before
    await m(`updateMany of ${k(sizes.docs)} documents`, 'writes', () =>
      db.collection('big').updateMany({}, { $inc: { g: 1 } }),
    );
    await m(`deleteMany of ${k(sizes.docs)} documents`, 'writes', () =>
      db.collection('big').deleteMany({}),
    );
    if (selected(`deleteMany of ${k(sizes.del)} documents`)) {
      process.stderr.write(`fairness: loading ${sizes.del} documents\n`);
      await insertMany(db, 'del', sizes.del, (i) => ({ _id: i, a: i }));
    }
    await m(`deleteMany of ${k(sizes.del)} documents`, 'writes', () =>
      db.collection('del').deleteMany({}),
    );
    await m(`TTL pass over ${k(sizes.ttl)} expired documents`, 'writes', async () => {
      await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
      await db.collection('ttl').createIndex({ at: 1 }, { expireAfterSeconds: 0 });
      const until = Date.now() + 120_000;
      while ((await db.collection('ttl').estimatedDocumentCount()) > 0 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
    });
    await m(`$reduce building a 100,000-level document`, 'other', () =>
      db
        .aggregate([
          { $documents: [{}] },
          {
            $project: {
              d: {
                $reduce: {
                  input: { $range: [0, 100_000] },
                  initialValue: {},
                  in: { a: '$$value' },
                },
              },
            },
          },
          { $project: { ok: { $literal: 1 } } },
        ])
        .toArray(),
    );
    if (heapDir !== undefined) await heapSnapshot(daemon.pid, heapDir);
  } finally {
    await client.close().catch(() => undefined);
    pinger.send({ type: 'close' });
    await pinger.next('closed', 30_000).catch(() => undefined);
    await daemon.stop();
  }
  const m = machineInfo();
  say('# Fairness: ping latency while one long operation runs');
  say();
  say(
    `Machine: ${m.cores} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${process.version}; load average ${loadStart.toFixed(2)} at start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end${quick ? '; --quick sizes' : ''}. Memory engine. Target: ping p99 <= ${targetP99Ms} ms, max <= ${targetMaxMs} ms.`,
  );
  say();
  say('| operation | owner | duration | outcome | pings | p50 | p99 | max | peak RSS | target |');
  say('| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of rows) {
    say(
      `| ${r.operation} | ${r.owner} | ${r.durationMs.toFixed(0)} ms | ${r.outcome} | ${r.pings} | ${r.p50Ms.toFixed(1)} ms | ${r.p99Ms.toFixed(1)} ms | ${r.maxMs.toFixed(1)} ms | ${r.peakRssMiB.toFixed(0)} MiB | ${r.meetsTarget ? 'met' : 'MISSED'} |`,
    );
  }
  if (only.length > 0) return; // a partial run does not replace the committed results
  writeJson(join(outDir, 'fairness.json'), {
    harness: 'fairness',
    quick,
    machine: m,
    node: process.version,
    loadAverage: { start: loadStart, end: loadavg()[0] ?? 0 },
    sizes,
    target: { p99Ms: targetP99Ms, maxMs: targetMaxMs },
    rows,
  });
  writeSvg(
    join(repoRoot, 'docs/bench/fairness.svg'),
    horizontalBarsSvg({
      title: 'Ping round trip while one long operation runs',
      subtitle: `another connection pings every 10 ms; target p99 <= ${targetP99Ms} ms, max <= ${targetMaxMs} ms (${m.cores} cores, shared machine)`,
      categories: rows.map((r) => r.operation),
      series: [
        { name: 'ping p99', values: rows.map((r) => Math.max(0.1, r.p99Ms)) },
        { name: 'ping max', values: rows.map((r) => Math.max(0.1, r.maxMs)) },
      ],
      axisName: 'milliseconds (log)',
      log: true,
      referenceAt: { value: targetMaxMs, label: `${targetMaxMs} ms` },
      valueLabel: (v) => `${v.toFixed(1)} ms`,
    }),
  );
}

main()
  .catch((e: unknown) => {
    process.stderr.write(`fairness: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanupNow());
