// The cost of server-side JavaScript: a collection scan filtered by $where against the same
// predicate as $expr, and a $function projection against the same expression, through the
// driver on an in-process server. Prints figures only; run with
//   npx tsx bench/javascript.ts [--quick]
//
// 20k documents {_id, a: int, b: string}. Each query scans all of them (no index); the
// difference between the two lines of a pair, divided by the document count, is the
// per-document price of crossing into the QuickJS sandbox and back (the document is turned
// into tagged JSON, parsed inside, the function called, its result turned back).

import { MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';

const quick = process.argv.includes('--quick');
const docs = quick ? 5_000 : 20_000;
const runs = quick ? 3 : 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

const server = await SecantusServer.start();
const client = new MongoClient(server.uri);
try {
  await client.connect();
  const coll = client.db('bench_js').collection('docs');
  const batch: Document[] = [];
  for (let i = 0; i < docs; i++) batch.push({ _id: i, a: i % 1000, b: `s${i % 97}` });
  await coll.insertMany(batch);

  const cases: Array<[string, () => Promise<number>]> = [
    [
      'find {$expr: {$gt: ["$a", 500]}}',
      async () => (await coll.find({ $expr: { $gt: ['$a', 500] } }).toArray()).length,
    ],
    [
      'find {$where: "this.a > 500"}',
      async () => (await coll.find({ $where: 'this.a > 500' }).toArray()).length,
    ],
    [
      'aggregate $project {$add: ["$a", 1]}',
      async () =>
        (await coll.aggregate([{ $project: { x: { $add: ['$a', 1] } } }]).toArray()).length,
    ],
    [
      'aggregate $project {$function: a + 1}',
      async () =>
        (
          await coll
            .aggregate([
              {
                $project: {
                  x: {
                    $function: { body: 'function(a) { return a + 1; }', args: ['$a'], lang: 'js' },
                  },
                },
              },
            ])
            .toArray()
        ).length,
    ],
  ];
  console.log(`| query (${docs} documents, median of ${runs}) | ms | µs / document |`);
  console.log('|---|---:|---:|');
  for (const [label, run] of cases) {
    await run(); // warm-up (and the sandbox's wasm tier-up)
    const ms: number[] = [];
    for (let r = 0; r < runs; r++) {
      const t = performance.now();
      await run();
      ms.push(performance.now() - t);
    }
    const m = median(ms);
    console.log(`| ${label} | ${m.toFixed(1)} | ${((m * 1000) / docs).toFixed(2)} |`);
  }
} finally {
  await client.close();
  await server.stop();
}
