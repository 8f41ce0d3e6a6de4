// Run as a child by test/integration/process-exit.test.ts: uses the features that start helper
// threads or timers, stops the server, prints what it found, and must then exit by itself.

import { MongoClient } from 'mongodb';
import { SecantusServer } from '../../src/embed/index.js';

const server = await SecantusServer.start({ auth: { username: 'u', password: 'p' } });
const client = new MongoClient(server.getUri('t'), { compressors: ['zlib'] });
const c = client.db('t').collection<{ _id: number; s: string }>('c');
await c.insertMany([
  { _id: 1, s: `start-${'x'.repeat(300_000)}-end` },
  { _id: 2, s: 'a' },
]);
// A long string: the search runs in the regular expression worker, awaited by find, and
// waited for synchronously by a count.
const found = await c.find({ s: { $regex: '^start-.*-end$' } }).toArray();
const counted = await c.countDocuments({ s: { $regex: '^start-.*-end$' } });
await client.close();
await server.stop();
process.stdout.write(JSON.stringify({ found: found.length, counted }));
