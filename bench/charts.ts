// The charts, built from a harness's result. run.ts draws them after a run; run as a
// script this redraws docs/bench/*.svg (and bench/results/multiprocess.svg) from the
// committed bench/results/*.json, so a change to how charts look does not need a new
// measurement:
//
//   tsx bench/charts.ts [--quick]

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { horizontalBarsSvg, scalingSvg, writeSvg } from './lib/chart.js';
import { chartPath, parseArgs, resultPath } from './lib/config.js';
import type { BenchConfig, Sizes } from './lib/config.js';
import type { MachineInfo } from './lib/machine.js';
import { formatDuration, formatRatio } from './lib/stats.js';
import { floorRows } from './floors.js';
import type { Floors } from './floors.js';
import type { CompareResult } from './compare.js';
import type { ConcurrencyResult } from './concurrency.js';
import type { MpResult } from './lib/multiprocess-summary.js';
import { mpPaths, summarize } from './lib/multiprocess-summary.js';

function stamp(m: MachineInfo, quick: boolean): string {
  return `${m.cores} cores, Node ${m.node}, commit ${m.commit}${m.srcDirty ? '+dirty' : ''}, load ${m.loadAverage1m}${quick ? ', --quick' : ''}`;
}

export function floorsChart(m: MachineInfo, quick: boolean, f: Floors): string {
  const rows = floorRows(f);
  return horizontalBarsSvg({
    title: 'SecantusDB benchmark floors — cost per operation or per document',
    subtitle: `${stamp(m, quick)} · median of ${f.pingMs.samples.length} runs · log scale`,
    categories: rows.map((r) => r.name),
    series: [
      { name: 'µs per op / doc', values: rows.map((r) => (r.sample.median / r.ops) * 1000) },
    ],
    axisName: 'µs (log scale)',
    log: true,
    valueLabel: (v) => formatDuration(v / 1000),
  });
}

export function compareChart(m: MachineInfo, quick: boolean, r: CompareResult): string {
  const live = r.targets.filter((t) => t.notRun === undefined);
  // Rows without a floor (create index) have no ratio to draw.
  const rows = r.workloads.filter((w) => w.floorMs !== undefined);
  return horizontalBarsSvg({
    title:
      "SecantusDB vs its floors — each workload's time ÷ the time nothing above SecantusDB can beat",
    subtitle: `${stamp(m, quick)} · ${r.sizes.docs.toLocaleString('en-US')} docs · median of ${r.sizes.runs} runs · log scale, 1× = floor`,
    categories: rows.map((w) => w.label),
    series: live.map((t) => ({
      name: t.label,
      values: rows.map((w) => {
        const fig = w.targets[t.key];
        return fig !== undefined && 'ratio' in fig && fig.ratio !== undefined ? fig.ratio : null;
      }),
    })),
    axisName: '× floor (log scale)',
    log: true,
    referenceAt: { value: 1, label: '1× floor' },
    valueLabel: formatRatio,
  });
}

export function concurrencyChart(
  m: MachineInfo,
  quick: boolean,
  sizes: Sizes,
  r: ConcurrencyResult,
): string {
  return scalingSvg({
    title: 'SecantusDB durable insert throughput as writer processes are added',
    subtitle: `${stamp(m, quick)} · ${r.batchDocs} × ${Math.round(r.docBytes / 1024)} KiB docs per insertMany · ${r.durationMs / 1000} s per row · median of ${sizes.concurrencyRuns}`,
    xs: r.writers,
    series: r.modes
      .filter((mode) => mode.notRun === undefined)
      .map((mode) => ({
        name: mode.name,
        values: r.writers.map(
          (n) => r.rows.find((x) => x.mode === mode.name && x.writers === n)?.docsPerSec ?? null,
        ),
      })),
    rateName: 'docs/s, all writers',
  });
}

/**
 * One bar per row and process count: the five timed phases added up (medians, slowest
 * process). A row with a failure, a wrong answer or "not run" has no bar, and its label says
 * which (the table gives the reason).
 */
export function multiprocessChart(m: MachineInfo, quick: boolean, r: MpResult): string {
  const s = r.sizes;
  const categories = r.rows.map((row) => {
    const marks = s.profiles.flatMap((n) => {
      const x = summarize(r, row, n);
      if (x.notRun !== undefined) return [`${n}p not run`];
      if (x.failed !== undefined) return [`${n}p failed`];
      if (x.totalMs === undefined || x.reopenWrong !== undefined) return [`${n}p WRONG`];
      return [];
    });
    // Not run in every profile: the chart library says "— not run" itself.
    const allNotRun = s.profiles.every((n) => summarize(r, row, n).notRun !== undefined);
    return marks.length === 0 || allNotRun ? row.label : `${row.label} (${marks.join(', ')})`;
  });
  return horizontalBarsSvg({
    title: 'Multi-process benchmark — time of all five phases (slowest process; lower is better)',
    subtitle: `${stamp(m, quick)} (shared machine) · ${s.docs.toLocaleString('en-US')} JSON docs: bulk insert + read-all + ${s.pointReads} point reads + ${s.updates} updates + ${s.deletes} deletes · median of ${s.repetitions} · log scale`,
    categories,
    series: s.profiles.map((n) => ({
      name: n === 1 ? '1 process' : `${n} processes`,
      values: r.rows.map((row) => {
        const x = summarize(r, row, n);
        return x.totalMs !== undefined && x.reopenWrong === undefined ? x.totalMs : null;
      }),
    })),
    axisName: 'ms (log scale)',
    log: true,
    valueLabel: (v) => formatDuration(v),
  });
}

interface Stored {
  readonly machine: MachineInfo;
  readonly sizes: Sizes;
  readonly floors?: Floors;
  readonly result?: unknown;
}

function load(path: string): Stored | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Stored) : undefined;
}

/** Redraw every chart whose JSON exists. */
export function redraw(config: BenchConfig): string[] {
  const done: string[] = [];
  const floors = load(resultPath(config, 'floors'));
  if (floors?.floors !== undefined) {
    writeSvg(chartPath(config, 'floors'), floorsChart(floors.machine, config.quick, floors.floors));
    done.push(chartPath(config, 'floors'));
  }
  const compare = load(resultPath(config, 'compare'));
  if (compare?.result !== undefined) {
    writeSvg(
      chartPath(config, 'compare'),
      compareChart(compare.machine, config.quick, compare.result as CompareResult),
    );
    done.push(chartPath(config, 'compare'));
  }
  const conc = load(resultPath(config, 'concurrency'));
  if (conc?.result !== undefined) {
    writeSvg(
      chartPath(config, 'concurrency'),
      concurrencyChart(conc.machine, config.quick, conc.sizes, conc.result as ConcurrencyResult),
    );
    done.push(chartPath(config, 'concurrency'));
  }
  const mp = load(mpPaths(config).json);
  if (mp?.result !== undefined) {
    writeSvg(
      mpPaths(config).svg,
      multiprocessChart(mp.machine, config.quick, mp.result as MpResult),
    );
    done.push(mpPaths(config).svg);
  }
  return done;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const p of redraw(parseArgs(process.argv.slice(2)))) process.stdout.write(`redrew ${p}\n`);
}
