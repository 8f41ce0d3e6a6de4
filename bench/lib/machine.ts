// What the figures were measured on, and how to read them. Printed at the top of every
// report and stored in every JSON result: absolute figures mean something only next to
// the machine and the commit they came from.

import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import { repoRoot } from './daemon.js';

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly tmpdir: string;
  readonly commit: string;
  /** Uncommitted changes under src/ when the run started (other engineers' work in progress). */
  readonly srcDirty: boolean;
  readonly date: string;
  /**
   * 1-minute load average when the run started. This machine is shared (other sessions build
   * and test on the same cores), so a figure from a loaded machine says so next to it.
   */
  readonly loadAverage1m: number;
}

function git(args: readonly string[]): string {
  const r = spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 ? r.stdout.trim() : '';
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    tmpdir: os.tmpdir(),
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    srcDirty: git(['status', '--porcelain', '--', 'src']) !== '',
    date: new Date().toISOString(),
    loadAverage1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}

/** The paragraph every report starts with (kept in step with bench/README.md). */
export function howToRead(m: MachineInfo, quick: boolean): string {
  return [
    `Machine: ${m.cores} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; ` +
      `commit ${m.commit}${m.srcDirty ? ' (src/ had uncommitted changes)' : ''}; ${m.date}; ` +
      `load average ${m.loadAverage1m} at start${quick ? '; --quick sizes' : ''}.`,
    '',
    'How to read these numbers: absolute figures compare only within one run on one machine ' +
      '(fsync latency and core count dominate them). A ratio "N×" divides a workload\'s time by ' +
      'its floor measured in the same run — the cost of the same work with nothing of ours ' +
      'above the lmdb package, BSON and the socket — so 1× is the bound nothing above ' +
      'SecantusDB can beat, and a ratio compares across machines and commits. Medians of ' +
      'repeated runs; "±" is (max − min) / median over those runs. A load average near the ' +
      'core count at the start means other processes shared the cores: read ratios, not absolute figures.',
  ].join('\n');
}
