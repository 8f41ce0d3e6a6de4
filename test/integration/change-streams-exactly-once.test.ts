// Change streams are exactly-once across crashes: a daemon on LMDB, writers doing inserts,
// updates, deletes and multi-document transactions (some committed, some aborted) on three
// collections, and a consumer reading a database-level change stream. The daemon is killed
// (SIGKILL) and restarted several times; after each restart the consumer resumes with the
// token of the last event it processed (resumeAfter). At the end:
//
// - every acknowledged change appears exactly once; a change whose outcome the writer does
//   not know (in flight at the kill) appears at most once;
// - no event comes from an aborted transaction;
// - resume tokens strictly increase (no duplicates across resumes), clusterTime never goes
//   back, and each writer's changes appear in the order it made them (its next write started
//   after the previous one was acknowledged, so that is commit order);
// - a committed transaction's events are consecutive, in statement order, with one
//   clusterTime and its lsid/txnNumber;
// - replaying the events gives exactly the collections' final contents.
//
// The same workload with --oplog-async is only stopped cleanly (SIGTERM): with an async
// oplog a SIGKILL may lose the entries of acknowledged writes (docs/architecture.md), but a
// clean shutdown drains them, so the stream is complete across a clean restart. What a
// SIGKILL does there is checked separately: a resume from before it is complete or fails
// with ChangeStreamHistoryLost, never silently short.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { ChangeStream, ClientSession, Document, Timestamp } from 'mongodb';
import { killDaemon, startDaemon } from '../helpers/daemon.js';
import type { Daemon } from '../helpers/daemon.js';
import type { TestDoc } from '../helpers/driver.js';

const colls = ['a', 'b', 'c'] as const;
type Outcome = 'acked' | 'failed' | 'unknown';

/** One change a statement makes, as the stream should show it. */
interface Expected {
  readonly key: string; // i:<_id> | u:<marker> | d:<_id>
}

interface Op {
  readonly writer: number;
  readonly seq: number;
  readonly kind: 'insert' | 'update' | 'delete' | 'txn' | 'abortedTxn';
  /** The events it produces, in statement order (none for an aborted transaction). */
  readonly changes: Expected[];
  outcome: Outcome;
}

interface Seen {
  readonly token: string;
  readonly clusterTime: Timestamp;
  readonly type: string;
  readonly coll: string;
  readonly id: unknown;
  readonly key: string;
  readonly doc: Document;
}

/** The daemon of the moment; replaced (as a promise) by the orchestrator at each kill. */
interface Live {
  daemon: Promise<Daemon>;
  /** Daemons that were killed on purpose: errors against them are expected. */
  readonly killed: Set<Daemon>;
  stop: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function keyOf(ev: Document): string {
  const id = (ev['documentKey'] as Document | undefined)?.['_id'];
  switch (ev['operationType']) {
    case 'insert':
      return `i:${String(id)}`;
    case 'delete':
      return `d:${String(id)}`;
    case 'update': {
      const v = (ev['updateDescription'] as Document)['updatedFields']['v'];
      return `u:${String(v)}`;
    }
    default:
      return `${String(ev['operationType'])}:${String(id)}`;
  }
}

function client(d: Daemon): MongoClient {
  return new MongoClient(d.uri, {
    serverSelectionTimeoutMS: 2000,
    retryWrites: false,
    retryReads: false,
    maxPoolSize: 2,
  });
}

/** Waits for a daemon other than `prev` (the orchestrator restarts it after a kill). */
async function nextDaemon(live: Live, prev: Daemon | undefined): Promise<Daemon> {
  for (;;) {
    const d = await live.daemon;
    if (d !== prev || !live.killed.has(d)) return d;
    await sleep(50);
  }
}

async function runWriter(live: Live, w: number, ops: Op[], unexpected: string[]): Promise<void> {
  const rnd = seeded(w + 7);
  const owned: Array<{ id: string; coll: string }> = [];
  let n = 0;
  let d: Daemon | undefined;
  while (!live.stop) {
    d = await nextDaemon(live, d);
    const c = client(d);
    try {
      while (!live.stop) {
        const r = rnd();
        const id = (): string => `w${w}-${n++}`;
        const coll = (): string => colls[Math.floor(rnd() * colls.length)] as string;
        const pickOwned = (): { id: string; coll: string } | undefined =>
          owned[Math.floor(rnd() * owned.length)];
        const db = c.db('ex');
        if (r < 0.35 || owned.length < 3) {
          const doc = { _id: id(), coll: coll() };
          const op: Op = {
            writer: w,
            seq: ops.length,
            kind: 'insert',
            changes: [{ key: `i:${doc._id}` }],
            outcome: 'unknown',
          };
          ops.push(op);
          await db
            .collection<TestDoc>(doc.coll)
            .insertOne({ _id: doc._id, n: 0, tmp: 1, pad: 'x'.repeat(40) });
          op.outcome = 'acked';
          owned.push({ id: doc._id, coll: doc.coll });
        } else if (r < 0.6) {
          const t = pickOwned() as { id: string; coll: string };
          const marker = `m${w}-${n++}`;
          const op: Op = {
            writer: w,
            seq: ops.length,
            kind: 'update',
            changes: [{ key: `u:${marker}` }],
            outcome: 'unknown',
          };
          ops.push(op);
          await db
            .collection<TestDoc>(t.coll)
            .updateOne({ _id: t.id }, { $set: { v: marker }, $inc: { n: 1 }, $unset: { tmp: '' } });
          op.outcome = 'acked';
        } else if (r < 0.7) {
          const i = Math.floor(rnd() * owned.length);
          const t = owned.splice(i, 1)[0] as { id: string; coll: string };
          const op: Op = {
            writer: w,
            seq: ops.length,
            kind: 'delete',
            changes: [{ key: `d:${t.id}` }],
            outcome: 'unknown',
          };
          ops.push(op);
          await db.collection<TestDoc>(t.coll).deleteOne({ _id: t.id });
          op.outcome = 'acked';
        } else {
          const aborted = r >= 0.9;
          const first = { id: aborted ? `abort-${w}-${n++}` : id(), coll: coll() };
          const second = { id: id(), coll: coll() };
          const t = pickOwned() as { id: string; coll: string };
          const marker = `m${w}-${n++}`;
          const changes = aborted
            ? []
            : [{ key: `i:${first.id}` }, { key: `i:${second.id}` }, { key: `u:${marker}` }];
          const op: Op = {
            writer: w,
            seq: ops.length,
            kind: aborted ? 'abortedTxn' : 'txn',
            changes,
            outcome: 'unknown',
          };
          ops.push(op);
          const session: ClientSession = c.startSession();
          try {
            session.startTransaction();
            await db
              .collection<TestDoc>(first.coll)
              .insertOne({ _id: first.id, n: 0, aborted }, { session });
            await db
              .collection<TestDoc>(second.coll)
              .insertOne({ _id: second.id, n: 0, aborted }, { session });
            await db
              .collection<TestDoc>(t.coll)
              .updateOne({ _id: t.id }, { $set: { v: marker, aborted } }, { session });
            if (aborted) {
              await session.abortTransaction();
              op.outcome = 'acked';
            } else {
              op.outcome = 'failed'; // until the commit is sent, nothing can have committed
              try {
                await session.commitTransaction();
              } catch (e) {
                op.outcome = 'unknown';
                throw e;
              }
              op.outcome = 'acked';
              owned.push(first, second);
            }
          } catch (e) {
            if (op.outcome !== 'unknown') op.outcome = 'failed';
            throw e;
          } finally {
            await session.endSession().catch(() => undefined);
          }
        }
      }
    } catch (e) {
      if (!live.killed.has(d))
        unexpected.push(`writer ${w}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await c.close(true).catch(() => undefined);
    }
  }
}

/** Reads the stream, resuming after each kill with the last token it processed, until `until` is seen. */
async function runConsumer(
  live: Live,
  firstToken: Document,
  seen: Seen[],
  until: { readonly coll: string },
  unexpected: string[],
): Promise<number> {
  let token = firstToken;
  let resumes = 0;
  let d: Daemon | undefined;
  for (;;) {
    d = await nextDaemon(live, d);
    const c = client(d);
    let stream: ChangeStream | undefined;
    try {
      stream = c.db('ex').watch([], { resumeAfter: token, maxAwaitTimeMS: 200 });
      for (;;) {
        const ev = await stream.tryNext();
        if (ev === null) continue;
        const doc = ev as unknown as Document;
        const ns = doc['ns'] as { coll: string };
        seen.push({
          token: (doc['_id'] as { _data: string })._data,
          clusterTime: doc['clusterTime'] as Timestamp,
          type: String(doc['operationType']),
          coll: ns.coll,
          id: (doc['documentKey'] as Document | undefined)?.['_id'],
          key: keyOf(doc),
          doc,
        });
        token = doc['_id'] as Document;
        if (ns.coll === until.coll) return resumes;
      }
    } catch (e) {
      if (!live.killed.has(d))
        unexpected.push(`consumer: ${e instanceof Error ? e.message : String(e)}`);
      resumes++;
    } finally {
      await stream?.close().catch(() => undefined);
      await c.close(true).catch(() => undefined);
    }
  }
}

function replay(seen: readonly Seen[]): Map<string, Map<string, Document>> {
  const state = new Map<string, Map<string, Document>>(colls.map((c) => [c, new Map()]));
  for (const ev of seen) {
    const docs = state.get(ev.coll);
    if (docs === undefined) continue;
    const id = String(ev.id);
    if (ev.type === 'insert' || ev.type === 'replace')
      docs.set(id, ev.doc['fullDocument'] as Document);
    else if (ev.type === 'delete') docs.delete(id);
    else if (ev.type === 'update') {
      const d = docs.get(id);
      assert.ok(
        d !== undefined,
        `update event for ${ev.coll}/${id}, which the stream never inserted`,
      );
      const ud = ev.doc['updateDescription'] as {
        updatedFields: Document;
        removedFields: string[];
      };
      Object.assign(d, ud.updatedFields);
      for (const f of ud.removedFields) delete d[f];
    } else assert.fail(`unexpected ${ev.type} event`);
  }
  return state;
}

function check(ops: readonly Op[], seen: readonly Seen[], finals: Map<string, Document[]>): string {
  // Tokens strictly increase (so no event came twice), clusterTime never goes back.
  for (let i = 1; i < seen.length; i++) {
    const [a, b] = [seen[i - 1] as Seen, seen[i] as Seen];
    assert.ok(a.token < b.token, `token ${i} (${b.key}) is after token ${i - 1} (${a.key})`);
    assert.ok(
      a.clusterTime.lessThanOrEqual(b.clusterTime),
      `clusterTime of event ${i} does not go back`,
    );
  }
  const at = new Map<string, number>();
  seen.forEach((ev, i) => {
    assert.ok(!at.has(ev.key), `change ${ev.key} appears once, not twice`);
    at.set(ev.key, i);
  });
  // Nothing from aborted transactions (their documents say so, and their ids start with "abort-").
  for (const ev of seen) {
    assert.ok(!String(ev.id).startsWith('abort-'), `no event of an aborted transaction: ${ev.key}`);
    assert.notEqual(
      (ev.doc['fullDocument'] as Document | undefined)?.['aborted'],
      true,
      `no aborted insert: ${ev.key}`,
    );
    assert.notEqual(
      (ev.doc['updateDescription'] as Document | undefined)?.['updatedFields']?.['aborted'],
      true,
      `no aborted update: ${ev.key}`,
    );
  }
  const lastIndex = new Map<number, number>();
  for (const op of ops) {
    const idx = op.changes.map((c) => at.get(c.key));
    const present = idx.filter((i) => i !== undefined).length;
    if (op.outcome === 'acked')
      assert.equal(
        present,
        op.changes.length,
        `acknowledged ${op.kind} of writer ${op.writer} (#${op.seq}) appears: ${op.changes.map((c) => c.key).join(', ')}`,
      );
    else if (op.outcome === 'failed')
      assert.equal(present, 0, `failed ${op.kind} (#${op.seq}) does not appear`);
    else
      assert.ok(
        present === 0 || present === op.changes.length,
        `in-flight ${op.kind} (#${op.seq}) is all or nothing`,
      );
    if (present === 0 || present !== op.changes.length) continue;
    const positions = idx as number[];
    if (op.kind === 'txn') {
      const events = positions.map((p) => seen[p] as Seen);
      positions.forEach((p, k) =>
        assert.equal(
          p,
          (positions[0] as number) + k,
          `transaction #${op.seq}: events consecutive and in statement order`,
        ),
      );
      for (const ev of events) {
        assert.ok(
          ev.clusterTime.equals((events[0] as Seen).clusterTime),
          'one clusterTime per transaction',
        );
        assert.ok(
          ev.doc['lsid'] !== undefined && ev.doc['txnNumber'] !== undefined,
          'transaction events carry lsid and txnNumber',
        );
      }
    }
    const prev = lastIndex.get(op.writer) ?? -1;
    assert.ok(
      (positions[0] as number) > prev,
      `writer ${op.writer}'s change #${op.seq} comes after its earlier ones`,
    );
    lastIndex.set(op.writer, positions.at(-1) as number);
  }
  const replayed = replay(seen);
  for (const c of colls) {
    const expected = [...(replayed.get(c) as Map<string, Document>).values()].sort((x, y) =>
      String(x['_id']).localeCompare(String(y['_id'])),
    );
    assert.deepEqual(finals.get(c), expected, `replaying the events gives ex.${c}`);
  }
  const count = (o: Outcome): number => ops.filter((x) => x.outcome === o).length;
  return `${seen.length} events; ${count('acked')} acknowledged, ${count('unknown')} in flight, ${count('failed')} failed operations`;
}

async function finalState(d: Daemon): Promise<Map<string, Document[]>> {
  const c = client(d);
  try {
    const out = new Map<string, Document[]>();
    for (const name of colls) {
      const docs = await c.db('ex').collection(name).find().toArray();
      out.set(
        name,
        docs.sort((x, y) => String(x['_id']).localeCompare(String(y['_id']))),
      );
    }
    return out;
  } finally {
    await c.close();
  }
}

/** The token a stream opened now starts after (its first postBatchResumeToken). */
async function startToken(d: Daemon): Promise<Document> {
  const c = client(d);
  try {
    const stream = c.db('ex').watch();
    await stream.tryNext();
    const token = stream.resumeToken as Document;
    await stream.close();
    return token;
  } finally {
    await c.close();
  }
}

async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!cond() && Date.now() < until) await sleep(25);
}

interface Workload {
  readonly restarts: number;
  readonly signal: NodeJS.Signals;
  readonly args: readonly string[];
}

async function runWorkload(dir: string, wl: Workload): Promise<string> {
  const first = await startDaemon(dir, wl.args);
  const live: Live = { daemon: Promise.resolve(first), killed: new Set(), stop: false };
  const ops: Op[] = [];
  const seen: Seen[] = [];
  const unexpected: string[] = [];
  const sentinel = { coll: 'sentinel' };
  try {
    const token = await startToken(first);
    const writers = [0, 1, 2].map((w) => runWriter(live, w, ops, unexpected));
    const consumer = runConsumer(live, token, seen, sentinel, unexpected);
    for (let round = 0; round < wl.restarts; round++) {
      const d = await live.daemon;
      const [acked, events] = [ops.filter((o) => o.outcome === 'acked').length, seen.length];
      // Kill mid-stream: once writers and the consumer have made progress (bounded waits).
      await waitFor(
        () =>
          ops.filter((o) => o.outcome === 'acked').length >= acked + 60 &&
          seen.length >= events + 30,
        15_000,
      );
      live.killed.add(d);
      live.daemon = killDaemon(d, wl.signal).then((code) => {
        if (wl.signal === 'SIGTERM') assert.equal(code, 0, 'a clean stop exits 0');
        return startDaemon(dir, wl.args);
      });
      await live.daemon;
    }
    const acked = ops.filter((o) => o.outcome === 'acked').length;
    await waitFor(() => ops.filter((o) => o.outcome === 'acked').length >= acked + 60, 15_000);
    live.stop = true;
    await Promise.all(writers);
    const d = await live.daemon;
    const c = client(d);
    await c.db('ex').collection<TestDoc>(sentinel.coll).insertOne({ _id: 'end' });
    await c.close();
    const resumes = await consumer;
    assert.deepEqual(unexpected, [], 'errors only from the daemons that were stopped');
    assert.ok(resumes >= wl.restarts, `the consumer resumed after each stop (${resumes})`);
    const summary = check(ops, seen.slice(0, -1), await finalState(d));
    assert.ok(
      ops.filter((o) => o.outcome === 'acked' && o.kind === 'txn').length > 5,
      'committed transactions ran',
    );
    assert.ok(
      ops.filter((o) => o.outcome === 'acked' && o.kind === 'abortedTxn').length > 2,
      'aborted transactions ran',
    );
    return `${summary}; ${resumes} resumes`;
  } finally {
    live.stop = true;
    const d = await live.daemon.catch(() => undefined);
    if (d !== undefined) await killDaemon(d, 'SIGKILL');
  }
}

/**
 * With entries written off the writers' path, a SIGKILL may lose the entries of acknowledged
 * writes. What must hold: resuming from before the crash either yields every acknowledged
 * change once, or fails with ChangeStreamHistoryLost (286); never a silent gap.
 */
async function killDuringBurst(dir: string, args: readonly string[]): Promise<string> {
  let d = await startDaemon(dir, args);
  try {
    const token = await startToken(d);
    const c = client(d);
    const acked: number[] = [];
    let stop = false;
    const writers = [0, 1, 2, 3].map(async (w) => {
      for (let i = 0; !stop; i++) {
        const id = w * 1_000_000 + i;
        try {
          await c.db('ex').collection<TestDoc>('a').insertOne({ _id: id });
          acked.push(id);
        } catch {
          return;
        }
      }
    });
    await waitFor(() => acked.length >= 300, 15_000);
    await killDaemon(d);
    stop = true;
    await Promise.all(writers);
    await c.close(true).catch(() => undefined);
    d = await startDaemon(dir, args);
    const c2 = client(d);
    try {
      await c2.db('ex').collection<TestDoc>('end').insertOne({ _id: 'end' });
      const stream = c2.db('ex').watch([], { resumeAfter: token });
      const seen = new Map<unknown, number>();
      try {
        for (;;) {
          const ev = (await stream.next()) as unknown as Document;
          if ((ev['ns'] as { coll: string }).coll === 'end') break;
          const id = (ev['documentKey'] as Document)['_id'];
          seen.set(id, (seen.get(id) ?? 0) + 1);
        }
      } catch (e) {
        assert.equal(
          (e as { code?: number }).code,
          286,
          `the only acceptable failure is ChangeStreamHistoryLost: ${String(e)}`,
        );
        const boundary = await c2
          .db('local')
          .collection('oplog.rs')
          .find({ op: 'n', 'o.msg': /history starts here/ })
          .toArray();
        assert.equal(boundary.length, 1, 'the boundary is in the oplog');
        return `history lost and reported (286) after ${acked.length} acknowledged inserts`;
      } finally {
        await stream.close().catch(() => undefined);
      }
      for (const id of acked)
        assert.equal(seen.get(id), 1, `acknowledged insert ${id} appears once`);
      for (const [id, n] of seen) assert.equal(n, 1, `${String(id)} appears once`);
      return `complete: ${seen.size} events for ${acked.length} acknowledged inserts`;
    } finally {
      await c2.close();
    }
  } finally {
    await killDaemon(d);
  }
}

describe('change streams: exactly once across restarts (daemon on LMDB)', () => {
  test(
    'SIGKILL and restart three times: every acknowledged change once, in commit order, nothing aborted',
    { timeout: 90_000 },
    async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'secantus-cs1-'));
      try {
        t.diagnostic(await runWorkload(dir, { restarts: 3, signal: 'SIGKILL', args: [] }));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test(
    '--oplog-async, stopped cleanly (SIGTERM) twice: the drain keeps the stream exactly-once',
    { timeout: 90_000 },
    async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'secantus-cs2-'));
      try {
        t.diagnostic(
          await runWorkload(dir, { restarts: 2, signal: 'SIGTERM', args: ['--oplog-async'] }),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  for (const mode of ['--oplog-async', '--oplog-nonlogged']) {
    test(
      `${mode}, SIGKILL: a resume from before the crash is complete or fails with 286, never silently short`,
      { timeout: 60_000 },
      async (t) => {
        const dir = mkdtempSync(join(tmpdir(), 'secantus-cs3-'));
        try {
          t.diagnostic(await killDuringBurst(dir, [mode]));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  }
});
