// The parsed form of a filter: an expression tree that is both evaluated (each node carries
// what it needs, compiled once) and inspected (the index planner walks `kind`, `path` and the
// operands to pick index bounds). Node kinds follow mongod's MatchExpression types.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { LeafArrayMode, PathValue } from '../../bson/path.js';
import type { ComparisonOp } from './compare.js';
import type { TypeSet } from './type-set.js';
import type { Collator } from '../../bson/collation.js';
import type { TextParams, TextSearch } from '../../text/query.js';
import type { QueryShape } from '../../geo/geometry.js';
import type { NearQuery } from '../../geo/near.js';

/**
 * What a successful match reports back. `elemMatchKey` is the array position (as a string)
 * that satisfied the filter, for the positional `$` of updates and projections; it is only
 * recorded when a details object is passed.
 */
export interface MatchDetails {
  elemMatchKey?: string | undefined;
}

/** mongod's matchesSingleElement: does one value reached by the node's path satisfy it? */
export type ValueTest = (value: PathValue, details: MatchDetails | undefined) => boolean;

/** Evaluates a node against a whole document. */
export type DocumentTest = (doc: BsonDocument, details: MatchDetails | undefined) => boolean;

/** Fields every node on a path has: the dotted path, split once, and the compiled test. */
export interface PathNodeBase {
  readonly path: string;
  readonly parts: readonly string[];
  /** How an array at the end of the path is visited (see bson/path.ts). */
  readonly arrays: LeafArrayMode;
  readonly test: ValueTest;
}

export type BitTestOp = 'bitsAllSet' | 'bitsAllClear' | 'bitsAnySet' | 'bitsAnyClear';

export type PathNode = PathNodeBase &
  (
    | { readonly kind: ComparisonOp; readonly value: BsonValue }
    | {
        readonly kind: 'in';
        readonly values: readonly BsonValue[];
        readonly regexes: readonly RegexOperand[];
      }
    | ({ readonly kind: 'regex' } & RegexOperand)
    | { readonly kind: 'exists' }
    | { readonly kind: 'type'; readonly types: TypeSet }
    | { readonly kind: 'size'; readonly size: number }
    | { readonly kind: 'mod'; readonly divisor: bigint; readonly remainder: bigint }
    | { readonly kind: BitTestOp; readonly positions: readonly number[] }
    | { readonly kind: 'elemMatchObject'; readonly child: MatchNode }
    | { readonly kind: 'elemMatchValue'; readonly children: readonly MatchNode[] }
    | {
        readonly kind: 'geo';
        readonly operator: '$geoWithin' | '$geoIntersects';
        readonly shape: QueryShape;
        /** The operator as written ({$geoWithin: {...}}), for explain. */
        readonly raw: BsonDocument;
      }
    | { readonly kind: 'near'; readonly near: NearQuery; readonly raw: BsonDocument }
  );

export interface RegexOperand {
  readonly pattern: string;
  readonly flags: string;
}

/** A node that applies to the whole (sub)document rather than to a path. */
export type DocumentNode =
  | { readonly kind: 'expr'; readonly expr: BsonValue; readonly test: DocumentTest }
  | { readonly kind: 'jsonSchema'; readonly schema: BsonDocument; readonly test: DocumentTest }
  | { readonly kind: 'sampleRate'; readonly rate: number; readonly test: DocumentTest }
  | { readonly kind: 'where'; readonly code: string; readonly test: DocumentTest }
  | { readonly kind: 'text'; readonly search: TextSearch; readonly test: DocumentTest };

export type LogicalNode =
  | { readonly kind: 'and' | 'or' | 'nor'; readonly children: readonly MatchNode[] }
  | { readonly kind: 'not'; readonly child: MatchNode }
  | { readonly kind: 'alwaysTrue' }
  | { readonly kind: 'alwaysFalse' };

export type MatchNode = PathNode | DocumentNode | LogicalNode;
export type MatchNodeKind = MatchNode['kind'];

/** The hook that evaluates `$expr` (aggregation expressions belong to the pipeline layer). */
export type ExprCompiler = (expr: BsonValue) => (doc: BsonDocument) => boolean;

/** The hook that compiles `$where` code (server-side JavaScript lives in src/js). */
export type WhereCompiler = (code: string) => DocumentTest;

export interface MatchOptions {
  /** Compiles the argument of `$expr`; without it `$expr` answers NotImplemented (238). */
  compileExpr?: ExprCompiler | undefined;
  /**
   * Compiles `$where` code; without it `$where` is refused as by a mongod without scripting
   * (6108304).
   */
  compileWhere?: WhereCompiler | undefined;
  /** The operation's collation: string comparisons ($eq, ranges, $in) use it; regexes do not. */
  collator?: Collator | undefined;
  /**
   * Compiles a $text search against the collection's text index (throwing IndexNotFound when
   * there is none); without it $text answers NotImplemented (a context that does not know its
   * collection).
   */
  textSearch?: ((params: TextParams) => TextSearch) | undefined;
}

/**
 * Where in the filter a parser stands (mongod's DocumentParseLevel): the top of the predicate,
 * a position that still sees the whole document ($and/$or children), or inside $elemMatch.
 */
export type ParseLevel = 'predicateTop' | 'documentTop' | 'subDocument';

export interface ParseContext {
  readonly options: MatchOptions;
  readonly level: ParseLevel;
  /**
   * mongod's kBanAllSpecialFeatures: the $elemMatch of a projection may not use $expr,
   * $where, $text, $jsonSchema or $near.
   */
  readonly banSpecialFeatures: boolean;
}
