// The batch loop shared by insert, update and delete: statements run in chunks, each chunk
// in one storage write transaction (one commit, one fsync, many statements), each statement
// all-or-nothing. A statement's user error becomes a writeError entry; ordered batches stop
// at the first one, unordered batches go on.

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { CommandError, ErrorCode, isCommandError } from '../../errors.js';
import { limits } from '../../limits.js';
import type { WriteContext } from '../../catalog/write-unit.js';
import type { OperationContext, ServerServices } from '../context.js';
import { writeConcernError } from '../write-concern.js';
import { CloseConnectionSignal } from '../signals.js';
import { numericValue } from '../../bson/types.js';
import {
  readSessionRecord,
  readStatementResults,
  writeSessionRecord,
  StatementResultWriter,
} from '../../txn/ledger.js';
import type { KnownResults } from '../../txn/ledger.js';
import { appendAll } from '../../bson/arrays.js';

export interface BatchOutcome<R> {
  readonly results: Array<R | undefined>;
  readonly writeErrors: BsonDocument[];
  /** Statements of a retried retryable write that had already run (their stored results). */
  readonly retriedStmtIds: number[];
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
  const entry: BsonDocument = {
    index: new Int32(index),
    code: new Int32(e.code),
    errmsg: e.message,
  };
  if (e.info !== undefined) for (const [k, v] of Object.entries(e.info)) entry[k] = v as BsonValue;
  return entry;
}

/** How a write command's statement results are kept for retries of a retryable write. */
export interface StatementResultCodec<R> {
  encode(result: R): BsonDocument;
  decode(stored: BsonDocument): R;
}

export interface BatchOptions {
  /** Ordered batches stop at the first failing statement, unordered ones go on. */
  readonly ordered: boolean;
  /** The command's bypassDocumentValidation. */
  readonly bypassDocumentValidation?: boolean | undefined;
  /** A statement error after which no statement runs, even in an unordered batch (bulkWrite's reply size cap). */
  readonly endsBatch?: ((e: CommandError) => boolean) | undefined;
  /**
   * Writes deferred to the end of each chunk (time-series measurements grouped into buckets):
   * begin() when the chunk's transaction starts (again, if it is run again), end() after its
   * last statement, in the same transaction, before it commits.
   */
  readonly chunk?: ChunkWrites | undefined;
}

export interface ChunkWrites {
  begin(): void;
  end(): void;
}

/**
 * A statement that changes many documents (updateMany, deleteMany), run in slices that yield
 * (write-exec.ts runSlicedWrite) when it is the batch's only statement, outside a transaction
 * and not a retryable write: the function that runs it, or undefined for any other statement.
 */
export type SlicedStatement<S, R> = (
  statement: S,
  options: { readonly bypassDocumentValidation: boolean },
) => (() => Promise<R>) | undefined;

/** Kill and deadline errors end the command (mongod rethrows interruptions); no writeError. */
function isInterruption(e: CommandError): boolean {
  return (
    e.code === ErrorCode.Interrupted ||
    e.code === ErrorCode.MaxTimeMSExpired ||
    e.code === ErrorCode.InterruptedAtShutdown
  );
}

/**
 * Runs `exec` for each statement with the write context it writes through (the storage
 * transaction, and for a retryable write the statement's session fields).
 */
export async function runWriteBatch<S, R>(
  services: ServerServices,
  op: OperationContext,
  statements: readonly S[],
  options: BatchOptions,
  exec: (w: WriteContext, statement: S, index: number) => R,
  codec?: StatementResultCodec<R>,
  sliced?: SlicedStatement<S, R>,
): Promise<BatchOutcome<R>> {
  const { ordered } = options;
  const bypassDocumentValidation = options.bypassDocumentValidation === true;
  const results: Array<R | undefined> = new Array<R | undefined>(statements.length);
  const writeErrors: BsonDocument[] = [];
  const retriedStmtIds: number[] = [];
  const binding = op.session;
  const retry =
    binding !== undefined &&
    binding.retryableWrite &&
    binding.txnNumber !== undefined &&
    codec !== undefined
      ? { binding, txnNumber: binding.txnNumber, codec }
      : undefined;
  const only = statements.length === 1 ? statements[0] : undefined;
  const long =
    sliced !== undefined &&
    only !== undefined &&
    retry === undefined &&
    op.session?.retryableWrite !== true &&
    op.access.transaction === undefined
      ? sliced(only, { bypassDocumentValidation })
      : undefined;
  if (long !== undefined) {
    try {
      results[0] = await long();
    } catch (e) {
      if (!isCommandError(e) || isInterruption(e)) throw e;
      writeErrors.push(writeErrorEntry(0, e));
    } finally {
      pruneOplog(services);
    }
    return {
      results,
      writeErrors,
      retriedStmtIds,
      wcError: writeConcernError(op.writeConcern, services.config.replSet),
    };
  }
  const catalog = services.catalog;
  let stop = false;
  let closeConnection = false;
  // Results recorded for this txnNumber, read chunk by chunk: each ledger record decoded once.
  const known: KnownResults = { byStmtId: new Map(), records: new Set() };
  for (
    let start = 0;
    start < statements.length && !stop;
    start += limits.writeStatementsPerTxnMax
  ) {
    op.checkDeadline();
    const end = Math.min(start + limits.writeStatementsPerTxnMax, statements.length);
    // The callback may run more than once (a plain write that met a transaction's lock is
    // run again after it ends): it only fills locals, merged once it has committed.
    const chunk = await op.access.write((txn) => {
      const done: Array<[number, R]> = [];
      const errors: BsonDocument[] = [];
      const retried: number[] = [];
      let halted = false;
      let close = false;
      options.chunk?.begin();
      const key = retry?.binding.session.keyBytes;
      let priorResults: Map<number, BsonDocument> | undefined;
      let ledger: StatementResultWriter | undefined;
      if (retry !== undefined && key !== undefined) {
        priorResults = readStatementResults(txn, key, retry.txnNumber, known);
        ledger = new StatementResultWriter(txn, key, retry.txnNumber);
        const rec = readSessionRecord(txn, key);
        if (rec === undefined || rec.txnNumber < retry.txnNumber) {
          writeSessionRecord(
            txn,
            key,
            { txnNumber: retry.txnNumber, state: 'retryable' },
            rec?.txnNumber ?? -1,
          );
        }
      }
      for (let i = start; i < end; i++) {
        const stmtId = retry?.binding.stmtIdFor(i) ?? i;
        if (retry !== undefined && priorResults !== undefined) {
          const prior = priorResults.get(stmtId);
          if (prior !== undefined) {
            done.push([i, retry.codec.decode(prior)]);
            retried.push(stmtId);
            continue;
          }
        }
        // onPrimaryTransactionalWrite (test failpoint), per executed statement of a retryable
        // write: the connection drops before the statement commits (failBeforeCommitExceptionCode)
        // or right after it; statements before it commit, the rest are left for the retry.
        const fp =
          retry !== undefined
            ? services.failPoints.check('onPrimaryTransactionalWrite')
            : undefined;
        if (fp !== undefined) {
          close =
            fp['closeConnection'] !== false ||
            numericValue(fp['failBeforeCommitExceptionCode']) !== undefined;
          halted = true;
          if (numericValue(fp['failBeforeCommitExceptionCode']) !== undefined) break;
        }
        try {
          const w: WriteContext = {
            txn,
            catalog,
            statement:
              retry === undefined
                ? undefined
                : { lsid: retry.binding.session.lsid, txnNumber: retry.txnNumber, stmtId },
            bypassDocumentValidation,
          };
          const r = exec(w, statements[i] as S, i);
          if (retry !== undefined) ledger?.add(stmtId, retry.codec.encode(r));
          done.push([i, r]);
          if (halted) break;
        } catch (e) {
          // In a transaction a failed statement fails the command (and aborts the transaction),
          // as in mongod: there are no partial writeErrors inside a transaction.
          if (!isCommandError(e) || op.access.transaction !== undefined) throw e;
          errors.push(writeErrorEntry(i, e));
          if (ordered || close || options.endsBatch?.(e) === true) {
            halted = true;
            break;
          }
        }
      }
      options.chunk?.end();
      ledger?.flush();
      return { done, errors, retried, halted, close };
    });
    for (const [i, r] of chunk.done) results[i] = r;
    appendAll(writeErrors, chunk.errors);
    appendAll(retriedStmtIds, chunk.retried);
    stop = chunk.halted;
    closeConnection = chunk.close;
  }
  pruneOplog(services);
  if (closeConnection) throw new CloseConnectionSignal();
  return {
    results,
    writeErrors,
    retriedStmtIds,
    wcError: writeConcernError(op.writeConcern, services.config.replSet),
  };
}

function pruneOplog(services: ServerServices): void {
  services.oplog?.prune().catch((e: unknown) => {
    services.logger.error('REPL', 21800, 'Oplog pruning failed', {
      error: e instanceof Error ? e.message : String(e),
    });
  });
}

/** Attach writeErrors / writeConcernError to a write command's reply. */
export function finishWriteReply(
  reply: BsonDocument,
  outcome: BatchOutcome<unknown>,
): BsonDocument {
  if (outcome.writeErrors.length > 0) reply['writeErrors'] = outcome.writeErrors;
  if (outcome.retriedStmtIds.length > 0)
    reply['retriedStmtIds'] = outcome.retriedStmtIds.map((n) => new Int32(n));
  if (outcome.wcError !== undefined) reply['writeConcernError'] = outcome.wcError;
  return reply;
}
