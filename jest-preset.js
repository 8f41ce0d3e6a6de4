// `preset: 'secantusdb'` in a Jest config, in the style of @shelf/jest-mongodb: one server
// for the run (globalSetup), __MONGO_URI__ and __MONGO_DB_NAME__ in every test file (the test
// environment), options from jest-mongodb-config.js. The files are CommonJS (dist/cjs).
// Jest loads this ES module with require() on Node >= 20.19 and import() before; either way
// it reads the default export.
import { fileURLToPath } from 'node:url';

const built = (file) => fileURLToPath(new URL(`./dist/cjs/embed/jest/${file}`, import.meta.url));

export default {
  globalSetup: built('global-setup.js'),
  globalTeardown: built('global-teardown.js'),
  testEnvironment: built('environment.js'),
};
