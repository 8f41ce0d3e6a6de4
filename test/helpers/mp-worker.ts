// Run as a child by test/integration/multi-process.test.ts: one process sharing a dbPath
// through open({ multiProcess: true }). It opens its client, prints {"ready": ...}, then runs
// the commands it reads from stdin (one JSON line each) and answers each with one line,
// {"ok": true, "result": ...} or {"ok": false, "error": ..., "code": ...}, in Extended JSON.

import { createInterface } from 'node:readline';
import { EJSON } from 'bson';
import type { ChangeStream, ClientSession, Document, MongoClient } from 'mongodb';
import { open } from '../../src/embed/embedded/index.js';

const [dbPath, optionsJson] = process.argv.slice(2);
if (dbPath === undefined) throw new Error('usage: mp-worker <dbPath> [options JSON]');
const options = JSON.parse(optionsJson ?? '{}') as { idleShutdownSecs?: number };

function write(doc: Document): void {
  process.stdout.write(`${EJSON.stringify(doc, { relaxed: false })}\n`);
}

let client: MongoClient;
try {
  client = await open({ dbPath, multiProcess: true, ...options });
} catch (e) {
  write({ ready: false, error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
}
const status = await client.db('admin').command({ serverStatus: 1 });
write({ ready: true, daemonPid: Number(status['pid']) });

let session: ClientSession | undefined;
let stream: ChangeStream | undefined;

async function run(cmd: Document): Promise<unknown> {
  const coll = client.db('mp').collection(String(cmd['coll'] ?? 'c'));
  switch (cmd['op']) {
    case 'insertEach': {
      // One acknowledged insertOne at a time: writes of the workers interleave.
      for (let i = 0; i < Number(cmd['n']); i++) await coll.insertOne({ worker: cmd['worker'], i });
      return Number(cmd['n']);
    }
    case 'insertOne':
      return (await coll.insertOne(cmd['doc'] as Document)).insertedId;
    case 'find':
      return coll
        .find((cmd['filter'] as Document | undefined) ?? {})
        .sort({ _id: 1 })
        .toArray();
    case 'count':
      return coll.countDocuments((cmd['filter'] as Document | undefined) ?? {});
    case 'waitCount': {
      // Poll until the collection holds n documents (the other workers are still writing).
      const deadline = Date.now() + 60_000;
      for (;;) {
        const n = await coll.countDocuments({});
        if (n >= Number(cmd['n']) || Date.now() > deadline) return n;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    case 'startTransaction':
      session = client.startSession();
      session.startTransaction();
      return true;
    case 'txnInsert':
      return (await coll.insertOne(cmd['doc'] as Document, { session })).insertedId;
    case 'txnUpdate':
      return (
        await coll.updateOne(cmd['filter'] as Document, cmd['update'] as Document, { session })
      ).modifiedCount;
    case 'commit':
      await session?.commitTransaction();
      await session?.endSession();
      session = undefined;
      return true;
    case 'watch':
      stream = coll.watch();
      // The driver opens the change stream's cursor at the first read.
      return (await stream.tryNext()) ?? null;
    case 'nextChange':
      return stream?.next();
    case 'close':
      await stream?.close();
      await client.close();
      return true;
    default:
      throw new Error(`unknown op ${String(cmd['op'])}`);
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  const cmd = EJSON.parse(line) as Document;
  try {
    write({ ok: true, result: (await run(cmd)) ?? null });
  } catch (e) {
    const err = e as { message?: string; code?: number; errorLabels?: string[] };
    write({
      ok: false,
      error: err.message ?? String(e),
      code: err.code ?? null,
      labels: err.errorLabels ?? [],
    });
  }
  if (cmd['op'] === 'close') break;
}
process.exit(0);
