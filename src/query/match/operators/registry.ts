// What an operator file provides, and the maps the parser dispatches through. Each family's
// index.ts lists its operators; adding an operator is one file plus one line there.

import type { BsonDocument, BsonValue } from '../../../bson/types.js';
import type { MatchNode, ParseContext } from '../types.js';

/** Recursion into the parser, handed to operators that contain filters. */
export interface SubParser {
  /** A filter document ({a: 1, $or: [...]}) at the given level. */
  filter(doc: BsonDocument, ctx: ParseContext): MatchNode;
  /** An operator document ({$gt: 1, $lt: 5}) for `path`, one node per operator. */
  operators(path: string, operatorDoc: BsonDocument, ctx: ParseContext): MatchNode[];
  /** Whether `name` is a top-level operator ($and, $expr, ...), as $elemMatch must know. */
  isTopLevelOperator(name: string): boolean;
  /** Whether `name` is an operator on a field ($gt, $in, ...), as $all must know. */
  isPathOperator(name: string): boolean;
}

export interface PathOperatorInput {
  /** The path the operator applies to ("" for the value form of $elemMatch). */
  readonly path: string;
  readonly arg: BsonValue;
  /** The whole operator document, for operators that read their siblings ($regex, $options, geo). */
  readonly operatorDoc: BsonDocument;
  readonly ctx: ParseContext;
  readonly parser: SubParser;
}

/** An operator on a field: `{path: {$name: arg}}`. Null means "nothing to add" ($options). */
export interface PathOperator {
  readonly name: string;
  parse(input: PathOperatorInput): MatchNode | null;
}

/** An operator at the top of a filter: `{$name: arg}`. Null means "nothing to add" ($comment). */
export interface TopLevelOperator {
  readonly name: string;
  parse(arg: BsonValue, ctx: ParseContext, parser: SubParser): MatchNode | null;
}

export function registry<T extends { readonly name: string }>(
  ...families: ReadonlyArray<readonly T[]>
): ReadonlyMap<string, T> {
  const map = new Map<string, T>();
  for (const family of families) for (const op of family) map.set(op.name, op);
  return map;
}
