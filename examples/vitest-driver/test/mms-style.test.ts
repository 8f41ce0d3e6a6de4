// Written as mongodb-memory-server users write it (was: from 'mongodb-memory-server'), plus
// the fixtures SecantusDB adds: snapshot() after seeding, restore() before each test.
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { MongoMemoryServer } from 'secantusdb/memory-server';
import type { ServerSnapshot } from 'secantusdb';
import { lowStock, restock, setUp } from '../src.js';

let mongod: MongoMemoryServer;
let client: MongoClient;
let seeded: ServerSnapshot;

beforeAll(async () => {
  mongod = await MongoMemoryServer.create({ binary: { version: '7.0.14' } });
  client = new MongoClient(mongod.getUri());
  const db = client.db('shop');
  await setUp(db);
  await db.collection('items').insertMany(
    Array.from({ length: 500 }, (_, i) => ({
      sku: `s-${i}`,
      name: `item ${i}`,
      qty: i % 10,
      tags: [],
    })),
  );
  seeded = await mongod.snapshot();
});

beforeEach(async () => {
  await mongod.restore(seeded);
});

afterAll(async () => {
  await client.close();
  await mongod.stop();
});

test('a test changes the data', async () => {
  await client
    .db('shop')
    .collection('items')
    .deleteMany({ qty: { $lt: 5 } });
  expect(await client.db('shop').collection('items').countDocuments()).toBe(250);
});

test('the next one starts from the seed again, indexes included', async () => {
  expect(await client.db('shop').collection('items').countDocuments()).toBe(500);
  expect(await restock(client.db('shop'), 's-3', 4)).toBe(7);
  await expect(
    client.db('shop').collection('items').insertOne({ sku: 's-1' }),
  ).rejects.toMatchObject({ code: 11000 });
  expect((await lowStock(client.db('shop'), 1)).length).toBe(50);
});

test('getUri() as MMS builds it: a standalone, no replica set', () => {
  expect(mongod.getUri('shop')).toBe(`mongodb://127.0.0.1:${mongod.instanceInfo?.port}/shop`);
});
