// The sqlite and jsonfile engines under the whole server, through the driver: data, indexes
// and uniqueness survive a stop and a start on the same dbPath; bad input leaves the store as
// it was; and a machine where better-sqlite3 cannot load still serves the other engines and
// refuses sqlite with a clear error and log line.

import { after, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';
import { loadSqlite } from '../../src/storage/sqlite/sqlite-engine.js';

const sqliteMissing = await loadSqlite().then(
  () => undefined,
  (e: unknown) => (e instanceof Error ? e.message : String(e)),
);
if (sqliteMissing !== undefined) console.log(`# SKIP sqlite server tests: ${sqliteMissing}`);

const root = mkdtempSync(join(tmpdir(), 'secantus-engines-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

for (const engine of ['sqlite', 'jsonfile'] as const) {
  describe(
    `server on the ${engine} engine`,
    { skip: engine === 'sqlite' && sqliteMissing !== undefined },
    () => {
      it('keeps documents, indexes and uniqueness across a restart; refused writes change nothing', async () => {
        const dbPath = join(root, `db${dirs++}`);
        const first = await startTestServer({ dbPath, storageEngine: engine });
        try {
          const c = first.client.db('keep').collection<TestDoc>('c');
          await c.insertMany(
            Array.from({ length: 200 }, (_, i) => ({ _id: i, v: i * 2, s: `s${i}` })),
          );
          await c.createIndex({ v: 1 }, { unique: true });
          await c.updateOne({ _id: 7 }, { $set: { s: 'changed' } });
          await c.deleteOne({ _id: 8 });
          await assert.rejects(c.insertOne({ _id: 'dup', v: 2 }), { code: 11000 });
          const status = await first.client.db('admin').command({ serverStatus: 1 });
          assert.equal((status['storageEngine'] as { name?: unknown } | undefined)?.name, engine);
        } finally {
          await first.stop();
        }
        const second = await startTestServer({ dbPath, storageEngine: engine });
        try {
          const c = second.client.db('keep').collection<TestDoc>('c');
          assert.equal(await c.countDocuments(), 199);
          assert.equal((await c.findOne({ _id: 7 }))?.['s'], 'changed');
          assert.equal(await c.findOne({ _id: 8 }), null);
          assert.equal(await c.findOne({ _id: 'dup' }), null);
          assert.deepEqual(
            (await c.listIndexes().toArray()).map((i) => i['name']),
            ['_id_', 'v_1'],
          );
          await assert.rejects(c.insertOne({ _id: 'dup', v: 4 }), { code: 11000 });
          assert.deepEqual(
            (
              await c
                .find({ v: { $gte: 390 } })
                .sort({ v: 1 })
                .toArray()
            ).map((d) => d._id),
            [195, 196, 197, 198, 199],
          );
        } finally {
          await second.stop();
        }
      });
    },
  );
}

describe('sqlite engine without its binding', () => {
  it('refuses sqlite with a clear error and log line; the other engines still serve', async () => {
    const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
    const embed = new URL('../../src/embed/index.ts', import.meta.url).href;
    const log = new URL('../../src/log.ts', import.meta.url).href;
    // A resolve hook that makes better-sqlite3 missing, as on a machine where the optional
    // dependency did not install.
    const hook = `export async function resolve(s, c, next) {
      if (s === 'better-sqlite3') throw new Error("Cannot find package 'better-sqlite3'");
      return next(s, c);
    }`;
    const code = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
      const { SecantusServer } = await import(${JSON.stringify(embed)});
      const { Logger, streamSink } = await import(${JSON.stringify(log)});
      const logger = new Logger(streamSink(process.stdout), 'info');
      const mem = await SecantusServer.start({ logger });
      console.log(JSON.stringify({ memory: 'started' }));
      await mem.stop();
      try {
        await SecantusServer.start({ storageEngine: 'sqlite', dbPath: ${JSON.stringify(join(root, 'nobinding'))}, logger });
        console.log(JSON.stringify({ sqlite: 'started' }));
      } catch (e) {
        console.log(JSON.stringify({ sqlite: e.name, message: e.message }));
      }`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exit = await new Promise<number | null>((r) => child.on('close', (x) => r(x)));
    clearTimeout(guard);
    assert.equal(exit, 0, err);
    const lines = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(
      lines.some((l) => l['memory'] === 'started'),
      out,
    );
    const refused = lines.find((l) => 'sqlite' in l);
    assert.equal(refused?.['sqlite'], 'StorageUnavailableError', out);
    assert.match(
      String(refused?.['message']),
      /sqlite storage engine is unavailable.*better-sqlite3/,
    );
    const logged = lines.find((l) => l['msg'] === 'Storage engine unavailable');
    assert.equal(logged?.['s'], 'E', out);
    assert.equal((logged?.['attr'] as Record<string, unknown> | undefined)?.['engine'], 'sqlite');
  });
});
