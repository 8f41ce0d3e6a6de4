// Shared pieces of the $jsonSchema compiler: compiled checks, type restrictions, keyword
// error messages and the field-order-insensitive equality enum and uniqueItems use.

import { compareBson, compareStrings } from '../../../bson/compare.js';
import { getField, isMissing } from '../../../bson/path.js';
import type { PathValue } from '../../../bson/path.js';
import { asDocument, bsonTypeName, isArray } from '../../../bson/types.js';
import { isNumeric } from '../../../bson/numeric.js';
import type { BsonDocument, BsonValue } from '../../../bson/types.js';
import { ErrorCode, fail } from '../../../errors.js';

/** A compiled schema (or keyword) applied to a value, or to MISSING for an absent property. */
export type Check = (v: PathValue) => boolean;

export const alwaysTrue: Check = () => true;

export type RestrictionType = 'number' | 'string' | 'array' | 'object';

export function hasRestrictionType(type: RestrictionType, v: PathValue): boolean {
  if (isMissing(v)) return false;
  switch (type) {
    case 'number':
      return isNumeric(v);
    case 'string':
      return typeof v === 'string';
    case 'array':
      return isArray(v);
    case 'object':
      return !isArray(v) && asDocument(v) !== undefined;
  }
}

/**
 * A JSON Schema restriction applies only to values of its type (maxLength to strings, ...):
 * anything else, missing included, passes. This is mongod's makeRestriction; when the schema
 * states a type, that type is checked separately, which gives the same result.
 */
export function restrict(type: RestrictionType, check: Check): Check {
  return (v) => !hasRestrictionType(type, v) || check(v);
}

/** The subdocument view of an object value (a DBRef counts as an object). */
export function objectOf(v: PathValue): BsonDocument {
  return asDocument(v) ?? {};
}

export function field(doc: BsonDocument, name: string): PathValue {
  return getField(doc, name);
}

export function typeNameOf(v: BsonValue): string {
  return bsonTypeName(v);
}

export function typeMismatch(message: string): never {
  fail(ErrorCode.TypeMismatch, message);
}

export function failedToParse(message: string): never {
  fail(ErrorCode.FailedToParse, message);
}

/** A value with every embedded document's fields sorted, so equality ignores field order. */
export function canonical(v: BsonValue): BsonValue {
  if (isArray(v)) return v.map(canonical);
  const doc = asDocument(v);
  if (doc === undefined) return v;
  const out: BsonDocument = {};
  for (const key of Object.keys(doc).sort(compareStrings)) {
    Object.defineProperty(out, key, {
      value: canonical(doc[key] as BsonValue),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Whether sorted canonical values contain two equal neighbours. */
export function hasDuplicates(values: readonly BsonValue[]): boolean {
  const sorted = values.map(canonical).sort(compareBson);
  for (let i = 1; i < sorted.length; i++) {
    if (compareBson(sorted[i - 1] as BsonValue, sorted[i] as BsonValue) === 0) return true;
  }
  return false;
}
