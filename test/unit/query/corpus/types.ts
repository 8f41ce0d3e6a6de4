// The corpus as data: each case is a filter, the documents it runs on and the `_id`s mongod
// returns, with the source the expectation was taken from (a jstest of mongodb/mongo, a page of
// the MongoDB manual, or mongod's source). The same cases can run through a real server later
// (insert `docs`, run `find(filter)`, compare `_id`s). One caveat for that runner: the Node
// driver serializes JavaScript `undefined` as null, so the few documents holding BSON
// undefined must be inserted as raw BSON (type 6) for those cases to mean what they say.

import type { Literal } from './values.js';

export interface MatchCase {
  readonly name: string;
  readonly filter: { [key: string]: Literal };
  /** Documents, each with a distinct `_id`. */
  readonly docs: ReadonlyArray<{ [key: string]: Literal }>;
  /** `_id`s of the matching documents, in `docs` order. */
  readonly expected?: readonly Literal[];
  /** How many documents match, where the source gives only a count. */
  readonly expectedCount?: number;
  readonly source: string;
}

export interface MatchErrorCase {
  readonly name: string;
  readonly filter: { [key: string]: Literal };
  /** mongod's error code. */
  readonly code: number;
  /** A fragment of mongod's message, when it was looked up. */
  readonly message?: string;
  readonly source: string;
}

/** Documents `{_id: i, a: v}` for each value, for cases about one field. */
export function values(...vs: Literal[]): Array<{ [key: string]: Literal }> {
  return vs.map((v, i) => ({ _id: i, a: v }));
}
