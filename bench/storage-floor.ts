// The storage floor: what the engines do with nothing above them. Every higher layer's
// throughput is bounded by these figures. Prints figures only; run with
//   npx tsx bench/storage-floor.ts [--quick]
// (memory, lmdb both ways, sqlite, jsonfile, and the lmdb package alone)
//
// Each insert figure uses a fresh engine (and data directory), so that one measurement's
// heap or file does not slow the next; reads run on the 100k-key table of the second one.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { open as openLmdb } from 'lmdb';
import { openEngine, type OpenEngineOptions } from '../src/storage/open.js';
import type { StorageEngine } from '../src/storage/engine.js';

const scale = process.argv.includes('--quick') ? 0.2 : 1;
const value = Buffer.alloc(1024);
for (let i = 0; i < value.length; i++) value[i] = (i * 31) & 0xff;

function key(n: number): Buffer {
  const k = Buffer.allocUnsafe(8);
  k.writeUInt32BE(Math.floor(n / 0x1_0000_0000), 0);
  k.writeUInt32BE(n >>> 0, 4);
  return k;
}

const perSecond = (n: number, ms: number): number => Math.round((n / ms) * 1000);
const fmt = (n: number): string => n.toLocaleString('en-US').padStart(11);

/** `total` inserts in awaited transactions of `perTxn` puts, one after another. */
async function sequential(e: StorageEngine, perTxn: number, total: number): Promise<number> {
  let k = 0;
  const start = performance.now();
  while (k < total) {
    await e.write(
      (t) => {
        for (let i = 0; i < perTxn; i++) t.put('bench', key(k++), value);
      },
      { durable: true },
    );
  }
  return perSecond(k, performance.now() - start);
}

/** `total` single-put transactions from `clients` writers, each awaiting its own. */
async function concurrent(e: StorageEngine, clients: number, total: number): Promise<number> {
  let k = 0;
  const start = performance.now();
  const client = async (): Promise<void> => {
    while (k < total) await e.write((t) => t.put('bench', key(k++), value), { durable: true });
  };
  await Promise.all(Array.from({ length: clients }, client));
  return perSecond(k, performance.now() - start);
}

function gets(e: StorageEngine, keys: number, total: number): number {
  const s = e.snapshot();
  let x = 12345;
  const start = performance.now();
  try {
    for (let i = 0; i < total; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      if (s.get('bench', key(x % keys)) === undefined) throw new Error('bench: missing key');
    }
  } finally {
    s.release();
  }
  return perSecond(total, performance.now() - start);
}

function scans(e: StorageEngine, rounds: number): number {
  const s = e.snapshot();
  let n = 0;
  const start = performance.now();
  try {
    for (let r = 0; r < rounds; r++) for (const _ of s.scan('bench')) n++;
  } finally {
    s.release();
  }
  return perSecond(n, performance.now() - start);
}

async function run(
  label: string,
  open: () => Promise<StorageEngine>,
  singles: number,
): Promise<void> {
  const rows: [string, number][] = [];
  const measure = async (
    what: string,
    body: (e: StorageEngine) => Promise<number>,
    keep = false,
  ): Promise<StorageEngine | undefined> => {
    const e = await open();
    rows.push([what, await body(e)]);
    if (keep) return e;
    await e.close();
    return undefined;
  };
  const n = (x: number): number => Math.max(1000, Math.round(x * scale));
  await measure('durable inserts/s, 1 per txn', (e) => sequential(e, 1, n(singles)));
  const loaded = await measure(
    'durable inserts/s, 100 per txn',
    (e) => sequential(e, 100, n(100_000)),
    true,
  );
  await measure('durable inserts/s, 1000 per txn', (e) => sequential(e, 1000, n(200_000)));
  await measure('durable inserts/s, 256 concurrent write()s', (e) =>
    concurrent(e, 256, n(100_000)),
  );
  if (loaded !== undefined) {
    rows.push([
      `gets/s (random, ${n(100_000).toLocaleString('en-US')} keys)`,
      gets(loaded, n(100_000), n(300_000)),
    ]);
    rows.push(['scan records/s (forward, whole table)', scans(loaded, 5)]);
    rows.push(['storage size of that table, bytes', loaded.stats().storageSizeBytes]);
    await loaded.close();
  }
  console.log(`\n${label}`);
  for (const [what, x] of rows) console.log(`  ${what.padEnd(46)}${fmt(x)}`);
}

/**
 * The package alone, same settings, no engine around it: what the lmdb rows would be if
 * the engine cost nothing. Machines differ mostly in fsync latency; this separates the two.
 */
async function packageBaseline(at: string): Promise<void> {
  const db = openLmdb<Buffer, Buffer>({
    path: at,
    keyEncoding: 'binary',
    encoding: 'binary',
    overlappingSync: false,
  });
  const id = Buffer.from([0x10]);
  const put = (k: number): Promise<void> =>
    db.transaction(() => db.putSync(Buffer.concat([id, key(k)]), value));
  try {
    let k = 0;
    const singles = Math.max(200, Math.round(1000 * scale));
    let start = performance.now();
    while (k < singles) await put(k++);
    const one = perSecond(singles, performance.now() - start);
    const total = Math.max(1000, Math.round(100_000 * scale));
    k = 0;
    start = performance.now();
    const client = async (): Promise<void> => {
      while (k < total) await put(k++);
    };
    await Promise.all(Array.from({ length: 256 }, client));
    const many = perSecond(k, performance.now() - start);
    console.log('\nlmdb package alone (transaction + putSync, overlappingSync off)');
    console.log(`  ${'durable inserts/s, 1 per txn'.padEnd(46)}${fmt(one)}`);
    console.log(`  ${'durable inserts/s, 256 concurrent'.padEnd(46)}${fmt(many)}`);
  } finally {
    await db.close();
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secantus-bench-'));
let dirs = 0;
const lmdb = (extra: Partial<OpenEngineOptions>) => (): Promise<StorageEngine> =>
  openEngine({ engine: 'lmdb', path: path.join(dir, String(dirs++)), ...extra });
try {
  console.log(
    `storage floor — node ${process.version}, ${os.cpus().length} cpus, 1 KiB values, 8-byte sequential keys`,
  );
  await run('memory', () => openEngine({ engine: 'memory' }), 100_000);
  await run('lmdb (default: fsync inside each commit)', lmdb({}), 1_000);
  await run(
    'lmdb (overlappingSync: durable writes wait for the flush)',
    lmdb({ overlappingSync: true }),
    1_000,
  );
  for (const engine of ['sqlite', 'jsonfile'] as const)
    await run(engine, () => openEngine({ engine, path: path.join(dir, String(dirs++)) }), 1_000);
  await packageBaseline(path.join(dir, 'package'));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
