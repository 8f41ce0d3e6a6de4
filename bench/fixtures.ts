// Test fixtures: what per-test isolation costs. Prints a markdown table and writes
// bench/results/fixtures.json; run with
//   npx tsx bench/fixtures.ts [--quick]
//
// For each engine (memory, lmdb) and size (1k and 100k documents of ~1 KiB, the compare
// dataset: lib/dataset.ts, with a secondary index on `i`), on an in-process server:
// - reset(): every user database dropped;
// - snapshot(): the user data captured;
// - restore(snap): after a test changed 10 documents, back to the snapshot;
// - re-seed: what a suite does without fixtures: dropDatabase, insertMany of the same
//   documents through the driver (batches of 1,000), createIndex.
// And mongodb-memory-server-style start/stop loops: MongoMemoryServer.create() + a driver
// connect and first ping + close + stop(), per iteration (MongoMemoryReplSet likewise, and
// SecantusServer.start/stop for reference).
//
// Medians of the repetitions; "±" is (max − min) / median. In-process (the server and the
// driver share the event loop): the figures include the driver's work, as in a test suite.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';
import { MongoMemoryReplSet, MongoMemoryServer } from '../src/embed/memory-server.js';
import { makeDataset } from './lib/dataset.js';
import { machineInfo } from './lib/machine.js';
import { markdownTable } from './lib/markdown.js';
import { formatDuration, median, spread } from './lib/stats.js';
import { writeJson } from './lib/config.js';
import { repoRoot } from './lib/daemon.js';

const quick = process.argv.includes('--quick');
const sizes = quick ? [1_000, 10_000] : [1_000, 100_000];
const reps = quick ? 3 : 5;
const loopIterations = quick ? 10 : 30;

interface Figure {
  readonly medianMs: number;
  readonly spread: number;
  readonly samplesMs: number[];
}

function figure(samples: number[]): Figure {
  return { medianMs: median(samples), spread: spread(samples), samplesMs: samples };
}

function show(f: Figure): string {
  return `${formatDuration(f.medianMs)} ±${Math.round(f.spread * 100)}%`;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function log(msg: string): void {
  process.stderr.write(`${msg}\n`);
}

interface FixtureRow {
  readonly engine: 'memory' | 'lmdb';
  readonly docs: number;
  readonly reset: Figure;
  readonly snapshot: Figure;
  readonly restore: Figure;
  readonly reseed: Figure;
}

async function seed(client: MongoClient, docs: readonly Document[]): Promise<void> {
  const db = client.db('bench');
  await db.dropDatabase();
  const coll = db.collection('docs');
  for (let i = 0; i < docs.length; i += 1000)
    await coll.insertMany(docs.slice(i, i + 1000).map((d) => ({ ...d })));
  await coll.createIndex({ i: 1 });
}

async function fixtureRow(engine: 'memory' | 'lmdb', n: number): Promise<FixtureRow> {
  const dir = engine === 'lmdb' ? fs.mkdtempSync(path.join(os.tmpdir(), 'secantus-fx-')) : '';
  const server = await SecantusServer.start(engine === 'lmdb' ? { dbPath: dir } : {});
  const client = new MongoClient(server.getUri());
  const docs = makeDataset(n);
  try {
    await seed(client, docs); // warm-up, untimed
    const coll = client.db('bench').collection('docs');
    const change = async (): Promise<void> => {
      for (let k = 0; k < 10; k++) await coll.updateOne({ i: k * 7 }, { $set: { changed: true } });
    };
    const snapshotMs: number[] = [];
    const restoreMs: number[] = [];
    const resetMs: number[] = [];
    const reseedMs: number[] = [];
    let snap = await server.snapshot();
    for (let r = 0; r < reps; r++) {
      log(`  ${engine} ${n}: rep ${r + 1}/${reps}`);
      snapshotMs.push(
        await timed(async () => {
          snap = await server.snapshot();
        }),
      );
      await change();
      restoreMs.push(await timed(() => server.restore(snap)));
      resetMs.push(await timed(() => server.reset()));
      reseedMs.push(await timed(() => seed(client, docs)));
    }
    // The figures are only worth something if the restore brought the data back.
    await server.restore(snap);
    const count = await coll.countDocuments();
    if (count !== n) throw new Error(`restore gave ${count} documents, not ${n}`);
    return {
      engine,
      docs: n,
      reset: figure(resetMs),
      snapshot: figure(snapshotMs),
      restore: figure(restoreMs),
      reseed: figure(reseedMs),
    };
  } finally {
    await client.close();
    await server.stop();
    if (dir !== '') fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface LoopRow {
  readonly what: string;
  readonly perIteration: Figure;
}

async function loop(what: string, once: () => Promise<void>): Promise<LoopRow> {
  log(`  ${what}`);
  for (let i = 0; i < 3; i++) await once(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < loopIterations; i++) samples.push(await timed(once));
  return { what, perIteration: figure(samples) };
}

async function ping(uri: string): Promise<void> {
  const client = new MongoClient(uri);
  try {
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close();
  }
}

async function loops(): Promise<LoopRow[]> {
  return [
    await loop('MongoMemoryServer.create() + first ping + stop()', async () => {
      const m = await MongoMemoryServer.create();
      await ping(m.getUri());
      await m.stop();
    }),
    await loop('MongoMemoryReplSet.create() + first ping + stop()', async () => {
      const rs = await MongoMemoryReplSet.create();
      await ping(rs.getUri());
      await rs.stop();
    }),
    await loop('SecantusServer.start() + first ping + stop()', async () => {
      const s = await SecantusServer.start();
      await ping(s.getUri());
      await s.stop();
    }),
  ];
}

async function main(): Promise<void> {
  const machine = machineInfo();
  log('fixtures: reset / snapshot / restore vs re-seeding');
  const rows: FixtureRow[] = [];
  for (const engine of ['memory', 'lmdb'] as const)
    for (const n of sizes) rows.push(await fixtureRow(engine, n));
  log('fixtures: start/stop loops');
  const loopRows = await loops();
  const end = Math.round((os.loadavg()[0] ?? 0) * 100) / 100;

  const say = (s = ''): void => void process.stdout.write(`${s}\n`);
  say('## Test fixtures');
  say();
  say(
    `Machine: ${machine.cores} × ${machine.cpuModel}, Node ${machine.node}; commit ${machine.commit}; ` +
      `${machine.date}; load average ${machine.loadAverage1m} at start, ${end} at the end` +
      `${quick ? '; --quick sizes' : ''}. Absolute figures compare only within one run on one ` +
      `machine. ${reps} repetitions, medians; "±" is (max − min) / median.`,
  );
  say();
  say(
    markdownTable(
      [
        'engine',
        'documents',
        'reset()',
        'snapshot()',
        'restore()',
        'drop + re-seed',
        're-seed / restore',
      ],
      rows.map((r) => [
        r.engine,
        r.docs.toLocaleString('en-US'),
        show(r.reset),
        show(r.snapshot),
        show(r.restore),
        show(r.reseed),
        `${Math.round(r.reseed.medianMs / r.restore.medianMs).toLocaleString('en-US')}×`,
      ]),
    ),
  );
  say();
  say(
    markdownTable(
      ['start/stop loop (per iteration)', 'median'],
      loopRows.map((l) => [l.what, show(l.perIteration)]),
    ),
  );
  writeJson(path.join(repoRoot, 'bench/results/fixtures.json'), {
    harness: 'fixtures',
    machine,
    loadAverageEnd1m: end,
    quick,
    reps,
    rows,
    loops: loopRows,
  });
}

await main();
