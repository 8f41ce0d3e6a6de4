// Executing test files and tests ("Test Runner Implementation" in the spec).

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EJSON } from 'bson';
import type { MongoClient } from 'mongodb';
import { MongoServerError, type MongoClientOptions } from 'mongodb';
import { type Doc, exactDifference, isDocument, show, withoutRunSpecific } from './bson-values.js';
import { EntityMap, UnsupportedError, type ClientDefaults } from './entities.js';
import { checkExpectedError, isDriverError } from './expect-error.js';
import { checkExpectedEvents } from './expect-events.js';
import { MatchError, TestFileError, assertMatch } from './match.js';
import { entityForResult, runOperation, type TestScope } from './operations.js';
import { type ServerFacts, parseVersion, requirementsUnmet } from './requirements.js';

/** Highest schema version (1.x) whose constructs this runner understands. */
export const SUPPORTED_SCHEMA: readonly [number, number] = [1, 23];

/** `known`: failed as a listed driver or topology limitation says it must (known-failures.ts). */
export type Status = 'passed' | 'failed' | 'skipped' | 'known';

export interface TestResult {
  folder: string;
  file: string;
  description: string;
  status: Status;
  reason?: string;
  durationMs: number;
}

export interface RunEnv {
  uri: string;
  internal: MongoClient;
  facts: ServerFacts;
  /** Per-test time limit; a test still running then fails. */
  testTimeoutMs: number;
  clientOptions: MongoClientOptions;
  verbose: boolean;
}

export interface TestFilter {
  /** Only tests whose description contains this substring. */
  test?: string;
  /** Only these descriptions (exact). */
  only?: ReadonlySet<string>;
}

const OPERATION_KEYS = new Set([
  'name',
  'object',
  'arguments',
  'expectError',
  'expectResult',
  'ignoreResultAndError',
  'saveResultAsEntity',
]);
const TEST_KEYS = new Set([
  'description',
  'runOnRequirements',
  'skipReason',
  'operations',
  'expectEvents',
  'expectLogMessages',
  'outcome',
]);

/** Runs the tests of one file. Never throws: problems become failed tests. */
export async function runFile(
  path: string,
  folder: string,
  env: RunEnv,
  filter: TestFilter,
  report: (r: TestResult) => void,
): Promise<void> {
  const file = basename(path);
  let text: string;
  let parsed: Doc;
  try {
    text = await readFile(path, 'utf8');
    const p: unknown = EJSON.parse(text, { relaxed: false });
    if (!isDocument(p) || !Array.isArray(p.tests))
      throw new TestFileError('not a unified test file');
    parsed = p;
  } catch (e) {
    report({
      folder,
      file,
      description: '(file)',
      status: 'failed',
      reason: `cannot load: ${messageOf(e)}`,
      durationMs: 0,
    });
    return;
  }
  const tests = (parsed.tests as unknown[]).filter(isDocument);
  const selected = tests.filter((t) => {
    const d = String(t.description);
    return (
      (filter.test === undefined || d.includes(filter.test)) &&
      (filter.only === undefined || filter.only.has(d))
    );
  });
  if (selected.length === 0) return;

  const fileProblem = await fileLevelProblem(parsed, env.facts);
  for (const t of selected) {
    const description = String(t.description);
    const base = { folder, file, description };
    if (fileProblem !== undefined) {
      // A test the driver cannot run is skipped for that, whatever else the file needs.
      const lacking = driverLacks(t.operations);
      const problem =
        lacking === undefined ? fileProblem : { status: 'skipped' as const, reason: lacking };
      report({ ...base, ...problem, durationMs: 0 });
      continue;
    }
    const started = Date.now();
    let outcome: { status: Status; reason?: string };
    try {
      // Each test gets its own copy of the file: nothing a test or the driver mutates leaks.
      const fresh = EJSON.parse(text, { relaxed: false }) as Doc;
      const test = (fresh.tests as Doc[]).find((x) => x.description === description) as Doc;
      outcome = await runTest(fresh, test, env);
    } catch (e) {
      outcome = { status: 'failed', reason: messageOf(e) };
    }
    const r: TestResult = { ...base, ...outcome, durationMs: Date.now() - started };
    report(r);
  }
}

/** Whether `v` holds a document with one of these keys, at any depth. */
function mentionsKey(v: unknown, keys: ReadonlySet<string>): boolean {
  if (Array.isArray(v)) return v.some((e) => mentionsKey(e, keys));
  if (!isDocument(v)) return false;
  return Object.entries(v).some(([k, e]) => keys.has(k) || mentionsKey(e, keys));
}

const TIMEOUT_MS_KEYS: ReadonlySet<string> = new Set([
  'timeoutMS',
  'defaultTimeoutMS',
  'timeoutMode',
]);

/**
 * A driver feature the test needs and the Node driver lacks. Like an unmet requirement, the
 * test cannot tell anything about the server, so it is skipped with the reason: the Node
 * driver 7.x ignores `timeoutMS` (it warns "timeoutMS has no effect"), so the client-side
 * operations timeout tests that set it expect maxTimeMS values and timeout errors no driver
 * call here produces.
 */
function driverLacks(v: unknown): string | undefined {
  if (mentionsKey(v, TIMEOUT_MS_KEYS))
    return 'driver: the Node driver 7.x does not implement timeoutMS (client-side operations timeout)';
  return undefined;
}

async function fileLevelProblem(
  file: Doc,
  facts: ServerFacts,
): Promise<{ status: Status; reason: string } | undefined> {
  const tests = Array.isArray(file.tests) ? (file.tests as unknown[]) : [];
  const lacking =
    driverLacks(file.createEntities) ??
    (tests.length > 0 &&
    tests.every((t) => isDocument(t) && driverLacks(t.operations) !== undefined)
      ? driverLacks(tests)
      : undefined);
  if (lacking !== undefined) return { status: 'skipped', reason: lacking };
  try {
    const [major, minor] = parseVersion(file.schemaVersion);
    if (major !== SUPPORTED_SCHEMA[0] || minor > SUPPORTED_SCHEMA[1]) {
      return {
        status: 'failed',
        reason: `unsupported schemaVersion ${String(file.schemaVersion)} (runner supports ${SUPPORTED_SCHEMA.join('.')})`,
      };
    }
    const unmet = await requirementsUnmet(file.runOnRequirements, facts);
    if (unmet !== undefined)
      return { status: 'skipped', reason: `file runOnRequirements: ${unmet}` };
  } catch (e) {
    return { status: 'failed', reason: messageOf(e) };
  }
  return undefined;
}

async function runTest(
  file: Doc,
  test: Doc,
  env: RunEnv,
): Promise<{ status: Status; reason?: string }> {
  for (const k of Object.keys(test))
    if (!TEST_KEYS.has(k)) return { status: 'failed', reason: `unknown test field ${k}` };
  if (typeof test.skipReason === 'string')
    return { status: 'skipped', reason: `skipReason: ${test.skipReason}` };
  const unmet = await requirementsUnmet(test.runOnRequirements, env.facts);
  if (unmet !== undefined) return { status: 'skipped', reason: `runOnRequirements: ${unmet}` };
  const lacking = driverLacks(test.operations);
  if (lacking !== undefined) return { status: 'skipped', reason: lacking };
  if (test.expectLogMessages !== undefined)
    return { status: 'failed', reason: 'expectLogMessages is not supported by this runner' };
  if (!Array.isArray(test.operations))
    return { status: 'failed', reason: 'test has no operations array' };

  const scope = new Scope(env);
  const deadline = Date.now() + env.testTimeoutMs;
  scope.deadline = deadline;
  const body = runTestBody(file, test, scope);
  body.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new TimeoutError(
            `timed out after ${env.testTimeoutMs} ms${scope.currentOp === undefined ? '' : ` in ${scope.currentOp}`}`,
          ),
        ),
      env.testTimeoutMs,
    );
  });
  let failure: unknown;
  try {
    await Promise.race([body, timeout]);
  } catch (e) {
    failure = e;
  } finally {
    clearTimeout(timer);
  }
  const cleanupProblem = await scope.cleanup();
  if (failure !== undefined) return { status: 'failed', reason: messageOf(failure) };
  if (cleanupProblem !== undefined) return { status: 'failed', reason: cleanupProblem };
  return { status: 'passed' };
}

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

async function runTestBody(file: Doc, test: Doc, scope: Scope): Promise<void> {
  const env = scope.env;
  await killAllSessions(env.internal);
  await setUpInitialData(env.internal, file.initialData);
  await scope.entities.create(file.createEntities ?? [], scope.defaults);

  for (const [i, op] of (test.operations as unknown[]).entries()) {
    scope.currentOp = `operation ${i} (${describeOp(op)})`;
    await scope.execute(op, { inCallback: false });
  }
  scope.currentOp = undefined;
  if (scope.callbackFailures.length > 0) throw scope.callbackFailures[0];

  // Stop recording events, turn off fail points, then check events and collection contents.
  for (const [, e] of scope.entities.entries()) if (e.kind === 'client') e.value.listening = false;
  await scope.disableFailPoints();

  if (test.expectEvents !== undefined) {
    if (!Array.isArray(test.expectEvents)) throw new TestFileError('expectEvents must be an array');
    for (const spec of test.expectEvents) {
      if (!isDocument(spec)) throw new TestFileError('expectEvents entry must be a document');
      const client = scope.entities.getAs(spec.client, 'client');
      checkExpectedEvents(spec, client, scope.entities);
    }
  }
  if (test.outcome !== undefined) await checkOutcome(env.internal, test.outcome);
}

function describeOp(op: unknown): string {
  return isDocument(op) ? `${String(op.object)}.${String(op.name)}` : '?';
}

/** Terminating open transactions: killAllSessions, tolerating the codes the spec lists. */
async function killAllSessions(internal: MongoClient): Promise<void> {
  try {
    await internal.db('admin').command({ killAllSessions: [] });
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 11601 || code === 13 || code === 59) return;
    throw new Error(`setup: killAllSessions failed: ${messageOf(e)}`, { cause: e });
  }
}

const MAJORITY = { writeConcern: { w: 'majority' as const } };

async function setUpInitialData(internal: MongoClient, data: unknown): Promise<void> {
  if (data === undefined) return;
  if (!Array.isArray(data)) throw new TestFileError('initialData must be an array');
  for (const c of data) {
    if (
      !isDocument(c) ||
      typeof c.collectionName !== 'string' ||
      typeof c.databaseName !== 'string' ||
      !Array.isArray(c.documents)
    ) {
      throw new TestFileError(`malformed collectionData ${show(c)}`);
    }
    const db = internal.db(c.databaseName);
    const step = async (what: string, f: () => Promise<unknown>): Promise<void> => {
      try {
        await f();
      } catch (e) {
        throw new Error(
          `setup: ${what} ${c.databaseName}.${String(c.collectionName)} failed: ${messageOf(e)}`,
          {
            cause: e,
          },
        );
      }
    };
    await step('drop', async () => {
      try {
        await db.command({ drop: c.collectionName, ...MAJORITY });
      } catch (e) {
        if (!(e instanceof MongoServerError && (e.code === 26 || /ns not found/i.test(e.message))))
          throw e;
      }
    });
    const createOptions = c.createOptions === undefined ? {} : c.createOptions;
    if (!isDocument(createOptions)) throw new TestFileError('createOptions must be a document');
    await step('create', () =>
      db.command({ create: c.collectionName, ...createOptions, ...MAJORITY }),
    );
    if (c.documents.length > 0) {
      await step('insert', () =>
        db.collection(c.collectionName as string).insertMany(c.documents as Doc[], MAJORITY),
      );
    }
  }
}

async function checkOutcome(internal: MongoClient, outcome: unknown): Promise<void> {
  if (!Array.isArray(outcome)) throw new TestFileError('outcome must be an array');
  for (const c of outcome) {
    if (
      !isDocument(c) ||
      typeof c.collectionName !== 'string' ||
      typeof c.databaseName !== 'string' ||
      !Array.isArray(c.documents)
    ) {
      throw new TestFileError(`malformed collectionData ${show(c)}`);
    }
    const actual = await internal
      .db(c.databaseName)
      .collection(c.collectionName)
      .find({}, { sort: { _id: 1 }, readConcern: { level: 'local' }, readPreference: 'primary' })
      .toArray();
    const diff = exactDifference(c.documents, actual);
    if (diff !== undefined)
      throw new MatchError(
        `outcome ${c.databaseName}.${c.collectionName}`,
        `${diff}; collection holds ${show(actual, 600)}`,
      );
  }
}

// ---------------------------------------------------------------------------------------------

class Scope implements TestScope {
  readonly entities = new EntityMap();
  readonly callbackFailures: unknown[] = [];
  readonly defaults: ClientDefaults;
  deadline = 0;
  currentOp: string | undefined;
  private readonly failPoints: { client: MongoClient; name: string }[] = [];

  constructor(readonly env: RunEnv) {
    this.defaults = { uri: env.uri, baseOptions: env.clientOptions };
  }

  get internal(): MongoClient {
    return this.env.internal;
  }

  timeLeft(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  recordFailPoint(client: MongoClient, name: string): void {
    this.failPoints.push({ client, name });
  }

  async disableFailPoints(): Promise<void> {
    const problems: string[] = [];
    while (this.failPoints.length > 0) {
      const fp = this.failPoints.pop();
      if (fp === undefined) break;
      const off = { configureFailPoint: fp.name, mode: 'off' };
      try {
        await withTimeout(fp.client.db('admin').command(off), 5_000, 'configureFailPoint off');
      } catch {
        // The client may be closed or broken by the test; this is a single server, so the
        // internal client reaches the same fail point.
        try {
          await withTimeout(
            this.internal.db('admin').command(off),
            5_000,
            'configureFailPoint off',
          );
        } catch (e) {
          problems.push(`could not turn off fail point ${fp.name}: ${messageOf(e)}`);
        }
      }
    }
    if (problems.length > 0) throw new Error(problems.join('; '));
  }

  async execute(op: unknown, opts: { inCallback: boolean }): Promise<void> {
    if (!isDocument(op)) throw new TestFileError('operation must be a document');
    for (const k of Object.keys(op))
      if (!OPERATION_KEYS.has(k)) throw new TestFileError(`unknown operation field ${k}`);
    const name = op.name;
    const object = op.object;
    if (typeof name !== 'string' || typeof object !== 'string')
      throw new TestFileError('operation needs a name and an object');
    const label = `${object}.${name}`;

    let value: unknown;
    let rootElements = false;
    let error: unknown;
    let failed = false;
    try {
      const r = await runOperation(name, object, op.arguments, this);
      value = r.value;
      rootElements = r.rootElements === true;
    } catch (e) {
      failed = true;
      error = e;
    }
    // Runner problems are never "the expected error".
    if (
      failed &&
      (error instanceof TestFileError ||
        error instanceof UnsupportedError ||
        error instanceof MatchError)
    )
      throw error;

    try {
      if (op.ignoreResultAndError === true) {
        // nothing to check
      } else if (op.expectError !== undefined) {
        if (!failed)
          throw new MatchError(
            label,
            `expected an error, got result ${show(withoutRunSpecific(value))}`,
          );
        try {
          checkExpectedError(error, op.expectError, this.entities);
        } catch (e) {
          if (e instanceof MatchError) throw new MatchError(label, e.message);
          throw e;
        }
      } else if (failed) {
        const prefix = isDriverError(error) ? '' : 'runner error: ';
        throw new OperationError(`${label} failed: ${prefix}${messageOf(error)}`);
      } else {
        if (op.expectResult !== undefined) {
          try {
            assertMatch(op.expectResult, value, { rootElements, entities: this.entities });
          } catch (e) {
            if (e instanceof MatchError) throw new MatchError(`${label} result`, e.message);
            throw e;
          }
        }
        if (typeof op.saveResultAsEntity === 'string') {
          if (value === undefined)
            throw new MatchError(label, `returned no result to save as ${op.saveResultAsEntity}`);
          this.entities.set(op.saveResultAsEntity, entityForResult(value));
        }
      }
    } catch (e) {
      if (opts.inCallback) this.callbackFailures.push(e);
      throw e;
    }
    // Errors inside a withTransaction callback propagate to withTransaction whatever was expected.
    if (failed && opts.inCallback) throw error;
  }

  /** Ends sessions, closes cursors and clients, turns off fail points. Returns a problem, if any. */
  async cleanup(): Promise<string | undefined> {
    let problem: string | undefined;
    try {
      await this.disableFailPoints();
    } catch (e) {
      problem = messageOf(e);
    }
    const entries = [...this.entities.entries()].map(([, e]) => e);
    for (const e of entries) {
      if (e.kind === 'changeStream' || e.kind === 'cursor') await settle(e.value.close(), 2_000);
    }
    for (const e of entries) {
      if (e.kind === 'session') await settle(e.value.endSession(), 2_000);
    }
    for (const e of entries) {
      if (e.kind === 'client') await settle(e.value.close(), 5_000);
    }
    return problem;
  }
}

class OperationError extends Error {
  override name = 'OperationError';
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function settle(p: Promise<unknown>, ms: number): Promise<void> {
  p.catch(() => undefined);
  await Promise.race([p.catch(() => undefined), sleep(ms)]);
}

export function messageOf(e: unknown): string {
  if (e instanceof MatchError) return e.message;
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    const name = e.name === 'Error' ? '' : `${e.name}: `;
    return `${name}${e.message}${typeof code === 'number' ? ` (code ${code})` : ''}`;
  }
  return String(e);
}
