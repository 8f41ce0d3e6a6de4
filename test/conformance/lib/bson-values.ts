// Value helpers for the Unified Test Format runner: what kind of BSON value a JavaScript value
// is, flexible numeric comparison, and printing values in error messages.
//
// Two representations meet here. Expected values come from test files parsed with
// `EJSON.parse(text, { relaxed: false })`, so numbers are `Int32` / `Double` / `Long` wrappers.
// Actual values come from the Node driver with its default deserialization options, so int32,
// double and (small) int64 arrive as plain JavaScript numbers. Both sides are accepted everywhere.

import { EJSON } from 'bson';
import { inspect } from 'node:util';

export type Doc = Record<string, unknown>;

/** The `_bsontype` tag of a bson-package value class, if the value has one. */
export function bsonTag(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const tag = (v as { _bsontype?: unknown })._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

/** A plain document: not null, not an array, not a BSON value class, not a Date/RegExp/bytes. */
export function isDocument(v: unknown): v is Doc {
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v) || v instanceof Map) return false;
  if (v instanceof Date || v instanceof RegExp || v instanceof Uint8Array) return false;
  const tag = bsonTag(v);
  // DBRef is a document on the wire ({$ref, $id}) but a class here; treat it as a value.
  return tag === undefined;
}

/** Maps (the driver returns some results and command fields as Maps) become plain documents. */
export function normalizeMap(v: unknown): unknown {
  if (v instanceof Map) {
    const out: Doc = {};
    for (const [k, val] of v) out[String(k)] = val;
    return out;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Numbers

export function isNumeric(v: unknown): boolean {
  if (typeof v === 'number' || typeof v === 'bigint') return true;
  const tag = bsonTag(v);
  return tag === 'Int32' || tag === 'Double' || tag === 'Long';
}

type Num = { readonly int: bigint } | { readonly float: number };

function toNum(v: unknown): Num | undefined {
  if (typeof v === 'bigint') return { int: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { int: BigInt(v) } : { float: v };
  const tag = bsonTag(v);
  if (tag === 'Int32' || tag === 'Double') {
    const n = (v as { value: number }).value;
    return Number.isInteger(n) ? { int: BigInt(n) } : { float: n };
  }
  if (tag === 'Long') return { int: BigInt(String(v)) };
  return undefined;
}

/** Compares two numeric values (int32, int64, double in any representation) by value. */
export function compareNumeric(a: unknown, b: unknown): number | undefined {
  const x = toNum(a);
  const y = toNum(b);
  if (x === undefined || y === undefined) return undefined;
  if ('int' in x && 'int' in y) return x.int < y.int ? -1 : x.int > y.int ? 1 : 0;
  const fx = 'int' in x ? Number(x.int) : x.float;
  const fy = 'int' in y ? Number(y.int) : y.float;
  if (Number.isNaN(fx) || Number.isNaN(fy))
    return Number.isNaN(fx) && Number.isNaN(fy) ? 0 : undefined;
  return fx < fy ? -1 : fx > fy ? 1 : 0;
}

export function numericEqual(a: unknown, b: unknown): boolean {
  return compareNumeric(a, b) === 0;
}

/** A numeric option value as a JavaScript number (Long values beyond 2^53 stay Long). */
export function toJsNumber(v: unknown): unknown {
  const tag = bsonTag(v);
  if (tag === 'Int32' || tag === 'Double') return (v as { value: number }).value;
  if (tag === 'Long') {
    const n = Number(String(v));
    return Number.isSafeInteger(n) ? n : v;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// $$type

/** Type names accepted by `$$type`: the `$type` query operator's aliases. */
export const TYPE_NAMES = new Set([
  'double',
  'string',
  'object',
  'array',
  'binData',
  'undefined',
  'objectId',
  'bool',
  'date',
  'null',
  'regex',
  'dbPointer',
  'javascript',
  'symbol',
  'javascriptWithScope',
  'int',
  'timestamp',
  'long',
  'decimal',
  'minKey',
  'maxKey',
  'number',
]);

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * The set of `$type` aliases a value may be. A wrapped value has exactly one type. A plain
 * JavaScript number has lost its BSON type in the driver's deserialization, so it is allowed
 * every numeric type it could have come from: an integer in int32 range may be int, long or
 * double; a larger integer long or double; a fraction only double.
 */
export function possibleTypes(v: unknown): Set<string> {
  const one = (t: string): Set<string> =>
    new Set(t === 'int' || t === 'long' || t === 'double' || t === 'decimal' ? [t, 'number'] : [t]);
  if (v === undefined) return new Set();
  if (v === null) return one('null');
  if (typeof v === 'boolean') return one('bool');
  if (typeof v === 'string') return one('string');
  if (typeof v === 'bigint') return one('long');
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return new Set(['double', 'number']);
    if (v >= INT32_MIN && v <= INT32_MAX) return new Set(['int', 'long', 'double', 'number']);
    return new Set(['long', 'double', 'number']);
  }
  if (Array.isArray(v)) return one('array');
  if (v instanceof Date) return one('date');
  if (v instanceof RegExp) return one('regex');
  if (v instanceof Uint8Array) return one('binData');
  if (v instanceof Map) return one('object');
  switch (bsonTag(v)) {
    case undefined:
      return one('object');
    case 'Int32':
      return one('int');
    case 'Double':
      return one('double');
    case 'Long':
      return one('long');
    case 'Decimal128':
      return one('decimal');
    case 'ObjectId':
    case 'ObjectID':
      return one('objectId');
    case 'Binary':
      return one('binData');
    case 'BSONRegExp':
      return one('regex');
    case 'Timestamp':
      return one('timestamp');
    case 'MinKey':
      return one('minKey');
    case 'MaxKey':
      return one('maxKey');
    case 'BSONSymbol':
    case 'Symbol':
      return one('symbol');
    case 'DBRef':
      return one('object');
    case 'Code': {
      const scope = (v as { scope?: unknown }).scope;
      return one(scope !== undefined && scope !== null ? 'javascriptWithScope' : 'javascript');
    }
    default:
      return new Set();
  }
}

// ---------------------------------------------------------------------------------------------
// Scalar equality

function bytesOf(v: unknown): Uint8Array | undefined {
  if (v instanceof Uint8Array) return v;
  if (bsonTag(v) === 'Binary') {
    const b = v as { buffer: Uint8Array; position?: number; value?: () => Uint8Array };
    if (typeof b.value === 'function') return b.value();
    return typeof b.position === 'number' ? b.buffer.subarray(0, b.position) : b.buffer;
  }
  return undefined;
}

function binarySubtype(v: unknown): number {
  if (bsonTag(v) === 'Binary') return (v as { sub_type: number }).sub_type;
  return 0;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function regexParts(v: unknown): { pattern: string; flags: string } | undefined {
  if (v instanceof RegExp) return { pattern: v.source, flags: [...v.flags].sort().join('') };
  if (bsonTag(v) === 'BSONRegExp') {
    const r = v as { pattern: string; options: string };
    return { pattern: r.pattern, flags: [...r.options].sort().join('') };
  }
  return undefined;
}

/**
 * Equality of two non-document, non-array values with flexible numerics. Returns a reason
 * string when they differ, undefined when equal.
 */
export function scalarDifference(expected: unknown, actual: unknown): string | undefined {
  if (isNumeric(expected) || isNumeric(actual)) {
    if (!isNumeric(expected) || !isNumeric(actual)) return 'type differs';
    return numericEqual(expected, actual) ? undefined : 'value differs';
  }
  if (expected === null || expected === undefined || typeof expected !== 'object') {
    return Object.is(expected, actual) || expected === actual ? undefined : 'value differs';
  }
  const eTag = bsonTag(expected);
  if (expected instanceof Date) {
    return actual instanceof Date && actual.getTime() === expected.getTime()
      ? undefined
      : 'date differs';
  }
  const eRe = regexParts(expected);
  if (eRe !== undefined) {
    const aRe = regexParts(actual);
    return aRe !== undefined && aRe.pattern === eRe.pattern && aRe.flags === eRe.flags
      ? undefined
      : 'regex differs';
  }
  const eBytes = bytesOf(expected);
  if (eBytes !== undefined) {
    const aBytes = bytesOf(actual);
    if (aBytes === undefined) return 'type differs';
    if (binarySubtype(expected) !== binarySubtype(actual)) return 'binary subtype differs';
    return bytesEqual(eBytes, aBytes) ? undefined : 'bytes differ';
  }
  const aTag = bsonTag(actual);
  const sameKind = (t: string | undefined): string | undefined =>
    t === 'ObjectID' ? 'ObjectId' : t === 'Symbol' ? 'BSONSymbol' : t;
  if (sameKind(eTag) !== sameKind(aTag)) return 'type differs';
  switch (sameKind(eTag)) {
    case 'ObjectId':
      return (expected as { toHexString(): string }).toHexString() ===
        (actual as { toHexString(): string }).toHexString()
        ? undefined
        : 'value differs';
    case 'Timestamp': {
      const e = expected as { t: number; i: number };
      const a = actual as { t: number; i: number };
      return e.t === a.t && e.i === a.i ? undefined : 'value differs';
    }
    case 'Decimal128':
    case 'BSONSymbol':
      return String(expected) === String(actual) ? undefined : 'value differs';
    case 'MinKey':
    case 'MaxKey':
      return undefined;
    case 'Code': {
      const e = expected as { code: string; scope?: unknown };
      const a = actual as { code: string; scope?: unknown };
      if (e.code !== a.code) return 'code differs';
      return exactDifference(e.scope ?? null, a.scope ?? null) === undefined
        ? undefined
        : 'code scope differs';
    }
    case 'DBRef': {
      const e = expected as { collection: string; oid: unknown; db?: string; fields?: unknown };
      const a = actual as { collection: string; oid: unknown; db?: string; fields?: unknown };
      if (e.collection !== a.collection || (e.db ?? '') !== (a.db ?? '')) return 'dbref differs';
      if (exactDifference(e.oid, a.oid) !== undefined) return 'dbref id differs';
      return exactDifference(e.fields ?? {}, a.fields ?? {}) === undefined
        ? undefined
        : 'dbref fields differ';
    }
    default:
      return 'cannot compare values of this type';
  }
}

/**
 * Exact comparison (no extra keys anywhere, arrays equal length, key order free, flexible
 * numerics, no special operators). Returns a reason with a path when different.
 */
export function exactDifference(
  expected: unknown,
  actual: unknown,
  path = '$',
): string | undefined {
  expected = normalizeMap(expected);
  actual = normalizeMap(actual);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${show(actual)}`;
    if (expected.length !== actual.length)
      return `${path}: expected ${expected.length} elements, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = exactDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isDocument(expected)) {
    if (!isDocument(actual)) return `${path}: expected a document, got ${show(actual)}`;
    const eKeys = Object.keys(expected).filter((k) => expected[k] !== undefined);
    const aKeys = Object.keys(actual).filter((k) => actual[k] !== undefined);
    for (const k of eKeys) {
      if (!Object.hasOwn(actual, k) || actual[k] === undefined) return `${path}.${k}: missing`;
      const d = exactDifference(expected[k], actual[k], `${path}.${k}`);
      if (d !== undefined) return d;
    }
    const extra = aKeys.filter((k) => !eKeys.includes(k));
    if (extra.length > 0) return `${path}: unexpected field(s) ${extra.join(', ')}`;
    return undefined;
  }
  const d = scalarDifference(expected, actual);
  return d === undefined
    ? undefined
    : `${path}: ${d}: expected ${show(expected)}, got ${show(actual)}`;
}

// ---------------------------------------------------------------------------------------------
// Printing

/** Top-level fields that differ on every run and rarely explain a failure. */
const RUN_SPECIFIC = new Set(['lsid', '$clusterTime', 'operationTime', 'signature']);

/** `v` without run-specific top-level fields, for excerpts in failure messages. */
export function withoutRunSpecific(v: unknown): unknown {
  if (!isDocument(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !RUN_SPECIFIC.has(k)));
}

/** Canonical-ish Extended JSON for messages (keeps int/long/double visible), never throws. */
export function show(v: unknown, max = 400): string {
  let s: string;
  if (v === undefined) return '(missing)';
  try {
    s = EJSON.stringify(toPrintable(v), { relaxed: false });
  } catch {
    s = inspect(v, { depth: 6, breakLength: Infinity });
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function toPrintable(v: unknown): unknown {
  if (v instanceof Map) return toPrintable(normalizeMap(v));
  if (typeof v === 'bigint') return `${v}n`;
  if (Array.isArray(v)) return v.map(toPrintable);
  if (v instanceof Uint8Array) return `<bytes ${Buffer.from(v).toString('hex')}>`;
  if (isDocument(v)) {
    const out: Doc = {};
    for (const [k, val] of Object.entries(v))
      if (val !== undefined && typeof val !== 'function') out[k] = toPrintable(val);
    return out;
  }
  return v;
}
