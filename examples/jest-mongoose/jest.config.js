// Two projects: the suites written as mongodb-memory-server users write them (a server per
// test file, made in beforeAll), and the same kind of suites on the Jest preset
// (`preset: 'secantusdb'`, jest-mongodb's way: one server, __MONGO_URI__ in every file).
module.exports = {
  projects: [
    { displayName: 'mms', testEnvironment: 'node', testMatch: ['<rootDir>/test/mms/**/*.test.js'] },
    {
      displayName: 'preset',
      preset: 'secantusdb',
      testMatch: ['<rootDir>/test/preset/**/*.test.js'],
    },
  ],
};
