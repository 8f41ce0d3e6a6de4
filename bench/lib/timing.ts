// Timing loops shared by the point-read benchmarks.

/** Latencies (ms) of `n` sequential calls of `run`, each with a random key in [0, keys). */
export async function timeSequential(
  n: number,
  keys: number,
  run: (k: number) => Promise<unknown>,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const k = Math.floor(Math.random() * keys);
    const t = performance.now();
    await run(k);
    out.push(performance.now() - t);
  }
  return out;
}
