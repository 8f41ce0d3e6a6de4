// On the preset, the jest-mongodb way: globalThis.__MONGO_URI__ and __MONGO_DB_NAME__ (a
// database of this file's own, so the files of parallel workers do not see each other).
const { MongoClient } = require('mongodb');

let client;
let db;

beforeAll(async () => {
  client = await MongoClient.connect(globalThis.__MONGO_URI__);
  db = client.db(globalThis.__MONGO_DB_NAME__);
});

afterAll(async () => {
  await client.close();
});

test('the URI is in process.env.MONGO_URL too', () => {
  expect(process.env.MONGO_URL).toBe(globalThis.__MONGO_URI__);
});

test('this file has its own database', async () => {
  await db.collection('shared-name').insertMany([{ file: 'b' }, { file: 'b' }, { file: 'b' }]);
  expect(await db.collection('shared-name').countDocuments()).toBe(3);
});
