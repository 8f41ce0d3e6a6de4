// Plan-stage helpers for pipeline stages: stats, a one-in-one-out transform, and a blocking
// stage that reads its whole input once (a slice at a time, see query/exec/yield.ts) and then
// serves the computed rows.

import type { BsonDocument } from '../../bson/types.js';
import { newStats } from '../../query/exec/stages.js';
import type { PlanStage, Row, StageStats } from '../../query/exec/stages.js';
import { copyMetadata } from '../../query/exec/metadata.js';
import { approximateValueSize } from '../../query/memory.js';
import { NEED_TIME, retryable, runSync, sliceDue } from '../../query/exec/yield.js';
import type { NeedTime, Pull } from '../../query/exec/yield.js';
import type { ReadView } from '../../storage/engine.js';

/** Plan-stage counters: the query layer's, so both layers' explain output has one shape. */
export { newStats };

/**
 * A stage mapping each input document to zero or one output document (`undefined` drops it):
 * $match, $project, $addFields, $replaceRoot, $redact... An evaluation that waits for deferred
 * work (yield.ts) is retried on the same document at the next pull.
 */
export class MapStage implements PlanStage {
  readonly stats: StageStats;
  private held: Row | undefined;
  constructor(
    name: string,
    private readonly input: PlanStage,
    private readonly fn: (doc: BsonDocument, view: ReadView) => BsonDocument | undefined,
  ) {
    this.stats = newStats(name, [input]);
  }
  next(view: ReadView): Pull {
    for (;;) {
      const row = this.held ?? this.input.next(view);
      if (row === undefined || row === NEED_TIME) return row;
      const out = retryable(() => this.fn(row.doc, view));
      if (out === NEED_TIME) {
        this.held = row;
        return NEED_TIME;
      }
      this.held = undefined;
      this.stats.works++;
      if (out === undefined) {
        if (sliceDue()) return NEED_TIME;
        continue;
      }
      copyMetadata(row.doc, out);
      this.stats.nReturned++;
      return { doc: out };
    }
  }
}

/**
 * A stage's outputs for one input, made as they are read (an array is one): $unwind of a
 * million-element array yields between its outputs instead of building them all at once.
 */
export interface LazyOutputs {
  readonly length: number;
  at(i: number): BsonDocument | undefined;
}

function isSteps<T>(x: T | Steps<T>): x is Steps<T> {
  return typeof (x as { next?: unknown }).next === 'function';
}

/**
 * A stage mapping each input document to any number of outputs ($unwind), computed at once or
 * in steps ($graphLookup's search, which yields between the queries it runs).
 */
export class FlatMapStage implements PlanStage {
  readonly stats: StageStats;
  private pending: LazyOutputs = [];
  private steps: Steps<LazyOutputs> | undefined;
  /** The input the pending outputs came from: its metadata (text score, …) goes with them. */
  private source: BsonDocument | undefined;
  private i = 0;
  private held: Row | undefined;
  constructor(
    name: string,
    private readonly input: PlanStage,
    private readonly fn: (doc: BsonDocument, view: ReadView) => LazyOutputs | Steps<LazyOutputs>,
  ) {
    this.stats = newStats(name, [input]);
  }
  next(view: ReadView): Pull {
    while (this.i >= this.pending.length) {
      const row = this.held ?? this.input.next(view);
      if (row === undefined || row === NEED_TIME) return row;
      let out: LazyOutputs | Steps<LazyOutputs> | NeedTime;
      if (this.steps === undefined) {
        out = retryable(() => this.fn(row.doc, view));
        if (out === NEED_TIME) {
          this.held = row;
          return NEED_TIME;
        }
      } else out = this.steps;
      if (isSteps(out)) {
        // The input document is held while its outputs are computed across pulls.
        const r = out.next();
        if (r.done !== true) {
          this.steps = out;
          this.held = row;
          return NEED_TIME;
        }
        this.steps = undefined;
        out = r.value;
      }
      this.held = undefined;
      this.stats.works++;
      this.pending = out;
      this.source = row.doc;
      this.i = 0;
      if (out.length === 0 && sliceDue()) return NEED_TIME;
    }
    const doc = this.pending.at(this.i++) as BsonDocument;
    if (this.source !== undefined) copyMetadata(this.source, doc);
    if (this.i >= this.pending.length) this.pending = [];
    this.stats.nReturned++;
    return { doc };
  }
}

/**
 * Work done in steps (a generator): it yields when the running slice is due (`sliceDue()`, or a
 * sub-plan it pulls answered NEED_TIME) and returns its result. The stage running it answers
 * NEED_TIME at each yield and resumes it at its next pull, on the same view. Outside a driver's
 * slice `sliceDue()` is false, so the same steps run straight through.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs steps to their end in place (no slice armed: nothing yields). */
export function runSteps<T>(steps: Steps<T>): T {
  return runSync(() => {
    for (;;) {
      const r = steps.next();
      if (r.done === true) return r.value;
    }
  });
}

/** Pulls a sub-plan to its end, yielding with it: every row it gives. */
export function* drainSteps(plan: PlanStage, view: ReadView): Steps<BsonDocument[]> {
  const out: BsonDocument[] = [];
  for (;;) {
    const row = plan.next(view);
    if (row === undefined) return out;
    if (row === NEED_TIME) {
      yield;
      continue;
    }
    out.push(row.doc);
    if (sliceDue()) yield;
  }
}

/**
 * Sorts `items` stably by `compare`, in steps: runs of a few hundred items sorted natively (well
 * under a millisecond each), then merged pairwise, checking the slice between items. O(n log n).
 */
export function* sortSteps<T>(items: T[], compare: (a: T, b: T) => number): Steps<T[]> {
  const n = items.length;
  const run = 256;
  let a = items;
  for (let i = 0; i < n; i += run) {
    const sorted = a.slice(i, i + run).sort(compare);
    for (let k = 0; k < sorted.length; k++) a[i + k] = sorted[k] as T;
    if (sliceDue()) yield;
  }
  let b: T[] = new Array<T>(n);
  for (let width = run; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        // Ties take the left run first: stable.
        if (compare(a[j] as T, a[i] as T) < 0) b[k++] = a[j++] as T;
        else b[k++] = a[i++] as T;
        if (sliceDue()) yield;
      }
      while (i < mid) b[k++] = a[i++] as T;
      while (j < hi) b[k++] = a[j++] as T;
    }
    [a, b] = [b, a];
  }
  return a;
}

/** What a blocking stage computes: fed one input document at a time, then asked for its output. */
export interface BlockingComputation<Out> {
  add(doc: BsonDocument): void;
  /** The input ended: the output (computed in place, without yielding). */
  finish(view: ReadView): Out;
  /** The input ended: the output computed in steps (preferred to `finish` when present). */
  finishSteps?: (view: ReadView) => Steps<Out>;
}

/**
 * Counts the approximate bytes of the rows a stage holds as they arrive: past `bytesMax`,
 * unless disk use is allowed, `exceeded(bytes)` throws the stage's error.
 */
export function memoryBound(
  bytesMax: number,
  allowDiskUse: boolean,
  exceeded: (bytes: number) => never,
): (doc: BsonDocument) => void {
  let bytes = 0;
  return (doc) => {
    bytes += approximateValueSize(doc);
    if (bytes > bytesMax && !allowDiskUse) exceeded(bytes);
  };
}

/**
 * A computation over the whole input at once (the input is collected first), in steps. `add`,
 * when given, accounts for each document as it comes (a memory limit).
 */
export function collected<Out>(
  compute: (docs: BsonDocument[], view: ReadView) => Steps<Out>,
  add?: (doc: BsonDocument) => void,
): BlockingComputation<Out> {
  const docs: BsonDocument[] = [];
  return {
    add: (doc) => {
      add?.(doc);
      docs.push(doc);
    },
    finish: (view) => runSteps(compute(docs, view)),
    finishSteps: (view) => compute(docs, view),
  };
}

/**
 * Feeds a blocking computation from its input, a slice at a time: true once the input ended,
 * NEED_TIME when the caller should give the driver its turn.
 */
export function feed(
  input: PlanStage,
  view: ReadView,
  into: BlockingComputation<unknown>,
): true | NeedTime {
  for (;;) {
    const row = input.next(view);
    if (row === NEED_TIME) return row;
    if (row === undefined) return true;
    into.add(row.doc);
    if (sliceDue()) return NEED_TIME;
  }
}

/**
 * A blocking stage: it reads its whole input (on the first batch's snapshot, yielding as it
 * goes) into its computation, then serves the results; later batches only read the buffer.
 */
export class BlockingStage implements PlanStage {
  readonly stats: StageStats;
  private computation: BlockingComputation<BsonDocument[]> | undefined;
  private steps: Steps<BsonDocument[]> | undefined;
  private out: BsonDocument[] | undefined;
  private i = 0;
  constructor(
    name: string,
    private readonly input: PlanStage,
    private readonly start: () => BlockingComputation<BsonDocument[]>,
  ) {
    this.stats = newStats(name, [input]);
  }
  next(view: ReadView): Pull {
    if (this.out === undefined) {
      const c = (this.computation ??= this.start());
      if (this.steps === undefined) {
        if (feed(this.input, view, c) === NEED_TIME) return NEED_TIME;
        if (c.finishSteps === undefined) this.out = runSync(() => c.finish(view));
        else this.steps = c.finishSteps(view);
      }
      if (this.steps !== undefined) {
        const r = this.steps.next();
        if (r.done !== true) return NEED_TIME;
        this.out = r.value;
        this.steps = undefined;
      }
      this.computation = undefined;
    }
    const doc = this.out?.[this.i];
    if (doc === undefined) return undefined;
    this.i++;
    this.stats.works++;
    this.stats.nReturned++;
    return { doc };
  }
}

/** A source of fixed documents ($documents, sub-pipeline inputs). */
export class DocumentsStage implements PlanStage {
  readonly stats: StageStats;
  private i = 0;
  constructor(
    private readonly docs: readonly BsonDocument[],
    name = 'QUEUED_DATA',
  ) {
    this.stats = newStats(name, []);
  }
  next(): Pull {
    const doc = this.docs[this.i];
    if (doc === undefined) return undefined;
    this.i++;
    this.stats.works++;
    this.stats.nReturned++;
    return { doc };
  }
}
