// node:test, a server for this file: useSecantus() seeds it once and returns it to the seed
// before each test (a snapshot restored, not a re-seed).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { useSecantus } from 'secantusdb/node-test';

const mongo = useSecantus({
  reset: true,
  seed: async (uri) => {
    const client = new MongoClient(uri);
    await client.db('todo').collection('todos').createIndex({ title: 1 }, { unique: true });
    await client
      .db('todo')
      .collection('todos')
      .insertMany([
        { title: 'write tests', done: false },
        { title: 'ship', done: false },
      ]);
    await client.close();
  },
});

let client;
const todos = () => {
  client ??= new MongoClient(mongo.getUri('todo'));
  return client.db().collection('todos');
};
after(() => client?.close());

test('completes a todo', async () => {
  await todos().updateOne({ title: 'ship' }, { $set: { done: true } });
  assert.equal(await todos().countDocuments({ done: true }), 1);
  await todos().insertOne({ title: 'celebrate' });
});

test('starts from the seed again', async () => {
  assert.equal(await todos().countDocuments(), 2);
  assert.equal(await todos().countDocuments({ done: true }), 0);
  await assert.rejects(todos().insertOne({ title: 'ship' }), { code: 11000 });
});
