// secantusdb/embedded on its own: data kept across close() and open() on one dbPath, a second
// open of a dbPath in use refused, the engine option passed to the server's engine selection,
// and a closed client refusing work. The driver-level suites run through it as well
// (*-embedded.test.ts).

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClientClosedError, MongoServerError, ObjectId } from 'mongodb';
import { open } from '../../src/embed/embedded/index.js';
import type { TestDoc } from '../helpers/driver.js';

describe('embedded client', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'secantus-embedded-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('close() then open() on the same dbPath sees the data', async () => {
    const path = join(dir, 'reopen');
    const first = await open({ dbPath: path });
    const id = new ObjectId();
    await first.db('app').collection<TestDoc>('c').insertOne({ _id: id, n: 1 });
    await first.close();
    const second = await open({ dbPath: path });
    try {
      assert.deepEqual(await second.db('app').collection('c').findOne({ _id: id }), {
        _id: id,
        n: 1,
      });
    } finally {
      await second.close();
    }
  });

  test('a dbPath already open is refused, and the first client goes on', async () => {
    const path = join(dir, 'locked');
    const first = await open({ dbPath: path });
    try {
      await assert.rejects(open({ dbPath: path }), (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.match(e.message, /lock|in use|already/i);
        return true;
      });
      await first.db('app').collection<TestDoc>('c').insertOne({ _id: 1 });
      assert.equal(await first.db('app').collection<TestDoc>('c').countDocuments(), 1);
    } finally {
      await first.close();
    }
  });

  test("engine is the server's engine selection: memory keeps nothing on disk", async () => {
    const path = join(dir, 'memory');
    const a = await open({ engine: 'memory' });
    await a.db('app').collection<TestDoc>('c').insertOne({ _id: 1 });
    const status = await a.db('admin').command({ serverStatus: 1 });
    assert.equal((status['storageEngine'] as { name: string }).name, 'memory');
    await a.close();
    const b = await open({ engine: 'lmdb', dbPath: path });
    try {
      const s = await b.db('admin').command({ serverStatus: 1 });
      assert.equal((s['storageEngine'] as { name: string }).name, 'lmdb');
      assert.equal(await b.db('app').collection('c').countDocuments(), 0);
    } finally {
      await b.close();
    }
  });

  test('server errors are the driver’s MongoServerError; a closed client refuses work', async () => {
    const c = await open();
    await assert.rejects(c.db('app').command({ noSuchCommand: 1 }), (e: unknown) => {
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, 59);
      assert.equal(e.codeName, 'CommandNotFound');
      return true;
    });
    await c.close();
    await assert.rejects(
      c.db('app').collection('c').findOne({}),
      (e: unknown) => e instanceof MongoClientClosedError,
    );
  });
});
