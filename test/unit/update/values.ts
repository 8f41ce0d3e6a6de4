// Helpers to write BSON values in test data the way the mongo shell reads them: a bare
// number is a double (jstests and the MongoDB docs are written in the shell), and int32,
// int64 and decimal are spelled out as the shell spells them.

import {
  BSONRegExp,
  Binary,
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
import { setOwn } from '../../../src/bson/document.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';

export const NumberInt = (n: number): Int32 => new Int32(n);
export const NumberLong = (n: number | string): Long =>
  typeof n === 'string' ? Long.fromString(n) : Long.fromNumber(n);
export const NumberDecimal = (s: string): Decimal128 => Decimal128.fromString(s);
export const dbl = (n: number): Double => new Double(n);
export const oid = (hex: string): ObjectId => new ObjectId(hex);
export const ts = (t: number, i: number): Timestamp => new Timestamp({ t, i });
export const regex = (pattern: string, options = ''): BSONRegExp =>
  new BSONRegExp(pattern, options);
export const bin = (hex: string, subtype = 0): Binary =>
  new Binary(Buffer.from(hex, 'hex'), subtype);
export const dbref = (collection: string, id: unknown, db?: string): DBRef =>
  new DBRef(collection, shell(id) as ObjectId, db);
export { MaxKey, MinKey };

/** A shell-style literal as BSON: numbers become doubles; bson values, dates and strings stay. */
export function shell(v: unknown): BsonValue {
  if (typeof v === 'number') return new Double(v);
  if (Array.isArray(v)) return v.map(shell);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: BsonDocument = {};
    for (const k of Object.keys(v)) setOwn(out, k, shell((v as Record<string, unknown>)[k]));
    return out;
  }
  return v as BsonValue;
}

export function shellDoc(v: unknown): BsonDocument {
  return shell(v) as BsonDocument;
}

/** A document nested `depth` levels deep: {a: {a: … {a: 1}}} with `depth` fields on the path. */
export function nested(depth: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 1; i < depth; i++) v = { a: v };
  return v;
}
