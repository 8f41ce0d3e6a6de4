// Where the time goes: run one compare workload in a loop against a daemon started with
// `node --cpu-prof`, stop the daemon cleanly (V8 writes the profile at exit), and print the
// top functions by self and total time (bench/cpuprofile-top.ts).
//
//   tsx bench/profile.ts [insert|pointRead|rangeIndexed|fullScan|filteredScan|group|multiStage|updateHalf]
//                        [--engine lmdb|memory] [--seconds 10] [--docs 10000] [--top 25] [--save file.cpuprofile]
//
// Workloads other than insert need data first; that insert is in the profile too, and the
// output says how long it took so its share can be discounted.

import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { cleanupNow, makeTempDir } from './lib/cleanup.js';
import { ensureBuilt, startDaemon } from './lib/daemon.js';
import type { EngineName } from './lib/daemon.js';
import { Lcg, makeDataset, objectIdFor } from './lib/dataset.js';
import type { BenchDoc } from './lib/dataset.js';
import { filteredScanFilter, groupPipeline, multiStagePipeline } from './compare.js';
import { formatSummary, summariseProfile } from './cpuprofile-top.js';
import type { CpuProfile } from './cpuprofile-top.js';

const profiled = [
  'insert',
  'pointRead',
  'rangeIndexed',
  'fullScan',
  'filteredScan',
  'group',
  'multiStage',
  'updateHalf',
] as const;
type Profiled = (typeof profiled)[number];

interface Options {
  workload: Profiled;
  engine: EngineName;
  seconds: number;
  docs: number;
  top: number;
  save: string | undefined;
}

function parse(argv: readonly string[]): Options {
  const o: Options = {
    workload: 'insert',
    engine: 'lmdb',
    seconds: 10,
    docs: 10_000,
    top: 25,
    save: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if ((profiled as readonly string[]).includes(a)) o.workload = a as Profiled;
    else if (a === '--engine') {
      const e = value();
      if (e !== 'lmdb' && e !== 'memory') throw new Error(`--engine lmdb|memory, got ${e}`);
      o.engine = e;
    } else if (a === '--seconds') o.seconds = Math.min(120, Math.max(1, Number(value())));
    else if (a === '--docs')
      o.docs = Math.min(1_000_000, Math.max(100, Math.round(Number(value()))));
    else if (a === '--top') o.top = Math.max(1, Math.round(Number(value())));
    else if (a === '--save') o.save = value();
    else throw new Error(`unknown argument ${a} (workloads: ${profiled.join(', ')})`);
  }
  if (!Number.isFinite(o.seconds) || !Number.isFinite(o.docs))
    throw new Error('--seconds and --docs take numbers');
  return o;
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  ensureBuilt((l) => process.stderr.write(`profile: ${l}\n`));
  const profDir = makeTempDir('cpuprof');
  const daemon = await startDaemon({
    engine: o.engine,
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profDir],
  });
  const client = new MongoClient(daemon.uri, {
    serverSelectionTimeoutMS: 10_000,
    socketTimeoutMS: 120_000,
  });
  const dataset = makeDataset(o.docs);
  let iterations = 0;
  let setupMs = 0;
  let loopMs = 0;
  try {
    await client.connect();
    const db = client.db('profile');
    const docs = db.collection<BenchDoc>('docs');
    const setupStart = performance.now();
    if (o.workload !== 'insert') {
      await docs.insertMany(dataset);
      if (o.workload === 'rangeIndexed') await docs.createIndex({ i: 1 });
    }
    setupMs = performance.now() - setupStart;
    const rng = new Lcg(9);
    const once: Record<Profiled, () => Promise<unknown>> = {
      // A fresh collection each time, so every iteration inserts 10k new keys.
      insert: () => db.collection(`docs_${iterations}`).insertMany(dataset.map((d) => ({ ...d }))),
      pointRead: async () => {
        for (let k = 0; k < 100; k++) await docs.findOne({ _id: objectIdFor(rng.int(o.docs)) });
      },
      rangeIndexed: () => {
        const a = rng.int(Math.max(1, o.docs - 100));
        return docs.find({ i: { $gte: a, $lt: a + 100 } }).toArray();
      },
      fullScan: () => docs.find({}).toArray(),
      filteredScan: () => docs.find(filteredScanFilter).toArray(),
      group: () => docs.aggregate(groupPipeline as Document[]).toArray(),
      multiStage: () => docs.aggregate(multiStagePipeline as Document[]).toArray(),
      updateHalf: () => docs.updateMany({ even: true }, { $inc: { counter: 1 } }),
    };
    const start = performance.now();
    const deadline = start + o.seconds * 1000;
    // Bounded by time and by count.
    while (performance.now() < deadline && iterations < 100_000) {
      await once[o.workload]();
      iterations++;
    }
    loopMs = performance.now() - start;
  } finally {
    await client.close().catch(() => undefined);
    // SIGTERM: the daemon exits cleanly and V8 writes the .cpuprofile on the way out.
    await daemon.stop();
  }
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no .cpuprofile written in ${profDir}`);
  const path = join(profDir, file);
  if (o.save !== undefined) copyFileSync(path, o.save);
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  process.stdout.write(
    `# CPU profile of secantusd (${o.engine}): ${o.workload}, ${iterations} iterations in ${(loopMs / 1000).toFixed(1)} s ` +
      `(${(loopMs / Math.max(1, iterations)).toFixed(1)} ms each)${o.workload !== 'insert' ? `; setup (insert ${o.docs} docs) took ${(setupMs / 1000).toFixed(1)} s of the profile` : ''}\n\n`,
  );
  process.stdout.write(`${formatSummary(summariseProfile(profile, o.top))}\n`);
  if (o.save !== undefined)
    process.stdout.write(
      `\nprofile saved to ${o.save} (open it in Chrome DevTools → Performance)\n`,
    );
}

main().then(
  () => {
    cleanupNow();
    process.exit(0);
  },
  (e: unknown) => {
    process.stderr.write(`profile: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    cleanupNow();
    process.exit(1);
  },
);
