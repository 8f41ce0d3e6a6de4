// A dump is one point in time. Without --oplog every collection is read at the cluster time of
// the first snapshot read, so writes made while the dump runs are not in it. With --oplog the
// writes made while it runs are in oplog.bson, and --oplogReplay brings the restored data to
// the dump's end. The tools' `count` (sent just before a collection is read) is held back by a
// failpoint so that the test's writes land between the dump's start and its reads; currentOp
// shows the count still waiting when the writes are done, so the order is certain.

import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { dump, rawDocuments, restore } from '../helpers/tools.js';
import type { AnyDocument } from '../helpers/tools.js';

async function holdCounts(client: MongoClient, mode: Document | string): Promise<void> {
  await client.db('admin').command({
    configureFailPoint: 'failCommand',
    mode,
    data: {
      failCommands: ['count'],
      blockConnection: true,
      blockTimeMS: 4000,
      appName: 'secantus-tools',
    },
  });
}

async function releaseCounts(client: MongoClient): Promise<void> {
  await client.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
}

/** Whether the tool's count is waiting in the failpoint right now. */
async function countWaiting(client: MongoClient): Promise<boolean> {
  const ops = await client
    .db('admin')
    .aggregate([
      { $currentOp: {} },
      { $match: { appName: 'secantus-tools', 'command.count': { $exists: true } } },
    ])
    .toArray();
  return ops.length > 0;
}

async function waitFor(predicate: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await predicate())) await new Promise((r) => setTimeout(r, 5));
}

describe('a dump is one point in time', () => {
  let source: TestServer;
  let dir: string;
  before(async () => {
    source = await startTestServer();
    dir = await mkdtemp(join(tmpdir(), 'secantus-consistency-'));
  });
  after(async () => {
    await releaseCounts(source.client);
    await source.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads every collection at one snapshot, whatever is written meanwhile', async () => {
    const db = source.client.db('snap');
    await db
      .collection<AnyDocument>('a')
      .insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, v: 'before' })));
    await db
      .collection<AnyDocument>('b')
      .insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, v: 'before' })));
    const before = {
      a: await rawDocuments(source.client, 'snap', 'a'),
      b: await rawDocuments(source.client, 'snap', 'b'),
    };
    await holdCounts(source.client, 'alwaysOn');
    let log = '';
    const out = join(dir, 'snap');
    const running = dump(['--uri', source.uri, '--db', 'snap', '--out', out], {
      onStderr: (t) => (log += t),
    });
    await waitFor(() => log.includes('reading every collection at cluster time'));
    await waitFor(() => countWaiting(source.client));
    await db.collection<AnyDocument>('a').insertOne({ _id: 100, v: 'during' });
    await db.collection<AnyDocument>('a').updateMany({}, { $set: { v: 'during' } });
    await db.collection<AnyDocument>('b').deleteMany({ _id: { $lt: 25 } });
    assert.ok(await countWaiting(source.client), 'the dump had not read the collections yet');
    const d = await running;
    await releaseCounts(source.client);
    assert.equal(d.code, 0, d.stderr);
    const target = await startTestServer();
    try {
      const r = await restore(['--uri', target.uri, out]);
      assert.equal(r.code, 0, r.stderr);
      for (const c of ['a', 'b'] as const) {
        const got = await rawDocuments(target.client, 'snap', c);
        assert.equal(got.length, before[c].length, `snap.${c}`);
        got.forEach((g, i) =>
          assert.ok(g.equals(before[c][i] as Buffer), `snap.${c} document ${i}`),
        );
      }
    } finally {
      await target.stop();
    }
  });

  it('with --oplog, replays what was written while the dump ran', async () => {
    const db = source.client.db('pit');
    await db.collection<AnyDocument>('a').insertMany(
      Array.from({ length: 20 }, (_, i) => ({
        _id: i,
        n: i,
        list: [1, 2, 3],
        sub: { x: 1, y: 2 },
      })),
    );
    await db.collection<AnyDocument>('b').insertMany([{ _id: 1 }, { _id: 2 }]);
    // Collections are dumped one at a time (-j 1): a, then b. While b's count waits, a (already
    // read) changes; only the oplog carries those changes.
    await holdCounts(source.client, 'alwaysOn');
    let log = '';
    const out = join(dir, 'pit');
    const running = dump(
      ['--uri', source.uri, '--oplog', '-j', '1', '--nsInclude', 'pit.*', '--out', out],
      {
        onStderr: (t) => (log += t),
      },
    );
    await waitFor(() => log.includes('done dumping pit.a'));
    await waitFor(() => countWaiting(source.client));
    await db.collection<AnyDocument>('a').insertOne({ _id: 100, n: 100, list: [], sub: {} });
    await db
      .collection<AnyDocument>('a')
      .updateOne({ _id: 1 }, { $set: { n: -1, 'sub.x': 'changed' }, $unset: { 'sub.y': '' } });
    await db.collection<AnyDocument>('a').updateOne({ _id: 2 }, { $push: { list: 4 } } as Document);
    await db.collection<AnyDocument>('a').updateOne({ _id: 3 }, { $pop: { list: 1 } } as Document);
    await db
      .collection<AnyDocument>('a')
      .updateOne({ _id: 4 }, [{ $set: { list: { $concatArrays: [[0], '$list'] } } }]);
    await db.collection<AnyDocument>('a').replaceOne({ _id: 5 }, { n: 'replaced' });
    await db.collection<AnyDocument>('a').deleteOne({ _id: 6 });
    await db.createCollection('created');
    await db.collection<AnyDocument>('created').insertOne({ _id: 'new' });
    await db.collection<AnyDocument>('created').createIndex({ z: 1 });
    assert.ok(await countWaiting(source.client), 'the dump had not finished yet');
    const d = await running;
    await releaseCounts(source.client);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stderr, /dumped \d+ oplog entries/);
    const final = await rawDocuments(source.client, 'pit', 'a');

    const withReplay = await startTestServer();
    const without = await startTestServer();
    try {
      const r = await restore(['--uri', withReplay.uri, out, '--oplogReplay']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /applied \d+ oplog entries/);
      const got = await rawDocuments(withReplay.client, 'pit', 'a');
      assert.equal(got.length, final.length);
      got.forEach((g, i) =>
        assert.ok(g.equals(final[i] as Buffer), `pit.a document ${i} after replay`),
      );
      assert.equal(
        await withReplay.client.db('pit').collection<AnyDocument>('created').countDocuments(),
        1,
      );
      const names = (
        await withReplay.client.db('pit').collection<AnyDocument>('created').listIndexes().toArray()
      ).map((x) => x['name']);
      assert.deepEqual(names, ['_id_', 'z_1']);

      // Without the replay the data is as read: the changes made after a was read are missing.
      const plain = await restore(['--uri', without.uri, out]);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(
        await without.client.db('pit').collection<AnyDocument>('a').countDocuments(),
        20,
      );
      assert.equal(
        await without.client.db('pit').collection<AnyDocument>('a').countDocuments({ _id: 100 }),
        0,
      );
    } finally {
      await withReplay.stop();
      await without.stop();
    }
  });
});
