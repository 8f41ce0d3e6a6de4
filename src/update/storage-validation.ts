// What mongod checks before it stores a document written by an update
// (storage_validation.cpp, FCV 5.0+):
//
// - nesting depth: no element deeper than limits.bsonDepthMax (Overflow);
// - top-level field names starting with '$' are refused, except a well-formed DBRef
//   ($ref, $id, $db in that order); nested ones are allowed since 5.0. Inserts (upserts)
//   allow them at the top level too;
// - `_id` may not be an array, a regex or undefined, and may not contain '$'-prefixed names.
//
// Op-style updates check only the elements they modified; replacements and upserts check
// the whole document.

import { bsonTypeName, isArray } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { limits } from '../limits.js';
import { ErrorCode, fail } from '../errors.js';
import { isObjectLike } from './state.js';
import { asDocument } from '../bson/types.js';

export interface ScanOptions {
  /** Refuse '$'-prefixed names at the top level (updates of stored documents). */
  readonly checkTopLevelDollar: boolean;
}

function depthError(): never {
  fail(ErrorCode.Overflow, `Document exceeds maximum nesting depth of ${limits.bsonDepthMax}`);
}

/**
 * Check one element and everything below it. `level` is the element's depth: 1 for a
 * top-level field. `container` and `name` locate it so that DBRef siblings can be checked.
 */
export function scanElement(
  value: BsonValue,
  level: number,
  place: {
    readonly container: BsonDocument | readonly BsonValue[] | null;
    readonly name: string;
    readonly fullName: string;
  },
  options: ScanOptions,
): void {
  if (level > limits.bsonDepthMax) depthError();
  const childOfArray = Array.isArray(place.container);
  if (
    place.name.startsWith('$') &&
    !childOfArray &&
    level === 1 &&
    options.checkTopLevelDollar &&
    place.container !== null
  ) {
    validateDollarPrefixElement(place.container as BsonDocument, place.name, place.fullName);
  }
  scanChildren(value, level, place.fullName);
}

/** Depth below an element. mongod checks '$' names only at the top level, so this is depth only. */
function scanChildren(value: BsonValue, level: number, fullName: string): void {
  if (isArray(value)) {
    if (value.length > 0 && level + 1 > limits.bsonDepthMax) depthError();
    for (const item of value) scanChildren(item as BsonValue, level + 1, fullName);
    return;
  }
  const doc = isObjectLike(value) ? asDocument(value) : undefined;
  if (doc === undefined) return;
  const keys = Object.keys(doc);
  if (keys.length > 0 && level + 1 > limits.bsonDepthMax) depthError();
  for (const k of keys) scanChildren(doc[k] as BsonValue, level + 1, fullName);
}

function siblingsOf(container: BsonDocument): string[] {
  return Object.keys(container);
}

/** A top-level '$' name is fine only as part of a DBRef ($ref, then $id, then optional $db). */
function validateDollarPrefixElement(
  container: BsonDocument,
  name: string,
  fullName: string,
): void {
  const keys = siblingsOf(container);
  let index = keys.indexOf(name);
  let current = name;
  if (current === '$db') {
    const v = container['$db'] as BsonValue;
    if (typeof v !== 'string')
      fail(
        ErrorCode.InvalidDBRef,
        `The DBRef $db field must be a String, not a ${bsonTypeName(v)}`,
      );
    index -= 1;
    if (index < 0 || keys[index] !== '$id')
      fail(ErrorCode.InvalidDBRef, 'Found $db field without a $id before it, which is invalid.');
    current = '$id';
  }
  if (current === '$id') {
    index -= 1;
    if (index < 0 || keys[index] !== '$ref')
      fail(ErrorCode.InvalidDBRef, 'Found $id field without a $ref before it, which is invalid.');
    current = '$ref';
  }
  if (current === '$ref') {
    const v = container['$ref'] as BsonValue;
    if (typeof v !== 'string')
      fail(
        ErrorCode.InvalidDBRef,
        `The DBRef $ref field must be a String, not a ${bsonTypeName(v)}`,
      );
    if (keys[index + 1] !== '$id')
      fail(ErrorCode.InvalidDBRef, 'The DBRef $ref field must be followed by a $id field');
    return;
  }
  fail(
    ErrorCode.DollarPrefixedFieldName,
    `The dollar ($) prefixed field '${name}' in '${fullName}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
  );
}

/** storageValidIdField: the types `_id` may not have, and no '$' names inside it. */
export function validateIdField(id: BsonValue): void {
  const type = bsonTypeName(id);
  if (type === 'regex' || type === 'array' || type === 'undefined') {
    fail(ErrorCode.InvalidIdField, `The '_id' value cannot be of type ${type}`);
  }
  const doc = isObjectLike(id) ? asDocument(id) : undefined;
  if (doc !== undefined) {
    const problem = embeddedDollarProblem(doc, 0);
    if (problem !== undefined) {
      fail(
        ErrorCode.DollarPrefixedFieldName,
        `_id fields may not contain '$'-prefixed fields: ${problem} is not valid for storage.`,
      );
    }
  }
}

/** BSONObj::storageValidEmbedded: the first '$' name that is not part of a leading DBRef. */
function embeddedDollarProblem(
  doc: BsonDocument | readonly BsonValue[],
  depth: number,
): string | undefined {
  if (depth > limits.bsonDepthMax) depthError();
  const keys = Array.isArray(doc) ? doc.map((_, i) => String(i)) : Object.keys(doc);
  const valueOf = (k: string): BsonValue =>
    Array.isArray(doc) ? (doc[Number(k)] as BsonValue) : ((doc as BsonDocument)[k] as BsonValue);
  let i = 0;
  while (i < keys.length) {
    let name = keys[i] as string;
    if (name.startsWith('$')) {
      // Only a leading {$ref: <string>, $id: …[, $db: <string>]} may carry '$' names.
      if (i !== 0 || name !== '$ref' || typeof valueOf(name) !== 'string' || keys[1] !== '$id')
        return name;
      i = 2;
      const next = keys[2];
      if (next === undefined) return undefined;
      if (next === '$db' && typeof valueOf(next) === 'string') {
        i = 3;
        continue;
      }
      if (next.startsWith('$')) return next;
      name = next;
    }
    const v = valueOf(name);
    if (isArray(v)) {
      const p = embeddedDollarProblem(v, depth + 1);
      if (p !== undefined) return p;
    } else if (isObjectLike(v)) {
      const p = embeddedDollarProblem(asDocument(v) ?? {}, depth + 1);
      if (p !== undefined) return p;
    }
    i++;
  }
  return undefined;
}

/**
 * Whole-document check (replacements, upserts): `_id`, every top-level name, depth.
 * `checkTopLevelDollar` is false for documents about to be inserted.
 */
export function scanDocument(doc: BsonDocument, options: ScanOptions): void {
  for (const name of Object.keys(doc)) {
    const value = doc[name] as BsonValue;
    if (name === '_id') validateIdField(value);
    scanElement(value, 1, { container: doc, name, fullName: name }, options);
  }
}
