// The multi-process benchmark's figures and how they are reported: the shapes of a run and
// a result, the medians per (row, process count), the markdown tables and where the files
// go. Pure (no processes, no clock), shared by bench/multiprocess.ts and bench/charts.ts,
// and tested in test/unit/bench.

import { join } from 'node:path';
import type { BenchConfig } from './config.js';
import { repoRoot } from './daemon.js';
import type { BuildState } from './daemon.js';
import type { MachineInfo } from './machine.js';
import { markdownTable } from './markdown.js';
import { formatRate, median, perSecond } from './stats.js';
import { phaseNames } from './multiprocess-plan.js';
import type { MpSizes, PhaseName } from './multiprocess-plan.js';
import type { RowSpec } from '../multiprocess-stores.js';

export interface PhaseFigure {
  /** The slowest worker's time: the phase's time. */
  readonly ms: number;
  readonly workerMs: readonly number[];
  /** Right answers per worker (read-all: the documents each process saw). */
  readonly workerOk: readonly number[];
  readonly ok: number;
  readonly expected: number;
  /** Mean and p95 over every operation of every worker (point reads, updates, deletes). */
  readonly avgMs?: number;
  readonly p95Ms?: number;
  /** Every operation's latency, rounded to µs. */
  readonly latenciesMs?: readonly number[];
}

export interface ReopenCheck {
  readonly count: number;
  readonly updated: number;
  readonly expectedCount: number;
  readonly expectedUpdated: number;
}

export interface MpRun {
  readonly row: string;
  readonly workers: number;
  readonly repetition: number;
  readonly status: 'ok' | 'failed';
  readonly error?: string;
  readonly phases: Partial<Record<PhaseName, PhaseFigure>>;
  readonly reopen?: ReopenCheck;
  readonly reopenError?: string;
  readonly diskKiB?: number;
  readonly wallMs: number;
}

export interface MpResult {
  readonly sizes: MpSizes;
  readonly rows: readonly RowSpec[];
  readonly runs: readonly MpRun[];
  readonly startedLoad: number;
  readonly endedLoad: number;
  readonly totalSeconds: number;
}

export function notRunReason(row: RowSpec, workers: number): string | undefined {
  return row.notRun !== undefined && workers >= row.notRun.minWorkers
    ? row.notRun.reason
    : undefined;
}

export interface MpSummary {
  readonly row: RowSpec;
  readonly workers: number;
  readonly notRun?: string;
  /** The first failure, and in how many repetitions. */
  readonly failed?: string;
  /** Median per phase over the repetitions whose answers were right; 'WRONG …' otherwise. */
  readonly phaseMs: Partial<Record<PhaseName, number | string>>;
  readonly pointAvgMs?: number;
  readonly pointP95Ms?: number;
  readonly diskKiB?: number;
  /** What the reopen found when it was not what was written. */
  readonly reopenWrong?: string;
  /** Sum of the five phases' medians, for the chart; undefined unless all five are right. */
  readonly totalMs?: number;
}

/** What a wrong phase got; read-all is per process (each should see every document). */
export function wrongText(phase: PhaseName, f: PhaseFigure): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  if (phase === 'readAll' && f.workerOk.length > 0) {
    const each = f.expected / f.workerOk.length;
    const lo = Math.min(...f.workerOk);
    const hi = Math.max(...f.workerOk);
    const who = f.workerOk.length === 1 ? 'saw' : 'each saw';
    return `WRONG: ${who} ${lo === hi ? n(lo) : `${n(lo)}–${n(hi)}`} of ${n(each)}`;
  }
  return `WRONG: ${n(f.ok)} of ${n(f.expected)} right`;
}

function medianOf(xs: readonly (number | undefined)[]): number | undefined {
  const v = xs.filter((x): x is number => x !== undefined);
  return v.length === 0 ? undefined : median(v);
}

export function summarize(result: MpResult, row: RowSpec, workers: number): MpSummary {
  const notRun = notRunReason(row, workers);
  if (notRun !== undefined) return { row, workers, notRun, phaseMs: {} };
  const runs = result.runs.filter((r) => r.row === row.key && r.workers === workers);
  const failedRuns = runs.filter((r) => r.status === 'failed');
  const failed =
    failedRuns.length === 0
      ? undefined
      : `${failedRuns[0]?.error ?? 'failed'}${runs.length > 1 ? ` (${failedRuns.length} of ${runs.length} runs)` : ''}`;
  const phaseMs: Partial<Record<PhaseName, number | string>> = {};
  for (const p of phaseNames) {
    const figs = runs.map((r) => r.phases[p]).filter((f): f is PhaseFigure => f !== undefined);
    if (figs.length === 0) continue;
    const wrong = figs.find((f) => f.ok !== f.expected);
    phaseMs[p] = wrong !== undefined ? wrongText(p, wrong) : median(figs.map((f) => f.ms));
  }
  const points = runs
    .map((r) => r.phases.pointReads)
    .filter((f): f is PhaseFigure => f !== undefined && f.ok === f.expected);
  const okRuns = runs.filter((r) => r.status === 'ok');
  const wrongReopen = okRuns.find(
    (r) =>
      r.reopenError !== undefined ||
      (r.reopen !== undefined &&
        (r.reopen.count !== r.reopen.expectedCount ||
          r.reopen.updated !== r.reopen.expectedUpdated)),
  );
  const reopenWrong =
    wrongReopen === undefined
      ? undefined
      : wrongReopen.reopenError !== undefined
        ? `reopen failed: ${wrongReopen.reopenError}`
        : `reopen found ${wrongReopen.reopen?.count} documents (${wrongReopen.reopen?.updated} updated), expected ${wrongReopen.reopen?.expectedCount} (${wrongReopen.reopen?.expectedUpdated} updated)`;
  const all = phaseNames.map((p) => phaseMs[p]);
  const totalMs =
    failed === undefined && all.every((x) => typeof x === 'number')
      ? (all as number[]).reduce((a, b) => a + b, 0)
      : undefined;
  const pointAvgMs = medianOf(points.map((f) => f.avgMs));
  const pointP95Ms = medianOf(points.map((f) => f.p95Ms));
  const diskKiB = medianOf(okRuns.map((r) => r.diskKiB));
  return {
    row,
    workers,
    ...(failed === undefined ? {} : { failed }),
    phaseMs,
    ...(pointAvgMs === undefined ? {} : { pointAvgMs }),
    ...(pointP95Ms === undefined ? {} : { pointP95Ms }),
    ...(diskKiB === undefined ? {} : { diskKiB }),
    ...(reopenWrong === undefined ? {} : { reopenWrong }),
    ...(totalMs === undefined ? {} : { totalMs }),
  };
}

function ms(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

function cellMs(v: number | string | undefined): string {
  return v === undefined ? '—' : typeof v === 'string' ? v : ms(v);
}

function cellRate(v: number | string | undefined, ops: number): string {
  return v === undefined ? '—' : typeof v === 'string' ? v : formatRate(perSecond(ops, v));
}

export function profileTable(result: MpResult, workers: number): string {
  const s = result.sizes;
  const headers = [
    'row',
    `insert ${s.docs.toLocaleString('en-US')} (ms)`,
    'read-all (ms)',
    `${s.pointReads} point reads /s`,
    'avg (ms)',
    'p95 (ms)',
    `${s.updates} updates /s`,
    `${s.deletes} deletes /s`,
    'KiB after reopen',
    'writes acknowledged',
    'result',
  ];
  const body = result.rows.map((row) => {
    const m = summarize(result, row, workers);
    if (m.notRun !== undefined)
      return [
        row.label,
        '—',
        '—',
        '—',
        '—',
        '—',
        '—',
        '—',
        '—',
        row.durability,
        `not run: ${m.notRun}`,
      ];
    const p = m.phaseMs;
    const wrongs = phaseNames.filter((x) => typeof p[x] === 'string');
    const wrong =
      wrongs.length > 0 || m.reopenWrong !== undefined
        ? `WRONG: ${[...wrongs.map((x) => `${x} ${String(p[x]).replace('WRONG: ', '')}`), ...(m.reopenWrong === undefined ? [] : [m.reopenWrong])].join('; ')}`
        : undefined;
    // A row can fail in some repetitions and answer wrongly in the others: say both.
    const verdict =
      m.failed !== undefined
        ? `failed: ${m.failed}${wrong === undefined ? '' : `; the other runs: ${wrong}`}`
        : (wrong ?? 'ok');
    return [
      row.label,
      cellMs(p.insert),
      cellMs(p.readAll),
      cellRate(p.pointReads, s.pointReads),
      m.pointAvgMs === undefined ? '—' : ms(m.pointAvgMs),
      m.pointP95Ms === undefined ? '—' : ms(m.pointP95Ms),
      cellRate(p.updates, s.updates),
      cellRate(p.deletes, s.deletes),
      !row.persistent
        ? 'in memory'
        : m.diskKiB === undefined
          ? '—'
          : m.diskKiB.toLocaleString('en-US'),
      row.durability,
      verdict,
    ];
  });
  return markdownTable(
    headers,
    body,
    headers.map((_, i) => (i === 0 || i >= 9 ? 'left' : 'right')),
  );
}

export function multiprocessReport(
  m: MachineInfo,
  build: BuildState,
  result: MpResult,
  quick: boolean,
): string {
  const s = result.sizes;
  const lines = [
    `# Multi-process benchmark${quick ? ' (--quick sizes)' : ''}`,
    '',
    `Machine: ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; commit ${m.commit}${m.srcDirty ? ' (src/ had uncommitted changes)' : ''}; ${m.date}. ` +
      `**Shared and loaded**: other sessions built and tested on the same ${m.cores} cores (load average ${result.startedLoad} at the start, ${result.endedLoad} at the end), so absolute figures are slow and noisy; compare rows of this run with each other.${build.buildErrors === undefined ? '' : ' The build reported type errors (other work in progress); the daemon ran from what tsc emitted.'}`,
    '',
    `Workload: the same ${s.docs.toLocaleString('en-US')} JSON documents (~510 bytes, fixed seed) and the same operations in the same order for every row: one bulk insert, a read of all documents, ${s.pointReads} point reads by \`_id\`, ${s.updates} updates (\`$set\` + \`$inc\`) and ${s.deletes} deletes by \`_id\`, each acknowledged before the next; then every process closes, the directory is reopened, checked (${s.docs - s.deletes} documents, ${s.updates} updated) and measured. ` +
      `With N processes: N spawned Node processes, released together for each phase (a barrier); insert, point reads, updates and deletes are split between them, read-all is done by each over the whole collection (so it also checks that each process sees the others' writes); a phase's time is the slowest process's. ` +
      `Each (row, processes) ran ${s.repetitions} time${s.repetitions === 1 ? '' : 's'} in a rotated order; figures are medians. Point-read avg and p95 are over every read of every process. Each process warms up first on a side collection (untimed).`,
    '',
    '## 1 process',
    '',
    profileTable(result, 1),
    '',
    ...s.profiles
      .filter((n) => n !== 1)
      .flatMap((n) => [`## ${n} processes on one data directory`, '', profileTable(result, n), '']),
    '## Notes',
    '',
    '- "failed: …" is the store\'s own error, as the processes got it; "WRONG" is an answer that was not what was written (for example a process that read only its own inserts). No row falls back to something else.',
    '- Raw SQLite is the lower-bound reference: the same JSON in one table (id TEXT PRIMARY KEY, doc TEXT) through better-sqlite3, WAL and synchronous=FULL, the same durability as the sqlite engine; its update is one SQL statement (json_set).',
    '- nedb acknowledges a write once it is appended to its file, without fsync; lokijs and mingo acknowledge in memory (lokijs saves the whole file at close). Their write rates are not durable rates.',
    '- KiB: the allocated size of the whole data directory after close and reopen (LMDB map, SQLite file, oplog and catalog included).',
    `- Finished in ${result.totalSeconds} s.`,
  ];
  return lines.join('\n');
}

export function mpPaths(config: BenchConfig): { md: string; json: string; svg: string } {
  const dir = config.outDir ?? join(repoRoot, 'bench/results');
  const q = config.quick ? '.quick' : '';
  return {
    md: join(dir, `multiprocess${q}.md`),
    json: join(dir, `multiprocess${q}.json`),
    svg: join(dir, `multiprocess${q}.svg`),
  };
}
