// The asynchronous side of cooperative execution (see yield.ts): pull a plan in slices of a
// few milliseconds, give the event loop back between them, and check the operation's kill
// flag and deadline each time it resumes. The view (snapshot) stays held across the short
// yields, so everything one call reads comes from one snapshot.

import type { ReadView } from '../../storage/engine.js';
import type { PlanStage, Row, StageStats } from './stages.js';
import { NEED_TIME, armSlice, disarmSlice, sliceDue, takeDeferred } from './yield.js';
import type { DeferredEntry } from './yield.js';

/** What a driver checks when it resumes: the operation (OperationContext has this shape). */
export interface ExecControl {
  /** Throws Interrupted once killed, MaxTimeMSExpired once past the deadline. */
  checkDeadline(): void;
  /** Aborted by killOp: a wait for deferred work ends at once. */
  readonly signal: AbortSignal;
  /** Milliseconds since the epoch; a wait for deferred work ends then. */
  readonly deadlineMs: number | undefined;
  /** Told of each yield (mongod's numYields in the slow-operation line, profile, currentOp). */
  noteYield?(): void;
  /** Told of the plan it is about to run (its planSummary in $currentOp and the slow-query line). */
  notePlan?(stats: StageStats): void;
}

/** An operation that cannot be interrupted (internal reads, tests). */
export const uninterruptible: ExecControl = {
  checkDeadline: () => undefined,
  signal: new AbortController().signal,
  deadlineMs: undefined,
};

/** Checks run when a read resumes after a yield, besides the operation's: the plan still valid. */
export type RestoreCheck = () => void;

/**
 * Waits for deferred work, or until the operation is killed or out of time: then the work is
 * cancelled (a regex worker terminated) and the check after the wait fails the operation.
 */
function waitFor(work: DeferredEntry, ctl: ExecControl): Promise<void> {
  if (ctl.signal.aborted) {
    work.cancel();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const end = (finished: boolean): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      ctl.signal.removeEventListener('abort', stop);
      if (!finished) work.cancel();
      resolve();
    };
    const stop = (): void => end(false);
    ctl.signal.addEventListener('abort', stop, { once: true });
    if (ctl.deadlineMs !== undefined)
      timer = setTimeout(stop, Math.max(0, ctl.deadlineMs - Date.now()) + 1);
    // A failed piece of work is reported by the stage that retries it (it reads the outcome).
    work.promise.then(
      () => end(true),
      () => end(true),
    );
  });
}

/**
 * Gives the event loop back (or waits for the work a stage deferred), then checks the
 * operation and the plan, and starts a new slice.
 */
export async function yieldSlice(ctl: ExecControl, restore?: RestoreCheck): Promise<void> {
  const work = takeDeferred();
  disarmSlice();
  if (work !== undefined) await waitFor(work, ctl);
  else await new Promise<void>((resolve) => setImmediate(resolve));
  ctl.noteYield?.();
  ctl.checkDeadline();
  restore?.();
  armSlice();
}

/**
 * Pulls a plan to its end on one view, in slices, handing each row to `each`. For reads that
 * consume everything (count, distinct, explain's execution, a pipeline feeding $out).
 */
export async function drainPlan(
  plan: PlanStage,
  view: ReadView,
  ctl: ExecControl,
  each: (row: Row) => void,
  restore?: RestoreCheck,
): Promise<void> {
  ctl.notePlan?.(plan.stats);
  armSlice();
  try {
    for (;;) {
      const r = plan.next(view);
      if (r === NEED_TIME) {
        await yieldSlice(ctl, restore);
        continue;
      }
      if (r === undefined) return;
      each(r);
      if (sliceDue()) await yieldSlice(ctl, restore);
    }
  } finally {
    disarmSlice();
  }
}
