// commitTransaction and abortTransaction.

import { recordTransactionCommit } from '../../catalog/write-unit.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { writeSessionRecord, readSessionRecord } from '../../txn/ledger.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { withWriteConcernError } from '../write-concern.js';
import { authenticatedOnly } from '../authorization.js';

export const commitTransaction = defineCommand({
  name: 'commitTransaction',
  auth: authenticatedOnly,
  args: { commitTimestamp: t.ignored, recoveryToken: t.ignored },
  traits: { adminOnly: true, apiVersion1: true },
  run: async ({ services, op }) => {
    const txn = op.access.transaction;
    const binding = op.session;
    if (txn === undefined || binding === undefined) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'commitTransaction must be run within a transaction',
      );
    }
    if (txn.state === 'inProgress') {
      // mongod's hangBeforeCommitingTxn, once the transaction is known to be open.
      await services.failPoints.hang('hangBeforeCommitingTxn', op);
      const session = binding.session;
      await txn.commit(services.engine, op.writeConcern.durable, (raw) => {
        const prev = readSessionRecord(raw, session.keyBytes);
        writeSessionRecord(
          raw,
          session.keyBytes,
          { txnNumber: txn.txnNumber, state: 'committed' },
          prev?.txnNumber ?? -1,
        );
        recordTransactionCommit(raw, services.catalog, txn, session.lsid);
      });
    } else if (op.writeConcern.durable) {
      // A retried commit: the first one may not have waited for durability.
      await services.engine.flush();
    }
    return withWriteConcernError({}, op.writeConcern, services.config.replSet);
  },
});

export const abortTransaction = defineCommand({
  name: 'abortTransaction',
  auth: authenticatedOnly,
  args: { recoveryToken: t.ignored },
  traits: { adminOnly: true, apiVersion1: true },
  run: async ({ services, op }) => {
    const txn = op.access.transaction;
    if (txn === undefined)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'abortTransaction must be run within a transaction',
      );
    if (txn.state === 'committed') {
      throw new CommandError(
        ErrorCode.TransactionCommitted,
        `Transaction with { txnNumber: ${txn.txnNumber} } has been committed.`,
      );
    }
    await services.failPoints.hang('hangBeforeAbortingTxn', op);
    txn.abort();
    return withWriteConcernError({}, op.writeConcern, services.config.replSet);
  },
});

export const transactionCommands: CommandDefinition[] = [commitTransaction, abortTransaction];
