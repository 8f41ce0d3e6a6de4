// The sqlite engine: one SQLite database file in the data directory, through better-sqlite3
// (an optional peer dependency the user installs, loaded on first use; see loadSqlite()).
//
// Layout: `kv(t, k, v)` WITHOUT ROWID with primary key (t, k), where t is a table id and k
// the key as a BLOB. SQLite compares BLOBs with memcmp and then by length, which is exactly
// the engine contract's key order, so every range scan is an index range of the primary key.
// Table names map to ids in `tables` (names stored as UTF-16 BLOBs, losslessly, as lmdb does);
// `meta` holds the format version and the committed seq, written in every commit.
//
// Writes: `write()` queues; a microtask runs everything queued in one SQLite transaction
// (BEGIN IMMEDIATE ... COMMIT: one commit, one fsync — group commit). Each `fn` runs on a
// write overlay (../write-overlay.ts) reading through to that transaction, so a callback that
// throws never reaches SQLite; its buffered writes are applied inside a SAVEPOINT, so one that
// fails inside SQLite (a full disk) is rolled back alone and the rest of the batch goes on.
// journal_mode=WAL with synchronous=FULL: COMMIT returns after the WAL is fsync'd, so every
// acknowledged write is on disk. better-sqlite3 is synchronous: that fsync holds the event
// loop for the disk's flush latency once per batch (docs/engines.md).
//
// Snapshots: a read connection with an open read transaction (WAL readers see the database
// as of their first read, whatever commits later). Snapshots taken at the same seq share one
// connection (reference-counted); released connections go back to a small pool. Scans read
// pages of rows keyed on the last key seen (no statement stays open between pages, so any
// number of scans, gets and counts can interleave on one connection).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type {
  Bytes,
  EngineStats,
  Entry,
  ScanOptions,
  Snapshot,
  StorageEngine,
  TableSize,
  WriteOptions,
  WriteTxn,
} from '../engine.js';
import { StorageUnavailableError } from '../engine.js';
import { fullRange, isEmptyRange, toKeyRange, type KeyRange } from '../key-range.js';
import { OverlayTxn, tombstone, type BaseReader, type TableWrites } from '../write-overlay.js';
import {
  runWriteCallback,
  defaultMaxKeyBytes,
  StorageClosedError,
  useAfterEnd,
} from '../validate.js';
import { DirectoryLock } from '../lock-file.js';
import { TableSizeCache } from '../table-size.js';
import { limits } from '../../limits.js';
import { silentLogger, type Logger } from '../../log.js';

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;
type DatabaseConstructor = typeof BetterSqlite3;

/** The database file inside the data directory. */
export const sqliteFileName = 'secantus.sqlite';
const formatVersion = 1;

let loaded: Promise<DatabaseConstructor> | undefined;

async function load(): Promise<DatabaseConstructor> {
  try {
    const mod = (await import('better-sqlite3')) as unknown as { default?: DatabaseConstructor };
    const Db = mod.default ?? (mod as unknown as DatabaseConstructor);
    // The native binding loads with the first database: fail here, not at first use.
    new Db(':memory:').close();
    return Db;
  } catch (e) {
    throw new StorageUnavailableError(
      'sqlite',
      `the better-sqlite3 package could not be loaded (install it beside secantusdb: npm install better-sqlite3@12): ${
        e instanceof Error ? e.message : String(e)
      }`,
    );
  }
}

/** better-sqlite3, or StorageUnavailableError when its native binding cannot load here. */
export function loadSqlite(): Promise<DatabaseConstructor> {
  loaded ??= load().catch((e: unknown) => {
    loaded = undefined; // a later call tries again (the package may have been installed since)
    throw e;
  });
  return loaded;
}

export interface SqliteEngineOptions {
  readonly path: string;
  /** synchronous=NORMAL instead of FULL: commits survive a process crash, not a power loss. */
  readonly noSync?: boolean;
  readonly logger?: Logger;
}

function asBuffer(b: Bytes): Buffer {
  return b instanceof Buffer ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

function nameBlob(table: string): Buffer {
  return Buffer.from(table, 'utf16le');
}

/**
 * Page cache and memory map per connection. SQLite's default cache (2 MB) made random gets
 * on a 20 MB table read pages with a syscall each; the map serves the database file's pages
 * without one (WAL pages are still read).
 */
function tuneConnection(db: Database): Database {
  db.pragma(`cache_size = -${limits.sqliteCacheKiB}`);
  db.pragma(`mmap_size = ${limits.sqliteMmapBytes}`);
  return db;
}

/** Prepared statements of one connection, the scan variants made on first use. */
class Statements {
  readonly get: Statement;
  readonly count: Statement;
  readonly seq: Statement;
  private readonly scans = new Map<string, Statement>();

  constructor(readonly db: Database) {
    this.get = db.prepare('SELECT v FROM kv WHERE t = ? AND k = ?').pluck();
    this.count = db.prepare('SELECT count(*) FROM kv WHERE t = ?').pluck();
    this.seq = db.prepare("SELECT v FROM meta WHERE k = 'seq'").pluck();
  }

  /** Up to `limit` rows of `range` in its direction (bounds as given, `t` first). */
  scan(range: KeyRange): Statement {
    const lo = range.lo === undefined ? '' : range.loInclusive ? '>=' : '>';
    const hi = range.hi === undefined ? '' : range.hiInclusive ? '<=' : '<';
    const id = `${lo}|${hi}|${range.reverse ? 'r' : 'f'}`;
    let s = this.scans.get(id);
    if (s === undefined) {
      s = this.db
        .prepare(
          'SELECT k, v FROM kv WHERE t = @t' +
            (lo === '' ? '' : ` AND k ${lo} @lo`) +
            (hi === '' ? '' : ` AND k ${hi} @hi`) +
            ` ORDER BY k ${range.reverse ? 'DESC' : 'ASC'} LIMIT @limit`,
        )
        .raw();
      this.scans.set(id, s);
    }
    return s;
  }
}

/** Rows per page of a scan: small first (a findOne reads one), larger as the scan goes on. */
const firstPageRows = 16;
const pageRowsMax = 1024;

/**
 * The entries of `range` in table `id`, read in pages. Each page is a complete statement, so
 * nothing stays open on the connection between pages; `live()` runs before each row.
 */
function* pagedScan(
  st: Statements,
  id: number | undefined,
  range: KeyRange,
  live: () => void,
): Generator<Entry, void, undefined> {
  if (id === undefined || isEmptyRange(range)) return;
  let r = range;
  let limit = firstPageRows;
  for (;;) {
    live();
    const params: Record<string, unknown> = { t: id, limit };
    if (r.lo !== undefined) params['lo'] = asBuffer(r.lo);
    if (r.hi !== undefined) params['hi'] = asBuffer(r.hi);
    const rows = st.scan(r).all(params) as [Buffer, Buffer][];
    for (const [key, value] of rows) {
      live();
      yield { key, value };
    }
    if (rows.length < limit) return;
    const last = (rows[rows.length - 1] as [Buffer, Buffer])[0];
    r = r.reverse ? { ...r, hi: last, hiInclusive: false } : { ...r, lo: last, loInclusive: false };
    limit = Math.min(limit * 4, pageRowsMax);
  }
}

/** One read connection holding a read transaction at `seq`, shared by its snapshots. */
class ReadTxn {
  refs = 0;
  constructor(
    readonly st: Statements,
    readonly seq: number,
  ) {}
}

class SqliteSnapshot implements Snapshot {
  private txn: ReadTxn | undefined;
  readonly seq: number;

  constructor(
    txn: ReadTxn,
    private readonly engine: SqliteEngine,
  ) {
    this.txn = txn;
    this.seq = txn.seq;
    txn.refs++;
  }

  private view(): ReadTxn {
    if (this.txn === undefined) throw useAfterEnd('snapshot');
    return this.txn;
  }

  get(table: string, key: Bytes): Bytes | undefined {
    const t = this.view();
    const id = this.engine.tableId(table);
    if (id === undefined) return undefined;
    return t.st.get.get(id, asBuffer(key)) as Buffer | undefined;
  }

  scan(table: string, options?: ScanOptions): IterableIterator<Entry> {
    const t = this.view();
    return pagedScan(t.st, this.engine.tableId(table), toKeyRange(options), () => this.view());
  }

  count(table: string): number {
    const t = this.view();
    const id = this.engine.tableId(table);
    return id === undefined ? 0 : (t.st.count.get(id) as number);
  }

  release(): void {
    const t = this.txn;
    if (t === undefined) return;
    this.txn = undefined;
    this.engine.releaseRead(t, this);
  }
}

interface Queued {
  run(): void;
}

/** Idle read connections kept for later snapshots; more are closed on release. */
const idleReadersMax = 4;

export class SqliteEngine implements StorageEngine {
  readonly name = 'sqlite';
  readonly persistent = true;
  readonly maxKeyBytes = defaultMaxKeyBytes;

  private seq: number;
  private readonly ids = new Map<string, number>();
  private nextId: number;
  private readonly queue: Queued[] = [];
  private drainScheduled = false;
  private closing = false;
  private closed: Promise<void> | undefined;
  private idle: Promise<void> = Promise.resolve();
  private resolveIdle: (() => void) | undefined;
  /** The read transaction at the latest seq, shared by snapshots taken there. */
  private current: ReadTxn | undefined;
  private readonly idleReaders: Statements[] = [];
  private readonly snapshots = new Set<SqliteSnapshot>();
  private readonly sizes = new TableSizeCache(() => this.snapshot());
  private readonly w: Statements;
  private readonly put: Statement;
  private readonly del: Statement;
  private readonly clear: Statement;
  private readonly setSeq: Statement;
  private readonly addTable: Statement;

  private constructor(
    private readonly Db: DatabaseConstructor,
    private readonly file: string,
    private readonly db: Database,
    private readonly lock: DirectoryLock,
    private readonly logger: Logger,
  ) {
    this.w = new Statements(db);
    this.put = db.prepare(
      'INSERT INTO kv (t, k, v) VALUES (?, ?, ?) ON CONFLICT (t, k) DO UPDATE SET v = excluded.v',
    );
    this.del = db.prepare('DELETE FROM kv WHERE t = ? AND k = ?');
    this.clear = db.prepare('DELETE FROM kv WHERE t = ?');
    this.setSeq = db.prepare("UPDATE meta SET v = ? WHERE k = 'seq'");
    this.addTable = db.prepare('INSERT INTO tables (name, id) VALUES (?, ?)');
    this.seq = this.w.seq.get() as number;
    let maxId = 0;
    for (const row of db.prepare('SELECT name, id FROM tables').raw().all() as [Buffer, number][]) {
      const [name, id] = row;
      this.ids.set(name.toString('utf16le'), id);
      if (id > maxId) maxId = id;
    }
    this.nextId = maxId + 1;
  }

  static async open(options: SqliteEngineOptions): Promise<SqliteEngine> {
    const Db = await loadSqlite();
    const lock = DirectoryLock.acquire(options.path);
    let db: Database | undefined;
    try {
      const file = path.join(options.path, sqliteFileName);
      db = new Db(file);
      // Before the file has any page (no effect later): a WITHOUT ROWID row longer than about
      // a quarter of a page spills into overflow pages; with 4 KiB pages a 1 KiB document
      // took a page of its own and the file grew to 4.6× the data (measured).
      db.pragma(`page_size = ${limits.sqlitePageBytes}`);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.noSync === true ? 'NORMAL' : 'FULL'}`);
      tuneConnection(db);
      // Only this process writes (the directory lock); readers never wait for a lock.
      db.exec(`
        CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS tables (name BLOB PRIMARY KEY, id INTEGER NOT NULL UNIQUE);
        CREATE TABLE IF NOT EXISTS kv (t INTEGER NOT NULL, k BLOB NOT NULL, v BLOB NOT NULL,
          PRIMARY KEY (t, k)) WITHOUT ROWID;
        INSERT OR IGNORE INTO meta (k, v) VALUES ('format', ${formatVersion}), ('seq', 0);
      `);
      const format = db.prepare("SELECT v FROM meta WHERE k = 'format'").pluck().get();
      if (format !== formatVersion)
        throw new Error(
          `${file} has storage format ${String(format)}; this server reads format ${formatVersion}`,
        );
      return new SqliteEngine(Db, file, db, lock, options.logger ?? silentLogger);
    } catch (e) {
      db?.close();
      lock.release();
      throw e;
    }
  }

  get committedSeq(): number {
    return this.seq;
  }

  /** The id of a table that was ever written, or undefined. Ids are never reused. */
  tableId(table: string): number | undefined {
    return this.ids.get(table);
  }

  snapshot(): Snapshot {
    if (this.closing) throw new StorageClosedError();
    let t = this.current;
    if (t === undefined || t.seq !== this.seq) {
      const st = this.idleReaders.pop() ?? new Statements(tuneConnection(new this.Db(this.file)));
      st.db.exec('BEGIN');
      // The first read starts the read transaction: from here on, later commits are invisible.
      const seq = st.seq.get() as number;
      t = new ReadTxn(st, seq);
      this.current = t;
    }
    const s = new SqliteSnapshot(t, this);
    this.snapshots.add(s);
    return s;
  }

  /** @internal A snapshot let go of its read transaction. */
  releaseRead(t: ReadTxn, s: SqliteSnapshot): void {
    this.snapshots.delete(s);
    if (--t.refs > 0) return;
    if (this.current === t) this.current = undefined;
    t.st.db.exec('COMMIT');
    if (this.idleReaders.length < idleReadersMax && !this.closing) this.idleReaders.push(t.st);
    else t.st.db.close();
  }

  write<T>(fn: (txn: WriteTxn) => T, _options: WriteOptions): Promise<T> {
    if (this.closing) return Promise.reject(new StorageClosedError());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: () => this.runOne(fn, resolve, reject) });
      if (!this.drainScheduled) {
        this.drainScheduled = true;
        if (this.resolveIdle === undefined) this.idle = new Promise((r) => (this.resolveIdle = r));
        queueMicrotask(() => this.drain());
      }
    });
  }

  /** Results of the batch's transactions, settled once the batch has committed (or not). */
  private settled: (() => void)[] = [];
  private failed: ((e: unknown) => void)[] = [];

  private drain(): void {
    const startSeq = this.seq;
    this.settled = [];
    this.failed = [];
    let commitError: unknown;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        // Writes queued by a callback extend this same batch, after the ones before them.
        for (let i = 0; i < this.queue.length; i++) (this.queue[i] as Queued).run();
        this.db.exec('COMMIT');
      } catch (e) {
        commitError = e;
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      }
    } catch (e) {
      commitError = e;
    }
    this.queue.length = 0;
    this.drainScheduled = false;
    const settled = this.settled;
    const failed = this.failed;
    if (commitError === undefined) {
      for (const ok of settled) ok();
    } else {
      this.seq = startSeq;
      this.sizes.clear();
      this.logger.warn('STORAGE', 7_310_101, 'SQLite commit failed; its writes were rolled back', {
        error: commitError instanceof Error ? commitError.message : String(commitError),
      });
      for (const no of failed) no(commitError);
    }
    const resolveIdle = this.resolveIdle;
    this.resolveIdle = undefined;
    resolveIdle?.();
  }

  private readonly base: BaseReader = {
    get: (table, key) => {
      const id = this.ids.get(table);
      return id === undefined ? undefined : (this.w.get.get(id, asBuffer(key)) as Buffer);
    },
    scan: (table, range) => pagedScan(this.w, this.ids.get(table), range, () => undefined),
    count: (table) => {
      const id = this.ids.get(table);
      return id === undefined ? 0 : (this.w.count.get(id) as number);
    },
  };

  private runOne<T>(
    fn: (txn: WriteTxn) => T,
    resolve: (v: T) => void,
    reject: (e: unknown) => void,
  ): void {
    const txn = new OverlayTxn(this.base, this.seq + 1, this.maxKeyBytes);
    const ran = runWriteCallback(txn, fn, reject);
    if (ran === undefined) return;
    const { result } = ran;
    try {
      this.db.exec('SAVEPOINT w');
      try {
        for (const [table, writes] of txn.tables) this.apply(table, writes);
        this.setSeq.run(txn.seq);
        this.db.exec('RELEASE w');
      } catch (e) {
        this.db.exec('ROLLBACK TO w');
        this.db.exec('RELEASE w');
        throw e;
      }
    } catch (e) {
      reject(e);
      return;
    }
    this.seq = txn.seq;
    this.settled.push(() => resolve(result));
    this.failed.push(reject);
  }

  private apply(table: string, writes: TableWrites): void {
    let id = this.ids.get(table);
    if (id !== undefined && writes.cleared) this.clear.run(id);
    const c = writes.entries.cursor(fullRange);
    while (c.next()) {
      const key = c.key as Buffer;
      const value = c.value;
      if (value === tombstone || value === undefined) {
        if (id !== undefined) this.del.run(id, key);
        continue;
      }
      if (id === undefined) {
        id = this.nextId++;
        this.addTable.run(nameBlob(table), id);
        // Harmless if the savepoint rolls back: ids are never reused and no row carries it.
        this.ids.set(table, id);
      }
      this.put.run(id, key, asBuffer(value));
    }
  }

  flush(): Promise<void> {
    // With synchronous=FULL every commit is already synced; NORMAL syncs the WAL at checkpoints.
    if (!this.closing) this.db.pragma('wal_checkpoint(PASSIVE)');
    return Promise.resolve();
  }

  stats(): EngineStats {
    let bytes = 0;
    for (const f of [this.file, `${this.file}-wal`]) {
      try {
        bytes += fs.statSync(f).size;
      } catch {
        // absent: nothing to count
      }
    }
    return { storageSizeBytes: bytes };
  }

  tableSize(table: string): TableSize {
    return this.sizes.sizeOf(table, this.seq);
  }

  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    await this.idle;
    for (const s of [...this.snapshots]) s.release();
    for (const st of this.idleReaders) st.db.close();
    this.idleReaders.length = 0;
    try {
      // Fold the WAL back into the database file, so a closed data directory is one file.
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      this.db.close();
    } finally {
      this.lock.release();
    }
  }
}
