// Text and geo queries with their indexes against collection scans, through the driver on an
// in-process server. Prints figures only; run with
//   npx tsx bench/text-geo.ts [--quick] [--lmdb]
//
// 100k documents {_id, loc: GeoJSON point in a 10°×10° square, body: 12 words of a 2,000-word
// vocabulary}, with a text index on body and a 2dsphere index on loc.
// - $text: TEXT_MATCH over the index for one word, against the same word found by a regex
//   (/\bword\b/i) in a collection scan (mongod cannot run $text without its index);
// - $near: GEO_NEAR_2DSPHERE, nearest 10 documents, against a collection scan of $geoWithin
//   $centerSphere over the radius that holds them ($near has no index-free form either);
// - $geoWithin: a 0.5°×0.5° polygon through the 2dsphere index against hint {$natural: 1}.
// Latencies are per query, sequential, after a warm-up.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';

const quick = process.argv.includes('--quick');
const lmdb = process.argv.includes('--lmdb');
const docs = quick ? 20_000 : 100_000;
const indexedQueries = quick ? 50 : 200;
const scanQueries = quick ? 3 : 10;

let seed = 42;
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
}

const vocabulary = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}x${(i * 7919) % 997}`);

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function summary(label: string, ms: number[], extra = ''): string {
  const s = [...ms].sort((a, b) => a - b);
  const f = (n: number): string => `${n.toFixed(2).padStart(9)} ms`;
  return `${label.padEnd(44)} mean ${f(mean(s))}  p50 ${f(percentile(s, 50))}  p99 ${f(percentile(s, 99))}  (${s.length} queries${extra})`;
}

async function time(n: number, run: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run(i);
    out.push(performance.now() - t);
  }
  return out;
}

const dir = lmdb ? fs.mkdtempSync(path.join(os.tmpdir(), 'secantus-bench-')) : undefined;
const server = await SecantusServer.start(dir === undefined ? {} : { dbPath: dir });
const client = new MongoClient(server.uri);
try {
  await client.connect();
  const coll = client.db('bench').collection('textgeo');
  let t = performance.now();
  const batch: Document[] = [];
  for (let i = 0; i < docs; i++) {
    const words = Array.from(
      { length: 12 },
      () => vocabulary[Math.floor(random() * vocabulary.length)],
    );
    batch.push({
      _id: i,
      loc: { type: 'Point', coordinates: [random() * 10, random() * 10] },
      body: words.join(' '),
    });
  }
  for (let i = 0; i < docs; i += 5_000) await coll.insertMany(batch.slice(i, i + 5_000));
  const loadMs = performance.now() - t;
  t = performance.now();
  await coll.createIndex({ body: 'text' });
  const textBuildMs = performance.now() - t;
  t = performance.now();
  await coll.createIndex({ loc: '2dsphere' });
  const geoBuildMs = performance.now() - t;

  const word = (i: number): string => vocabulary[(i * 37) % vocabulary.length] as string;
  const center = (i: number): number[] => [1 + ((i * 0.37) % 8), 1 + ((i * 0.53) % 8)];
  const square = (i: number): Document => {
    const [x, y] = center(i) as [number, number];
    return {
      type: 'Polygon',
      coordinates: [
        [
          [x, y],
          [x + 0.5, y],
          [x + 0.5, y + 0.5],
          [x, y + 0.5],
          [x, y],
        ],
      ],
    };
  };
  const nearQuery = (i: number): Document => ({
    loc: { $near: { $geometry: { type: 'Point', coordinates: center(i) } } },
  });

  // Warm-up.
  await time(10, (i) => coll.find({ $text: { $search: word(i) } }).toArray());
  await time(10, (i) => coll.find(nearQuery(i)).limit(10).toArray());
  await time(10, (i) => coll.find({ loc: { $geoWithin: { $geometry: square(i) } } }).toArray());

  const textHits = (await coll.find({ $text: { $search: word(0) } }).toArray()).length;
  const textIndexed = await time(indexedQueries, (i) =>
    coll.find({ $text: { $search: word(i) } }).toArray(),
  );
  const textScored = await time(indexedQueries, (i) =>
    coll
      .find(
        { $text: { $search: `${word(i)} ${word(i + 1)}` } },
        { projection: { s: { $meta: 'textScore' } } },
      )
      .sort({ s: { $meta: 'textScore' } })
      .limit(10)
      .toArray(),
  );
  const textScan = await time(scanQueries, (i) =>
    coll
      .find({ body: { $regex: `\\b${word(i)}\\b`, $options: 'i' } })
      .hint({ $natural: 1 })
      .toArray(),
  );

  const nearIndexed = await time(indexedQueries, (i) =>
    coll.find(nearQuery(i)).limit(10).toArray(),
  );
  const tenth = await coll.find(nearQuery(0)).limit(10).toArray();
  const reach = await coll
    .aggregate([
      { $geoNear: { near: { type: 'Point', coordinates: center(0) }, distanceField: 'd' } },
      { $limit: 10 },
    ])
    .toArray();
  const radius = ((reach[reach.length - 1]?.['d'] as number) ?? 1000) / 6378100;
  const nearScan = await time(scanQueries, (i) =>
    coll
      .find({ loc: { $geoWithin: { $centerSphere: [center(i), radius] } } })
      .hint({ $natural: 1 })
      .toArray(),
  );

  const withinHits = (await coll.find({ loc: { $geoWithin: { $geometry: square(0) } } }).toArray())
    .length;
  const withinIndexed = await time(indexedQueries, (i) =>
    coll.find({ loc: { $geoWithin: { $geometry: square(i) } } }).toArray(),
  );
  const withinScan = await time(scanQueries, (i) =>
    coll
      .find({ loc: { $geoWithin: { $geometry: square(i) } } })
      .hint({ $natural: 1 })
      .toArray(),
  );

  const plan = async (filter: Document): Promise<string> => {
    const e = (await coll.find(filter).limit(10).explain('executionStats')) as Document;
    const s = e['executionStats'] as Document;
    const stages: string[] = [];
    for (
      let st = (e['queryPlanner'] as Document)['winningPlan'] as Document | undefined;
      st !== undefined;
      st = st['inputStage'] as Document | undefined
    )
      stages.push(String(st['stage']));
    return `${stages.join(' ← ')}; keys ${s['totalKeysExamined']}, docs ${s['totalDocsExamined']}`;
  };

  console.log(
    `engine: ${lmdb ? 'lmdb' : 'memory'}, ${docs.toLocaleString('en-US')} documents, Node ${process.version}, ${os.cpus().length} CPU ${os.cpus()[0]?.model ?? ''}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (shared machine)`,
  );
  console.log(
    `load ${(loadMs / 1000).toFixed(1)} s; text index build ${(textBuildMs / 1000).toFixed(1)} s; 2dsphere index build ${(geoBuildMs / 1000).toFixed(1)} s`,
  );
  console.log(`$text plan: ${await plan({ $text: { $search: word(0) } })}`);
  console.log(`$near plan: ${await plan(nearQuery(0))}`);
  console.log(`$geoWithin plan: ${await plan({ loc: { $geoWithin: { $geometry: square(0) } } })}`);
  console.log(summary('$text one word (TEXT_MATCH, index)', textIndexed, `, ~${textHits} hits`));
  console.log(summary('$text two words, scored, top 10 (TEXT_OR)', textScored));
  console.log(summary('regex word search (COLLSCAN)', textScan, `, ~${textHits} hits`));
  console.log(`  index speed-up: ${(mean(textScan) / mean(textIndexed)).toFixed(0)}x`);
  console.log(
    summary('$near, nearest 10 (GEO_NEAR_2DSPHERE)', nearIndexed, `, ${tenth.length} hits`),
  );
  console.log(summary('$centerSphere of the same reach (COLLSCAN)', nearScan));
  console.log(`  index speed-up: ${(mean(nearScan) / mean(nearIndexed)).toFixed(0)}x`);
  console.log(
    summary('$geoWithin 0.5° square (IXSCAN 2dsphere)', withinIndexed, `, ~${withinHits} hits`),
  );
  console.log(summary('$geoWithin 0.5° square (COLLSCAN)', withinScan));
  console.log(`  index speed-up: ${(mean(withinScan) / mean(withinIndexed)).toFixed(0)}x`);
} finally {
  await client.close();
  await server.stop();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
}
