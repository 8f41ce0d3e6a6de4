// Applying a parsed projection to a document, as mongod's inclusion and exclusion executors
// do (src/mongo/db/exec/inclusion_projection_executor.cpp, exclusion_projection_executor.cpp):
//
// - inclusion keeps the included fields in the document's order, descends into subdocuments
//   and arrays of subdocuments (dropping scalars found there), then adds computed fields in
//   the specification's order ($elemMatch results among them, hence after the kept fields);
// - exclusion copies the document without the excluded fields, descending the same way.

import { MISSING, isMissing } from '../../bson/path.js';
import { asDocument, isArray } from '../../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../../bson/types.js';
import { getOwn, setOwn } from '../../bson/document.js';
import type { MatchDetails, Matcher } from '../match/index.js';
import { hasComputed } from './tree.js';
import type { PathNode, ProjectionNode } from './tree.js';

function subDocument(v: BsonValue): BsonDocument | undefined {
  return isArray(v) ? undefined : asDocument(v);
}

/** Inclusion at one level; `root` is the whole input document, which expressions read. */
export function applyInclusion(
  node: PathNode,
  input: BsonDocument,
  root: BsonDocument,
): BsonDocument {
  const out: BsonDocument = {};
  for (const [name, value] of Object.entries(input)) {
    const child = node.children.get(name);
    if (child === undefined) continue;
    const kept = includeValue(child, value, root);
    if (!isMissing(kept)) setOwn(out, name, kept);
  }
  addComputed(node, input, out, root);
  return out;
}

function includeValue(
  child: ProjectionNode,
  value: BsonValue,
  root: BsonDocument,
): BsonValue | typeof MISSING {
  switch (child.kind) {
    case 'include':
    case 'slice':
    case 'positional':
      return value;
    case 'path':
      return includeNested(child, value, root);
    default:
      return MISSING; // excluded _id, or computed later
  }
}

function includeNested(
  node: PathNode,
  value: BsonValue,
  root: BsonDocument,
): BsonValue | typeof MISSING {
  const sub = subDocument(value);
  if (sub !== undefined) return applyInclusion(node, sub, root);
  if (isArray(value)) return includeArray(node, value, root);
  return MISSING;
}

function includeArray(node: PathNode, arr: BsonArray, root: BsonDocument): BsonArray {
  const out: BsonArray = [];
  for (const el of arr) {
    if (isArray(el)) out.push(includeArray(node, el, root));
    else if (subDocument(el) !== undefined)
      out.push(applyInclusion(node, subDocument(el) as BsonDocument, root));
    else if (hasComputed(node)) out.push(applyInclusion(node, {}, root)); // computed fields replace scalars
  }
  return out;
}

/** Computed fields of this level, and nested levels that only computed fields create. */
function addComputed(
  node: PathNode,
  input: BsonDocument,
  out: BsonDocument,
  root: BsonDocument,
): void {
  for (const [name, child] of node.children) {
    if (child.kind === 'computed') {
      const v = child.compute(root);
      if (!isMissing(v)) setOwn(out, name, v);
    } else if (child.kind === 'elemMatch') {
      const v = elemMatchValue(child.matcher, root, name);
      if (!isMissing(v)) setOwn(out, name, v);
    } else if (child.kind === 'path' && hasComputed(child)) {
      const existing = getOwn(input, name);
      if (existing === undefined || (subDocument(existing) === undefined && !isArray(existing))) {
        setOwn(out, name, applyInclusion(child, {}, root));
      }
    }
  }
}

/** find's $elemMatch projection: the first matching element as a one-element array, else nothing. */
export function elemMatchValue(
  matcher: Matcher,
  doc: BsonDocument,
  field: string,
): BsonValue | typeof MISSING {
  const details: MatchDetails = {};
  if (!matcher.matches(doc, details) || details.elemMatchKey === undefined) return MISSING;
  const arr = getOwn(doc, field);
  const index = Number(details.elemMatchKey);
  return isArray(arr) && index < arr.length ? [arr[index] as BsonValue] : MISSING;
}

/** Exclusion at one level. */
export function applyExclusion(node: PathNode, input: BsonDocument): BsonDocument {
  const out: BsonDocument = {};
  for (const [name, value] of Object.entries(input)) {
    const child = node.children.get(name);
    if (child?.kind === 'exclude') continue;
    setOwn(out, name, child?.kind === 'path' ? excludeNested(child, value) : value);
  }
  return out;
}

function excludeNested(node: PathNode, value: BsonValue): BsonValue {
  const sub = subDocument(value);
  if (sub !== undefined) return applyExclusion(node, sub);
  if (isArray(value)) return value.map((el) => excludeNested(node, el));
  return value;
}
