// Failpoints (test commands only): `configureFailPoint` arms a named failpoint with a mode
// (alwaysOn, off, {times: n}, {skip: n}) and data. The dispatcher consults `failCommand`
// before running each command; other failpoints are consulted where they apply.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';

export type FailPointMode =
  | { kind: 'off' }
  | { kind: 'alwaysOn' }
  | { kind: 'times'; remaining: number }
  | { kind: 'skip'; remaining: number };

export interface FailPointState {
  mode: FailPointMode;
  data: BsonDocument;
  timesEntered: number;
}

/** Failpoints this server knows; configuring any other is an error, as in mongod. */
export const knownFailPoints = new Set([
  'failCommand',
  'failGetMoreAfterCursorCheckout',
  // An operation with a time limit (maxTimeMS, or a cursor's leftover) times out at once /
  // never times out (mongod's OperationContext::hasDeadlineExpired).
  'maxTimeAlwaysTimeOut',
  'maxTimeNeverTimeOut',
  'onPrimaryTransactionalWrite',
  'hangBeforeTransactionCommit',
  'hangAfterCollectionInserts',
  // An index build stops after a slice of its collection scan while armed (mongod's name).
  'hangIndexBuildDuringCollectionScanPhaseAfterInsertion',
]);

export function parseMode(v: BsonValue): FailPointMode {
  if (v === 'off') return { kind: 'off' };
  if (v === 'alwaysOn') return { kind: 'alwaysOn' };
  if (isPlainDocument(v)) {
    const times = v['times'];
    const skip = v['skip'];
    if (times !== undefined) {
      const n = numericValue(times);
      if (n === undefined || n < 0)
        throw new CommandError(ErrorCode.BadValue, 'times must be a non-negative number');
      return n === 0 ? { kind: 'off' } : { kind: 'times', remaining: n };
    }
    if (skip !== undefined) {
      const n = numericValue(skip);
      if (n === undefined || n < 0)
        throw new CommandError(ErrorCode.BadValue, 'skip must be a non-negative number');
      return { kind: 'skip', remaining: n };
    }
    if (v['activationProbability'] !== undefined) {
      throw new CommandError(
        ErrorCode.NotImplemented,
        'failpoint mode activationProbability is not supported',
      );
    }
  }
  throw new CommandError(
    ErrorCode.BadValue,
    "'mode' must be 'off', 'alwaysOn', {times: n} or {skip: n}",
  );
}

export class FailPoints {
  private readonly points = new Map<string, FailPointState>();

  configure(name: string, mode: FailPointMode, data: BsonDocument): number {
    if (!knownFailPoints.has(name)) {
      throw new CommandError(ErrorCode.BadValue, `Cannot find failpoint: ${name}`);
    }
    const prev = this.points.get(name);
    const count = prev?.timesEntered ?? 0;
    if (mode.kind === 'off') this.points.delete(name);
    else this.points.set(name, { mode, data, timesEntered: 0 });
    return count;
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
    fp.timesEntered++;
    return fp.data;
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

  isArmed(name: string): boolean {
    return this.points.has(name);
  }

  clear(): void {
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
