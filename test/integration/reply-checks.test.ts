// Replies are checked like inputs, and a command naming a field twice is refused (40413):
// each bad case gets mongod's error, the connection stays open, another client keeps
// working, and nothing stored changes.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { serialize } from 'bson';
import type { Collection, Document } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { opMsgRaw, RawConnection } from '../helpers/wire-client.js';
import type { TestDoc } from '../helpers/driver.js';

/** A command body with the fields in this order, duplicates kept (a JS object cannot hold them). */
function bodyWithFields(fields: ReadonlyArray<readonly [string, unknown]>): Buffer {
  const parts = fields.map(([k, v]) => {
    const one = serialize({ [k]: v });
    return one.subarray(4, one.length - 1);
  });
  const inner = Buffer.concat(parts);
  const doc = Buffer.alloc(4 + inner.length + 1);
  doc.writeInt32LE(doc.length, 0);
  inner.copy(doc, 4);
  return Buffer.concat([Buffer.from([0]), doc]);
}

async function expectError(p: Promise<unknown>, code: number, message?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof MongoServerError, String(e));
    assert.equal(e.code, code, e.message);
    if (message !== undefined) assert.match(e.message, message);
    return true;
  });
}

describe('replies are checked like inputs', () => {
  let ts: TestServer;
  let coll: Collection<TestDoc>;
  const seed = [
    { _id: 1, a: 'keep' },
    { _id: 2, a: 'me' },
  ];

  before(async () => {
    ts = await startTestServer({ replSet: '' });
    coll = ts.client.db('rc').collection<TestDoc>('c');
    await coll.insertMany(seed);
  });
  after(async () => {
    await ts.stop();
  });

  async function othersUnaffected(): Promise<void> {
    assert.deepEqual(await coll.find().sort({ _id: 1 }).toArray(), seed, 'stored data unchanged');
    const other = await ts.newClient();
    assert.equal((await other.db('admin').command({ ping: 1 }))['ok'], 1);
  }

  const nest = (levels: number): Document[] => [
    {
      $project: {
        x: {
          $reduce: { input: { $range: [0, levels] }, initialValue: 1, in: { a: '$$value' } },
        },
      },
    },
  ];

  test('a result nested past 200 levels is Overflow, and the same client goes on', async () => {
    await expectError(
      coll.aggregate(nest(250)).toArray(),
      15,
      /exceeds the limit of 200 levels of nesting/,
    );
    // 198 levels of {a: ...} under x, x under the document: 200 in all, as mongod allows.
    const ok = await coll.aggregate([{ $limit: 1 }, ...nest(198)]).toArray();
    assert.equal(ok.length, 1);
    await expectError(coll.aggregate([{ $limit: 1 }, ...nest(199)]).toArray(), 15);
    await othersUnaffected();
  });

  test('a 100,000-level result is refused without exhausting the stack', async () => {
    await expectError(coll.aggregate([{ $limit: 1 }, ...nest(100_000)]).toArray(), 15);
    await othersUnaffected();
  });

  test('a result larger than 16 MiB + 16 KiB is BSONObjectTooLarge', async () => {
    const big = [
      { $limit: 1 },
      {
        $project: {
          s: {
            $reduce: {
              input: { $range: [0, 23] },
              initialValue: 'abc', // 3 x 2^23 bytes: 24 MiB
              in: { $concat: ['$$value', '$$value'] },
            },
          },
        },
      },
    ];
    await expectError(
      coll.aggregate(big).toArray(),
      10334,
      /^BSONObj size: \d+ \(0x[0-9A-F]+\) is invalid\. Size must be between 0 and 16793600\(16MB\) First element: _id: 1$/,
    );
    await othersUnaffected();
  });

  test('a NUL in a field name made by $setField: an error reply, not a closed connection', async () => {
    const nul = { $replaceWith: { $setField: { field: 'a\u0000b', input: '$$ROOT', value: 1 } } };
    await expectError(coll.aggregate([nul]).toArray(), 2, /embedded null byte/);
    await expectError(
      coll
        .find({}, { projection: { x: { $setField: { field: 'a\u0000b', input: {}, value: 1 } } } })
        .toArray(),
      2,
    );
    // Into $merge and an update: a validation error, nothing written.
    await expectError(coll.aggregate([nul, { $merge: { into: 'merged' } }]).toArray(), 2);
    assert.equal(await ts.client.db('rc').collection('merged').countDocuments(), 0);
    await assert.rejects(
      coll.updateOne({ _id: 1 }, [nul]),
      (e: unknown) => e instanceof MongoServerError && e.code === 2,
    );
    await othersUnaffected();
  });
});

describe('duplicate top-level command fields', () => {
  let ts: TestServer;
  let coll: Collection<TestDoc>;

  before(async () => {
    ts = await startTestServer({ replSet: '' });
    coll = ts.client.db('dup').collection<TestDoc>('c');
    await coll.insertOne({ _id: 1, a: 1 });
  });
  after(async () => {
    await ts.stop();
  });

  async function send(fields: ReadonlyArray<readonly [string, unknown]>): Promise<Document> {
    const c = await RawConnection.connect(ts.server.port);
    try {
      c.send(opMsgRaw(bodyWithFields(fields)));
      const r = await c.next();
      assert.equal(r.kind, 'reply', 'the connection stays open and answers');
      // Still serving on the same connection.
      c.send(
        opMsgRaw(
          bodyWithFields([
            ['ping', 1],
            ['$db', 'admin'],
          ]),
        ),
      );
      const p = await c.next();
      assert.equal(p.kind === 'reply' && p.body['ok'], 1);
      return r.kind === 'reply' ? r.body : {};
    } finally {
      c.close();
    }
  }

  const cases: Array<{ name: string; fields: Array<[string, unknown]>; path: string }> = [
    {
      name: 'a command argument (insert documents)',
      fields: [
        ['insert', 'c'],
        ['documents', [{ _id: 2 }]],
        ['documents', [{ _id: 3 }]],
        ['$db', 'dup'],
      ],
      path: 'insert.documents',
    },
    {
      name: 'a filter given twice (find)',
      fields: [
        ['find', 'c'],
        ['filter', { a: 1 }],
        ['filter', { a: 2 }],
        ['$db', 'dup'],
      ],
      path: 'find.filter',
    },
    {
      name: '$db twice',
      fields: [
        ['delete', 'c'],
        ['deletes', [{ q: {}, limit: 0 }]],
        ['$db', 'other'],
        ['$db', 'dup'],
      ],
      path: 'delete.$db',
    },
    {
      name: 'the command name twice',
      fields: [
        ['drop', 'x'],
        ['drop', 'c'],
        ['$db', 'dup'],
      ],
      path: 'drop.drop',
    },
  ];
  for (const c of cases) {
    test(`${c.name} is refused with 40413, nothing done`, async () => {
      const r = await send(c.fields);
      assert.equal(r['ok'], 0);
      assert.equal(r['code'], 40413);
      assert.equal(r['errmsg'], `BSON field '${c.path}' is a duplicate field`);
      assert.deepEqual(await coll.find().toArray(), [{ _id: 1, a: 1 }], 'nothing stored changed');
    });
  }

  test('the same names once each run normally (the encoding of the test is sound)', async () => {
    const r = await send([
      ['find', 'c'],
      ['filter', { a: 1 }],
      ['$db', 'dup'],
    ]);
    assert.equal(r['ok'], 1);
    const cursor = r['cursor'] as { firstBatch: unknown[] };
    assert.deepEqual(cursor.firstBatch, [{ _id: 1, a: 1 }]);
  });
});
