// A small inventory module: what the tests exercise.
import type { Db } from 'mongodb';

export interface Item {
  sku: string;
  name: string;
  qty: number;
  tags: string[];
}

export async function setUp(db: Db): Promise<void> {
  await db.collection<Item>('items').createIndex({ sku: 1 }, { unique: true });
}

export async function restock(db: Db, sku: string, qty: number): Promise<number> {
  const r = await db
    .collection<Item>('items')
    .findOneAndUpdate({ sku }, { $inc: { qty } }, { returnDocument: 'after' });
  if (r === null) throw new Error(`unknown sku ${sku}`);
  return r.qty;
}

export async function lowStock(db: Db, below: number): Promise<string[]> {
  const rows = await db
    .collection<Item>('items')
    .find({ qty: { $lt: below } }, { projection: { _id: 0, sku: 1 } })
    .sort({ sku: 1 })
    .toArray();
  return rows.map((r) => r.sku);
}

export async function countByTag(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .collection<Item>('items')
    .aggregate<{ _id: string; n: number }>([
      { $unwind: '$tags' },
      { $group: { _id: '$tags', n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ])
    .toArray();
  return Object.fromEntries(rows.map((r) => [r._id, r.n]));
}
