// The preset with test/preset-own/jest-mongodb-config.js: a server per test file.
module.exports = {
  displayName: 'preset-own',
  preset: 'secantusdb',
  rootDir: 'test/preset-own',
};
