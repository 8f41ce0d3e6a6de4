// On the run's server (secantusdb/vitest as globalSetup): inject('MONGO_URI'), and a
// database per worker so parallel files never share data.
import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, test } from 'vitest';
import { workerDatabaseName } from 'secantusdb/vitest';
import { countByTag, lowStock, restock, setUp } from '../src.js';

let client: MongoClient;
let db: Db;

beforeAll(async () => {
  client = new MongoClient(inject('MONGO_URI'));
  db = client.db(workerDatabaseName('inventory'));
});

beforeEach(async () => {
  await db.dropDatabase();
  await setUp(db);
  await db.collection('items').insertMany([
    { sku: 'a-1', name: 'bolt', qty: 5, tags: ['metal', 'small'] },
    { sku: 'b-2', name: 'plank', qty: 40, tags: ['wood'] },
    { sku: 'c-3', name: 'nail', qty: 1, tags: ['metal', 'small'] },
  ]);
});

afterAll(async () => {
  await client.close();
});

describe('inventory', () => {
  test('restock returns the new quantity', async () => {
    expect(await restock(db, 'a-1', 10)).toBe(15);
    await expect(restock(db, 'zz', 1)).rejects.toThrow(/unknown sku/);
  });

  test('low stock, sorted', async () => {
    expect(await lowStock(db, 6)).toEqual(['a-1', 'c-3']);
  });

  test('counts by tag with $unwind and $group', async () => {
    expect(await countByTag(db)).toEqual({ metal: 2, small: 2, wood: 1 });
  });

  test('the unique sku index holds', async () => {
    await expect(
      db.collection('items').insertOne({ sku: 'a-1', name: 'dup', qty: 0, tags: [] }),
    ).rejects.toMatchObject({ code: 11000 });
  });

  test('the URI names the replica set, so transactions work', async () => {
    expect(inject('MONGO_URI')).toMatch(/\?replicaSet=rs0$/);
    const session = client.startSession();
    await session.withTransaction(async () => {
      await db.collection('items').updateOne({ sku: 'a-1' }, { $inc: { qty: -1 } }, { session });
      await db.collection('items').updateOne({ sku: 'b-2' }, { $inc: { qty: 1 } }, { session });
    });
    await session.endSession();
    expect(await lowStock(db, 5)).toEqual(['a-1', 'c-3']);
  });
});
