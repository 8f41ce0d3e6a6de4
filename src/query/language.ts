// The query language as the commands use it: filter, sort and projection compiled once per
// request into the closures the plan stages call per document.

import type { BsonDocument } from '../bson/types.js';
import { compileFilter, compileRestrictedFilter } from './match/index.js';
import { compileUpdatePipeline, queryExprCompiler } from '../pipeline/index.js';
import { compileUpdate } from '../update/index.js';
import type { CompiledUpdate } from '../update/index.js';
import { compileProjection } from './projection/index.js';
import { compileSort } from './sort.js';
import type { DocumentFilter, RowComparator, RowTransform } from './exec/stages.js';

export interface FilterOptions {
  /** `let` variables of the command, visible to `$expr`. */
  readonly variables?: BsonDocument | undefined;
}

/** A compiled filter; undefined for the empty filter (everything matches). */
export function compileQueryFilter(filter: BsonDocument, options: FilterOptions = {}): DocumentFilter | undefined {
  const matcher = compileFilter(filter, { compileExpr: queryExprCompiler(options.variables) });
  return Object.keys(filter).length === 0 ? undefined : matcher;
}

export interface CompiledSort {
  readonly comparator?: RowComparator;
  readonly natural?: 1 | -1;
}

export function compileQuerySort(spec: BsonDocument | undefined): CompiledSort {
  if (spec === undefined || Object.keys(spec).length === 0) return {};
  const sort = compileSort(spec);
  if (sort.natural !== undefined) return { natural: sort.natural };
  return { comparator: (a, b) => sort.compare(a, b) };
}

export function compileQueryProjection(spec: BsonDocument | undefined): RowTransform | undefined {
  if (spec === undefined || Object.keys(spec).length === 0) return undefined;
  const projection = compileProjection(spec);
  return (row) => projection.apply(row.doc, row.details);
}

export interface UpdateOptions {
  readonly arrayFilters?: readonly BsonDocument[] | undefined;
  /** The statement's multi flag (replacements refuse it). */
  readonly multi?: boolean;
  /** `let` variables of the command, visible to pipeline updates. */
  readonly variables?: BsonDocument | undefined;
}

/**
 * An update (operators, replacement or pipeline) compiled once per statement. arrayFilters
 * and $pull conditions are parsed as mongod does, with $expr, $where and $text banned.
 */
export function compileQueryUpdate(spec: BsonDocument | BsonDocument[], options: UpdateOptions = {}): CompiledUpdate {
  return compileUpdate(spec, {
    ...(options.arrayFilters === undefined ? {} : { arrayFilters: options.arrayFilters }),
    compileFilter: (f) => compileRestrictedFilter(f),
    multi: options.multi ?? false,
    compilePipeline: (pipeline) => compileUpdatePipeline(pipeline, { variables: options.variables }),
  });
}
