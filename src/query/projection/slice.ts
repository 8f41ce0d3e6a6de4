// find's $slice and positional "$" projections, applied to the projected document
// (mongod's projection_executor_utils.cpp).

import { getField, isMissing } from '../../bson/path.js';
import { asDocument, isArray } from '../../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../../bson/types.js';
import { setOwn } from '../../bson/document.js';
import { ErrorCode, fail } from '../../errors.js';

/**
 * The elements $slice keeps: `limit` from the start (or, negative, from the end); with a skip,
 * `limit` elements from `skip` (negative: counted from the end).
 */
export function sliceArray(arr: BsonArray, skip: number | undefined, limit: number): BsonArray {
  const len = arr.length;
  if (skip === undefined)
    return limit < 0 ? arr.slice(Math.max(0, len + limit)) : arr.slice(0, Math.min(len, limit));
  const start = skip < 0 ? Math.max(0, len + skip) : Math.min(len, skip);
  return arr.slice(start, start + Math.min(len - start, limit));
}

/** A copy of `doc` with $slice applied along `path`: through subdocuments and arrays of them. */
export function applySlice(
  doc: BsonDocument,
  path: readonly string[],
  skip: number | undefined,
  limit: number,
): BsonDocument {
  const [name, ...rest] = path as [string, ...string[]];
  const value = getField(doc, name);
  if (isMissing(value)) return doc;
  const sliced = sliceValue(value, rest, skip, limit);
  if (sliced === value) return doc;
  const out = { ...doc };
  setOwn(out, name, sliced);
  return out;
}

function sliceValue(
  value: BsonValue,
  rest: readonly string[],
  skip: number | undefined,
  limit: number,
): BsonValue {
  if (isArray(value)) {
    if (rest.length === 0) return sliceArray(value, skip, limit);
    // Nested arrays are kept as they are: {a: [[{b: 1}]]} has nothing at "a.b".
    return value.map((el) =>
      !isArray(el) && asDocument(el) !== undefined
        ? applySlice(asDocument(el) as BsonDocument, rest, skip, limit)
        : el,
    );
  }
  const sub = asDocument(value);
  if (sub === undefined || rest.length === 0) return value;
  return applySlice(sub, rest, skip, limit);
}

/**
 * "a.b.$": along the path, the first array met is replaced by the one element the query
 * matched (`key`). A path without an array is left alone; an array without a recorded
 * position is mongod's error 51246.
 */
export function applyPositional(
  doc: BsonDocument,
  path: readonly string[],
  key: string | undefined,
): BsonDocument {
  const [name, ...rest] = path as [string, ...string[]];
  const value = getField(doc, name);
  if (isMissing(value)) return doc;
  if (isArray(value)) {
    if (key === undefined)
      fail(
        ErrorCode.Location51246,
        "positional operator '.$' couldn't find a matching element in the array",
      );
    const index = Number(key);
    if (!(index < value.length))
      fail(ErrorCode.Location51247, "positional operator '.$' element mismatch");
    return withField(doc, name, [value[index] as BsonValue]);
  }
  const sub = asDocument(value);
  if (sub === undefined || rest.length === 0) return doc;
  return withField(doc, name, applyPositional(sub, rest, key));
}

function withField(doc: BsonDocument, name: string, value: BsonValue): BsonDocument {
  const out = { ...doc };
  setOwn(out, name, value);
  return out;
}
