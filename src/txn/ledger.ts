// The durable half of sessions: for each session, the highest txnNumber it used and how its
// transaction ended; for the current retryable write, the result of every statement already
// executed (by stmtId). Written in the same storage transaction as the write they describe,
// so a retry after a crash or a lost reply returns the original result instead of running
// the statement again.
//
// Tables:
//   txn_sessions  key: lsid.id (16 bytes)                          value: {txnNumber, state}
//   txn_ledger    key: lsid.id ‖ txnNumber (8, BE) ‖ stmtId (4, BE)  value: statement result,
//                 or {s: [stmtId, ...], r: {0: result, ...}}: the results of the statements
//                 one storage transaction ran, keyed by the first (one record per chunk of a
//                 batch, as mongod keeps one session record per retryable write command,
//                 instead of one per statement)

import { Int32, Long } from 'bson';
import { decodeDocument, encodeArrayOf, encodeDocument, joinDocuments } from '../bson/codec.js';
import { getOwn } from '../bson/document.js';
import type { BsonDocument } from '../bson/types.js';
import { isPlainDocument, numericValue } from '../bson/types.js';
import { limits } from '../limits.js';
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

/** Statement results read for one session and txnNumber, and the records they came from. */
export interface KnownResults {
  readonly byStmtId: Map<number, BsonDocument>;
  /** Ledger record keys (latin1) already decoded into byStmtId. */
  readonly records: Set<string>;
}

/**
 * Every statement result recorded for the session's `txnNumber`, by stmtId: one range read
 * (nothing at all for a txnNumber seen for the first time). Given `known` (from an earlier
 * read for the same session and txnNumber, as a write command does once per chunk), records
 * read before are not decoded again and the new results are added to it.
 */
export function readStatementResults(
  view: ReadView,
  session: Buffer,
  txnNumber: number,
  known: KnownResults = { byStmtId: new Map(), records: new Set() },
): Map<number, BsonDocument> {
  const out = known.byStmtId;
  const start = ledgerKey(session, txnNumber, 0);
  const end = ledgerKey(session, txnNumber, 0xffffffff);
  for (const { key, value } of view.scan(ledgerTable, { start, end, endInclusive: true })) {
    const k = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
    const recordId = k.toString('latin1');
    if (known.records.has(recordId)) continue;
    known.records.add(recordId);
    const doc = decodeDocument(value);
    const ids = doc['s'];
    const results = doc['r'];
    if (Array.isArray(ids) && isPlainDocument(results)) {
      ids.forEach((id, i) => {
        const r = getOwn(results, String(i));
        const n = numericValue(id);
        if (n !== undefined && isPlainDocument(r)) out.set(n, r);
      });
    } else {
      out.set(k.readUInt32BE(24) | 0, doc);
    }
  }
  return out;
}

/**
 * Collects the results of the statements one storage transaction runs and writes them as
 * few ledger records (flush), so that a retry of the command finds them.
 */
export class StatementResultWriter {
  private ids: number[] = [];
  private results: Uint8Array[] = [];
  private bytes = 0;

  constructor(
    private readonly txn: WriteTxn,
    private readonly session: Buffer,
    private readonly txnNumber: number,
  ) {}

  add(stmtId: number, result: BsonDocument): void {
    const encoded = encodeDocument(result);
    if (
      this.ids.length >= limits.retryResultsPerRecordMax ||
      this.bytes + encoded.length > limits.retryResultBytesPerRecordMax
    )
      this.flush();
    this.ids.push(stmtId);
    this.results.push(encoded);
    this.bytes += encoded.length;
  }

  /** Writes what was added since the last flush. */
  flush(): void {
    const first = this.ids[0];
    if (first === undefined) return;
    const value = joinDocuments([
      encodeDocument({ s: this.ids.map((id) => new Int32(id)) }),
      { name: 'r', document: encodeArrayOf(this.results) },
    ]);
    this.txn.put(ledgerTable, ledgerKey(this.session, this.txnNumber, first), value);
    this.ids = [];
    this.results = [];
    this.bytes = 0;
  }
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
