// "Evaluating Matches" from the Unified Test Format specification.
//
//   - A root-level document may carry fields the expected document does not name; a nested
//     document may not (spec: "Test runners MUST NOT permit additional fields in nested
//     documents"). `$$matchAsRoot` lifts that rule for one nested document.
//   - Arrays must have the same number of elements, compared index by index.
//   - Numbers (int32, int64, double; not decimal128) compare by value.
//   - Key order is free.
//   - An expected document whose first and only key starts with `$$` is a special operator.

import { EJSON } from 'bson';
import {
  type Doc,
  TYPE_NAMES,
  bytesEqual,
  bsonTag,
  compareNumeric,
  isDocument,
  isNumeric,
  normalizeMap,
  possibleTypes,
  scalarDifference,
  show,
} from './bson-values.js';

export class MatchError extends Error {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = 'MatchError';
  }
}

/** Errors in the test file itself (unknown operator, malformed argument): the test fails. */
export class TestFileError extends Error {
  override name = 'TestFileError';
}

/** What the matcher needs from the entity map. */
export interface EntityLookup {
  /** A BSON entity (saved result) for `$$matchesEntity`; throws if undefined. */
  entityValue(name: string): unknown;
  /** The lsid document of a session entity for `$$sessionLsid`; throws if undefined. */
  sessionLsid(name: string): unknown;
}

export interface MatchOptions {
  /** Whether `actual` is a root-level document (extra fields allowed). Default true. */
  root?: boolean;
  /**
   * The expected value is the array of documents an iterable returned (find, aggregate,
   * listCollections, ...): each element is matched as a root-level document.
   */
  rootElements?: boolean;
  entities?: EntityLookup;
  /**
   * Allow extra fields in nested documents too. Not the spec's rule; the runner uses it only
   * for the commands the driver sends (see docs/conformance.md), never for server output.
   */
  extraFieldsInNested?: boolean;
}

interface Ctx {
  readonly entities: EntityLookup | undefined;
  readonly lax: boolean;
}

const SPECIAL_OPERATORS = new Set([
  '$$exists',
  '$$type',
  '$$matchesEntity',
  '$$matchesHexBytes',
  '$$unsetOrMatches',
  '$$sessionLsid',
  '$$lte',
  '$$matchAsDocument',
  '$$matchAsRoot',
]);

/** The operator name if `v` is `{ $$op: ... }` (exactly one key, starting with `$$`). */
export function specialOperatorOf(v: unknown): string | undefined {
  if (!isDocument(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length !== 1) return undefined;
  const k = keys[0];
  return k !== undefined && k.startsWith('$$') ? k : undefined;
}

/** Throws MatchError (or TestFileError for a malformed expectation) unless `actual` matches. */
export function assertMatch(expected: unknown, actual: unknown, options: MatchOptions = {}): void {
  const root = options.root ?? true;
  const ctx: Ctx = { entities: options.entities, lax: options.extraFieldsInNested === true };
  if (options.rootElements === true && Array.isArray(expected)) {
    const list = normalizeMap(actual);
    if (!Array.isArray(list)) throw new MatchError('$', `expected an array, got ${show(list)}`);
    if (list.length !== expected.length) {
      throw new MatchError(
        '$',
        `expected ${expected.length} element(s), got ${list.length}: ${show(list)}`,
      );
    }
    expected.forEach((e, i) => matchValue(e, list[i], `$[${i}]`, true, ctx));
    return;
  }
  matchValue(expected, actual, '$', root, ctx);
}

export function matches(expected: unknown, actual: unknown, options: MatchOptions = {}): boolean {
  try {
    assertMatch(expected, actual, options);
    return true;
  } catch (e) {
    if (e instanceof MatchError) return false;
    throw e;
  }
}

function matchValue(
  expected: unknown,
  actual: unknown,
  path: string,
  root: boolean,
  ctx: Ctx,
): void {
  actual = normalizeMap(actual);
  const op = specialOperatorOf(expected);
  if (op !== undefined) {
    specialOperator(op, (expected as Doc)[op], actual, path, root, ctx);
    return;
  }
  if (isDocument(expected)) {
    if (!isDocument(actual)) throw new MatchError(path, `expected a document, got ${show(actual)}`);
    for (const [key, value] of Object.entries(expected)) {
      const childPath = `${path}.${key}`;
      const present = Object.hasOwn(actual, key) && actual[key] !== undefined;
      const keyOp = specialOperatorOf(value);
      if (keyOp === '$$exists') {
        const want = (value as Doc)['$$exists'];
        if (typeof want !== 'boolean')
          throw new TestFileError(`${childPath}: $$exists takes a boolean`);
        if (want && !present) throw new MatchError(childPath, 'expected the field to exist');
        if (!want && present)
          throw new MatchError(childPath, `expected no such field, got ${show(actual[key])}`);
        continue;
      }
      if (keyOp === '$$unsetOrMatches') {
        if (!present) continue;
        matchValue((value as Doc)['$$unsetOrMatches'], actual[key], childPath, false, ctx);
        continue;
      }
      if (!present) throw new MatchError(childPath, `missing; expected ${show(value)}`);
      matchValue(value, actual[key], childPath, false, ctx);
    }
    if (!root && !ctx.lax) {
      const extra = Object.keys(actual).filter(
        (k) => actual[k] !== undefined && !Object.hasOwn(expected, k),
      );
      if (extra.length > 0) {
        throw new MatchError(
          path,
          `unexpected field(s) ${extra.join(', ')} in nested document ${show(actual)}`,
        );
      }
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual))
      throw new MatchError(path, `expected an array, got ${show(actual)}`);
    if (actual.length !== expected.length) {
      throw new MatchError(
        path,
        `expected ${expected.length} element(s), got ${actual.length}: ${show(actual)}`,
      );
    }
    expected.forEach((e, i) => matchValue(e, actual[i], `${path}[${i}]`, false, ctx));
    return;
  }
  if (actual === undefined) throw new MatchError(path, `missing; expected ${show(expected)}`);
  const diff = scalarDifference(expected, actual);
  if (diff !== undefined)
    throw new MatchError(path, `${diff}: expected ${show(expected)}, got ${show(actual)}`);
}

function hexToBytes(hex: unknown, where: string): Uint8Array {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new TestFileError(`${where}: malformed hex string ${show(hex)}`);
  }
  return Buffer.from(hex, 'hex');
}

/** Bytes of an actual value for `$$matchesHexBytes` (download results are byte buffers here). */
function actualBytes(v: unknown): Uint8Array | undefined {
  if (v instanceof Uint8Array) return v;
  if (bsonTag(v) === 'Binary') return (v as { value(): Uint8Array }).value();
  if (typeof v === 'string') return Buffer.from(v, 'latin1');
  return undefined;
}

function specialOperator(
  op: string,
  arg: unknown,
  actual: unknown,
  path: string,
  root: boolean,
  ctx: Ctx,
): void {
  const entities = ctx.entities;
  if (!SPECIAL_OPERATORS.has(op))
    throw new TestFileError(`${path}: unknown special operator ${op}`);
  switch (op) {
    case '$$exists': {
      // Normally handled by the enclosing document; as a bare value it concerns `actual` itself.
      if (typeof arg !== 'boolean') throw new TestFileError(`${path}: $$exists takes a boolean`);
      if (arg !== (actual !== undefined))
        throw new MatchError(
          path,
          arg ? 'expected a value' : `expected no value, got ${show(actual)}`,
        );
      return;
    }
    case '$$type': {
      const names = Array.isArray(arg) ? arg : [arg];
      for (const n of names) {
        if (typeof n !== 'string' || !TYPE_NAMES.has(n))
          throw new TestFileError(`${path}: unknown $$type name ${show(n)}`);
      }
      if (actual === undefined)
        throw new MatchError(path, `missing; expected a value of type ${names.join('|')}`);
      const have = possibleTypes(actual);
      if (!names.some((n) => have.has(n as string))) {
        throw new MatchError(
          path,
          `expected type ${names.join('|')}, got ${[...have].join('|') || 'unknown'} ${show(actual)}`,
        );
      }
      return;
    }
    case '$$unsetOrMatches':
      if (actual === undefined) return;
      matchValue(arg, actual, path, root, ctx);
      return;
    case '$$matchesEntity': {
      if (typeof arg !== 'string')
        throw new TestFileError(`${path}: $$matchesEntity takes an entity name`);
      if (entities === undefined)
        throw new TestFileError(`${path}: $$matchesEntity needs an entity map`);
      matchValue(entities.entityValue(arg), actual, path, root, ctx);
      return;
    }
    case '$$matchesHexBytes': {
      const want = hexToBytes(arg, path);
      const got = actualBytes(actual);
      if (got === undefined) throw new MatchError(path, `expected bytes, got ${show(actual)}`);
      if (!bytesEqual(want, got)) {
        throw new MatchError(
          path,
          `expected bytes ${Buffer.from(want).toString('hex')}, got ${Buffer.from(got).toString('hex')}`,
        );
      }
      return;
    }
    case '$$sessionLsid': {
      if (typeof arg !== 'string')
        throw new TestFileError(`${path}: $$sessionLsid takes a session entity name`);
      if (entities === undefined)
        throw new TestFileError(`${path}: $$sessionLsid needs an entity map`);
      const lsid = entities.sessionLsid(arg);
      if (actual === undefined) throw new MatchError(path, `missing; expected the lsid of ${arg}`);
      try {
        matchValue(lsid, actual, path, false, ctx);
      } catch (e) {
        if (e instanceof MatchError)
          throw new MatchError(
            path,
            `expected the lsid of session ${arg} ${show(lsid)}, got ${show(actual)}`,
          );
        throw e;
      }
      return;
    }
    case '$$lte': {
      if (!isNumeric(arg)) throw new TestFileError(`${path}: $$lte takes a number`);
      if (!isNumeric(actual))
        throw new MatchError(path, `expected a number <= ${show(arg)}, got ${show(actual)}`);
      const c = compareNumeric(actual, arg);
      if (c === undefined || c > 0)
        throw new MatchError(path, `expected a number <= ${show(arg)}, got ${show(actual)}`);
      return;
    }
    case '$$matchAsDocument': {
      if (typeof actual !== 'string')
        throw new MatchError(path, `expected an Extended JSON string, got ${show(actual)}`);
      let parsed: unknown;
      try {
        parsed = EJSON.parse(actual, { relaxed: false });
      } catch (e) {
        throw new MatchError(path, `not Extended JSON: ${(e as Error).message}`);
      }
      matchValue(arg, parsed, path, false, ctx);
      return;
    }
    case '$$matchAsRoot': {
      if (!isDocument(arg)) throw new TestFileError(`${path}: $$matchAsRoot takes a document`);
      if (!isDocument(actual))
        throw new MatchError(path, `expected a document, got ${show(actual)}`);
      matchValue(arg, actual, path, true, ctx);
      return;
    }
  }
}
