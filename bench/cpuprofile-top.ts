// Summarise a V8 .cpuprofile (from `node --cpu-prof`): the top functions by self time and by
// total (inclusive) time, and self time by area (our layers, packages, node internals, GC).
//
//   tsx bench/cpuprofile-top.ts <file.cpuprofile> [--top N]
//
// The summary functions are pure (tested in test/unit/bench); the file is the CLI.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
  /** Samples per source line (1-based) while this node was on top of the stack. */
  readonly positionTicks?: readonly { readonly line: number; readonly ticks: number }[];
}

/** The subset of V8's CPU profile format this reads. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  /** µs since the previous sample, one per sample. */
  readonly timeDeltas?: readonly number[];
}

export interface FunctionCost {
  readonly name: string;
  /** url:line (1-based), shortened to the repository or package. */
  readonly where: string;
  readonly area: string;
  readonly selfMs: number;
  readonly totalMs: number;
  /** The lines (1-based, in the file V8 ran) holding most of the self samples, with their share. */
  readonly hotLines: readonly { readonly line: number; readonly share: number }[];
}

export interface ProfileSummary {
  readonly sampledMs: number;
  /** Sampled time spent idle (the event loop waiting: network, fsync in the thread pool). */
  readonly idleMs: number;
  readonly bySelf: readonly FunctionCost[];
  readonly byTotal: readonly FunctionCost[];
  readonly byArea: readonly { readonly area: string; readonly selfMs: number }[];
}

/** Where a URL lives, shortened: repository-relative for our code, package name for deps. */
export function shortWhere(url: string, line: number): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? url.slice('file://'.length) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return `${path.slice(nm + '/node_modules/'.length)}:${line + 1}`;
  const src = path.search(/\/(dist\/)?(src|bench|test)\//);
  return `${src >= 0 ? path.slice(src + 1) : path}:${line + 1}`;
}

/** The bucket a frame's self time is reported under. */
export function areaOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8 / native (program)';
    // Node's C++ bindings (fs calls, buffer copies, parsers) appear as bare names; one bucket.
    return 'native builtins';
  }
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    const pkg = rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? '?');
    return `package ${pkg}`;
  }
  const m = /\/(?:dist\/)?src\/([^/]+)\//.exec(url);
  if (m !== null) return `src/${m[1] as string}`;
  const top = /\/(?:dist\/)?src\/([^/]+)$/.exec(url);
  if (top !== null) return `src/${top[1] as string}`;
  return 'other';
}

const keyOf = (f: CallFrame): string => `${f.functionName}\u0000${f.url}\u0000${f.lineNumber}`;

export function summariseProfile(profile: CpuProfile, top = 20): ProfileSummary {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const frames = new Map<string, CallFrame>();
  const areas = new Map<string, number>();
  const lines = new Map<string, Map<number, number>>();
  for (const n of profile.nodes) {
    if (n.positionTicks === undefined) continue;
    const k = keyOf(n.callFrame);
    const m = lines.get(k) ?? new Map<number, number>();
    for (const t of n.positionTicks) m.set(t.line, (m.get(t.line) ?? 0) + t.ticks);
    lines.set(k, m);
  }
  let sampledUs = 0;
  let idleUs = 0;
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i] as number;
    // A sample's delta is the time since the previous one; attributing it to this sample's
    // stack is V8's (and Chrome DevTools') convention. Negative deltas (clock adjustments) count as 0.
    const us = Math.max(0, deltas[i] ?? 0);
    const leaf = byId.get(id);
    if (leaf === undefined) continue;
    sampledUs += us;
    const area = areaOf(leaf.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    if (area === 'idle') {
      idleUs += us;
      continue;
    }
    const k = keyOf(leaf.callFrame);
    frames.set(k, leaf.callFrame);
    self.set(k, (self.get(k) ?? 0) + us);
    // Inclusive time: once per distinct function on the stack (recursion counts once).
    const seen = new Set<string>();
    let cur: number | undefined = id;
    let guard = 0;
    while (cur !== undefined && guard++ < 10_000) {
      const node = byId.get(cur);
      if (node === undefined) break;
      const nk = keyOf(node.callFrame);
      if (!seen.has(nk) && node.callFrame.functionName !== '(root)') {
        seen.add(nk);
        frames.set(nk, node.callFrame);
        total.set(nk, (total.get(nk) ?? 0) + us);
      }
      cur = parent.get(cur);
    }
  }
  const cost = (k: string): FunctionCost => {
    const f = frames.get(k) as CallFrame;
    const ticks = [...(lines.get(k) ?? new Map<number, number>()).entries()].sort(
      (a, b) => b[1] - a[1],
    );
    const sum = ticks.reduce((acc, [, t]) => acc + t, 0);
    const hotLines = ticks.slice(0, 3).map(([line, t]) => ({ line, share: sum > 0 ? t / sum : 0 }));
    return {
      name: f.functionName || '(anonymous)',
      where: shortWhere(f.url, f.lineNumber),
      area: areaOf(f),
      selfMs: (self.get(k) ?? 0) / 1000,
      totalMs: (total.get(k) ?? 0) / 1000,
      hotLines,
    };
  };
  const bySelf = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k]) => cost(k));
  // Total time: skip the frames every stack has (module bodies, processTicksAndRejections)
  // only by listing the top N; the reader sees them at the top and reads on.
  const byTotal = [...total.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k]) => cost(k));
  const byArea = [...areas.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([area, us]) => ({ area, selfMs: us / 1000 }));
  return { sampledMs: sampledUs / 1000, idleMs: idleUs / 1000, bySelf, byTotal, byArea };
}

export function formatSummary(s: ProfileSummary): string {
  const busy = s.sampledMs - s.idleMs;
  const pct = (ms: number): string => `${((ms / Math.max(busy, 1e-9)) * 100).toFixed(1)}%`;
  const lines: string[] = [];
  lines.push(
    `sampled ${s.sampledMs.toFixed(0)} ms, of which idle ${s.idleMs.toFixed(0)} ms; percentages are of the ${busy.toFixed(0)} ms busy`,
  );
  lines.push('');
  lines.push('self time by area:');
  // Areas under 0.5% each are summed into one line: the list is about where the time goes.
  let small = 0;
  for (const a of s.byArea) {
    if (a.area === 'idle') continue;
    if (a.selfMs < busy * 0.005) small += a.selfMs;
    else
      lines.push(
        `  ${pct(a.selfMs).padStart(6)}  ${a.selfMs.toFixed(0).padStart(7)} ms  ${a.area}`,
      );
  }
  if (small > 0)
    lines.push(
      `  ${pct(small).padStart(6)}  ${small.toFixed(0).padStart(7)} ms  (areas under 0.5% each)`,
    );
  lines.push('');
  lines.push('top functions by self time:');
  for (const f of s.bySelf) {
    // Self time of a function includes whatever V8 inlined into it: the hot lines say which statement.
    const hot = f.hotLines
      .filter((h) => h.share >= 0.1)
      .map((h) => `${h.line} (${Math.round(h.share * 100)}%)`);
    lines.push(
      `  ${pct(f.selfMs).padStart(6)}  ${f.selfMs.toFixed(0).padStart(7)} ms  ${f.name}  ${f.where}${hot.length > 0 ? `  hot lines: ${hot.join(', ')}` : ''}`,
    );
  }
  lines.push('');
  lines.push('top functions by total time (inclusive):');
  for (const f of s.byTotal)
    lines.push(
      `  ${pct(f.totalMs).padStart(6)}  ${f.totalMs.toFixed(0).padStart(7)} ms  ${f.name}  ${f.where}`,
    );
  return lines.join('\n');
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--'));
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 20;
  if (file === undefined || !Number.isInteger(top) || top <= 0) {
    process.stderr.write('Usage: tsx bench/cpuprofile-top.ts <file.cpuprofile> [--top N]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${formatSummary(summariseProfile(profile, top))}\n`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
