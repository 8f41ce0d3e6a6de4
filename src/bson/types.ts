// The value model: what a BSON value is once the `bson` package has decoded it with
// numeric promotion off (see codec.ts). Every layer above works on these types.

import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';

export type BsonScalar =
  | null
  | undefined
  | boolean
  | string
  | Double
  | Int32
  | Long
  | Decimal128
  | Date
  | ObjectId
  | Binary
  | BSONRegExp
  | BSONSymbol
  | Code
  | Timestamp
  | MinKey
  | MaxKey
  | DBRef;

export type BsonValue = BsonScalar | BsonDocument | BsonArray;
export interface BsonDocument {
  [key: string]: BsonValue;
}
export type BsonArray = BsonValue[];

/**
 * BSON type names as `$type` and `$convert` spell them, with their numeric codes.
 * `missing` is not a BSON type: it is what `$type` aggregation returns for an absent field.
 */
export const BsonType = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
} as const;
export type BsonTypeName = keyof typeof BsonType;

/**
 * A plain (sub)document: an object that is not an array, a Date or a bson class instance.
 * DBRef is a document to MongoDB; the `bson` package decodes `{$ref, $id}` objects into
 * the DBRef class, so callers that walk into documents use `asDocument`.
 */
export function isPlainDocument(v: unknown): v is BsonDocument {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A document view of a value that MongoDB treats as a document, else undefined. */
export function asDocument(v: unknown): BsonDocument | undefined {
  if (isPlainDocument(v)) return v;
  if (v instanceof DBRef) return dbrefToDocument(v);
  return undefined;
}

export function dbrefToDocument(ref: DBRef): BsonDocument {
  const doc: BsonDocument = Object.create(null) as BsonDocument;
  doc['$ref'] = ref.collection;
  doc['$id'] = ref.oid as BsonValue;
  if (ref.db !== undefined && ref.db !== '') doc['$db'] = ref.db;
  for (const [k, v] of Object.entries(ref.fields)) {
    Object.defineProperty(doc, k, {
      value: v as BsonValue,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return doc;
}

export function isArray(v: unknown): v is BsonArray {
  return Array.isArray(v);
}

/** The `$type` name of a value. `undefined` (JS) is the BSON undefined type. */
export function bsonTypeName(v: BsonValue): BsonTypeName {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      // Native numbers should not reach the engine (promoteValues is off); treat as double.
      return 'double';
    case 'object':
      break;
    default:
      return 'undefined';
  }
  if (Array.isArray(v)) return 'array';
  if (v instanceof Date) return 'date';
  const tag = (v as { _bsontype?: string })._bsontype;
  switch (tag) {
    case 'Double':
      return 'double';
    case 'Int32':
      return 'int';
    case 'Long':
      return 'long';
    case 'Decimal128':
      return 'decimal';
    case 'ObjectId':
      return 'objectId';
    case 'Binary':
      return 'binData';
    case 'BSONRegExp':
      return 'regex';
    case 'BSONSymbol':
      return 'symbol';
    case 'Code':
      return (v as Code).scope ? 'javascriptWithScope' : 'javascript';
    case 'Timestamp':
      return 'timestamp';
    case 'MinKey':
      return 'minKey';
    case 'MaxKey':
      return 'maxKey';
    case 'DBRef':
      return 'object';
    default:
      return 'object';
  }
}

/**
 * Rank of a value's type in MongoDB's cross-type comparison order. Types that compare as
 * one group share a rank (all numbers; string and symbol).
 */
export function canonicalTypeRank(v: BsonValue): number {
  switch (bsonTypeName(v)) {
    case 'minKey':
      return -1;
    case 'undefined':
      return 0;
    case 'null':
      return 5;
    case 'double':
    case 'int':
    case 'long':
    case 'decimal':
      return 10;
    case 'string':
    case 'symbol':
      return 15;
    case 'object':
      return 20;
    case 'array':
      return 25;
    case 'binData':
      return 30;
    case 'objectId':
      return 35;
    case 'bool':
      return 40;
    case 'date':
      return 45;
    case 'timestamp':
      return 47;
    case 'regex':
      return 50;
    case 'dbPointer':
      return 55;
    case 'javascript':
      return 60;
    case 'javascriptWithScope':
      return 65;
    case 'maxKey':
      return 127;
  }
}

export {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
};

export { numericValue } from './numeric.js';
