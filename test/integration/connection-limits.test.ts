// Connections have deadlines and a limit: a message must arrive whole in time, a new
// connection must send its first message in time, idle established connections stay, and past
// maxIncomingConnections a new connection is logged (22942) and closed as mongod does. Small
// limits are set through the server's options; waits are bounded by them, never asserted.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { Server } from '../../src/server/server.js';
import { Logger } from '../../src/log.js';
import { opMsg, RawConnection } from '../helpers/wire-client.js';
import type { TestDoc } from '../helpers/driver.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function logIds(lines: readonly string[]): number[] {
  return lines.map((l) => (JSON.parse(l) as { id: number }).id);
}

describe('connection deadlines', () => {
  let server: Server;
  let client: MongoClient;
  const lines: string[] = [];

  before(async () => {
    server = await Server.start({
      port: 0,
      replSet: '',
      logger: new Logger({ write: (l) => lines.push(l) }, 'info'),
      enableTestCommands: true,
      frameReceiveTimeoutMs: 300,
      firstMessageTimeoutMs: 300,
    });
    client = new MongoClient(`mongodb://127.0.0.1:${server.port}/`, {
      serverSelectionTimeoutMS: 5000,
      directConnection: true,
    });
    await client.db('d').collection<TestDoc>('c').insertOne({ _id: 1, a: 'kept' });
  });
  after(async () => {
    await client.close();
    await server.stop();
  });

  async function othersUnaffected(): Promise<void> {
    const docs = await client.db('d').collection<TestDoc>('c').find().toArray();
    assert.deepEqual(docs, [{ _id: 1, a: 'kept' }], 'stored data unchanged');
    assert.equal((await client.db('admin').command({ ping: 1 }))['ok'], 1);
  }

  test('a message left incomplete is closed and logged', async () => {
    const c = await RawConnection.connect(server.port);
    c.send(opMsg({ ping: 1, $db: 'admin' }));
    assert.equal((await c.next()).kind, 'reply');
    const frame = opMsg({ insert: 'c', documents: [{ _id: 2 }], $db: 'd' });
    c.send(frame.subarray(0, 10));
    const r = await c.next(5000);
    assert.equal(r.kind, 'closed');
    c.close();
    assert.ok(
      lines.some((l) => l.includes('"id":22989') && l.includes('message incomplete')),
      'the close is logged',
    );
    await othersUnaffected();
  });

  test('trickling bytes does not extend the deadline', async () => {
    const c = await RawConnection.connect(server.port);
    c.send(opMsg({ ping: 1, $db: 'admin' }));
    assert.equal((await c.next()).kind, 'reply');
    const frame = opMsg({ ping: 1, $db: 'admin' });
    let closed = false;
    const result = c.next(5000).then((r) => {
      closed = r.kind === 'closed';
      return r;
    });
    // One byte every 100 ms: the whole message would take seconds.
    for (let i = 0; i < frame.length - 1 && !closed && i < 40; i++) {
      c.send(frame.subarray(i, i + 1));
      await sleep(100);
    }
    assert.equal((await result).kind, 'closed');
    c.close();
    await othersUnaffected();
  });

  test('a connection that never sends is closed; one that sent stays while idle', async () => {
    const silent = await RawConnection.connect(server.port);
    const talker = await RawConnection.connect(server.port);
    talker.send(opMsg({ ping: 1, $db: 'admin' }));
    assert.equal((await talker.next()).kind, 'reply');
    assert.equal((await silent.next(5000)).kind, 'closed');
    assert.ok(lines.some((l) => l.includes('no message received from the client')));
    // The idle, established connection outlived the silent one's deadline and still works.
    await sleep(400);
    talker.send(opMsg({ ping: 1, $db: 'admin' }));
    const r = await talker.next();
    assert.equal(r.kind, 'reply');
    if (r.kind === 'reply') assert.equal(r.body['ok'], 1);
    silent.close();
    talker.close();
    await othersUnaffected();
  });

  test('a request running longer than the frame deadline is not cut off', async () => {
    await client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['ping'], blockConnection: true, blockTimeMS: 700 },
    });
    const c = await RawConnection.connect(server.port);
    // The next message's first bytes wait while the blocked ping runs past the deadline:
    // reading is paused then, and the clock with it.
    const second = opMsg({ ping: 1, $db: 'admin' });
    c.send(Buffer.concat([opMsg({ ping: 1, $db: 'admin' }), second.subarray(0, 10)]));
    assert.equal((await c.next(5000)).kind, 'reply');
    c.send(second.subarray(10));
    const r = await c.next(5000);
    assert.equal(r.kind, 'reply');
    if (r.kind === 'reply') assert.equal(r.body['ok'], 1);
    c.close();
  });
});

describe('maxIncomingConnections', () => {
  let server: Server;
  const lines: string[] = [];

  before(async () => {
    server = await Server.start({
      port: 0,
      replSet: '',
      logger: new Logger({ write: (l) => lines.push(l) }, 'info'),
      maxIncomingConnections: 2,
    });
  });
  after(async () => {
    await server.stop();
  });

  test('past the limit a connection is accepted, logged and closed; others keep working', async () => {
    const a = await RawConnection.connect(server.port);
    const b = await RawConnection.connect(server.port);
    a.send(opMsg({ ping: 1, $db: 'admin' }));
    assert.equal((await a.next()).kind, 'reply');
    const c = await RawConnection.connect(server.port);
    c.send(opMsg({ ping: 1, $db: 'admin' }));
    assert.equal((await c.next()).kind, 'closed', 'the third connection is closed');
    assert.ok(logIds(lines).includes(22942), 'logged as mongod does');
    b.send(opMsg({ serverStatus: 1, $db: 'admin' }));
    const st = await b.next();
    assert.equal(st.kind, 'reply');
    if (st.kind === 'reply') {
      const conns = st.body['connections'] as Record<string, unknown>;
      assert.equal(conns['current'], 2);
      assert.equal(conns['available'], 0);
      assert.equal(conns['rejected'], 1);
    }
    // A slot freed is a slot taken again.
    a.close();
    c.close();
    for (let i = 0; i < 50 && server.connectionStates().length > 1; i++) await sleep(10);
    const d = await RawConnection.connect(server.port);
    d.send(opMsg({ ping: 1, $db: 'admin' }));
    assert.equal((await d.next()).kind, 'reply');
    b.close();
    d.close();
  });

  test('an invalid limit is refused at start', async () => {
    await assert.rejects(Server.start({ port: 0, maxIncomingConnections: 0 }), RangeError);
  });
});
