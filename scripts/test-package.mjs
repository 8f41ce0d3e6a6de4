#!/usr/bin/env node
// The package as users get it (npm run test:package; CI runs it after the tests):
//
// 1. `npm pack`, and a look at the tarball: the ES module and CommonJS builds with their
//    types, the Jest preset, no tests, benchmarks, sources or source maps;
// 2. a scratch project installing the tarball: require('secantusdb') and import('secantusdb')
//    (and each subpath) start a server the driver pings;
// 3. every example under examples/, copied to a scratch folder, its `secantusdb` dependency
//    pointed at the tarball, installed from the npm registry (npm install --no-audit
//    --no-fund) and run with its own `npm test`.
//
// Everything happens in one temporary folder (npm's cache included, so nothing outlives the
// run) that is removed at the end; --keep leaves it for a look. Prints the time of each step.
//
//   node scripts/test-package.mjs [--keep] [example ...]

import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const keep = argv.includes('--keep');
const only = argv.filter((a) => !a.startsWith('--'));
const work = mkdtempSync(join(tmpdir(), 'secantus-package-'));
const cache = join(work, '.npm-cache');
const timings = [];

function run(cmd, args, cwd, { capture = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
      env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' },
    });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code}`)),
    );
  });
}

async function step(name, fn) {
  const started = Date.now();
  process.stdout.write(`\n== ${name}\n`);
  const result = await fn();
  timings.push([name, (Date.now() - started) / 1000]);
  return result;
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const install = ['install', '--no-audit', '--no-fund', '--loglevel=error'];

function checkContents(files) {
  const must = [
    'package/package.json',
    'package/jest-preset.js',
    'package/dist/src/index.js',
    'package/dist/src/index.d.ts',
    'package/dist/src/cli/secantusd.js',
    'package/dist/src/embed/memory-server.js',
    'package/dist/src/embed/embedded/index.js',
    'package/dist/cjs/embed/embedded/index.js',
    'package/dist/cjs/package.json',
    'package/dist/cjs/index.js',
    'package/dist/cjs/index.d.ts',
    'package/dist/cjs/embed/jest/environment.js',
    'package/dist/cjs/embed/vitest.js',
  ];
  const missing = must.filter((f) => !files.includes(f));
  const unwanted = files.filter(
    (f) =>
      /\.map$|\.tsbuildinfo$|^package\/(test|bench|examples|scripts|src|conformance)\//.test(f) ||
      /^package\/dist\/bench\//.test(f),
  );
  if (missing.length > 0 || unwanted.length > 0)
    throw new Error(
      `tarball: missing ${JSON.stringify(missing)}, unwanted ${JSON.stringify(unwanted.slice(0, 10))}`,
    );
  return files.length;
}

const smokeCjs = `
const assert = require('node:assert/strict');
const { SecantusServer } = require('secantusdb');
const { MongoMemoryServer } = require('secantusdb/memory-server');
const { setup } = require('secantusdb/vitest');
const { useSecantus } = require('secantusdb/node-test');
const preset = require.resolve('secantusdb/jest-preset');
const { MongoClient } = require('mongodb');
(async () => {
  assert.equal(typeof setup, 'function');
  assert.equal(typeof useSecantus, 'function');
  assert.match(preset, /jest-preset\\.js$/);
  const server = await SecantusServer.start();
  const client = new MongoClient(server.getUri('smoke'));
  assert.equal((await client.db().command({ ping: 1 })).ok, 1);
  // Code paths behind CommonJS dependencies (the stemmer of text indexes) run in this build too.
  const notes = client.db().collection('notes');
  await notes.createIndex({ body: 'text' });
  await notes.insertMany([{ body: 'running late' }, { body: 'on time' }]);
  assert.equal(await notes.countDocuments({ $text: { $search: 'runs' } }), 1);
  await client.close();
  await server.stop();
  const mms = await MongoMemoryServer.create();
  assert.match(mms.getUri(), /^mongodb:\\/\\/127\\.0\\.0\\.1:\\d+\\/$/);
  await mms.stop();
  const embedded = await require('secantusdb/embedded').open();
  await embedded.db('smoke').collection('e').insertOne({ _id: 1 });
  assert.equal(await embedded.db('smoke').collection('e').countDocuments(), 1);
  await embedded.close();
  console.log('require: ok');
})().catch((e) => { console.error(e); process.exit(1); });
`;

const smokeEsm = `
import assert from 'node:assert/strict';
import { SecantusServer } from 'secantusdb';
import { MongoMemoryReplSet } from 'secantusdb/memory-server';
import { MongoClient } from 'mongodb';
const rs = await MongoMemoryReplSet.create();
const client = new MongoClient(rs.getUri('smoke'));
assert.equal((await client.db().command({ ping: 1 })).ok, 1);
await client.close();
await rs.stop();
const server = await SecantusServer.start();
await server.stop();
const { open, MongoServerError } = await import('secantusdb/embedded');
const embedded = await open();
await embedded.db('smoke').collection('e').insertOne({ _id: 1 });
await assert.rejects(embedded.db('smoke').collection('e').insertOne({ _id: 1 }), MongoServerError);
await embedded.close();
console.log('import: ok');
`;

const smokeTypes = `
import { SecantusServer, type ServerSnapshot } from 'secantusdb';
import { MongoMemoryServer } from 'secantusdb/memory-server';
import { open, type EmbeddedClient } from 'secantusdb/embedded';
const s: Promise<SecantusServer> = SecantusServer.start();
const m: Promise<MongoMemoryServer> = MongoMemoryServer.create();
const e: Promise<EmbeddedClient> = open({ engine: 'memory' });
export type Snap = ServerSnapshot;
export { s, m, e };
`;

const smokeTypesCjs = `
import { SecantusServer } from 'secantusdb';
import { MongoMemoryReplSet } from 'secantusdb/memory-server';
const s: Promise<SecantusServer> = SecantusServer.start();
const r: Promise<MongoMemoryReplSet> = MongoMemoryReplSet.create();
export = { s, r };
`;

try {
  const tarball = await step('npm pack', async () => {
    const out = await run(npm, ['pack', '--pack-destination', work, '--silent'], root, {
      capture: true,
    });
    const name = out.trim().split('\n').pop();
    return join(work, name);
  });
  await step('tarball contents', async () => {
    const list = await run('tar', ['-tzf', tarball], work, { capture: true });
    const n = checkContents(list.trim().split('\n'));
    console.log(`${n} files, as expected`);
  });
  // The scratch projects, installed at once: installing is mostly waiting for the registry.
  const smoke = join(work, 'smoke');
  mkdirSync(smoke);
  writeFileSync(
    join(smoke, 'package.json'),
    JSON.stringify({
      name: 'smoke',
      private: true,
      dependencies: {
        secantusdb: `file:${tarball}`,
        mongodb: '^7.0.0',
        typescript: '~5.9.0',
        '@types/node': '^20.0.0',
        // s2js (geo indexes) publishes types that import 'geojson' without depending on its
        // types: a project checking library types (no skipLibCheck) needs them.
        '@types/geojson': '^7946.0.0',
      },
    }),
  );
  writeFileSync(join(smoke, 'smoke.cjs'), smokeCjs);
  writeFileSync(join(smoke, 'smoke.mjs'), smokeEsm);
  writeFileSync(join(smoke, 'types.mts'), smokeTypes);
  writeFileSync(join(smoke, 'types.cts'), smokeTypesCjs);
  const examples = readdirSync(join(root, 'examples'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && (only.length === 0 || only.includes(e.name)))
    .map((e) => e.name)
    .sort();
  for (const name of examples) {
    const dir = join(work, name);
    cpSync(join(root, 'examples', name), dir, {
      recursive: true,
      filter: (src) => !/node_modules|package-lock\.json/.test(src),
    });
    const pkgPath = join(dir, 'package.json');
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
    pkg.devDependencies.secantusdb = `file:${tarball}`;
    writeFileSync(pkgPath, JSON.stringify(pkg, null, 2));
  }
  await step(`npm install: smoke, ${examples.join(', ')} (in parallel)`, () =>
    Promise.all(
      [smoke, ...examples.map((e) => join(work, e))].map((dir) => run(npm, install, dir)),
    ),
  );
  await step('smoke: require, import and the types of both builds', async () => {
    await run(process.execPath, ['smoke.cjs'], smoke);
    await run(process.execPath, ['smoke.mjs'], smoke);
    // As a NodeNext TypeScript project sees them: .mts imports, .cts requires.
    const tsc = join(smoke, 'node_modules/typescript/bin/tsc');
    const flags = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
    ];
    await run(process.execPath, [tsc, ...flags, 'types.mts', 'types.cts'], smoke);
    console.log('types: ok');
  });
  for (const name of examples)
    await step(`${name}: npm test`, () => run(npm, ['test'], join(work, name)));
  console.log('\nstep times:');
  for (const [name, s] of timings) console.log(`  ${s.toFixed(1).padStart(6)} s  ${name}`);
  console.log(
    `  ${timings
      .reduce((n, [, s]) => n + s, 0)
      .toFixed(1)
      .padStart(6)} s  total`,
  );
} finally {
  if (keep) console.log(`\nleft in ${work}`);
  else {
    const started = Date.now();
    rmSync(work, { recursive: true, force: true });
    console.log(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  removing ${work}`);
  }
}
