// Command line of the harnesses, sizes for default and --quick runs, and where results go.
//
//   tsx bench/run.ts [all|compare|concurrency|floors] [--quick] [--uri <mongodb://...>] [--out <dir>]
//
// --quick is the CI smoke size: all three harnesses in well under a minute. Its results go
// to *.quick.json / *.quick.svg (ignored by git) so a smoke run never rewrites the
// committed figures; --out sends everything to another directory instead.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './daemon.js';

export const harnessNames = ['floors', 'compare', 'concurrency', 'multiprocess'] as const;
export type HarnessName = (typeof harnessNames)[number];

export interface Sizes {
  /** Documents in the compare dataset (and the floors that mirror it). */
  readonly docs: number;
  /** Repetitions per workload (the median is reported). */
  readonly runs: number;
  /** Point reads / pings / socket round trips per run. */
  readonly pointReads: number;
  /** Indexed range queries per run; each returns rangeDocs documents. */
  readonly rangeQueries: number;
  readonly rangeDocs: number;
  /** Events drained by the change-stream workload, where change streams exist. */
  readonly changeEvents: number;
  /** Writer process counts of the concurrency harness. */
  readonly writers: readonly number[];
  /** Repetitions of each concurrency row. */
  readonly concurrencyRuns: number;
  /** How long each concurrency row writes. */
  readonly concurrencyMs: number;
  /** Documents per insertMany in the concurrency harness, and their size. */
  readonly concurrencyBatchDocs: number;
  readonly concurrencyDocBytes: number;
}

export const defaultSizes: Sizes = {
  docs: 10_000,
  runs: 5,
  pointReads: 1_000,
  // Without index use in the planner each range query is a full scan (~0.3 s at 10k docs).
  rangeQueries: 20,
  rangeDocs: 100,
  changeEvents: 1_000,
  writers: [1, 2, 4, 8],
  concurrencyRuns: 3,
  concurrencyMs: 5_000,
  concurrencyBatchDocs: 32,
  concurrencyDocBytes: 8 * 1024,
};

// Small enough for a CI smoke run (every code path, figures not meant to be read).
export const quickSizes: Sizes = {
  docs: 1_000,
  runs: 2,
  pointReads: 50,
  rangeQueries: 5,
  rangeDocs: 50,
  changeEvents: 100,
  writers: [1, 2],
  concurrencyRuns: 1,
  concurrencyMs: 1_000,
  concurrencyBatchDocs: 32,
  concurrencyDocBytes: 8 * 1024,
};

export interface BenchConfig {
  readonly harnesses: readonly HarnessName[];
  readonly quick: boolean;
  readonly sizes: Sizes;
  /** Another server to measure in the compare harness (a real mongod), loopback only. */
  readonly uri: string | undefined;
  /** Where JSON results and SVG charts go; undefined = bench/results and docs/bench. */
  readonly outDir: string | undefined;
}

export class UsageError extends Error {}

export const usage = `Usage: tsx bench/run.ts [all|floors|compare|concurrency|multiprocess] [--quick] [--uri <mongodb://127.0.0.1:...>] [--out <dir>]

  all           floors, then compare (ratios to those floors), concurrency, multiprocess (default)
  --quick       CI smoke sizes; results go to *.quick.json / *.quick.svg (git-ignored)
  --uri <uri>   also measure this server in compare (e.g. a real mongod); 127.0.0.1/localhost only
  --out <dir>   write JSON and SVG there instead of bench/results and docs/bench`;

/**
 * Benchmarks send traffic only to this machine: a --uri naming any other host is refused
 * before anything connects (a load test aimed at a shared server is never intended here).
 */
export function checkLoopbackUri(uri: string): void {
  const m = /^mongodb:\/\/(?:[^@/]*@)?([^/?]+)/.exec(uri);
  if (m === null)
    throw new UsageError(`--uri must be a mongodb:// URI with explicit hosts, got ${uri}`);
  for (const hostPort of (m[1] as string).split(',')) {
    const host = hostPort.startsWith('[')
      ? hostPort.slice(1, hostPort.indexOf(']'))
      : (hostPort.split(':')[0] as string);
    const loopback =
      host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
    if (!loopback)
      throw new UsageError(
        `--uri host ${host} is not a loopback address; benchmarks only talk to this machine`,
      );
  }
}

export function parseArgs(argv: readonly string[]): BenchConfig {
  let quick = false;
  let uri: string | undefined;
  let outDir: string | undefined;
  const picked: HarnessName[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--quick') quick = true;
    else if (a === '--uri' || a === '--out') {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      if (a === '--uri') uri = v;
      else outDir = v;
    } else if (a === 'all') picked.push(...harnessNames);
    else if ((harnessNames as readonly string[]).includes(a)) picked.push(a as HarnessName);
    else throw new UsageError(`unknown argument ${a}`);
  }
  if (uri !== undefined) checkLoopbackUri(uri);
  // Always in the dependency order: compare reuses the floors of the same run.
  const harnesses = harnessNames.filter((h) => picked.length === 0 || picked.includes(h));
  return { harnesses, quick, sizes: quick ? quickSizes : defaultSizes, uri, outDir };
}

function outPath(
  config: BenchConfig,
  kind: 'results' | 'charts',
  name: string,
  ext: string,
): string {
  const file = `${name}${config.quick ? '.quick' : ''}.${ext}`;
  if (config.outDir !== undefined) return join(config.outDir, file);
  return kind === 'results'
    ? join(repoRoot, 'bench/results', file)
    : join(repoRoot, 'docs/bench', file);
}

export function resultPath(config: BenchConfig, name: HarnessName): string {
  return outPath(config, 'results', name, 'json');
}

export function chartPath(config: BenchConfig, name: HarnessName): string {
  return outPath(config, 'charts', name, 'svg');
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
