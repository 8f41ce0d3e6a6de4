// Conflict records of plain writes made while no transaction is open: queued, made records
// when a transaction begins (its snapshot may predate the write's commit), dropped once
// every snapshot sees the write.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ConflictTracker } from '../../../src/txn/conflicts.js';
import type { ConflictOwner } from '../../../src/txn/conflicts.js';
import { CommandError, ErrorCode } from '../../../src/errors.js';

const owner = (snapshotSeq: number): ConflictOwner => ({
  snapshotSeq,
  ended: new Promise(() => {}),
});
const key = Buffer.from([1, 2, 3]);
const isWriteConflict = (e: unknown) =>
  e instanceof CommandError && e.code === ErrorCode.WriteConflict;

test('a plain write not yet visible conflicts with a transaction begun before it', () => {
  const tracker = new ConflictTracker();
  tracker.recordWrite('t', key, 8); // the write's callback ran; commit 8 not visible yet
  const t = owner(7);
  tracker.begin(t);
  assert.throws(() => tracker.checkTransactionWrite(t, 't', key), isWriteConflict);
  tracker.checkTransactionWrite(t, 't', Buffer.from([9])); // another key: no conflict
});

test('a plain write every snapshot sees is forgotten without becoming a record', () => {
  const tracker = new ConflictTracker();
  tracker.recordWrite('t', key, 8);
  tracker.maybePrune(8);
  const t = owner(7); // older than the write: had the record stayed, it would conflict
  tracker.begin(t);
  tracker.checkTransactionWrite(t, 't', key);
});

test('a queued write still in flight at the prune is kept', () => {
  const tracker = new ConflictTracker();
  tracker.recordWrite('t', key, 9);
  tracker.maybePrune(8);
  const t = owner(8);
  tracker.begin(t);
  assert.throws(() => tracker.checkTransactionWrite(t, 't', key), isWriteConflict);
});
