// The multi-process benchmark (issue 19): the same 1,000 JSON documents and the same
// operations in the same order, through each of our engines embedded, our daemon over the
// wire, raw SQLite (the lower bound) and the embedded Node stores nedb, lokijs and mingo;
// with 1 process and with 4 processes on one data directory.
//
//   tsx bench/multiprocess.ts [--quick] [--out dir] [--rows lmdb,daemon]   (or: npm run bench:multiprocess)
//
// Method: every run gets a fresh data directory and fresh worker processes (child_process
// fork, each its own Node process). Each worker opens the store and warms up on a side
// collection (untimed); then for each phase the harness releases all workers at once (the
// barrier) and waits for all of them: a phase's time is the slowest worker's. The work is
// split between the workers (bulk insert of its slice, its share of the point reads, updates
// and deletes); read-all is done by every worker over the whole collection, which is also
// the check that each process sees what the others wrote. After the workers closed, the
// harness reopens the directory in its own process, checks what survived (900 documents,
// 100 of them updated) and measures the directory. Rows × profiles are visited in a rotated
// order in each of three repetitions; the table shows medians. Every answer is checked: a
// wrong one is printed as WRONG, a store that refuses is printed as "failed: <its error>",
// and a profile a row cannot run at all says "not run: <why>".

import { existsSync, lstatSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir } from './lib/cleanup.js';
import { parseArgs, UsageError, usage, writeJson } from './lib/config.js';
import type { BenchConfig } from './lib/config.js';
import { ensureBuilt, startDaemon } from './lib/daemon.js';
import type { BuildState, Daemon } from './lib/daemon.js';
import { machineInfo } from './lib/machine.js';
import type { MachineInfo } from './lib/machine.js';
import { writeSvg } from './lib/chart.js';
import { forkWorker } from './lib/worker-process.js';
import type { WorkerProcess } from './lib/worker-process.js';
import { interleavedOrder } from './lib/stats.js';
import { mpPaths, multiprocessReport, notRunReason } from './lib/multiprocess-summary.js';
import type { MpResult, MpRun, PhaseFigure, ReopenCheck } from './lib/multiprocess-summary.js';
import {
  makePlan,
  mean,
  mpDefaultSizes,
  mpQuickSizes,
  percentile,
  phaseNames,
} from './lib/multiprocess-plan.js';
import type { MpSizes, PhaseName } from './lib/multiprocess-plan.js';
import { errorText, measuredCollection, openStore, rows } from './multiprocess-stores.js';
import type { RowSpec } from './multiprocess-stores.js';
import type { FromMpWorker, PhaseReport, ToMpWorker } from './multiprocess-worker.js';
import { multiprocessChart } from './charts.js';
import { lockFileName } from '../src/storage/lock-file.js';

const openTimeoutMs = 120_000;
const phaseTimeoutMs = 180_000;
const closeTimeoutMs = 60_000;

type Worker = WorkerProcess<FromMpWorker, ToMpWorker>;

function startWorker(): Promise<Worker> {
  return forkWorker<FromMpWorker, ToMpWorker>(
    new URL('./multiprocess-worker.ts', import.meta.url),
    {
      name: () => 'worker process',
      exitedMessage: (child) =>
        `worker process exited (${child.signalCode ?? `code ${String(child.exitCode)}`})`,
    },
  );
}

async function stopWorker(w: Worker): Promise<void> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => w.child.once('exit', () => resolve()));
  const killer = setTimeout(() => w.child.kill('SIGKILL'), 10_000);
  try {
    w.send({ type: 'close' });
    await w.next('closed', closeTimeoutMs).catch(() => undefined);
  } catch {
    w.child.kill('SIGKILL');
  }
  await exited;
  clearTimeout(killer);
}

/** Allocated size of everything under `dir` (what du counts), in KiB. */
export function dirKiB(dir: string): number {
  let bytes = 0;
  const stack = [dir];
  let visited = 0;
  while (stack.length > 0 && visited++ < 10_000) {
    const d = stack.pop() as string;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else bytes += lstatSync(p).blocks * 512;
    }
  }
  return Math.round(bytes / 1024);
}

/** Wait (bounded) until no process holds SecantusDB's lock on `dir`. */
async function lockReleased(dir: string, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (existsSync(join(dir, lockFileName)) && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
}

function figureOf(phase: PhaseName, reports: readonly PhaseReport[]): PhaseFigure {
  const latencies = reports.flatMap((r) => r.latenciesMs);
  const timed = phase === 'pointReads' || phase === 'updates' || phase === 'deletes';
  return {
    ms: Math.max(...reports.map((r) => r.elapsedMs)),
    workerMs: reports.map((r) => Math.round(r.elapsedMs * 1000) / 1000),
    workerOk: reports.map((r) => r.ok),
    ok: reports.reduce((t, r) => t + r.ok, 0),
    expected: reports.reduce((t, r) => t + r.expected, 0),
    ...(timed && latencies.length > 0
      ? {
          avgMs: mean(latencies),
          p95Ms: percentile(latencies, 95),
          latenciesMs: latencies.map((x) => Math.round(x * 1000) / 1000),
        }
      : {}),
  };
}

async function runOne(row: RowSpec, n: number, repetition: number, sizes: MpSizes): Promise<MpRun> {
  const started = performance.now();
  const dir = makeTempDir(`mp-${row.key}-${n}`);
  const phases: Partial<Record<PhaseName, PhaseFigure>> = {};
  let daemon: Daemon | undefined;
  let workers: Worker[] = [];
  let error: string | undefined;
  const base = { row: row.key, workers: n, repetition };
  try {
    if (row.kind === 'daemon') daemon = await startDaemon({ engine: 'lmdb', dbPath: dir });
    workers = await Promise.all(Array.from({ length: n }, () => startWorker()));
    // All workers open at once, as n application processes starting together would.
    workers.forEach((w, index) =>
      w.send({
        type: 'open',
        row,
        dir,
        ...(daemon === undefined ? {} : { uri: daemon.uri }),
        workers: n,
        index,
        sizes,
      }),
    );
    const opened = await Promise.all(
      workers.map((w) =>
        w
          .next(['ready', 'failed'], openTimeoutMs)
          .catch((e: unknown) => ({ type: 'failed' as const, error: errorText(e) })),
      ),
    );
    const refused = opened.filter(
      (m): m is { type: 'failed'; error: string } => m.type === 'failed',
    );
    if (refused.length > 0) {
      const distinct = [...new Set(refused.map((m) => m.error.replaceAll(dir, '<dir>')))];
      error = `${refused.length} of ${n} processes could not open: ${distinct.join('; ')}`;
    } else {
      for (const phase of phaseNames) {
        // The barrier: every worker waits for this message, sent to all of them at once.
        for (const w of workers) w.send({ type: 'phase', phase });
        const reports = (await Promise.all(
          workers.map((w) => w.next('phase', phaseTimeoutMs)),
        )) as PhaseReport[];
        const failed = reports.filter((r) => r.error !== undefined);
        if (failed.length > 0) {
          error = `${phase}: ${failed.length} of ${n} processes: ${[...new Set(failed.map((r) => (r.error ?? '').replaceAll(dir, '<dir>')))].join('; ')}`;
          break;
        }
        phases[phase] = figureOf(phase, reports);
      }
    }
  } catch (e) {
    error = errorText(e).replaceAll(dir, '<dir>');
  } finally {
    await Promise.all(workers.map((w) => stopWorker(w)));
    await daemon?.stop();
  }
  let reopen: ReopenCheck | undefined;
  let reopenError: string | undefined;
  let diskKiB: number | undefined;
  if (error === undefined && row.persistent) {
    // Close and reopen: what a process starting afterwards finds.
    let again: Daemon | undefined;
    try {
      await lockReleased(dir);
      if (row.kind === 'daemon') again = await startDaemon({ engine: 'lmdb', dbPath: dir });
      const store = await openStore(row, {
        dir,
        ...(again === undefined ? {} : { uri: again.uri }),
      });
      const docs = await store.readAll(measuredCollection);
      await store.close();
      reopen = {
        count: docs.length,
        updated: docs.filter((d) => d.status === 'updated' && d.version === 2).length,
        expectedCount: sizes.docs - sizes.deletes,
        expectedUpdated: sizes.updates,
      };
    } catch (e) {
      reopenError = errorText(e).replaceAll(dir, '<dir>');
    } finally {
      await again?.stop();
    }
    await lockReleased(dir);
    diskKiB = dirKiB(dir);
  }
  removeTempDir(dir);
  return {
    ...base,
    status: error === undefined ? 'ok' : 'failed',
    ...(error === undefined ? {} : { error }),
    phases,
    ...(reopen === undefined ? {} : { reopen }),
    ...(reopenError === undefined ? {} : { reopenError }),
    ...(diskKiB === undefined ? {} : { diskKiB }),
    wallMs: performance.now() - started,
  };
}

export async function runMultiprocess(
  sizes: MpSizes,
  log: (line: string) => void,
  only?: readonly string[],
): Promise<MpResult> {
  const picked = only === undefined ? rows : rows.filter((r) => only.includes(r.key));
  const t0 = performance.now();
  const startedLoad = Math.round((loadavg()[0] ?? 0) * 100) / 100;
  makePlan(sizes); // a bad size fails here, before any process starts
  const configs = sizes.profiles.flatMap((n) =>
    picked.filter((r) => notRunReason(r, n) === undefined).map((row) => ({ row, n })),
  );
  const runs: MpRun[] = [];
  for (let rep = 0; rep < sizes.repetitions; rep++) {
    for (const { row, n } of interleavedOrder(configs, rep)) {
      const r = await runOne(row, n, rep, sizes);
      runs.push(r);
      log(
        `rep ${rep + 1}/${sizes.repetitions} ${row.key} × ${n}: ${r.status}${r.error === undefined ? '' : ` (${r.error.slice(0, 120)})`} in ${(r.wallMs / 1000).toFixed(1)} s`,
      );
    }
  }
  return {
    sizes,
    rows: picked,
    runs,
    startedLoad,
    endedLoad: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    totalSeconds: Math.round((performance.now() - t0) / 100) / 10,
  };
}

/** Run, print the report, write the markdown, JSON and chart. */
export async function reportMultiprocess(
  config: BenchConfig,
  m: MachineInfo,
  build: BuildState,
  say: (text: string) => void,
  only?: readonly string[],
): Promise<void> {
  const sizes = config.quick ? mpQuickSizes : mpDefaultSizes;
  const result = await runMultiprocess(
    sizes,
    (line) => process.stderr.write(`bench: ${line}\n`),
    only,
  );
  const report = multiprocessReport(m, build, result, config.quick);
  say(report);
  // Some rows only: a check or a before/after figure, not a run to commit.
  if (only !== undefined) return;
  const paths = mpPaths(config);
  mkdirSync(join(paths.md, '..'), { recursive: true });
  writeFileSync(paths.md, `${report}\n`);
  writeJson(paths.json, { harness: 'multiprocess', machine: m, build, result });
  writeSvg(paths.svg, multiprocessChart(m, config.quick, result));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  // --rows a,b (this script only): just those rows (keys as in multiprocess-stores.ts), no files.
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--rows');
  let only: string[] | undefined;
  if (at >= 0) {
    only = (argv[at + 1] ?? '').split(',').filter((k) => k !== '');
    argv.splice(at, 2);
    const unknown = only.filter((k) => !rows.some((r) => r.key === k));
    if (only.length === 0 || unknown.length > 0) {
      process.stderr.write(
        `bench: --rows takes a comma-separated list of ${rows.map((r) => r.key).join(', ')}\n`,
      );
      process.exit(2);
    }
  }
  let config: BenchConfig;
  try {
    config = parseArgs(['multiprocess', ...argv]);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`bench: ${e.message}\n\n${usage}\n`);
    process.exit(2);
  }
  const build = ensureBuilt((line) => process.stderr.write(`bench: ${line}\n`));
  await reportMultiprocess(
    config,
    machineInfo(),
    build,
    (t) => process.stdout.write(`${t}\n`),
    only,
  );
  process.exit(0);
}
