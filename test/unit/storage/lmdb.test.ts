// The lmdb engine: the shared contract on a real data directory, plus what only a durable
// engine has — the data-directory lock, kill -9 durability, group commit, reclaiming
// cleared tables, reopening.

import { after, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { open as openLmdb } from 'lmdb';
import { registerContractSuite } from './contract.js';
import { registerProcessSuite, runChild } from './process-suite.js';
import type { StorageEngine } from '../../../src/storage/engine.js';
import { LmdbEngine } from '../../../src/storage/lmdb/lmdb-engine.js';
import { openEngine } from '../../../src/storage/open.js';
import { lockFileName } from '../../../src/storage/lock-file.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'secantus-lmdb-test-'));
let dirs = 0;
const freshDir = (): string => path.join(root, `db${dirs++}`);

after(() => fs.rmSync(root, { recursive: true, force: true }));

const pathOf = new WeakMap<StorageEngine, string>();

async function openAt(dir: string): Promise<LmdbEngine> {
  const e = await LmdbEngine.open({ path: dir });
  pathOf.set(e, dir);
  return e;
}

registerContractSuite({
  name: 'lmdb',
  open: () => openAt(freshDir()),
  reopen: async (e) => {
    const dir = pathOf.get(e);
    if (dir === undefined) throw new Error('reopen: engine not opened by this harness');
    await e.close();
    return openAt(dir);
  },
  propertyRuns: 40,
});

// The same contract with commits visible before their fsync (durable writes then wait for
// the package's flush promise instead of the commit).
registerContractSuite({
  name: 'lmdb, overlappingSync',
  open: async () => {
    const e = await LmdbEngine.open({ path: freshDir(), overlappingSync: true });
    return e;
  },
  propertyRuns: 15,
});

registerProcessSuite({ engine: 'lmdb', freshDir, openAt });

describe('lmdb engine', () => {
  it('needs a path and reports the key limit LMDB allows minus the table prefix', async () => {
    await assert.rejects(openEngine({ engine: 'lmdb' }), TypeError);
    const dir = freshDir();
    const e = await openEngine({ engine: 'lmdb', path: dir });
    assert.equal(e.name, 'lmdb');
    assert.equal(e.persistent, true);
    const raw = openLmdb({ path: path.join(root, 'probe'), keyEncoding: 'binary' }) as unknown as {
      maxKeySize: number;
      close(): Promise<void>;
    };
    assert.equal(e.maxKeyBytes, raw.maxKeySize - 4);
    await raw.close();
    await e.close();
  });

  it('takes over a stale lock: dead pid, or an empty file left by a crash', async () => {
    const dir = freshDir();
    fs.mkdirSync(dir, { recursive: true });
    const dead = await runChild('console.log(process.pid)');
    const deadPid = Number(dead.lines[0]);
    assert.ok(deadPid > 0);
    fs.writeFileSync(path.join(dir, lockFileName), `${deadPid}\n`);
    const e = await openAt(dir);
    assert.equal(fs.readFileSync(path.join(dir, lockFileName), 'utf8').trim(), String(process.pid));
    await e.close();
    fs.writeFileSync(path.join(dir, lockFileName), '');
    const e2 = await openAt(dir);
    await e2.close();
  });

  it('commits the writes of one event-loop turn together (group commit)', async () => {
    const e = await openAt(freshDir());
    try {
      await e.write((t) => t.put('t', Buffer.from('warm'), Buffer.from('up')), { durable: true });
      const before = e.diagnostics().lastTxnId;
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          e.write((t) => t.put('t', Buffer.from([i]), Buffer.from([i])), { durable: true }),
        ),
      );
      const txns = e.diagnostics().lastTxnId - before;
      assert.ok(txns >= 1 && txns <= 2, `200 writes took ${txns} LMDB transactions`);
    } finally {
      await e.close();
    }
  });

  it('rolls back alone a write whose apply fails inside LMDB; the rest of its batch commits', async () => {
    const injected = new Error('injected LMDB failure');
    const dir = freshDir();
    const e = await LmdbEngine.open({
      path: dir,
      testHooks: {
        beforeApply: (table) => {
          if (table === 'poison') throw injected;
        },
      },
    });
    try {
      const base = e.committedSeq;
      const results = await Promise.allSettled([
        e.write((t) => (t.put('a', Buffer.from('1'), Buffer.from('1')), t.seq), { durable: true }),
        e.write((t) => (t.put('new1', Buffer.from('1'), Buffer.from('1')), t.seq), {
          durable: true,
        }),
        // Creates a table, writes another, then fails: none of it may remain.
        e.write(
          (t) => {
            t.put('new2', Buffer.from('x'), Buffer.from('x'));
            t.put('a', Buffer.from('x'), Buffer.from('x'));
            t.put('poison', Buffer.from('x'), Buffer.from('x'));
            return t.seq;
          },
          { durable: true },
        ),
        e.write(
          (t) => (
            t.put('new3', Buffer.from('1'), Buffer.from(String(t.get('new1', Buffer.from('1'))))),
            t.seq
          ),
          { durable: true },
        ),
        e.write((t) => (t.put('a', Buffer.from('2'), Buffer.from(String(t.count('a')))), t.seq), {
          durable: true,
        }),
      ]);
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
        [base + 1, base + 2, 'injected LMDB failure', base + 3, base + 4],
      );
      const check = async (eng: StorageEngine): Promise<void> => {
        const s = eng.snapshot();
        assert.equal(s.seq, base + 4);
        assert.deepEqual(
          [...s.scan('a')].map((x) => `${String(x.key)}=${String(x.value)}`),
          ['1=1', '2=1'],
        );
        assert.equal(s.count('new1'), 1);
        assert.equal(s.count('new2'), 0);
        assert.equal(s.count('poison'), 0);
        assert.equal(String(s.get('new3', Buffer.from('1'))), '1');
        s.release();
      };
      await check(e);
      await e.close();
      const again = await openAt(dir);
      await check(again);
      await again.close();
    } finally {
      await e.close();
    }
  });

  it('fails only the write it had reached when a child transaction itself fails', async () => {
    let failures = 1;
    const e = await LmdbEngine.open({
      path: freshDir(),
      testHooks: {
        childBegin: () => {
          if (failures-- > 0) throw new Error('injected begin failure');
        },
      },
    });
    try {
      const base = e.committedSeq;
      const results = await Promise.allSettled(
        [1, 2, 3].map((i) =>
          e.write((t) => (t.put('t', Buffer.from([i]), Buffer.from([i])), t.seq), {
            durable: true,
          }),
        ),
      );
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
        ['injected begin failure', base + 1, base + 2],
      );
      const s = e.snapshot();
      assert.deepEqual(
        [...s.scan('t')].map((x) => x.key[0]),
        [2, 3],
      );
      s.release();
    } finally {
      await e.close();
    }
  });

  it('reclaims a cleared table in the background, also after a restart, without disturbing old snapshots', async () => {
    const dir = freshDir();
    let e = await LmdbEngine.open({ path: dir, reclaimBatchKeys: 300 });
    try {
      await e.write((t) => t.put('keep', Buffer.from('k'), Buffer.from('v')), { durable: true });
      const empty = e.diagnostics().entryCount;
      await e.write(
        (t) => {
          for (let i = 0; i < 3000; i++)
            t.put('big', Buffer.from(String(i).padStart(6, '0')), Buffer.alloc(64, 1));
        },
        { durable: true },
      );
      const full = e.diagnostics().entryCount;
      assert.equal(full, empty + 3000 + 1); // rows plus the catalog entry
      const old = e.snapshot();
      await e.write((t) => t.clearTable('big'), { durable: true });
      // Close before reclaiming can finish: the pending id is persisted and resumed on open.
      old.release();
      await e.close();
      e = await LmdbEngine.open({ path: dir, reclaimBatchKeys: 300 });
      const held = e.snapshot();
      await e.write((t) => t.put('big', Buffer.from('new'), Buffer.from('row')), { durable: true });
      await e.reclaimed();
      assert.equal(
        e.diagnostics().entryCount,
        empty + 1 + 1,
        'old rows gone; new row and its catalog entry remain',
      );
      assert.equal(held.count('big'), 0);
      held.release();
      const s = e.snapshot();
      assert.equal(s.count('big'), 1);
      assert.equal(s.count('keep'), 1);
      s.release();
    } finally {
      await e.close();
    }
  });

  it('lets a snapshot taken before a clear read the old rows while they are reclaimed', async () => {
    const e = await LmdbEngine.open({ path: freshDir(), reclaimBatchKeys: 100 });
    try {
      await e.write(
        (t) => {
          for (let i = 0; i < 1000; i++)
            t.put('big', Buffer.from(String(i).padStart(6, '0')), Buffer.from('x'));
        },
        { durable: true },
      );
      const old = e.snapshot();
      await e.write((t) => t.clearTable('big'), { durable: true });
      await e.reclaimed();
      assert.equal(old.count('big'), 1000);
      assert.equal([...old.scan('big', { reverse: true })].length, 1000);
      old.release();
    } finally {
      await e.close();
    }
  });

  it('refuses an LMDB environment that is not a SecantusDB data directory, and unlocks', async () => {
    const dir = freshDir();
    const foreign = openLmdb({ path: dir, keyEncoding: 'binary', encoding: 'binary' });
    await foreign.put(Buffer.from('someone'), Buffer.from('else'));
    await foreign.close();
    await assert.rejects(openAt(dir), /not a SecantusDB data directory/);
    assert.equal(fs.existsSync(path.join(dir, lockFileName)), false);
  });
});
