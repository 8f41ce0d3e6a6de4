// Harness 1, compare: per-operation latency end to end through the official `mongodb`
// driver over TCP, against a freshly started server with its own data directory — the
// built secantusd on lmdb, memory, sqlite and jsonfile, and any server given by --uri (a real mongod,
// where one exists). Each workload's median over the runs is divided by its floor
// (floors.ts, same run) so the ratio means the same on any machine.
//
// One run = one fresh server per target, the workloads in a fixed order on one dataset:
//   ping, insert, point read, scans and aggregations, create index, indexed range,
//   change-stream drain, update_many (half), delete_many (half).
// Targets are visited in a rotating order from run to run (lib/stats.ts interleavedOrder).
// Every result is checked against what the dataset says it must be: a fast wrong answer
// is reported as wrong, not as fast.

import type { Db, Document } from 'mongodb';
import { MongoClient, MongoServerError } from 'mongodb';
import type { BenchConfig, Sizes } from './lib/config.js';
import { startDaemon } from './lib/daemon.js';
import type { EngineName } from './lib/daemon.js';
import { groupCount, Lcg, makeDataset, objectIdFor } from './lib/dataset.js';
import type { BenchDoc } from './lib/dataset.js';
import { markdownTable } from './lib/markdown.js';
import type { Progress } from './lib/progress.js';
import { formatDuration, formatRatio, interleavedOrder, median, spread } from './lib/stats.js';
import { pingRoundTrips } from './floors.js';
import type { FloorRun, FloorSampler, Floors } from './floors.js';

export const workloadIds = [
  'ping',
  'insert',
  'pointRead',
  'rangeIndexed',
  'fullScan',
  'filteredScan',
  'updateHalf',
  'group',
  'multiStage',
  'deleteHalf',
  'changeStream',
  'createIndex',
] as const;
export type WorkloadId = (typeof workloadIds)[number];

export type TargetKey = EngineName | 'uri';

export interface WorkloadSpec {
  readonly id: WorkloadId;
  readonly label: (s: Sizes) => string;
  /** The floor in ms given one run's floors and the target's own ping; undefined = none. */
  readonly floor: (f: FloorRun, pingMs: number, s: Sizes) => number | undefined;
  readonly floorText: (f: Floors, s: Sizes) => string;
}

const k = (n: number): string => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
/** Scan + decode of `docs` documents, from the whole-dataset figure. */
const scanDecode = (f: FloorRun, docs: number, s: Sizes): number =>
  (f.lmdbScanDecodeMs * docs) / s.docs;

// Table order: the list, then two reference rows (ping, create index).
export const workloads: readonly WorkloadSpec[] = [
  {
    id: 'insert',
    label: (s) => `insert ${k(s.docs)} (one insertMany)`,
    floor: (f, p) => f.lmdbPutMs + p,
    floorText: (f) => `ping + LMDB put of the docs, ${f.txnDocs}/txn`,
  },
  {
    id: 'rangeIndexed',
    label: (s) => `find indexed range (${s.rangeDocs} docs)`,
    floor: (f, p, s) => p + scanDecode(f, s.rangeDocs, s),
    floorText: (_, s) => `ping + LMDB scan+decode of ${s.rangeDocs} docs`,
  },
  {
    id: 'fullScan',
    label: (s) => `find full scan (${k(s.docs)} docs)`,
    floor: (f, p, s) => p + scanDecode(f, s.docs, s),
    floorText: () => 'ping + LMDB scan+decode, all docs',
  },
  {
    id: 'filteredScan',
    label: () => 'find filtered scan (~1%)',
    floor: (f, p, s) => p + scanDecode(f, s.docs, s),
    floorText: () => 'ping + LMDB scan+decode, all docs',
  },
  {
    id: 'updateHalf',
    label: () => 'update_many (half)',
    floor: (f, p, s) => p + scanDecode(f, s.docs, s) + f.lmdbOverwriteHalfMs,
    floorText: (f) => `ping + scan+decode + LMDB overwrite of half, ${f.txnDocs}/txn`,
  },
  {
    id: 'group',
    label: () => `aggregate $group (${groupCount} keys)`,
    floor: (f, p, s) => p + scanDecode(f, s.docs, s),
    floorText: () => 'ping + LMDB scan+decode, all docs',
  },
  {
    id: 'multiStage',
    label: () => 'aggregate multi-stage',
    floor: (f, p, s) => p + scanDecode(f, s.docs, s),
    floorText: () => 'ping + LMDB scan+decode, all docs',
  },
  {
    id: 'deleteHalf',
    label: () => 'delete_many (half)',
    floor: (f, p, s) => p + scanDecode(f, s.docs, s) + f.lmdbDeleteHalfMs,
    floorText: (f) => `ping + scan+decode + LMDB delete of half, ${f.txnDocs}/txn`,
  },
  {
    id: 'changeStream',
    label: (s) => `change-stream drain (${k(s.changeEvents)} events)`,
    floor: (f, p, s) => p + scanDecode(f, s.changeEvents, s),
    floorText: (_, s) => `ping + LMDB scan+decode of ${s.changeEvents} docs`,
  },
  {
    id: 'pointRead',
    label: () => 'point read by _id (findOne)',
    floor: (_, p) => p,
    floorText: () => 'ping, same server',
  },
  {
    id: 'ping',
    label: () => 'ping (driver round trip)',
    floor: (f) => f.socketRttMs,
    floorText: () => 'bare socket round trip',
  },
  {
    id: 'createIndex',
    label: () => 'create index {i: 1}',
    floor: () => undefined,
    floorText: () => '— (no floor defined)',
  },
];

export type Outcome = { readonly ms: number } | { readonly notRun: string };

export interface TargetRun {
  readonly results: Partial<Record<WorkloadId, Outcome>>;
  /** Wrong answers: a workload listed here is not a valid figure. */
  readonly wrong: string[];
  /** What explain said about the indexed range query. */
  readonly indexUse: string;
}

function errorText(e: unknown): string {
  if (e instanceof MongoServerError)
    return `server answered ${e.codeName ?? ''} (${String(e.code)}): ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]);
}

/** The multi-stage pipeline: filter, reshape, unwind an array, group on two keys, sort, limit. */
export const multiStagePipeline: Document[] = [
  { $match: { value: { $gte: 0.25 } } },
  { $project: { group: 1, value: 1, tags: 1 } },
  { $unwind: '$tags' },
  { $group: { _id: { g: '$group', t: '$tags' }, n: { $sum: 1 }, avg: { $avg: '$value' } } },
  { $sort: { n: -1, '_id.g': 1, '_id.t': 1 } },
  { $limit: 20 },
];
export const groupPipeline: Document[] = [
  { $group: { _id: '$group', n: { $sum: 1 }, total: { $sum: '$value' } } },
];
export const filteredScanFilter = { group: 'g7', value: { $gte: 0.5 } };

/** What explain reports for the range query; tries the explain command, then aggregate's explain flag. */
async function explainRange(db: Db, filter: Document): Promise<string> {
  const attempts: [string, Document][] = [
    ['explain find', { explain: { find: 'docs', filter }, verbosity: 'queryPlanner' }],
    ['aggregate explain', { aggregate: 'docs', pipeline: [{ $match: filter }], explain: true }],
  ];
  const failures: string[] = [];
  for (const [name, cmd] of attempts) {
    try {
      const text = JSON.stringify(await db.command(cmd));
      if (text.includes('IXSCAN')) return `uses the index (${name}: IXSCAN)`;
      if (text.includes('COLLSCAN')) return `does not use the index yet (${name}: COLLSCAN)`;
      return `plan not recognised (${name}: ${text.slice(0, 160)})`;
    } catch (e) {
      failures.push(`${name}: ${errorText(e)}`);
    }
  }
  return `unknown: ${failures.join('; ')}`;
}

/**
 * One run against one server: every workload in order on a fresh database. Times are in
 * ms per operation ('op') or per sequential call ('each').
 */
export async function runWorkloads(
  uri: string,
  dbName: string,
  dataset: readonly BenchDoc[],
  s: Sizes,
  seed: number,
): Promise<TargetRun> {
  const results: Partial<Record<WorkloadId, Outcome>> = {};
  const wrong: string[] = [];
  let indexUse = 'not checked';
  // socketTimeoutMS bounds every wait for a reply (the driver's timeoutMS has no effect in v7).
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 10_000,
    socketTimeoutMS: 120_000,
    connectTimeoutMS: 10_000,
  });
  const rng = new Lcg(seed);
  const n = dataset.length;
  const check = (id: WorkloadId, ok: boolean, text: string): void => {
    if (!ok) wrong.push(`${id}: ${text}`);
  };
  /** Time one workload; a failure becomes "not run" with the reason, and the run goes on. */
  const time = async (id: WorkloadId, body: () => Promise<number | void>): Promise<void> => {
    try {
      const t = performance.now();
      const each = await body();
      results[id] = { ms: typeof each === 'number' ? each : performance.now() - t };
    } catch (e) {
      results[id] = { notRun: errorText(e) };
    }
  };
  try {
    await client.connect();
    const db = client.db(dbName);
    await db.dropDatabase();
    const docs = db.collection<BenchDoc>('docs');

    await time('ping', () => pingRoundTrips(client, s.pointReads));

    await time('insert', async () => {
      const r = await docs.insertMany(dataset as BenchDoc[]);
      check('insert', r.insertedCount === n, `insertedCount ${r.insertedCount} ≠ ${n}`);
    });

    await time('pointRead', async () => {
      const ids = Array.from({ length: s.pointReads }, () => objectIdFor(rng.int(n)));
      for (let i = 0; i < Math.min(50, ids.length); i++) await docs.findOne({ _id: ids[i] }); // warm-up
      let found = 0;
      const t = performance.now();
      for (const id of ids) if ((await docs.findOne({ _id: id })) !== null) found++;
      const each = (performance.now() - t) / ids.length;
      check(
        'pointRead',
        found === ids.length,
        `${ids.length - found} of ${ids.length} ids not found`,
      );
      return each;
    });

    await time('fullScan', async () => {
      const all = await docs.find({}).toArray();
      check('fullScan', all.length === n, `${all.length} docs ≠ ${n}`);
    });

    const filteredWant = dataset.filter(
      (d) => d.group === filteredScanFilter.group && d.value >= filteredScanFilter.value.$gte,
    ).length;
    await time('filteredScan', async () => {
      const got = await docs.find(filteredScanFilter).toArray();
      check('filteredScan', got.length === filteredWant, `${got.length} docs ≠ ${filteredWant}`);
    });

    await time('group', async () => {
      const got = await docs.aggregate(groupPipeline).toArray();
      const want = Math.min(groupCount, n);
      check('group', got.length === want, `${got.length} groups ≠ ${want}`);
    });

    await time('multiStage', async () => {
      const got = await docs.aggregate(multiStagePipeline).toArray();
      check('multiStage', got.length > 0 && got.length <= 20, `${got.length} rows`);
    });

    await time('createIndex', async () => {
      await docs.createIndex({ i: 1 });
    });

    const rangeFilter = (a: number): Document => ({ i: { $gte: a, $lt: a + s.rangeDocs } });
    indexUse = await explainRange(db, rangeFilter(0));
    await time('rangeIndexed', async () => {
      const starts = Array.from({ length: s.rangeQueries }, () =>
        rng.int(Math.max(1, n - s.rangeDocs)),
      );
      let bad = 0;
      for (let q = 0; q < Math.min(5, starts.length); q++)
        await docs.find(rangeFilter(starts[q] as number)).toArray(); // warm-up
      const t = performance.now();
      for (const a of starts)
        if ((await docs.find(rangeFilter(a)).toArray()).length !== Math.min(s.rangeDocs, n - a))
          bad++;
      const each = (performance.now() - t) / starts.length;
      check(
        'rangeIndexed',
        bad === 0,
        `${bad} of ${starts.length} ranges returned the wrong count`,
      );
      return each;
    });

    await time('changeStream', () => drainChangeStream(db, s.changeEvents));

    const evens = dataset.filter((d) => d.even).length;
    await time('updateHalf', async () => {
      const r = await docs.updateMany(
        { even: true },
        { $inc: { counter: 1 }, $set: { updated: true } },
      );
      check('updateHalf', r.modifiedCount === evens, `modifiedCount ${r.modifiedCount} ≠ ${evens}`);
    });

    await time('deleteHalf', async () => {
      const r = await docs.deleteMany({ even: false });
      check(
        'deleteHalf',
        r.deletedCount === n - evens,
        `deletedCount ${r.deletedCount} ≠ ${n - evens}`,
      );
    });

    await db.dropDatabase().catch(() => undefined);
  } finally {
    await client.close().catch(() => undefined);
  }
  return { results, wrong, indexUse };
}

/**
 * Open a change stream, write `events` documents, then time draining their events.
 * Throws (→ "not run" with the server's answer) where the server has no change streams.
 */
async function drainChangeStream(db: Db, events: number): Promise<number> {
  const coll = db.collection('events');
  const stream = coll.watch([], { maxAwaitTimeMS: 200, batchSize: 1000 });
  try {
    // The first tryNext sends the aggregate: this is where an unsupported server says so.
    await withTimeout(stream.tryNext(), 20_000, 'opening the change stream');
    const docs = Array.from({ length: events }, (_, i) => ({ e: i }));
    await coll.insertMany(docs);
    const deadline = performance.now() + 60_000;
    let seen = 0;
    const t = performance.now();
    while (seen < events && performance.now() < deadline)
      if ((await withTimeout(stream.tryNext(), 20_000, 'change stream getMore')) !== null) seen++;
    const ms = performance.now() - t;
    if (seen < events) throw new Error(`drained ${seen} of ${events} events in 60 s`);
    return ms;
  } finally {
    await stream.close().catch(() => undefined);
  }
}

export interface TargetSummary {
  readonly key: TargetKey;
  readonly label: string;
  /** Why the whole target was not run (no --uri given). */
  readonly notRun?: string;
}

export interface WorkloadSummary {
  readonly id: WorkloadId;
  readonly label: string;
  readonly floorText: string;
  /** The floor with the floors harness's ping (the figure printed in the floor column). */
  readonly floorMs: number | undefined;
  readonly targets: Partial<Record<TargetKey, TargetFigure>>;
}

export type TargetFigure =
  | {
      readonly medianMs: number;
      readonly spread: number;
      readonly samples: readonly number[];
      /** The floor from the median floors and this target's median ping. */
      readonly floorMs: number | undefined;
      /** Median of the per-run ratios. */
      readonly ratio: number | undefined;
      readonly ratioSamples: readonly number[];
      readonly wrong: readonly string[];
    }
  | { readonly notRun: string };

export interface CompareResult {
  readonly sizes: Sizes;
  readonly targets: readonly TargetSummary[];
  readonly workloads: readonly WorkloadSummary[];
  readonly indexUse: Partial<Record<TargetKey, string>>;
  readonly targetChecks: readonly string[];
}

export async function runCompare(
  config: BenchConfig,
  sampler: FloorSampler,
  progress: Progress,
): Promise<CompareResult> {
  const s = config.sizes;
  const dataset = makeDataset(s.docs);
  const warmSizes: Sizes = {
    ...s,
    docs: Math.min(s.docs / 4, 1000),
    pointReads: Math.min(s.pointReads, 300),
    rangeQueries: Math.min(s.rangeQueries, 5),
    changeEvents: Math.min(s.changeEvents, 100),
  };
  const warmDataset = makeDataset(warmSizes.docs, 7);
  const targets: TargetSummary[] = [
    { key: 'lmdb', label: 'SecantusDB lmdb' },
    { key: 'memory', label: 'SecantusDB memory' },
    { key: 'sqlite', label: 'SecantusDB sqlite' },
    { key: 'jsonfile', label: 'SecantusDB jsonfile' },
    config.uri === undefined
      ? {
          key: 'uri',
          label: '--uri server',
          notRun: 'not run: no --uri given (no mongod on this machine)',
        }
      : { key: 'uri', label: `--uri ${config.uri.replace(/\/\/[^@/]*@/, '//')}` },
  ];
  const live = targets.filter((t) => t.notRun === undefined);
  const runs: Record<TargetKey, TargetRun[]> = {
    lmdb: [],
    memory: [],
    sqlite: [],
    jsonfile: [],
    uri: [],
  };
  progress.start('compare', s.runs * live.length);
  try {
    for (let r = 0; r < s.runs; r++) {
      // One floor sample per run, paired with this run's workloads (see FloorSampler).
      progress.status(`run ${r + 1}: floors`);
      await sampler.sample();
      for (const t of interleavedOrder(live, r)) {
        progress.status(`run ${r + 1}: ${t.label}`);
        const dbName = `secantus_bench_${process.pid}_${r}`;
        // Warm-up: the same sequence on a smaller dataset, untimed. A fresh server runs its
        // first thousand requests on cold JIT code (measured here: pings 4× slower at first),
        // and a floor is a steady-state figure, so the timed run must be steady state too.
        // --quick skips it: a smoke run checks that everything runs, not the figures.
        const measure = async (uri: string): Promise<TargetRun> => {
          if (!config.quick)
            await runWorkloads(uri, `${dbName}_warmup`, warmDataset, warmSizes, 500 + r);
          return runWorkloads(uri, dbName, dataset, s, 1000 + r);
        };
        if (t.key === 'uri') {
          runs.uri.push(await measure(config.uri as string));
        } else {
          const daemon = await startDaemon({ engine: t.key });
          try {
            runs[t.key].push(await measure(daemon.uri));
          } finally {
            await daemon.stop();
          }
        }
        progress.tick();
      }
    }
  } finally {
    progress.stop();
  }
  return summarise(config, sampler.floors(), targets, runs);
}

export function summarise(
  config: BenchConfig,
  floors: Floors,
  targets: readonly TargetSummary[],
  runs: Record<TargetKey, TargetRun[]>,
): CompareResult {
  const s = config.sizes;
  const pingOf = (key: TargetKey): number | undefined => {
    const v = runs[key]
      .map((r) => r.results.ping)
      .filter((o): o is { ms: number } => o !== undefined && 'ms' in o);
    return v.length === 0 ? undefined : median(v.map((o) => o.ms));
  };
  const summaries: WorkloadSummary[] = workloads.map((w) => {
    const figures: Partial<Record<TargetKey, TargetFigure>> = {};
    for (const t of targets) {
      if (t.notRun !== undefined) {
        figures[t.key] = { notRun: t.notRun };
        continue;
      }
      const outcomes = runs[t.key]
        .map((r) => r.results[w.id])
        .filter((o): o is Outcome => o !== undefined);
      const times = outcomes.filter((o): o is { ms: number } => 'ms' in o).map((o) => o.ms);
      const reasons = outcomes
        .filter((o): o is { notRun: string } => 'notRun' in o)
        .map((o) => o.notRun);
      if (times.length === 0) {
        figures[t.key] = { notRun: `not run: ${reasons[0] ?? 'no result'}` };
        continue;
      }
      const ping = pingOf(t.key) ?? floors.medians.pingMs;
      const floorMs = w.floor(floors.medians, ping, s);
      const m = median(times);
      const wrongs = runs[t.key].flatMap((r) => r.wrong.filter((x) => x.startsWith(`${w.id}:`)));
      // The ratio is the median of per-run ratios: run r's time over the floor sampled at the
      // start of run r (with run r's own ping), so load that comes and goes cancels out.
      const ratios: number[] = [];
      runs[t.key].forEach((run, r) => {
        const o = run.results[w.id];
        const fr = floors.runs[r];
        const p = run.results.ping;
        if (o === undefined || !('ms' in o) || fr === undefined) return;
        const fl = w.floor(fr, p !== undefined && 'ms' in p ? p.ms : fr.pingMs, s);
        if (fl !== undefined && fl > 0) ratios.push(o.ms / fl);
      });
      const ratio =
        ratios.length > 0 ? median(ratios) : floorMs === undefined ? undefined : m / floorMs;
      figures[t.key] = {
        medianMs: m,
        spread: spread(times),
        samples: times,
        floorMs,
        ratio,
        ratioSamples: ratios,
        wrong: [...new Set(wrongs)],
      };
    }
    return {
      id: w.id,
      label: w.label(s),
      floorText: w.floorText(floors, s),
      floorMs: w.floor(floors.medians, floors.medians.pingMs, s),
      targets: figures,
    };
  });
  const indexUse: Partial<Record<TargetKey, string>> = {};
  for (const t of targets) {
    const seen = [...new Set(runs[t.key].map((r) => r.indexUse))];
    if (seen.length > 0) indexUse[t.key] = seen.join(' / ');
  }
  return {
    sizes: s,
    targets,
    workloads: summaries,
    indexUse,
    targetChecks: targetChecks(summaries),
  };
}

function ratioOf(
  summaries: readonly WorkloadSummary[],
  id: WorkloadId,
  key: TargetKey,
): number | undefined {
  const f = summaries.find((w) => w.id === id)?.targets[key];
  return f !== undefined && 'ratio' in f ? f.ratio : undefined;
}

/** The targets, measured and stated — never asserted. */
function targetChecks(summaries: readonly WorkloadSummary[]): string[] {
  const out: string[] = [];
  const say = (what: string, r: number | undefined, limit: number): void => {
    if (r === undefined) out.push(`${what}: not measured`);
    else
      out.push(
        `${what}: ${formatRatio(r)} — ${r <= limit ? 'met' : 'NOT met'} (target ≤ ${limit}×)`,
      );
  };
  for (const key of ['lmdb', 'memory'] as const)
    say(`point read by _id vs ping, ${key}`, ratioOf(summaries, 'pointRead', key), 1.5);
  const insert = summaries.find((w) => w.id === 'insert')?.targets.lmdb;
  if (insert !== undefined && 'medianMs' in insert && insert.floorMs !== undefined) {
    // The target is against raw LMDB alone; the printed ratio's floor also holds one ping.
    say('insertMany on lmdb vs raw LMDB puts (same txn sizes)', insert.ratio, 3);
  } else say('insertMany on lmdb vs raw LMDB puts', undefined, 3);
  return out;
}

function cellFor(f: TargetFigure | undefined): [string, string] {
  if (f === undefined) return ['—', '—'];
  if ('notRun' in f) return [f.notRun, '—'];
  const value = `${formatDuration(f.medianMs)} ±${Math.round(f.spread * 100)}%${f.wrong.length > 0 ? ' WRONG' : ''}`;
  return [value, f.ratio === undefined ? '—' : formatRatio(f.ratio)];
}

export function compareTable(result: CompareResult): string {
  const headers = ['workload', 'floor'];
  for (const t of result.targets)
    headers.push(t.key === 'uri' ? '--uri server' : `secantus ${t.key}`, '× floor');
  const rows = result.workloads.map((w) => {
    const row = [w.label, w.floorMs === undefined ? '—' : formatDuration(w.floorMs)];
    for (const t of result.targets) row.push(...cellFor(w.targets[t.key]));
    return row;
  });
  return markdownTable(headers, rows);
}

export function compareNotes(result: CompareResult, floors: Floors): string {
  const lines: string[] = [];
  lines.push(
    "Floors. Ratios are medians of per-run ratios: each run starts with a fresh floor sample, and each target's floor uses the ping measured against that target in that run. The floor column shows the median floors with the floor harness's ping.",
  );
  for (const w of result.workloads) lines.push(`- ${w.label}: ${w.floorText}`);
  lines.push('');
  lines.push(
    `Per call for ping, point read and indexed range (${result.sizes.pointReads} / ${result.sizes.rangeQueries} sequential calls per run); per operation for the rest. ${result.sizes.runs} runs, a fresh server and data directory per run and target; documents average ${floors.avgDocBytes} bytes of BSON.`,
  );
  for (const [key, text] of Object.entries(result.indexUse))
    lines.push(`- indexed range on ${key}: the planner ${text}.`);
  for (const w of result.workloads) {
    for (const [key, f] of Object.entries(w.targets)) {
      if (f !== undefined && 'wrong' in f && f.wrong.length > 0)
        lines.push(`- WRONG RESULT on ${key}, ${w.label}: ${f.wrong.join('; ')}`);
      // Below 1× the floor is not a bound for this workload: it assumes work the server
      // could skip (a filter need not decode every field of every document), or the ± is
      // larger than the gap. Said rather than hidden.
      if (f !== undefined && 'ratio' in f && f.ratio !== undefined && f.ratio < 1) {
        lines.push(
          `- ${w.label} on ${key} is below its floor (${formatRatio(f.ratio)}, ±${Math.round(f.spread * 100)}%): the floor assumes work the server need not do here, or the gap is within the noise.`,
        );
      }
    }
  }
  lines.push('');
  lines.push('Targets (measured, not asserted):');
  for (const c of result.targetChecks) lines.push(`- ${c}`);
  return lines.join('\n');
}
