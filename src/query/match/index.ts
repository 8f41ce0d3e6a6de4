// The matcher: a filter is parsed once into an expression tree and compiled into closures;
// `matches` then evaluates documents with mongod 7.0's semantics.
//
//   const m = compileFilter({ 'items.qty': { $gt: 5 } });
//   const details: MatchDetails = {};
//   if (m.matches(doc, details)) use(details.elemMatchKey); // positional `$`
//
// `m.tree` is the parsed form, for the index planner (kinds: eq lt lte gt gte in regex exists
// type size mod bits* elemMatchObject elemMatchValue geo, and or nor not alwaysTrue
// alwaysFalse, expr jsonSchema sampleRate).

import type { BsonDocument } from '../../bson/types.js';
import { installPartialFilterCompiler } from '../../catalog/partial-filter.js';
import type { PartialFilter } from '../../catalog/partial-filter.js';
import { compileDocumentTest } from './evaluate.js';
import { topLevelFieldsRead } from './fields.js';
import { parseFilter } from './parser.js';
import type { ParseFilterOptions } from './parser.js';
import type { MatchDetails, MatchNode, MatchOptions } from './types.js';

export type {
  BitTestOp,
  DocumentNode,
  ExprCompiler,
  WhereCompiler,
  LogicalNode,
  MatchDetails,
  MatchNode,
  MatchNodeKind,
  MatchOptions,
  PathNode,
  RegexOperand,
} from './types.js';
export type { ComparisonOp } from './compare.js';
export type { TypeSet } from './type-set.js';

export interface Matcher {
  /** The filter as given. */
  readonly filter: BsonDocument;
  /** The parsed expression tree. */
  readonly tree: MatchNode;
  /** Whether `doc` matches; fills `details.elemMatchKey` when a positional match happened. */
  matches(doc: BsonDocument, details?: MatchDetails): boolean;
  /**
   * The top-level fields `matches` reads when the tree says so (topLevelFieldsRead): a
   * document of only those fields matches as the whole does. Undefined: it may read any.
   */
  readonly fieldsRead: readonly string[] | undefined;
}

/** Parses and compiles a filter; throws CommandError with mongod's code for a bad filter. */
export function compileFilter(filter: BsonDocument, options: MatchOptions = {}): Matcher {
  return build(filter, options);
}

/**
 * A filter under mongod's kBanAllSpecialFeatures: no $expr, $where, $text, $jsonSchema or
 * $near (the $elemMatch of a find projection).
 */
export function compileRestrictedFilter(filter: BsonDocument, options: MatchOptions = {}): Matcher {
  return build(filter, { ...options, banSpecialFeatures: true });
}

/** The matchers compiled for partial indexes, so the planner reads their trees. */
const partialMatchers = new WeakMap<PartialFilter, Matcher>();

// The catalog compiles partial indexes' filters with this matcher (see catalog/partial-filter.ts).
installPartialFilterCompiler((filter) => {
  const matcher = compileFilter(filter);
  partialMatchers.set(matcher, matcher);
  return matcher;
});

/** The matcher of an index's partial filter (compiled by the installed compiler). */
export function partialFilterMatcher(partial: PartialFilter): Matcher {
  return partialMatchers.get(partial) ?? compileFilter(partial.filter);
}

function build(filter: BsonDocument, options: ParseFilterOptions): Matcher {
  const tree = parseFilter(filter, options);
  const test = compileDocumentTest(tree);
  return {
    filter,
    tree,
    matches: (doc, details) => test(doc, details),
    fieldsRead: topLevelFieldsRead(tree),
  };
}
