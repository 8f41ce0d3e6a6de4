// Harness 3, floors: what nothing above SecantusDB can beat on this machine, measured in
// the same run as the workloads they bound.
//
//   - a driver `ping` to a fresh secantusd: the smallest OP_MSG round trip through the
//     official driver (the floor of a point read);
//   - a bare TCP round trip to a tiny echo process: the kernel and event loops alone;
//   - raw LMDB through the `lmdb` package, opened with the engine's own settings
//     (overlappingSync off, binary keys and values, no cache, no compression): puts of the
//     compare dataset's BSON in transactions of the size the server uses for an insertMany,
//     overwrites and deletes of half of it, random gets and whole scans from a read
//     transaction;
//   - BSON encode and decode of the same documents, with the server's decode options.
//
// The compare harness divides each workload's time by a floor composed from these.

import { spawn } from 'node:child_process';
import * as net from 'node:net';
import { createInterface } from 'node:readline';
import { deserialize, serialize } from 'bson';
import { open as openLmdb } from 'lmdb';
import type { RootDatabase } from 'lmdb';
import { MongoClient } from 'mongodb';
import { decodeOptions } from '../src/bson/codec.js';
import { limits } from '../src/limits.js';
import type { BenchConfig } from './lib/config.js';
import { makeTempDir, removeTempDir, trackChild } from './lib/cleanup.js';
import { startDaemon } from './lib/daemon.js';
import type { Daemon } from './lib/daemon.js';
import { makeDataset } from './lib/dataset.js';
import { markdownTable } from './lib/markdown.js';
import { formatDuration, formatRate, median, perSecond, spread } from './lib/stats.js';
import type { Progress } from './lib/progress.js';

/** A measured figure: every run's value and their median. */
export interface Sample {
  readonly median: number;
  readonly spread: number;
  readonly samples: readonly number[];
}

export function sample(values: readonly number[]): Sample {
  return { median: median(values), spread: spread(values), samples: values };
}

export interface Floors {
  readonly docs: number;
  /** Documents per write transaction: the server's statements per storage transaction. */
  readonly txnDocs: number;
  readonly avgDocBytes: number;
  readonly roundTrips: number;
  /** Per round trip, ms. */
  readonly pingMs: Sample;
  readonly socketRttMs: Sample;
  /** Whole dataset, ms. */
  readonly bsonEncodeMs: Sample;
  readonly bsonDecodeMs: Sample;
  readonly lmdbPutMs: Sample;
  /** Half of the dataset (the documents update_many / delete_many touch), ms. */
  readonly lmdbOverwriteHalfMs: Sample;
  readonly lmdbDeleteHalfMs: Sample;
  /** Per random get, ms. */
  readonly lmdbGetMs: Sample;
  /** Whole dataset, ms. */
  readonly lmdbScanMs: Sample;
  readonly lmdbScanDecodeMs: Sample;
  /** Each figure's median, as one FloorRun (what the floor columns print). */
  readonly medians: FloorRun;
  /** The samples in the order they were taken (compare pairs run r with sample r). */
  readonly runs: readonly FloorRun[];
}

/** The server's statements per storage transaction (src/limits.ts). */
export function serverTxnDocs(): number {
  return limits.writeStatementsPerTxnMax;
}

type Db = RootDatabase<Buffer, Buffer>;

/** Keys as the engine lays them out: a one-byte table prefix, then an 8-byte record id. */
function recordKey(n: number): Buffer {
  const k = Buffer.allocUnsafe(9);
  k[0] = 0x10;
  k.writeUInt32BE(Math.floor(n / 0x1_0000_0000), 1);
  k.writeUInt32BE(n >>> 0, 5);
  return k;
}

function openRaw(path: string): Db {
  // The engine's settings (src/storage/lmdb/lmdb-engine.ts), so the floor differs from our
  // engine only by what our layers do.
  return openLmdb<Buffer, Buffer>({
    path,
    noSubdir: false,
    keyEncoding: 'binary',
    encoding: 'binary',
    overlappingSync: false,
    maxReaders: 1024,
    compression: false,
    cache: false,
  });
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function timeSync(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/** Durable writes of `indexes` in awaited transactions of `perTxn`, one after another. */
async function inTxns(
  db: Db,
  indexes: readonly number[],
  perTxn: number,
  body: (i: number) => void,
): Promise<number> {
  return timeAsync(async () => {
    for (let s = 0; s < indexes.length; s += perTxn) {
      const end = Math.min(indexes.length, s + perTxn);
      await db.transaction(() => {
        for (let k = s; k < end; k++) body(indexes[k] as number);
      });
    }
  });
}

interface LmdbRun {
  put: number;
  overwriteHalf: number;
  deleteHalf: number;
  getEach: number;
  scan: number;
  scanDecode: number;
}

async function lmdbRun(values: readonly Buffer[], txnDocs: number, gets: number): Promise<LmdbRun> {
  const dir = makeTempDir('lmdb-floor');
  const db = openRaw(dir);
  try {
    const all = values.map((_, i) => i);
    const put = await inTxns(db, all, txnDocs, (i) =>
      db.putSync(recordKey(i), values[i] as Buffer),
    );

    // Reads from an explicit read transaction, as the engine's snapshots do.
    const txn = db.useReadTransaction();
    let getEach: number;
    let scan: number;
    let scanDecode: number;
    try {
      let x = 12345;
      let found = 0;
      const g = timeSync(() => {
        for (let r = 0; r < gets; r++) {
          x = (x * 1103515245 + 12345) & 0x7fffffff;
          if (db.get(recordKey(x % values.length), { transaction: txn }) !== undefined) found++;
        }
      });
      if (found !== gets) throw new Error(`floors: ${gets - found} gets missed`);
      getEach = g / gets;
      const range = { start: recordKey(0), end: recordKey(values.length), transaction: txn };
      let n = 0;
      scan = timeSync(() => {
        for (const e of db.getRange(range)) if (e.value.length > 0) n++;
      });
      let decoded = 0;
      scanDecode = timeSync(() => {
        for (const e of db.getRange(range))
          if (deserialize(e.value, decodeOptions)['_id'] !== undefined) decoded++;
      });
      if (n !== values.length || decoded !== values.length)
        throw new Error(`floors: scan saw ${n}/${decoded} of ${values.length}`);
    } finally {
      txn.done();
    }
    const even = all.filter((i) => i % 2 === 0);
    const odd = all.filter((i) => i % 2 === 1);
    const overwriteHalf = await inTxns(db, even, txnDocs, (i) =>
      db.putSync(recordKey(i), values[i] as Buffer),
    );
    const deleteHalf = await inTxns(db, odd, txnDocs, (i) => db.removeSync(recordKey(i)));
    return { put, overwriteHalf, deleteHalf, getEach, scan, scanDecode };
  } finally {
    await db.close();
    removeTempDir(dir);
  }
}

/** A one-file TCP echo server in its own process (like the daemon, across a process boundary). */
const echoSource = `
const net = require('node:net');
const s = net.createServer((c) => { c.setNoDelay(true); c.on('data', (d) => c.write(d)); c.on('error', () => {}); });
s.listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'));
// Exit when the harness goes away, whatever the reason: its end of stdin closes.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
`;

interface Echo {
  readonly port: number;
  stop(): Promise<void>;
}

async function startEcho(): Promise<Echo> {
  const child = trackChild(
    spawn(process.execPath, ['-e', echoSource], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('echo server did not start within 10 s')),
      10_000,
    );
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (l) => {
      clearTimeout(timer);
      resolve(Number(l));
    });
    void exited.then(() => reject(new Error('echo server exited early')));
  });
  return {
    port,
    stop: async () => {
      child.stdin?.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Sequential round trips of a 64-byte message (about a small OP_MSG), ms each. */
async function socketRoundTrips(port: number, count: number): Promise<number> {
  const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const msg = Buffer.alloc(64, 7);
  let want = 0;
  let wake: (() => void) | undefined;
  socket.on('data', (d: Buffer) => {
    want -= d.length;
    if (want <= 0 && wake !== undefined) {
      const w = wake;
      wake = undefined;
      w();
    }
  });
  try {
    const once = (): Promise<void> =>
      new Promise<void>((resolve) => {
        want = msg.length;
        wake = resolve;
        socket.write(msg);
      });
    for (let i = 0; i < Math.min(50, count); i++) await once(); // warm up the path
    const t = performance.now();
    for (let i = 0; i < count; i++) await once();
    return (performance.now() - t) / count;
  } finally {
    socket.destroy();
  }
}

/** Sequential driver pings, ms each, after a warm-up (connection pool, handshake). */
export async function pingRoundTrips(client: MongoClient, count: number): Promise<number> {
  const admin = client.db('admin');
  for (let i = 0; i < Math.min(50, count); i++) await admin.command({ ping: 1 });
  const t = performance.now();
  for (let i = 0; i < count; i++) await admin.command({ ping: 1 });
  return (performance.now() - t) / count;
}

/** One run's floors, plain figures in ms (per round trip / per get; whole set otherwise). */
export interface FloorRun {
  readonly pingMs: number;
  readonly socketRttMs: number;
  readonly bsonEncodeMs: number;
  readonly bsonDecodeMs: number;
  readonly lmdbPutMs: number;
  readonly lmdbOverwriteHalfMs: number;
  readonly lmdbDeleteHalfMs: number;
  readonly lmdbGetMs: number;
  readonly lmdbScanMs: number;
  readonly lmdbScanDecodeMs: number;
}

const floorKeys = [
  'pingMs',
  'socketRttMs',
  'bsonEncodeMs',
  'bsonDecodeMs',
  'lmdbPutMs',
  'lmdbOverwriteHalfMs',
  'lmdbDeleteHalfMs',
  'lmdbGetMs',
  'lmdbScanMs',
  'lmdbScanDecodeMs',
] as const;

/**
 * Measures one set of floors at a time. The compare harness takes one sample at the start
 * of each of its runs, so every workload figure has a floor measured minutes from it at
 * most: on a shared machine whose load changes, a ratio of paired samples holds up where
 * a ratio to floors measured once at the start would not.
 */
export class FloorSampler {
  private readonly runs: FloorRun[] = [];

  private constructor(
    private readonly config: BenchConfig,
    private readonly dataset: ReturnType<typeof makeDataset>,
    private readonly values: readonly Buffer[],
    private readonly txnDocs: number,
    private readonly daemon: Daemon,
    private readonly echo: Echo,
    private readonly client: MongoClient,
  ) {}

  static async start(config: BenchConfig): Promise<FloorSampler> {
    const dataset = makeDataset(config.sizes.docs);
    const values = dataset.map((d) => Buffer.from(serialize(d)));
    const daemon = await startDaemon({ engine: 'memory' });
    let echo: Echo | undefined;
    try {
      echo = await startEcho();
      const client = new MongoClient(daemon.uri, {
        serverSelectionTimeoutMS: 10_000,
        socketTimeoutMS: 60_000,
      });
      await client.connect();
      // Warm-up (JIT on both sides of the socket); the compare harness warms its servers too.
      await pingRoundTrips(client, config.sizes.pointReads * 3);
      await socketRoundTrips(echo.port, config.sizes.pointReads);
      return new FloorSampler(config, dataset, values, serverTxnDocs(), daemon, echo, client);
    } catch (e) {
      await echo?.stop();
      await daemon.stop();
      throw e;
    }
  }

  /** One set of floors. */
  async sample(): Promise<FloorRun> {
    const { pointReads } = this.config.sizes;
    const pingMs = await pingRoundTrips(this.client, pointReads);
    const socketRttMs = await socketRoundTrips(this.echo.port, pointReads);
    const bsonEncodeMs = timeSync(() => this.dataset.forEach((d) => serialize(d)));
    const bsonDecodeMs = timeSync(() => this.values.forEach((v) => deserialize(v, decodeOptions)));
    const l = await lmdbRun(this.values, this.txnDocs, pointReads);
    const run: FloorRun = {
      pingMs,
      socketRttMs,
      bsonEncodeMs,
      bsonDecodeMs,
      lmdbPutMs: l.put,
      lmdbOverwriteHalfMs: l.overwriteHalf,
      lmdbDeleteHalfMs: l.deleteHalf,
      lmdbGetMs: l.getEach,
      lmdbScanMs: l.scan,
      lmdbScanDecodeMs: l.scanDecode,
    };
    this.runs.push(run);
    return run;
  }

  /** Every sample so far, summarised. */
  floors(): Floors {
    if (this.runs.length === 0) throw new Error('floors: no sample taken');
    const pick = (k: (typeof floorKeys)[number]): Sample => sample(this.runs.map((r) => r[k]));
    const medians = Object.fromEntries(
      floorKeys.map((k) => [k, median(this.runs.map((r) => r[k]))]),
    ) as unknown as FloorRun;
    return {
      docs: this.values.length,
      txnDocs: this.txnDocs,
      avgDocBytes: Math.round(
        this.values.reduce((s, v) => s + v.length, 0) / Math.max(1, this.values.length),
      ),
      roundTrips: this.config.sizes.pointReads,
      pingMs: pick('pingMs'),
      socketRttMs: pick('socketRttMs'),
      bsonEncodeMs: pick('bsonEncodeMs'),
      bsonDecodeMs: pick('bsonDecodeMs'),
      lmdbPutMs: pick('lmdbPutMs'),
      lmdbOverwriteHalfMs: pick('lmdbOverwriteHalfMs'),
      lmdbDeleteHalfMs: pick('lmdbDeleteHalfMs'),
      lmdbGetMs: pick('lmdbGetMs'),
      lmdbScanMs: pick('lmdbScanMs'),
      lmdbScanDecodeMs: pick('lmdbScanDecodeMs'),
      medians,
      runs: [...this.runs],
    };
  }

  async stop(): Promise<void> {
    await this.client.close().catch(() => undefined);
    await this.echo.stop();
    await this.daemon.stop();
  }
}

/** The floors harness alone: `runs` samples in a row. */
export async function measureFloors(config: BenchConfig, progress: Progress): Promise<Floors> {
  progress.start('floors', config.sizes.runs);
  const sampler = await FloorSampler.start(config);
  try {
    for (let r = 0; r < config.sizes.runs; r++) {
      await sampler.sample();
      progress.tick();
    }
    return sampler.floors();
  } finally {
    progress.stop();
    await sampler.stop();
  }
}

export interface FloorRow {
  readonly name: string;
  readonly what: string;
  readonly sample: Sample;
  /** Operations the sample's time covers (1 for per-op figures). */
  readonly ops: number;
}

export function floorRows(f: Floors): FloorRow[] {
  const half = Math.ceil(f.docs / 2);
  return [
    {
      name: 'driver ping round trip',
      what: 'OP_MSG ping to a fresh secantusd (memory), official driver, sequential',
      sample: f.pingMs,
      ops: 1,
    },
    {
      name: 'bare socket round trip',
      what: '64 bytes to a TCP echo process on 127.0.0.1, sequential',
      sample: f.socketRttMs,
      ops: 1,
    },
    {
      name: `LMDB put ${f.docs.toLocaleString('en-US')} docs`,
      what: `durable, ${f.txnDocs} docs per transaction, awaited in turn`,
      sample: f.lmdbPutMs,
      ops: f.docs,
    },
    {
      name: `LMDB overwrite ${half.toLocaleString('en-US')} docs`,
      what: `durable, ${f.txnDocs} per transaction (update_many's writes)`,
      sample: f.lmdbOverwriteHalfMs,
      ops: half,
    },
    {
      name: `LMDB delete ${(f.docs - half).toLocaleString('en-US')} docs`,
      what: `durable, ${f.txnDocs} per transaction (delete_many's writes)`,
      sample: f.lmdbDeleteHalfMs,
      ops: f.docs - half,
    },
    {
      name: 'LMDB get (random)',
      what: 'one key from a read transaction',
      sample: f.lmdbGetMs,
      ops: 1,
    },
    {
      name: `LMDB scan ${f.docs.toLocaleString('en-US')} docs`,
      what: 'whole table, read transaction',
      sample: f.lmdbScanMs,
      ops: f.docs,
    },
    {
      name: `LMDB scan + BSON decode ${f.docs.toLocaleString('en-US')}`,
      what: "scan, each value decoded with the server's options",
      sample: f.lmdbScanDecodeMs,
      ops: f.docs,
    },
    {
      name: `BSON encode ${f.docs.toLocaleString('en-US')} docs`,
      what: 'bson serialize',
      sample: f.bsonEncodeMs,
      ops: f.docs,
    },
    {
      name: `BSON decode ${f.docs.toLocaleString('en-US')} docs`,
      what: "bson deserialize, the server's options (promoteValues off)",
      sample: f.bsonDecodeMs,
      ops: f.docs,
    },
  ];
}

export function floorsTable(f: Floors): string {
  const rows = floorRows(f).map((r) => [
    r.name,
    formatDuration(r.sample.median),
    `±${Math.round(r.sample.spread * 100)}%`,
    r.ops === 1
      ? formatRate(perSecond(1, r.sample.median))
      : formatRate(perSecond(r.ops, r.sample.median)),
    formatDuration(r.sample.median / r.ops),
    r.what,
  ]);
  return markdownTable(
    ['floor', 'time (median)', '±', 'per second', 'per op / doc', 'what'],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'left'],
  );
}
