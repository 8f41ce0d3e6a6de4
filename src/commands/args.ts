// Declarative command arguments, in the spirit of mongod's IDL: each command declares its
// fields once; the dispatcher rejects unknown fields (40415) and wrong types (14) before the
// command runs, and the command receives a typed object.

import { Double } from 'bson';
import { CommandError, ErrorCode } from '../errors.js';
import { bsonTypeName, isPlainDocument, numericValue } from '../bson/types.js';
import type { BsonDocument, BsonTypeName, BsonValue } from '../bson/types.js';

export interface ArgType<T> {
  /** Names of accepted BSON types, for the TypeMismatch message. */
  readonly expected: readonly string[];
  /** Convert an accepted value; return undefined if the value's type is not accepted. */
  readonly parse: (v: BsonValue) => T | undefined;
}

const numericNames = ['long', 'int', 'decimal', 'double'] as const;

export const t = {
  string: {
    expected: ['string'],
    parse: (v) => (typeof v === 'string' ? v : undefined),
  } as ArgType<string>,
  /** Strict boolean. */
  bool: {
    expected: ['bool'],
    parse: (v) => (typeof v === 'boolean' ? v : undefined),
  } as ArgType<boolean>,
  /** Boolean that also accepts numbers (IDL "safeBool"). */
  safeBool: {
    expected: ['bool', ...numericNames],
    parse: (v) =>
      typeof v === 'boolean'
        ? v
        : numericValue(v) !== undefined
          ? numericValue(v) !== 0
          : undefined,
  } as ArgType<boolean>,
  document: {
    expected: ['object'],
    parse: (v) => (isPlainDocument(v) ? v : undefined),
  } as ArgType<BsonDocument>,
  array: {
    expected: ['array'],
    parse: (v) => (Array.isArray(v) ? (v as BsonValue[]) : undefined),
  } as ArgType<BsonValue[]>,
  /** Any number; whole-number checks are the command's (messages differ per field). */
  number: { expected: numericNames, parse: numericValue } as ArgType<number>,
  /** A 64-bit integer given as any numeric type with a whole value (IDL "safeInt64"). */
  int64: {
    expected: numericNames,
    parse: (v) => {
      const n = numericValue(v);
      return n === undefined ? undefined : Math.trunc(n);
    },
  } as ArgType<number>,
  /** A BSON double only (IDL "double"). */
  double: {
    expected: ['double'],
    parse: (v) => (v instanceof Double ? v.value : undefined),
  } as ArgType<number>,
  any: { expected: ['any'], parse: (v) => v } as ArgType<BsonValue>,
  /** Present in mongod's IDL and accepted, but carries nothing we act on. */
  ignored: { expected: ['any'], parse: () => true } as ArgType<true>,
} as const;

export function oneOf<A, B>(a: ArgType<A>, b: ArgType<B>): ArgType<A | B> {
  return {
    expected: [...a.expected, ...b.expected],
    parse: (v) => {
      const x = a.parse(v);
      return x !== undefined ? x : b.parse(v);
    },
  };
}

export type ArgSpec = Record<string, ArgType<unknown>>;
export type ParsedArgs<S extends ArgSpec> = {
  [K in keyof S]?: S[K] extends ArgType<infer T> ? T : never;
};

/**
 * Arguments every command accepts (mongod's generic arguments). The dispatcher handles the
 * ones that matter (session, transaction, write/read concern, maxTimeMS, API version).
 */
export const genericArgs = {
  $db: t.string,
  lsid: t.document,
  txnNumber: t.int64,
  autocommit: t.bool,
  startTransaction: t.bool,
  stmtId: t.int64,
  maxTimeMS: t.any,
  readConcern: t.document,
  writeConcern: t.document,
  comment: t.any,
  $readPreference: t.document,
  $clusterTime: t.document,
  apiVersion: t.string,
  apiStrict: t.bool,
  apiDeprecationErrors: t.bool,
  $audit: t.ignored,
  $client: t.ignored,
  $configServerState: t.ignored,
  $gleStats: t.ignored,
  $oplogQueryData: t.ignored,
  $replData: t.ignored,
  $configTime: t.ignored,
  $topologyTime: t.ignored,
  clientOperationKey: t.ignored,
  allowImplicitCollectionCreation: t.ignored,
  databaseVersion: t.ignored,
  shardVersion: t.ignored,
  maxTimeMSOpOnly: t.ignored,
  mayBypassWriteBlocking: t.ignored,
  usesDefaultMaxTimeMS: t.ignored,
  $queryOptions: t.ignored,
  readOnly: t.ignored,
} satisfies ArgSpec;

export type GenericArgs = ParsedArgs<typeof genericArgs>;

function typeMismatch(
  command: string,
  field: string,
  v: BsonValue,
  expected: readonly string[],
): CommandError {
  return new CommandError(
    ErrorCode.TypeMismatch,
    `BSON field '${command}.${field}' is the wrong type '${bsonTypeName(v)}', expected ` +
      (expected.length === 1 ? `type '${expected[0] ?? ''}'` : `types '[${expected.join(', ')}]'`),
  );
}

/**
 * Validate a command body against its spec: every field other than the command name must be
 * declared by the command or be generic. Returns the typed arguments.
 */
export function parseArgs<S extends ArgSpec>(
  command: string,
  body: BsonDocument,
  spec: S,
  nameKey: string,
  strict = true,
): ParsedArgs<S> & GenericArgs {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (field === nameKey) continue;
    const type: ArgType<unknown> | undefined = Object.hasOwn(spec, field)
      ? spec[field]
      : Object.hasOwn(genericArgs, field)
        ? (genericArgs as ArgSpec)[field]
        : undefined;
    if (type === undefined) {
      if (!strict) continue;
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field '${command}.${field}' is an unknown field.`,
      );
    }
    // Optional fields may be explicitly null in mongod's IDL; treat null as absent.
    if (value === null && type !== t.any) continue;
    const parsed = type.parse(value);
    if (parsed === undefined) throw typeMismatch(command, field, value, type.expected);
    Object.defineProperty(out, field, {
      value: parsed,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out as ParsedArgs<S> & GenericArgs;
}

/** The command's own field (`profile: 1`), parsed as its IDL type (TypeMismatch otherwise). */
export function parseCommandParameter<T>(command: string, value: BsonValue, type: ArgType<T>): T {
  const parsed = type.parse(value);
  if (parsed !== undefined) return parsed;
  const expected = type.expected;
  throw new CommandError(
    ErrorCode.TypeMismatch,
    `BSON field '${command}' is the wrong type '${bsonTypeName(value)}', expected ` +
      (expected.length === 1 ? `type '${expected[0] ?? ''}'` : `types '[${expected.join(', ')}]'`),
  );
}

/** The BSON type name used in messages. */
export function typeNameOf(v: BsonValue): BsonTypeName {
  return bsonTypeName(v);
}
