// Unified Test Format conformance runner: executes the spec test files in
// ../shared/specs/unified/<folder>/*.json through the official Node driver against SecantusDB.
//
//   npx tsx test/conformance/run.ts [--folder crud] [--file name] [--test substring] [--verbose]
//                                   [--topology single|replicaset] [--timeout ms]
//                                   [--check] [--update-expected] [--listed-only]
//                                   [--results path | --no-results] [--specs dir]
//
// See docs/conformance.md.

import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import {
  SUPPORTED_SCHEMA,
  messageOf,
  runFile,
  type RunEnv,
  type TestResult,
} from './lib/runner.js';
import { classifyKnown, isKnownButPassing } from './lib/known-failures.js';
import { acquireServer, NoServerError, serverFacts, type ServerHandle } from './lib/server.js';
import {
  formatTable,
  readExpected,
  summarize,
  testKey,
  writeExpected,
  writeResults,
} from './lib/report.js';
import { specsDir } from '../helpers/specs.js';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const EXPECTED_PATH = join(REPO, 'conformance', 'expected-pass.txt');
const DEFAULT_RESULTS = join(REPO, 'conformance', 'results.json');

/** The folders the project runs, in the order of shared/specs/README.md. */
export const FOLDERS = [
  'crud',
  'collection-management',
  'gridfs',
  'read-write-concern',
  'run-command',
  'versioned-api',
  'sessions',
  'causal-consistency',
  'transactions',
  'transactions-convenient-api',
  'change-streams',
  'retryable-writes',
  'command-monitoring',
  'unified-test-format-valid-pass',
  'retryable-reads',
  'client-side-operations-timeout',
  'index-management',
];

/**
 * Files whose tests pass or fail by how timers line up on the machine: a driver's
 * socketTimeoutMS of 100 ms against a server blocked 125 ms by a fail point. They run and are
 * reported like any other, but are never listed in expected-pass.txt, so the regression guard
 * in `npm test` does not flake on a loaded machine.
 */
const TIMING_BOUND_FILES: ReadonlySet<string> = new Set([
  'client-side-operations-timeout/retryability-legacy-timeouts.json',
  'client-side-operations-timeout/legacy-timeouts.json',
]);

function timingBound(key: string): boolean {
  return TIMING_BOUND_FILES.has(key.slice(0, key.indexOf(' :: ')));
}

function unifiedDir(explicit: string | undefined): string {
  const candidates = [explicit, process.env.SPECS_DIR, specsDir('unified')];
  for (const c of candidates) if (c !== undefined && c !== '' && existsSync(c)) return resolve(c);
  throw new Error(
    `cannot find the spec test files (tried ${candidates.filter(Boolean).join(', ')}); use --specs`,
  );
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      folder: { type: 'string', multiple: true },
      file: { type: 'string' },
      test: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      topology: { type: 'string', default: 'replicaset' },
      timeout: { type: 'string', default: '10000' },
      check: { type: 'boolean', default: false },
      'update-expected': { type: 'boolean', default: false },
      'listed-only': { type: 'boolean', default: false },
      results: { type: 'string' },
      'no-results': { type: 'boolean', default: false },
      specs: { type: 'string' },
    },
    strict: true,
  });
  const topology = values.topology;
  if (topology !== 'single' && topology !== 'replicaset')
    throw new Error('--topology must be single or replicaset');
  const testTimeoutMs = Number(values.timeout);
  if (!Number.isFinite(testTimeoutMs) || testTimeoutMs <= 0)
    throw new Error('--timeout must be a positive number of milliseconds');
  const folders = (values.folder ?? FOLDERS).flatMap((f) => f.split(',')).filter((f) => f !== '');
  for (const f of folders)
    if (!FOLDERS.includes(f)) throw new Error(`unknown folder ${f} (known: ${FOLDERS.join(', ')})`);
  const root = unifiedDir(values.specs);
  const fileFilter = values.file?.replace(/\.json$/, '');

  const expected = await readExpected(EXPECTED_PATH);
  const expectedSet = new Set(expected);
  const listedOnly = values['listed-only'];

  // Which files (and, with --listed-only, which tests) to run.
  const plan: { folder: string; path: string; only?: Set<string> }[] = [];
  for (const folder of folders) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
    for (const name of names) {
      if (
        fileFilter !== undefined &&
        name.replace(/\.json$/, '') !== fileFilter &&
        !name.includes(fileFilter)
      )
        continue;
      let only: Set<string> | undefined;
      if (listedOnly) {
        const prefix = `${folder}/${name} :: `;
        only = new Set(
          expected.filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length)),
        );
        if (only.size === 0) continue;
      }
      plan.push(
        only === undefined
          ? { folder, path: join(dir, name) }
          : { folder, path: join(dir, name), only },
      );
    }
  }

  let server: ServerHandle;
  try {
    server = await acquireServer(topology);
  } catch (e) {
    if (e instanceof NoServerError) {
      console.error(`conformance: ${e.message}`);
      return 2;
    }
    throw e;
  }
  const internal = new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 });
  const results: TestResult[] = [];
  const started = Date.now();
  let versionString = '?';
  let detected = '?';
  try {
    await internal.connect();
    const facts = await serverFacts(internal, server.uri);
    versionString = facts.versionString;
    detected = facts.topology;
    console.log(
      `conformance: ${server.source} at ${server.uri}, version ${versionString}, topology ${detected}; ${plan.length} file(s)`,
    );
    const env: RunEnv = {
      uri: server.uri,
      internal,
      facts,
      testTimeoutMs,
      clientOptions: {
        serverSelectionTimeoutMS: Math.min(5_000, Math.max(1_000, Math.floor(testTimeoutMs / 2))),
      },
      verbose: values.verbose,
    };
    for (const { folder, path, only } of plan) {
      const before = results.length;
      await runFile(
        path,
        folder,
        env,
        {
          ...(values.test !== undefined ? { test: values.test } : {}),
          ...(only !== undefined ? { only } : {}),
        },
        (raw) => {
          const r = classifyKnown(raw);
          results.push(r);
          if (values.verbose) {
            const mark = { passed: 'ok  ', failed: 'FAIL', known: 'know', skipped: 'skip' }[
              r.status
            ];
            console.log(
              `${mark} ${testKey(r)} (${r.durationMs} ms)${r.reason !== undefined && r.status !== 'passed' ? `\n       ${r.reason}` : ''}`,
            );
          }
        },
      );
      if (!values.verbose) {
        const rs = results.slice(before);
        const c = (s: string): number => rs.filter((r) => r.status === s).length;
        if (rs.length > 0)
          console.log(
            `  ${folder}/${path.split('/').pop() ?? ''}: ${c('passed')} passed, ${c('failed')} failed, ${c('known')} known, ${c('skipped')} skipped`,
          );
      }
    }
  } finally {
    await internal.close().catch(() => undefined);
    await server
      .stop()
      .catch((e: unknown) =>
        console.error(`conformance: stopping the server failed: ${messageOf(e)}`),
      );
  }

  const summary = summarize(results, FOLDERS);
  console.log('');
  console.log(formatTable(summary));
  console.log(`\n${((Date.now() - started) / 1000).toFixed(1)} s`);

  if (!values['no-results']) {
    const path = values.results ?? DEFAULT_RESULTS;
    await writeResults(path, {
      server: {
        source: server.source.replace(/ at .*/, ''),
        version: versionString,
        topology: detected,
      },
      runner: { schemaVersion: SUPPORTED_SCHEMA.join('.'), testTimeoutMs },
      selection: {
        folders,
        ...(values.file !== undefined ? { file: values.file } : {}),
        ...(values.test !== undefined ? { test: values.test } : {}),
        listedOnly,
      },
      summary,
      tests: results.map((r) => ({
        folder: r.folder,
        file: r.file,
        description: r.description,
        status: r.status,
        ...(r.reason !== undefined ? { reason: r.reason } : {}),
      })),
    });
    console.log(`results written to ${path}`);
  }

  const ran = new Map(results.map((r) => [testKey(r), r]));
  let exitCode = 0;
  if (values.check) {
    // Every listed test inside this run's selection must have passed.
    const inSelection = (key: string): boolean => {
      const folder = key.slice(0, key.indexOf('/'));
      if (!folders.includes(folder)) return false;
      const rest = key.slice(folder.length + 1);
      const file = rest.slice(0, rest.indexOf(' :: '));
      const description = rest.slice(rest.indexOf(' :: ') + 4);
      if (
        fileFilter !== undefined &&
        file.replace(/\.json$/, '') !== fileFilter &&
        !file.includes(fileFilter)
      )
        return false;
      if (values.test !== undefined && !description.includes(values.test)) return false;
      return true;
    };
    const regressions = expected.filter(inSelection).filter((k) => ran.get(k)?.status !== 'passed');
    const newlyPassing = results
      .filter((r) => r.status === 'passed' && !expectedSet.has(testKey(r)))
      .map(testKey)
      .filter((k) => !timingBound(k));
    if (newlyPassing.length > 0) {
      console.log(
        `\n${newlyPassing.length} test(s) pass that are not in conformance/expected-pass.txt (run with --update-expected to add them):`,
      );
      for (const k of newlyPassing) console.log(`  + ${k}`);
    }
    const stale = results.filter(isKnownButPassing).map(testKey);
    if (stale.length > 0) {
      console.log(
        `\n${stale.length} test(s) listed in test/conformance/lib/known-failures.ts passed; remove their entries:`,
      );
      for (const k of stale) console.log(`  ! ${k}`);
      exitCode = 1;
    }
    if (regressions.length > 0) {
      console.log(
        `\n${regressions.length} test(s) listed in conformance/expected-pass.txt did not pass:`,
      );
      for (const k of regressions) {
        const r = ran.get(k);
        console.log(
          `  - ${k}: ${r === undefined ? 'not run (missing from the spec files?)' : `${r.status}${r.reason !== undefined ? `: ${r.reason}` : ''}`}`,
        );
      }
      exitCode = 1;
    } else {
      console.log(
        `\ncheck: all ${expected.filter(inSelection).length} listed test(s) in this selection passed`,
      );
    }
  }
  if (values['update-expected']) {
    // Keep entries outside what this run covered; replace those inside it.
    const kept = expected.filter((k) => !ran.has(k));
    const passed = results
      .filter((r) => r.status === 'passed')
      .map(testKey)
      .filter((k) => !timingBound(k));
    await writeExpected(EXPECTED_PATH, [...kept, ...passed]);
    console.log(`conformance/expected-pass.txt: ${kept.length + passed.length} test(s)`);
  }
  return exitCode;
}

process.on('unhandledRejection', (e) => {
  // Operations abandoned by a per-test timeout may reject later; they were already reported.
  if (process.env.CONFORMANCE_DEBUG !== undefined) console.error('unhandled rejection:', e);
});

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`conformance: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(2);
  },
);
