// Cooperative execution (mongod's PlanStage::work() and PlanYieldPolicy, reshaped for one
// JavaScript thread). The event loop is shared by every client, so a long read must hand it
// back every few milliseconds. A plan stage's `next(view)` returns a row, `undefined` at the
// end, or NEED_TIME: "I did some work but have nothing to give yet; call me again". A stage
// returns NEED_TIME only after doing at least one unit of work (so a caller that just calls
// again always advances) and only when the running slice is due, or when it waits for work
// done elsewhere (a regular expression in a worker thread, see `deferUntil`).
//
// The async drivers (cursor batches, count, distinct, explain: src/query/exec/drive.ts) arm a
// slice, pull synchronously until a stage answers NEED_TIME or the slice is over, then give
// the event loop back (setImmediate, or the awaited work) and check the operation's kill flag
// and deadline before pulling again. The state is module-wide on purpose: between two awaits
// exactly one driver runs, and it re-arms when it resumes, so the state always belongs to the
// code on the stack. Code that consumes a plan synchronously (a write's statement selection,
// a sub-pipeline run to completion, plan trials) runs inside `runSync`, where no slice is
// armed: NEED_TIME never reaches it and regular expressions wait for their worker in place.
//
// The check is a counter: the clock is read once every `stride` checks, and the stride adapts
// to how long a unit of work takes, so a cheap unit (a key compared) pays a decrement and an
// expensive one (a document decoded and matched) a clock read at most every few dozen
// microseconds.

import { limits } from '../../limits.js';
import type { Row } from './row.js';

export const NEED_TIME: unique symbol = Symbol('NEED_TIME');
export type NeedTime = typeof NEED_TIME;
/** What one pull of a plan stage gives: a row, the end (undefined), or NEED_TIME. */
export type Pull = Row | undefined | NeedTime;

let armed = false;
/** Set once the armed slice is over; every later check answers true at once. */
let expired = false;
let sliceEndMs = 0;
let stride = 1;
let countdown = 1;
let lastReadMs = 0;
/** Work a stage is waiting for; the driver awaits it before the next pull. */
let deferred: DeferredEntry | undefined;
/** Deferrals since an evaluation last completed: past a bound, work is done in place. */
let deferralsInARow = 0;
const deferralsInARowMax = 256;

/** Work a stage waits for, and how to stop it when nobody waits any more. */
export interface DeferredEntry {
  readonly promise: Promise<unknown>;
  readonly cancel: () => void;
}
/** True while a stage evaluates a document it can retry after NEED_TIME (see `retryable`). */
let retrying = false;

/** The slice length when a driver arms one. */
const sliceMs = (): number => limits.execSliceMs;

/**
 * Whether the running slice is over and the current stage should return NEED_TIME. Cheap:
 * a decrement, and now and then a clock read. Always false outside a driver's slice.
 */
export function sliceDue(): boolean {
  if (!armed) return false;
  if (expired) return true;
  if (--countdown > 0) return false;
  const now = performance.now();
  const since = now - lastReadMs;
  lastReadMs = now;
  // Aim at one clock read every ~20-200 µs of work.
  if (since < 0.02 && stride < 4096) stride *= 2;
  else if (since > 0.2 && stride > 1) stride >>= 1;
  countdown = stride;
  if (now >= sliceEndMs) {
    expired = true;
    return true;
  }
  return false;
}

/** Starts a slice (a driver about to pull). */
export function armSlice(): void {
  armed = true;
  expired = false;
  lastReadMs = performance.now();
  sliceEndMs = lastReadMs + sliceMs();
  countdown = stride = 1;
}

/** Ends the slice (a driver about to await, return or throw). */
export function disarmSlice(): void {
  armed = false;
  expired = false;
}

/** Whether a driver's slice is armed (a stage may return NEED_TIME and defer work). */
export function sliceArmed(): boolean {
  return armed;
}

/**
 * Runs `fn` with no slice armed: a synchronous consumer of a plan (it never sees NEED_TIME)
 * inside a stage or a write callback. Restores the state after.
 */
export function runSync<T>(fn: () => T): T {
  const wasArmed = armed;
  const wasRetrying = retrying;
  armed = false;
  retrying = false;
  try {
    return fn();
  } finally {
    armed = wasArmed;
    retrying = wasRetrying;
  }
}

/** Pulls a plan synchronously: the next row or the end, never NEED_TIME. */
export function pullSync<S extends { next(view: V): Pull }, V>(stage: S, view: V): Row | undefined {
  return runSync(() => {
    for (;;) {
      const r = stage.next(view);
      if (r !== NEED_TIME) return r;
    }
  });
}

/** Thrown by work that must wait (deferUntil); caught by the stage evaluating the document. */
export class DeferredWork extends Error {
  constructor() {
    super('deferred work (internal signal)');
    this.name = 'DeferredWork';
  }
}

/**
 * Whether the code on the stack may wait for `promise` asynchronously: a driver's slice is
 * armed and a stage evaluates a document it will evaluate again (`retryable`). Then the
 * promise is recorded for the driver and DeferredWork is thrown; the stage answers
 * NEED_TIME, the driver awaits the promise, and the stage evaluates the same document again,
 * when the waited-for result is at hand (the caller caches it). Returns false otherwise: the
 * caller must wait synchronously.
 */
export function canDefer(): boolean {
  // An evaluation that defers again and again (many long strings in one document) goes on in
  // place, so that the results it already has are not pushed out of the caller's cache.
  return armed && retrying && deferralsInARow < deferralsInARowMax;
}

export function deferUntil(promise: Promise<unknown>, cancel: () => void): never {
  deferred = { promise, cancel };
  deferralsInARow++;
  throw new DeferredWork();
}

/** The work the last NEED_TIME waits for (taken once by the driver). */
export function takeDeferred(): DeferredEntry | undefined {
  const p = deferred;
  deferred = undefined;
  return p;
}

/**
 * Evaluates one document in a way that may defer (a filter, an expression): the result, or
 * NEED_TIME when the evaluation waits for deferred work. The caller keeps the document and
 * calls again on its next pull.
 */
export function retryable<T>(fn: () => T): T | NeedTime {
  if (!armed) return fn();
  const was = retrying;
  retrying = true;
  try {
    const r = fn();
    deferralsInARow = 0;
    return r;
  } catch (e) {
    if (e instanceof DeferredWork) return NEED_TIME;
    throw e;
  } finally {
    retrying = was;
  }
}
