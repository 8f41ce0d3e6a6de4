// The frame reader: any split of a byte stream into reads gives back exactly the messages in
// it, in order, byte for byte; a bad length is refused as soon as its four bytes are in; and
// what is held for an incomplete message is what has arrived of it.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { FrameReader } from '../../../src/wire/frame-reader.js';
import { ProtocolError } from '../../../src/wire/opcodes.js';

/** A message of `len` bytes (at least 16): its length, then bytes that tell messages apart. */
function message(len: number, seed: number): Buffer {
  const m = Buffer.alloc(len);
  m.writeInt32LE(len, 0);
  for (let i = 4; i < len; i++) m[i] = (seed * 31 + i) & 0xff;
  return m;
}

/** Cuts `stream` at the given points (any order, duplicates and ends allowed). */
function cut(stream: Buffer, points: readonly number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (stream.length + 1)))].sort((a, b) => a - b);
  const reads: Buffer[] = [];
  let from = 0;
  for (const p of [...at, stream.length]) {
    if (p > from) reads.push(Buffer.from(stream.subarray(from, p)));
    from = p;
  }
  return reads;
}

test('every split of a stream of messages gives the messages back', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 16, max: 5000 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 40 }),
      (lengths, points) => {
        const messages = lengths.map((len, i) => message(len, i));
        const reader = new FrameReader();
        const got: Buffer[] = [];
        for (const read of cut(Buffer.concat(messages), points)) got.push(...reader.push(read));
        assert.equal(got.length, messages.length);
        for (const [i, m] of messages.entries())
          assert.ok(m.equals(got[i] as Buffer), `message ${i}`);
        assert.equal(reader.pendingBytes, 0);
      },
    ),
    { numRuns: 300 },
  );
});

test('a large message read in small pieces: held bytes count up, the message comes whole', () => {
  const m = message(1 << 20, 7);
  const reader = new FrameReader();
  let held = 0;
  for (let at = 0; at < m.length; at += 1000) {
    const piece = m.subarray(at, Math.min(at + 1000, m.length));
    const out = reader.push(Buffer.from(piece));
    held += piece.length;
    if (held < m.length) {
      assert.deepEqual(out, []);
      assert.equal(reader.pendingBytes, held);
    } else {
      assert.equal(out.length, 1);
      assert.ok(m.equals(out[0] as Buffer));
    }
  }
  assert.equal(reader.pendingBytes, 0);
});

test('a message and the start of the next in one read; the rest of it in the next', () => {
  const a = message(100, 1);
  const b = message(3000, 2);
  const reader = new FrameReader();
  const first = reader.push(Buffer.concat([a, b.subarray(0, 2)]));
  assert.equal(first.length, 1);
  assert.ok(a.equals(first[0] as Buffer));
  assert.equal(reader.pendingBytes, 2);
  const second = reader.push(Buffer.from(b.subarray(2)));
  assert.equal(second.length, 1);
  assert.ok(b.equals(second[0] as Buffer));
});

test('a length under the header or over the maximum is refused once its four bytes are in', () => {
  for (const len of [0, 15, -1, 1025]) {
    const reader = new FrameReader(1024);
    const bytes = Buffer.alloc(4);
    bytes.writeInt32LE(len, 0);
    assert.deepEqual(reader.push(bytes.subarray(0, 3)), []);
    assert.throws(() => reader.push(bytes.subarray(3)), ProtocolError, `length ${len}`);
  }
  // After a good message in the same read, too.
  const reader = new FrameReader(1024);
  const bad = Buffer.alloc(4);
  bad.writeInt32LE(1 << 30, 0);
  assert.throws(() => reader.push(Buffer.concat([message(16, 0), bad])), /outside \[16, 1024\]/);
});
