#!/usr/bin/env node
// Builds dist/ — ES modules in dist/src (tsconfig.json, with the benchmarks in dist/bench) and
// CommonJS in dist/cjs (tsconfig.cjs.json) — unless it is current: `npm start` and `npm test`
// call it every time, so a build that has nothing to do must cost milliseconds, not the
// seconds `tsc -b` takes to find that out. Current means: the same list of .ts inputs as the
// last build, none modified since that build started, and the outputs still there.
//
// After a build, outputs whose source is gone (a deleted or renamed .ts) are removed, so what
// `npm pack` ships (prepare / prepack run this) never holds a stale module.
//
//   node scripts/build.mjs           build if stale
//   node scripts/build.mjs --force   build anyway (incremental)
//   node scripts/build.mjs --clean   remove dist/ first

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const stampPath = join(dist, '.build-stamp.json');
const projects = ['tsconfig.json', 'tsconfig.cjs.json'];
const inputDirs = ['src', 'bench'];
const outputs = [
  'dist/src/index.js',
  'dist/src/cli/secantusd.js',
  'dist/cjs/index.js',
  'dist/cjs/package.json',
];

/** Every .ts input with its modification time, in path order. */
function inputs() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) found.push(path);
    }
  };
  for (const dir of inputDirs) if (existsSync(join(root, dir))) walk(join(root, dir));
  found.push(...projects.map((p) => join(root, p)));
  return found
    .sort()
    .map((path) => ({ path: relative(root, path), mtimeMs: statSync(path).mtimeMs }));
}

function listHash(files) {
  return createHash('sha256')
    .update(files.map((f) => f.path).join('\n'))
    .digest('hex');
}

function isCurrent(files) {
  if (!existsSync(stampPath) || outputs.some((o) => !existsSync(join(root, o)))) return false;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
  } catch {
    return false;
  }
  if (stamp.files !== listHash(files)) return false;
  return files.every((f) => f.mtimeMs < stamp.startedAtMs);
}

function build(files, clean) {
  const startedAtMs = Date.now();
  if (clean) rmSync(dist, { recursive: true, force: true });
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  process.stderr.write(`build: tsc -b ${projects.join(' ')}${clean ? ' (clean)' : ''} ...\n`);
  const r = spawnSync(process.execPath, [tsc, '-b', ...projects.map((p) => join(root, p))], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    process.exitCode = r.status ?? 1;
    throw new Error('build: tsc failed');
  }
  mkdirSync(join(dist, 'cjs'), { recursive: true });
  writeFileSync(join(dist, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
  writeFileSync(stampPath, JSON.stringify({ files: listHash(files), startedAtMs }) + '\n');
  process.stderr.write(`build: done in ${((Date.now() - startedAtMs) / 1000).toFixed(1)} s\n`);
}

/** Output folders and the source folder each one is built from. */
const outputDirs = [
  ['dist/src', 'src'],
  ['dist/cjs', 'src'],
  ['dist/bench', 'bench'],
];

/** Remove built files (.js, .d.ts, maps) whose .ts source no longer exists. */
function pruneOrphans() {
  let removed = 0;
  const walk = (out, from, dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(out, from, path);
        continue;
      }
      const m = /^(.*?)(\.d\.ts|\.js)(\.map)?$/.exec(relative(join(root, out), path));
      if (m === null || existsSync(join(root, from, `${m[1]}.ts`))) continue;
      rmSync(path);
      removed++;
    }
  };
  for (const [out, from] of outputDirs) walk(out, from, join(root, out));
  if (removed > 0) process.stderr.write(`build: removed ${removed} file(s) without a source\n`);
}

/**
 * Build unless current. `clean`: remove dist/ first; `force`: build even if current.
 * Returns whether it built.
 */
export function ensureBuilt({ clean = false, force = false } = {}) {
  const files = inputs();
  if (!clean && !force && isCurrent(files)) return false;
  build(files, clean);
  // A source deleted or renamed changes the input list, so it always comes with a build.
  pruneOrphans();
  return true;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = new Set(process.argv.slice(2));
  try {
    ensureBuilt({ clean: args.has('--clean'), force: args.has('--force') });
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(process.exitCode || 1);
  }
}
