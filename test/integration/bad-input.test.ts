// Hostile and malformed input: each case gets MongoDB's error (or its connection closed, for
// framing faults), while another client keeps working and no stored data changes.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { serialize } from 'bson';
import type { Collection, Document } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { opMsg, opMsgRaw, RawConnection } from '../helpers/wire-client.js';
import { specsDir, specsMissing } from '../helpers/specs.js';
import { unharmed } from '../helpers/unharmed.js';
import type { TestDoc } from '../helpers/driver.js';

const corpusDir = specsDir('bson-corpus');

describe('bad input', () => {
  let ts: TestServer;
  let coll: Collection<TestDoc>;
  const seed = [
    { _id: 1, a: 'keep' },
    { _id: 2, a: 'me' },
  ];

  before(async () => {
    ts = await startTestServer();
    coll = ts.client.db('safe').collection('c');
    await coll.insertMany(seed);
  });
  after(async () => {
    await ts.stop();
  });

  const { othersUnaffected, expectClosed } = unharmed(
    () => ts,
    () => coll,
    seed,
  );

  test('a well-formed raw OP_MSG gets a reply (the harness itself works)', async () => {
    const c = await RawConnection.connect(ts.server.port);
    c.send(opMsg({ ping: 1, $db: 'admin' }));
    const r = await c.next();
    assert.equal(r.kind, 'reply');
    if (r.kind === 'reply') assert.equal(r.body['ok'], 1);
    c.close();
  });

  test('message length below 16 closes the connection', async () => {
    const b = Buffer.alloc(16);
    b.writeInt32LE(8, 0);
    await expectClosed(b);
  });

  test('message length above 48,000,000 closes the connection before buffering', async () => {
    const b = Buffer.alloc(16);
    b.writeInt32LE(48_000_001, 0);
    b.writeInt32LE(2013, 12);
    await expectClosed(b);
    const neg = Buffer.alloc(16);
    neg.writeInt32LE(-1, 0);
    await expectClosed(neg);
  });

  test('unknown opcode closes the connection', async () => {
    const body = serialize({ ping: 1, $db: 'admin' });
    await expectClosed(opMsgRaw(Buffer.concat([Buffer.from([0]), body]), 0, 9999));
    await expectClosed(opMsgRaw(Buffer.concat([Buffer.from([0]), body]), 0, 2002)); // OP_INSERT, removed in 6.0
  });

  test('OP_MSG with two body sections closes the connection', async () => {
    const body = serialize({ ping: 1, $db: 'admin' });
    await expectClosed(opMsgRaw(Buffer.concat([Buffer.from([0]), body, Buffer.from([0]), body])));
  });

  test('OP_MSG with an unknown required flag bit closes the connection', async () => {
    const body = serialize({ ping: 1, $db: 'admin' });
    await expectClosed(opMsgRaw(Buffer.concat([Buffer.from([0]), body]), 1 << 2));
  });

  test('OP_MSG with an unknown section kind closes the connection', async () => {
    const body = serialize({ ping: 1, $db: 'admin' });
    await expectClosed(opMsgRaw(Buffer.concat([Buffer.from([7]), body])));
  });

  test('checksum: a correct CRC-32C is accepted, a wrong one closes the connection', async () => {
    const body = serialize({ ping: 1, $db: 'admin' });
    const unsummed = opMsgRaw(Buffer.concat([Buffer.from([0]), body, Buffer.alloc(4)]), 1);
    const sum = crc32c(unsummed.subarray(0, unsummed.length - 4));
    unsummed.writeUInt32LE(sum, unsummed.length - 4);
    const c = await RawConnection.connect(ts.server.port);
    c.send(unsummed);
    const ok = await c.next();
    assert.equal(ok.kind, 'reply');
    c.close();
    const bad = Buffer.from(unsummed);
    bad.writeUInt32LE((sum ^ 1) >>> 0, bad.length - 4);
    await expectClosed(bad);
  });

  test('a truncated frame gets no reply and does not disturb others', async () => {
    const full = opMsg({ ping: 1, $db: 'admin' });
    const c = await RawConnection.connect(ts.server.port);
    c.send(full.subarray(0, full.length - 5));
    await assert.rejects(c.next(300), /no reply/);
    c.close();
    await othersUnaffected();
  });

  test('every decodeErrors case of the BSON corpus is refused with InvalidBSON (22) or a closed connection', async (t) => {
    if (corpusDir === undefined) {
      t.skip(specsMissing('bson-corpus'));
      return;
    }
    const files = readdirSync(corpusDir).filter((f) => f.endsWith('.json'));
    let cases = 0;
    const c = await RawConnection.connect(ts.server.port);
    let conn = c;
    for (const f of files) {
      const spec = JSON.parse(readFileSync(join(corpusDir, f), 'utf8')) as {
        decodeErrors?: Array<{ description: string; bson: string }>;
      };
      for (const dc of spec.decodeErrors ?? []) {
        cases++;
        conn.send(opMsgRaw(Buffer.concat([Buffer.from([0]), Buffer.from(dc.bson, 'hex')])));
        const r = await conn.next();
        if (r.kind === 'closed') {
          conn = await RawConnection.connect(ts.server.port);
          continue;
        }
        assert.equal(r.body['ok'], 0, `${f}: ${dc.description}`);
        assert.equal(r.body['code'], 22, `${f}: ${dc.description}: ${String(r.body['errmsg'])}`);
      }
    }
    conn.close();
    assert.ok(cases >= 70, `ran ${cases} decodeErrors cases`);
    await othersUnaffected();
  });

  test('a document over 16 MiB is refused (BadValue) and nothing is stored', async () => {
    const big = { _id: 'big', s: 'x'.repeat(16 * 1024 * 1024) };
    const doc = serialize(big);
    const seq = Buffer.concat([Buffer.from('documents\0'), doc]);
    const seqLen = Buffer.alloc(4);
    seqLen.writeInt32LE(4 + seq.length);
    const body = serialize({ insert: 'c', $db: 'safe' });
    const c = await RawConnection.connect(ts.server.port);
    c.send(opMsgRaw(Buffer.concat([Buffer.from([0]), body, Buffer.from([1]), seqLen, seq])));
    const r = await c.next(20000);
    assert.equal(r.kind, 'reply');
    if (r.kind === 'reply') {
      const errs = r.body['writeErrors'] as Document[] | undefined;
      assert.equal(r.body['n'], 0);
      assert.equal(errs?.[0]?.['code'], 2);
    }
    c.close();
    await othersUnaffected();
  });

  test('a document nested deeper than 100 levels is refused (Overflow)', async () => {
    let deep: Document = { leaf: 1 };
    for (let i = 0; i < 120; i++) deep = { d: deep };
    const r = await ts.client
      .db('safe')
      .command({ insert: 'c', documents: [{ _id: 'deep', deep }] });
    assert.equal(r['n'], 0);
    assert.equal(r['writeErrors'][0]['code'], 15);
    await othersUnaffected();
  });

  test("a document nested deeper than 100 levels is refused with mongod's insert wording", async () => {
    let deep: Document = { leaf: 1 };
    for (let i = 0; i < 120; i++) deep = { d: deep };
    const r = await ts.client
      .db('safe')
      .command({ insert: 'c', documents: [{ _id: 'deep2', deep }] });
    assert.equal(
      r['writeErrors'][0]['errmsg'],
      'cannot insert document because it exceeds 100 levels of nesting',
    );
  });

  test('a command is refused as mongod validates messages: a document or array inside more than 200 others (maxBSONDepth)', async () => {
    // The find body is level 1 and its filter level 2: a filter of n nested documents reaches level n + 1.
    const filterOfDepth = (n: number): Document => {
      let f: Document = { a: 1 };
      for (let i = 1; i < n; i++) f = { a: f };
      return f;
    };
    const ok = await ts.client.db('safe').command({ find: 'c', filter: filterOfDepth(200) });
    assert.equal(ok['ok'], 1);
    await assert.rejects(
      ts.client.db('safe').command({ find: 'c', filter: filterOfDepth(201) }),
      (e: unknown) => {
        assert.ok(e instanceof MongoServerError);
        assert.equal(e.code, 15);
        assert.equal(e.message, 'BSONObj exceeded maximum nested object depth: 200');
        return true;
      },
    );
    await othersUnaffected();
  });

  test('a command nested past the command depth limit is refused, not a crash', async () => {
    let deep: Document = { a: 1 };
    for (let i = 0; i < 190; i++) deep = { $and: [deep] };
    await assert.rejects(
      ts.client.db('safe').command({ find: 'c', filter: deep }),
      (e: unknown) => e instanceof MongoServerError,
    );
    await othersUnaffected();
  });

  test('OP_MSG without $db is refused (40571)', async () => {
    const c = await RawConnection.connect(ts.server.port);
    c.send(opMsg({ ping: 1 }));
    const r = await c.next();
    assert.equal(r.kind, 'reply');
    if (r.kind === 'reply') assert.equal(r.body['code'], 40571);
    c.close();
  });

  test('OP_QUERY for anything but hello gets UnsupportedOpQueryCommand', async () => {
    const q = serialize({ find: 'c' });
    const name = Buffer.from('safe.$cmd\0');
    const len = 16 + 4 + name.length + 8 + q.length;
    const b = Buffer.alloc(len);
    b.writeInt32LE(len, 0);
    b.writeInt32LE(77, 4);
    b.writeInt32LE(2004, 12);
    name.copy(b, 20);
    b.writeInt32LE(0, 20 + name.length);
    b.writeInt32LE(-1, 24 + name.length);
    b.set(q, 28 + name.length);
    const c = await RawConnection.connect(ts.server.port);
    c.send(b);
    const r = await c.next();
    assert.equal(r.kind, 'reply');
    if (r.kind === 'reply') {
      assert.equal(r.opCode, 1);
      assert.equal(r.body['code'], 352);
    }
    c.close();
  });
});
