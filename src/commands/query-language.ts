// The query language as the commands use it: filter, sort, projection and update compiled once
// per request into the closures the plan stages call per document. This is where the query
// layer meets the aggregation layer: `$expr` in filters, expressions in projections and
// pipeline updates all read one command's variables (QueryExpressions: `let`, an update
// statement's `c`, $$NOW, $$CLUSTER_TIME).

import type { BsonDocument } from '../bson/types.js';
import type { Collator } from '../bson/collation.js';
import { ErrorCode, fail } from '../errors.js';
import { compileFilter, compileRestrictedFilter } from '../query/match/index.js';
import { compileUpdatePipeline, queryExpressions } from '../pipeline/index.js';
import type { QueryExpressions, QueryVariablesOptions } from '../pipeline/index.js';
import { compileUpdate } from '../update/index.js';
import type { CompiledUpdate } from '../update/index.js';
import { compileProjection } from '../query/projection/index.js';
import { compileSort } from '../query/sort.js';
import type { DocumentFilter, RowComparator, RowTransform } from '../query/exec/stages.js';
import type { Collection } from '../catalog/collection.js';
import { compileTextSearch } from '../text/query.js';
import type { TextParams, TextSearch } from '../text/query.js';

export type { QueryExpressions, QueryVariablesOptions } from '../pipeline/index.js';

/**
 * The expressions of one command (or one update statement): its `let` variables are
 * evaluated here, once, with mongod's errors for bad ones (FailedToParse, 4738901, 4890500,
 * 17276), whether or not anything reads them.
 */
export function commandExpressions(options: QueryVariablesOptions = {}): QueryExpressions {
  return queryExpressions(options);
}

/**
 * An update statement's expressions with its constants (`c`) bound over the command's; only a
 * pipeline update takes constants (mongod's UpdateDriver: 51198).
 */
export function updateStatementExpressions(
  command: QueryExpressions,
  update: BsonDocument | BsonDocument[],
  constants: BsonDocument | undefined,
): QueryExpressions {
  if (constants === undefined) return command;
  if (!Array.isArray(update))
    fail(ErrorCode.Location51198, 'Constant values may only be specified for pipeline updates');
  return command.withConstants(constants);
}

export interface FilterOptions {
  /** The command's expressions (variables for `$expr`); by default, `variables` alone. */
  readonly expressions?: QueryExpressions | undefined;
  /** `let` variables of the command, visible to `$expr` (when `expressions` is not given). */
  readonly variables?: BsonDocument | undefined;
  /** The operation's collation (undefined: simple, binary comparison). */
  readonly collator?: Collator | undefined;
  /** Compiles $text against the target collection's text index (see textSearchHook). */
  readonly textSearch?: ((params: TextParams) => TextSearch) | undefined;
}

/**
 * The $text hook of a command on `ns`: the search compiled against the collection's text
 * index, or IndexNotFound (27) as mongod answers when there is no collection or no text index.
 */
export function textSearchHook(
  ns: string,
  coll: Collection | undefined,
): (params: TextParams) => TextSearch {
  return (params) => {
    if (coll === undefined) {
      fail(
        ErrorCode.IndexNotFound,
        `text index required for $text query (no such collection '${ns}')`,
      );
    }
    const index = coll.indexes.find((i) => i.kind === 'text');
    if (index?.text === undefined)
      fail(ErrorCode.IndexNotFound, 'text index required for $text query');
    return compileTextSearch(index.text, params);
  };
}

function expressionsOf(options: FilterOptions): QueryExpressions {
  return options.expressions ?? queryExpressions({ let: options.variables });
}

/** A compiled filter; undefined for the empty filter (everything matches). */
export function compileQueryFilter(
  filter: BsonDocument,
  options: FilterOptions = {},
): DocumentFilter | undefined {
  const matcher = compileFilter(filter, {
    compileExpr: expressionsOf(options).compileExpr,
    compileWhere: expressionsOf(options).compileWhere,
    collator: options.collator,
    textSearch: options.textSearch,
  });
  return Object.keys(filter).length === 0 ? undefined : matcher;
}

export interface CompiledSort {
  readonly comparator?: RowComparator;
  readonly natural?: 1 | -1;
}

export function compileQuerySort(
  spec: BsonDocument | undefined,
  collator?: Collator,
): CompiledSort {
  if (spec === undefined || Object.keys(spec).length === 0) return {};
  const sort = compileSort(spec, collator);
  if (sort.natural !== undefined) return { natural: sort.natural };
  return { comparator: (a, b) => sort.compare(a, b) };
}

export interface QueryProjection {
  readonly transform: RowTransform;
  /**
   * The dotted paths the projection reads when an index key alone could answer it (an
   * inclusion of stored fields); undefined when it needs the document: exclusions, the
   * positional `$`, and computed fields (expressions are never covered here).
   */
  readonly coveredFields: readonly string[] | undefined;
  /** Whether it uses the positional `$` (which needs the filter's match). */
  readonly positional: boolean;
}

export interface ProjectionOptions extends FilterOptions {
  /**
   * The filter, matched again on the projected document for a positional `$` (findAndModify);
   * without it the position comes from the row's match details (find).
   */
  readonly matcher?: DocumentFilter | undefined;
}

/**
 * A find (or findAndModify `fields`) projection; aggregation expressions in it read the
 * command's variables. Undefined for no projection.
 */
export function compileQueryProjection(
  spec: BsonDocument | undefined,
  options: ProjectionOptions = {},
): QueryProjection | undefined {
  if (spec === undefined || Object.keys(spec).length === 0) return undefined;
  const expressions = expressionsOf(options);
  const projection = compileProjection(spec, {
    matcher: options.matcher,
    collator: options.collator,
    expressions: {
      compile: (e) => expressions.compileValue(e),
      isExpressionName: (n) => expressions.isExpressionName(n),
    },
  });
  return {
    transform: (row) => projection.apply(row.doc, row.details),
    coveredFields:
      projection.isInclusion && !projection.hasPositional ? projection.requiredFields : undefined,
    positional: projection.hasPositional,
  };
}

export interface UpdateOptions extends FilterOptions {
  readonly arrayFilters?: readonly BsonDocument[] | undefined;
  /** The statement's multi flag (replacements refuse it). */
  readonly multi?: boolean;
}

/**
 * An update (operators, replacement or pipeline) compiled once per statement. arrayFilters
 * and $pull conditions are parsed as mongod does, with $expr, $where and $text banned; a
 * pipeline reads the command's variables.
 */
export function compileQueryUpdate(
  spec: BsonDocument | BsonDocument[],
  options: UpdateOptions = {},
): CompiledUpdate {
  return compileUpdate(spec, {
    ...(options.arrayFilters === undefined ? {} : { arrayFilters: options.arrayFilters }),
    compileFilter: (f) => compileRestrictedFilter(f, { collator: options.collator }),
    multi: options.multi ?? false,
    collator: options.collator,
    compilePipeline: (pipeline) => {
      const { env, scope } = expressionsOf(options);
      return compileUpdatePipeline(pipeline, { env, scope });
    },
  });
}
