// useSharedDBForAllJestWorkers: false — this file has a server of its own (a replica set, from
// this folder's jest-mongodb-config.js), and globalThis.__SECANTUS_SERVER__ is that server.
const { MongoClient } = require('mongoose').mongo;

let client;

beforeAll(async () => {
  client = await MongoClient.connect(globalThis.__MONGO_URI__);
});

afterAll(async () => {
  await client.close();
});

test('a replica set of its own: transactions work, no MONGO_URL is set', async () => {
  expect(globalThis.__MONGO_URI__).toMatch(/\?replicaSet=testset$/);
  expect(process.env.MONGO_URL).toBeUndefined();
  const orders = client.db(globalThis.__MONGO_DB_NAME__).collection('orders');
  const session = client.startSession();
  await session.withTransaction(async () => {
    await orders.insertOne({ n: 1 }, { session });
    await orders.insertOne({ n: 2 }, { session });
  });
  await session.endSession();
  expect(await orders.countDocuments()).toBe(2);
});

test('the server object: snapshot and restore between tests', async () => {
  const server = globalThis.__SECANTUS_SERVER__;
  const orders = client.db(globalThis.__MONGO_DB_NAME__).collection('orders');
  const snap = await server.snapshot();
  await orders.deleteMany({});
  await server.restore(snap);
  expect(await orders.countDocuments()).toBe(2);
});
