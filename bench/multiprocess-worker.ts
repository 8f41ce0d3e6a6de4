// One worker process of the multi-process benchmark (forked by multiprocess.ts, never run by
// hand). Over IPC: 'open' → open the row's store in this process and run an untimed warm-up
// in a side collection ('ready' or 'failed'); then for each phase 'phase' → wait for the
// harness to release every worker at once, do this worker's share, report its own elapsed
// time; 'close' → close the store ('closed'), then exit.

import {
  makePlan,
  partition,
  type JsonDoc,
  type MpSizes,
  type PhaseName,
  type Plan,
} from './lib/multiprocess-plan.js';
import {
  errorText,
  measuredCollection,
  openStore,
  type RowSpec,
  type Store,
} from './multiprocess-stores.js';

export interface OpenMessage {
  readonly type: 'open';
  readonly row: RowSpec;
  readonly dir: string;
  readonly uri?: string;
  readonly workers: number;
  readonly index: number;
  readonly sizes: MpSizes;
}
export type ToMpWorker =
  OpenMessage | { readonly type: 'phase'; readonly phase: PhaseName } | { readonly type: 'close' };

export interface PhaseReport {
  readonly type: 'phase';
  readonly phase: PhaseName;
  readonly elapsedMs: number;
  /** Per-operation latencies (point reads, updates, deletes). */
  readonly latenciesMs: readonly number[];
  /** Operations that gave the right answer, and how many should have. */
  readonly ok: number;
  readonly expected: number;
  readonly error?: string;
}
export type FromMpWorker =
  | { readonly type: 'hello' }
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly error: string }
  | PhaseReport
  | { readonly type: 'closed'; readonly error?: string };

function send(m: FromMpWorker): void {
  process.send?.(m);
}

interface Share {
  readonly insert: JsonDoc[];
  readonly pointReads: readonly string[];
  readonly updates: readonly string[];
  readonly deletes: readonly string[];
  /** Documents all workers together inserted: what read-all must see. */
  readonly total: number;
}

function shareOf(plan: Plan, workers: number, index: number): Share {
  return {
    // Fresh objects: some stores (lokijs) add fields to the documents they are given.
    insert: structuredClone(partition(plan.docs, workers, index)),
    pointReads: partition(plan.pointReads, workers, index),
    updates: partition(plan.updates, workers, index),
    deletes: partition(plan.deletes, workers, index),
    total: plan.docs.length,
  };
}

/** One phase of this worker's share on `coll`; checks every answer, throws on errors. */
async function runPhase(
  store: Store,
  coll: string,
  share: Share,
  phase: PhaseName,
): Promise<Omit<PhaseReport, 'type' | 'phase'>> {
  const latencies: number[] = [];
  const each = async (ids: readonly string[], op: (id: string) => Promise<boolean>) => {
    let ok = 0;
    for (const id of ids) {
      const t = performance.now();
      const good = await op(id);
      latencies.push(performance.now() - t);
      if (good) ok++;
    }
    return ok;
  };
  const start = performance.now();
  let ok: number;
  let expected: number;
  switch (phase) {
    case 'insert':
      ok = await store.insertMany(coll, share.insert);
      expected = share.insert.length;
      break;
    case 'readAll':
      ok = (await store.readAll(coll)).length;
      expected = share.total;
      break;
    case 'pointReads':
      ok = await each(share.pointReads, async (id) => (await store.get(coll, id))?._id === id);
      expected = share.pointReads.length;
      break;
    case 'updates':
      ok = await each(share.updates, (id) => store.update(coll, id));
      expected = share.updates.length;
      break;
    case 'deletes':
      ok = await each(share.deletes, (id) => store.remove(coll, id));
      expected = share.deletes.length;
      break;
  }
  return { elapsedMs: performance.now() - start, latenciesMs: latencies, ok, expected };
}

let store: Store | undefined;
let share: Share | undefined;

async function open(m: OpenMessage): Promise<void> {
  try {
    store = await openStore(m.row, { dir: m.dir, ...(m.uri === undefined ? {} : { uri: m.uri }) });
    // Warm-up: the whole sequence on a few documents in this worker's own side collection,
    // untimed, then dropped, so that the timed phases do not pay for cold JIT code and the
    // store's first-collection work.
    const warm = makePlan({
      ...m.sizes,
      docs: m.sizes.warmupDocs,
      pointReads: 2,
      updates: 1,
      deletes: 1,
    });
    const warmShare = { ...shareOf(warm, 1, 0), total: warm.docs.length };
    const warmColl = `warmup_${m.index}`;
    for (const p of ['insert', 'readAll', 'pointReads', 'updates', 'deletes'] as const)
      await runPhase(store, warmColl, warmShare, p);
    await store.drop(warmColl);
    share = shareOf(makePlan(m.sizes), m.workers, m.index);
    send({ type: 'ready' });
  } catch (e) {
    send({ type: 'failed', error: errorText(e) });
  }
}

async function phase(p: PhaseName): Promise<void> {
  if (store === undefined || share === undefined) {
    send({
      type: 'phase',
      phase: p,
      elapsedMs: 0,
      latenciesMs: [],
      ok: 0,
      expected: 0,
      error: 'not open',
    });
    return;
  }
  try {
    send({ type: 'phase', phase: p, ...(await runPhase(store, measuredCollection, share, p)) });
  } catch (e) {
    send({
      type: 'phase',
      phase: p,
      elapsedMs: 0,
      latenciesMs: [],
      ok: 0,
      expected: 0,
      error: errorText(e),
    });
  }
}

async function close(): Promise<void> {
  let error: string | undefined;
  try {
    await store?.close();
  } catch (e) {
    error = errorText(e);
  }
  store = undefined;
  send(error === undefined ? { type: 'closed' } : { type: 'closed', error });
  // Let the message go out, then leave (a store may keep timers or handles alive).
  setTimeout(() => process.exit(0), 50);
}

// Messages are handled one at a time, in order.
let queue: Promise<void> = Promise.resolve();
process.on('message', (raw: unknown) => {
  const m = raw as ToMpWorker;
  queue = queue.then(() =>
    m.type === 'open' ? open(m) : m.type === 'phase' ? phase(m.phase) : close(),
  );
});
process.on('disconnect', () => process.exit(0));
send({ type: 'hello' });
