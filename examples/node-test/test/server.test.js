// SecantusServer itself: start, getUri, snapshot / restore, reset, stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { SecantusServer } from 'secantusdb';

test('fixtures on a SecantusServer', async () => {
  const server = await SecantusServer.start();
  const client = new MongoClient(server.getUri('app'));
  try {
    assert.match(server.getUri('app'), /\/app\?replicaSet=rs0$/);
    const users = client.db().collection('users');
    await users.insertMany([{ name: 'Ada' }, { name: 'Grace' }]);
    const snap = await server.snapshot();
    await users.deleteMany({});
    await server.restore(snap);
    assert.equal(await users.countDocuments(), 2);
    const { dropped } = await server.reset();
    assert.deepEqual(dropped, ['app.users']);
    assert.equal(await users.countDocuments(), 0);
  } finally {
    await client.close(); // clients before the server
    await server.stop();
  }
});
