// A list-append transaction workload (in the spirit of Jepsen's Elle list-append): many
// clients run transactions that read some keys and append unique values to others; the
// daemon is killed (SIGKILL) and restarted in the middle. The history is then checked:
//
// - no lost write: every append whose commit was acknowledged is in the final list, once;
// - no aborted read: no value of a transaction that did not commit is ever read or stored
//   (values of transactions whose commit outcome is unknown may or may not be there);
// - no intermediate read: every read returns a prefix of the key's final list (appends are
//   only ever added at the end, so anything else means a reader saw a state that never was);
// - read-your-writes: a transaction that appended to a key and then reads it sees its value
//   last;
// - atomicity: a committed transaction's appends are all present, or (unknown outcome) all
//   absent.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { killDaemon, startDaemon } from '../helpers/daemon.js';

const keys = Array.from({ length: 24 }, (_, i) => `k${i}`);

interface TxnRecord {
  readonly id: string;
  readonly appends: string[];
  readonly reads: Array<{ key: string; value: string[] }>;
  outcome: 'committed' | 'aborted' | 'unknown';
}

function pick<T>(list: readonly T[], n: number, rnd: () => number): T[] {
  const copy = [...list];
  const out: T[] = [];
  while (out.length < n && copy.length > 0)
    out.push(copy.splice(Math.floor(rnd() * copy.length), 1)[0] as T);
  return out;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function runClient(
  uri: string,
  clientNo: number,
  history: TxnRecord[],
  stopAt: () => boolean,
): Promise<void> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 2000,
    retryWrites: false,
    maxPoolSize: 1,
  });
  const rnd = seeded(clientNo + 1);
  const coll = client.db('la').collection<{ _id: string; v: string[] }>('lists');
  try {
    for (let n = 0; !stopAt(); n++) {
      const rec: TxnRecord = {
        id: `c${clientNo}t${n}`,
        appends: [],
        reads: [],
        outcome: 'unknown',
      };
      history.push(rec);
      const session = client.startSession();
      try {
        session.startTransaction();
        for (const key of pick(keys, 2, rnd)) {
          const doc = await coll.findOne({ _id: key }, { session });
          rec.reads.push({ key, value: doc?.v ?? [] });
        }
        for (const key of pick(keys, 2, rnd)) {
          const value = `${rec.id}:${key}`;
          rec.appends.push(value);
          await coll.updateOne({ _id: key }, { $push: { v: value } }, { session, upsert: true });
        }
        const mine = rec.appends[0];
        if (mine !== undefined) {
          const key = mine.split(':')[1] as string;
          const doc = await coll.findOne({ _id: key }, { session });
          rec.reads.push({ key, value: doc?.v ?? [] });
          assert.equal(doc?.v.at(-1), mine, 'read-your-writes inside the transaction');
        }
        try {
          await session.commitTransaction();
          rec.outcome = 'committed';
        } catch {
          rec.outcome = 'unknown'; // the commit may or may not have happened
        }
      } catch (e) {
        if (e instanceof assert.AssertionError) throw e;
        rec.outcome = 'aborted';
        await session.abortTransaction().catch(() => undefined);
      } finally {
        await session.endSession().catch(() => undefined);
      }
    }
  } finally {
    await client.close(true).catch(() => undefined);
  }
}

function check(history: TxnRecord[], finals: Map<string, string[]>): string {
  const writerOf = new Map<string, TxnRecord>();
  for (const t of history) for (const v of t.appends) writerOf.set(v, t);
  for (const [key, list] of finals) {
    assert.equal(new Set(list).size, list.length, `no duplicate appends in ${key}`);
    for (const v of list) {
      const w = writerOf.get(v);
      assert.ok(w !== undefined, `${key} holds a value nobody wrote: ${v}`);
      assert.notEqual(w.outcome, 'aborted', `${key} holds ${v} from an aborted transaction`);
    }
  }
  const committed = history.filter((t) => t.outcome === 'committed');
  const summary = `${committed.length} committed, ${history.filter((x) => x.outcome === 'aborted').length} aborted, ${history.filter((x) => x.outcome === 'unknown').length} unknown`;
  assert.ok(committed.length > 20, `enough committed transactions: ${summary}`);
  for (const t of committed) {
    for (const v of t.appends) {
      const key = v.split(':')[1] as string;
      assert.ok(finals.get(key)?.includes(v), `acknowledged append ${v} is not lost`);
    }
  }
  for (const t of history.filter((x) => x.outcome === 'unknown')) {
    const present = t.appends.filter((v) =>
      finals.get(v.split(':')[1] as string)?.includes(v),
    ).length;
    assert.ok(
      present === 0 || present === t.appends.length,
      `transaction ${t.id} is all or nothing`,
    );
  }
  for (const t of history) {
    for (const r of t.reads) {
      const final = finals.get(r.key) ?? [];
      const ownTail = r.value.at(-1);
      // A read after the transaction's own append ends with that append, which is only in
      // the final list if the transaction committed; compare the part before it.
      const seen =
        ownTail !== undefined && t.appends.includes(ownTail) ? r.value.slice(0, -1) : r.value;
      assert.deepEqual(
        final.slice(0, seen.length),
        seen,
        `read of ${r.key} by ${t.id} is a prefix of the final list`,
      );
    }
  }
  return summary;
}

describe('list-append transactions across SIGKILL restarts (daemon on LMDB)', () => {
  test(
    'no lost writes, aborted reads, intermediate reads or partial transactions',
    { timeout: 120_000 },
    async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'secantus-la-'));
      const history: TxnRecord[] = [];
      let daemon = await startDaemon(dir);
      try {
        for (let round = 0; round < 3; round++) {
          const deadline = Date.now() + 2500;
          const clients = Array.from({ length: 8 }, (_, i) =>
            runClient(daemon.uri, round * 100 + i, history, () => Date.now() > deadline),
          );
          await new Promise((r) => setTimeout(r, 2000));
          await killDaemon(daemon);
          await Promise.all(clients);
          daemon = await startDaemon(dir);
        }
        const client = new MongoClient(daemon.uri, { serverSelectionTimeoutMS: 5000 });
        const finals = new Map<string, string[]>();
        for (const d of await client
          .db('la')
          .collection<{ _id: string; v: string[] }>('lists')
          .find()
          .toArray())
          finals.set(d._id, d.v);
        await client.close();
        t.diagnostic(check(history, finals));
      } finally {
        await killDaemon(daemon);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
