// --oplog-async and --oplog-nonlogged through the driver (in-process server on LMDB): change
// events complete and in commit order, transactions (committed together, aborted never),
// retryable writes retried once, causal consistency, snapshot reads, a stream opened after
// writes never shows them, and a clean stop drains what was queued so a stream resumes
// after a restart without a gap.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Long, UUID } from 'mongodb';
import type { ChangeStream, Document, Timestamp } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

const modes = [
  { name: 'async', options: { oplogAsync: true } },
  { name: 'nonlogged', options: { oplogNonlogged: true } },
  { name: 'async + nonlogged', options: { oplogAsync: true, oplogNonlogged: true } },
] as const;

async function take(cs: ChangeStream, n: number): Promise<Document[]> {
  const out: Document[] = [];
  while (out.length < n) out.push((await cs.next()) as unknown as Document);
  return out;
}

const summary = (e: Document): string =>
  `${String(e['operationType'])}:${String(e['documentKey']?._id)}`;

for (const mode of modes) {
  describe(`oplog ${mode.name}`, () => {
    const withServer = async (
      fn: (ts: TestServer, dir: string) => Promise<void>,
    ): Promise<void> => {
      const dir = mkdtempSync(join(tmpdir(), 'secantus-oplogmode-'));
      const ts = await startTestServer({ dbPath: dir, ...mode.options });
      try {
        await fn(ts, dir);
      } finally {
        await ts.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    };

    test('events in commit order; a committed transaction together; an aborted one never', () =>
      withServer(async (ts) => {
        const coll = ts.client.db('m').collection<TestDoc>('c');
        const cs = ts.client.db('m').watch();
        await cs.tryNext();
        await coll.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i })));
        await coll.updateOne({ _id: 1 }, { $set: { x: 1 } });
        await coll.deleteOne({ _id: 2 });
        const session = ts.client.startSession();
        session.startTransaction();
        await coll.insertOne({ _id: 'aborted' }, { session });
        await session.abortTransaction();
        session.startTransaction();
        await coll.insertOne({ _id: 't1' }, { session });
        await ts.client.db('m').collection<TestDoc>('d').insertOne({ _id: 't2' }, { session });
        await session.commitTransaction();
        await session.endSession();
        await coll.insertOne({ _id: 'last' });
        const events = await take(cs, 55);
        const expected = [
          ...Array.from({ length: 50 }, (_, i) => `insert:${i}`),
          'update:1',
          'delete:2',
          'insert:t1',
          'insert:t2',
          'insert:last',
        ];
        assert.deepEqual(events.map(summary), expected);
        assert.ok(
          events[52]?.['clusterTime'].equals(events[53]?.['clusterTime']),
          'one transaction, one clusterTime',
        );
        assert.ok(events[52]?.['lsid'] !== undefined && events[52]?.['txnNumber'] !== undefined);
        await cs.close();
      }));

    test('a stream opened right after writes shows none of them', () =>
      withServer(async (ts) => {
        const coll = ts.client.db('m').collection<TestDoc>('c');
        // Many writes at once, so that some may still be queued when the stream opens.
        await Promise.all(
          Array.from({ length: 20 }, (_, k) =>
            coll.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: k * 100 + i }))),
          ),
        );
        const cs = coll.watch();
        await cs.tryNext();
        await coll.insertOne({ _id: 'after' });
        assert.deepEqual((await take(cs, 1)).map(summary), ['insert:after']);
        await cs.close();
      }));

    test('a retried retryable write applies, and shows, once', () =>
      withServer(async (ts) => {
        const db = ts.client.db('m');
        const cs = db.collection('r').watch();
        await cs.tryNext();
        const lsid = { id: new UUID() };
        const cmd = {
          insert: 'r',
          documents: [{ _id: 1 }, { _id: 2 }],
          lsid,
          txnNumber: Long.fromNumber(7),
        };
        const first = await db.command(cmd);
        const retry = await db.command(cmd);
        assert.equal(first['n'], 2);
        assert.equal(retry['n'], 2, 'the retry answers as the first attempt did');
        // Another client: this one's pooled session now holds txnNumber 7.
        await (await ts.newClient()).db('m').collection<TestDoc>('r').insertOne({ _id: 'end' });
        assert.deepEqual((await take(cs, 3)).map(summary), ['insert:1', 'insert:2', 'insert:end']);
        assert.equal(await db.collection<TestDoc>('r').countDocuments(), 3);
        await cs.close();
      }));

    test('causal consistency and snapshot reads see exactly the acknowledged writes', () =>
      withServer(async (ts) => {
        const coll = ts.client.db('m').collection<TestDoc>('s');
        const session = ts.client.startSession({ causalConsistency: true });
        await coll.insertOne({ _id: 1, v: 'a' }, { session });
        assert.deepEqual(
          await coll.findOne({ _id: 1 }, { session }),
          { _id: 1, v: 'a' },
          'reads its own write',
        );
        const at = session.operationTime as Timestamp;
        await coll.updateOne({ _id: 1 }, { $set: { v: 'b' } }, { session });
        await session.endSession();
        // A snapshot read at the first write's time must not see the update, queued or not.
        const reply = await ts.client
          .db('m')
          .command({ find: 's', filter: {}, readConcern: { level: 'snapshot', atClusterTime: at } })
          .catch((e: { code?: number }) => ({ error: e.code }));
        if ('error' in reply)
          assert.equal(reply['error'], 239, 'SnapshotTooOld when that snapshot is gone');
        else assert.deepEqual(reply['cursor'].firstBatch, [{ _id: 1, v: 'a' }]);
        assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, v: 'b' });
      }));
  });
}

describe('oplog async: a clean stop drains the queue', () => {
  test('a stream resumes after a restart on the same dbpath without a gap', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'secantus-oplogdrain-'));
    try {
      let ts = await startTestServer({ dbPath: dir, oplogAsync: true });
      const cs = ts.client.db('m').collection('c').watch();
      await cs.tryNext();
      const token = cs.resumeToken;
      await cs.close();
      // Acknowledged before the stop; their entries may still be queued when it begins.
      await Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          ts.client
            .db('m')
            .collection<TestDoc>('c')
            .insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: k * 200 + i }))),
        ),
      );
      await ts.stop();
      ts = await startTestServer({ dbPath: dir, oplogAsync: true });
      try {
        const resumed = ts.client.db('m').collection('c').watch([], { resumeAfter: token });
        const events = await take(resumed, 2000);
        assert.deepEqual(
          new Set(events.map((e) => e['documentKey']._id)).size,
          2000,
          'every acknowledged insert, once',
        );
        const noops = await ts.client
          .db('local')
          .collection('oplog.rs')
          .find({ op: 'n' })
          .toArray();
        assert.deepEqual(
          noops.map((e) => e['o']),
          [{ msg: 'initiating set' }],
          'no history boundary after a clean stop',
        );
        await resumed.close();
      } finally {
        await ts.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
