// The query language as the commands use it: filter, sort and projection compiled once per
// request into the closures the plan stages call per document.

import type { BsonDocument } from '../bson/types.js';
import { compileFilter } from './match/index.js';
import { queryExprCompiler } from '../pipeline/index.js';
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
