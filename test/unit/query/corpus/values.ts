// Shorthands for writing corpus data: plain JavaScript literals become the value model the
// server decodes (bson classes with promoteValues off), the same way the MongoDB Node driver
// serializes them (an integer that fits in 32 bits is an int32, any other number a double).

import {
  Binary,
  BSONRegExp,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';
import type { BsonDocument, BsonValue } from '../../../../src/bson/types.js';

/** A literal as written in a corpus: JS numbers and RegExps are converted by `bs`. */
export type Literal = BsonValue | number | RegExp | Literal[] | { [key: string]: Literal };

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export function bs(v: Literal): BsonValue {
  if (typeof v === 'number') {
    return Number.isInteger(v) && !Object.is(v, -0) && v >= INT32_MIN && v <= INT32_MAX
      ? new Int32(v)
      : new Double(v);
  }
  if (v instanceof RegExp) return new BSONRegExp(v.source, v.flags);
  if (Array.isArray(v)) return v.map(bs);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: BsonDocument = {};
    for (const [k, x] of Object.entries(v)) {
      Object.defineProperty(out, k, {
        value: bs(x as Literal),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return v as BsonValue;
}

export function doc(v: { [key: string]: Literal }): BsonDocument {
  return bs(v) as BsonDocument;
}

export const int = (n: number): Int32 => new Int32(n);
export const dbl = (n: number): Double => new Double(n);
export const long = (s: string | number): Long => Long.fromString(String(s));
export const dec = (s: string): Decimal128 => Decimal128.fromString(s);
export const re = (pattern: string, options = ''): BSONRegExp => new BSONRegExp(pattern, options);
export const bin = (base64: string, subtype = 0): Binary =>
  new Binary(Buffer.from(base64, 'base64'), subtype);
export const oid = (hex: string): ObjectId => new ObjectId(hex);
export const ts = (t: number, i: number): Timestamp => new Timestamp({ t, i });
export const minKey = new MinKey();
export const maxKey = new MaxKey();
export const date = (iso: string): Date => new Date(iso);
