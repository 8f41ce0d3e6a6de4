// Documents near the 16 MiB limit through the driver: stored and read back exactly, multi-byte
// UTF-8 included, while the frame reader takes each message in hundreds of socket reads and
// the decoder skips its per-string UTF-8 check for bytes that are UTF-8 throughout. A string
// that is not UTF-8 is still refused (bad-input.test.ts runs the BSON corpus's cases).

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { BSON, Binary } from 'mongodb';
import type { Collection } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

interface Big {
  _id: string;
  s: string;
  b?: Binary;
}

describe('documents near 16 MiB', () => {
  let ts: TestServer;
  let coll: Collection<Big>;
  before(async () => {
    ts = await startTestServer();
    coll = ts.client.db('large_documents').collection<Big>('docs');
  });
  after(async () => {
    await ts.stop();
  });

  // 'aé😀' is 1 + 2 + 4 bytes of UTF-8; 2.3M repetitions is ~16.1 MB with the rest.
  const text = 'aé😀'.repeat(2_300_000);

  test('a 16 MB multi-byte string is stored and read back exactly', async () => {
    await coll.insertOne({ _id: 'utf8', s: text });
    const back = await coll.findOne({ _id: 'utf8' });
    assert.equal(back?.s.length, text.length);
    assert.ok(back?.s === text, 'the same string');
  });

  // The driver sends an insert's documents in the command body, beside the session id (a
  // UUID: bytes that are not UTF-8). They are stored as the bytes they came in: the client's
  // field order is kept even for names that are array indexes, which a decoded JS object
  // lists first, and the stored document is what was sent.
  test("a document in an insert's body is stored as it was sent, in its field order", async () => {
    // A Map keeps "1" last when the driver encodes it (a JS object would list it first).
    const sent = new Map<string, unknown>([
      ['_id', 'order'],
      ['b', 1],
      ['1', 2],
      ['s', text.slice(0, 1000)],
    ]);
    const raw = coll.db.collection<{ _id: string }>('order_raw');
    await raw.insertOne(sent as unknown as { _id: string }, { forceServerObjectId: true });
    const back = await raw.findOne({ _id: 'order' }, { raw: true });
    assert.ok(back !== null);
    assert.deepEqual(
      Buffer.from(back as unknown as Uint8Array),
      Buffer.from(BSON.serialize(sent)),
      'the stored bytes are the sent bytes, "1" after "b"',
    );
  });

  test('beside binary data that is not UTF-8, replaced, then projected', async () => {
    const b = new Binary(Buffer.from([0xff, 0xfe, 0x80, 0xc3]));
    await coll.insertOne({ _id: 'mixed', s: 'x', b });
    await coll.replaceOne({ _id: 'mixed' }, { s: text, b });
    const back = await coll.findOne({ _id: 'mixed' });
    assert.ok(back?.s === text, 'the same string');
    assert.deepEqual(Buffer.from(back?.b?.buffer ?? []), Buffer.from([0xff, 0xfe, 0x80, 0xc3]));
    const projected = await coll.findOne({ _id: 'mixed' }, { projection: { s: 0 } });
    assert.deepEqual(Object.keys(projected ?? {}), ['_id', 'b']);
  });
});
