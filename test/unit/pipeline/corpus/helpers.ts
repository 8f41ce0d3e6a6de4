// Value builders and the case shape of the expression corpus. Every case says where its
// expected value comes from (MongoDB documentation page or jstest), so a reader can check it;
// expected values are never taken from this server's own output.

import { Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import type { BsonDocument, BsonValue } from '../../../../src/bson/types.js';
import { MISSING } from '../../../../src/pipeline/expressions/types.js';
import type { Value } from '../../../../src/pipeline/expressions/types.js';

export const int = (n: number): Int32 => new Int32(n);
export const long = (n: number | bigint): Long =>
  typeof n === 'bigint' ? Long.fromBigInt(n) : Long.fromNumber(n);
export const dbl = (n: number): Double => new Double(n);
export const dec = (s: string): Decimal128 => Decimal128.fromString(s);
export const date = (iso: string): Date => new Date(iso);
export const oid = (hex: string): ObjectId => ObjectId.createFromHexString(hex);
export { MISSING };

export interface ValueCase {
  readonly name: string;
  /** The expression, with numbers already typed (int/dbl/long/dec). */
  readonly expr: BsonValue;
  /** The document evaluated ($$ROOT); {} when absent. */
  readonly doc?: BsonDocument;
  /** The expected value with its exact BSON type, or MISSING. */
  readonly expected: Value;
  readonly source: string;
  /** Why the case runs only in the unit harness (the driver cannot send or see it). */
  readonly unitOnly?: string;
  /** Why the case runs only through the server (it needs what only a server has). */
  readonly driverOnly?: string;
}

export interface ErrorCase {
  readonly name: string;
  readonly expr: BsonValue;
  readonly doc?: BsonDocument;
  readonly code: number;
  readonly message?: string;
  readonly source: string;
  readonly unitOnly?: string;
  readonly driverOnly?: string;
}

export interface Family {
  readonly values: readonly ValueCase[];
  readonly errors: readonly ErrorCase[];
}
