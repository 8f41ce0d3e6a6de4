// One update case as data: a stored document (or an upsert's query), an update, and what
// mongod answers. Written in shell notation (bare numbers are doubles), so that each case
// can also be replayed against a real mongod: insert `doc`, run the update with `query`
// (defaulting to {_id: doc._id}) and the options, read the document back.
//
// `source` names where the expectation comes from: a MongoDB jstest, the manual, or the
// server source file whose behaviour the case pins down.

export interface ExpectDoc {
  /** The document after the update (after the insert, for upserts). */
  readonly doc: unknown;
  /** What nModified counts (true for an upsert's insert). */
  readonly modified: boolean;
  /** The source only states the fields, not their order (assert.docEq in newer shells). */
  readonly anyFieldOrder?: boolean;
}

export interface ExpectError {
  readonly error: number;
  /** The message, exactly or as a pattern, when the source states it. */
  readonly message?: string | RegExp;
}

export interface UpdateCase {
  readonly name: string;
  readonly source: string;
  /** The stored document the update applies to (omitted for upserts that insert). */
  readonly doc?: unknown;
  readonly update: unknown;
  readonly arrayFilters?: readonly unknown[];
  readonly multi?: boolean;
  /** The query: for a positional `$` (see `positional`) and for upserts. */
  readonly query?: unknown;
  /** The array index the query's match reports (mongod's elemMatchKey) for `$`. */
  readonly positional?: number;
  /** Build the document an upsert inserts from `query` instead of updating `doc`. */
  readonly upsert?: boolean;
  readonly expect: ExpectDoc | ExpectError;
}

export function isErrorExpectation(e: ExpectDoc | ExpectError): e is ExpectError {
  return 'error' in e;
}

/** Fixed clock for $currentDate and zero timestamps. */
export const NOW = new Date('2024-05-06T07:08:09.123Z');
export const NEXT_TS = { t: 1714979289, i: 5 };
