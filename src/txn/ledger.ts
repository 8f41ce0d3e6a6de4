// The durable half of sessions: for each session, the highest txnNumber it used and how its
// transaction ended; for the current retryable write, the result of every statement already
// executed (by stmtId). Written in the same storage transaction as the write they describe,
// so a retry after a crash or a lost reply returns the original result instead of running
// the statement again.
//
// Tables:
//   txn_sessions  key: lsid.id (16 bytes)                          value: {txnNumber, state}
//   txn_ledger    key: lsid.id ‖ txnNumber (8, BE) ‖ stmtId (4, BE)  value: statement result

import { Long } from 'bson';
import { decodeDocument, encodeDocument } from '../bson/codec.js';
import type { BsonDocument } from '../bson/types.js';
import { numericValue } from '../bson/types.js';
import type { ReadView, WriteTxn } from '../storage/engine.js';

const sessionsTable = 'txn_sessions';
const ledgerTable = 'txn_ledger';

export type DurableTxnState = 'retryable' | 'committed' | 'aborted';

export interface SessionRecord {
  readonly txnNumber: number;
  readonly state: DurableTxnState;
}

function u64(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

function ledgerKey(session: Buffer, txnNumber: number, stmtId: number): Buffer {
  const k = Buffer.allocUnsafe(16 + 8 + 4);
  session.copy(k, 0);
  k.writeBigUInt64BE(BigInt(txnNumber), 16);
  k.writeUInt32BE(stmtId >>> 0, 24);
  return k;
}

export function readSessionRecord(view: ReadView, session: Buffer): SessionRecord | undefined {
  const v = view.get(sessionsTable, session);
  if (v === undefined) return undefined;
  const doc = decodeDocument(v);
  return {
    txnNumber: numericValue(doc['txnNumber']) ?? -1,
    state: (doc['state'] as DurableTxnState | undefined) ?? 'retryable',
  };
}

/**
 * Record that the session moved to `txnNumber` (and its state). Moving to a higher number
 * drops the ledger entries of older numbers: only the latest retryable write can be retried.
 */
export function writeSessionRecord(
  txn: WriteTxn,
  session: Buffer,
  record: SessionRecord,
  previousTxnNumber: number,
): void {
  txn.put(
    sessionsTable,
    session,
    encodeDocument({ txnNumber: Long.fromNumber(record.txnNumber), state: record.state }),
  );
  if (previousTxnNumber >= 0 && previousTxnNumber < record.txnNumber) {
    const start = Buffer.concat([session, u64(0)]);
    const end = Buffer.concat([session, u64(record.txnNumber)]);
    const stale = [...txn.scan(ledgerTable, { start, end })].map((e) => Buffer.from(e.key));
    for (const k of stale) txn.delete(ledgerTable, k);
  }
}

export function readStatementResult(
  view: ReadView,
  session: Buffer,
  txnNumber: number,
  stmtId: number,
): BsonDocument | undefined {
  const v = view.get(ledgerTable, ledgerKey(session, txnNumber, stmtId));
  return v === undefined ? undefined : decodeDocument(v);
}

export function writeStatementResult(
  txn: WriteTxn,
  session: Buffer,
  txnNumber: number,
  stmtId: number,
  result: BsonDocument,
): void {
  txn.put(ledgerTable, ledgerKey(session, txnNumber, stmtId), encodeDocument(result));
}

/** Forget a session's durable records (endSessions / expiry do not call this: mongod keeps them). */
export function deleteSessionRecords(txn: WriteTxn, session: Buffer): void {
  txn.delete(sessionsTable, session);
  const start = Buffer.concat([session, u64(0)]);
  const end = Buffer.concat([session, Buffer.alloc(12, 0xff)]);
  const keys = [...txn.scan(ledgerTable, { start, end, endInclusive: true })].map((e) =>
    Buffer.from(e.key),
  );
  for (const k of keys) txn.delete(ledgerTable, k);
}
