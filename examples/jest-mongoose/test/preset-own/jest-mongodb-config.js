// This project's own jest-mongodb config: a server per test file (no sharing), a replica set.
module.exports = {
  mongodbMemoryServerOptions: { replSet: { count: 3, storageEngine: 'wiredTiger' } },
  useSharedDBForAllJestWorkers: false,
};
