// secantusdb/node-test under node:test itself: useSecantus() at a file's top level starts a
// server before the tests, seeds it, and with `reset` returns it to the seeded state before
// each test (a snapshot restored, not a re-seed); the handle's getUri/reset/snapshot work.

import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { useSecantus, workerDatabaseName } from '../../../src/embed/node-test.js';
import type { TestDoc } from '../../helpers/driver.js';

let seeds = 0;
const db = useSecantus({
  reset: true,
  seed: async (uri) => {
    seeds++;
    const c = new MongoClient(uri);
    await c
      .db('app')
      .collection<TestDoc>('users')
      .insertMany([{ _id: 1 }, { _id: 2 }]);
    await c.close();
  },
});

let client: MongoClient | undefined;
function users() {
  client ??= new MongoClient(db.getUri('app'));
  return client.db().collection<TestDoc>('users');
}
after(async () => {
  await client?.close();
});

test('a test starts from the seed and changes it', async () => {
  assert.equal(await users().countDocuments(), 2);
  await users().insertOne({ _id: 3 });
  await users().deleteOne({ _id: 1 });
});

test('the next test starts from the seed again; seed ran once', async () => {
  assert.deepEqual(
    (await users().find().toArray()).map((d) => d['_id']),
    [1, 2],
  );
  assert.equal(seeds, 1);
});

test('the handle: uri, server, reset and snapshot', async () => {
  assert.equal(db.uri, db.server.uri);
  const snap = await db.snapshot();
  await db.reset();
  assert.equal(await users().countDocuments(), 0);
  await db.restore(snap);
  assert.equal(await users().countDocuments(), 2);
});

test('workerDatabaseName: one per worker', () => {
  const name = workerDatabaseName('app');
  assert.match(name, /^app_\w+$/);
  assert.equal(workerDatabaseName('app'), name);
});
