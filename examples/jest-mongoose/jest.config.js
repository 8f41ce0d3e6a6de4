// Two projects: suites written as mongodb-memory-server users write them (a server per test
// file, made in beforeAll), and suites on the Jest preset (`preset: 'secantusdb'`,
// jest-mongodb's way: one server, __MONGO_URI__ in every file). jest.own.config.js runs a
// third kind on its own: Jest runs one globalSetup per module, so two projects of one run
// cannot use the preset with different configs.
module.exports = {
  projects: [
    {
      displayName: 'mms',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/test/mms/**/*.test.js'],
    },
    {
      displayName: 'preset',
      preset: 'secantusdb',
      testMatch: ['<rootDir>/test/preset/**/*.test.js'],
    },
  ],
};
