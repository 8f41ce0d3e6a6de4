// The retryable-write ledger: a storage transaction's statement results are one record, and
// a retry reads back every result of its txnNumber, including records written one per
// statement (the format before results were grouped).

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { encodeDocument } from '../../../src/bson/codec.js';
import { MemoryEngine } from '../../../src/storage/memory/memory-engine.js';
import { readStatementResults, StatementResultWriter } from '../../../src/txn/ledger.js';

const session = Buffer.alloc(16, 7);

function oldFormatKey(txnNumber: number, stmtId: number): Buffer {
  const k = Buffer.alloc(28);
  session.copy(k, 0);
  k.writeBigUInt64BE(BigInt(txnNumber), 16);
  k.writeUInt32BE(stmtId, 24);
  return k;
}

test('grouped and per-statement results read back by stmtId, per txnNumber', async () => {
  const engine = new MemoryEngine();
  try {
    await engine.write(
      (txn) => {
        // Written before grouping: one record per statement.
        txn.put('txn_ledger', oldFormatKey(5, 0), encodeDocument({ n: new Int32(1) }));
        const w = new StatementResultWriter(txn, session, 5);
        for (let i = 1; i <= 600; i++) w.add(i, { n: new Int32(i) });
        w.flush();
        const other = new StatementResultWriter(txn, session, 6);
        other.add(0, { n: new Int32(99) });
        other.flush();
      },
      { durable: false },
    );
    const snap = engine.snapshot();
    try {
      const five = readStatementResults(snap, session, 5);
      assert.equal(five.size, 601);
      for (let i = 0; i <= 600; i++)
        assert.deepEqual(five.get(i), { n: new Int32(i === 0 ? 1 : i) }, `stmtId ${i}`);
      // 600 results: two records (at most 512 each), keyed by their first stmtId.
      assert.equal(snap.count('txn_ledger'), 4);
      assert.deepEqual([...readStatementResults(snap, session, 6)], [[0, { n: new Int32(99) }]]);
      assert.equal(readStatementResults(snap, session, 7).size, 0);
    } finally {
      snap.release();
    }
  } finally {
    await engine.close();
  }
});

test('a read given what was known decodes only the records written since, and keeps the rest', async () => {
  const engine = new MemoryEngine();
  const known = { byStmtId: new Map(), records: new Set<string>() };
  try {
    await engine.write(
      (txn) => {
        const w = new StatementResultWriter(txn, session, 8);
        w.add(0, { n: new Int32(10) });
        w.flush();
      },
      { durable: false },
    );
    const first = engine.snapshot();
    try {
      assert.equal(readStatementResults(first, session, 8, known).size, 1);
    } finally {
      first.release();
    }
    await engine.write(
      (txn) => {
        const w = new StatementResultWriter(txn, session, 8);
        w.add(1, { n: new Int32(11) });
        w.flush();
      },
      { durable: false },
    );
    const second = engine.snapshot();
    try {
      const all = readStatementResults(second, session, 8, known);
      assert.deepEqual(
        [...all].sort((a, b) => a[0] - b[0]),
        [
          [0, { n: new Int32(10) }],
          [1, { n: new Int32(11) }],
        ],
      );
      assert.equal(known.records.size, 2);
      // A record already read is not decoded again: what is known stands for it.
      known.byStmtId.set(0, { n: new Int32(-1) });
      assert.deepEqual(readStatementResults(second, session, 8, known).get(0), {
        n: new Int32(-1),
      });
    } finally {
      second.release();
    }
  } finally {
    await engine.close();
  }
});
