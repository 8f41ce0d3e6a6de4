// Failpoints (test commands only): `configureFailPoint` arms a named failpoint with a mode
// (alwaysOn, off, {times: n}, {skip: n}) and data. The dispatcher consults `failCommand`
// before running each command; other failpoints are consulted where they apply. Each name
// counts the times it was entered (fired) for the life of the server, as mongod's hit count:
// configureFailPoint answers it as `count` and waitForFailPoint waits on it.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, interruptedError } from '../../errors.js';

export type FailPointMode =
  | { kind: 'off' }
  | { kind: 'alwaysOn' }
  | { kind: 'times'; remaining: number }
  | { kind: 'skip'; remaining: number };

export interface FailPointState {
  mode: FailPointMode;
  data: BsonDocument;
}

/** What a hang point needs of the operation it holds: interruption, deadline, currentOp. */
export interface HangingOperation {
  readonly signal: AbortSignal;
  readonly deadlineMs: number | undefined;
  readonly curOp: { msg?: string | undefined };
}

/**
 * Failpoints this server knows and acts on; configuring any other answers FailPointSetFailed
 * (266) "<name> not found", as mongod's setGlobalFailPoint. A name is listed only where the
 * server does what mongod's failpoint of that name does.
 */
export const knownFailPoints = new Set([
  'failCommand',
  'failGetMoreAfterCursorCheckout',
  // An operation with a time limit (maxTimeMS, or a cursor's leftover) times out at once /
  // never times out (mongod's OperationContext::hasDeadlineExpired).
  'maxTimeAlwaysTimeOut',
  'maxTimeNeverTimeOut',
  'onPrimaryTransactionalWrite',
  // commitTransaction / abortTransaction hold before they act on an open transaction
  // (mongod's spelling, "Commiting", in its transaction commands).
  'hangBeforeCommitingTxn',
  'hangBeforeAbortingTxn',
  // An index build stops after a slice of its collection scan while armed (mongod's name).
  'hangIndexBuildDuringCollectionScanPhaseAfterInsertion',
]);

/** A mode as mongod's FailPoint::parseBSON reads it (its codes and messages). */
export function parseMode(v: BsonValue | undefined): FailPointMode {
  if (v === undefined)
    throw new CommandError(
      ErrorCode.IllegalOperation,
      "When setting a failpoint, you must supply a 'mode'",
    );
  if (typeof v === 'string') {
    if (v === 'off') return { kind: 'off' };
    if (v === 'alwaysOn') return { kind: 'alwaysOn' };
    throw new CommandError(ErrorCode.BadValue, `unknown mode: ${v}`);
  }
  if (!isPlainDocument(v))
    throw new CommandError(ErrorCode.TypeMismatch, "'mode' must be a string or JSON object");
  for (const kind of ['times', 'skip'] as const) {
    if (v[kind] === undefined) continue;
    const n = numericValue(v[kind]);
    if (n === undefined || !Number.isInteger(n))
      throw new CommandError(ErrorCode.TypeMismatch, `'${kind}' must be an integer`);
    if (n < 0)
      throw new CommandError(ErrorCode.BadValue, `'${kind}' option to 'mode' must be positive`);
    if (n > 2 ** 31 - 1)
      throw new CommandError(ErrorCode.BadValue, `'${kind}' option to 'mode' is too large`);
    if (kind === 'skip') return { kind: 'skip', remaining: n };
    return n === 0 ? { kind: 'off' } : { kind: 'times', remaining: n };
  }
  if (v['activationProbability'] !== undefined) {
    throw new CommandError(
      ErrorCode.NotImplemented,
      'failpoint mode activationProbability is not supported',
    );
  }
  throw new CommandError(
    ErrorCode.BadValue,
    "'mode' must be one of 'off', 'alwaysOn', '{times:n}', '{skip:n}' or '{activationProbability:p}'",
  );
}

export class FailPoints {
  private readonly points = new Map<string, FailPointState>();
  /** Times each failpoint fired since the server started (never reset, as mongod's). */
  private readonly hits = new Map<string, number>();
  /** How many times each failpoint was turned off: a hang lasts until this moves on. */
  private readonly offs = new Map<string, number>();
  /** Operations held at a hang point, woken when it is turned off. */
  private readonly held = new Map<string, Set<() => void>>();
  /** waitForFailPoint callers, woken at every entry. */
  private readonly entryWatchers = new Set<() => void>();

  /** Throws FailPointSetFailed for a name this server has no failpoint for. */
  static assertKnown(name: string): void {
    if (!knownFailPoints.has(name))
      throw new CommandError(ErrorCode.FailPointSetFailed, `${name} not found`);
  }

  /** Sets a failpoint's mode; answers how many times it was entered so far. */
  configure(name: string, mode: FailPointMode, data: BsonDocument): number {
    FailPoints.assertKnown(name);
    if (mode.kind === 'off') {
      this.points.delete(name);
      this.release(name);
    } else this.points.set(name, { mode, data });
    return this.timesEntered(name);
  }

  timesEntered(name: string): number {
    return this.hits.get(name) ?? 0;
  }

  /** Whether the failpoint fires now; consumes one activation if so. */
  private evaluate(
    name: string,
    applies: (data: BsonDocument) => boolean,
  ): BsonDocument | undefined {
    const fp = this.points.get(name);
    if (fp === undefined || !applies(fp.data)) return undefined;
    const mode = fp.mode;
    switch (mode.kind) {
      case 'off':
        return undefined;
      case 'skip':
        if (mode.remaining > 0) {
          mode.remaining--;
          return undefined;
        }
        break;
      case 'times':
        mode.remaining--;
        if (mode.remaining <= 0) this.points.delete(name);
        break;
      case 'alwaysOn':
        break;
    }
    this.hits.set(name, this.timesEntered(name) + 1);
    for (const wake of [...this.entryWatchers]) wake();
    return fp.data;
  }

  /**
   * A hang point (mongod's CurOpFailpointHelpers::waitWhileFailPointEnabled): if the failpoint
   * fires for this operation, the operation waits there, without holding the event loop, until
   * configureFailPoint turns the failpoint off. killOp ends the wait with Interrupted (11601),
   * the operation's maxTimeMS with MaxTimeMSExpired (50). While it waits, currentOp shows the
   * failpoint's name as the operation's `msg`.
   */
  async hang(
    name: string,
    op: HangingOperation,
    applies: (data: BsonDocument) => boolean = () => true,
  ): Promise<void> {
    if (this.evaluate(name, applies) === undefined) return;
    // Held until the next 'off', even when this entry spent the last of {times: n}.
    const offs = this.offs.get(name) ?? 0;
    const before = op.curOp.msg;
    op.curOp.msg = name;
    try {
      await this.waitUntil(
        op,
        () => (this.offs.get(name) ?? 0) !== offs,
        (wake) => {
          let set = this.held.get(name);
          if (set === undefined) this.held.set(name, (set = new Set()));
          set.add(wake);
          return () => set.delete(wake);
        },
      );
    } finally {
      op.curOp.msg = before;
    }
  }

  /** waitForFailPoint: until the failpoint was entered `target` times in all. */
  async waitForTimesEntered(name: string, target: number, op: HangingOperation): Promise<number> {
    FailPoints.assertKnown(name);
    await this.waitUntil(
      op,
      () => this.timesEntered(name) >= target,
      (wake) => {
        this.entryWatchers.add(wake);
        return () => this.entryWatchers.delete(wake);
      },
    );
    return this.timesEntered(name);
  }

  private release(name: string): void {
    this.offs.set(name, (this.offs.get(name) ?? 0) + 1);
    const set = this.held.get(name);
    this.held.delete(name);
    for (const wake of set ?? []) wake();
  }

  /** Waits for `done`, woken by `subscribe`'s callback, the kill signal or the deadline. */
  private async waitUntil(
    op: HangingOperation,
    done: () => boolean,
    subscribe: (wake: () => void) => () => void,
  ): Promise<void> {
    while (!done()) {
      if (op.signal.aborted) throw interruptedError();
      if (op.deadlineMs !== undefined && Date.now() >= op.deadlineMs)
        throw new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
      await new Promise<void>((resolve) => {
        const deadline = op.deadlineMs;
        const timer =
          deadline === undefined
            ? undefined
            : setTimeout(wake, Math.max(0, deadline - Date.now()) + 1);
        const unsubscribe = subscribe(wake);
        op.signal.addEventListener('abort', wake, { once: true });
        function wake(): void {
          if (timer !== undefined) clearTimeout(timer);
          unsubscribe();
          op.signal.removeEventListener('abort', wake);
          resolve();
        }
      });
    }
  }

  /** failCommand: the data to act on if it fires for this command on this connection. */
  failCommand(command: string, appName: string | undefined): BsonDocument | undefined {
    return this.evaluate('failCommand', (data) => {
      const names = data['failCommands'];
      if (!Array.isArray(names) || !names.includes(command)) return false;
      const want = data['appName'];
      return typeof want !== 'string' || want === appName;
    });
  }

  /** Any other failpoint, optionally filtered by its data. */
  check(
    name: string,
    applies: (data: BsonDocument) => boolean = () => true,
  ): BsonDocument | undefined {
    if (!this.points.has(name)) return undefined;
    return this.evaluate(name, applies);
  }

  /** How many times `name` was turned off: a hang point holds until this changes. */
  timesTurnedOff(name: string): number {
    return this.offs.get(name) ?? 0;
  }

  isArmed(name: string): boolean {
    return this.points.has(name);
  }

  clear(): void {
    for (const name of knownFailPoints) this.release(name);
    this.points.clear();
  }
}

/**
 * What the maxTime failpoints make of an operation that has a time limit: `expired` at once
 * (maxTimeAlwaysTimeOut), `unlimited` (maxTimeNeverTimeOut), or undefined (the limit stands).
 * Each answer consumes one activation, as each deadline check does in mongod.
 */
export function maxTimeOverride(fps: FailPoints): 'expired' | 'unlimited' | undefined {
  if (fps.check('maxTimeNeverTimeOut') !== undefined) return 'unlimited';
  if (fps.check('maxTimeAlwaysTimeOut') !== undefined) return 'expired';
  return undefined;
}
