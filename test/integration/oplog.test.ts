// The oplog as clients see it: local.oplog.rs through find, entries written with each change.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Long, UUID } from 'mongodb';
import type { Document, Timestamp } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { rawCommand } from '../helpers/wire-client.js';
import type { TestDoc } from '../helpers/driver.js';

describe('oplog', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });

  test('every change has an entry in local.oplog.rs, in timestamp order', async () => {
    const coll = ts.client.db('op').collection<TestDoc>('c');
    await coll.insertOne({ _id: 1, a: 1 });
    await coll.updateOne({ _id: 1 }, { $set: { a: 2 }, $unset: { b: '' } });
    await coll.replaceOne({ _id: 1 }, { z: 1 });
    await coll.deleteOne({ _id: 1 });
    const session = ts.client.startSession();
    await session.withTransaction(async () => {
      await coll.insertOne({ _id: 2 }, { session });
      await coll.insertOne({ _id: 3 }, { session });
    });
    await session.endSession();

    const oplog = ts.client.db('local').collection('oplog.rs');
    const mine = await oplog.find({ $or: [{ ns: 'op.c' }, { 'o.applyOps.ns': 'op.c' }] }).toArray();
    const ops = mine.map((e: Document) => e['op'] as string);
    assert.deepEqual(ops.slice(-5), ['i', 'u', 'u', 'd', 'c']);
    const [ins, upd, rep, del, txn] = mine.slice(-5) as Document[];
    assert.deepEqual(ins?.['o'], { _id: 1, a: 1 });
    assert.deepEqual(upd?.['o2'], { _id: 1 });
    assert.equal(upd?.['o']['$v'], 2);
    assert.deepEqual(rep?.['o'], { _id: 1, z: 1 });
    assert.deepEqual(del?.['o'], { _id: 1 });
    assert.deepEqual(
      (txn?.['o']['applyOps'] as Document[]).map((x) => x['o']['_id']),
      [2, 3],
    );
    assert.ok(
      txn?.['lsid'] !== undefined && txn['txnNumber'] !== undefined,
      'transaction entries carry lsid and txnNumber',
    );
    for (let i = 1; i < mine.length; i++) {
      const a = mine[i - 1]?.['ts'] as Timestamp;
      const b = mine[i]?.['ts'] as Timestamp;
      assert.ok(a.lessThan(b), 'timestamps strictly increase');
    }
    const newest = await oplog.find({}).sort({ $natural: -1 }).limit(1).toArray();
    assert.deepEqual(newest[0]?.['ts'], mine.at(-1)?.['ts']);
  });

  test('retryable write entries carry lsid, txnNumber and stmtId', async () => {
    const lsid = { id: new UUID() };
    const r = await rawCommand(ts.server.port, {
      insert: 'r',
      documents: [{ _id: 'a' }, { _id: 'b' }],
      lsid,
      txnNumber: Long.fromInt(5),
      $db: 'op',
    });
    assert.equal(r['n'], 2);
    const entries = await ts.client
      .db('local')
      .collection('oplog.rs')
      .find({ ns: 'op.r' })
      .toArray();
    assert.deepEqual(
      entries.map((e) => e['stmtId']),
      [0, 1],
    );
    assert.ok(entries.every((e) => Number(e['txnNumber']) === 5));
  });
});
