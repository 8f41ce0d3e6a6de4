// Error labels, as mongod attaches them (its ErrorLabelBuilder): drivers decide retries by
// them. TransientTransactionError for transaction statements whose failure left nothing
// behind; RetryableWriteError for retryable writes (and commit/abort) that failed with a
// retriable code, in the command or in its write concern.

import { ErrorCode, ErrorLabel } from '../errors.js';
import { commitOrAbort } from './session-binding.js';

/** mongod's RetriableError category. */
const retriableCodes = new Set<number>([
  ErrorCode.HostUnreachable,
  ErrorCode.HostNotFound,
  ErrorCode.NetworkTimeout,
  ErrorCode.ShutdownInProgress,
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  ErrorCode.ExceededTimeLimit,
  317, // ConnectionPoolExpired
  358, // InternalTransactionNotSupported
  384, // ConnectionError
  402, // ResourceExhausted
  9001, // SocketException
  ErrorCode.NotWritablePrimary,
  ErrorCode.InterruptedAtShutdown,
  11602, // InterruptedDueToReplStateChange
  ErrorCode.NotPrimaryNoSecondaryOk,
  ErrorCode.NotPrimaryOrSecondary,
  50915, // BackupCursorOpenConflictWithCheckpoint
  91331, // RetriableRemoteCommandFailure
]);

/** Snapshot errors and the routing errors mongod treats as transient. */
const snapshotOrRetargetCodes = new Set<number>([
  ErrorCode.SnapshotTooOld,
  246,
  250,
  272,
  150,
  ErrorCode.StaleConfig,
]);

export function isRetriableCode(code: number): boolean {
  return retriableCodes.has(code);
}

function isTransient(
  code: number,
  hasWriteConcernError: boolean,
  isCommitOrAbort: boolean,
): boolean {
  if (code === 358) return false;
  if (
    code === ErrorCode.WriteConflict ||
    code === ErrorCode.LockTimeout ||
    code === ErrorCode.PreparedTransactionInProgress
  )
    return true;
  if (snapshotOrRetargetCodes.has(code)) return true;
  if (isCommitOrAbort) return code === ErrorCode.NoSuchTransaction && !hasWriteConcernError;
  return retriableCodes.has(code) || code === ErrorCode.NoSuchTransaction;
}

export interface LabelContext {
  readonly command: string;
  readonly txnNumber: number | undefined;
  readonly autocommit: boolean | undefined;
  /** The command's error code, if it failed. */
  readonly code: number | undefined;
  /** The write concern error's code, if any. */
  readonly wcCode: number | undefined;
}

export function errorLabelsFor(ctx: LabelContext): string[] {
  const isCommitOrAbort = commitOrAbort.has(ctx.command);
  const inTransaction = ctx.txnNumber !== undefined && ctx.autocommit !== undefined;
  if (
    inTransaction &&
    ctx.code !== undefined &&
    isTransient(ctx.code, ctx.wcCode !== undefined, isCommitOrAbort)
  ) {
    return [ErrorLabel.TransientTransactionError];
  }
  const retryableWrite = ctx.txnNumber !== undefined && ctx.autocommit === undefined;
  if (retryableWrite || (inTransaction && isCommitOrAbort)) {
    if (
      (ctx.code !== undefined && retriableCodes.has(ctx.code)) ||
      (ctx.wcCode !== undefined && retriableCodes.has(ctx.wcCode))
    ) {
      return [ErrorLabel.RetryableWriteError];
    }
  }
  return [];
}
