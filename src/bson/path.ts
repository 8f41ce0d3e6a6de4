// Dotted paths over documents, with MongoDB's array semantics.
//
// A path such as "a.b.c" names values inside a document. Arrays met on the way are traversed
// implicitly: "a.b" reaches `b` in every subdocument of an array `a`, and a numeric component
// ("a.0.b") may name an array position as well as a field called "0" (mongod tries both).
// The traversal below is a faithful port of the semantics of mongod's BSONElementIterator
// (src/mongo/db/matcher/path.cpp); the matcher, projection and sort build on it.
//
// `undefined` is a BSON value here (the deprecated undefined type, as decoded by `bson`), so a
// path that reaches nothing is reported as the distinct `MISSING` marker, never as undefined.

import { asDocument, isArray } from './types.js';
import type { BsonArray, BsonDocument, BsonValue } from './types.js';

/** What a path reaches when no value is there (mongod's EOO element). */
export const MISSING: unique symbol = Symbol('missing');
export type Missing = typeof MISSING;
/** A value reached by a path, or MISSING. */
export type PathValue = BsonValue | Missing;

const hasOwnProperty = Object.prototype.hasOwnProperty;

export function isMissing(v: PathValue): v is Missing {
  return v === MISSING;
}

/** "a.b.c" → ["a", "b", "c"]. Empty components are kept: mongod accepts them in filters. */
export function splitPath(path: string): string[] {
  return path.split('.');
}

/** A component made only of ASCII digits may name an array position (mongod's isAllDigits). */
export function isArrayIndexComponent(part: string): boolean {
  if (part.length === 0) return false;
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * An own field of a document, or MISSING. Never reads the prototype chain, so keys such as
 * `__proto__` are plain data.
 */
export function getField(doc: BsonDocument, name: string): PathValue {
  return hasOwnProperty.call(doc, name) ? (doc[name] as BsonValue) : MISSING;
}

/**
 * How the last component treats an array it reaches.
 * - `traverse`: each element, then the array itself (comparisons, $type, $exists, ...);
 * - `omitArray`: each element only;
 * - `whole`: the array itself only ($size, $elemMatch).
 */
export type LeafArrayMode = 'traverse' | 'omitArray' | 'whole';

/**
 * Called for every value a path reaches, with the array offset mongod records for the
 * positional operator: the index (as a string) in the outermost array that was traversed
 * implicitly, if any. Return true to stop the walk early.
 */
export type PathVisitor = (value: PathValue, arrayOffset: string | undefined) => boolean;

interface Stop {
  value: PathValue;
  /** Index of the component whose value is `value`; meaningful when `value` is an array. */
  index: number;
}

/**
 * Walks down subdocuments from component `start` until the path ends, a value is missing, a
 * scalar blocks the way (MISSING) or an array is met (mongod's getFieldDottedOrArray).
 */
function walkToArrayOrEnd(root: BsonDocument, parts: readonly string[], start: number): Stop {
  let doc: BsonDocument = root;
  const last = parts.length - 1;
  for (let i = start; i <= last; i++) {
    const v = getField(doc, parts[i] as string);
    if (v === MISSING || i === last || isArray(v)) return { value: v, index: i };
    const sub = asDocument(v);
    if (sub === undefined) return { value: MISSING, index: i };
    doc = sub;
  }
  return { value: root, index: last };
}

/**
 * Visits every value `parts` reaches in `root`, with mongod's semantics. `root` may be an
 * array when an $elemMatch treats an array element as a document: its fields are then the
 * positions "0", "1", ...
 */
export function forEachPathValue(
  root: BsonDocument | BsonArray,
  parts: readonly string[],
  mode: LeafArrayMode,
  visit: PathVisitor,
): boolean {
  if (parts.length === 0) return visit(root, undefined);
  const doc = isArray(root) ? arrayAsDocument(root) : root;
  return visitFrom(walkToArrayOrEnd(doc, parts, 0), parts, mode, visit, undefined);
}

function visitFrom(
  stop: Stop,
  parts: readonly string[],
  mode: LeafArrayMode,
  visit: PathVisitor,
  outerOffset: string | undefined,
): boolean {
  const v = stop.value;
  if (v === MISSING || !isArray(v)) return visit(v, outerOffset);
  const rest = stop.index + 1;
  if (rest === parts.length) return visitLeafArray(v, mode, visit, outerOffset);
  return visitInnerArray(v, parts, rest, mode, visit, outerOffset);
}

function visitLeafArray(
  arr: BsonArray,
  mode: LeafArrayMode,
  visit: PathVisitor,
  outer: string | undefined,
): boolean {
  if (mode === 'whole') return visit(arr, outer);
  for (let k = 0; k < arr.length; k++) {
    if (visit(arr[k] as BsonValue, outer ?? String(k))) return true;
  }
  return mode === 'traverse' ? visit(arr, outer) : false;
}

/**
 * An array in the middle of the path: the rest of the path applies to every subdocument
 * element; a numeric next component also selects the element at that position. Scalars in
 * the array reach nothing, and the array itself is never a result.
 */
function visitInnerArray(
  arr: BsonArray,
  parts: readonly string[],
  rest: number,
  mode: LeafArrayMode,
  visit: PathVisitor,
  outer: string | undefined,
): boolean {
  const next = parts[rest] as string;
  const positional = isArrayIndexComponent(next);
  const afterIndex = rest + 1;
  for (let k = 0; k < arr.length; k++) {
    const el = arr[k] as BsonValue;
    const key = String(k);
    const sub = asDocument(el);
    if (sub !== undefined) {
      if (visitFrom(walkToArrayOrEnd(sub, parts, rest), parts, mode, visit, outer ?? key))
        return true;
    }
    if (!positional || next !== key) continue;
    // The element named by position: not an implicit traversal, so it carries no offset of
    // its own (only an enclosing array's).
    if (afterIndex === parts.length) {
      if (visit(el, outer)) return true;
    } else if (sub !== undefined) {
      if (visitFrom(walkToArrayOrEnd(sub, parts, afterIndex), parts, mode, visit, outer))
        return true;
    } else if (isArray(el)) {
      if (visitFrom({ value: el, index: rest }, parts, mode, visit, outer)) return true;
    }
  }
  return false;
}

/** An array seen as a document whose fields are its positions ("0", "1", ...). */
export function arrayAsDocument(arr: BsonArray): BsonDocument {
  const doc: BsonDocument = {};
  for (let k = 0; k < arr.length; k++) doc[String(k)] = arr[k] as BsonValue;
  return doc;
}

/**
 * The value at a dotted path without implicit array traversal: subdocuments are entered by
 * name, arrays by a numeric component. Used where mongod reads a single value
 * (e.g. Document::getNestedField), not where the matcher traverses arrays.
 */
export function getPathValue(doc: BsonDocument, path: string | readonly string[]): PathValue {
  const parts = typeof path === 'string' ? splitPath(path) : path;
  let cur: BsonValue = doc;
  for (const part of parts) {
    if (isArray(cur)) {
      if (!isArrayIndexComponent(part)) return MISSING;
      const i = Number(part);
      if (String(i) !== part || i >= cur.length) return MISSING;
      cur = cur[i] as BsonValue;
      continue;
    }
    const sub = asDocument(cur);
    if (sub === undefined) return MISSING;
    const v = getField(sub, part);
    if (v === MISSING) return MISSING;
    cur = v;
  }
  return cur;
}
