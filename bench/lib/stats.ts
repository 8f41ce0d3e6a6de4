// Pure helpers for the benchmark harnesses: summary statistics and the way figures are
// printed. No I/O here, so test/unit/bench can check them without starting anything.

/** Median of a non-empty sample (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of an empty sample');
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const hi = s[mid] as number;
  return s.length % 2 === 1 ? hi : ((s[mid - 1] as number) + hi) / 2;
}

/**
 * Relative spread of a sample: (max - min) / median. Printed next to medians so that a
 * reader can tell a real difference from run-to-run noise without the raw samples.
 */
export function spread(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('spread of an empty sample');
  const m = median(values);
  if (m === 0) return 0;
  return (Math.max(...values) - Math.min(...values)) / m;
}

/** A duration given in milliseconds, in the unit that keeps three significant digits readable. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`;
  if (ms < 1000) return `${ms.toPrecision(3)} ms`;
  return `${(ms / 1000).toPrecision(3)} s`;
}

/** A ratio to a floor: "1.42×". */
export function formatRatio(r: number): string {
  if (!Number.isFinite(r)) return '—';
  return r >= 100 ? `${Math.round(r)}×` : `${r.toPrecision(3)}×`;
}

/** A rate with thousands separators: "48,210". */
export function formatRate(perSecond: number): string {
  return Math.round(perSecond).toLocaleString('en-US');
}

/** Operations per second from a count and a duration in milliseconds. */
export function perSecond(count: number, ms: number): number {
  return ms > 0 ? (count * 1000) / ms : Number.POSITIVE_INFINITY;
}

/**
 * Where a throughput series falls off a cliff: the first step whose rate is below
 * `threshold` times the previous step's. Returns undefined when every step holds up.
 * Used for the concurrency target ("no cliff as writers are added"), reported, never asserted.
 */
export function findCliff(
  points: readonly { readonly x: number; readonly rate: number }[],
  threshold = 0.8,
): { readonly from: number; readonly to: number; readonly drop: number } | undefined {
  for (let i = 1; i < points.length; i++) {
    const prev = points[i - 1];
    const cur = points[i];
    if (prev === undefined || cur === undefined || prev.rate <= 0) continue;
    if (cur.rate < prev.rate * threshold)
      return { from: prev.x, to: cur.x, drop: 1 - cur.rate / prev.rate };
  }
  return undefined;
}

/**
 * The order in which repetitions visit a list of configurations: each repetition rotates
 * the previous one by one place, so no configuration always runs first (cold caches, JIT)
 * or last (a warm, fragmented heap) — slow drift on the machine spreads over all of them.
 */
export function interleavedOrder<T>(items: readonly T[], repetition: number): T[] {
  if (items.length === 0) return [];
  const k = repetition % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
