// Memory limits and spilling of blocking stages, through the driver (issue #5). The limits are
// set to a few KB with setParameter, as mongod's own spill tests do; expected results are
// computed here in JavaScript from the inserted documents, never taken from the server.
// mongod 7.0: allowDiskUseByDefault is true, so only allowDiskUse: false (or the parameter set to
// false) makes an oversized $sort/$group fail, with QueryExceededMemoryLimitNoDiskUseAllowed (292).

import { describe, test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient, MongoServerError } from 'mongodb';
import type { Collection, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

const N = 20_000;
const GROUPS = 997;

interface Doc {
  _id: number;
  k: number;
  g: number;
  s: string;
}

/** Deterministic pseudo-random keys with many ties (xorshift). */
function makeDocs(n: number): Doc[] {
  let x = 0x2545f491;
  const docs: Doc[] = [];
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const k = Math.abs(x) % 5000;
    docs.push({ _id: i, k, g: k % GROUPS, s: `v${k}`.padEnd(40, '.') });
  }
  return docs;
}

async function insertAll(coll: Collection<Doc>, docs: readonly Doc[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 5000) await coll.insertMany(docs.slice(i, i + 5000));
}

async function setParameters(client: MongoClient, params: Document): Promise<void> {
  await client.db('admin').command({ setParameter: 1, ...params });
}

async function failsWith(p: Promise<unknown>, code: number, message?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof MongoServerError, String(e));
    assert.equal(e.code, code, e.message);
    if (message !== undefined) assert.match(e.message, message);
    return true;
  });
}

/** Spill files of in-memory servers of this process (os.tmpdir()/secantus-<pid>-…). */
function spillFiles(): string[] {
  const prefix = `secantus-${process.pid}-`;
  return fs
    .readdirSync(os.tmpdir())
    .filter((d) => d.startsWith(prefix))
    .flatMap((d) => {
      const dir = path.join(os.tmpdir(), d);
      return fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : [];
    });
}

const byKeyThenId = (a: Doc, b: Doc): number => a.k - b.k || a._id - b._id;

describe('blocking stages under small memory limits', () => {
  let ts: TestServer;
  let coll: Collection<Doc>;
  const docs = makeDocs(N);

  before(async () => {
    ts = await startTestServer();
    coll = ts.client.db('spill').collection<Doc>('c');
    await insertAll(coll, docs);
    await setParameters(ts.client, {
      internalQueryMaxBlockingSortMemoryUsageBytes: 32 * 1024,
      internalDocumentSourceGroupMaxMemoryBytes: 32 * 1024,
    });
  });

  after(async () => {
    await ts.stop();
  });

  test('getParameter shows the limits as set, and allowDiskUseByDefault true', async () => {
    const p = await ts.client.db('admin').command({
      getParameter: 1,
      internalQueryMaxBlockingSortMemoryUsageBytes: 1,
      internalDocumentSourceGroupMaxMemoryBytes: 1,
      allowDiskUseByDefault: 1,
    });
    assert.equal(Number(p['internalQueryMaxBlockingSortMemoryUsageBytes']), 32 * 1024);
    assert.equal(Number(p['internalDocumentSourceGroupMaxMemoryBytes']), 32 * 1024);
    assert.equal(p['allowDiskUseByDefault'], true);
    await failsWith(
      setParameters(ts.client, { internalQueryMaxBlockingSortMemoryUsageBytes: 'lots' }),
      2,
    );
    await failsWith(setParameters(ts.client, { allowDiskUseByDefault: 1 }), 2);
  });

  test('a leading $sort spills and returns what a JavaScript sort returns', async () => {
    const expected = [...docs].sort(byKeyThenId).map((d) => d._id);
    const got = await coll.aggregate<Doc>([{ $sort: { k: 1, _id: 1 } }]).toArray();
    assert.deepEqual(
      got.map((d) => d._id),
      expected,
    );
    const desc = await coll
      .aggregate<Doc>([{ $sort: { k: -1 } }], { allowDiskUse: true })
      .toArray();
    // A stable sort: equal keys keep their input (insertion) order.
    assert.deepEqual(
      desc.map((d) => d._id),
      [...docs].sort((a, b) => b.k - a.k || a._id - b._id).map((d) => d._id),
    );
  });

  test('a $sort after other stages (the pipeline stage) spills too, and $sort + $limit keeps the top k', async () => {
    const got = await coll
      .aggregate<Document>([{ $project: { k: 1, s: 1 } }, { $sort: { s: -1, _id: 1 } }])
      .toArray();
    const expected = [...docs]
      .sort((a, b) => (a.s < b.s ? 1 : a.s > b.s ? -1 : a._id - b._id))
      .map((d) => d._id);
    assert.deepEqual(
      got.map((d) => d['_id']),
      expected,
    );
    // The top 300 small documents fit in 32 KB; all 20,000 would not.
    const top = await coll
      .aggregate<Document>([{ $project: { k: 1 } }, { $sort: { k: 1, _id: 1 } }, { $limit: 300 }], {
        allowDiskUse: false,
      })
      .toArray();
    assert.deepEqual(
      top.map((d) => d['_id']),
      [...docs]
        .sort(byKeyThenId)
        .slice(0, 300)
        .map((d) => d._id),
    );
    const topFind = await coll
      .find({}, { sort: { k: -1, _id: 1 }, limit: 300, allowDiskUse: false, projection: { k: 1 } })
      .toArray();
    assert.deepEqual(
      topFind.map((d) => d._id),
      [...docs]
        .sort((a, b) => b.k - a.k || a._id - b._id)
        .slice(0, 300)
        .map((d) => d._id),
    );
  });

  test('$group spills and gives every accumulator what it gives in memory', async () => {
    const got = await coll
      .aggregate<Document>([
        {
          $group: {
            _id: '$g',
            n: { $sum: 1 },
            total: { $sum: '$k' },
            first: { $first: '$_id' },
            last: { $last: '$_id' },
            ids: { $push: '$_id' },
            max: { $max: '$s' },
          },
        },
      ])
      .toArray();
    const expected = new Map<number, { n: number; total: number; ids: number[]; max: string }>();
    for (const d of docs) {
      const e = expected.get(d.g) ?? { n: 0, total: 0, ids: [], max: '' };
      e.n++;
      e.total += d.k;
      e.ids.push(d._id);
      if (d.s > e.max) e.max = d.s;
      expected.set(d.g, e);
    }
    assert.equal(got.length, expected.size);
    for (const g of got) {
      const e = expected.get(g['_id'] as number);
      assert.ok(e !== undefined, `unexpected group ${String(g['_id'])}`);
      assert.equal(g['n'], e.n);
      assert.equal(g['total'], e.total);
      assert.equal(g['first'], e.ids[0]);
      assert.equal(g['last'], e.ids[e.ids.length - 1]);
      assert.deepEqual(g['ids'], e.ids);
      assert.equal(g['max'], e.max);
    }
  });

  test('allowDiskUse: false fails with 292 past the limits (sort, pipeline $sort, $group, find)', async () => {
    await failsWith(
      coll.aggregate([{ $sort: { k: 1 } }], { allowDiskUse: false }).toArray(),
      292,
      /^Sort exceeded memory limit of 32768 bytes, but did not opt in to external sorting\.$/,
    );
    await failsWith(
      coll
        .aggregate([{ $project: { k: 1, s: 1 } }, { $sort: { k: 1 } }], { allowDiskUse: false })
        .toArray(),
      292,
      /Sort exceeded memory limit of 32768 bytes/,
    );
    await failsWith(
      coll
        .aggregate([{ $group: { _id: '$_id', s: { $first: '$s' } } }], { allowDiskUse: false })
        .toArray(),
      292,
      /^Exceeded memory limit for \$group, but didn't allow external sort\. Pass allowDiskUse:true to opt in\.$/,
    );
    await failsWith(
      coll.find({}, { sort: { k: 1 }, allowDiskUse: false }).toArray(),
      292,
      /Sort exceeded memory limit of 32768 bytes/,
    );
    // A find with a blocking sort spills by default, and agrees with JavaScript.
    const found = await coll
      .find({ k: { $lt: 2500 } }, { sort: { k: -1, _id: 1 }, projection: { _id: 1 } })
      .toArray();
    assert.deepEqual(
      found.map((d) => d._id),
      docs
        .filter((d) => d.k < 2500)
        .sort((a, b) => b.k - a.k || a._id - b._id)
        .map((d) => d._id),
    );
  });

  test('with allowDiskUseByDefault false, only an explicit allowDiskUse: true spills', async () => {
    await setParameters(ts.client, { allowDiskUseByDefault: false });
    try {
      await failsWith(coll.aggregate([{ $sort: { k: 1 } }]).toArray(), 292);
      await failsWith(coll.aggregate([{ $group: { _id: '$_id' } }]).toArray(), 292);
      await failsWith(coll.find({}, { sort: { k: 1 } }).toArray(), 292);
      assert.equal(
        (await coll.aggregate([{ $sort: { k: 1 } }], { allowDiskUse: true }).toArray()).length,
        N,
      );
      assert.equal(
        (await coll.find({}, { sort: { k: 1 }, allowDiskUse: true }).toArray()).length,
        N,
      );
    } finally {
      await setParameters(ts.client, { allowDiskUseByDefault: true });
    }
  });

  test('explain executionStats reports usedDisk and spills for SORT, $sort and $group', async () => {
    const find = await coll.find({}, { sort: { k: 1 } }).explain('executionStats');
    const sort = find['executionStats']['executionStages'];
    assert.equal(sort['stage'], 'SORT');
    assert.equal(sort['usedDisk'], true);
    assert.ok(Number(sort['spills']) > 1);
    assert.equal(Number(sort['memLimit']), 32 * 1024);
    assert.ok(Number(sort['totalDataSizeSorted']) > 32 * 1024);
    assert.equal(
      Number(find['serverParameters']['internalQueryMaxBlockingSortMemoryUsageBytes']),
      32 * 1024,
    );
    assert.equal(
      Number(find['serverParameters']['internalDocumentSourceGroupMaxMemoryBytes']),
      32 * 1024,
    );
    const small = await coll
      .find({ _id: { $lt: 10 } }, { sort: { k: 1 } })
      .explain('executionStats');
    assert.equal(small['executionStats']['executionStages']['usedDisk'], false);
    const planner = await coll.find({}, { sort: { k: 1 } }).explain('queryPlanner');
    assert.equal('usedDisk' in planner['queryPlanner']['winningPlan'], false);

    const agg = await coll
      .aggregate([
        { $project: { k: 1 } },
        { $sort: { k: 1 } },
        { $group: { _id: '$k', n: { $sum: 1 } } },
      ])
      .explain('executionStats');
    const stages = agg['stages'] as Document[];
    const $sort = stages.find((s) => '$sort' in s);
    const $group = stages.find((s) => '$group' in s);
    assert.equal($sort?.['usedDisk'], true);
    assert.ok(Number($sort?.['spills']) > 0);
    assert.equal($group?.['usedDisk'], true);
    assert.equal(Number($group?.['nReturned']), new Set(docs.map((d) => d.k)).size);
    assert.equal(
      Number(agg['serverParameters']['internalQueryMaxBlockingSortMemoryUsageBytes']),
      32 * 1024,
    );
  });

  test('spill files are removed when a cursor is exhausted or killed, or the server stops', async () => {
    assert.deepEqual(spillFiles(), []);
    // Exhausted: the whole result in batches.
    await coll.aggregate([{ $sort: { k: 1 } }], { batchSize: 500 }).toArray();
    assert.deepEqual(spillFiles(), []);
    // Killed: the runs stay on disk while the cursor is open, and go with killCursors.
    const cursor = coll.aggregate([{ $sort: { s: 1 } }], { batchSize: 10 });
    await cursor.next();
    assert.ok(spillFiles().length > 0);
    await cursor.close();
    assert.deepEqual(spillFiles(), []);
    // A find's blocking sort the same way.
    const f = coll.find({}, { sort: { s: -1 }, batchSize: 10 });
    await f.next();
    assert.ok(spillFiles().length > 0);
    await f.close();
    assert.deepEqual(spillFiles(), []);
    // An error (maxTimeMS would be flaky; a failing expression after the sort) also cleans up.
    await failsWith(
      coll
        .aggregate([
          { $sort: { s: 1 } },
          { $project: { x: { $divide: [1, { $subtract: ['$_id', 100] }] } } },
        ])
        .toArray(),
      2,
    );
    assert.deepEqual(spillFiles(), []);
  });
});

describe('spill file lifetime', () => {
  test('an idle cursor reaped by cursorTimeoutMillis and a server stop remove spill files', async () => {
    const ts = await startTestServer({ reaperIntervalMs: 50 });
    try {
      const coll = ts.client.db('spill').collection<Doc>('c');
      await insertAll(coll, makeDocs(3000));
      await setParameters(ts.client, { internalQueryMaxBlockingSortMemoryUsageBytes: 16 * 1024 });
      const idle = coll.aggregate([{ $sort: { s: 1 } }], { batchSize: 5 });
      await idle.next();
      assert.ok(spillFiles().length > 0);
      await setParameters(ts.client, { cursorTimeoutMillis: 100 });
      const deadline = Date.now() + 5000;
      while (spillFiles().length > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(spillFiles(), []);

      const open = coll.aggregate([{ $sort: { s: -1 } }], { batchSize: 5 });
      await setParameters(ts.client, { cursorTimeoutMillis: 600_000 });
      await open.next();
      assert.ok(spillFiles().length > 0);
    } finally {
      await ts.stop();
    }
    assert.deepEqual(spillFiles(), []);
  });

  test('a durable server spills under <dbpath>/_tmp and wipes a crash leftover at start', async () => {
    const dbPath = fs.mkdtempSync(path.join(os.tmpdir(), 'secantus-spill-'));
    try {
      fs.mkdirSync(path.join(dbPath, '_tmp'));
      fs.writeFileSync(path.join(dbPath, '_tmp', 'spill-1-leftover'), 'left by a crash');
      const ts = await startTestServer({ dbPath });
      try {
        assert.equal(fs.existsSync(path.join(dbPath, '_tmp', 'spill-1-leftover')), false);
        const coll = ts.client.db('spill').collection<Doc>('c');
        const docs = makeDocs(3000);
        await insertAll(coll, docs);
        await setParameters(ts.client, { internalQueryMaxBlockingSortMemoryUsageBytes: 16 * 1024 });
        const cursor = coll.aggregate<Doc>([{ $sort: { k: 1, _id: 1 } }], { batchSize: 100 });
        const first = await cursor.next();
        assert.equal(first?._id, [...docs].sort(byKeyThenId)[0]?._id);
        assert.ok(fs.readdirSync(path.join(dbPath, '_tmp')).length > 0);
        await cursor.close();
        assert.deepEqual(fs.readdirSync(path.join(dbPath, '_tmp')), []);
      } finally {
        await ts.stop();
      }
    } finally {
      fs.rmSync(dbPath, { recursive: true, force: true });
    }
  });
});

// ---- memory -------------------------------------------------------------------------------------

const daemon = path.join(import.meta.dirname, '../../src/cli/secantusd.ts');

/** A daemon in its own process, so its resident memory can be read from /proc. */
async function startDaemon(
  dbPath: string,
): Promise<{ port: number; pid: number; stop: () => Promise<void> }> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', daemon, '--port', '0', '--dbpath', dbPath, '--replSet', ''],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    // A daemon that does not start is killed: left running, it would keep this file's process
    // (and the whole suite) from ever exiting.
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`secantusd did not start within 90 s: ${out}`));
    }, 90_000);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"Waiting for connections".*?"port":(\d+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void exited.then(() => reject(new Error(`secantusd exited: ${out}`)));
  });
  return {
    port,
    pid: proc.pid as number,
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** Anonymous resident memory (heap, not the mapped data files) of a process, in bytes. */
function rssAnon(pid: number): number {
  const m = /RssAnon:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? 0 : Number(m[1]) * 1024;
}

/** Peak growth of a process's anonymous memory while `fn` runs, sampled every 5 ms. */
async function peakGrowth(pid: number, fn: () => Promise<void>): Promise<number> {
  const base = rssAnon(pid);
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssAnon(pid));
  }, 5);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssAnon(pid)) - base;
}

describe(
  'resident memory while spilling',
  { skip: !fs.existsSync('/proc/self/status') ? 'needs /proc' : false },
  () => {
    test('a spilling sort does not grow with its input the way an in-memory sort does', async (t) => {
      const dbPath = fs.mkdtempSync(path.join(os.tmpdir(), 'secantus-rss-'));
      const d = await startDaemon(dbPath);
      const client = new MongoClient(`mongodb://127.0.0.1:${d.port}/?directConnection=true`, {
        serverSelectionTimeoutMS: 10_000,
      });
      try {
        await client.connect();
        const coll = client.db('rss').collection<TestDoc>('c');
        const pad = 'p'.repeat(1000);
        const n = 100_000;
        for (let i = 0; i < n; i += 2000) {
          await coll.insertMany(
            Array.from({ length: 2000 }, (_, j) => ({ _id: i + j, k: ((i + j) * 7919) % n, pad })),
          );
        }
        // Checks order as it streams, keeping nothing: the client holds one batch at a time.
        const sortAll = async (allowDiskUse: boolean): Promise<void> => {
          let prev = -1;
          let count = 0;
          for await (const doc of coll.aggregate([{ $sort: { k: 1 } }], {
            allowDiskUse,
            batchSize: 1000,
          })) {
            assert.ok((doc['k'] as number) > prev);
            prev = doc['k'] as number;
            count++;
          }
          assert.equal(count, n);
        };
        await setParameters(client, { internalQueryMaxBlockingSortMemoryUsageBytes: 256 * 1024 });
        await sortAll(true); // warm up: code paths compiled, buffers allocated
        // Garbage the collector has not reclaimed only ever adds to a peak: the least of three
        // runs is the closest to what the spilling sort itself holds.
        let spilling = Infinity;
        for (let run = 0; run < 3; run++)
          spilling = Math.min(spilling, await peakGrowth(d.pid, () => sortAll(true)));
        await setParameters(client, {
          internalQueryMaxBlockingSortMemoryUsageBytes: 1024 * 1024 * 1024,
        });
        const inMemory = await peakGrowth(d.pid, () => sortAll(true));
        t.diagnostic(`peak growth: spilling ${spilling} bytes, in memory ${inMemory} bytes`);
        // ~100 MB of documents: sorting them in memory holds all of them at once; spilling holds
        // a run of 256 KB, the merge buffers and garbage the collector has not reclaimed yet.
        assert.ok(inMemory > 80 * 1024 * 1024, `in-memory sort grew only ${inMemory} bytes`);
        assert.ok(
          spilling < inMemory / 2,
          `spilling sort grew ${spilling} bytes, in-memory ${inMemory}`,
        );
      } finally {
        await client.close();
        await d.stop();
        fs.rmSync(dbPath, { recursive: true, force: true });
      }
    });
  },
);
