// The runner helpers without their runners: config files loaded whether CommonJS or ESM
// (jest-mongodb-config.js in either kind of project), the Jest preset's globalSetup and
// globalTeardown (shared server, MONGO_URL or the configured name, __MONGO_DB_NAME__ from
// instance.dbName), and secantusdb/vitest both as a globalSetup (provide MONGO_URI) and as
// vitest-mongodb's setup()/teardown(). The preset's test environment needs Jest itself: the
// package check runs it (examples/jest-mongoose, test:package).

import { after, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { loadConfigModule } from '../../../src/embed/runner-support.js';
import { readJestMongoConfig, readSharedState } from '../../../src/embed/jest/config.js';
import globalSetup from '../../../src/embed/jest/global-setup.js';
import globalTeardown from '../../../src/embed/jest/global-teardown.js';
import { mongoGlobalSetup, setup, teardown } from '../../../src/embed/vitest.js';

const dirs: string[] = [];
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'secantus-runner-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function hello(uri: string): Promise<Record<string, unknown>> {
  const c = new MongoClient(uri);
  try {
    return await c.db('admin').command({ hello: 1 });
  } finally {
    await c.close();
  }
}

describe('config files', () => {
  test('CommonJS, ESM (type: module) and .mjs config modules load alike', async () => {
    const cjs = project({ 'c.js': 'module.exports = { a: 1 };' });
    const esm = project({
      'package.json': '{"type":"module"}',
      'c.js': 'export default { a: 2 };',
      'd.mjs': 'export default { a: 3 };',
    });
    assert.deepEqual(await loadConfigModule(join(cjs, 'c.js')), { a: 1 });
    assert.deepEqual(await loadConfigModule(join(esm, 'c.js')), { a: 2 });
    assert.deepEqual(await loadConfigModule(join(esm, 'd.mjs')), { a: 3 });
  });

  test("jest-mongodb's defaults, its file, and MONGO_MEMORY_SERVER_FILE", async () => {
    const none = project({});
    assert.deepEqual(await readJestMongoConfig(none), {
      mongodbMemoryServerOptions: undefined,
      mongoURLEnvName: 'MONGO_URL',
      useSharedDBForAllJestWorkers: true,
    });
    const dir = project({
      'jest-mongodb-config.js':
        "module.exports = { mongodbMemoryServerOptions: { instance: { dbName: 'jest' } }, mongoURLEnvName: 'DB_URI', useSharedDBForAllJestWorkers: false };",
      'other.js': "module.exports = { mongoURLEnvName: 'OTHER' };",
    });
    const c = await readJestMongoConfig(dir);
    assert.equal(c.mongoURLEnvName, 'DB_URI');
    assert.equal(c.useSharedDBForAllJestWorkers, false);
    process.env['MONGO_MEMORY_SERVER_FILE'] = 'other.js';
    try {
      assert.equal((await readJestMongoConfig(dir)).mongoURLEnvName, 'OTHER');
    } finally {
      delete process.env['MONGO_MEMORY_SERVER_FILE'];
    }
  });
});

describe('Jest preset globalSetup / globalTeardown', () => {
  test('one shared standalone, its URI in the configured variable, dbName handed on', async () => {
    const dir = project({
      'jest-mongodb-config.js':
        "module.exports = { mongodbMemoryServerOptions: { binary: { version: '7.0.0' }, instance: { dbName: 'jest' } }, mongoURLEnvName: 'JEST_DB_URL' };",
    });
    await globalSetup({ rootDir: dir });
    try {
      const uri = process.env['JEST_DB_URL'];
      assert.match(uri ?? '', /^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
      assert.deepEqual(readSharedState(dir), { mongoUri: uri, mongoDBName: 'jest' });
      assert.equal((await hello(uri ?? ''))['setName'], undefined);
    } finally {
      await globalTeardown({ rootDir: dir });
      delete process.env['JEST_DB_URL'];
    }
    assert.deepEqual(readSharedState(dir), {});
  });

  test('the project rootDir decides (multi-project runs): two projects, two servers', async () => {
    const a = project({
      'jest-mongodb-config.js': "module.exports = { mongoURLEnvName: 'A_URL' };",
    });
    const b = project({
      'jest-mongodb-config.js': "module.exports = { mongoURLEnvName: 'B_URL' };",
    });
    await globalSetup({ rootDir: '/nowhere' }, { rootDir: a });
    await globalSetup({ rootDir: '/nowhere' }, { rootDir: b });
    try {
      assert.notEqual(readSharedState(a).mongoUri, readSharedState(b).mongoUri);
      assert.equal(process.env['A_URL'], readSharedState(a).mongoUri);
      assert.equal(process.env['B_URL'], readSharedState(b).mongoUri);
    } finally {
      await globalTeardown({ rootDir: '/nowhere' }, { rootDir: a });
      await globalTeardown({ rootDir: '/nowhere' }, { rootDir: b });
      delete process.env['A_URL'];
      delete process.env['B_URL'];
    }
    assert.deepEqual(readSharedState(a), {});
  });

  test('replSet options give a replica set; no shared server when workers do not share', async () => {
    const rs = project({
      'jest-mongodb-config.js':
        'module.exports = { mongodbMemoryServerOptions: { replSet: { count: 3 } } };',
    });
    await globalSetup({ rootDir: rs });
    try {
      const uri = process.env['MONGO_URL'] ?? '';
      assert.match(uri, /\?replicaSet=testset$/);
      assert.equal((await hello(uri))['setName'], 'testset');
      assert.equal(readSharedState(rs).mongoDBName, undefined);
    } finally {
      await globalTeardown({ rootDir: rs });
      delete process.env['MONGO_URL'];
    }
    const own = project({
      'jest-mongodb-config.js': 'module.exports = { useSharedDBForAllJestWorkers: false };',
    });
    await globalSetup({ rootDir: own });
    assert.equal(process.env['MONGO_URL'], undefined);
    assert.deepEqual(readSharedState(own), {});
    await globalTeardown({ rootDir: own });
  });
});

describe('secantusdb/vitest', () => {
  test('as a globalSetup: provides MONGO_URI (a replica set) and returns the teardown', async () => {
    const provided = new Map<string, unknown>();
    const stop = await mongoGlobalSetup()({ provide: (k, v) => provided.set(k, v) });
    const uri = String(provided.get('MONGO_URI'));
    assert.match(uri, /\?replicaSet=rs0$/);
    assert.equal(process.env['MONGO_URL'], uri);
    assert.equal((await hello(uri))['setName'], 'rs0');
    await stop();
    delete process.env['MONGO_URL'];
  });

  test('setup(project) is the globalSetup; teardown() stops it', async () => {
    const provided = new Map<string, unknown>();
    await setup({ provide: (k: string, v: unknown) => provided.set(k, v) });
    assert.ok(typeof provided.get('MONGO_URI') === 'string');
    await teardown();
    delete process.env['MONGO_URL'];
  });

  test("as vitest-mongodb's setup(): globalThis.__MONGO_URI__, once, replSet on request", async () => {
    const g = globalThis as { __MONGO_URI__?: string };
    await setup();
    const first = g.__MONGO_URI__;
    await setup(); // already defined: the same server
    assert.equal(g.__MONGO_URI__, first);
    assert.equal((await hello(first ?? ''))['setName'], undefined);
    await teardown();
    await setup({ type: 'replSet', serverOptions: { replSet: { name: 'vs' } } });
    assert.match(g.__MONGO_URI__ ?? '', /replicaSet=vs$/);
    await teardown();
  });
});
