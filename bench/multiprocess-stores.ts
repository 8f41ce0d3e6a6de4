// The rows of the multi-process benchmark and one small adapter per row: the same five
// operations (bulk insert, read all, get by _id, update by _id, delete by _id) done the way
// each store is meant to be used. Workers (multiprocess-worker.ts) open a store in their own
// process; the harness opens one again after every worker closed, to check what is on disk.
//
// Each adapter is loaded on demand (dynamic import), so a worker of the nedb row does not
// load SecantusDB's server and the other way round.

import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineName } from '../src/storage/engine.js';
import { lockFileName } from '../src/storage/lock-file.js';
import type { JsonDoc } from './lib/multiprocess-plan.js';

export type RowKind =
  'embedded' | 'multiProcess' | 'daemon' | 'sqliteRaw' | 'nedb' | 'lokijs' | 'mingo';

export interface RowSpec {
  /** Stable key in the JSON. */
  readonly key: string;
  readonly label: string;
  readonly kind: RowKind;
  /** SecantusDB's engine for the embedded, multiProcess and daemon rows. */
  readonly engine?: EngineName;
  /** When a write is acknowledged, in the table's notes column. */
  readonly durability: string;
  /** Whether anything is left on disk to measure after close and reopen. */
  readonly persistent: boolean;
  /** Profiles this row does not run, with the reason published in its place. */
  readonly notRun?: { readonly minWorkers: number; readonly reason: string };
}

const perProcess = 'data lives in each process’s memory: separate processes share nothing';

export const rows: readonly RowSpec[] = [
  {
    key: 'memory',
    label: 'SecantusDB embedded, memory',
    kind: 'embedded',
    engine: 'memory',
    durability: 'in memory only',
    persistent: false,
    notRun: { minWorkers: 2, reason: perProcess },
  },
  {
    key: 'lmdb',
    label: 'SecantusDB embedded, lmdb',
    kind: 'embedded',
    engine: 'lmdb',
    durability: 'fsync per write',
    persistent: true,
  },
  {
    key: 'sqlite',
    label: 'SecantusDB embedded, sqlite',
    kind: 'embedded',
    engine: 'sqlite',
    durability: 'fsync per write (WAL, synchronous=FULL)',
    persistent: true,
  },
  {
    key: 'jsonfile',
    label: 'SecantusDB embedded, jsonfile',
    kind: 'embedded',
    engine: 'jsonfile',
    durability: 'fsync per write (append)',
    persistent: true,
  },
  {
    key: 'multiProcess',
    label: 'SecantusDB embedded, multiProcess (lmdb)',
    kind: 'multiProcess',
    engine: 'lmdb',
    durability: 'fsync per write (one daemon on demand)',
    persistent: true,
  },
  {
    key: 'daemon',
    label: 'SecantusDB daemon over the wire, lmdb',
    kind: 'daemon',
    engine: 'lmdb',
    durability: 'fsync per write (default write concern)',
    persistent: true,
  },
  {
    key: 'sqliteRaw',
    label: 'raw SQLite (better-sqlite3), reference',
    kind: 'sqliteRaw',
    durability: 'fsync per write (WAL, synchronous=FULL)',
    persistent: true,
  },
  {
    key: 'nedb',
    label: 'nedb (@seald-io/nedb)',
    kind: 'nedb',
    durability: 'appended, no fsync',
    persistent: true,
  },
  {
    key: 'lokijs',
    label: 'lokijs (file adapter)',
    kind: 'lokijs',
    durability: 'in memory; whole file saved at close',
    persistent: true,
  },
  {
    key: 'mingo',
    label: 'mingo (arrays in memory)',
    kind: 'mingo',
    durability: 'in memory only (no storage)',
    persistent: false,
    notRun: { minWorkers: 2, reason: perProcess },
  },
];

/** What every row does; `coll` names a collection, table or file. */
export interface Store {
  /** Insert `docs` in one bulk operation; the number stored. */
  insertMany(coll: string, docs: JsonDoc[]): Promise<number>;
  readAll(coll: string): Promise<JsonDoc[]>;
  get(coll: string, id: string): Promise<JsonDoc | null>;
  /** `$set: {status: 'updated'}, $inc: {version: 1}` on one document; whether it changed. */
  update(coll: string, id: string): Promise<boolean>;
  /** Whether one document was deleted. */
  remove(coll: string, id: string): Promise<boolean>;
  drop(coll: string): Promise<void>;
  close(): Promise<void>;
}

export interface StoreContext {
  /** The row's data directory (shared by all workers of a run). */
  readonly dir: string;
  /** The daemon's URI for the daemon row. */
  readonly uri?: string;
}

const dbName = 'bench';

/** The collection (table, file) the timed phases use. */
export const measuredCollection = 'docs';

/** An error as one line for the report: its class, its code if any, its first line. */
export function errorText(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    const first = e.message.split('\n')[0] ?? '';
    return `${e.name}${code === undefined ? '' : ` (${String(code)})`}: ${first}`.slice(0, 300);
  }
  return String(e).slice(0, 300);
}

/** The subset of the driver's and the embedded client's API the benchmark uses. */
interface MongoLikeCollection {
  insertMany(docs: JsonDoc[]): Promise<{ insertedCount: number }>;
  find(filter: Record<string, never>): { toArray(): Promise<unknown[]> };
  findOne(filter: { _id: string }): Promise<unknown>;
  updateOne(
    filter: { _id: string },
    update: Record<string, unknown>,
  ): Promise<{ matchedCount: number; modifiedCount: number }>;
  deleteOne(filter: { _id: string }): Promise<{ deletedCount: number }>;
  drop(): Promise<unknown>;
}
interface MongoLikeClient {
  db(name: string): { collection(name: string): unknown };
  close(): Promise<void>;
}

function mongoStore(client: MongoLikeClient): Store {
  const c = (name: string): MongoLikeCollection =>
    client.db(dbName).collection(name) as MongoLikeCollection;
  return {
    async insertMany(coll, docs) {
      return (await c(coll).insertMany(docs)).insertedCount;
    },
    async readAll(coll) {
      return (await c(coll).find({}).toArray()) as JsonDoc[];
    },
    async get(coll, id) {
      return (await c(coll).findOne({ _id: id })) as JsonDoc | null;
    },
    async update(coll, id) {
      const r = await c(coll).updateOne(
        { _id: id },
        { $set: { status: 'updated' }, $inc: { version: 1 } },
      );
      return r.matchedCount === 1 && r.modifiedCount === 1;
    },
    async remove(coll, id) {
      return (await c(coll).deleteOne({ _id: id })).deletedCount === 1;
    },
    async drop(coll) {
      await c(coll)
        .drop()
        .catch(() => undefined);
    },
    close: () => client.close(),
  };
}

async function openEmbedded(row: RowSpec, ctx: StoreContext): Promise<Store> {
  const { open } = await import('../src/embed/embedded/index.js');
  const engine = row.engine ?? 'lmdb';
  const client = await open(engine === 'memory' ? { engine } : { dbPath: ctx.dir, engine });
  return mongoStore(client as unknown as MongoLikeClient);
}

async function openMultiProcess(_row: RowSpec, ctx: StoreContext): Promise<Store> {
  const { open } = await import('../src/embed/embedded/index.js');
  const client = (await open({
    dbPath: ctx.dir,
    multiProcess: true,
  })) as unknown as MongoLikeClient;
  // No silent fallback: an open() that ignored the option took the data directory's lock in
  // this process, where the on-demand daemon would hold it in its own.
  const lockFile = join(ctx.dir, lockFileName);
  const holder = existsSync(lockFile) ? Number.parseInt(readFileSync(lockFile, 'utf8'), 10) : NaN;
  if (holder === process.pid) {
    await client.close();
    throw new Error('open() ignored multiProcess: this process holds the data directory lock');
  }
  return mongoStore(client);
}

async function openWire(ctx: StoreContext): Promise<Store> {
  if (ctx.uri === undefined) throw new Error('daemon row: no daemon URI');
  const { MongoClient } = await import('mongodb');
  const client = new MongoClient(ctx.uri, {
    serverSelectionTimeoutMS: 15_000,
    socketTimeoutMS: 120_000,
    maxPoolSize: 2,
  });
  await client.connect();
  return mongoStore(client as unknown as MongoLikeClient);
}

interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface SqliteDb {
  pragma(s: string, o?: { simple: boolean }): unknown;
  exec(s: string): void;
  prepare(s: string): SqliteStatement;
  transaction<A extends unknown[]>(fn: (...a: A) => void): { immediate(...a: A): void };
  close(): void;
}

/**
 * The lower bound: one table per collection, (id TEXT PRIMARY KEY, doc TEXT) holding the
 * JSON, the same durability as our sqlite engine (WAL, synchronous=FULL). The update runs in
 * SQL (json_set), so no read-modify-write round trip is charged to it.
 */
async function openSqliteRaw(ctx: StoreContext): Promise<Store> {
  const mod = (await import('better-sqlite3')) as unknown as {
    default: new (file: string) => SqliteDb;
  };
  const db = new mod.default(join(ctx.dir, 'bench.sqlite'));
  db.pragma('busy_timeout = 30000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  // Per connection, so read back on this one: the row must not silently run at NORMAL.
  const settings = [
    db.pragma('journal_mode', { simple: true }),
    db.pragma('synchronous', { simple: true }),
  ];
  if (settings[0] !== 'wal' || settings[1] !== 2)
    throw new Error(
      `raw SQLite: journal_mode ${String(settings[0])}, synchronous ${String(settings[1])}`,
    );
  const tables = new Map<
    string,
    {
      insert: SqliteStatement;
      all: SqliteStatement;
      get: SqliteStatement;
      update: SqliteStatement;
      del: SqliteStatement;
    }
  >();
  const table = (name: string) => {
    let t = tables.get(name);
    if (t === undefined) {
      if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`table name ${name}`);
      db.exec(`CREATE TABLE IF NOT EXISTS "${name}" (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
      t = {
        insert: db.prepare(`INSERT INTO "${name}" (id, doc) VALUES (?, ?)`),
        all: db.prepare(`SELECT doc FROM "${name}"`),
        get: db.prepare(`SELECT doc FROM "${name}" WHERE id = ?`),
        update: db.prepare(
          `UPDATE "${name}" SET doc = json_set(doc, '$.status', 'updated', '$.version', json_extract(doc, '$.version') + 1) WHERE id = ?`,
        ),
        del: db.prepare(`DELETE FROM "${name}" WHERE id = ?`),
      };
      tables.set(name, t);
    }
    return t;
  };
  return {
    insertMany(coll, docs) {
      const t = table(coll);
      db.transaction((ds: JsonDoc[]) => {
        for (const d of ds) t.insert.run(d._id, JSON.stringify(d));
      }).immediate(docs);
      return Promise.resolve(docs.length);
    },
    readAll(coll) {
      const rs = table(coll).all.all() as { doc: string }[];
      return Promise.resolve(rs.map((r) => JSON.parse(r.doc) as JsonDoc));
    },
    get(coll, id) {
      const r = table(coll).get.get(id) as { doc: string } | undefined;
      return Promise.resolve(r === undefined ? null : (JSON.parse(r.doc) as JsonDoc));
    },
    update(coll, id) {
      return Promise.resolve(table(coll).update.run(id).changes === 1);
    },
    remove(coll, id) {
      return Promise.resolve(table(coll).del.run(id).changes === 1);
    },
    drop(coll) {
      tables.delete(coll);
      db.exec(`DROP TABLE IF EXISTS "${coll}"`);
      return Promise.resolve();
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}

interface NedbStore {
  loadDatabaseAsync(): Promise<void>;
  insertAsync(docs: JsonDoc[]): Promise<unknown>;
  findAsync(q: Record<string, unknown>): Promise<JsonDoc[]>;
  findOneAsync(q: Record<string, unknown>): Promise<JsonDoc | null>;
  updateAsync(
    q: Record<string, unknown>,
    u: Record<string, unknown>,
    o: Record<string, unknown>,
  ): Promise<{ numAffected: number }>;
  removeAsync(q: Record<string, unknown>, o: Record<string, unknown>): Promise<number>;
}

/** nedb: one datastore file per collection, loaded at open, each write appended to it. */
async function openNedb(ctx: StoreContext): Promise<Store> {
  const mod = (await import('@seald-io/nedb')) as unknown as {
    default: new (o: { filename: string }) => NedbStore;
  };
  const stores = new Map<string, NedbStore>();
  const ds = async (name: string): Promise<NedbStore> => {
    let s = stores.get(name);
    if (s === undefined) {
      s = new mod.default({ filename: join(ctx.dir, `${name}.db`) });
      await s.loadDatabaseAsync();
      stores.set(name, s);
    }
    return s;
  };
  // The measured collection is loaded at open, as an application would.
  await ds('docs');
  return {
    async insertMany(coll, docs) {
      await (await ds(coll)).insertAsync(docs);
      return docs.length;
    },
    async readAll(coll) {
      return (await ds(coll)).findAsync({});
    },
    async get(coll, id) {
      return (await ds(coll)).findOneAsync({ _id: id });
    },
    async update(coll, id) {
      const r = await (
        await ds(coll)
      ).updateAsync({ _id: id }, { $set: { status: 'updated' }, $inc: { version: 1 } }, {});
      return r.numAffected === 1;
    },
    async remove(coll, id) {
      return (await (await ds(coll)).removeAsync({ _id: id }, {})) === 1;
    },
    drop(coll) {
      stores.delete(coll);
      const file = join(ctx.dir, `${coll}.db`);
      if (existsSync(file)) rmSync(file, { force: true });
      return Promise.resolve();
    },
    close() {
      stores.clear();
      return Promise.resolve();
    },
  };
}

interface LokiDoc extends JsonDoc {
  $loki?: number;
}
interface LokiCollection {
  insert(docs: JsonDoc[]): unknown;
  find(): LokiDoc[];
  by(field: string, value: string): LokiDoc | undefined;
  update(doc: LokiDoc): unknown;
  remove(doc: LokiDoc): unknown;
}
interface LokiDb {
  loadDatabase(o: Record<string, unknown>, cb: (err: unknown) => void): void;
  saveDatabase(cb: (err: unknown) => void): void;
  close(cb: (err: unknown) => void): void;
  getCollection(name: string): LokiCollection | null;
  addCollection(name: string, o: Record<string, unknown>): LokiCollection;
  removeCollection(name: string): void;
}

function strip(d: LokiDoc): JsonDoc {
  const { $loki: _l, meta: _m, ...rest } = d as LokiDoc & { meta?: unknown };
  return rest;
}

/** lokijs: the whole database in memory, loaded from its file at open and saved at close. */
async function openLoki(ctx: StoreContext): Promise<Store> {
  const mod = (await import('lokijs')) as unknown as {
    default: (new (file: string, o: Record<string, unknown>) => LokiDb) & {
      LokiFsAdapter: new () => unknown;
    };
  };
  const Loki = mod.default;
  const db = new Loki(join(ctx.dir, 'bench.loki.json'), {
    adapter: new Loki.LokiFsAdapter(),
    autosave: false,
  });
  await new Promise<void>((resolve, reject) =>
    db.loadDatabase({}, (err) => (err === null || err === undefined ? resolve() : reject(err))),
  );
  const c = (name: string): LokiCollection =>
    db.getCollection(name) ?? db.addCollection(name, { unique: ['_id'], disableMeta: true });
  return {
    insertMany(coll, docs) {
      c(coll).insert(docs);
      return Promise.resolve(docs.length);
    },
    readAll(coll) {
      return Promise.resolve(c(coll).find().map(strip));
    },
    get(coll, id) {
      const d = c(coll).by('_id', id);
      return Promise.resolve(d === undefined ? null : strip(d));
    },
    update(coll, id) {
      const col = c(coll);
      const d = col.by('_id', id);
      if (d === undefined) return Promise.resolve(false);
      d.status = 'updated';
      d.version += 1;
      col.update(d);
      return Promise.resolve(true);
    },
    remove(coll, id) {
      const col = c(coll);
      const d = col.by('_id', id);
      if (d === undefined) return Promise.resolve(false);
      col.remove(d);
      return Promise.resolve(true);
    },
    drop(coll) {
      db.removeCollection(coll);
      return Promise.resolve();
    },
    async close() {
      await new Promise<void>((resolve, reject) =>
        db.saveDatabase((err) => (err === null || err === undefined ? resolve() : reject(err))),
      );
      await new Promise<void>((resolve) => db.close(() => resolve()));
    },
  };
}

/**
 * mingo: MongoDB's query and update language over plain arrays. No storage and no index:
 * get is a query over the array, update is mingo's updateOne; delete has no mingo API and is
 * a mingo Query's test() in findIndex, then splice.
 */
async function openMingo(): Promise<Store> {
  const mingo = await import('mingo');
  type Obj = Record<string, unknown>;
  const colls = new Map<string, Obj[]>();
  const c = (name: string): Obj[] => {
    let a = colls.get(name);
    if (a === undefined) colls.set(name, (a = []));
    return a;
  };
  return {
    insertMany(coll, docs) {
      c(coll).push(...(docs as unknown as Obj[]));
      return Promise.resolve(docs.length);
    },
    readAll(coll) {
      return Promise.resolve(mingo.find(c(coll), {}).all() as unknown as JsonDoc[]);
    },
    get(coll, id) {
      const d = mingo.find(c(coll), { _id: id }).next();
      return Promise.resolve((d ?? null) as unknown as JsonDoc | null);
    },
    update(coll, id) {
      const r = mingo.updateOne(
        c(coll),
        { _id: id },
        { $set: { status: 'updated' }, $inc: { version: 1 } },
      );
      return Promise.resolve(r.matchedCount === 1 && r.modifiedCount === 1);
    },
    remove(coll, id) {
      const a = c(coll);
      const q = new mingo.Query({ _id: id });
      const k = a.findIndex((d) => q.test(d));
      if (k < 0) return Promise.resolve(false);
      a.splice(k, 1);
      return Promise.resolve(true);
    },
    drop(coll) {
      colls.delete(coll);
      return Promise.resolve();
    },
    close() {
      colls.clear();
      return Promise.resolve();
    },
  };
}

export function openStore(row: RowSpec, ctx: StoreContext): Promise<Store> {
  switch (row.kind) {
    case 'embedded':
      return openEmbedded(row, ctx);
    case 'multiProcess':
      return openMultiProcess(row, ctx);
    case 'daemon':
      return openWire(ctx);
    case 'sqliteRaw':
      return openSqliteRaw(ctx);
    case 'nedb':
      return openNedb(ctx);
    case 'lokijs':
      return openLoki(ctx);
    case 'mingo':
      return openMingo();
  }
}
