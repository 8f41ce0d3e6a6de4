// The sqlite engine: the shared contract and the cross-process suite on a real data
// directory, plus what is particular to it — one database file in WAL mode, the key order
// SQLite gives BLOBs, and a clear error when better-sqlite3 cannot load.

import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { registerContractSuite } from './contract.js';
import { diskEngineFixture, registerProcessSuite } from './process-suite.js';
import { openEngine } from '../../../src/storage/open.js';
import { loadSqlite, sqliteFileName } from '../../../src/storage/sqlite/sqlite-engine.js';

const available = await loadSqlite().then(
  () => true,
  (e: unknown) => {
    // A visible line, not a silent pass: this machine cannot run the sqlite engine.
    console.log(`# SKIP sqlite engine tests: ${e instanceof Error ? e.message : String(e)}`);
    return false;
  },
);

const { freshDir, openAt, contract } = diskEngineFixture('sqlite', 40);

if (available) {
  registerContractSuite(contract);

  registerProcessSuite({ engine: 'sqlite', freshDir, openAt });

  describe('sqlite engine', () => {
    it('needs a path, keeps one database file, and reports itself', async () => {
      await assert.rejects(openEngine({ engine: 'sqlite' }), TypeError);
      const dir = freshDir();
      const e = await openAt(dir);
      assert.equal(e.name, 'sqlite');
      assert.equal(e.persistent, true);
      await e.write((t) => t.put('t', Buffer.from('k'), Buffer.alloc(10_000, 1)), {
        durable: true,
      });
      assert.ok(e.stats().storageSizeBytes >= 10_000);
      await e.close();
      // A clean close folds the WAL back: what is left is the database file and nothing else.
      assert.deepEqual(fs.readdirSync(dir), [sqliteFileName]);
    });

    it('orders keys as memcmp, shorter prefix first, across the bytes SQLite might treat apart', async () => {
      const e = await openAt(freshDir());
      try {
        const keys = [
          [],
          [0],
          [0, 0],
          [0, 1],
          [1],
          [0x7f],
          [0x80],
          [0xc3, 0xa9],
          [0xff],
          [0xff, 0],
        ];
        const shuffled = [...keys].reverse();
        await e.write(
          (t) => {
            for (const k of shuffled) t.put('t', Buffer.from(k), Buffer.from('v'));
          },
          { durable: true },
        );
        const s = e.snapshot();
        const hex = (k: Uint8Array): string => Buffer.from(k).toString('hex');
        assert.deepEqual(
          [...s.scan('t')].map((x) => hex(x.key)),
          keys.map((k) => hex(Buffer.from(k))),
        );
        assert.deepEqual(
          [
            ...s.scan('t', { start: Buffer.from([0]), end: Buffer.from([0xff]), reverse: true }),
          ].map((x) => hex(x.key)),
          ['c3a9', '80', '7f', '01', '0001', '0000', '00'],
        );
        s.release();
      } finally {
        await e.close();
      }
    });

    it('keeps a snapshot stable across many later commits while others come and go', async () => {
      const e = await openAt(freshDir());
      try {
        await e.write(
          (t) => {
            for (let i = 0; i < 2000; i++)
              t.put('t', Buffer.from(String(i).padStart(5, '0')), Buffer.from('old'));
          },
          { durable: true },
        );
        const old = e.snapshot();
        const scan = old.scan('t');
        assert.equal(String(scan.next().value?.value), 'old');
        for (let round = 0; round < 5; round++) {
          await e.write(
            (t) => {
              for (let i = 0; i < 2000; i += 7)
                t.put('t', Buffer.from(String(i).padStart(5, '0')), Buffer.from(`new${round}`));
              t.put('t', Buffer.from(`zz${round}`), Buffer.from('x'));
            },
            { durable: false },
          );
          const s = e.snapshot();
          assert.equal(s.count('t'), 2001 + round);
          s.release();
        }
        let n = 1;
        for (const x of scan) {
          assert.equal(String(x.value), 'old');
          n++;
        }
        assert.equal(n, 2000);
        assert.equal(old.count('t'), 2000);
        old.release();
      } finally {
        await e.close();
      }
    });
  });
}
