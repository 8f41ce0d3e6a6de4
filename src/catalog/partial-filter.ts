// A partial index's filter (its `partialFilterExpression`) as the catalog sees it: something
// that says whether a document belongs in the index. Filters are compiled by the matcher,
// which lives in the query layer above the catalog, so the compiler is installed from there
// (src/query/match/index.ts installs it when it is loaded) rather than imported.

import type { BsonDocument } from '../bson/types.js';
import { invariant } from '../errors.js';

export interface PartialFilter {
  /** The filter as given. */
  readonly filter: BsonDocument;
  /** Whether `doc` belongs in the index. */
  matches(doc: BsonDocument): boolean;
}

export type PartialFilterCompiler = (filter: BsonDocument) => PartialFilter;

let compiler: PartialFilterCompiler | undefined;

/** Installs the compiler the catalog uses for partial indexes (by the layer that has one). */
export function installPartialFilterCompiler(compile: PartialFilterCompiler): void {
  compiler = compile;
}

/** Compiles a partialFilterExpression with the installed compiler. */
export function compilePartialFilter(filter: BsonDocument): PartialFilter {
  invariant(compiler !== undefined, 'no partial filter compiler installed');
  return compiler(filter);
}
