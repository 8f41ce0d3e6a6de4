// Harness 2, concurrency: N writer processes (1, 2, 4, 8) each stream insertMany batches of
// ~8 KiB documents into their own collection for a fixed time, with the default write
// concern (acknowledged = on disk). Every row gets a fresh daemon and data directory; rows
// are interleaved across repetitions (median of 3) so drift on the machine does not favour
// one writer count. Reported: aggregate docs/s and scaling relative to one writer.
//
// Group commit is what this measures: concurrent writers should share fsyncs, so adding
// writers should raise the aggregate rate or hold it — never fall off a cliff. On a 2-core
// machine the writers, the daemon and the harness share the cores, so the curve flattens
// once the CPU is saturated; that is a property of the machine, and the table says so.

import { MongoClient } from 'mongodb';
import type { BenchConfig } from './lib/config.js';
import { daemonSupportsFlag, startDaemon } from './lib/daemon.js';
import { forkWorker } from './lib/worker-process.js';
import type { WorkerProcess } from './lib/worker-process.js';
import { markdownTable } from './lib/markdown.js';
import type { Progress } from './lib/progress.js';
import {
  findCliff,
  formatRate,
  formatRatio,
  interleavedOrder,
  median,
  spread,
} from './lib/stats.js';
import type { FromWriter, RunMessage, ToWriter } from './concurrency-writer.js';

export interface Mode {
  readonly name: string;
  readonly args: readonly string[];
  readonly notRun?: string;
}

export interface RowRun {
  readonly docs: number;
  readonly elapsedMs: number;
  readonly docsPerSec: number;
  /** Mean insertMany latency over all writers' batches, ms. */
  readonly batchMs: number;
  readonly errors: readonly string[];
  /** Documents found afterwards ≠ documents acknowledged (should never happen). */
  readonly countMismatch: string | undefined;
}

export interface ConcurrencyRow {
  readonly mode: string;
  readonly writers: number;
  readonly runs: readonly RowRun[];
  readonly docsPerSec: number;
  readonly spread: number;
  readonly batchMs: number;
  readonly scaling: number;
}

export interface ConcurrencyResult {
  readonly writers: readonly number[];
  readonly durationMs: number;
  readonly batchDocs: number;
  readonly docBytes: number;
  readonly modes: readonly Mode[];
  readonly rows: readonly ConcurrencyRow[];
  readonly notes: readonly string[];
}

type Writer = WorkerProcess<FromWriter, ToWriter>;

function startWriter(): Promise<Writer> {
  return forkWorker<FromWriter, ToWriter>(new URL('./concurrency-writer.ts', import.meta.url), {
    name: (child) => `writer ${String(child.pid)}`,
    exitedMessage: (child) => `writer ${String(child.pid)} exited`,
  });
}

async function stopWriter(w: Writer): Promise<void> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => w.child.once('exit', () => resolve()));
  try {
    w.send({ type: 'exit' });
  } catch {
    w.child.kill('SIGKILL');
  }
  const killer = setTimeout(() => w.child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killer);
}

async function runRow(
  config: BenchConfig,
  mode: Mode,
  writers: readonly Writer[],
): Promise<RowRun> {
  const s = config.sizes;
  const daemon = await startDaemon({ engine: 'lmdb', args: mode.args });
  try {
    const msg = (i: number): RunMessage => ({
      type: 'run',
      uri: daemon.uri,
      db: 'bench_concurrency',
      collection: `w${i}`,
      writer: i,
      durationMs: s.concurrencyMs,
      batchDocs: s.concurrencyBatchDocs,
      docBytes: s.concurrencyDocBytes,
    });
    writers.forEach((w, i) => w.send(msg(i)));
    const ready = await Promise.all(writers.map((w) => w.next(['ready', 'done'], 60_000)));
    const early = ready.find((m) => m.type === 'done');
    if (early !== undefined && early.type === 'done')
      throw new Error(early.error ?? 'writer failed to start');
    for (const w of writers) w.send({ type: 'go' });
    const done = await Promise.all(writers.map((w) => w.next('done', s.concurrencyMs + 120_000)));
    let docs = 0;
    let batches = 0;
    let elapsed = 0;
    let batchTime = 0;
    const errors: string[] = [];
    const perWriter: number[] = [];
    for (const d of done) {
      if (d.type !== 'done') continue;
      docs += d.docs;
      batches += d.batches;
      batchTime += d.elapsedMs;
      elapsed = Math.max(elapsed, d.elapsedMs);
      perWriter.push(d.docs);
      if (d.error !== undefined) errors.push(d.error);
    }
    // What was acknowledged must be there: count each writer's collection.
    let countMismatch: string | undefined;
    const client = new MongoClient(daemon.uri, {
      serverSelectionTimeoutMS: 10_000,
      socketTimeoutMS: 60_000,
    });
    try {
      const db = client.db('bench_concurrency');
      const counts = await Promise.all(
        writers.map((_, i) => db.collection(`w${i}`).countDocuments({})),
      );
      const bad = counts.map((c, i) => [c, perWriter[i] ?? 0]).filter(([c, want]) => c !== want);
      if (bad.length > 0)
        countMismatch = bad
          .map(([c, want]) => `${String(c)} stored vs ${String(want)} acknowledged`)
          .join('; ');
    } finally {
      await client.close().catch(() => undefined);
    }
    return {
      docs,
      elapsedMs: elapsed,
      docsPerSec: (docs * 1000) / Math.max(1, elapsed),
      batchMs: batches > 0 ? batchTime / batches : 0,
      errors,
      countMismatch,
    };
  } finally {
    await daemon.stop();
  }
}

export async function runConcurrency(
  config: BenchConfig,
  progress: Progress,
): Promise<ConcurrencyResult> {
  const s = config.sizes;
  const notes: string[] = [];
  const optional = (flag: string): Mode => {
    const f = daemonSupportsFlag(flag);
    return f.supported
      ? { name: flag, args: [flag] }
      : { name: flag, args: [], notRun: `not run: secantusd has no ${flag} yet (${f.reason})` };
  };
  const modes: Mode[] = [
    { name: 'default (durable)', args: [] },
    optional('--oplog-async'),
    optional('--oplog-nonlogged'),
  ];
  for (const m of modes) if (m.notRun !== undefined) notes.push(`${m.name}: ${m.notRun}`);
  const live = modes.filter((m) => m.notRun === undefined);
  // Every (mode, writers) pair is one configuration; repetitions rotate their order.
  const configs = live.flatMap((m) => s.writers.map((n) => ({ mode: m, writers: n })));
  const runs = new Map<string, RowRun[]>();
  const key = (m: Mode, n: number): string => `${m.name}/${n}`;

  progress.start('concurrency', s.concurrencyRuns * configs.length + 1);
  progress.status('starting writer processes');
  // One pool of writer processes for the whole harness: node + tsx start-up (~1 s each on
  // this machine) would otherwise dominate short rows. Each row connects them afresh.
  const pool: Writer[] = [];
  try {
    const most = Math.max(...s.writers);
    for (let i = 0; i < most; i++) pool.push(await startWriter());
    progress.tick();
    for (let r = 0; r < s.concurrencyRuns; r++) {
      for (const c of interleavedOrder(configs, r)) {
        progress.status(`rep ${r + 1}: ${c.writers} writer(s), ${c.mode.name}`);
        const row = await runRow(config, c.mode, pool.slice(0, c.writers));
        const list = runs.get(key(c.mode, c.writers)) ?? [];
        list.push(row);
        runs.set(key(c.mode, c.writers), list);
        progress.tick();
      }
    }
  } finally {
    progress.stop();
    await Promise.all(pool.map(stopWriter));
  }

  const rows: ConcurrencyRow[] = [];
  for (const m of live) {
    let base: number | undefined;
    for (const n of s.writers) {
      const list = runs.get(key(m, n)) ?? [];
      if (list.length === 0) continue;
      const rate = median(list.map((x) => x.docsPerSec));
      base ??= rate;
      rows.push({
        mode: m.name,
        writers: n,
        runs: list,
        docsPerSec: rate,
        spread: spread(list.map((x) => x.docsPerSec)),
        batchMs: median(list.map((x) => x.batchMs)),
        scaling: rate / base,
      });
      for (const x of list) {
        for (const e of x.errors) notes.push(`${m.name}, ${n} writers: writer error: ${e}`);
        if (x.countMismatch !== undefined)
          notes.push(`${m.name}, ${n} writers: COUNT MISMATCH ${x.countMismatch}`);
      }
    }
    const cliff = findCliff(
      rows.filter((x) => x.mode === m.name).map((x) => ({ x: x.writers, rate: x.docsPerSec })),
    );
    notes.push(
      cliff === undefined
        ? `Target "no cliff as writers are added" (${m.name}): met — no step loses more than 20% of the previous step's rate.`
        : `Target "no cliff as writers are added" (${m.name}): NOT met — ${cliff.from} → ${cliff.to} writers loses ${Math.round(cliff.drop * 100)}%.`,
    );
  }
  return {
    writers: s.writers,
    durationMs: s.concurrencyMs,
    batchDocs: s.concurrencyBatchDocs,
    docBytes: s.concurrencyDocBytes,
    modes,
    rows,
    notes,
  };
}

export function concurrencyTable(result: ConcurrencyResult): string {
  const rows = result.rows.map((r) => [
    r.mode,
    String(r.writers),
    formatRate(r.docsPerSec),
    `±${Math.round(r.spread * 100)}%`,
    ((r.docsPerSec * result.docBytes) / 2 ** 20).toFixed(1),
    formatRate(r.docsPerSec / r.writers),
    `${r.batchMs.toFixed(1)} ms`,
    formatRatio(r.scaling),
  ]);
  for (const m of result.modes)
    if (m.notRun !== undefined) rows.push([m.name, '—', m.notRun, '', '', '', '', '']);
  return markdownTable(
    [
      'mode',
      'writers',
      'docs/s (all writers)',
      '±',
      'MiB/s',
      'docs/s per writer',
      'insertMany latency',
      'scaling vs 1 writer',
    ],
    rows,
  );
}
