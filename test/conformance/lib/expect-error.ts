// expectedError assertions.

import {
  MongoBulkWriteError,
  MongoClientBulkWriteError,
  MongoError,
  MongoOperationTimeoutError,
  MongoServerError,
} from 'mongodb';
import { BSONError } from 'bson';
import { type Doc, isDocument, show, toJsNumber } from './bson-values.js';
import { MatchError, TestFileError, assertMatch, type EntityLookup } from './match.js';
import {
  bulkWriteResult,
  clientBulkWriteResult,
  clientWriteError,
  writeConcernErrorDoc,
} from './results.js';

const EXPECTED_ERROR_KEYS = new Set([
  'isError',
  'isClientError',
  'isTimeoutError',
  'errorContains',
  'errorCode',
  'errorCodeName',
  'errorLabelsContain',
  'errorLabelsOmit',
  'writeErrors',
  'writeConcernErrors',
  'errorResponse',
  'expectResult',
]);

/**
 * Code names a bulk write error may carry only as a code (write errors have no codeName).
 * From the server's error_codes.yml; only the names the test files use for such errors.
 */
const CODE_BY_NAME: Record<string, number> = {
  WriteConflict: 112,
  NoSuchTransaction: 251,
  Interrupted: 11601,
  MaxTimeMSExpired: 50,
  OperationNotSupportedInTransaction: 263,
  UnknownReplWriteConcern: 79,
  UnsatisfiableWriteConcern: 100,
  ChangeStreamFatalError: 280,
  APIStrictError: 323,
  APIDeprecationError: 324,
  DuplicateKey: 11000,
  WriteConcernFailed: 64,
};

/** Errors the driver (or the BSON library it uses) raised, as opposed to runner bugs. */
export function isDriverError(e: unknown): e is Error {
  return e instanceof MongoError || e instanceof BSONError;
}

/**
 * The Node driver reports a network error in the middle of a bulk write as a
 * MongoBulkWriteError (a MongoServerError subclass) with no code and no write errors: the
 * server said nothing, so it is the client-side error the test expects.
 */
function wrapsClientError(e: MongoServerError): boolean {
  if (!(e instanceof MongoBulkWriteError)) return false;
  const writeErrors = Array.isArray(e.writeErrors) ? e.writeErrors : [e.writeErrors];
  return e.code === undefined && writeErrors.filter((w) => w !== undefined).length === 0;
}

function fail(message: string): never {
  throw new MatchError('expectError', message);
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return show(e);
  const code = (e as { code?: unknown }).code;
  const labels = e instanceof MongoError ? e.errorLabels : [];
  return `${e.name}${code !== undefined ? ` (code ${String(code)})` : ''}${labels.length > 0 ? ` [${labels.join(', ')}]` : ''}: ${e.message}`;
}

/** Messages, codes and codeNames of an error and, for bulk writes, the errors it aggregates. */
function aggregated(e: Error): { messages: string[]; codes: unknown[]; codeNames: unknown[] } {
  const messages = [e.message];
  const codes: unknown[] = [(e as { code?: unknown }).code];
  const codeNames: unknown[] = [(e as { codeName?: unknown }).codeName];
  const add = (x: unknown): void => {
    if (typeof x !== 'object' || x === null) return;
    const o = x as Record<string, unknown>;
    for (const m of [o.errmsg, o.message]) if (typeof m === 'string') messages.push(m);
    codes.push(o.code);
    codeNames.push(o.codeName);
  };
  if (e instanceof MongoBulkWriteError) {
    for (const we of e.writeErrors instanceof Array ? e.writeErrors : [e.writeErrors]) add(we);
    const wce = (
      e.result as unknown as { getWriteConcernError?: () => unknown }
    ).getWriteConcernError?.();
    add(wce);
  }
  if (e instanceof MongoClientBulkWriteError) {
    add(e.cause);
    for (const we of e.writeErrors.values()) add(we);
    for (const wce of e.writeConcernErrors) add(wce);
  }
  if (e instanceof MongoServerError) add(e.errorResponse);
  return { messages, codes, codeNames };
}

function labelsOf(e: Error): Set<string> {
  const labels = new Set<string>();
  if (e instanceof MongoError) for (const l of e.errorLabels) labels.add(l);
  const cause = (e as { cause?: unknown }).cause;
  if (e instanceof MongoClientBulkWriteError && cause instanceof MongoError)
    for (const l of cause.errorLabels) labels.add(l);
  return labels;
}

export function checkExpectedError(
  error: unknown,
  expected: unknown,
  entities: EntityLookup,
): void {
  if (!isDocument(expected)) throw new TestFileError('expectError must be a document');
  for (const k of Object.keys(expected))
    if (!EXPECTED_ERROR_KEYS.has(k)) throw new TestFileError(`unknown expectError field ${k}`);
  if (!isDriverError(error)) fail(`expected a driver error, got ${describe(error)}`);
  const e = error;
  const where = describe(e);

  const isServer = e instanceof MongoServerError && !wrapsClientError(e);
  if (expected.isClientError === true && isServer)
    fail(`expected a client-side error, got a server error: ${where}`);
  if (expected.isClientError === false && !isServer)
    fail(`expected a server error, got a client-side error: ${where}`);

  const isTimeout = e instanceof MongoOperationTimeoutError;
  if (expected.isTimeoutError === true && !isTimeout)
    fail(`expected a timeout error, got ${where}`);
  if (expected.isTimeoutError === false && isTimeout)
    fail(`expected no timeout error, got ${where}`);

  const agg = aggregated(e);
  if (expected.errorContains !== undefined) {
    if (typeof expected.errorContains !== 'string')
      throw new TestFileError('errorContains must be a string');
    const needle = expected.errorContains.toLowerCase();
    if (!agg.messages.some((m) => m.toLowerCase().includes(needle)))
      fail(`expected message containing ${show(expected.errorContains)}, got ${where}`);
  }
  if (expected.errorCode !== undefined) {
    const want = Number(toJsNumber(expected.errorCode));
    const codes =
      e instanceof MongoClientBulkWriteError
        ? [(e.cause as { code?: unknown } | undefined)?.code]
        : agg.codes;
    if (!codes.some((c) => typeof c === 'number' && c === want))
      fail(`expected code ${want}, got ${where}`);
  }
  if (expected.errorCodeName !== undefined) {
    if (typeof expected.errorCodeName !== 'string')
      throw new TestFileError('errorCodeName must be a string');
    const want = expected.errorCodeName.toLowerCase();
    const byName = agg.codeNames.some((n) => typeof n === 'string' && n.toLowerCase() === want);
    const isBulk = e instanceof MongoBulkWriteError || e instanceof MongoClientBulkWriteError;
    const byCode =
      isBulk &&
      CODE_BY_NAME[expected.errorCodeName] !== undefined &&
      agg.codes.includes(CODE_BY_NAME[expected.errorCodeName]);
    if (!byName && !byCode) fail(`expected codeName ${expected.errorCodeName}, got ${where}`);
  }
  const labels = labelsOf(e);
  if (expected.errorLabelsContain !== undefined) {
    if (!Array.isArray(expected.errorLabelsContain))
      throw new TestFileError('errorLabelsContain must be an array');
    for (const l of expected.errorLabelsContain)
      if (!labels.has(String(l))) fail(`expected label ${String(l)}, got ${where}`);
  }
  if (expected.errorLabelsOmit !== undefined) {
    if (!Array.isArray(expected.errorLabelsOmit))
      throw new TestFileError('errorLabelsOmit must be an array');
    for (const l of expected.errorLabelsOmit)
      if (labels.has(String(l))) fail(`expected no label ${String(l)}, got ${where}`);
  }
  if (expected.expectResult !== undefined) {
    let partial: Doc | undefined;
    if (e instanceof MongoBulkWriteError) partial = bulkWriteResult(e.result);
    else if (e instanceof MongoClientBulkWriteError)
      partial = clientBulkWriteResult(e.partialResult);
    wrap('expectResult', () => assertMatch(expected.expectResult, partial, { entities }));
  }
  if (expected.errorResponse !== undefined) {
    const source = e instanceof MongoClientBulkWriteError ? e.cause : e;
    const response = source instanceof MongoServerError ? source.errorResponse : undefined;
    if (response === undefined) fail(`expected a server response, got ${where}`);
    wrap('errorResponse', () => assertMatch(expected.errorResponse, response, { entities }));
  }
  if (expected.writeErrors !== undefined) {
    if (!isDocument(expected.writeErrors))
      throw new TestFileError('writeErrors must be a document');
    if (!(e instanceof MongoClientBulkWriteError))
      fail(`expected a client bulk write error with writeErrors, got ${where}`);
    const actual = new Map([...e.writeErrors].map(([k, v]) => [String(k), clientWriteError(v)]));
    for (const [index, exp] of Object.entries(expected.writeErrors)) {
      const got = actual.get(index);
      if (got === undefined)
        fail(
          `expected a write error at index ${index}, got indexes [${[...actual.keys()].join(', ')}]`,
        );
      wrap(`writeErrors.${index}`, () => assertMatch(exp, got, { entities }));
    }
    const extra = [...actual.keys()].filter((k) => !Object.hasOwn(expected.writeErrors as Doc, k));
    if (extra.length > 0) fail(`unexpected write errors at index(es) ${extra.join(', ')}`);
  }
  if (expected.writeConcernErrors !== undefined) {
    if (!Array.isArray(expected.writeConcernErrors))
      throw new TestFileError('writeConcernErrors must be an array');
    if (!(e instanceof MongoClientBulkWriteError))
      fail(`expected a client bulk write error with writeConcernErrors, got ${where}`);
    const actual = e.writeConcernErrors.map(writeConcernErrorDoc);
    if (actual.length !== expected.writeConcernErrors.length) {
      fail(
        `expected ${expected.writeConcernErrors.length} write concern error(s), got ${show(actual)}`,
      );
    }
    expected.writeConcernErrors.forEach((exp: unknown, i: number) =>
      wrap(`writeConcernErrors[${i}]`, () => assertMatch(exp, actual[i], { entities })),
    );
  }
}

function wrap(what: string, f: () => void): void {
  try {
    f();
  } catch (err) {
    if (err instanceof MatchError) throw new MatchError(`expectError.${what}`, err.message);
    throw err;
  }
}
