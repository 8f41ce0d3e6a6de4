// The shape of a case of the aggregation stage corpus (agg-stage-corpus.test.ts runs them).
//
// Values are written with the bson classes so that every expectation states its BSON type: a
// plain JavaScript integer is an int32 (as the driver sends it and as canonical Extended JSON
// reads it back), a non-integral JavaScript number a double; doubles with integral values,
// longs and decimals use d(), l() and dec() below. Every expectation comes from MongoDB's
// manual, mongod's jstests or mongod's source (the `source` of each case), never from this
// server's output.

import { Decimal128, Double, Int32, Long } from 'bson';
import type { Document } from 'mongodb';

export interface StageCase {
  readonly name: string;
  /** Where the expectation comes from: a manual page, a jstest or a mongod source file. */
  readonly source: string;
  /** The documents of the collection the pipeline runs on; omitted: `{aggregate: 1}`. */
  readonly docs?: readonly Document[];
  /** Other collections of the same database, by name. */
  readonly collections?: Readonly<Record<string, readonly Document[]>>;
  /** Indexes to build before running (collection 'input' is the one the pipeline reads). */
  readonly indexes?: ReadonlyArray<{
    readonly collection: string;
    readonly key: Document;
    readonly unique?: boolean;
  }>;
  readonly pipeline: readonly Document[];
  /** Other aggregate options (let, allowDiskUse...). */
  readonly options?: Document;
  /** The exact output documents (types and field order included). */
  readonly expected?: readonly Document[];
  /** mongod does not specify the output order: compare as multisets. */
  readonly unordered?: boolean;
  /** A check of the output for what a fixed list cannot state ($sample's randomness). */
  readonly check?: (out: Document[]) => void;
  /** The error code mongod answers (parse or run time). */
  readonly error?: number;
  /** A fragment of mongod's error message. */
  readonly errorMessage?: string;
  /** A collection's contents after the pipeline ran ($out, $merge), compared by _id order. */
  readonly after?: { readonly collection: string; readonly docs: readonly Document[] };
}

export const d = (x: number): Double => new Double(x);
export const i = (x: number): Int32 => new Int32(x);
export const l = (x: number | bigint): Long =>
  typeof x === 'bigint' ? Long.fromBigInt(x) : Long.fromNumber(x);
export const dec = (s: string): Decimal128 => Decimal128.fromString(s);
export const date = (s: string): Date => new Date(s);

/** Manual pages, shortened in sources. */
export const manual = (page: string): string =>
  `https://www.mongodb.com/docs/manual/reference/${page}/`;
export const jstest = (path: string): string => `mongod jstests/${path}`;
export const mongodSource = (path: string): string => `mongod src/mongo/db/${path}`;
