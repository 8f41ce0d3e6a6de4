// The storage contract suite (src/storage/engine.ts), registered once per engine by
// memory.test.ts and lmdb.test.ts. Every engine must pass all of it; engine-specific
// behaviour (durability, locks, GC) is tested in the engine's own file.

import { after, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  KeyTooLongError,
  type Bytes,
  type ScanOptions,
  type Snapshot,
  type StorageEngine,
} from '../../../src/storage/engine.js';
import { exportTableImage, importImage } from '../../../src/storage/table-image.js';
import { ReferenceModel, pairs } from './reference-model.js';

export interface EngineHarness {
  readonly name: string;
  /** A fresh, empty engine. */
  open(): Promise<StorageEngine>;
  /** Close `engine` and open it again on the same data; persistent engines only. */
  reopen?(engine: StorageEngine): Promise<StorageEngine>;
  /** fast-check runs of the model test (disk engines pay an fsync per batch). */
  readonly propertyRuns: number;
  cleanup?(): Promise<void>;
}

const b = (s: string): Buffer => Buffer.from(s);
const bytes = (...xs: number[]): Buffer => Buffer.from(xs);
const hex = (x: Bytes): string => Buffer.from(x).toString('hex');
const keysOf = (entries: Iterable<{ key: Bytes }>): string[] => [...entries].map((e) => hex(e.key));
const durable = { durable: true } as const;
const visible = { durable: false } as const;

export function registerContractSuite(h: EngineHarness): void {
  describe(`storage contract: ${h.name}`, () => {
    after(async () => {
      await h.cleanup?.();
    });

    async function withEngine(body: (e: StorageEngine) => Promise<void>): Promise<void> {
      const e = await h.open();
      try {
        await body(e);
      } finally {
        await e.close();
      }
    }

    it('puts, gets, deletes and counts; an unwritten table reads as empty', () =>
      withEngine(async (e) => {
        const s0 = e.snapshot();
        assert.equal(s0.get('never', b('x')), undefined);
        assert.deepEqual([...s0.scan('never')], []);
        assert.equal(s0.count('never'), 0);
        s0.release();

        await e.write((t) => {
          assert.equal(t.get('t', b('a')), undefined);
          t.put('t', b('a'), b('1'));
          t.put('t', b('b'), b('2'));
          t.put('t', b('a'), b('1bis'));
          assert.equal(t.count('t'), 2);
        }, durable);
        const existed = await e.write(
          (t) => [
            t.delete('t', b('b')),
            t.delete('t', b('b')),
            t.delete('t', b('zz')),
            t.delete('nope', b('a')),
          ],
          durable,
        );
        assert.deepEqual(existed, [true, false, false, false]);
        const s = e.snapshot();
        assert.equal(b('1bis').equals(s.get('t', b('a')) as Buffer), true);
        assert.equal(s.get('t', b('b')), undefined);
        assert.equal(s.count('t'), 1);
        s.release();
      }));

    it('returns what was stored, unaffected by the caller reusing its buffers', () =>
      withEngine(async (e) => {
        const key = b('k1');
        const value = b('v1');
        await e.write((t) => {
          t.put('t', key, value);
          key[1] = 0x32; // 'k2'
          value[1] = 0x32;
        }, durable);
        const s = e.snapshot();
        assert.equal(hex(s.get('t', b('k1')) as Bytes), hex(b('v1')));
        assert.equal(s.get('t', b('k2')), undefined);
        s.release();
      }));

    it('keeps tables apart, whatever their names', () =>
      withEngine(async (e) => {
        const names = [
          '',
          'a',
          'ab',
          'a\u0000b',
          'a.b',
          '\ud800',
          '\u{1F600}',
          'x'.repeat(300),
          'é',
        ];
        await e.write((t) => names.forEach((n, i) => t.put(n, b('k'), b(String(i)))), durable);
        const s = e.snapshot();
        names.forEach((n, i) => {
          assert.equal(String(s.get(n, b('k'))), String(i), `table ${JSON.stringify(n)}`);
          assert.equal(s.count(n), 1);
        });
        s.release();
        await assert.rejects(
          e.write((t) => t.put('y'.repeat(100_000), b('k'), b('v')), durable),
          RangeError,
        );
      }));

    it('orders keys by unsigned bytes, shorter prefix first', () =>
      withEngine(async (e) => {
        const keys = [
          bytes(),
          bytes(0x00),
          bytes(0x00, 0x00),
          bytes(0x00, 0xff),
          bytes(0x01),
          bytes(0x7f),
          bytes(0x80),
          bytes(0xfe, 0xff),
          bytes(0xff),
          bytes(0xff, 0x00),
          bytes(0xff, 0xff),
          bytes(0xff, 0xff, 0xff),
          b('a'),
          b('ab'),
          b('abc'),
          b('abd'),
          b('b'),
          b('B'),
        ];
        const shuffled = [...keys].sort(() => Math.random() - 0.5);
        await e.write((t) => shuffled.forEach((k) => t.put('t', k, k)), durable);
        const sorted = [...keys].sort(Buffer.compare).map(hex);
        const s = e.snapshot();
        assert.deepEqual(keysOf(s.scan('t')), sorted);
        assert.deepEqual(keysOf(s.scan('t', { reverse: true })), [...sorted].reverse());
        for (const k of keys) assert.equal(hex(s.get('t', k) as Bytes), hex(k));
        s.release();
      }));

    it('honours every combination of scan bounds, forward and reverse', () =>
      withEngine(async (e) => {
        // Keys 0x02, 0x04, ..., 0x14; bounds on keys, between keys, and outside.
        const stored = Array.from({ length: 10 }, (_, i) => bytes(2 * (i + 1)));
        const model = new ReferenceModel();
        await e.write((t) => stored.forEach((k) => t.put('t', k, k)), durable);
        stored.forEach((k) => model.put('t', k, k));
        const points: (Buffer | undefined)[] = [
          undefined,
          bytes(0x00),
          bytes(0x06),
          bytes(0x07),
          bytes(0x06, 0x00),
          bytes(0x14),
          bytes(0x30),
        ];
        const flags: (boolean | undefined)[] = [undefined, true, false];
        const s = e.snapshot();
        let combos = 0;
        for (const start of points)
          for (const end of points)
            for (const startInclusive of flags)
              for (const endInclusive of flags)
                for (const reverse of [false, true]) {
                  const o: { -readonly [K in keyof ScanOptions]: ScanOptions[K] } = { reverse };
                  if (start !== undefined) o.start = start;
                  if (end !== undefined) o.end = end;
                  if (startInclusive !== undefined) o.startInclusive = startInclusive;
                  if (endInclusive !== undefined) o.endInclusive = endInclusive;
                  assert.deepEqual(pairs(s.scan('t', o)), model.scan('t', o), JSON.stringify(o));
                  combos++;
                }
        assert.equal(combos, 7 * 7 * 3 * 3 * 2);
        s.release();
      }));

    it('gives snapshots a stable view while writes go on', () =>
      withEngine(async (e) => {
        await e.write((t) => {
          for (let i = 0; i < 50; i++) t.put('t', bytes(i), b(`v${i}`));
          t.put('gone', b('k'), b('v'));
        }, durable);
        const snap = e.snapshot();
        const seq = snap.seq;
        assert.equal(seq, e.committedSeq);
        // A lazy scan started before the writes and finished after them.
        const it = snap.scan('t');
        const first = it.next();
        assert.equal(first.done, false);

        await e.write((t) => {
          t.put('t', bytes(0), b('changed'));
          t.delete('t', bytes(1));
          t.put('t', bytes(200), b('new'));
          t.clearTable('gone');
          t.put('fresh', b('k'), b('v'));
        }, durable);
        await e.write((t) => {
          for (let i = 2; i < 50; i++) t.delete('t', bytes(i));
        }, visible);

        const rest = [...it];
        assert.equal(rest.length, 49);
        assert.equal(String(snap.get('t', bytes(0))), 'v0');
        assert.equal(String(snap.get('t', bytes(1))), 'v1');
        assert.equal(snap.get('t', bytes(200)), undefined);
        assert.equal(snap.count('t'), 50);
        assert.equal(snap.count('gone'), 1);
        assert.equal(snap.get('fresh', b('k')), undefined);
        assert.equal(snap.seq, seq);

        const now = e.snapshot();
        assert.equal(now.seq, seq + 2);
        assert.equal(String(now.get('t', bytes(0))), 'changed');
        assert.deepEqual(keysOf(now.scan('t')), [hex(bytes(0)), hex(bytes(200))]);
        assert.equal(now.count('gone'), 0);
        assert.equal(String(now.get('fresh', b('k'))), 'v');
        now.release();
        snap.release();
      }));

    it('lets a transaction read its own writes, scans merged in order with bounds', () =>
      withEngine(async (e) => {
        await e.write(
          (t) => ['a', 'c', 'e', 'g'].forEach((k) => t.put('t', b(k), b(k.toUpperCase()))),
          durable,
        );
        const seen = await e.write((t) => {
          t.put('t', b('b'), b('b1'));
          t.put('t', b('c'), b('c1'));
          assert.equal(t.delete('t', b('e')), true);
          assert.equal(t.delete('t', b('e')), false);
          t.put('t', b('h'), b('h1'));
          t.delete('t', b('h'));
          t.put('t', b('0'), b('01'));
          const row = (x: { key: Bytes; value: Bytes }): string =>
            `${String(x.key)}=${String(x.value)}`;
          return {
            get: [
              String(t.get('t', b('c'))),
              t.get('t', b('e')),
              t.get('t', b('h')),
              String(t.get('t', b('a'))),
            ],
            fwd: [...t.scan('t')].map(row),
            rev: [...t.scan('t', { reverse: true })].map(row),
            bounded: [...t.scan('t', { start: b('b'), end: b('g') })].map(row),
            boundedRev: [
              ...t.scan('t', {
                start: b('b'),
                startInclusive: false,
                end: b('g'),
                endInclusive: true,
                reverse: true,
              }),
            ].map(row),
            count: t.count('t'),
          };
        }, durable);
        assert.deepEqual(seen.get, ['c1', undefined, undefined, 'A']);
        assert.deepEqual(seen.fwd, ['0=01', 'a=A', 'b=b1', 'c=c1', 'g=G']);
        assert.deepEqual(seen.rev, ['g=G', 'c=c1', 'b=b1', 'a=A', '0=01']);
        assert.deepEqual(seen.bounded, ['b=b1', 'c=c1']);
        assert.deepEqual(seen.boundedRev, ['g=G', 'c=c1']);
        assert.equal(seen.count, 5);
        const s = e.snapshot();
        assert.deepEqual(
          keysOf(s.scan('t')),
          ['0', 'a', 'b', 'c', 'g'].map((k) => hex(b(k))),
        );
        s.release();
      }));

    it('shows a scan the transaction as it was when scan() was called', () =>
      withEngine(async (e) => {
        await e.write((t) => ['a', 'b', 'c'].forEach((k) => t.put('t', b(k), b('1'))), durable);
        const got = await e.write((t) => {
          const it = t.scan('t');
          const out: string[] = [];
          for (const { key } of it) {
            out.push(String(key));
            // Deleting behind and inserting ahead of the cursor must not disturb it.
            t.delete('t', key);
            t.put('t', b(`${String(key)}z`), b('2'));
          }
          return { out, after: keysOf(t.scan('t')) };
        }, durable);
        assert.deepEqual(got.out, ['a', 'b', 'c']);
        assert.deepEqual(
          got.after,
          ['az', 'bz', 'cz'].map((k) => hex(b(k))),
        );
      }));

    it('applies nothing of a transaction that throws, and goes on normally', () =>
      withEngine(async (e) => {
        await e.write((t) => {
          t.put('t', b('keep'), b('1'));
          t.put('u', b('keep'), b('1'));
        }, durable);
        const before = e.committedSeq;
        const boom = new Error('boom');
        await assert.rejects(
          e.write((t) => {
            t.put('t', b('x'), b('1'));
            t.delete('t', b('keep'));
            t.clearTable('u');
            t.put('v', b('new table'), b('1'));
            throw boom;
          }, durable),
          (err: unknown) => err === boom,
        );
        // Non-Error values are passed through as they are.
        await assert.rejects(
          e.write(() => {
            throw 'plain string';
          }, visible),
          (err: unknown) => err === 'plain string',
        );
        // A callback returning a promise is a bug: rejected, nothing applied.
        await assert.rejects(
          e.write((t) => {
            t.put('t', b('async'), b('1'));
            return Promise.resolve(1);
          }, visible),
        );
        assert.equal(e.committedSeq, before);
        const seq = await e.write((t) => {
          t.put('t', b('after'), b('1'));
          return t.seq;
        }, durable);
        assert.equal(seq, before + 1);
        const s = e.snapshot();
        assert.deepEqual(
          keysOf(s.scan('t')),
          ['after', 'keep'].map((k) => hex(b(k))),
        );
        assert.equal(s.count('u'), 1);
        assert.equal(s.count('v'), 0);
        s.release();
      }));

    it('runs concurrent write() calls one at a time, in call order, each seeing the previous', () =>
      withEngine(async (e) => {
        const order: number[] = [];
        const calls: Promise<number>[] = [];
        const start = e.committedSeq;
        for (let i = 0; i < 300; i++) {
          calls.push(
            e.write(
              (t) => {
                order.push(i);
                if (i % 7 === 3) throw new Error(`fail ${i}`);
                const n = Number(String(t.get('t', b('counter')) ?? '0'));
                t.put('t', b('counter'), b(String(n + 1)));
                t.put('log', b(String(i).padStart(4, '0')), b(String(n)));
                return t.seq;
              },
              i % 2 === 0 ? durable : visible,
            ),
          );
        }
        assert.deepEqual(order, [], 'fn must not run inside write() itself');
        const results = await Promise.allSettled(calls);
        assert.deepEqual(
          order,
          Array.from({ length: 300 }, (_, i) => i),
        );
        const seqs = results
          .filter((r): r is PromiseFulfilledResult<number> => r.status === 'fulfilled')
          .map((r) => r.value);
        const failures = results.filter((r) => r.status === 'rejected').length;
        assert.equal(
          failures,
          Array.from({ length: 300 }, (_, i) => i).filter((i) => i % 7 === 3).length,
        );
        assert.deepEqual(
          seqs,
          Array.from({ length: seqs.length }, (_, i) => start + 1 + i),
        );
        assert.equal(e.committedSeq, start + seqs.length);
        const s = e.snapshot();
        assert.equal(String(s.get('t', b('counter'))), String(seqs.length));
        // Each successful transaction saw exactly the ones before it.
        assert.deepEqual(
          [...s.scan('log')].map((x) => Number(String(x.value))),
          Array.from({ length: seqs.length }, (_, i) => i),
        );
        s.release();
      }));

    it('runs a write() called from inside a callback after it', () =>
      withEngine(async (e) => {
        const order: string[] = [];
        let inner: Promise<string> | undefined;
        const outer = e.write((t) => {
          order.push('outer');
          t.put('t', b('k'), b('outer'));
          inner = e.write((t2) => {
            order.push('inner');
            return String(t2.get('t', b('k')));
          }, visible);
          return 'done';
        }, visible);
        const third = e.write(() => order.push('third'), visible);
        assert.equal(await outer, 'done');
        await third;
        assert.equal(await inner, 'outer');
        assert.deepEqual(order, ['outer', 'third', 'inner']);
      }));

    it('clears tables, inside a transaction and across them', () =>
      withEngine(async (e) => {
        await e.write((t) => {
          for (let i = 0; i < 100; i++) t.put('t', bytes(i), b('old'));
          t.put('other', b('k'), b('v'));
        }, durable);
        const seen = await e.write((t) => {
          t.clearTable('t');
          const afterClear = [t.count('t'), t.get('t', bytes(5)), [...t.scan('t')].length] as const;
          t.put('t', bytes(5), b('new'));
          t.clearTable('never-written');
          return {
            afterClear,
            count: t.count('t'),
            keys: keysOf(t.scan('t')),
            other: t.count('other'),
          };
        }, durable);
        assert.deepEqual(seen.afterClear, [0, undefined, 0]);
        assert.equal(seen.count, 1);
        assert.deepEqual(seen.keys, [hex(bytes(5))]);
        assert.equal(seen.other, 1);
        const s = e.snapshot();
        assert.equal(String(s.get('t', bytes(5))), 'new');
        assert.equal(s.get('t', bytes(6)), undefined);
        assert.equal(s.count('t'), 1);
        assert.equal(s.count('other'), 1);
        s.release();
        await e.write((t) => t.clearTable('t'), durable);
        await e.write((t) => t.put('t', bytes(7), b('again')), durable);
        const s2 = e.snapshot();
        assert.deepEqual(pairs(s2.scan('t')), [[hex(bytes(7)), hex(b('again'))]]);
        s2.release();
      }));

    it('numbers commits: txn.seq is the next seq, snapshots see exactly up to theirs', () =>
      withEngine(async (e) => {
        const s0 = e.snapshot();
        const base = e.committedSeq;
        assert.equal(s0.seq, base);
        const seqs = await Promise.all(
          [1, 2, 3].map((i) => e.write((t) => (t.put('t', bytes(i), bytes(i)), t.seq), visible)),
        );
        assert.deepEqual(seqs, [base + 1, base + 2, base + 3]);
        assert.equal(e.committedSeq, base + 3);
        const s1 = e.snapshot();
        assert.equal(s1.seq, base + 3);
        assert.equal(s1.count('t'), 3);
        // Reads inside a later transaction and a snapshot taken inside one see committed state.
        const inner = await e.write((t) => {
          const s = e.snapshot();
          const r = { seq: t.seq, snapSeq: s.seq, snapCount: s.count('t') };
          s.release();
          return r;
        }, visible);
        assert.equal(inner.seq, base + 4);
        assert.ok(inner.snapSeq <= base + 3 && inner.snapSeq >= base + 3);
        assert.equal(inner.snapCount, 3);
        s0.release();
        s1.release();
      }));

    it('keeps snapshot reads on the snapshot even inside a write callback', () =>
      withEngine(async (e) => {
        await e.write((t) => t.put('t', b('k'), b('old')), durable);
        const snap = e.snapshot();
        const seen = await e.write((t) => {
          t.put('t', b('k'), b('mine'));
          t.put('t', b('k2'), b('mine'));
          return [
            String(snap.get('t', b('k'))),
            snap.get('t', b('k2')),
            snap.count('t'),
            keysOf(snap.scan('t')),
          ];
        }, durable);
        await e.write((t) => t.put('t', b('k3'), b('x')), durable);
        const later = await e.write(
          () => [String(snap.get('t', b('k'))), snap.count('t')],
          durable,
        );
        assert.deepEqual(seen, ['old', undefined, 1, [hex(b('k'))]]);
        assert.deepEqual(later, ['old', 1]);
        snap.release();
      }));

    it('refuses keys past maxKeyBytes without spoiling the transaction', () =>
      withEngine(async (e) => {
        assert.ok(e.maxKeyBytes >= 1000, `maxKeyBytes ${e.maxKeyBytes}`);
        const longest = Buffer.alloc(e.maxKeyBytes, 0xab);
        const tooLong = Buffer.alloc(e.maxKeyBytes + 1, 0xab);
        const caught = await e.write((t) => {
          t.put('t', longest, b('ok'));
          let err: unknown;
          try {
            t.put('t', tooLong, b('no'));
          } catch (x) {
            err = x;
          }
          t.put('t', b('after'), b('ok'));
          // Reading, deleting and bounding with a too-long key are harmless: it cannot exist.
          assert.equal(t.get('t', tooLong), undefined);
          assert.equal(t.delete('t', tooLong), false);
          assert.equal([...t.scan('t', { start: tooLong })].length, 0);
          assert.equal([...t.scan('t', { end: tooLong, endInclusive: false })].length, 2);
          return err;
        }, durable);
        if (!(caught instanceof KeyTooLongError))
          assert.fail(`expected KeyTooLongError, got ${String(caught)}`);
        assert.equal(caught.keyBytes, e.maxKeyBytes + 1);
        assert.equal(caught.maxKeyBytes, e.maxKeyBytes);
        await assert.rejects(
          e.write((t) => t.put('t', tooLong, b('no')), durable),
          KeyTooLongError,
        );
        const s = e.snapshot();
        assert.equal(String(s.get('t', longest)), 'ok');
        assert.equal(String(s.get('t', b('after'))), 'ok');
        assert.equal(s.get('t', tooLong), undefined);
        assert.deepEqual(keysOf(s.scan('t', { start: Buffer.concat([longest, bytes(0)]) })), []);
        assert.deepEqual(keysOf(s.scan('t', { end: Buffer.concat([longest, bytes(0)]) })), [
          hex(b('after')),
          hex(longest),
        ]);
        assert.deepEqual(
          keysOf(s.scan('t', { end: Buffer.concat([longest, bytes(0)]), reverse: true })),
          [hex(longest), hex(b('after'))],
        );
        const longA = Buffer.alloc(e.maxKeyBytes + 1, 0x61); // 'aaa…' sorts before 'after'
        assert.deepEqual(keysOf(s.scan('t', { start: longA })), [hex(b('after')), hex(longest)]);
        assert.deepEqual(
          keysOf(s.scan('t', { end: longA, endInclusive: true, reverse: true })),
          [],
        );
        s.release();
      }));

    it('stores empty and large (17 MB) values', () =>
      withEngine(async (e) => {
        const big = Buffer.alloc(17 * 1024 * 1024);
        for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
        await e.write((t) => {
          t.put('t', b('big'), big);
          t.put('t', b('empty'), Buffer.alloc(0));
          t.put('t', bytes(), b('empty key'));
        }, durable);
        const s = e.snapshot();
        const got = s.get('t', b('big'));
        assert.ok(got !== undefined && Buffer.from(got).equals(big));
        assert.equal(s.get('t', b('empty'))?.length, 0);
        assert.equal(String(s.get('t', bytes())), 'empty key');
        assert.deepEqual(keysOf(s.scan('t')), [hex(bytes()), hex(b('big')), hex(b('empty'))]);
        s.release();
      }));

    it('ends transactions and snapshots: later use throws, release is idempotent', () =>
      withEngine(async (e) => {
        let leaked: Parameters<Parameters<StorageEngine['write']>[0]>[0] | undefined;
        let leakedScan: Iterator<unknown> | undefined;
        await e.write((t) => {
          t.put('t', b('a'), b('1'));
          t.put('t', b('b'), b('1'));
          leaked = t;
          leakedScan = t.scan('t');
          leakedScan.next();
        }, durable);
        assert.throws(() => leaked?.put('t', b('x'), b('1')));
        assert.throws(() => leaked?.get('t', b('a')));
        assert.throws(() => leakedScan?.next());
        const s = e.snapshot();
        const it = s.scan('t');
        it.next();
        s.release();
        s.release();
        assert.throws(() => s.get('t', b('a')));
        assert.throws(() => it.next());
        // Breaking out of a scan early releases it; the engine goes on.
        const s2 = e.snapshot();
        for (const _ of s2.scan('t')) break;
        s2.release();
        await e.write((t) => t.put('t', b('c'), b('1')), durable);
      }));

    it('waits for pending writes on close and refuses new ones after', async () => {
      const e = await h.open();
      await e.write((t) => t.put('t', bytes(0), bytes(0)), durable);
      const open = e.snapshot();
      const pending = [1, 2, 3].map((i) => e.write((t) => t.put('t', bytes(i), bytes(i)), durable));
      const closing = e.close();
      await assert.rejects(e.write(() => 1, durable));
      await Promise.all(pending);
      await closing;
      await e.close(); // idempotent
      assert.throws(() => e.snapshot());
      // Close ends the snapshots left open (a disk engine cannot keep reading after it).
      assert.throws(() => open.get('t', bytes(0)));
      open.release();
    });

    it('reports table sizes: entries and key and value bytes, as of the latest commit', () =>
      withEngine(async (e) => {
        assert.deepEqual(e.tableSize('never'), { entries: 0, keyBytes: 0, valueBytes: 0 });
        await e.write((t) => {
          t.put('s', b('a'), b('12345'));
          t.put('s', b('bb'), b('1'));
          t.put('other', b('x'), b('y'));
        }, durable);
        assert.deepEqual(e.tableSize('s'), { entries: 2, keyBytes: 3, valueBytes: 6 });
        await e.write((t) => {
          t.put('s', b('a'), b('12')); // overwrite: the value shrinks, the key stays counted once
          t.delete('s', b('bb'));
        }, durable);
        assert.deepEqual(e.tableSize('s'), { entries: 1, keyBytes: 1, valueBytes: 2 });
        await e.write((t) => t.clearTable('s'), durable);
        assert.deepEqual(e.tableSize('s'), { entries: 0, keyBytes: 0, valueBytes: 0 });
        assert.deepEqual(e.tableSize('other'), { entries: 1, keyBytes: 1, valueBytes: 1 });
      }));

    it('estimates the size of a large table within a few percent', () =>
      withEngine(async (e) => {
        // 10k entries with 8-byte big-endian keys (as RecordIds) and values of 50-150 bytes.
        let keyBytes = 0;
        let valueBytes = 0;
        for (let start = 0; start < 10_000; start += 2_500) {
          await e.write((t) => {
            for (let i = start; i < start + 2_500; i++) {
              const key = Buffer.alloc(8);
              key.writeBigUInt64BE(BigInt(i + 1));
              const value = Buffer.alloc(50 + ((i * 7919) % 101), 1);
              t.put('big', key, value);
              keyBytes += key.length;
              valueBytes += value.length;
            }
          }, visible);
        }
        const size = e.tableSize('big');
        assert.equal(size.entries, 10_000);
        assert.ok(Math.abs(size.keyBytes - keyBytes) / keyBytes < 0.05, `keys ${size.keyBytes}`);
        assert.ok(
          Math.abs(size.valueBytes - valueBytes) / valueBytes < 0.1,
          `values ${size.valueBytes} vs ${valueBytes}`,
        );
      }));

    it('flushes', () =>
      withEngine(async (e) => {
        const p = e.write((t) => t.put('t', b('a'), b('1')), visible);
        await e.flush();
        await p;
        assert.equal(typeof e.stats().storageSizeBytes, 'number');
      }));

    if (h.reopen !== undefined) {
      const reopen = h.reopen;
      it('keeps committed data, tables and seq across a restart', async () => {
        let e = await h.open();
        try {
          await e.write((t) => {
            for (let i = 0; i < 100; i++) t.put('t', bytes(i), b(`v${i}`));
            t.put('cleared', b('k'), b('v'));
            t.put('\ud800odd', b('k'), b('v'));
          }, durable);
          await e.write((t) => t.clearTable('cleared'), durable);
          await e.write((t) => t.put('cleared', b('k2'), b('v2')), visible);
          const seq = e.committedSeq;
          e = await reopen(e);
          assert.equal(e.committedSeq, seq);
          const s = e.snapshot();
          assert.equal(s.seq, seq);
          assert.equal(s.count('t'), 100);
          assert.equal(String(s.get('t', bytes(42))), 'v42');
          assert.deepEqual(pairs(s.scan('cleared')), [[hex(b('k2')), hex(b('v2'))]]);
          assert.equal(String(s.get('\ud800odd', b('k'))), 'v');
          s.release();
          const next = await e.write((t) => (t.put('t', b('more'), b('1')), t.seq), durable);
          assert.equal(next, seq + 1);
        } finally {
          await e.close();
        }
      });
    }

    it('exports a table as a snapshot saw it and imports it, as often as wanted', () =>
      withEngine(async (e) => {
        await e.write((t) => {
          for (let i = 0; i < 300; i++) t.put('src', b(`k${1000 + i}`), b(`v${i}`));
          t.put('dst', b('old'), b('gone after import'));
        }, durable);
        const snap = e.snapshot();
        const image = await exportTableImage(snap, 'src', { chunkEntries: 64 });
        const empty = await exportTableImage(snap, 'never', { chunkEntries: 64 });
        snap.release();
        const before = pairs(image.entries());
        assert.equal(image.count, 300);
        assert.equal(
          image.bytes,
          before.reduce((n, [k, v]) => n + k.length / 2 + v.length / 2, 0),
        );
        assert.equal(empty.count, 0);
        // Later writes to the source change neither the image nor what it restores.
        await e.write((t) => {
          t.put('src', b('k1000'), b('changed'));
          t.delete('src', b('k1001'));
          t.put('src', b('new'), b('x'));
        }, durable);
        for (const round of [1, 2]) {
          await e.write((t) => {
            importImage(t, 'dst', image);
            importImage(t, 'gone', empty);
            // The transaction sees the imported table at once, and may change it.
            assert.equal(t.count('dst'), 300);
            t.put('dst', b(`round${round}`), b('x'));
          }, durable);
          const s = e.snapshot();
          assert.equal(s.count('dst'), 301);
          assert.equal(s.get('dst', b('old')), undefined);
          assert.equal(Buffer.from(s.get('dst', b('k1000')) ?? []).toString(), 'v0');
          assert.equal(s.count('gone'), 0);
          s.release();
          // The table's size figures follow the import (dbStats/collStats read them).
          const keyBytes = before.reduce((n, [k]) => n + k.length / 2, 0) + `round${round}`.length;
          assert.deepEqual(e.tableSize('dst'), {
            entries: 301,
            keyBytes,
            valueBytes: image.bytes - keyBytes + `round${round}`.length + 1,
          });
          assert.deepEqual(e.tableSize('gone'), { entries: 0, keyBytes: 0, valueBytes: 0 });
        }
        assert.deepEqual(pairs(image.entries()), before);
        const now = e.snapshot();
        assert.equal(Buffer.from(now.get('src', b('k1000')) ?? []).toString(), 'changed');
        now.release();
        // A failed transaction's import leaves the table as it was.
        await assert.rejects(
          e.write((t) => {
            importImage(t, 'dst', empty);
            throw new Error('no');
          }, durable),
          /no/,
        );
        const after = e.snapshot();
        assert.equal(after.count('dst'), 301);
        after.release();
      }));

    it('agrees with a reference model on random operation sequences (property)', async () => {
      const tables = ['t0', 't1', 't2'];
      const keyArb = fc
        .uint8Array({ maxLength: 3 })
        .map((a) => Buffer.from(a.map((x) => [0x00, 0x01, 0x7f, 0xff][x % 4] as number)));
      const boundsArb = fc.record(
        {
          start: keyArb,
          startInclusive: fc.boolean(),
          end: keyArb,
          endInclusive: fc.boolean(),
          reverse: fc.boolean(),
        },
        { requiredKeys: ['reverse'] },
      );
      const opArb = fc.oneof(
        {
          weight: 5,
          arbitrary: fc.record({
            op: fc.constant('put' as const),
            t: fc.constantFrom(...tables),
            k: keyArb,
            v: fc.uint8Array({ maxLength: 4 }),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            op: fc.constant('del' as const),
            t: fc.constantFrom(...tables),
            k: keyArb,
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            op: fc.constant('clear' as const),
            t: fc.constantFrom(...tables),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            op: fc.constant('get' as const),
            t: fc.constantFrom(...tables),
            k: keyArb,
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            op: fc.constant('scan' as const),
            t: fc.constantFrom(...tables),
            o: boundsArb,
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            op: fc.constant('count' as const),
            t: fc.constantFrom(...tables),
          }),
        },
      );
      const txnArb = fc.record({ ops: fc.array(opArb, { maxLength: 12 }), fail: fc.boolean() });
      const stepArb = fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record({
            kind: fc.constant('writes' as const),
            txns: fc.array(txnArb, { minLength: 1, maxLength: 4 }),
          }),
        },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('snap' as const) }) },
        {
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant('check' as const),
            i: fc.nat(),
            o: boundsArb,
            t: fc.constantFrom(...tables),
          }),
        },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('release' as const), i: fc.nat() }) },
      );

      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), async (steps) => {
          const e = await h.open();
          const snaps: { snap: Snapshot; model: ReferenceModel }[] = [];
          try {
            let model = new ReferenceModel();
            for (const step of steps) {
              if (step.kind === 'writes') {
                // Issued together, so persistent engines commit them as one batch.
                const promises = step.txns.map((txn) =>
                  e.write((t) => {
                    const m = model.clone();
                    for (const op of txn.ops) {
                      switch (op.op) {
                        case 'put':
                          t.put(op.t, op.k, op.v);
                          m.put(op.t, op.k, op.v);
                          break;
                        case 'del':
                          assert.equal(t.delete(op.t, op.k), m.delete(op.t, op.k));
                          break;
                        case 'clear':
                          t.clearTable(op.t);
                          m.clearTable(op.t);
                          break;
                        case 'get':
                          assert.equal(
                            hex(t.get(op.t, op.k) ?? bytes(0xee, 0xee)),
                            hex(m.get(op.t, op.k) ?? bytes(0xee, 0xee)),
                          );
                          break;
                        case 'scan':
                          assert.deepEqual(pairs(t.scan(op.t, op.o)), m.scan(op.t, op.o));
                          break;
                        case 'count':
                          assert.equal(t.count(op.t), m.count(op.t));
                          break;
                      }
                    }
                    if (txn.fail) throw new Error('rollback');
                    model = m;
                  }, durable),
                );
                const results = await Promise.allSettled(promises);
                results.forEach((r, i) => {
                  if (r.status === 'rejected')
                    assert.equal((r.reason as Error).message, 'rollback', String(r.reason));
                  else assert.equal(step.txns[i]?.fail, false);
                });
              } else if (step.kind === 'snap') {
                snaps.push({ snap: e.snapshot(), model: model.clone() });
              } else if (step.kind === 'check' && snaps.length > 0) {
                const { snap, model: m } = snaps[step.i % snaps.length] as (typeof snaps)[number];
                for (const t of tables) {
                  assert.deepEqual(pairs(snap.scan(t)), m.scan(t));
                  assert.equal(snap.count(t), m.count(t));
                }
                assert.deepEqual(pairs(snap.scan(step.t, step.o)), m.scan(step.t, step.o));
              } else if (step.kind === 'release' && snaps.length > 0) {
                const [gone] = snaps.splice(step.i % snaps.length, 1);
                gone?.snap.release();
              }
              const now = e.snapshot();
              for (const t of tables) {
                assert.deepEqual(pairs(now.scan(t)), model.scan(t));
                assert.deepEqual(
                  pairs(now.scan(t, { reverse: true })),
                  model.scan(t, { reverse: true }),
                );
              }
              now.release();
            }
          } finally {
            for (const s of snaps) s.snap.release();
            await e.close();
          }
        }),
        { numRuns: h.propertyRuns },
      );
    });
  });
}
