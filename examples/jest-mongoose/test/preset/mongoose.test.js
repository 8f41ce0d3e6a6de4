// mongoose on the preset's server.
const mongoose = require('mongoose');
const { User } = require('../../src/models');

beforeAll(async () => {
  await mongoose.connect(globalThis.__MONGO_URI__, { dbName: globalThis.__MONGO_DB_NAME__ });
  await User.init();
});

afterAll(async () => {
  await mongoose.disconnect();
});

test('models work against the shared server', async () => {
  await User.create({ email: 'p@example.com', name: 'P' });
  expect(await User.countDocuments()).toBe(1);
  await expect(User.create({ email: 'p@example.com', name: 'Q' })).rejects.toMatchObject({
    code: 11000,
  });
});
