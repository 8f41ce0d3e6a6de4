// The bulkWrite command (MongoDB 8.0): through the driver's client.bulkWrite and as the raw
// command, its reply shape, cursor, errors, retryable writes and transactions.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Binary, Long, MongoClientBulkWriteError, MongoServerError } from 'mongodb';
import type { ClientBulkWriteModel, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

type Schemas = Record<string, TestDoc>;

async function serverError(p: Promise<unknown>): Promise<MongoServerError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MongoServerError) return e;
    throw e;
  }
  assert.fail('expected a server error');
}

describe('bulkWrite', () => {
  let ts: TestServer;
  const admin = (): ReturnType<TestServer['client']['db']> => ts.client.db('admin');
  const reset = async (db: string, coll: string, docs: TestDoc[]): Promise<void> => {
    const c = ts.client.db(db).collection<TestDoc>(coll);
    await c.drop().catch(() => undefined);
    if (docs.length > 0) await c.insertMany(docs);
  };
  const contents = (db: string, coll: string): Promise<Document[]> =>
    ts.client.db(db).collection<TestDoc>(coll).find().sort({ _id: 1 }).toArray();

  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });

  test('client.bulkWrite over two namespaces, with verbose results', async () => {
    await reset('bw1', 'a', [
      { _id: 1, x: 11 },
      { _id: 2, x: 22 },
      { _id: 3, x: 33 },
      { _id: 5, x: 55 },
      { _id: 6, x: 66 },
    ]);
    await reset('bw2', 'b', []);
    const r = await ts.client.bulkWrite<Schemas>(
      [
        { name: 'insertOne', namespace: 'bw1.a', document: { _id: 8, x: 88 } },
        { name: 'updateOne', namespace: 'bw1.a', filter: { _id: 1 }, update: { $inc: { x: 1 } } },
        {
          name: 'updateMany',
          namespace: 'bw1.a',
          filter: { _id: { $gt: 1, $lte: 3 } },
          update: { $inc: { x: 2 } },
        },
        {
          name: 'replaceOne',
          namespace: 'bw2.b',
          filter: { _id: 4 },
          replacement: { x: 44 },
          upsert: true,
        },
        { name: 'deleteOne', namespace: 'bw1.a', filter: { _id: 5 } },
        { name: 'deleteMany', namespace: 'bw1.a', filter: { _id: { $gte: 6, $lt: 8 } } },
      ],
      { verboseResults: true },
    );
    assert.equal(r.insertedCount, 1);
    assert.equal(r.matchedCount, 3);
    assert.equal(r.modifiedCount, 3);
    assert.equal(r.upsertedCount, 1);
    assert.equal(r.deletedCount, 2);
    assert.deepEqual(r.insertResults?.get(0), { insertedId: 8 });
    assert.deepEqual(r.updateResults?.get(2), {
      matchedCount: 2,
      modifiedCount: 2,
      didUpsert: false,
    });
    assert.equal(r.updateResults?.get(3)?.upsertedId, 4);
    assert.deepEqual(r.deleteResults?.get(5), { deletedCount: 1 });
    assert.deepEqual(await contents('bw1', 'a'), [
      { _id: 1, x: 12 },
      { _id: 2, x: 24 },
      { _id: 3, x: 35 },
      { _id: 8, x: 88 },
    ]);
    assert.deepEqual(await contents('bw2', 'b'), [{ _id: 4, x: 44 }]);
  });

  test('the reply is mongod’s: counts, and one cursor entry per operation', async () => {
    await reset('bw1', 'r', [{ _id: 1, v: 1 }]);
    const r = await admin().command({
      bulkWrite: 1,
      ops: [
        { insert: 0, document: { _id: 2 } },
        { update: 0, filter: { _id: 1 }, updateMods: { $set: { v: 2 } } },
        { update: 0, filter: { _id: 9 }, updateMods: { $set: { v: 9 } }, upsert: true },
        { delete: 0, filter: { _id: 2 } },
      ],
      nsInfo: [{ ns: 'bw1.r' }],
    });
    assert.deepEqual(r['cursor'], {
      id: 0,
      firstBatch: [
        { ok: 1, idx: 0, n: 1 },
        { ok: 1, idx: 1, n: 1, nModified: 1 },
        { ok: 1, idx: 2, n: 1, nModified: 0, upserted: { _id: 9 } },
        { ok: 1, idx: 3, n: 1 },
      ],
      ns: 'admin.$cmd.bulkWrite',
    });
    for (const [k, v] of Object.entries({
      nErrors: 0,
      nInserted: 1,
      nMatched: 1,
      nModified: 1,
      nUpserted: 1,
      nDeleted: 1,
      ok: 1,
    }))
      assert.equal(r[k], v, k);
  });

  test('opcounters count its operations, as mongod; explain answers NotImplemented', async () => {
    await reset('bw1', 'cnt', [{ _id: 1 }]);
    const counters = async (): Promise<Document> =>
      (await admin().command({ serverStatus: 1 }))['opcounters'] as Document;
    const before = await counters();
    await admin().command({
      bulkWrite: 1,
      ops: [
        { insert: 0, document: { _id: 2 } },
        { insert: 0, document: { _id: 3 } },
        { update: 0, filter: { _id: 1 }, updateMods: { $set: { a: 1 } } },
        { delete: 0, filter: { _id: 2 } },
      ],
      nsInfo: [{ ns: 'bw1.cnt' }],
    });
    const after = await counters();
    assert.equal(after['insert'] - before['insert'], 2);
    assert.equal(after['update'] - before['update'], 1);
    assert.equal(after['delete'] - before['delete'], 1);
    // The serverStatus between them is the only command counted.
    assert.equal(after['command'] - before['command'], 1);
    const e = await serverError(
      admin().command({
        explain: { bulkWrite: 1, ops: [{ delete: 0, filter: {} }], nsInfo: [{ ns: 'bw1.cnt' }] },
      }),
    );
    assert.equal(e.code, 238);
  });

  test('ordered stops at the first failing operation, unordered goes on', async () => {
    await reset('bw1', 'o', [{ _id: 1 }]);
    const models: ClientBulkWriteModel<Schemas>[] = [
      { name: 'insertOne' as const, namespace: 'bw1.o', document: { _id: 1 } },
      { name: 'insertOne' as const, namespace: 'bw1.o', document: { _id: 2 } },
    ];
    const ordered = await ts.client.bulkWrite<Schemas>(models).catch((e: unknown) => e);
    assert.ok(ordered instanceof MongoClientBulkWriteError);
    assert.equal(ordered.writeErrors.get(0)?.code, 11000);
    assert.equal(await ts.client.db('bw1').collection<TestDoc>('o').countDocuments(), 1);
    const unordered = await ts.client
      .bulkWrite<Schemas>(models, { ordered: false })
      .catch((e: unknown) => e);
    assert.ok(unordered instanceof MongoClientBulkWriteError);
    assert.equal(unordered.partialResult?.insertedCount, 1);
    assert.equal(await ts.client.db('bw1').collection<TestDoc>('o').countDocuments(), 2);
    // The raw entry carries the error's details (keyPattern, keyValue) and n: 0.
    const raw = await admin().command({
      bulkWrite: 1,
      ops: [{ insert: 0, document: { _id: 1 } }],
      nsInfo: [{ ns: 'bw1.o' }],
    });
    const [entry] = raw['cursor']['firstBatch'] as Document[];
    assert.equal(entry?.['ok'], 0);
    assert.equal(entry?.['code'], 11000);
    assert.deepEqual(entry?.['keyValue'], { _id: 1 });
    assert.equal(entry?.['n'], 0);
    assert.equal(raw['nErrors'], 1);
  });

  test('errorsOnly returns only the failed operations; cursor.batchSize leaves the rest to getMore', async () => {
    await reset('bw1', 'e', [{ _id: 1 }]);
    const ops = [
      { insert: 0, document: { _id: 1 } },
      { insert: 0, document: { _id: 2 } },
      { insert: 0, document: { _id: 3 } },
    ];
    const r = await admin().command({
      bulkWrite: 1,
      ops,
      nsInfo: [{ ns: 'bw1.e' }],
      ordered: false,
      errorsOnly: true,
    });
    assert.deepEqual(
      (r['cursor']['firstBatch'] as Document[]).map((d) => [d['idx'], d['code']]),
      [[0, 11000]],
    );
    assert.equal(r['nInserted'], 2);
    await reset('bw1', 'e', []);
    const first = await admin().command({
      bulkWrite: 1,
      ops,
      nsInfo: [{ ns: 'bw1.e' }],
      cursor: { batchSize: 1 },
    });
    // The driver hands back an id below 2^53 as a number; getMore needs it as a long.
    const raw = first['cursor']['id'] as Long | number;
    const id = typeof raw === 'number' ? Long.fromNumber(raw) : raw;
    assert.notEqual(id.toString(), '0');
    assert.deepEqual(
      (first['cursor']['firstBatch'] as Document[]).map((d) => d['idx']),
      [0],
    );
    const more = await admin().command({
      getMore: id,
      collection: '$cmd.bulkWrite',
      batchSize: 1,
    });
    assert.deepEqual(
      (more['cursor']['nextBatch'] as Document[]).map((d) => d['idx']),
      [1],
    );
    const killed = await admin().command({ killCursors: '$cmd.bulkWrite', cursors: [id] });
    assert.deepEqual(killed['cursorsKilled'], [id]);
  });

  test('client.bulkWrite updateOne and replaceOne with sort', async () => {
    await reset('bw1', 's', [
      { _id: 1, r: 3 },
      { _id: 2, r: 1 },
      { _id: 3, r: 2 },
    ]);
    await ts.client.bulkWrite<Schemas>([
      {
        name: 'updateOne',
        namespace: 'bw1.s',
        filter: {},
        update: { $set: { first: true } },
        sort: { r: 1 },
      },
      {
        name: 'replaceOne',
        namespace: 'bw1.s',
        filter: {},
        replacement: { r: 0 },
        sort: { r: -1 },
      },
    ]);
    assert.deepEqual(await contents('bw1', 's'), [
      { _id: 1, r: 0 },
      { _id: 2, r: 1, first: true },
      { _id: 3, r: 2 },
    ]);
  });

  test('malformed commands fail with mongod’s codes, before anything runs', async () => {
    await reset('bw1', 'bad', []);
    const nsInfo = [{ ns: 'bw1.bad' }];
    const insert = { insert: 0, document: { _id: 1 } };
    const cases: Array<[string, Document, number, string?]> = [
      ['not on admin', { bulkWrite: 1, ops: [insert], nsInfo }, 13],
      ['no ops', { bulkWrite: 1, nsInfo }, 40414],
      ['no nsInfo', { bulkWrite: 1, ops: [insert] }, 40414],
      ['empty ops', { bulkWrite: 1, ops: [], nsInfo }, 16],
      [
        'ns index out of range',
        { bulkWrite: 1, ops: [insert, { insert: 1, document: {} }], nsInfo },
        2,
      ],
      ['negative ns index', { bulkWrite: 1, ops: [{ insert: -1, document: {} }], nsInfo }, 51024],
      ['ns index not a number', { bulkWrite: 1, ops: [{ insert: 'x', document: {} }], nsInfo }, 14],
      ['unknown operation', { bulkWrite: 1, ops: [{ upsert: 0, document: {} }], nsInfo }, 40415],
      [
        'unknown op field',
        { bulkWrite: 1, ops: [{ insert: 0, document: {}, q: 1 }], nsInfo },
        40415,
      ],
      ['missing document', { bulkWrite: 1, ops: [{ insert: 0 }], nsInfo }, 40414],
      ['missing filter', { bulkWrite: 1, ops: [{ delete: 0 }], nsInfo }, 40414],
      [
        'filter not a document',
        { bulkWrite: 1, ops: [{ update: 0, filter: 1, updateMods: {} }], nsInfo },
        14,
      ],
      ['missing updateMods', { bulkWrite: 1, ops: [{ update: 0, filter: {} }], nsInfo }, 40414],
      [
        'multi not a bool',
        { bulkWrite: 1, ops: [{ delete: 0, filter: {}, multi: 1 }], nsInfo },
        14,
      ],
      ['namespace without a dot', { bulkWrite: 1, ops: [insert], nsInfo: [{ ns: 'nodot' }] }, 73],
      [
        'unknown nsInfo field',
        { bulkWrite: 1, ops: [insert], nsInfo: [{ ns: 'bw1.bad', x: 1 }] },
        40415,
      ],
      [
        'encryptionInformation',
        { bulkWrite: 1, ops: [insert], nsInfo: [{ ns: 'bw1.bad', encryptionInformation: {} }] },
        238,
      ],
      ['stmtId and stmtIds', { bulkWrite: 1, ops: [insert], nsInfo, stmtId: 0, stmtIds: [0] }, 72],
      ['stmtIds of another length', { bulkWrite: 1, ops: [insert], nsInfo, stmtIds: [0, 1] }, 16],
      ['unknown command field', { bulkWrite: 1, ops: [insert], nsInfo, foo: 1 }, 40415],
    ];
    for (const [what, cmd, code] of cases) {
      const db = what === 'not on admin' ? ts.client.db('bw1') : admin();
      const e = await serverError(db.command(cmd));
      assert.equal(e.code, code, what);
    }
    assert.equal(await ts.client.db('bw1').collection<TestDoc>('bad').countDocuments(), 0);
  });

  test('an operation that cannot run fails alone, with its own code', async () => {
    await reset('bw1', 'op', [{ _id: 1 }]);
    const wrongUuid = new Binary(Buffer.alloc(16, 7), Binary.SUBTYPE_UUID);
    const r = await admin().command({
      bulkWrite: 1,
      ordered: false,
      ops: [
        { update: 0, filter: {}, updateMods: { $set: { a: 1 } }, multi: true, sort: { _id: 1 } },
        { insert: 1, document: { _id: 2 } },
        { insert: 2, document: { _id: 3 } },
        { update: 0, filter: {}, updateMods: { $bad: 1 } },
        { insert: 0, document: { _id: 4 } },
      ],
      nsInfo: [
        { ns: 'bw1.op' },
        { ns: 'bw1.op', collectionUUID: wrongUuid },
        { ns: 'bw1.system.x' },
      ],
    });
    const batch = r['cursor']['firstBatch'] as Document[];
    assert.deepEqual(
      batch.map((d) => [d['idx'], d['ok'], d['code']]),
      [
        [0, 0, 9],
        [1, 0, 361],
        [2, 0, 73],
        [3, 0, 9],
        [4, 1, undefined],
      ],
    );
    assert.equal(batch[1]?.['expectedCollection'], 'op');
    assert.equal(batch[0]?.['nModified'], 0);
    assert.equal(r['nErrors'], 4);
    assert.deepEqual(await contents('bw1', 'op'), [{ _id: 1 }, { _id: 4 }]);
  });

  test('past 16 MiB of results the next operation fails with ExceededMemoryLimit and the batch stops', async () => {
    // Each failing insert's error quotes its 200 kB duplicate key: about 85 fill the cap.
    const id = 'k'.repeat(200_000);
    await reset('bw1', 'cap', [{ _id: id }]);
    const models: ClientBulkWriteModel<Schemas>[] = Array.from({ length: 100 }, () => ({
      name: 'insertOne' as const,
      namespace: 'bw1.cap',
      document: { _id: id },
    }));
    const e = await ts.client
      .bulkWrite<Schemas>(models, { ordered: false })
      .catch((x: unknown) => x);
    assert.ok(e instanceof MongoClientBulkWriteError);
    const codes = [...e.writeErrors.values()].map((w) => w.code);
    assert.ok(codes.length > 10 && codes.length < 100, `${codes.length} errors`);
    assert.equal(codes.at(-1), 146);
    assert.ok(codes.slice(0, -1).every((c) => c === 11000));
  });

  test('a retried retryable bulkWrite replays its results and writes nothing again', async () => {
    await reset('bw1', 'rt', [{ _id: 1, n: 0 }]);
    const session = ts.client.startSession();
    try {
      const cmd = {
        bulkWrite: 1,
        ops: [
          { update: 0, filter: { _id: 1 }, updateMods: { $inc: { n: 1 } } },
          { insert: 0, document: { _id: 2 } },
          { update: 0, filter: { _id: 3 }, updateMods: { $set: { u: 1 } }, upsert: true },
        ],
        nsInfo: [{ ns: 'bw1.rt' }],
        lsid: session.id,
        txnNumber: Long.fromNumber(7),
      };
      const first = await admin().command(cmd, { session: undefined });
      assert.equal(first['retriedStmtIds'], undefined);
      const again = await admin().command(cmd, { session: undefined });
      assert.deepEqual(again['retriedStmtIds'], [0, 1, 2]);
      assert.deepEqual(again['cursor']['firstBatch'], first['cursor']['firstBatch']);
      assert.equal(again['nUpserted'], 1);
      assert.deepEqual(await contents('bw1', 'rt'), [
        { _id: 1, n: 1 },
        { _id: 2 },
        { _id: 3, u: 1 },
      ]);
      // A multi update or delete cannot be part of a retryable write.
      const multi = await admin().command(
        {
          bulkWrite: 1,
          ops: [{ delete: 0, filter: {}, multi: true }],
          nsInfo: [{ ns: 'bw1.rt' }],
          lsid: session.id,
          txnNumber: Long.fromNumber(8),
        },
        { session: undefined },
      );
      assert.equal(multi['cursor']['firstBatch'][0].code, 72);
      assert.equal(await ts.client.db('bw1').collection<TestDoc>('rt').countDocuments(), 3);
    } finally {
      await session.endSession();
    }
  });

  test('inside a transaction: nothing is seen until commit, and abort discards it', async () => {
    await reset('bw1', 'tx', [{ _id: 1 }]);
    const session = ts.client.startSession();
    try {
      session.startTransaction();
      await ts.client.bulkWrite<Schemas>(
        [
          { name: 'insertOne', namespace: 'bw1.tx', document: { _id: 2 } },
          { name: 'insertOne', namespace: 'bw1.txnew', document: { _id: 1 } },
          { name: 'deleteOne', namespace: 'bw1.tx', filter: { _id: 1 } },
        ],
        { session },
      );
      assert.deepEqual(await contents('bw1', 'tx'), [{ _id: 1 }]);
      await session.abortTransaction();
      assert.deepEqual(await contents('bw1', 'tx'), [{ _id: 1 }]);
      assert.deepEqual(await contents('bw1', 'txnew'), []);
      session.startTransaction();
      await ts.client.bulkWrite<Schemas>(
        [
          {
            name: 'updateOne',
            namespace: 'bw1.tx',
            filter: { _id: 1 },
            update: { $set: { c: 1 } },
          },
        ],
        { session },
      );
      await session.commitTransaction();
      assert.deepEqual(await contents('bw1', 'tx'), [{ _id: 1, c: 1 }]);
    } finally {
      await session.endSession();
    }
  });
});
