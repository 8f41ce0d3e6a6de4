// One writer process of the concurrency harness (forked by concurrency.ts, never run by
// hand). It waits for instructions over IPC: connect and warm up ('run' → 'ready'), then
// stream insertMany batches into its own collection until its time is up ('go' → 'done').
// A separate process per writer, because a real deployment's clients are: several writers
// in one Node process would share one event loop and one driver, and measure that instead.

import { MongoClient } from 'mongodb';
import { makeLargeDocFactory } from './lib/dataset.js';

export interface RunMessage {
  readonly type: 'run';
  readonly uri: string;
  readonly db: string;
  readonly collection: string;
  readonly writer: number;
  readonly durationMs: number;
  readonly batchDocs: number;
  readonly docBytes: number;
}
export interface GoMessage {
  readonly type: 'go';
}
export interface ExitMessage {
  readonly type: 'exit';
}
export type ToWriter = RunMessage | GoMessage | ExitMessage;

export type FromWriter =
  | { readonly type: 'hello' }
  | { readonly type: 'ready' }
  | {
      readonly type: 'done';
      readonly docs: number;
      readonly batches: number;
      readonly elapsedMs: number;
      readonly error?: string;
    };

function send(m: FromWriter): void {
  process.send?.(m);
}

let client: MongoClient | undefined;
let pending: RunMessage | undefined;
let counter = 0;

async function prepare(m: RunMessage): Promise<void> {
  client = new MongoClient(m.uri, {
    serverSelectionTimeoutMS: 10_000,
    socketTimeoutMS: 120_000,
    maxPoolSize: 2,
  });
  await client.connect();
  // Warm-up into a side collection: connection, JIT and the server's first-collection work
  // happen before the clock starts.
  const make = makeLargeDocFactory(m.writer, m.docBytes);
  await client
    .db(m.db)
    .collection(`${m.collection}_warmup`)
    .insertMany(Array.from({ length: m.batchDocs }, () => make(counter++)));
  pending = m;
  send({ type: 'ready' });
}

async function stream(m: RunMessage): Promise<void> {
  const coll = (client as MongoClient).db(m.db).collection(m.collection);
  const make = makeLargeDocFactory(m.writer, m.docBytes);
  let docs = 0;
  let batches = 0;
  const start = performance.now();
  const deadline = start + m.durationMs;
  let error: string | undefined;
  // Bounded by time: no new batch starts after the deadline; the one in flight finishes and
  // counts, and the elapsed time includes it, so the rate is exact.
  try {
    while (performance.now() < deadline) {
      // New objects each batch: the driver adds _id to the documents it is given.
      const batch = Array.from({ length: m.batchDocs }, () => make(counter++));
      const r = await coll.insertMany(batch);
      docs += r.insertedCount;
      batches++;
    }
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const elapsedMs = performance.now() - start;
  await client?.close().catch(() => undefined);
  client = undefined;
  send({ type: 'done', docs, batches, elapsedMs, ...(error === undefined ? {} : { error }) });
}

process.on('message', (raw: unknown) => {
  const m = raw as ToWriter;
  if (m.type === 'run') {
    prepare(m).catch((e: unknown) =>
      send({
        type: 'done',
        docs: 0,
        batches: 0,
        elapsedMs: 0,
        error: `prepare: ${e instanceof Error ? e.message : String(e)}`,
      }),
    );
  } else if (m.type === 'go' && pending !== undefined) {
    const run = pending;
    pending = undefined;
    void stream(run);
  } else if (m.type === 'exit') {
    process.exit(0);
  }
});
// The harness is gone (crash, Ctrl-C): leave too, whatever is in flight.
process.on('disconnect', () => process.exit(0));
send({ type: 'hello' });
