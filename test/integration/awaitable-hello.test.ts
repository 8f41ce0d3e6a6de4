// The awaitable hello and exhaust streams (SDAM's streaming protocol, mongod 4.4+): the
// topologyVersion every hello carries, maxAwaitTimeMS holding the reply, exhaustAllowed on hello
// and getMore answered with moreToCome, and the driver's own monitor streaming.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Long, ObjectId } from 'bson';
import type { ServerHeartbeatSucceededEvent } from 'mongodb';
import { SecantusServer } from '../../src/embed/index.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';
import { opMsg, rawCommand, RawConnection } from '../helpers/wire-client.js';
import type { RawReply } from '../helpers/wire-client.js';

const exhaustAllowed = 1 << 16;
const moreToCome = 1 << 1;

async function reply(c: RawConnection, timeoutMs = 5000): Promise<RawReply> {
  const r = await c.next(timeoutMs);
  if (r.kind === 'closed') throw new Error('connection closed');
  return r;
}

interface TopologyVersionReply {
  processId: ObjectId;
  counter: Long | number;
}

/** The raw client promotes longs that fit a double. */
function asNumber(v: Long | number): number {
  return v instanceof Long ? v.toNumber() : v;
}

function counterOf(tv: TopologyVersionReply): number {
  return asNumber(tv.counter);
}

function topologyVersionOf(r: RawReply): TopologyVersionReply {
  const tv = r.body['topologyVersion'] as TopologyVersionReply | undefined;
  assert.ok(tv !== undefined, 'hello carries topologyVersion');
  return tv;
}

async function hello(c: RawConnection, extra: Record<string, unknown> = {}): Promise<RawReply> {
  c.send(opMsg({ hello: 1, $db: 'admin', ...extra }));
  return reply(c);
}

/** Polls currentOp until `pred` holds (bounded). */
async function until(pred: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('awaitable hello and exhaust (replica-set mode)', () => {
  let ts: TestServer;
  const raws: RawConnection[] = [];
  const connect = async (): Promise<RawConnection> => {
    const c = await RawConnection.connect(ts.server.port);
    raws.push(c);
    return c;
  };
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    for (const c of raws) c.close();
    await ts.stop();
  });

  const waitingHellos = async (connectionId: number): Promise<number[]> => {
    const ops = await ts.client
      .db('admin')
      .aggregate([{ $currentOp: {} }, { $match: { connectionId, 'command.hello': 1 } }])
      .toArray();
    return ops.map((o) => Number(o['opid']));
  };

  it('every hello carries the same topologyVersion: a processId and counter 0', async () => {
    const c = await connect();
    const a = topologyVersionOf(await hello(c));
    const b = topologyVersionOf(await hello(c));
    assert.ok(a.processId instanceof ObjectId);
    assert.equal(counterOf(a), 0);
    assert.ok(a.processId.equals(b.processId));
    c.send(opMsg({ isMaster: 1, $db: 'admin' }));
    assert.ok(topologyVersionOf(await reply(c)).processId.equals(a.processId));
  });

  it('refuses a topologyVersion without maxAwaitTimeMS and other malformed waits', async () => {
    const c = await connect();
    const tv = topologyVersionOf(await hello(c));
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ topologyVersion: tv }, 31368, /must include 'maxAwaitTimeMS'/],
      [{ maxAwaitTimeMS: 10 }, 31368, /must include a 'topologyVersion'/],
      [{ topologyVersion: tv, maxAwaitTimeMS: -1 }, 31373, /non-negative integer/],
      [
        {
          topologyVersion: { processId: tv.processId, counter: Long.fromInt(-1) },
          maxAwaitTimeMS: 1,
        },
        31372,
        /non-negative counter/,
      ],
      [
        {
          topologyVersion: { processId: tv.processId, counter: Long.fromInt(5) },
          maxAwaitTimeMS: 1,
        },
        31382,
        /counter: 5 which is greater than the server topology version counter: 0/,
      ],
      [{ topologyVersion: 'x', maxAwaitTimeMS: 1 }, 14, /topologyVersion/],
    ];
    for (const [extra, code, message] of cases) {
      const r = await hello(c, extra);
      assert.equal(r.body['ok'], 0, JSON.stringify(extra));
      assert.equal(r.body['code'], code);
      assert.match(String(r.body['errmsg']), message);
    }
    // The connection still serves.
    assert.equal((await hello(c)).body['ok'], 1);
  });

  it('a foreign processId answers at once; the current one waits for maxAwaitTimeMS', async () => {
    const c = await connect();
    const tv = topologyVersionOf(await hello(c));
    const foreign = await hello(c, {
      topologyVersion: { processId: new ObjectId(), counter: Long.fromInt(7) },
      maxAwaitTimeMS: 600_000,
    });
    assert.equal(foreign.body['ok'], 1);
    assert.ok(topologyVersionOf(foreign).processId.equals(tv.processId));
    const waited = await hello(c, { topologyVersion: tv, maxAwaitTimeMS: 50 });
    assert.equal(waited.body['ok'], 1);
    assert.equal(counterOf(topologyVersionOf(waited)), 0);
  });

  it('a waiting hello shows in currentOp, killOp ends it, and a disconnect ends it', async () => {
    const c = await connect();
    const first = await hello(c);
    const connectionId = Number(first.body['connectionId']);
    const tv = topologyVersionOf(first);
    c.send(opMsg({ hello: 1, $db: 'admin', topologyVersion: tv, maxAwaitTimeMS: 600_000 }));
    await until(async () => (await waitingHellos(connectionId)).length === 1, 'the waiting hello');
    const [opid] = await waitingHellos(connectionId);
    await ts.client.db('admin').command({ killOp: 1, op: opid });
    const killed = await reply(c);
    assert.equal(killed.body['code'], 11601);

    const d = await connect();
    const dId = Number((await hello(d)).body['connectionId']);
    d.send(opMsg({ hello: 1, $db: 'admin', topologyVersion: tv, maxAwaitTimeMS: 600_000 }));
    await until(async () => (await waitingHellos(dId)).length === 1, 'the second waiting hello');
    d.close();
    await until(async () => (await waitingHellos(dId)).length === 0, 'the wait to end');
  });

  it('exhaustAllowed on hello streams replies with moreToCome, each answering the last', async () => {
    const c = await connect();
    const tv = topologyVersionOf(await hello(c));
    const request = opMsg(
      { hello: 1, $db: 'admin', topologyVersion: tv, maxAwaitTimeMS: 20 },
      exhaustAllowed,
    );
    c.send(request);
    let responseTo = request.readInt32LE(4);
    for (let i = 0; i < 4; i++) {
      const r = await reply(c);
      assert.equal(r.body['ok'], 1);
      assert.equal(r.flags & moreToCome, moreToCome, `reply ${i} has moreToCome`);
      assert.equal(r.responseTo, responseTo, `reply ${i} answers the previous message`);
      assert.ok(topologyVersionOf(r).processId.equals(tv.processId));
      responseTo = r.requestId;
    }
  });

  it('exhaust hello without maxAwaitTimeMS is refused, and the stream does not start', async () => {
    const c = await connect();
    c.send(opMsg({ hello: 1, $db: 'admin' }, exhaustAllowed));
    const r = await reply(c);
    assert.equal(r.body['code'], 51756);
    assert.equal(r.flags & moreToCome, 0);
    assert.equal((await hello(c)).body['ok'], 1);
  });

  it('exhaustAllowed on getMore streams the batches until the cursor is exhausted', async () => {
    const coll = ts.client.db('exh').collection<TestDoc>('docs');
    await coll.insertMany([...Array(9).keys()].map((i) => ({ _id: i })));
    const c = await connect();
    c.send(opMsg({ find: 'docs', $db: 'exh', sort: { _id: 1 }, batchSize: 2 }));
    const first = await reply(c);
    const cursor = first.body['cursor'] as { id: Long | number; firstBatch: TestDoc[] };
    const ids = cursor.firstBatch.map((d) => d._id);
    const request = opMsg(
      // An id below 2^53 comes back as a number; getMore needs it as a long.
      {
        getMore: typeof cursor.id === 'number' ? Long.fromNumber(cursor.id) : cursor.id,
        collection: 'docs',
        batchSize: 2,
        $db: 'exh',
      },
      exhaustAllowed,
    );
    c.send(request);
    let responseTo = request.readInt32LE(4);
    for (;;) {
      const r = await reply(c);
      assert.equal(r.body['ok'], 1);
      assert.equal(r.responseTo, responseTo);
      responseTo = r.requestId;
      const next = r.body['cursor'] as { id: Long | number; nextBatch: TestDoc[] };
      ids.push(...next.nextBatch.map((d) => d._id));
      const done = asNumber(next.id) === 0;
      assert.equal((r.flags & moreToCome) !== 0, !done, 'moreToCome until the cursor closes');
      if (done) break;
    }
    assert.deepEqual(ids, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // The connection takes requests again after the stream.
    assert.equal((await hello(c)).body['ok'], 1);
  });

  it('not-primary and shutdown errors carry topologyVersion, other errors do not', async () => {
    const admin = ts.client.db('admin');
    const c = await connect();
    const tv = topologyVersionOf(await hello(c));
    for (const [errorCode, carries] of [
      [91, true],
      [10107, true],
      [189, true],
      [2, false],
    ] as const) {
      await admin.command({
        configureFailPoint: 'failCommand',
        mode: { times: 1 },
        data: { failCommands: ['ping'], errorCode },
      });
      c.send(opMsg({ ping: 1, $db: 'admin' }));
      const r = await reply(c);
      assert.equal(r.body['code'], errorCode);
      if (carries) assert.ok(topologyVersionOf(r).processId.equals(tv.processId), `${errorCode}`);
      else assert.equal(r.body['topologyVersion'], undefined, `${errorCode}`);
    }
    await admin.command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['ping'], writeConcernError: { code: 11600, errmsg: 'x' } },
    });
    c.send(opMsg({ ping: 1, $db: 'admin' }));
    const wce = await reply(c);
    assert.equal(wce.body['ok'], 1);
    assert.ok(topologyVersionOf(wce).processId.equals(tv.processId), 'writeConcernError 11600');
  });

  it("the driver's monitor uses the streaming protocol", async () => {
    const client = await ts.newClient({ heartbeatFrequencyMS: 500 });
    const awaited = await new Promise<ServerHeartbeatSucceededEvent>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no awaited heartbeat')), 10_000);
      client.on('serverHeartbeatSucceeded', (e) => {
        if (e.awaited) {
          clearTimeout(timer);
          resolve(e);
        }
      });
    });
    assert.equal(awaited.awaited, true);
    assert.equal(awaited.reply['isWritablePrimary'], true);
  });
});

describe('awaitable hello on a standalone and at shutdown', () => {
  it('a standalone refuses another counter (51764); stop() answers a waiting hello', async () => {
    const server = await SecantusServer.start({ replSet: '' });
    let c: RawConnection | undefined;
    try {
      c = await RawConnection.connect(server.port);
      const first = await hello(c);
      const tv = topologyVersionOf(first);
      const bad = await hello(c, {
        topologyVersion: { processId: tv.processId, counter: Long.fromInt(1) },
        maxAwaitTimeMS: 1,
      });
      assert.equal(bad.body['code'], 51764);
      c.send(opMsg({ hello: 1, $db: 'admin', topologyVersion: tv, maxAwaitTimeMS: 600_000 }));
      const connectionId = Number(first.body['connectionId']);
      await until(async () => {
        const r = await rawCommand(server.port, {
          aggregate: 1,
          pipeline: [{ $currentOp: {} }, { $match: { connectionId, 'command.hello': 1 } }],
          cursor: {},
          $db: 'admin',
        });
        return (r['cursor'] as { firstBatch: unknown[] }).firstBatch.length === 1;
      }, 'the waiting hello');
      await server.stop();
      const last = await reply(c);
      assert.equal(last.body['ok'], 1);
      assert.equal(counterOf(topologyVersionOf(last)), 1, 'shutdown moves the counter');
    } finally {
      c?.close();
      await server.stop();
    }
  });
});
