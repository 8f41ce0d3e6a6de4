// What access control costs a point read: findOne({_id}) through the driver on an in-process
// memory server, with access control off and on (a readWrite user). Prints figures only:
//   npx tsx bench/auth-point-read.ts [--quick] [--off-only]
// Sequential queries after a warm-up; the median and p90 of per-query latency, in µs.

import { MongoClient } from 'mongodb';
import { SecantusServer } from '../src/embed/index.js';

const quick = process.argv.includes('--quick');
const queries = quick ? 3000 : 20000;
const docs = 1000;

async function measure(auth: boolean): Promise<{ median: number; p90: number }> {
  const server = await SecantusServer.start(
    auth ? { auth: { username: 'root', password: 'rootpw' } } : {},
  );
  const root = new MongoClient(server.uri);
  await root
    .db('b')
    .collection<{ _id: number; v: number }>('c')
    .insertMany(Array.from({ length: docs }, (_, i) => ({ _id: i, v: i })));
  let uri = server.uri;
  if (auth) {
    await root
      .db('admin')
      .command({ createUser: 'app', pwd: 'apppw', roles: [{ role: 'readWrite', db: 'b' }] });
    uri = `mongodb://app:apppw@${server.host}/?replicaSet=rs0&authSource=admin`;
  }
  const client = new MongoClient(uri);
  const coll = client.db('b').collection<{ _id: number; v: number }>('c');
  for (let i = 0; i < 1000; i++) await coll.findOne({ _id: i % docs });
  const times: number[] = [];
  for (let i = 0; i < queries; i++) {
    const t0 = process.hrtime.bigint();
    await coll.findOne({ _id: (i * 7919) % docs });
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  await client.close();
  await root.close();
  await server.stop();
  times.sort((a, b) => a - b);
  return {
    median: times[Math.floor(times.length / 2)] ?? 0,
    p90: times[Math.floor(times.length * 0.9)] ?? 0,
  };
}

// --off-only: access control off only (to compare with a build that has none).
const runs = process.argv.includes('--off-only') ? [false, false] : [false, true, false, true];
for (const auth of runs) {
  const r = await measure(auth);
  process.stdout.write(
    `auth ${auth ? 'on ' : 'off'}: median ${r.median.toFixed(0)} µs, p90 ${r.p90.toFixed(0)} µs (${queries} queries)\n`,
  );
}
