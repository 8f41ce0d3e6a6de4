// The batch loop shared by insert, update and delete: statements run in chunks, each chunk
// in one storage write transaction (one commit, one fsync, many statements), each statement
// all-or-nothing. A statement's user error becomes a writeError entry; ordered batches stop
// at the first one, unordered batches go on.

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { CommandError, ErrorCode, isCommandError } from '../../errors.js';
import { limits } from '../../limits.js';
import type { WriteTxn } from '../../storage/engine.js';
import type { OperationContext, ServerServices } from '../context.js';
import { writeConcernError } from '../write-concern.js';

/** Statements per storage transaction: bounds how long one callback holds the event loop. */
const statementsPerChunk = 512;

export interface BatchOutcome<R> {
  readonly results: Array<R | undefined>;
  readonly writeErrors: BsonDocument[];
  readonly wcError: BsonDocument | undefined;
}

export function checkBatchSize(count: number): void {
  if (count < 1 || count > limits.writeBatchSizeMax) {
    throw new CommandError(
      ErrorCode.InvalidLength,
      `Write batch sizes must be between 1 and ${limits.writeBatchSizeMax}. Got ${count} operations.`,
    );
  }
}

export function writeErrorEntry(index: number, e: CommandError): BsonDocument {
  const entry: BsonDocument = { index: new Int32(index), code: new Int32(e.code), errmsg: e.message };
  if (e.info !== undefined) for (const [k, v] of Object.entries(e.info)) entry[k] = v as BsonValue;
  return entry;
}

export async function runWriteBatch<S, R>(
  services: ServerServices,
  op: OperationContext,
  statements: readonly S[],
  ordered: boolean,
  exec: (txn: WriteTxn, statement: S, index: number) => R,
): Promise<BatchOutcome<R>> {
  const results: Array<R | undefined> = new Array<R | undefined>(statements.length);
  const writeErrors: BsonDocument[] = [];
  let stop = false;
  for (let start = 0; start < statements.length && !stop; start += statementsPerChunk) {
    op.checkDeadline();
    const end = Math.min(start + statementsPerChunk, statements.length);
    await services.engine.write(
      (txn) => {
        for (let i = start; i < end; i++) {
          try {
            results[i] = exec(txn, statements[i] as S, i);
          } catch (e) {
            if (!isCommandError(e)) throw e;
            writeErrors.push(writeErrorEntry(i, e));
            if (ordered) {
              stop = true;
              return;
            }
          }
        }
      },
      { durable: op.writeConcern.durable },
    );
  }
  return { results, writeErrors, wcError: writeConcernError(op.writeConcern, services.config.replSet) };
}

/** Attach writeErrors / writeConcernError to a write command's reply. */
export function finishWriteReply(reply: BsonDocument, outcome: BatchOutcome<unknown>): BsonDocument {
  if (outcome.writeErrors.length > 0) reply['writeErrors'] = outcome.writeErrors;
  if (outcome.wcError !== undefined) reply['writeConcernError'] = outcome.wcError;
  return reply;
}
