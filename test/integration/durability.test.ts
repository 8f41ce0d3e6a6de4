// Acknowledged means durable: the daemon on each durable engine (lmdb, sqlite, jsonfile),
// killed with SIGKILL mid-stream, keeps every write it acknowledged; a clean stop keeps
// everything; a second daemon on the same dbpath is refused.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { daemonScript, startDaemon } from '../helpers/daemon.js';
import type { Daemon } from '../helpers/daemon.js';
import type { TestDoc } from '../helpers/driver.js';
import { loadSqlite } from '../../src/storage/sqlite/sqlite-engine.js';

const sqliteMissing = await loadSqlite().then(
  () => undefined,
  (e: unknown) => (e instanceof Error ? e.message : String(e)),
);

/**
 * Daemons and clients a test starts, all stopped at its end whatever it asserted: a failed
 * assertion must not leave a daemon's pipes or a client's monitor keeping the process alive.
 */
function resources(): {
  start: typeof startDaemon;
  client: (port: number) => MongoClient;
  closeAll: () => Promise<void>;
} {
  const daemons: Daemon[] = [];
  const clients: MongoClient[] = [];
  return {
    start: async (...args) => {
      const d = await startDaemon(...args);
      daemons.push(d);
      return d;
    },
    client: (port) => {
      const c = client(port);
      clients.push(c);
      return c;
    },
    closeAll: async () => {
      await Promise.all(clients.map((c) => c.close(true).catch(() => undefined)));
      for (const d of daemons)
        if (d.proc.exitCode === null && d.proc.signalCode === null) {
          d.proc.kill('SIGKILL');
          await d.exited;
        }
    },
  };
}

/**
 * Every wait is bounded. After the SIGKILL the clients reconnect to a port nothing listens on,
 * in the kernel's ephemeral range: on Linux such a connect can meet its own socket (source
 * port = destination port) and succeed, and a command sent on it would then wait for a reply
 * forever (socketTimeoutMS defaults to none). One newcomer run hung so, with one client's
 * monitor left connecting and no daemon alive.
 */
function client(port: number): MongoClient {
  return new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`, {
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    socketTimeoutMS: 20_000,
    retryWrites: false,
  });
}

for (const engine of ['lmdb', 'sqlite', 'jsonfile'] as const) {
  const engineArgs = ['--storageEngine', engine];
  const skip = engine === 'sqlite' && sqliteMissing !== undefined;
  if (skip) console.log(`# SKIP durability on sqlite: ${sqliteMissing}`);
  describe(`durability (daemon on ${engine})`, { skip }, () => {
    test('SIGKILL mid-stream loses no acknowledged write', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'secantus-dur-'));
      const ds = resources();
      try {
        const d = await ds.start(dir, engineArgs);
        const writers = Array.from({ length: 4 }, () => ds.client(d.port));
        await Promise.all(writers.map((w) => w.connect()));
        const acked = new Set<string>();
        let stop = false;
        const loops = writers.map(async (w, wi) => {
          for (let i = 0; !stop; i++) {
            const id = `${wi}-${i}`;
            try {
              await w
                .db('dur')
                .collection<TestDoc>('c')
                .insertOne({ _id: id, pad: 'x'.repeat(200) });
              acked.add(id);
            } catch {
              return;
            }
          }
        });
        // Kill mid-stream once enough writes were acknowledged (bounded wait: the machine may be loaded).
        const waitUntil = Date.now() + 15_000;
        while (acked.size < 200 && Date.now() < waitUntil)
          await new Promise((r) => setTimeout(r, 50));
        d.proc.kill('SIGKILL');
        stop = true;
        await Promise.all(loops);
        await d.exited;
        await Promise.all(writers.map((w) => w.close(true).catch(() => undefined)));
        assert.ok(acked.size > 50, `acknowledged ${acked.size} writes before the kill`);

        const d2 = await ds.start(dir, engineArgs);
        const c = ds.client(d2.port);
        const ids = new Set(
          (
            await c
              .db('dur')
              .collection('c')
              .find({}, { projection: { _id: 1 } })
              .toArray()
          ).map((x) => String(x['_id'])),
        );
        const missing = [...acked].filter((id) => !ids.has(id));
        assert.deepEqual(
          missing.slice(0, 5),
          [],
          `found ${ids.size} of ${acked.size}; dbs: ${JSON.stringify(await c.db('admin').command({ listDatabases: 1 }))}`,
        );
        await c.close();
        d2.proc.kill('SIGTERM');
        assert.equal(await d2.exited, 0, 'SIGTERM exits 0');
      } finally {
        await ds.closeAll();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    // The other engines' restart and lock are tested in process (test/integration/engines.test.ts
    // and test/unit/storage/process-suite.ts): a daemon pair per engine costs ~10 s of CI.
    test(
      'restart after a clean stop keeps all data; a second process on the same dbpath is refused',
      { skip: engine !== 'lmdb' },
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'secantus-dur-'));
        const ds = resources();
        try {
          const d = await ds.start(dir, engineArgs);
          const c = ds.client(d.port);
          await c
            .db('keep')
            .collection<TestDoc>('c')
            .insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: i, v: i * 2 })));
          await c.db('keep').collection('c').createIndex({ v: 1 }, { unique: true });
          await c.close();

          const second = spawn(
            process.execPath,
            [daemonScript, '--port', '0', '--dbpath', dir, ...engineArgs],
            { stdio: ['ignore', 'ignore', 'pipe'] },
          );
          let stderr = '';
          second.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
          const guard = setTimeout(() => second.kill('SIGKILL'), 20_000);
          const code = await new Promise<number | null>((r) => second.on('exit', (x) => r(x)));
          clearTimeout(guard);
          assert.equal(code, 100, `a second daemon on the same dbpath exits with 100: ${stderr}`);

          d.proc.kill('SIGINT');
          assert.equal(await d.exited, 0);
          const d2 = await ds.start(dir, engineArgs);
          const c2 = ds.client(d2.port);
          assert.equal(await c2.db('keep').collection('c').countDocuments(), 500);
          const idx = await c2.db('keep').collection('c').listIndexes().toArray();
          assert.deepEqual(
            idx.map((i) => i['name']),
            ['_id_', 'v_1'],
          );
          await assert.rejects(
            c2.db('keep').collection<TestDoc>('c').insertOne({ _id: 'dup', v: 2 }),
            /E11000/,
          );
          await c2.close();
          d2.proc.kill('SIGTERM');
          assert.equal(await d2.exited, 0);
        } finally {
          await ds.closeAll();
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
}
