// Field paths of update operators: parsing, the checks mongod makes on them (fieldchecker),
// array indexes, and the order in which sibling fields are applied.

import { compareStrings } from '../bson/compare.js';
import { ErrorCode, fail } from '../errors.js';

/** A path such as "a.b.0" split into its parts. */
export function splitPath(path: string): string[] {
  return path.split('.');
}

/**
 * Longest update path we accept, in parts. mongod has no such limit, but a path is walked
 * recursively here and a path longer than this could only ever reach a nesting depth that
 * storage refuses (100), so nothing valid is lost.
 */
export const updatePathPartsMax = 1000;

/** fieldchecker::isUpdatable: no empty path, no empty part. */
export function checkUpdatable(path: string, parts: readonly string[]): void {
  if (path.length === 0) fail(ErrorCode.EmptyFieldName, 'An empty update path is not valid.');
  for (const part of parts) {
    if (part.length === 0) {
      fail(
        ErrorCode.EmptyFieldName,
        `The update path '${path}' contains an empty field name, which is not allowed.`,
      );
    }
  }
  if (parts.length > updatePathPartsMax) {
    fail(
      ErrorCode.Overflow,
      `The update path '${path.slice(0, 100)}...' has more than ${updatePathPartsMax} parts.`,
    );
  }
}

export function isPositionalPart(part: string): boolean {
  return part === '$';
}

/** `$[]` or `$[<identifier>]`. */
export function isArrayFilterPart(part: string): boolean {
  return part.length >= 3 && part.startsWith('$[') && part.endsWith(']');
}

/** The identifier inside `$[<identifier>]` ("" for `$[]`). */
export function arrayFilterIdentifier(part: string): string {
  return part.slice(2, -1);
}

/** The positional `$` may appear once, and never first. */
export function checkPositional(path: string, parts: readonly string[]): boolean {
  let count = 0;
  let first = -1;
  parts.forEach((part, i) => {
    if (isPositionalPart(part)) {
      if (count === 0) first = i;
      count++;
    }
  });
  if (count > 1)
    fail(ErrorCode.BadValue, `Too many positional (i.e. '$') elements found in path '${path}'`);
  if (count === 1 && first === 0) {
    fail(
      ErrorCode.BadValue,
      `Cannot have positional (i.e. '$') element in the first position in path '${path}'`,
    );
  }
  return count === 1;
}

function allDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * The array index a path part names when walking into an existing array (mongod's
 * parseUnsignedBase10Integer): digits only, no sign, leading zeros allowed, at most 2^32 - 1.
 */
export function parseArrayIndex(part: string): number | undefined {
  if (!allDigits(part)) return undefined;
  const n = Number(part);
  return n <= 0xffffffff ? n : undefined;
}

/**
 * The index a path part names when creating an element in an array (pathsupport's
 * isNumeric): digits only, any size. Large values are kept approximately, which is enough to
 * refuse them as too much padding.
 */
export function parseCreateIndex(part: string): number | undefined {
  return allDigits(part) ? Number(part) : undefined;
}

/**
 * The order in which sibling fields of an update are applied, and so the order in which new
 * fields are appended (mongod 5.0+, pathsupport::cmpPathsAndArrayIndexes): names that are
 * numbers without leading zeros compare as numbers, everything else by bytes.
 */
export function compareFieldNames(a: string, b: string): number {
  const aDigit = a.length > 0 && a.charCodeAt(0) >= 48 && a.charCodeAt(0) <= 57;
  const bDigit = b.length > 0 && b.charCodeAt(0) >= 48 && b.charCodeAt(0) <= 57;
  if (!aDigit || !bDigit || (a[0] === '0' && a.length > 1) || (b[0] === '0' && b.length > 1)) {
    return compareStrings(a, b);
  }
  // Both start with a digit: a longer one is larger (more digits); equal lengths compare
  // digit by digit until a non-digit, then as strings.
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  for (let i = 0; i < a.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    const xd = x >= 48 && x <= 57;
    const yd = y >= 48 && y <= 57;
    if (!xd || !yd) break;
    if (x !== y) return x < y ? -1 : 1;
  }
  return compareStrings(a, b);
}
