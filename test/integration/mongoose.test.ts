// mongoose against the in-process server with a plain URI: models, validation, indexes
// (autoIndex / syncIndexes), and session.withTransaction.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import mongoose from 'mongoose';
import { SecantusServer } from '../../src/embed/index.js';

describe('mongoose', () => {
  let server: SecantusServer;
  let conn: mongoose.Connection;

  before(async () => {
    server = await SecantusServer.start();
    conn = await mongoose
      .createConnection(server.uri, { dbName: 'mongoose_test', serverSelectionTimeoutMS: 5000 })
      .asPromise();
  });
  after(async () => {
    await conn.close();
    await server.stop();
  });

  test('models save, query, update and delete', async () => {
    const Cat = conn.model(
      'Cat',
      new mongoose.Schema({ name: { type: String, required: true }, age: Number, tags: [String] }),
    );
    await Cat.create({ name: 'Tom', age: 3, tags: ['grey'] });
    await Cat.create([
      { name: 'Felix', age: 5 },
      { name: 'Garfield', age: 9, tags: ['orange', 'lazy'] },
    ]);
    const old = await Cat.find({ age: { $gte: 5 } })
      .sort({ age: -1 })
      .lean();
    assert.deepEqual(
      old.map((c) => c.name),
      ['Garfield', 'Felix'],
    );
    await Cat.updateOne({ name: 'Tom' }, { $inc: { age: 1 }, $push: { tags: 'fast' } });
    const tom = await Cat.findOne({ name: 'Tom' }).lean();
    assert.equal(tom?.age, 4);
    assert.deepEqual(tom?.tags, ['grey', 'fast']);
    assert.equal(await Cat.countDocuments({ tags: 'lazy' }), 1);
    await Cat.deleteOne({ name: 'Felix' });
    assert.equal(await Cat.estimatedDocumentCount(), 2);
    await assert.rejects(Cat.create({ age: 1 }), /name.*required/);
  });

  test('autoIndex builds unique indexes and duplicates are refused with E11000', async () => {
    const schema = new mongoose.Schema({
      email: { type: String, unique: true },
      n: { type: Number, index: true },
    });
    const User = conn.model('User', schema);
    await User.init();
    const names = (await User.collection.listIndexes().toArray()).map((i) => i['name']).sort();
    assert.deepEqual(names, ['_id_', 'email_1', 'n_1']);
    await User.create({ email: 'a@example.com', n: 1 });
    await assert.rejects(
      User.create({ email: 'a@example.com', n: 2 }),
      (e: unknown) => (e as { code?: number }).code === 11000,
    );
  });

  test('syncIndexes drops indexes no longer in the schema and creates new ones', async () => {
    const coll = conn.collection('things');
    await coll.insertOne({ a: 1, b: 1 });
    await coll.createIndex({ stale: 1 });
    const Thing = conn.model(
      'Thing',
      new mongoose.Schema({ a: { type: Number, index: true }, b: Number }),
      'things',
    );
    const dropped = await Thing.syncIndexes();
    assert.deepEqual(dropped, ['stale_1']);
    const names = (await coll.listIndexes().toArray()).map((i) => i['name']).sort();
    assert.deepEqual(names, ['_id_', 'a_1']);
  });

  test('session.withTransaction commits together or not at all', async () => {
    const Account = conn.model('Account', new mongoose.Schema({ _id: String, balance: Number }));
    await Account.create([
      { _id: 'a', balance: 100 },
      { _id: 'b', balance: 0 },
    ]);
    const session = await conn.startSession();
    await session.withTransaction(async () => {
      await Account.updateOne({ _id: 'a' }, { $inc: { balance: -30 } }, { session });
      await Account.updateOne({ _id: 'b' }, { $inc: { balance: 30 } }, { session });
    });
    await assert.rejects(
      session.withTransaction(async () => {
        await Account.updateOne({ _id: 'a' }, { $inc: { balance: -1000 } }, { session });
        throw new Error('insufficient funds');
      }),
      /insufficient funds/,
    );
    await session.endSession();
    const balances = await Account.find().sort({ _id: 1 }).lean();
    assert.deepEqual(
      balances.map((x) => [x._id, x.balance]),
      [
        ['a', 70],
        ['b', 30],
      ],
    );
  });

  test('a schema with a text index: init() builds it, $text queries rank by score', async () => {
    const schema = new mongoose.Schema({ title: String, body: String });
    schema.index({ title: 'text', body: 'text' }, { weights: { title: 5 }, name: 'search' });
    const Post = conn.model('Post', schema);
    await Post.init();
    const spec = (await Post.collection.listIndexes().toArray()).find(
      (i) => i['name'] === 'search',
    );
    assert.deepEqual(spec?.['weights'], { body: 1, title: 5 });
    await Post.create([
      { title: 'Cooking rice', body: 'Rinse, boil, rest.' },
      { title: 'Gardening', body: 'Rice fields need water.' },
      { title: 'Painting', body: 'Walls and ceilings.' },
    ]);
    const found = await Post.find({ $text: { $search: 'rice' } }, { score: { $meta: 'textScore' } })
      .sort({ score: { $meta: 'textScore' } })
      .lean();
    assert.deepEqual(
      found.map((p) => p.title),
      ['Cooking rice', 'Gardening'],
    );
  });

  test('a schema with a 2dsphere index: init() builds it, $near and $geoWithin query', async () => {
    const pointSchema = new mongoose.Schema(
      { type: { type: String, enum: ['Point'], required: true }, coordinates: [Number] },
      { _id: false },
    );
    const schema = new mongoose.Schema({
      name: String,
      location: { type: pointSchema, index: '2dsphere' },
    });
    const Shop = conn.model('Shop', schema);
    await Shop.init();
    const names = (await Shop.collection.listIndexes().toArray()).map((i) => i['name']);
    assert.ok(names.includes('location_2dsphere'));
    await Shop.create([
      { name: 'near', location: { type: 'Point', coordinates: [2.35, 48.85] } },
      { name: 'far', location: { type: 'Point', coordinates: [2.5, 48.9] } },
    ]);
    const found = await Shop.find({
      location: {
        $near: { $geometry: { type: 'Point', coordinates: [2.35, 48.86] }, $maxDistance: 5000 },
      },
    }).lean();
    assert.deepEqual(
      found.map((s) => s.name),
      ['near'],
    );
    const within = await Shop.find({
      location: { $geoWithin: { $centerSphere: [[2.35, 48.86], 20 / 6378.1] } },
    }).lean();
    assert.deepEqual(within.map((s) => s.name).sort(), ['far', 'near']);
  });

  test('a schema with a hashed index: init() builds it, equality uses it', async () => {
    const schema = new mongoose.Schema({ email: { type: String, index: 'hashed' } });
    const User = conn.model('HashedUser', schema);
    await User.init();
    const names = (await User.collection.listIndexes().toArray()).map((i) => i['name']);
    assert.ok(names.includes('email_hashed'));
    await User.create([{ email: 'a@x.org' }, { email: 'b@x.org' }]);
    const found = await User.find({ email: 'b@x.org' }).lean();
    assert.deepEqual(
      found.map((u) => u.email),
      ['b@x.org'],
    );
    const plan = (await User.find({ email: 'b@x.org' }).explain()) as unknown as {
      queryPlanner: { winningPlan: { inputStage?: { indexName?: string } } };
    };
    assert.equal(plan.queryPlanner.winningPlan.inputStage?.indexName, 'email_hashed');
  });
});
