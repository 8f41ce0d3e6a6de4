// The update tree (mongod's UpdateObjectNode / UpdateArrayNode / leaf nodes).
//
// Every modifier path of an update is merged into one tree keyed by path parts, whatever the
// operator: {$set: {"a.b": 1}, $inc: {"a.c": 1}} gives a → {b: $set, c: $inc}. Two paths
// that overlap (one is a prefix of the other, or equal) are a ConflictingUpdateOperators
// error at parse time. An object node's children apply in field-name order
// (compareFieldNames), which is why new fields appear in that order; the positional `$` is a
// separate child applied at the matched index. An array node (`$[]` / `$[<id>]`) keys its
// children by identifier ("" for `$[]`).

import { ErrorCode, fail } from '../errors.js';
import type { Modifier } from './modifier.js';
import { compareFieldNames } from './path.js';

export interface LeafNode {
  readonly kind: 'leaf';
  readonly modifier: Modifier;
}

export type UpdateNode = ObjectNode | ArrayNode | LeafNode;

function sortChildren(children: ReadonlyMap<string, UpdateNode>): Array<[string, UpdateNode]> {
  return [...children.entries()].sort(([a], [b]) => compareFieldNames(a, b));
}

export class ObjectNode {
  readonly kind = 'object';
  readonly children = new Map<string, UpdateNode>();
  positional: UpdateNode | undefined;
  private sortedChildren: Array<[string, UpdateNode]> | undefined;
  /** Merges of the positional child with a same-named child, built on first use. */
  readonly mergedWithPositional = new Map<string, UpdateNode>();

  getChild(name: string): UpdateNode | undefined {
    return name === '$' ? this.positional : this.children.get(name);
  }

  setChild(name: string, node: UpdateNode): void {
    if (name === '$') this.positional = node;
    else this.children.set(name, node);
    this.sortedChildren = undefined;
  }

  sorted(): ReadonlyArray<[string, UpdateNode]> {
    this.sortedChildren ??= sortChildren(this.children);
    return this.sortedChildren;
  }
}

export class ArrayNode {
  readonly kind = 'array';
  /** Keyed by array filter identifier; "" is `$[]` (every element). */
  readonly children = new Map<string, UpdateNode>();
  private sortedChildren: Array<[string, UpdateNode]> | undefined;
  /** Merges of the children that match one element, built on first use. */
  readonly mergeCache = new Map<UpdateNode, Map<UpdateNode, UpdateNode>>();

  getChild(name: string): UpdateNode | undefined {
    return this.children.get(name);
  }

  setChild(name: string, node: UpdateNode): void {
    this.children.set(name, node);
    this.sortedChildren = undefined;
  }

  sorted(): ReadonlyArray<[string, UpdateNode]> {
    this.sortedChildren ??= sortChildren(this.children);
    return this.sortedChildren;
  }
}

export type InternalNode = ObjectNode | ArrayNode;

function copyOrMerge(
  left: UpdateNode | undefined,
  right: UpdateNode | undefined,
  path: readonly string[],
): UpdateNode | undefined {
  if (left === undefined) return right;
  if (right === undefined) return left;
  return mergeNodes(left, right, path);
}

/**
 * Combine two subtrees that apply to the same element (the positional child and an explicit
 * index, or two array filters matching one element). Nodes are immutable after parsing, so
 * subtrees present on one side only are shared. Two leaves, or a leaf and a subtree, at the
 * same place are a conflict.
 */
export function mergeNodes(
  left: UpdateNode,
  right: UpdateNode,
  path: readonly string[],
): UpdateNode {
  if (left.kind === 'object' && right.kind === 'object') {
    const merged = new ObjectNode();
    for (const name of new Set([...left.children.keys(), ...right.children.keys()])) {
      const node = copyOrMerge(left.children.get(name), right.children.get(name), [...path, name]);
      if (node) merged.setChild(name, node);
    }
    const positional = copyOrMerge(left.positional, right.positional, [...path, '$']);
    if (positional) merged.setChild('$', positional);
    return merged;
  }
  if (left.kind === 'array' && right.kind === 'array') {
    const merged = new ArrayNode();
    for (const name of new Set([...left.children.keys(), ...right.children.keys()])) {
      const node = copyOrMerge(left.children.get(name), right.children.get(name), [
        ...path,
        `$[${name}]`,
      ]);
      if (node) merged.setChild(name, node);
    }
    return merged;
  }
  fail(ErrorCode.ConflictingUpdateOperators, `Update created a conflict at '${path.join('.')}'`);
}
