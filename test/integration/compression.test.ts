// Wire compression end to end: hello's negotiation as mongod's, the official driver talking
// zlib / snappy / zstd (its requests arrive compressed and its replies go back compressed, as
// serverStatus' network.compression counters show), replies in the request's compressor and
// never compressed for hello / SASL, and malformed OP_COMPRESSED frames closing only their
// own connection with nothing stored changed.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { deserialize } from 'bson';
import type { Collection, Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { driverCompressors } from '../helpers/compressors.js';
import { opMsg, RawConnection } from '../helpers/wire-client.js';
import { unharmed } from '../helpers/unharmed.js';
import type { TestDoc } from '../helpers/driver.js';
import { availableCodecs } from '../../src/wire/compression.js';

const compressors = await driverCompressors();
const codecs = await availableCodecs();

/** An OP_COMPRESSED frame around an OP_MSG body, with any claim and payload. */
function compressedFrame(o: {
  claimed: number;
  id: number;
  payload: Buffer;
  originalOpCode?: number;
}): Buffer {
  const f = Buffer.alloc(25 + o.payload.length);
  f.writeInt32LE(f.length, 0);
  f.writeInt32LE(4242, 4);
  f.writeInt32LE(0, 8);
  f.writeInt32LE(2012, 12);
  f.writeInt32LE(o.originalOpCode ?? 2013, 16);
  f.writeInt32LE(o.claimed, 20);
  f[24] = o.id;
  o.payload.copy(f, 25);
  return f;
}

/** A well-formed compressed OP_MSG for `body`, by the server's own codec. */
async function compressedCommand(
  body: Document,
  name: 'zlib' | 'snappy' | 'zstd' | 'noop',
): Promise<Buffer> {
  const codec = codecs.get(name);
  assert.ok(codec !== undefined);
  const msg = opMsg(body).subarray(16);
  return compressedFrame({ claimed: msg.length, id: codec.id, payload: await codec.compress(msg) });
}

/** Inflate a reply frame the test received (OP_COMPRESSED or plain) to its OP_MSG body. */
async function replyBody(
  frame: Buffer,
): Promise<{ opCode: number; compressorId?: number; body: Document }> {
  const opCode = frame.readInt32LE(12);
  if (opCode !== 2012) return { opCode, body: deserialize(frame.subarray(21)) };
  const id = frame[24] as number;
  const codec = [...codecs.values()].find((c) => c.id === id);
  assert.ok(codec !== undefined, `reply compressor ${id}`);
  const inner = await codec.decompress(frame.subarray(25), frame.readInt32LE(20));
  return { opCode, compressorId: id, body: deserialize(inner.subarray(5)) };
}

describe('wire compression', () => {
  let ts: TestServer;
  let coll: Collection<TestDoc>;
  const seed = [
    { _id: 1, a: 'keep' },
    { _id: 2, a: 'me' },
  ];

  before(async () => {
    ts = await startTestServer();
    coll = ts.client.db('safe').collection<TestDoc>('c');
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

  async function counters(name: string): Promise<{ in: number; out: number }> {
    const s = await ts.client.db('admin').command({ serverStatus: 1 });
    const c = s['network']['compression'][name];
    return { in: Number(c.decompressor.bytesIn), out: Number(c.compressor.bytesOut) };
  }

  test('hello negotiates in the client order, drops unknown names, repeats the result', async () => {
    const c = await RawConnection.connect(ts.server.port);
    const hello = async (extra: Document): Promise<Document> => {
      c.send(opMsg({ hello: 1, $db: 'admin', ...extra }));
      const r = await c.next();
      assert.equal(r.kind, 'reply');
      return r.kind === 'reply' ? r.body : {};
    };
    const offered = ['lz4', 'zlib', ...(codecs.has('zstd') ? ['zstd'] : []), 'noop'];
    const expected = ['zlib', ...(codecs.has('zstd') ? ['zstd'] : [])];
    assert.deepEqual((await hello({ compression: offered }))['compression'], expected);
    assert.deepEqual((await hello({}))['compression'], expected, 'repeated without the field');
    assert.equal(
      (await hello({ compression: [] }))['compression'],
      undefined,
      'renegotiated to none',
    );
    assert.equal((await hello({ compression: ['lz4'] }))['compression'], undefined);
    const bad = await hello({ compression: ['zlib', 3] });
    assert.equal(bad['ok'], 0);
    assert.equal(bad['code'], 14);
    c.close();
  });

  test('a compressed request gets a reply in its compressor; hello and saslStart replies stay plain', async () => {
    const c = await RawConnection.connect(ts.server.port);
    for (const name of ['zlib', 'snappy', 'zstd'] as const) {
      if (!codecs.has(name)) continue;
      c.send(await compressedCommand({ ping: 1, $db: 'admin' }, name));
      const frame = await c.nextFrame();
      assert.notEqual(frame, 'closed');
      if (frame === 'closed') return;
      const r = await replyBody(frame);
      assert.equal(r.opCode, 2012, `${name}: reply is OP_COMPRESSED`);
      assert.equal(r.compressorId, codecs.get(name)?.id);
      assert.equal(r.body['ok'], 1);
    }
    for (const cmd of [
      { hello: 1 },
      { isMaster: 1 },
      { saslStart: 1, mechanism: 'PLAIN', payload: '' },
    ]) {
      c.send(await compressedCommand({ ...cmd, $db: 'admin' }, 'zlib'));
      const frame = await c.nextFrame();
      assert.notEqual(frame, 'closed');
      if (frame === 'closed') return;
      assert.equal(frame.readInt32LE(12), 2013, `${Object.keys(cmd)[0]}: reply not compressed`);
    }
    c.close();
  });

  for (const [name, why] of compressors) {
    test(
      `the driver with compressors=${name} runs CRUD, both directions compressed`,
      { skip: why === '' ? false : why },
      async () => {
        const before = await counters(name);
        const client: MongoClient = await ts.newClient({ compressors: [name] });
        const c = client.db('z').collection<TestDoc>(name);
        await c.insertMany(
          Array.from({ length: 500 }, (_, i) => ({ _id: i, s: 'text '.repeat(40), i })),
        );
        assert.equal(await c.countDocuments({ i: { $gte: 100 } }), 400);
        await c.updateMany({ i: { $lt: 10 } }, { $set: { small: true } });
        assert.equal((await c.find({ small: true }).toArray()).length, 10);
        const all = await c.find({}, { batchSize: 50 }).sort({ _id: -1 }).toArray();
        assert.equal(all.length, 500);
        assert.equal(all[0]?.['_id'], 499);
        await c.deleteMany({ i: { $gte: 250 } });
        assert.equal(await c.estimatedDocumentCount(), 250);
        const after = await counters(name);
        assert.ok(after.in > before.in, `${name} requests arrived compressed`);
        assert.ok(after.out > before.out, `${name} replies went back compressed`);
        await client.close();
      },
    );
  }

  const insert = (): Buffer =>
    opMsg({ insert: 'c', documents: [{ _id: 99, a: 'evil' }], $db: 'safe' }).subarray(16);

  test('a compressor id the server does not run closes the connection', async () => {
    const body = insert();
    await expectClosed(compressedFrame({ claimed: body.length, id: 7, payload: body }));
    await expectClosed(compressedFrame({ claimed: body.length, id: 0, payload: body })); // noop: not enabled
  });

  test('lying sizes close the connection: claim larger, smaller, negative, past the limit', async () => {
    const body = insert();
    const packed = deflateSync(body);
    await expectClosed(compressedFrame({ claimed: body.length + 1, id: 2, payload: packed }));
    await expectClosed(compressedFrame({ claimed: body.length - 1, id: 2, payload: packed }));
    await expectClosed(compressedFrame({ claimed: -5, id: 2, payload: packed }));
    await expectClosed(compressedFrame({ claimed: 48_000_000, id: 2, payload: packed }));
  });

  test('a truncated or corrupt payload closes the connection', async () => {
    const body = insert();
    const packed = deflateSync(body);
    await expectClosed(
      compressedFrame({ claimed: body.length, id: 2, payload: packed.subarray(0, 10) }),
    );
    const corrupt = Buffer.from(packed);
    corrupt.fill(0x42, 4);
    await expectClosed(compressedFrame({ claimed: body.length, id: 2, payload: corrupt }));
    if (codecs.has('zstd'))
      await expectClosed(
        compressedFrame({
          claimed: 40_000_000,
          id: 3,
          payload: Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0]),
        }),
      );
    if (codecs.has('snappy'))
      await expectClosed(
        compressedFrame({
          claimed: 40_000_000,
          id: 1,
          payload: Buffer.from([0x80, 0xb4, 0x89, 0x13, 0]),
        }),
      );
  });

  test('a decompression bomb closes the connection (inflating stops at the claim)', async () => {
    const bomb = deflateSync(Buffer.alloc(64 * 1024 * 1024));
    await expectClosed(compressedFrame({ claimed: 1_000_000, id: 2, payload: bomb }));
  });

  test('OP_COMPRESSED wrapping OP_COMPRESSED, or an unknown opcode, closes the connection', async () => {
    const body = insert();
    const inner = compressedFrame({
      claimed: body.length,
      id: 2,
      payload: deflateSync(body),
    }).subarray(16);
    await expectClosed(
      compressedFrame({
        claimed: inner.length,
        id: 2,
        payload: deflateSync(inner),
        originalOpCode: 2012,
      }),
    );
    await expectClosed(
      compressedFrame({
        claimed: body.length,
        id: 2,
        payload: deflateSync(body),
        originalOpCode: 2002,
      }),
    );
  });

  test('a compressed request carrying invalid BSON gets InvalidBSON, compressed, and the connection stays', async () => {
    const broken = Buffer.concat([
      Buffer.alloc(4),
      Buffer.from([0]),
      Buffer.from([9, 0, 0, 0, 0x7f, 0, 0, 0, 0]),
    ]);
    const c = await RawConnection.connect(ts.server.port);
    c.send(compressedFrame({ claimed: broken.length, id: 2, payload: deflateSync(broken) }));
    const frame = await c.nextFrame();
    assert.notEqual(frame, 'closed');
    if (frame !== 'closed') {
      const r = await replyBody(frame);
      assert.equal(r.opCode, 2012);
      assert.equal(r.body['code'], 22);
    }
    c.send(await compressedCommand({ ping: 1, $db: 'admin' }, 'zlib'));
    assert.notEqual(await c.nextFrame(), 'closed');
    c.close();
    await othersUnaffected();
  });
});

describe('--networkMessageCompressors', () => {
  test('disabled: hello offers nothing and a compressed request closes the connection', async () => {
    const ts = await startTestServer({ networkMessageCompressors: 'disabled' });
    try {
      const r = await ts.client
        .db('admin')
        .command({ hello: 1, compression: ['zlib', 'snappy', 'zstd'] });
      assert.equal(r['compression'], undefined);
      const c = await RawConnection.connect(ts.server.port);
      c.send(await compressedCommand({ ping: 1, $db: 'admin' }, 'zlib'));
      assert.equal((await c.next()).kind, 'closed');
      c.close();
      const s = await ts.client.db('admin').command({ serverStatus: 1 });
      assert.deepEqual(s['network']['compression'], {});
    } finally {
      await ts.stop();
    }
  });

  test('a list keeps what is named, in the client order; a driver asking for another runs plain', async () => {
    const ts = await startTestServer({ networkMessageCompressors: 'zlib' });
    try {
      const r = await ts.client.db('admin').command({ hello: 1, compression: ['snappy', 'zlib'] });
      assert.deepEqual(r['compression'], ['zlib']);
      const snappyOnly = compressors.find(([n, why]) => n === 'snappy' && why === '');
      if (snappyOnly !== undefined) {
        const client = await ts.newClient({ compressors: ['snappy'] });
        assert.equal((await client.db('admin').command({ ping: 1 }))['ok'], 1);
      }
    } finally {
      await ts.stop();
    }
  });

  test('an unknown name is a startup error', async () => {
    await assert.rejects(
      startTestServer({ networkMessageCompressors: 'zlib,lz4' }),
      /Invalid network message compressor specified in configuration: lz4/,
    );
  });
});
