// copyBytes keeps large sealed memory as it is (sealBytes: a message as it came off the wire,
// an encoding made for one put) and copies everything else, so an engine's private copy costs
// nothing for a 16 MiB document nobody writes into any more.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ByteArena, copyBytes, sealBytes } from '../../../src/storage/bytes.js';
import { MemoryEngine } from '../../../src/storage/memory/memory-engine.js';

test('sealed bytes covering most of their memory are kept, not copied', () => {
  const big = Buffer.alloc(1024 * 1024, 7);
  sealBytes(big);
  const kept = copyBytes(big.subarray(10));
  assert.equal(kept.buffer, big.buffer, 'a view of the same memory');
  assert.equal(kept.length, big.length - 10);
  // A small part of sealed memory is copied: a view would keep the rest alive.
  const part = copyBytes(big.subarray(0, 100 * 1024));
  assert.notEqual(part.buffer, big.buffer);
  assert.deepEqual(part, big.subarray(0, 100 * 1024));
});

test('unsealed and small buffers are copied', () => {
  const big = Buffer.alloc(1024 * 1024, 1);
  assert.notEqual(copyBytes(big).buffer, big.buffer);
  const small = Buffer.alloc(1000, 2);
  sealBytes(small);
  const copy = copyBytes(small);
  assert.notEqual(copy.buffer, small.buffer);
  small[0] = 9;
  assert.equal(copy[0], 2, 'the copy is private');
});

test('the memory engine stores a sealed value without a copy, an unsealed one with', async () => {
  const engine = new MemoryEngine();
  try {
    const sealed = Buffer.alloc(256 * 1024, 3);
    sealBytes(sealed);
    const open = Buffer.alloc(256 * 1024, 4);
    await engine.write(
      (txn) => {
        txn.put('t', Buffer.from('s'), sealed);
        txn.put('t', Buffer.from('o'), open);
      },
      { durable: false },
    );
    open.fill(5); // the caller reuses its buffer: the stored value does not change
    const view = engine.snapshot();
    assert.equal(view.get('t', Buffer.from('s'))?.buffer, sealed.buffer);
    assert.equal(view.get('t', Buffer.from('o'))?.[0], 4);
    view.release();
  } finally {
    await engine.close();
  }
});

test('ByteArena copies small bytes into slabs of its own, larger ones into their own memory', () => {
  const arena = new ByteArena(1024, 100);
  const source = Buffer.from('abcdefghij');
  const a = arena.copy(source);
  const b = arena.copy(Buffer.from([1, 2, 3]));
  source.fill(0);
  assert.deepEqual(a, Buffer.from('abcdefghij'), 'a private copy');
  assert.deepEqual(b, Buffer.from([1, 2, 3]));
  assert.equal(a.buffer, b.buffer, 'one slab');
  assert.equal(a.buffer.byteLength, 1024);
  assert.equal(b.byteOffset % 8, 0, 'aligned as pool slices are');
  // Not in Node's shared pool, which temporaries of the whole process come from.
  assert.notEqual(a.buffer, Buffer.from('x').buffer);
  const big = arena.copy(Buffer.alloc(200, 6));
  assert.equal(big.buffer.byteLength, 200, 'memory of its own');
  assert.notEqual(big.buffer, Buffer.from('y').buffer);
  // A full slab is replaced by a fresh one.
  const copies = Array.from({ length: 20 }, () => arena.copy(Buffer.alloc(100, 1)));
  assert.ok(new Set(copies.map((c) => c.buffer)).size > 1);
  assert.ok(copies.every((c) => c.length === 100 && c[99] === 1));
});

test('the memory engine keeps small keys and values out of the shared buffer pool', async () => {
  // One stored key in Node's 8 KiB pool kept the whole slab (mostly temporaries) alive.
  const engine = new MemoryEngine();
  try {
    await engine.write((txn) => txn.put('t', Buffer.from('k'), Buffer.from('v')), {
      durable: false,
    });
    const view = engine.snapshot();
    const [entry] = [...view.scan('t')];
    assert.ok(entry !== undefined);
    assert.notEqual(entry.key.buffer.byteLength, Buffer.poolSize);
    assert.notEqual(entry.value.buffer.byteLength, Buffer.poolSize);
    view.release();
  } finally {
    await engine.close();
  }
});
