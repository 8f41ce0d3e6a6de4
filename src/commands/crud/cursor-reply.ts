// The cursor side of read commands: the `cursor` option, the reply's cursor document, what a
// batch records for the slow log and profiler, and a getMore's remaining time limit.

import { Long } from 'bson';
import type { Timestamp } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { bsonTypeName, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, fail } from '../../errors.js';
import { ServerCursor } from '../../query/exec/cursor.js';
import { RowsStage } from '../../query/exec/stages.js';
import type { ExecControl } from '../../query/exec/drive.js';
import { examinedTotals } from '../../query/planner/explain.js';
import { maxTimeOverride } from '../testing/failpoints.js';
import type { OperationContext, ServerServices } from '../context.js';
import type { ArgSpec } from '../args.js';
import type { Invocation } from '../registry.js';

/** What a cursor's batches examined before the current one (a getMore reports its own part). */
const examinedBefore = new WeakMap<ServerCursor, { keys: number; docs: number }>();

/** Records a batch in the operation's debug info: documents returned, keys and documents examined, plan. */
export function noteBatch(
  op: OperationContext,
  cursor: ServerCursor,
  batch: readonly unknown[],
): void {
  const debug = op.debug;
  const stats = cursor.plan.stats;
  const now = examinedTotals(stats);
  const before = examinedBefore.get(cursor);
  debug.keysExamined = now.keys - (before?.keys ?? 0);
  debug.docsExamined = now.docs - (before?.docs ?? 0);
  debug.nreturned = batch.length;
  debug.plan = stats;
  debug.cursorExhausted = cursor.isExhausted;
  if (!cursor.isExhausted) {
    debug.cursorid = cursor.id;
    examinedBefore.set(cursor, now);
  }
}

/** `cursor: {batchSize}`, validated as mongod's IDL does (unknown fields 40415, >= 0 51024). */
export function parseCursorOption(
  command: string,
  cursor: BsonDocument | undefined,
): number | undefined {
  if (cursor === undefined) return undefined;
  let batchSize: number | undefined;
  for (const [k, v] of Object.entries(cursor)) {
    if (k === 'batchSize') {
      const n = numericValue(v);
      if (n === undefined)
        fail(
          ErrorCode.TypeMismatch,
          `BSON field '${command}.cursor.batchSize' is the wrong type '${bsonTypeName(v)}', expected types '[long, int, decimal, double]'`,
        );
      batchSize = Math.trunc(n);
      if (batchSize < 0)
        fail(
          ErrorCode.Location51024,
          `BSON field 'batchSize' value must be >= 0, actual value '${batchSize}'`,
        );
    } else if (k !== 'singleBatch') {
      fail(ErrorCode.Location40415, `BSON field '${command}.cursor.${k}' is an unknown field.`);
    }
  }
  return batchSize;
}

/**
 * The reply of a command whose documents are computed up front (listCollections,
 * listIndexes): the first `batchSize` of them (all when absent), and a cursor over the rest
 * that getMore reads, as mongod's queued-data cursors.
 */
export async function queuedCursorReply(
  inv: Invocation<ArgSpec>,
  ns: string,
  docs: readonly BsonDocument[],
  batchSize: number | undefined,
): Promise<BsonDocument> {
  const cursor = new ServerCursor(new RowsStage(docs.map((doc) => ({ doc }))), {
    ns,
    owner: { sessionKey: inv.op.session?.session.key },
    views: () => inv.op.access.acquireView(),
  });
  const batch = batchSize === 0 ? [] : await cursor.nextBatch(batchSize, inv.op);
  if (!cursor.isExhausted) inv.services.cursors.register(cursor);
  return cursorReply(cursor, ns, batch, true);
}

/** After a batch: what the cursor's time limit has left (none for tailable cursors). */
export function keepTimeLeft(cursor: ServerCursor, deadlineMs: number | undefined): void {
  if (deadlineMs === undefined || cursor.options.tailable === true) return;
  cursor.maxTimeLeftMs = Math.max(1, deadlineMs - Date.now());
}

/**
 * A getMore's control: a cursor opened with maxTimeMS runs its batch within what is left of
 * that limit (MaxTimeMSExpired past it; the maxTime failpoints act on it as on any limit).
 */
export function cursorTimeLimit(
  services: ServerServices,
  op: OperationContext,
  cursor: ServerCursor,
): ExecControl {
  const left = cursor.maxTimeLeftMs;
  if (left === undefined) return op;
  const override = maxTimeOverride(services.failPoints);
  if (override === 'expired') throw maxTimeExpired();
  if (override === 'unlimited') return op;
  const deadlineMs = Math.min(op.deadlineMs ?? Infinity, Date.now() + left);
  return {
    signal: op.signal,
    deadlineMs,
    noteYield: () => op.noteYield(),
    checkDeadline: () => {
      op.checkDeadline();
      if (Date.now() > deadlineMs) throw maxTimeExpired();
    },
  };
}

function maxTimeExpired(): CommandError {
  return new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
}

export function cursorReply(
  cursor: ServerCursor | undefined,
  ns: string,
  batch: BsonDocument[],
  first: boolean,
  atClusterTime?: Timestamp,
): BsonDocument {
  const id = cursor === undefined || cursor.isExhausted ? Long.ZERO : cursor.id;
  if (cursor !== undefined) cursor.nBatchesReturned++;
  const c: BsonDocument = { [first ? 'firstBatch' : 'nextBatch']: batch, id, ns };
  if (atClusterTime !== undefined) c['atClusterTime'] = atClusterTime;
  return { cursor: c };
}
