// Written the way mongodb-memory-server users write it; the only change is the module name
// (was: require('mongodb-memory-server')).
const mongoose = require('mongoose');
const { MongoMemoryServer } = require('secantusdb/memory-server');
const { User, Post } = require('../../src/models');
const { register, publish, leaderboard } = require('../../src/users');

let mongod;

beforeAll(async () => {
  mongod = await MongoMemoryServer.create();
  await mongoose.connect(mongod.getUri(), { dbName: 'app' });
  await User.init(); // builds the unique index
});

afterEach(async () => {
  const { collections } = mongoose.connection;
  for (const key of Object.keys(collections)) await collections[key].deleteMany({});
});

afterAll(async () => {
  await mongoose.disconnect();
  await mongod.stop();
});

test('registers a user, normalising the email', async () => {
  const user = await register('  Ada@Example.com ', 'Ada', 36);
  expect(user.email).toBe('ada@example.com');
  expect(user.createdAt).toBeInstanceOf(Date);
  const found = await User.findOne({ email: 'ada@example.com' }).lean();
  expect(found.name).toBe('Ada');
  expect((await User.findById(user._id)).displayName).toBe('Ada <ada@example.com>');
});

test('refuses a duplicate email with E11000', async () => {
  await register('bob@example.com', 'Bob');
  await expect(register('bob@example.com', 'Robert')).rejects.toMatchObject({ code: 11000 });
});

test('validation errors come from mongoose before the server', async () => {
  await expect(register('x@example.com', 'X', -1)).rejects.toThrow(/age/);
});

test('updates, populate and an aggregation with $lookup', async () => {
  const ada = await register('ada@example.com', 'Ada');
  const bob = await register('bob@example.com', 'Bob');
  const post = await publish(ada._id, 'Notes on the engine');
  await publish(bob._id, 'Hello');
  await Post.updateOne({ _id: post._id }, { $inc: { likes: 3 } });
  const populated = await Post.findById(post._id).populate('author').lean();
  expect(populated.author.name).toBe('Ada');
  const board = await leaderboard();
  expect(board.map((u) => [u.name, u.posts, u.likes])).toEqual([
    ['Ada', 1, 3],
    ['Bob', 1, 0],
  ]);
});

test('each test starts empty (afterEach cleans)', async () => {
  expect(await User.countDocuments()).toBe(0);
});

test('reset() and snapshot()/restore() on the same server', async () => {
  await register('seed@example.com', 'Seed');
  const snap = await mongod.snapshot();
  await User.deleteMany({});
  await mongod.restore(snap);
  expect(await User.countDocuments()).toBe(1);
  await mongod.reset();
  expect(await User.countDocuments()).toBe(0);
  await User.init(); // the reset dropped the indexes with the collection
});
