// copyBytes keeps large sealed memory as it is (sealBytes: a message as it came off the wire,
// an encoding made for one put) and copies everything else, so an engine's private copy costs
// nothing for a 16 MiB document nobody writes into any more.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { copyBytes, sealBytes } from '../../../src/storage/bytes.js';
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
