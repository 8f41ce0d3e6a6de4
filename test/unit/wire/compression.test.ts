// OP_COMPRESSED codecs and frame checks: round trips for every compressor, and every fault
// (unknown compressor, lying or oversized claims, truncated or corrupt payloads, bombs)
// refused as a ProtocolError — the bounded ones before the decoder runs at all.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import {
  availableCodecs,
  CompressorConfigError,
  CompressorSet,
  compressMessage,
  decompressMessage,
  resolveCompressors,
  snappyPreamble,
  zstdMaxDecompressedBytes,
} from '../../../src/wire/compression.js';
import type { CompressorName, MessageCodec } from '../../../src/wire/compression.js';
import { OpCode, ProtocolError } from '../../../src/wire/opcodes.js';
import { limits } from '../../../src/limits.js';

const codecs = await availableCodecs();

/** A message as the wire has it: 16-byte header then the body. */
function message(body: Buffer, opCode: number = OpCode.msg): Buffer {
  const m = Buffer.alloc(16 + body.length);
  m.writeInt32LE(m.length, 0);
  m.writeInt32LE(77, 4);
  m.writeInt32LE(5, 8);
  m.writeInt32LE(opCode, 12);
  body.copy(m, 16);
  return m;
}

/** An OP_COMPRESSED frame with an arbitrary prefix and payload. */
function frame(originalOpCode: number, claimed: number, id: number, payload: Buffer): Buffer {
  const f = Buffer.alloc(16 + 9 + payload.length);
  f.writeInt32LE(f.length, 0);
  f.writeInt32LE(77, 4);
  f.writeInt32LE(0, 8);
  f.writeInt32LE(OpCode.compressed, 12);
  f.writeInt32LE(originalOpCode, 16);
  f.writeInt32LE(claimed, 20);
  f[24] = id;
  payload.copy(f, 25);
  return f;
}

/** The codec, its decoder wrapped to count calls (to prove a check ran before it). */
function spied(name: CompressorName): {
  set: CompressorSet;
  calls: () => number;
  codec: MessageCodec;
} {
  const real = codecs.get(name);
  assert.ok(real !== undefined, `${name} is available`);
  let n = 0;
  const codec: MessageCodec = {
    ...real,
    decompress: (p, size) => {
      n++;
      return real.decompress(p, size);
    },
  };
  return { set: new CompressorSet([codec]), calls: () => n, codec };
}

async function rejects(p: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof ProtocolError && re.test(e.message));
}

const names: CompressorName[] = ['noop', 'zlib', 'snappy', 'zstd'];
for (const name of names) {
  const present = codecs.has(name);
  test(
    `${name}: compress then decompress gives the message back (property)`,
    { skip: present ? false : `${name} package not installed` },
    async () => {
      const { set, codec } = spied(name);
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 4096 }),
          fc.boolean(),
          async (bytes, repetitive) => {
            const body = repetitive
              ? Buffer.alloc(bytes.length * 8, bytes.length % 251)
              : Buffer.from(bytes);
            const m = message(body);
            const packed = await compressMessage(m, codec, set);
            assert.equal(packed.readInt32LE(12), OpCode.compressed);
            assert.equal(packed.readInt32LE(0), packed.length);
            assert.equal(packed.readInt32LE(16), OpCode.msg);
            assert.equal(packed.readInt32LE(20), body.length);
            assert.equal(packed[24], codec.id);
            const { message: back, codec: used } = await decompressMessage(packed, set);
            assert.equal(used.name, name);
            assert.deepEqual(back, m);
          },
        ),
        { numRuns: 40 },
      );
      const c = set.counters.get(name);
      assert.ok(
        c !== undefined && c.compressor.bytesIn > 0 && c.decompressor.bytesOut > 0,
        'counted',
      );
    },
  );
}

test('zlib: a bomb stops at the claim (the decoder is bounded by it)', async () => {
  const { set } = spied('zlib');
  const bomb = deflateSync(Buffer.alloc(64 * 1024 * 1024)); // 64 MiB of zeros, ~64 KiB deflated
  assert.ok(bomb.length < 100_000);
  const before = process.memoryUsage().arrayBuffers;
  // Claims on both sides of limits.compressionInlineBytesMax (inline and thread-pool decoding).
  await rejects(decompressMessage(frame(OpCode.msg, 1_000_000, 2, bomb), set), /zlib:/);
  await rejects(decompressMessage(frame(OpCode.msg, 10_000, 2, bomb), set), /zlib:/);
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(grown < 32 * 1024 * 1024, `inflated no more than the claim (grew ${grown} bytes)`);
});

test('a claim beyond the message size limit is refused before decoding', async () => {
  for (const name of names.filter((n) => codecs.has(n))) {
    const { set, calls } = spied(name);
    await rejects(
      decompressMessage(
        frame(OpCode.msg, limits.messageSizeBytesMax - 15, CodecId(name), Buffer.alloc(10)),
        set,
      ),
      /larger than maximum message size/,
    );
    await rejects(
      decompressMessage(frame(OpCode.msg, -1, CodecId(name), Buffer.alloc(10)), set),
      /negative/,
    );
    assert.equal(calls(), 0, `${name} decoder never ran`);
  }
});

function CodecId(name: CompressorName): number {
  const c = codecs.get(name);
  assert.ok(c !== undefined);
  return c.id;
}

test('a compressor id that is not enabled, a short prefix, a nested OP_COMPRESSED', async () => {
  const { set } = spied('zlib');
  await rejects(
    decompressMessage(frame(OpCode.msg, 10, 1, Buffer.alloc(10)), set),
    /not available/,
  );
  await rejects(
    decompressMessage(frame(OpCode.msg, 10, 9, Buffer.alloc(10)), set),
    /not available/,
  );
  await rejects(
    decompressMessage(frame(OpCode.msg, 10, 2, Buffer.alloc(0)).subarray(0, 20), set),
    /header/,
  );
  const inner = deflateSync(Buffer.alloc(10));
  await rejects(decompressMessage(frame(OpCode.compressed, 10, 2, inner), set), /may not wrap/);
});

test('lying claims: the inflated size must equal the claim, for every compressor', async () => {
  const body = Buffer.from('x'.repeat(5000));
  for (const name of names.filter((n) => codecs.has(n))) {
    const { set, codec } = spied(name);
    const packed = await compressMessage(message(body), codec);
    const payload = packed.subarray(25);
    await rejects(
      decompressMessage(frame(OpCode.msg, body.length + 1, codec.id, payload), set),
      /./,
    );
    await rejects(
      decompressMessage(frame(OpCode.msg, body.length - 1, codec.id, payload), set),
      /./,
    );
  }
});

test('truncated and corrupt payloads are refused', async () => {
  const body = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 7).join(','));
  for (const name of (['zlib', 'snappy', 'zstd'] as const).filter((n) => codecs.has(n))) {
    const { set, codec } = spied(name);
    const packed = await compressMessage(message(body), codec);
    const payload = packed.subarray(25);
    await rejects(
      decompressMessage(
        frame(OpCode.msg, body.length, codec.id, payload.subarray(0, payload.length >> 1)),
        set,
      ),
      /./,
    );
    const corrupt = Buffer.from(payload);
    for (let i = 8; i < corrupt.length; i += 5) corrupt[i] = (corrupt[i] as number) ^ 0x5a;
    await rejects(decompressMessage(frame(OpCode.msg, body.length, codec.id, corrupt), set), /./);
  }
});

test('snappy: the length preamble must be the claim, and within what the bytes can expand to', async (t) => {
  if (!codecs.has('snappy')) return t.skip('snappy package not installed');
  const { set, calls } = spied('snappy');
  // A preamble claiming 40 MB over 20 bytes of elements: refused before the decoder allocates.
  const lying = Buffer.from([0x80, 0xb4, 0x89, 0x13, ...Buffer.alloc(20)]);
  assert.equal(snappyPreamble(lying).length, 40_000_000);
  await rejects(
    decompressMessage(frame(OpCode.msg, 40_000_000, 1, lying), set),
    /does not match expected size/,
  );
  assert.equal(calls(), 0);
  await rejects(
    decompressMessage(
      frame(OpCode.msg, 100, 1, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff])),
      set,
    ),
    /snappy/,
  );
});

test('zstd: the block walk bounds the output; truncated or foreign data is refused first', async (t) => {
  if (!codecs.has('zstd')) return t.skip('zstd package not installed');
  const { set, calls, codec } = spied('zstd');
  const body = Buffer.alloc(300_000, 1);
  const packed = (await compressMessage(message(body), codec)).subarray(25);
  assert.ok(zstdMaxDecompressedBytes(packed) >= body.length);
  // The driver's encoder (@mongodb-js/zstd) writes frames without a content size.
  const driverZstd = (await import('@mongodb-js/zstd').catch(() => undefined)) as
    { compress(b: Buffer, level?: number): Promise<Buffer> } | undefined;
  if (driverZstd !== undefined) {
    const streamed = await driverZstd.compress(body, 3);
    assert.ok(zstdMaxDecompressedBytes(streamed) >= body.length);
    const { message: back } = await decompressMessage(
      frame(OpCode.msg, body.length, 3, streamed),
      set,
    );
    assert.deepEqual(back.subarray(16), body);
  }
  const n = calls();
  // 40 MB claimed from one small frame: its blocks cannot produce it, so the decoder never runs.
  await rejects(
    decompressMessage(frame(OpCode.msg, 40_000_000, 3, packed), set),
    /does not match expected size/,
  );
  await rejects(
    decompressMessage(frame(OpCode.msg, body.length, 3, packed.subarray(0, 9)), set),
    /zstd: truncated/,
  );
  await rejects(
    decompressMessage(frame(OpCode.msg, 10, 3, Buffer.from('not zstd at all')), set),
    /zstd: not a zstd frame/,
  );
  assert.equal(calls(), n, 'decoder not called for refused frames');
});

test('--networkMessageCompressors: default, explicit order, disabled, unknown names', async () => {
  const dflt = await resolveCompressors(undefined);
  assert.deepEqual(
    dflt.names,
    ['snappy', 'zstd', 'zlib'].filter((n) => codecs.has(n as CompressorName)),
  );
  assert.deepEqual((await resolveCompressors('zlib, noop')).names, ['zlib', 'noop']);
  assert.deepEqual((await resolveCompressors('zlib,zlib')).names, ['zlib']);
  assert.deepEqual((await resolveCompressors('disabled')).names, []);
  await assert.rejects(
    resolveCompressors('zlib,lz4'),
    (e: unknown) =>
      e instanceof CompressorConfigError &&
      e.message === 'Invalid network message compressor specified in configuration: lz4',
  );
});
