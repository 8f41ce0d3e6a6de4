// The oplog's storage: reading an entry's op/ns without decoding it, the deferred write
// modes (entries queued and drained in order, only for writes that committed), retention in
// runs, and the history boundary marked after a crash lost entries.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Int32, Long, Timestamp } from 'bson';
import { encodeDocument } from '../../../src/bson/codec.js';
import { silentLogger } from '../../../src/log.js';
import { OplogStore, encodeTimestampKey, oplogTable } from '../../../src/repl/oplog-store.js';
import { peekOpAndNs } from '../../../src/repl/oplog-reader.js';
import type { OplogWriteMode } from '../../../src/repl/oplog-store.js';
import { MemoryEngine } from '../../../src/storage/memory/memory-engine.js';
import type { StorageEngine, WriteTxn } from '../../../src/storage/engine.js';
import { ConflictTracker } from '../../../src/txn/conflicts.js';
import { TrackedEngine } from '../../../src/txn/tracked-engine.js';

function entry(i: number, ns = 'db.c', pad = 0): { key: Buffer; bytes: Uint8Array } {
  const ts = new Timestamp({ t: 100, i });
  return {
    key: encodeTimestampKey(ts),
    bytes: encodeDocument({
      op: 'i',
      ns,
      o: { _id: new Int32(i), pad: 'x'.repeat(pad) },
      ts,
      t: Long.fromInt(1),
    }),
  };
}

function keysIn(engine: StorageEngine): number[] {
  const s = engine.snapshot();
  try {
    return [...s.scan(oplogTable)].map((e) => Buffer.from(e.key).readUInt32BE(4));
  } finally {
    s.release();
  }
}

function setup(
  mode: OplogWriteMode,
  maxBytes = 1 << 30,
): { main: MemoryEngine; tracked: TrackedEngine; store: OplogStore; written: () => number } {
  const main = new MemoryEngine();
  const tracked = new TrackedEngine(main, new ConflictTracker());
  let n = 0;
  const store = new OplogStore({
    main,
    store: main,
    mode,
    maxBytes,
    onWritten: () => n++,
    logger: silentLogger,
  });
  return { main, tracked, store, written: () => n };
}

const tick = (() => {
  let i = 1000;
  return () => new Timestamp({ t: 100, i: i++ });
})();

describe('peekOpAndNs', () => {
  test('reads op and ns from the start of an encoded entry', () => {
    assert.deepEqual(peekOpAndNs(entry(1, 'shop.orders').bytes), { op: 'i', ns: 'shop.orders' });
    assert.deepEqual(peekOpAndNs(encodeDocument({ op: 'c', ns: 'dé.$cmd', o: {} })), {
      op: 'c',
      ns: 'dé.$cmd',
    });
  });
  test('undefined when the entry does not start with op then ns', () => {
    assert.equal(peekOpAndNs(encodeDocument({ ns: 'a.b', op: 'i' })), undefined);
    assert.equal(peekOpAndNs(encodeDocument({ op: new Int32(1), ns: 'a.b' })), undefined);
    assert.equal(peekOpAndNs(encodeDocument({ op: 'i' })), undefined);
    assert.equal(peekOpAndNs(new Uint8Array([5, 0, 0, 0, 0])), undefined);
  });
});

describe('OplogStore, deferred modes', () => {
  test('async: the writer resolves before its entry is written; the drainer writes committed entries in order', async () => {
    const { main, tracked, store, written } = setup({ async: true, nonlogged: false });
    await tracked.write(
      (txn) => {
        store.append(txn, entry(1).key, entry(1).bytes);
        store.append(txn, entry(2).key, entry(2).bytes);
      },
      { durable: true },
    );
    assert.deepEqual(keysIn(main), [], 'not written yet when the write resolves');
    assert.equal(store.queued, 2);
    assert.ok(
      store.changedBetween(new Timestamp({ t: 100, i: 0 }), new Timestamp({ t: 100, i: 1 })),
      'queued entries count as changes',
    );
    await assert.rejects(
      tracked.write(
        (txn) => {
          store.append(txn, entry(3).key, entry(3).bytes);
          throw new Error('statement failed');
        },
        { durable: true },
      ),
      /statement failed/,
    );
    await tracked.write((txn) => store.append(txn, entry(4).key, entry(4).bytes), {
      durable: true,
    });
    await store.close();
    assert.deepEqual(
      keysIn(main),
      [1, 2, 4],
      'in order, without the entry of the write that failed',
    );
    assert.equal(store.queued, 0);
    assert.ok(written() >= 1, 'listeners told');
    assert.equal(
      store.changedBetween(new Timestamp({ t: 100, i: 2 }), new Timestamp({ t: 100, i: 3 })),
      false,
    );
  });

  test('nonlogged (not async): the write resolves once its entry is written', async () => {
    const { main, tracked, store } = setup({ async: false, nonlogged: true });
    await tracked.write((txn) => store.append(txn, entry(1).key, entry(1).bytes), {
      durable: true,
    });
    assert.deepEqual(keysIn(main), [1]);
    const both = [1, 2].map(() =>
      tracked.write((txn) => store.append(txn, entry(2).key, entry(2).bytes), { durable: true }),
    );
    await Promise.all(both);
    assert.deepEqual(keysIn(main), [1, 2]);
  });

  test('entries committed out of order are drained once the earlier one settles', async () => {
    const { main, store } = setup({ async: true, nonlogged: false });
    // Two writers' transactions; the later one reports its commit first.
    const hooks: Array<(committed: boolean) => Promise<void> | undefined> = [];
    const txn = (): WriteTxn =>
      ({
        put: () => undefined,
        onOutcome: (h: (committed: boolean) => Promise<void> | undefined) => hooks.push(h),
      }) as unknown as WriteTxn;
    store.append(txn(), entry(1).key, entry(1).bytes);
    store.append(txn(), entry(2).key, entry(2).bytes);
    void hooks[1]?.(true);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(keysIn(main), [], 'nothing written while the first is undecided');
    void hooks[0]?.(true);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(keysIn(main), [1, 2]);
    await store.close();
  });

  test('an entry needs a write transaction that reports its outcome', () => {
    const { main, store } = setup({ async: true, nonlogged: false });
    return assert.rejects(
      main.write((txn) => store.append(txn, entry(1).key, entry(1).bytes), { durable: true }),
      /reports its outcome/,
    );
  });
});

describe('OplogStore, retention and recovery', () => {
  test('pruning deletes the oldest runs and keeps bookkeeping per run, not per entry', async () => {
    const { main, tracked, store } = setup({ async: false, nonlogged: false }, 64 * 1024);
    for (let i = 1; i <= 3000; i += 100) {
      await tracked.write(
        (txn) => {
          for (let k = i; k < i + 100; k++)
            store.append(txn, entry(k, 'db.c', 100).key, entry(k, 'db.c', 100).bytes);
        },
        { durable: true },
      );
      await store.prune();
    }
    const kept = keysIn(main);
    const r = store.retention();
    assert.equal(r.entries, kept.length, 'the bookkeeping counts what is stored');
    assert.ok(r.bytes <= 64 * 1024, `within the budget (${r.bytes})`);
    assert.equal(kept.at(-1), 3000, 'the newest entries stay');
    assert.ok(kept.length < 3000 && kept.length > 100, `oldest pruned (${kept.length} kept)`);
    assert.ok(r.runs <= 17, `a handful of runs (${r.runs})`);
  });

  test('entries of committed writes missing at start-up mark a history boundary with a no-op entry', async () => {
    const { main, tracked, store } = setup({ async: true, nonlogged: false });
    await tracked.write((txn) => store.append(txn, entry(1).key, entry(1).bytes), {
      durable: true,
    });
    await store.close();
    // A second write whose entry is never drained: the process "crashes" here.
    const lost = new OplogStore({
      main,
      store: main,
      mode: { async: true, nonlogged: false },
      maxBytes: 1 << 30,
      onWritten: () => undefined,
      logger: silentLogger,
    });
    await tracked.write((txn) => lost.append(txn, entry(2).key, entry(2).bytes), { durable: true });

    const state = OplogStore.readState(main, main);
    assert.equal(state.last?.i, 1);
    assert.equal(state.issued?.i, 2, 'the write recorded the timestamp it issued');
    const reopened = new OplogStore({
      main,
      store: main,
      mode: { async: true, nonlogged: false },
      maxBytes: 1 << 30,
      onWritten: () => undefined,
      logger: silentLogger,
    });
    await reopened.open(state, tick);
    const boundary = reopened.historyFrom;
    assert.ok(boundary !== undefined && boundary.i > 2, 'history starts after the lost entry');
    const s = main.snapshot();
    try {
      assert.ok(
        reopened.historyStart(s)?.equals(boundary),
        'streams may not resume from before it',
      );
      assert.deepEqual(keysIn(main).at(-1), boundary.i, 'a no-op entry marks it in the oplog');
    } finally {
      s.release();
    }
    // Nothing lost the next time: no new boundary.
    const again = new OplogStore({
      main,
      store: main,
      mode: { async: true, nonlogged: false },
      maxBytes: 1 << 30,
      onWritten: () => undefined,
      logger: silentLogger,
    });
    await again.open(OplogStore.readState(main, main), tick);
    assert.ok(again.historyFrom?.equals(boundary));
  });

  test('a clean history has no boundary', async () => {
    const { main, tracked, store } = setup({ async: true, nonlogged: false });
    await tracked.write((txn) => store.append(txn, entry(1).key, entry(1).bytes), {
      durable: true,
    });
    await store.close();
    const reopened = new OplogStore({
      main,
      store: main,
      mode: { async: true, nonlogged: false },
      maxBytes: 1 << 30,
      onWritten: () => undefined,
      logger: silentLogger,
    });
    await reopened.open(OplogStore.readState(main, main), tick);
    assert.equal(reopened.historyFrom, undefined);
  });
});
