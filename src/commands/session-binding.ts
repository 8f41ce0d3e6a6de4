// Binds a command to its logical session: validates the session fields (lsid, txnNumber,
// autocommit, startTransaction, stmtId(s)) as mongod does, starts or continues a
// multi-document transaction, or marks a retryable write; and decides where the command's
// reads and writes go.

import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isPlainDocument, numericValue } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import { engineAccess, snapshotAccess, transactionAccess } from '../txn/access.js';
import { Timestamp } from 'bson';
import type { DataAccess } from '../txn/access.js';
import { readSessionRecord } from '../txn/ledger.js';
import type { Session } from '../txn/sessions.js';
import { Transaction } from '../txn/transaction.js';
import type { GenericArgs } from './args.js';
import { checkAfterClusterTime } from './cluster-time.js';
import type { ServerServices, SessionBinding } from './context.js';
import type { CommandDefinition } from './registry.js';
import type { WriteConcern } from './write-concern.js';

/** Commands that end a transaction; they may carry a write concern and repeat a commit. */
export const commitOrAbort = new Set(['commitTransaction', 'abortTransaction']);

const transactionReadConcernLevels = new Set(['local', 'majority', 'snapshot']);

export interface Bound {
  readonly binding: SessionBinding | undefined;
  readonly access: DataAccess;
  /** The transaction this command runs in (autocommit: false). */
  readonly transaction: Transaction | undefined;
  /** A snapshot read outside a transaction: the cluster time it reads at. */
  readonly atClusterTime?: Timestamp;
}

const readConcernLevels = new Set(['local', 'available', 'majority', 'linearizable', 'snapshot']);

/**
 * Read concern outside transactions: validates it, honours afterClusterTime (every write this
 * node acknowledged is already visible, so the clock only moves forward) and pins snapshot
 * reads to a labelled snapshot.
 */
function readConcernAccess(
  services: ServerServices,
  def: CommandDefinition,
  name: string,
  rc: BsonDocument | undefined,
): { access?: DataAccess; atClusterTime?: Timestamp } {
  if (rc === undefined) return {};
  const level = rc['level'];
  if (level !== undefined && (typeof level !== 'string' || !readConcernLevels.has(level))) {
    throw new CommandError(ErrorCode.FailedToParse, `Invalid readConcern level: ${String(level)}`);
  }
  const at = rc['atClusterTime'];
  const after = rc['afterClusterTime'];
  if (at !== undefined && level !== 'snapshot') {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'atClusterTime is only allowed with readConcern level snapshot',
    );
  }
  if (at !== undefined && after !== undefined) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'Specifying a timestamp for readConcern snapshot in a causally consistent session is not allowed',
    );
  }
  if (name === 'getMore') {
    // As mongod's getMore: any level is accepted and the cursor's own read concern applies
    // (its snapshot, for a snapshot cursor); afterClusterTime is refused (allowsAfterClusterTime
    // is false, so waitForReadConcern answers InvalidOptions).
    if (after !== undefined)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'afterClusterTime is not allowed for this command',
      );
    return {};
  }
  if (after instanceof Timestamp) checkAfterClusterTime(services, after);
  if (level !== 'snapshot') return {};
  if (def.traits?.snapshotReads !== true) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `Command ${name} does not support { readConcern: { level: "snapshot" } }`,
    );
  }
  if (services.config.replSet === '') {
    throw new CommandError(
      ErrorCode.NotAReplicaSet,
      'readConcern level snapshot is only supported on a replica set',
    );
  }
  if (at !== undefined && !(at instanceof Timestamp))
    throw new CommandError(ErrorCode.TypeMismatch, 'atClusterTime must be a Timestamp');
  if (at instanceof Timestamp)
    return { access: snapshotAccess(services.snapshots.at(at)), atClusterTime: at };
  const { ts, snapshot } = services.snapshots.latest();
  return { access: snapshotAccess(snapshot), atClusterTime: ts };
}

function loadDurableState(services: ServerServices, session: Session): void {
  if (session.loaded) return;
  session.loaded = true;
  const snap = services.engine.snapshot();
  try {
    const rec = readSessionRecord(snap, session.keyBytes);
    if (rec !== undefined && rec.txnNumber > session.txnNumber) session.txnNumber = rec.txnNumber;
  } finally {
    snap.release();
  }
}

function stmtIdsOf(body: BsonDocument, args: GenericArgs): (index: number) => number {
  const ids = body['stmtIds'];
  if (Array.isArray(ids)) return (i) => numericValue(ids[i]) ?? i;
  const base = args.stmtId ?? 0;
  return (i) => base + i;
}

export function bindSession(
  services: ServerServices,
  def: CommandDefinition,
  name: string,
  body: BsonDocument,
  args: GenericArgs,
  wc: WriteConcern,
): Bound {
  const { lsid, txnNumber, autocommit, startTransaction } = args;
  const rc =
    autocommit === undefined ? readConcernAccess(services, def, name, args.readConcern) : {};
  const plain = rc.access ?? engineAccess(services.engine, wc.durable);
  const snapshotFields = rc.atClusterTime === undefined ? {} : { atClusterTime: rc.atClusterTime };
  if (lsid === undefined) {
    if (txnNumber !== undefined)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'Transaction number requires a session ID to also be specified',
      );
    if (autocommit !== undefined || startTransaction !== undefined) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        "'autocommit' and 'startTransaction' require a session ID and a transaction number",
      );
    }
    return { binding: undefined, access: plain, transaction: undefined, ...snapshotFields };
  }
  const session = services.sessions.acquire(lsid);
  loadDurableState(services, session);
  if (autocommit !== undefined && txnNumber === undefined) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "'autocommit' field requires a transaction number to also be specified",
    );
  }
  if (startTransaction !== undefined && autocommit === undefined) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'Specifying startTransaction requires autocommit=false',
    );
  }
  const binding = (retryableWrite: boolean): SessionBinding => ({
    session,
    txnNumber,
    stmtIdFor: stmtIdsOf(body, args),
    retryableWrite,
  });
  if (txnNumber === undefined)
    return { binding: binding(false), access: plain, transaction: undefined, ...snapshotFields };
  // As mongod's: a standalone has no retryable writes and no transactions.
  if (services.config.replSet === '')
    throw new CommandError(
      ErrorCode.IllegalOperation,
      'Transaction numbers are only allowed on a replica set member or mongos',
    );
  if (txnNumber < 0)
    throw new CommandError(ErrorCode.BadValue, 'A negative transaction number is not allowed');

  if (autocommit === undefined) {
    // A retryable write.
    if (def.traits?.retryableWrite !== true) {
      throw new CommandError(
        ErrorCode.NotARetryableWriteCommand,
        `txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided, and ${name} is not a retryable write command.`,
      );
    }
    if (txnNumber < session.txnNumber) {
      throw new CommandError(
        ErrorCode.TransactionTooOld,
        `Retryable write with txnNumber ${txnNumber} is prohibited on session ${session.key} because a newer retryable write with txnNumber ${session.txnNumber} has already started on this session.`,
      );
    }
    if (txnNumber === session.txnNumber && session.transaction?.txnNumber === txnNumber) {
      throw new CommandError(
        ErrorCode.IncompleteTransactionHistory,
        `Cannot retry a retryable write with txnNumber ${txnNumber}: it is a multi-document transaction on this session`,
      );
    }
    if (txnNumber > session.txnNumber) {
      session.transaction?.abort();
      session.txnNumber = txnNumber;
    }
    return { binding: binding(true), access: plain, transaction: undefined };
  }

  if (autocommit)
    throw new CommandError(ErrorCode.InvalidOptions, 'Specifying autocommit=true is not allowed.');
  if (startTransaction === false)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'Specifying startTransaction=false is not allowed.',
    );
  if (!commitOrAbort.has(name) && def.traits?.allowedInTransaction !== true) {
    throw new CommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      `Cannot run '${name}' in a multi-document transaction.`,
    );
  }
  if (!commitOrAbort.has(name)) checkTransactionDatabase(body['$db']);
  if (wc.provided && !commitOrAbort.has(name)) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'Cannot set write concern after starting a transaction.',
    );
  }
  const transaction =
    startTransaction === true
      ? begin(services, session, txnNumber, args.readConcern)
      : continueTransaction(session, txnNumber, name, args.readConcern);
  return { binding: binding(false), access: transactionAccess(transaction), transaction };
}

/** A replica set member's transactions never touch the local or config database (mongod's canUseTransactions). */
function checkTransactionDatabase(db: BsonValue | undefined): void {
  if (db === 'local')
    throw new CommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      "Cannot run command against the 'local' database in a transaction.",
    );
  if (db === 'config')
    throw new CommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      'Cannot run command against the config database in a transaction.',
    );
}

function begin(
  services: ServerServices,
  session: Session,
  txnNumber: number,
  readConcern: BsonDocument | undefined,
): Transaction {
  if (txnNumber < session.txnNumber) {
    throw new CommandError(
      ErrorCode.TransactionTooOld,
      `Cannot start transaction ${txnNumber} on session ${session.key} because a newer transaction with txnNumber ${session.txnNumber} has already started.`,
    );
  }
  if (txnNumber === session.txnNumber) {
    throw new CommandError(
      ErrorCode.ConflictingOperationInProgress,
      `Cannot start a transaction at given transaction number ${txnNumber} a transaction with the same number is in state ${session.transaction?.txnNumber === txnNumber ? session.transaction.state : 'retryable write'}`,
    );
  }
  if (readConcern !== undefined) checkTransactionReadConcern(readConcern);
  session.transaction?.abort();
  session.txnNumber = txnNumber;
  const t = new Transaction(txnNumber, services.engine, services.engine.tracker, readConcern);
  session.transaction = t;
  return t;
}

function checkTransactionReadConcern(rc: BsonDocument): void {
  const level = rc['level'];
  if (
    level !== undefined &&
    (typeof level !== 'string' || !transactionReadConcernLevels.has(level))
  ) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "The readConcern level must be either 'local' (default), 'majority' or 'snapshot' in order to run in a transaction",
    );
  }
  if (rc['afterOpTime'] !== undefined)
    throw new CommandError(ErrorCode.InvalidOptions, 'afterOpTime is not allowed in a transaction');
}

function continueTransaction(
  session: Session,
  txnNumber: number,
  name: string,
  readConcern: BsonValue | undefined,
): Transaction {
  const t = session.transaction;
  if (txnNumber < session.txnNumber) {
    throw new CommandError(
      ErrorCode.TransactionTooOld,
      `Cannot continue transaction ${txnNumber} on session ${session.key} because a newer transaction with txnNumber ${session.txnNumber} has already started.`,
    );
  }
  if (t === undefined || t.txnNumber !== txnNumber) {
    throw new CommandError(
      ErrorCode.NoSuchTransaction,
      `Given transaction number ${txnNumber} does not match any in-progress transactions. The active transaction number is ${session.txnNumber}`,
    );
  }
  if (readConcern !== undefined && isPlainDocument(readConcern) && !commitOrAbort.has(name)) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'Only the first command in a transaction may specify a readConcern',
    );
  }
  if (t.state === 'aborted') {
    throw new CommandError(
      ErrorCode.NoSuchTransaction,
      `Transaction with { txnNumber: ${txnNumber} } has been aborted.`,
    );
  }
  if (t.state === 'committed' && !commitOrAbort.has(name)) {
    throw new CommandError(
      ErrorCode.TransactionCommitted,
      `Transaction with { txnNumber: ${txnNumber} } has been committed.`,
    );
  }
  return t;
}
