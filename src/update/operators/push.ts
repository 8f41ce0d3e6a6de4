// $push: append a value, or with {$each: [...]} several, optionally at $position, then
// $sort the array and $slice it. A missing field becomes the new array.

import { compareBson } from '../../bson/compare.js';
import type { Collator } from '../../bson/collation.js';
import { hasOwn } from '../../bson/document.js';
import { asDocument, bsonTypeName, isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../../bson/types.js';
import { isNumeric, toDouble } from '../../bson/numeric.js';
import { ErrorCode, fail } from '../../errors.js';
import { defineModifier, idForMessage, noop, ownedArray, updated } from '../modifier.js';
import type { ModifyResult } from '../modifier.js';
import { isObjectLike } from '../state.js';
import type { ModifierDefinition } from './definition.js';
import { parseIntegerArgument } from './integer-argument.js';
import { appendAll, insertAll } from '../../bson/arrays.js';

const clauses = new Set(['$each', '$slice', '$sort', '$position']);

/** How $sort orders elements: whole values, or by fields of subdocuments. */
export type SortSpec =
  | { readonly whole: true; readonly direction: 1 | -1 }
  | { readonly whole: false; readonly fields: ReadonlyArray<readonly [string, 1 | -1]> };

/** pattern_cmp::checkSortClause, shared with $sortArray's rules. */
export function parseSortPattern(pattern: BsonDocument): SortSpec {
  const keys = Object.keys(pattern);
  if (keys.length === 0)
    fail(ErrorCode.BadValue, 'The sort pattern is empty when it should be a set of fields.');
  const fields: Array<readonly [string, 1 | -1]> = [];
  for (const key of keys) {
    const v = pattern[key] as BsonValue;
    const order = isNumeric(v) ? toDouble(v) : 0;
    if (order !== 1 && order !== -1)
      fail(ErrorCode.BadValue, 'The sort element value must be either 1 or -1');
    if (key.length === 0) fail(ErrorCode.BadValue, 'The sort field cannot be empty');
    if (key.split('.').some((part) => part.length === 0)) {
      fail(ErrorCode.BadValue, `The sort field is a dotted field but has an empty part: ${key}`);
    }
    fields.push([key, order]);
  }
  return { whole: false, fields };
}

type Lookup = { readonly found: true; readonly value: BsonValue } | { readonly found: false };
const absent: Lookup = { found: false };

/** A field of a document, or of an array by its BSON field name ("0", "1", …). */
function fieldOf(container: BsonDocument | BsonArray, name: string): Lookup {
  if (isArray(container)) {
    if (!/^(0|[1-9][0-9]*)$/.test(name)) return absent;
    const i = Number(name);
    return i < container.length ? { found: true, value: container[i] as BsonValue } : absent;
  }
  return hasOwn(container, name) ? { found: true, value: container[name] as BsonValue } : absent;
}

/**
 * dotted_path_support::extractElementAtPath: the whole remaining path as a field name first,
 * then split at the first dot and descend into a non-empty subdocument or array.
 */
function extractAtPath(container: BsonDocument | BsonArray, path: string): Lookup {
  const direct = fieldOf(container, path);
  if (direct.found) return direct;
  const dot = path.indexOf('.');
  if (dot < 0) return absent;
  const sub = fieldOf(container, path.slice(0, dot));
  if (!sub.found) return absent;
  const next = isArray(sub.value)
    ? sub.value
    : isObjectLike(sub.value)
      ? asDocument(sub.value)
      : undefined;
  if (next === undefined || (isArray(next) ? next.length === 0 : Object.keys(next).length === 0))
    return absent;
  return extractAtPath(next, path.slice(dot + 1));
}

/** mongod's PatternElementCmp as a comparator (missing sort fields count as null). */
export function sortComparator(
  sort: SortSpec,
  collator?: Collator,
): (a: BsonValue, b: BsonValue) => number {
  if (sort.whole) return (a, b) => sort.direction * compareBson(a, b, collator);
  const keyOf = (v: BsonValue): BsonValue[] => {
    const doc: BsonDocument = isObjectLike(v) ? (asDocument(v) ?? {}) : { '': v };
    return sort.fields.map(([path]) => {
      const found = extractAtPath(doc, path);
      return found.found ? found.value : null;
    });
  };
  return (a, b) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    for (let i = 0; i < sort.fields.length; i++) {
      const c = compareBson(ka[i] as BsonValue, kb[i] as BsonValue, collator);
      if (c !== 0) return c * (sort.fields[i] as readonly [string, 1 | -1])[1];
    }
    return 0;
  };
}

interface PushSpec {
  readonly values: readonly BsonValue[];
  readonly position: bigint | undefined;
  readonly slice: bigint | undefined;
  readonly sort: SortSpec | undefined;
}

function parsePush(value: BsonValue): PushSpec {
  if (!isPlainDocument(value) || !hasOwn(value, '$each'))
    return { values: [value], position: undefined, slice: undefined, sort: undefined };
  for (const key of Object.keys(value)) {
    if (!clauses.has(key)) fail(ErrorCode.BadValue, `Unrecognized clause in $push: ${key}`);
  }
  const each = value['$each'] as BsonValue;
  if (!isArray(each)) {
    fail(
      ErrorCode.BadValue,
      `The argument to $each in $push must be an array but it was of type: ${bsonTypeName(each)}`,
    );
  }
  let slice: bigint | undefined;
  if (hasOwn(value, '$slice')) {
    const v = value['$slice'] as BsonValue;
    const parsed = parseIntegerArgument('$slice', v);
    if (!parsed.ok)
      fail(
        ErrorCode.BadValue,
        `The value for $slice must be an integer value but was given type: ${bsonTypeName(v)}`,
      );
    slice = parsed.value;
  }
  let sort: SortSpec | undefined;
  if (hasOwn(value, '$sort')) {
    const v = value['$sort'] as BsonValue;
    if (isPlainDocument(v)) {
      sort = parseSortPattern(v);
    } else if (isNumeric(v)) {
      const order = toDouble(v);
      if (order !== 1 && order !== -1)
        fail(ErrorCode.BadValue, 'The $sort element value must be either 1 or -1');
      sort = { whole: true, direction: order };
    } else {
      fail(
        ErrorCode.BadValue,
        'The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields',
      );
    }
  }
  let position: bigint | undefined;
  if (hasOwn(value, '$position')) {
    const v = value['$position'] as BsonValue;
    const parsed = parseIntegerArgument('$position', v);
    if (!parsed.ok)
      fail(
        ErrorCode.BadValue,
        `The value for $position must be an integer value, not of type: ${bsonTypeName(v)}`,
      );
    position = parsed.value;
  }
  return { values: [...each], position, slice, sort };
}

/** |v|, except that |INT64_MIN| is approximated by INT64_MAX as mongod does. */
function approximateAbs(v: bigint): bigint {
  return v < 0n ? (v === -(2n ** 63n) ? 2n ** 63n - 1n : -v) : v;
}

function performPush(arr: BsonArray, spec: PushSpec, collator: Collator | undefined): ModifyResult {
  let result: ModifyResult = noop;
  if (spec.values.length > 0) {
    const size = BigInt(arr.length);
    const pos = spec.position;
    if (size === 0n) {
      appendAll(arr, spec.values);
      result = updated;
    } else if (pos === undefined || pos > size) {
      appendAll(arr, spec.values);
      result = { kind: 'appended', from: Number(size) };
    } else if (pos > 0n) {
      insertAll(arr, Number(pos), spec.values);
      result = updated;
    } else if (pos < 0n && approximateAbs(pos) < size) {
      insertAll(arr, Number(size - approximateAbs(pos)), spec.values);
      result = updated;
    } else {
      insertAll(arr, 0, spec.values);
      result = updated;
    }
  }
  if (spec.sort !== undefined) {
    // mongod sorts the children in place and reports a change even if the order was already
    // right. Its std::sort is not stable; ours is, which is one of its possible outcomes.
    arr.sort(sortComparator(spec.sort, collator));
    result = updated;
  }
  if (spec.slice !== undefined) {
    const keep = approximateAbs(spec.slice);
    if (BigInt(arr.length) > keep) {
      const drop = arr.length - Number(keep);
      if (spec.slice >= 0n) arr.splice(Number(keep), drop);
      else arr.splice(0, drop);
      result = updated;
    }
  }
  return result;
}

export const $push: ModifierDefinition = {
  name: '$push',
  parse(_path, value, env) {
    const spec = parsePush(value);
    return defineModifier({
      name: '$push',
      updateExisting(target) {
        if (!isArray(target.value)) {
          fail(
            ErrorCode.BadValue,
            `The field '${target.path.join('.')}' must be an array but is of type ${bsonTypeName(target.value)} in document {${idForMessage(target.state, 'no id')}}`,
          );
        }
        return performPush(ownedArray(target), spec, env.collator);
      },
      valueForNew(state) {
        const arr: BsonArray = [];
        performPush(arr, spec, env.collator);
        state.adopt(arr);
        return arr;
      },
    });
  },
};
