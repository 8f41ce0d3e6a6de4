// CPU time the daemon spends on the hot paths, read from /proc (Linux), not wall time: on a shared
// machine whose load comes and goes, a process's own CPU time moves much less than its
// latency, so two source trees can be compared in one sitting. Runs the daemon from TypeScript
// sources (tsx), so a tree needs no build:
//   npx tsx bench/write-cpu.ts [--root DIR] [--reps N] [--engine lmdb|memory]
// --root: the repository tree whose src/ to run (default this one), e.g. a `git archive` of
// another commit with node_modules linked, to compare before and after a change.
// Per repetition, on a fresh collection: insertMany of the 10k-document dataset (lib/dataset.ts),
// the same without _id into another (the driver appends the _id it generates last),
// find of all, a find of a tenth (a filter on one unindexed field), countDocuments and a
// $match + $group of half, 500 pings, 500 point reads by _id, a change stream drained of the
// insert's first 1,000 events, updateMany of half with $inc/$set (logged as a diff), updateMany
// of the other half with a pipeline, deleteMany of half. One warm-up round first; prints the
// median CPU ms of each, and every sample.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { MongoClient } from 'mongodb';
import type { Document, ObjectId } from 'mongodb';
import { cleanupNow, makeTempDir, trackChild } from './lib/cleanup.js';
import { makeDataset } from './lib/dataset.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

const root = resolve(arg('--root') ?? join(import.meta.dirname, '..'));
const reps = Math.max(1, Math.min(50, Number(arg('--reps') ?? 5)));
const engine = arg('--engine') ?? 'lmdb';
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const ticksPerSecond = 100;

function cpuMs(pid: number): number {
  // Fields after the command name: state is field 3, utime 14 and stime 15 (1-based).
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function main(): Promise<void> {
  const dbPath = makeTempDir('db-write-cpu');
  const args = [
    '--import',
    'tsx',
    join(root, 'src/cli/secantusd.ts'),
    '--port',
    '0',
    '--bind_ip',
    '127.0.0.1',
    '--dbpath',
    dbPath,
    '--storageEngine',
    engine,
  ];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  trackChild(child);
  child.stderr.resume();
  let client: MongoClient | undefined;
  try {
    const port = await new Promise<number>((res, rej) => {
      const timer = setTimeout(() => rej(new Error('secantusd did not start within 60 s')), 60_000);
      child.once('exit', (code) => rej(new Error(`secantusd exited with ${code}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        try {
          const p = JSON.parse(line) as { msg?: unknown; attr?: { port?: unknown } };
          if (p.msg === 'Waiting for connections' && typeof p.attr?.port === 'number') {
            clearTimeout(timer);
            res(p.attr.port);
          }
        } catch {
          // not a log line
        }
      });
    });
    const pid = child.pid as number;
    client = new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`, {
      socketTimeoutMS: 120_000,
    });
    const db = client.db('writecpu');
    const docs = makeDataset(10_000) as unknown as Document[];
    const samples = {
      insertMany: [] as number[],
      insertManyIdLast: [] as number[],
      findAll: [] as number[],
      findFiltered: [] as number[],
      countFiltered: [] as number[],
      matchGroup: [] as number[],
      ping500: [] as number[],
      pointReads500: [] as number[],
      changeStream1k: [] as number[],
      updateDiff: [] as number[],
      updatePipeline: [] as number[],
      deleteHalf: [] as number[],
    };
    const time = async (
      into: number[] | undefined,
      work: () => Promise<unknown>,
    ): Promise<void> => {
      const t = cpuMs(pid);
      await work();
      into?.push(cpuMs(pid) - t);
    };
    for (let r = 0; r <= reps; r++) {
      const warm = r === 0;
      const c = db.collection(`c${r}`);
      const batch = docs.map((d) => ({ ...d }));
      const session = client.startSession();
      await c.insertOne({ start: true }, { session });
      const startAtOperationTime = session.operationTime;
      await session.endSession();
      await time(warm ? undefined : samples.insertMany, () => c.insertMany(batch));
      // The same documents without an _id: the driver appends the one it generates last.
      const idLast = docs.map(({ _id: _, ...rest }) => ({ ...rest }));
      await time(warm ? undefined : samples.insertManyIdLast, () =>
        db.collection(`idlast${r}`).insertMany(idLast),
      );
      await time(warm ? undefined : samples.findAll, () => c.find({}).toArray());
      await time(warm ? undefined : samples.findFiltered, () =>
        c.find({ value: { $lt: 0.1 } }).toArray(),
      );
      await time(warm ? undefined : samples.countFiltered, () =>
        c.countDocuments({ value: { $lt: 0.5 } }),
      );
      await time(warm ? undefined : samples.matchGroup, () =>
        c
          .aggregate([
            { $match: { value: { $lt: 0.5 } } },
            { $group: { _id: '$group', n: { $sum: 1 } } },
          ])
          .toArray(),
      );
      const ids = batch.slice(0, 500).map((d) => d['_id'] as ObjectId);
      await time(warm ? undefined : samples.ping500, async () => {
        for (let n = 0; n < 500; n++) await db.command({ ping: 1 });
      });
      await time(warm ? undefined : samples.pointReads500, async () => {
        for (const id of ids) await c.findOne({ _id: id });
      });
      await time(warm ? undefined : samples.changeStream1k, async () => {
        const cs = c.watch([], { startAtOperationTime, batchSize: 1000 });
        for (let n = 0; n < 1000; n++) await cs.next();
        await cs.close();
      });
      await time(warm ? undefined : samples.updateDiff, () =>
        c.updateMany({ even: true }, { $inc: { i: 1 }, $set: { name: 'x' } }),
      );
      await time(warm ? undefined : samples.updatePipeline, () =>
        c.updateMany({ even: false }, [{ $set: { name: 'y' } }]),
      );
      await time(warm ? undefined : samples.deleteHalf, () => c.deleteMany({ even: true }));
      await c.drop();
    }
    process.stdout.write(`daemon CPU ms (median of ${reps}), ${engine}, ${root}\n`);
    for (const [name, xs] of Object.entries(samples))
      process.stdout.write(
        `${name.padEnd(15)} ${String(median(xs)).padStart(6)}  [${xs.join(', ')}]\n`,
      );
  } finally {
    await client?.close();
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    cleanupNow();
  }
}

await main();
