// The memory engine: the shared contract, plus what is particular to it — old versions are
// given back to the GC once no snapshot holds them.

import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { registerContractSuite } from './contract.js';
import { MemoryEngine } from '../../../src/storage/memory/memory-engine.js';
import { openEngine } from '../../../src/storage/open.js';
import { importImage } from '../../../src/storage/table-image.js';
import { defaultMaxKeyBytes } from '../../../src/storage/validate.js';

const visible = { durable: false } as const;

registerContractSuite({
  name: 'memory',
  open: async () => new MemoryEngine(),
  propertyRuns: 200,
});

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

async function collectGarbage(): Promise<void> {
  // WeakRefs are cleared only after the current job; give the GC two turns.
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
}

describe('memory engine', () => {
  it('orders and finds keys given as plain Uint8Arrays as it does the same bytes in Buffers', async () => {
    // Short typed arrays are converted to their latin1 form char by char, longer ones and
    // Buffers through Buffer: every byte value, on both sides of the 64-byte switch.
    const e = new MemoryEngine();
    const random = (n: number, seed: number): Uint8Array => {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = (seed * 131 + i * 197 + ((i * i) % 7)) & 0xff;
      return out;
    };
    const keys: Uint8Array[] = [];
    for (let s = 0; s < 300; s++) keys.push(random([0, 1, 8, 63, 64, 65, 200][s % 7] as number, s));
    keys.push(Uint8Array.from([0xff]), Uint8Array.from([0x80, 0]), Uint8Array.from([0x7f, 0xff]));
    await e.write((txn) => {
      keys.forEach((k, i) =>
        txn.put('t', i % 2 === 0 ? k : Buffer.from(k), Buffer.from([i & 0xff])),
      );
    }, visible);
    const snap = e.snapshot();
    const distinct = [...new Map(keys.map((k) => [Buffer.from(k).toString('hex'), k])).values()];
    const expected = distinct.map((k) => Buffer.from(k)).sort(Buffer.compare);
    assert.deepEqual(
      [...snap.scan('t')].map((x) => Buffer.from(x.key)),
      expected,
    );
    for (const k of distinct) {
      assert.notEqual(snap.get('t', k), undefined);
      assert.deepEqual(snap.get('t', k), snap.get('t', Buffer.from(k)));
    }
    assert.equal(snap.get('t', Uint8Array.from([0xff, 0])), undefined);
    const lo = Uint8Array.from([0x80]);
    assert.deepEqual(
      [...snap.scan('t', { start: lo, startInclusive: true })].map((x) => Buffer.from(x.key)),
      expected.filter((k) => Buffer.compare(k, Buffer.from(lo)) >= 0),
    );
    snap.release();
    await e.close();
  });

  it('opens through openEngine with the same key limit as lmdb by default', async () => {
    const e = await openEngine({ engine: 'memory' });
    assert.equal(e.name, 'memory');
    assert.equal(e.persistent, false);
    assert.equal(e.maxKeyBytes, defaultMaxKeyBytes);
    await e.close();
    const wide = await openEngine({ engine: 'memory', maxKeyBytes: 10_000 });
    assert.equal(wide.maxKeyBytes, 10_000);
    await wide.close();
  });

  it('keeps an overwritten version exactly as long as a snapshot needs it', async () => {
    const e = new MemoryEngine();
    const key = Buffer.from('k');
    await e.write((t) => t.put('t', key, Buffer.alloc(1024 * 1024, 1)), { durable: false });
    const snap = e.snapshot();
    const old = new WeakRef(snap.get('t', key) as object);
    await e.write((t) => t.put('t', key, Buffer.alloc(16, 2)), { durable: false });
    await collectGarbage();
    assert.notEqual(old.deref(), undefined, 'the snapshot still needs the old version');
    snap.release();
    await collectGarbage();
    assert.equal(old.deref(), undefined, 'released: the old version must be reclaimable');
    await e.close();
  });

  it('does not grow when snapshots come and go while the same keys are rewritten', async () => {
    const e = new MemoryEngine();
    const value = Buffer.alloc(10 * 1024, 7);
    const rewrite = (): Promise<void> =>
      e.write(
        (t) => {
          for (let i = 0; i < 100; i++) t.put('t', Buffer.from([i]), value);
        },
        { durable: false },
      );
    await rewrite();
    await collectGarbage();
    const baseline = process.memoryUsage().arrayBuffers;
    // 200 rounds rewrite ~200 MB in total while a snapshot is open across each round.
    for (let round = 0; round < 200; round++) {
      const s = e.snapshot();
      await rewrite();
      s.release();
    }
    await collectGarbage();
    const grown = process.memoryUsage().arrayBuffers - baseline;
    assert.ok(grown < 16 * 1024 * 1024, `array buffers grew by ${grown} bytes`);
    assert.equal(e.stats().storageSizeBytes, 100 * (1 + value.length));
    await e.close();
  });

  it('counts the bytes it holds', async () => {
    const e = new MemoryEngine();
    await e.write(
      (t) => {
        t.put('a', Buffer.from('k1'), Buffer.from('vvvv'));
        t.put('a', Buffer.from('k2'), Buffer.from('vv'));
        t.put('b', Buffer.from('k'), Buffer.from('v'));
      },
      { durable: false },
    );
    assert.equal(e.stats().storageSizeBytes, 6 + 4 + 2);
    await e.write(
      (t) => {
        t.put('a', Buffer.from('k1'), Buffer.from('v'));
        t.delete('a', Buffer.from('k2'));
      },
      { durable: false },
    );
    assert.equal(e.stats().storageSizeBytes, 3 + 2);
    await e.write((t) => t.clearTable('b'), { durable: false });
    assert.equal(e.stats().storageSizeBytes, 3);
    await assert.rejects(
      e.write(
        () => {
          throw new Error('x');
        },
        { durable: false },
      ),
    );
    assert.equal(e.stats().storageSizeBytes, 3);
    await e.close();
  });

  it('shares a table image with the engine and counts its bytes where it is imported', async () => {
    const e = new MemoryEngine();
    const k = (i: number): Buffer => Buffer.from(`k${String(i).padStart(6, '0')}`);
    await e.write((t) => {
      for (let i = 0; i < 5000; i++) t.put('a', k(i), Buffer.from('vv'));
    }, visible);
    const held = e.stats().storageSizeBytes;
    assert.equal(held, 5000 * (7 + 2));
    // A fresh snapshot knows the committed byte count; an older one counts its entries.
    const old = e.snapshot();
    await e.write((t) => t.put('a', k(0), Buffer.from('vvvv')), visible);
    const fresh = e.snapshot();
    const oldImage = old.exportTable?.('a');
    const freshImage = fresh.exportTable?.('a');
    assert.ok(
      oldImage !== undefined && freshImage !== undefined,
      'the memory engine shares its tables',
    );
    old.release();
    fresh.release();
    assert.equal(oldImage.bytes, held);
    assert.equal(freshImage.bytes, held + 2);
    assert.equal(freshImage.count, 5000);
    await e.write((t) => importImage(t, 'b', oldImage), visible);
    assert.equal(e.stats().storageSizeBytes, 2 * held + 2);
    // Importing over a table replaces its bytes; the image itself is unchanged by writes.
    await e.write((t) => {
      importImage(t, 'a', oldImage);
      t.put('b', k(1), Buffer.from('changed'));
    }, visible);
    assert.equal(e.stats().storageSizeBytes, 2 * held + 5);
    assert.equal(Buffer.from([...oldImage.entries()][1]?.value ?? []).toString(), 'vv');
    await e.close();
  });
});
