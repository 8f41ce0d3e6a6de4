// The comparison core every comparing operator shares ($eq $ne $gt $gte $lt $lte $in $nin $all,
// equality in $elemMatch): mongod's ComparisonMatchExpression::matchesSingleElement.
//
// Values compare only within their canonical type ("type bracketing": {$gt: 5} never matches
// a string), with these exceptions, as in mongod:
// - null, undefined and a missing field share a bracket for $eq/$lte/$gte: {a: null} matches
//   a missing `a` and an undefined one (mongod 7.0; 8.0 dropped undefined);
// - MinKey/MaxKey bounds: {$lt: MaxKey} matches every value and a missing field,
//   {$gt: MinKey} likewise;
// - NaN equals NaN, and an ordering comparison involving NaN is false except $lte/$gte of two
//   NaNs.
// Within a bracket, compareBson (the total order) decides, so 1 == 1.0 == 1L == 1.0m.

import { compareBson, sortedBson } from '../../bson/compare.js';
import type { Collator } from '../../bson/collation.js';
import { Decimal128, Double, MaxKey, MinKey, canonicalTypeRank } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { MISSING } from '../../bson/path.js';
import type { PathValue } from '../../bson/path.js';

export type ComparisonOp = 'eq' | 'lt' | 'lte' | 'gt' | 'gte';

// The collation of the filter being parsed. Tests are closures built while parsing, so they
// capture it then; parseFilter sets it for the duration of one (synchronous) parse.
let parseCollator: Collator | undefined;

/** Runs `fn` (a parse) with the collation its comparisons capture. */
export function withParseCollator<T>(collator: Collator | undefined, fn: () => T): T {
  const outer = parseCollator;
  parseCollator = collator;
  try {
    return fn();
  } finally {
    parseCollator = outer;
  }
}

/** The bracket of a value; a missing field sits with undefined (mongod's EOO rank 0). */
function rankOf(v: PathValue): number {
  return v === MISSING ? 0 : canonicalTypeRank(v);
}

const NULL_RANK_SUM = 5; // null (5) + undefined/missing (0)

function isNaNValue(v: PathValue): boolean {
  if (v instanceof Double) return Number.isNaN(v.value);
  if (v instanceof Decimal128) return v.toString().endsWith('NaN');
  return false;
}

function acrossBrackets(
  op: ComparisonOp,
  lhsRank: number,
  rhs: BsonValue,
  rhsRank: number,
): boolean {
  if (lhsRank + rhsRank === NULL_RANK_SUM) return op === 'eq' || op === 'lte' || op === 'gte';
  if (rhs instanceof MaxKey) return op === 'lt' || op === 'lte';
  if (rhs instanceof MinKey) return op === 'gt' || op === 'gte';
  return false;
}

function orderingHolds(op: ComparisonOp, c: number): boolean {
  switch (op) {
    case 'eq':
      return c === 0;
    case 'lt':
      return c < 0;
    case 'lte':
      return c <= 0;
    case 'gt':
      return c > 0;
    case 'gte':
      return c >= 0;
  }
}

/** The value test of `{path: {<op>: rhs}}` for one reached value. */
export function comparisonTest(op: ComparisonOp, rhs: BsonValue): (v: PathValue) => boolean {
  const rhsRank = canonicalTypeRank(rhs);
  const rhsNaN = isNaNValue(rhs);
  const collator = parseCollator;
  return (v) => {
    const lhsRank = rankOf(v);
    if (lhsRank !== rhsRank) return acrossBrackets(op, lhsRank, rhs, rhsRank);
    if (v === MISSING) return false; // only reachable for an undefined rhs, which parsing refuses
    if (op !== 'eq' && (rhsNaN || isNaNValue(v))) {
      return (op === 'lte' || op === 'gte') && rhsNaN && isNaNValue(v);
    }
    return orderingHolds(op, compareBson(v, rhs, collator));
  };
}

/**
 * The value test of $in: equality with any listed value (binary search over the values
 * sorted by compareBson), a listed null also matching missing and undefined, or any listed
 * regex matching.
 */
export function inTest(
  values: readonly BsonValue[],
  regexes: ReadonlyArray<(v: PathValue) => boolean>,
): (v: PathValue) => boolean {
  const collator = parseCollator;
  const sorted = sortedBson(values, collator);
  const hasNull = values.some((x) => x === null);
  return (v) => {
    if (hasNull && (v === MISSING || v === undefined)) return true;
    if (v !== MISSING && sortedContains(sorted, v, collator)) return true;
    for (const r of regexes) if (r(v)) return true;
    return false;
  };
}

function sortedContains(
  sorted: readonly BsonValue[],
  v: BsonValue,
  collator: Collator | undefined,
): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareBson(sorted[mid] as BsonValue, v, collator);
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
