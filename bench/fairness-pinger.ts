// The pinger of the fairness benchmark (forked by fairness.ts, never run by hand). It runs in
// its own process so that what it measures is the server: in the harness's process, the
// driver's work for the long operation (serialising a 16 MiB document, parsing a 20k-document
// reply) would delay the pinger's callbacks and show up as server latency.
//
// Over IPC: 'open' → connect to the daemon at `uri` (its pid for RSS), answer 'ready'; 'start' → ping every 10 ms on its own client and sample the daemon's RSS, answer
// 'started' after the first ping; 'stop' → answer 'stopped' with the latencies and the peak
// RSS of the run; 'close' → close the client ('closed'), then exit.

import { readFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';

export type ToPinger =
  | { readonly type: 'open'; readonly uri: string; readonly pid: number }
  | { readonly type: 'start' }
  | { readonly type: 'stop' }
  | { readonly type: 'close' };
export type FromPinger =
  | { readonly type: 'hello' }
  | { readonly type: 'ready' }
  | { readonly type: 'started' }
  | {
      readonly type: 'stopped';
      readonly latenciesMs: readonly number[];
      readonly peakRssMiB: number;
    }
  | { readonly type: 'closed' };

function send(m: FromPinger): void {
  process.send?.(m);
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]) / 1024;
  } catch {
    return 0;
  }
}

let client: MongoClient | undefined;
let pid = 0;
let running: Promise<void> | undefined;
let stopRequested = false;
let latencies: number[] = [];
let peak = 0;

async function pingLoop(): Promise<void> {
  let first = true;
  while (!stopRequested) {
    const t = performance.now();
    await (client as MongoClient).db('admin').command({ ping: 1 });
    latencies.push(performance.now() - t);
    peak = Math.max(peak, rssMiB(pid));
    if (first) {
      first = false;
      send({ type: 'started' });
    }
    const wait = 10 - (performance.now() - t);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

process.on('message', (m: ToPinger) => {
  if (m.type === 'open') {
    pid = m.pid;
    client = new MongoClient(m.uri, { serverSelectionTimeoutMS: 10_000 });
    void client
      .connect()
      .then(() => send({ type: 'ready' }))
      .catch((e: unknown) => {
        process.stderr.write(`fairness-pinger: ${String(e)}\n`);
        process.exit(1);
      });
  } else if (m.type === 'start') {
    stopRequested = false;
    latencies = [];
    peak = rssMiB(pid);
    running = pingLoop();
  } else if (m.type === 'stop') {
    stopRequested = true;
    void (running ?? Promise.resolve()).then(() =>
      send({ type: 'stopped', latenciesMs: latencies, peakRssMiB: peak }),
    );
  } else {
    void (client?.close() ?? Promise.resolve()).finally(() => {
      send({ type: 'closed' });
      process.disconnect?.();
    });
  }
});
send({ type: 'hello' });
