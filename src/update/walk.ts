// Applying an update tree to a document: the one traversal every operator shares.
//
// A node is applied to a location together with two paths: `taken`, the part of its path
// that exists in the document (the location is the element it leads to), and `toCreate`,
// the missing rest. A leaf that creates fields creates `toCreate`; once a child has created
// the missing path of its parent, the parent moves on to the created element, so that the
// next sibling finds it there ({$set: {"a.b": 1, "a.c": 2}} on {} builds a once).

import { setOwn } from '../bson/document.js';
import { isArray } from '../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../bson/types.js';
import { ErrorCode, fail, invariant } from '../errors.js';
import { formatElement } from '../bson/format.js';
import { applyModifier } from './modifier.js';
import { compareFieldNames } from './path.js';
import type { ApplyState, Loc } from './state.js';
import { mergeNodes } from './tree.js';
import type { ArrayNode, ObjectNode, UpdateNode } from './tree.js';

interface Cursor {
  loc: Loc;
  taken: readonly string[];
  toCreate: readonly string[];
}

export function applyNode(
  node: UpdateNode,
  loc: Loc,
  taken: readonly string[],
  toCreate: readonly string[],
  state: ApplyState,
): void {
  switch (node.kind) {
    case 'leaf':
      applyModifier(node.modifier, loc, taken, toCreate, state);
      return;
    case 'object':
      applyObjectNode(node, loc, taken, toCreate, state);
      return;
    case 'array':
      applyArrayNode(node, loc, taken, toCreate, state);
      return;
  }
}

/** Once a child created the cursor's missing path, continue from the created element. */
function advanceIfCreated(cursor: Cursor, state: ApplyState): void {
  const first = state.childOf(cursor.loc, cursor.toCreate[0] as string);
  if (first === undefined) return;
  let loc = first;
  const taken = [...cursor.taken, String(first.key)];
  for (const part of cursor.toCreate.slice(1)) {
    const next = state.childOf(loc, part);
    invariant(next !== undefined, 'an update path is created entirely or not at all');
    loc = next;
    taken.push(String(next.key));
  }
  cursor.loc = loc;
  cursor.taken = taken;
  cursor.toCreate = [];
}

function applyChild(child: UpdateNode, field: string, cursor: Cursor, state: ApplyState): void {
  if (cursor.toCreate.length === 0) {
    const childLoc = state.childOf(cursor.loc, field);
    if (childLoc !== undefined) {
      applyNode(child, childLoc, [...cursor.taken, String(childLoc.key)], [], state);
      return;
    }
  }
  applyNode(child, cursor.loc, cursor.taken, [...cursor.toCreate, field], state);
  if (cursor.toCreate.length > 0) advanceIfCreated(cursor, state);
}

function applyObjectNode(
  node: ObjectNode,
  loc: Loc,
  taken: readonly string[],
  toCreate: readonly string[],
  state: ApplyState,
): void {
  const matched = state.options.matchedField;
  let positionalPending = node.positional !== undefined;
  if (positionalPending && matched === undefined) {
    fail(
      ErrorCode.BadValue,
      'The positional operator did not find the match needed from the query.',
    );
  }
  const cursor: Cursor = { loc, taken, toCreate };
  for (const [name, child] of node.sorted()) {
    if (positionalPending && name === matched) {
      // `a.$` and `a.<matched index>` reach the same element: apply them as one subtree.
      let merged = node.mergedWithPositional.get(name);
      if (merged === undefined) {
        merged = mergeNodes(node.positional as UpdateNode, child, [
          ...cursor.taken,
          ...cursor.toCreate,
          name,
        ]);
        node.mergedWithPositional.set(name, merged);
      }
      applyChild(merged, name, cursor, state);
      positionalPending = false;
      continue;
    }
    if (positionalPending && compareFieldNames(matched as string, name) < 0) {
      applyChild(node.positional as UpdateNode, matched as string, cursor, state);
      positionalPending = false;
    }
    applyChild(child, name, cursor, state);
  }
  if (positionalPending)
    applyChild(node.positional as UpdateNode, matched as string, cursor, state);
}

function mergeForElement(
  node: ArrayNode,
  updates: readonly UpdateNode[],
  path: readonly string[],
): UpdateNode {
  let merged = updates[0] as UpdateNode;
  for (const next of updates.slice(1)) {
    let byRight = node.mergeCache.get(merged);
    if (byRight === undefined) {
      byRight = new Map();
      node.mergeCache.set(merged, byRight);
    }
    let result = byRight.get(next);
    if (result === undefined) {
      result = mergeNodes(merged, next, path);
      byRight.set(next, result);
    }
    merged = result;
  }
  return merged;
}

function applyArrayNode(
  node: ArrayNode,
  loc: Loc,
  taken: readonly string[],
  toCreate: readonly string[],
  state: ApplyState,
): void {
  if (toCreate.length > 0) {
    fail(
      ErrorCode.BadValue,
      `The path '${[...taken, ...toCreate].join('.')}' must exist in the document in order to apply array updates.`,
    );
  }
  const value = state.valueAt(loc) as BsonValue;
  if (!isArray(value)) {
    fail(
      ErrorCode.BadValue,
      `Cannot apply array updates to non-array element ${formatElement(String(loc.key), value)}`,
    );
  }
  const arr = state.own(loc) as BsonArray;
  // Which children apply to which element is decided on the array as it was, before any of
  // them changes it.
  const matching: UpdateNode[][] = [];
  for (let i = 0; i < arr.length; i++) {
    const element = arr[i] as BsonValue;
    const updates: UpdateNode[] = [];
    for (const [identifier, child] of node.sorted()) {
      if (identifier === '' || matchesArrayFilter(state, identifier, element)) updates.push(child);
    }
    matching.push(updates);
  }
  matching.forEach((updates, i) => {
    if (updates.length === 0) return;
    const path = [...taken, String(i)];
    applyNode(mergeForElement(node, updates, path), { container: arr, key: i }, path, [], state);
  });
}

/** An array filter {x: …} is matched against {x: <element>} (mongod's placeholder view). */
function matchesArrayFilter(state: ApplyState, identifier: string, element: BsonValue): boolean {
  const filter = state.options.arrayFilters.get(identifier);
  invariant(filter !== undefined, `array filter '${identifier}' was checked at parse time`);
  const wrapped: BsonDocument = {};
  setOwn(wrapped, identifier, element);
  return filter.matches(wrapped);
}
