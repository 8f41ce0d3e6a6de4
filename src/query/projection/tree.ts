// The parsed form of a find projection (mongod's projection AST): a tree of path nodes whose
// leaves say what happens to a field.

import type { PathValue } from '../../bson/path.js';
import type { BsonDocument } from '../../bson/types.js';
import type { Matcher } from '../match/index.js';

export type ProjectionType = 'inclusion' | 'exclusion';

/** Computes a field from the whole input document; MISSING leaves the field out. */
export type ComputedValue = (doc: BsonDocument) => PathValue;

export type ProjectionLeaf =
  | { readonly kind: 'include' }
  | { readonly kind: 'exclude' }
  /** find's {$slice: n} / {$slice: [skip, n]}. */
  | { readonly kind: 'slice'; readonly skip: number | undefined; readonly limit: number }
  /** find's {$elemMatch: ...}: the first matching element, as a one-element array. */
  | { readonly kind: 'elemMatch'; readonly matcher: Matcher }
  /** "a.$": the array element that matched the query. */
  | { readonly kind: 'positional' }
  /** A literal or an expression. */
  | { readonly kind: 'computed'; readonly compute: ComputedValue };

export interface PathNode {
  readonly kind: 'path';
  readonly children: Map<string, ProjectionNode>;
}

export type ProjectionNode = ProjectionLeaf | PathNode;

export function newPathNode(): PathNode {
  return { kind: 'path', children: new Map() };
}

/** Whether a subtree computes values (it then creates its path even where the input has none). */
export function hasComputed(node: ProjectionNode): boolean {
  if (node.kind === 'computed') return true;
  if (node.kind !== 'path') return false;
  for (const child of node.children.values()) if (hasComputed(child)) return true;
  return false;
}
