// The benchmark entry point (npm run bench): runs the floors, compare, concurrency and
// multiprocess harnesses, prints one markdown report on stdout (progress goes to stderr),
// writes each harness's JSON to bench/results/<name>.json and its chart to
// docs/bench/<name>.svg (multiprocess: bench/results/multiprocess.{md,json,svg}).
// See bench/README.md for what each figure means and how to read it.
//
//   tsx bench/run.ts [all|floors|compare|concurrency|multiprocess] [--quick] [--uri mongodb://127.0.0.1:27017/] [--out dir]

import { loadavg } from 'node:os';
import { cleanupNow } from './lib/cleanup.js';
import { chartPath, parseArgs, resultPath, usage, UsageError, writeJson } from './lib/config.js';
import type { BenchConfig } from './lib/config.js';
import { ensureBuilt } from './lib/daemon.js';
import type { BuildState } from './lib/daemon.js';
import { writeSvg } from './lib/chart.js';
import { compareChart, concurrencyChart, floorsChart } from './charts.js';
import { howToRead, machineInfo } from './lib/machine.js';
import type { MachineInfo } from './lib/machine.js';
import { Progress } from './lib/progress.js';
import { FloorSampler, floorsTable, measureFloors } from './floors.js';
import type { Floors } from './floors.js';
import { compareNotes, compareTable, runCompare } from './compare.js';
import type { CompareResult } from './compare.js';
import { concurrencyTable, runConcurrency } from './concurrency.js';
import type { ConcurrencyResult } from './concurrency.js';
import { reportMultiprocess } from './multiprocess.js';

function say(text = ''): void {
  process.stdout.write(`${text}\n`);
}

function reportFloors(config: BenchConfig, m: MachineInfo, build: BuildState, f: Floors): void {
  say('## Floors');
  say();
  say(
    `What nothing above SecantusDB can beat on this machine: ${f.docs.toLocaleString('en-US')} documents of ${f.avgDocBytes} bytes average BSON, ${f.roundTrips} sequential round trips, median of ${f.pingMs.samples.length} runs.`,
  );
  say();
  say(floorsTable(f));
  say();
  writeJson(resultPath(config, 'floors'), {
    harness: 'floors',
    machine: m,
    build,
    sizes: config.sizes,
    floors: f,
  });
  writeSvg(chartPath(config, 'floors'), floorsChart(m, config.quick, f));
}

function reportCompare(
  config: BenchConfig,
  m: MachineInfo,
  build: BuildState,
  f: Floors,
  r: CompareResult,
): void {
  say('## Compare: end to end through the driver');
  say();
  say(compareTable(r));
  say();
  say(compareNotes(r, f));
  say();
  writeJson(resultPath(config, 'compare'), {
    harness: 'compare',
    machine: m,
    build,
    sizes: config.sizes,
    floors: f,
    result: r,
  });
  writeSvg(chartPath(config, 'compare'), compareChart(m, config.quick, r));
}

function reportConcurrency(
  config: BenchConfig,
  m: MachineInfo,
  build: BuildState,
  r: ConcurrencyResult,
): void {
  say('## Concurrency: writer processes, durable inserts');
  say();
  say(
    `Each writer: its own process and collection, insertMany of ${r.batchDocs} × ~${Math.round(r.docBytes / 1024)} KiB documents, for ${r.durationMs / 1000} s; default write concern (acknowledged = on disk); a fresh lmdb daemon and data directory per row; median of ${config.sizes.concurrencyRuns} interleaved repetitions.`,
  );
  say();
  say(concurrencyTable(r));
  say();
  for (const n of r.notes) say(`- ${n}`);
  say(
    `- Writers, daemon and harness share this machine's ${m.cores} cores: past ${m.cores} busy processes the curve measures CPU sharing as much as group commit.`,
  );
  say();
  writeJson(resultPath(config, 'concurrency'), {
    harness: 'concurrency',
    machine: m,
    build,
    sizes: config.sizes,
    result: r,
  });
  writeSvg(chartPath(config, 'concurrency'), concurrencyChart(m, config.quick, config.sizes, r));
}

async function main(): Promise<number> {
  let config: BenchConfig;
  try {
    config = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`bench: ${e.message}\n\n${usage}\n`);
      return 2;
    }
    throw e;
  }
  const progress = new Progress();
  const build = ensureBuilt((line) => process.stderr.write(`bench: ${line}\n`));
  const m = machineInfo();
  const started = performance.now();
  say(`# SecantusDB benchmarks${config.quick ? ' (--quick)' : ''}`);
  say();
  say(howToRead(m, config.quick));
  if (build.buildErrors !== undefined)
    say(
      '\nNote: `npm run build` reported type errors (other work in progress); the daemon ran from what tsc emitted.',
    );
  say();

  const wants = (h: string): boolean => (config.harnesses as readonly string[]).includes(h);
  if (wants('compare')) {
    // Floors are sampled inside compare, one sample at the start of each run (paired ratios).
    const sampler = await FloorSampler.start(config);
    try {
      const result = await runCompare(config, sampler, progress);
      const floors = sampler.floors();
      if (wants('floors')) reportFloors(config, m, build, floors);
      reportCompare(config, m, build, floors, result);
    } finally {
      await sampler.stop();
    }
  } else if (wants('floors')) {
    reportFloors(config, m, build, await measureFloors(config, progress));
  }
  if (wants('concurrency'))
    reportConcurrency(config, m, build, await runConcurrency(config, progress));
  if (wants('multiprocess')) await reportMultiprocess(config, m, build, say);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  say(
    `Finished in ${seconds} s; load average ${(loadavg()[0] ?? 0).toFixed(2)} at the end (${m.loadAverage1m} at the start).`,
  );
  process.stderr.write(`bench: finished in ${seconds} s\n`);
  return 0;
}

main().then(
  (code) => {
    cleanupNow();
    process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(
      `bench: failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
    cleanupNow();
    process.exit(1);
  },
);
