// What DuckDB would give as a storage engine, measured before deciding (docs/export-import.md,
// "DuckDB as a storage engine"): the engine contract's operations on a table of byte keys and
// values (BLOB primary key), through @duckdb/node-api, next to the same operations through
// better-sqlite3 (WAL, synchronous=FULL, as the sqlite engine runs). DuckDB is not a
// dependency: `npm install --no-save @duckdb/node-api` first; without it this prints why not.
//
//   tsx bench/duckdb-kv.ts [--n 2000]

import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';

interface DuckConnection {
  run(sql: string, values?: unknown[]): Promise<unknown>;
  runAndReadAll(sql: string, values?: unknown[]): Promise<{ getRows(): unknown[][] }>;
  prepare(sql: string): Promise<{
    bind(values: unknown[]): void;
    run(): Promise<unknown>;
    runAndReadAll(): Promise<{ getRows(): unknown[][] }>;
  }>;
  closeSync(): void;
}
interface DuckModule {
  DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<DuckConnection> }> };
  DuckDBBlobValue: new (bytes: Uint8Array) => unknown;
}

function key(i: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(Math.floor(i / 2 ** 32), 0);
  b.writeUInt32BE(i % 2 ** 32, 4);
  return b;
}

const value = Buffer.alloc(200, 7);

interface Row {
  readonly phase: string;
  readonly duckdb: string;
  readonly sqlite: string;
}

async function time(n: number, f: (i: number) => Promise<void> | void): Promise<string> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await f(i);
  const ms = performance.now() - start;
  return `${Math.round((n / ms) * 1000).toLocaleString('en-US')} ops/s (${((ms * 1000) / n).toFixed(0)} µs)`;
}

async function main(): Promise<void> {
  const nArg = process.argv.indexOf('--n');
  const n = nArg > 0 ? Number(process.argv[nArg + 1]) : 2000;
  const name = '@duckdb/node-api';
  let duck: DuckModule;
  try {
    duck = (await import(name)) as DuckModule;
  } catch {
    process.stdout.write(
      'not run: @duckdb/node-api is not installed (npm install --no-save @duckdb/node-api)\n',
    );
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'duckdb-kv-'));
  try {
    const instance = await duck.DuckDBInstance.create(join(dir, 'kv.duckdb'));
    const con = await instance.connect();
    await con.run('CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB NOT NULL)');
    const put = await con.prepare('INSERT OR REPLACE INTO kv VALUES ($1, $2)');
    const get = await con.prepare('SELECT v FROM kv WHERE k = $1');
    const sq = new Database(join(dir, 'kv.sqlite'));
    sq.pragma('journal_mode = WAL');
    sq.pragma('synchronous = FULL');
    sq.exec('CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID');
    const sqPut = sq.prepare('INSERT OR REPLACE INTO kv VALUES (?, ?)');
    const sqGet = sq.prepare('SELECT v FROM kv WHERE k = ?');
    const sqScan = sq.prepare('SELECT k, v FROM kv WHERE k >= ? ORDER BY k LIMIT 100');
    const rows: Row[] = [];
    rows.push({
      phase: `${n} puts, one commit each`,
      duckdb: await time(n, async (i) => {
        put.bind([new duck.DuckDBBlobValue(key(i)), new duck.DuckDBBlobValue(value)]);
        await put.run();
      }),
      sqlite: await time(n, (i) => {
        sqPut.run(key(i), value);
      }),
    });
    rows.push({
      phase: `${n} point gets`,
      duckdb: await time(n, async (i) => {
        get.bind([new duck.DuckDBBlobValue(key((i * 7919) % n))]);
        const r = await get.runAndReadAll();
        if (r.getRows().length !== 1) throw new Error('duckdb: key not found');
      }),
      sqlite: await time(n, (i) => {
        if (sqGet.get(key((i * 7919) % n)) === undefined) throw new Error('sqlite: key not found');
      }),
    });
    rows.push({
      phase: `${Math.floor(n / 10)} range scans of 100 keys`,
      duckdb: await time(Math.floor(n / 10), async (i) => {
        const r = await con.runAndReadAll(
          'SELECT k, v FROM kv WHERE k >= $1 ORDER BY k LIMIT 100',
          [new duck.DuckDBBlobValue(key((i * 97) % n))],
        );
        void r.getRows();
      }),
      sqlite: await time(Math.floor(n / 10), (i) => {
        sqScan.all(key((i * 97) % n));
      }),
    });
    const bulk = n * 5;
    rows.push({
      phase: `${bulk} puts in one transaction`,
      duckdb: await time(1, async () => {
        await con.run('BEGIN');
        for (let i = n; i < n + bulk; i++) {
          put.bind([new duck.DuckDBBlobValue(key(i)), new duck.DuckDBBlobValue(value)]);
          await put.run();
        }
        await con.run('COMMIT');
      }).then((s) =>
        s.replace(
          /^[\d,]+ ops\/s \(([\d.]+) µs\)$/,
          (_m, us: string) => `${(Number(us) / 1000).toFixed(0)} ms`,
        ),
      ),
      sqlite: await time(1, () => {
        sq.transaction(() => {
          for (let i = n; i < n + bulk; i++) sqPut.run(key(i), value);
        })();
      }).then((s) =>
        s.replace(
          /^[\d,]+ ops\/s \(([\d.]+) µs\)$/,
          (_m, us: string) => `${(Number(us) / 1000).toFixed(0)} ms`,
        ),
      ),
    });
    con.closeSync();
    sq.close();
    const size = async (f: string): Promise<number> =>
      (await stat(join(dir, f)).catch(() => ({ size: 0 }))).size;
    const duckBytes = (await size('kv.duckdb')) + (await size('kv.duckdb.wal'));
    const sqBytes = (await size('kv.sqlite')) + (await size('kv.sqlite-wal'));
    rows.push({
      phase: 'files (with WAL)',
      duckdb: `${Math.round(duckBytes / 1024)} KiB`,
      sqlite: `${Math.round(sqBytes / 1024)} KiB`,
    });
    process.stdout.write(
      '| phase | DuckDB (@duckdb/node-api) | SQLite (better-sqlite3, WAL, FULL) |\n|---|---|---|\n',
    );
    for (const r of rows) process.stdout.write(`| ${r.phase} | ${r.duckdb} | ${r.sqlite} |\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
