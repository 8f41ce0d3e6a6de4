// Index bounds: for one index field, the ordered list of value intervals a predicate allows
// (mongod's OrderedIntervalList, src/mongo/db/query/index_bounds_builder.cpp).
//
// Bounds here only ever need to be a superset of the index keys of matching documents: the
// FETCH stage re-applies the whole filter to every document, so an interval may be wider
// than the predicate (a regex without a literal prefix scans all strings, `{a: null}` also
// scans undefined). What must never happen is a matching document whose keys all fall
// outside the bounds; the rules below keep that property for mongod's array semantics:
// comparisons are type-bracketed (a key of another type never matches), an equality with an
// array also matches documents holding its first element, and a comparison with an array
// operand (matched against whole arrays, which are not keys) is not indexable at all.
//
// Intervals are in ascending value order (compareBson = key order); a descending index field
// reverses them when they become byte ranges and when explain prints them.

import {
  Binary,
  BSONRegExp,
  Decimal128,
  Double,
  Int32,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';
import { compareBson, sortedBson } from '../../bson/compare.js';
import { formatBson } from '../../bson/format.js';
import { bsonTypeName, canonicalTypeRank, isArray } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import type { MatchNode, PathNode } from '../match/index.js';
import { sliceDue } from '../exec/yield.js';

export interface Endpoint {
  readonly value: BsonValue;
  readonly inclusive: boolean;
  /** How explain shows this endpoint when it differs from the value (bracket ends). */
  readonly display?: string;
  readonly displayInclusive?: boolean;
}

export interface Interval {
  readonly low: Endpoint;
  readonly high: Endpoint;
}

const minKey = new MinKey();
const maxKey = new MaxKey();

function incl(value: BsonValue, display?: string): Endpoint {
  return display === undefined ? { value, inclusive: true } : { value, inclusive: true, display };
}
function excl(value: BsonValue, display?: string, displayInclusive?: boolean): Endpoint {
  return {
    value,
    inclusive: false,
    ...(display === undefined ? {} : { display }),
    ...(displayInclusive === undefined ? {} : { displayInclusive }),
  };
}

export const fullInterval: Interval = { low: incl(minKey), high: incl(maxKey) };

export function point(v: BsonValue): Interval {
  return { low: incl(v), high: incl(v) };
}

export function isFullRange(list: readonly Interval[]): boolean {
  return (
    list.length === 1 &&
    list[0]?.low.value instanceof MinKey &&
    list[0].low.inclusive &&
    list[0].high.value instanceof MaxKey &&
    list[0].high.inclusive
  );
}

export function isPoint(iv: Interval): boolean {
  return iv.low.inclusive && iv.high.inclusive && compareBson(iv.low.value, iv.high.value) === 0;
}

// ---- type brackets ---------------------------------------------------------------------------

const negInf = new Double(-Infinity);
const posInf = new Double(Infinity);

/** Where a canonical type's values begin and end, for a range open on one side. */
interface Bracket {
  readonly low: Endpoint;
  readonly high: Endpoint;
}

function bracketOf(v: BsonValue): Bracket | undefined {
  switch (canonicalTypeRank(v)) {
    case 10:
      return { low: incl(negInf), high: incl(posInf) };
    case 15:
      return { low: incl(''), high: excl({}) };
    case 20:
      return { low: incl({}), high: excl([]) };
    case 30:
      return {
        low: incl(new Binary(new Uint8Array(0), 0)),
        high: excl(new ObjectId('000000000000000000000000')),
      };
    case 35:
      return {
        low: incl(new ObjectId('000000000000000000000000')),
        high: incl(new ObjectId('ffffffffffffffffffffffff')),
      };
    case 40:
      return { low: incl(false), high: incl(true) };
    case 45:
      // Dates beyond JavaScript's range decode as invalid dates, which sort first: bound the
      // bracket by its neighbours instead of by extreme dates.
      return {
        low: excl(true, 'new Date(-9223372036854775808)', true),
        high: excl(new Timestamp({ t: 0, i: 0 }), 'new Date(9223372036854775807)', true),
      };
    case 47:
      return {
        low: incl(new Timestamp({ t: 0, i: 0 })),
        high: incl(new Timestamp({ t: 0xffffffff, i: 0xffffffff })),
      };
    default:
      return undefined;
  }
}

function isNaNValue(v: BsonValue): boolean {
  if (v instanceof Double) return Number.isNaN(v.value);
  if (v instanceof Decimal128) return v.toString().endsWith('NaN');
  return false;
}

// ---- normal form -------------------------------------------------------------------------------

function compareLow(a: Endpoint, b: Endpoint): number {
  const c = compareBson(a.value, b.value);
  if (c !== 0) return c;
  return a.inclusive === b.inclusive ? 0 : a.inclusive ? -1 : 1;
}

function compareHigh(a: Endpoint, b: Endpoint): number {
  const c = compareBson(a.value, b.value);
  if (c !== 0) return c;
  return a.inclusive === b.inclusive ? 0 : a.inclusive ? 1 : -1;
}

function isEmpty(iv: Interval): boolean {
  const c = compareBson(iv.low.value, iv.high.value);
  return c > 0 || (c === 0 && !(iv.low.inclusive && iv.high.inclusive));
}

/** Sorted, disjoint, non-empty intervals covering the union of the given ones. */
export function normalize(list: readonly Interval[]): Interval[] {
  const sorted = list.filter((iv) => !isEmpty(iv)).sort((a, b) => compareLow(a.low, b.low));
  const out: Interval[] = [];
  for (const iv of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined) {
      const c = compareBson(iv.low.value, last.high.value);
      if (c < 0 || (c === 0 && (iv.low.inclusive || last.high.inclusive))) {
        if (compareHigh(iv.high, last.high) > 0)
          out[out.length - 1] = { low: last.low, high: iv.high };
        continue;
      }
    }
    out.push(iv);
  }
  return out;
}

/**
 * The intersection of two interval lists: both normalized (sorted, disjoint), then swept
 * together, so a list of n points against m intervals costs O((n + m) log(n + m)).
 */
export function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const xs = normalize(a);
  const ys = normalize(b);
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < xs.length && j < ys.length) {
    const x = xs[i] as Interval;
    const y = ys[j] as Interval;
    const low = compareLow(x.low, y.low) >= 0 ? x.low : y.low;
    const high = compareHigh(x.high, y.high) <= 0 ? x.high : y.high;
    const iv = { low, high };
    if (!isEmpty(iv)) out.push(iv);
    // The interval that ends first cannot meet anything after the other one.
    if (compareHigh(x.high, y.high) <= 0) i++;
    else j++;
  }
  return normalize(out);
}

/** The complement of a set of points within [MinKey, MaxKey]. */
function complementOfPoints(points: readonly BsonValue[]): Interval[] {
  const sorted = normalize(points.map(point));
  const out: Interval[] = [];
  let low: Endpoint = incl(minKey);
  for (const p of sorted) {
    out.push({ low, high: excl(p.low.value) });
    low = excl(p.high.value);
  }
  out.push({ low, high: incl(maxKey) });
  return normalize(out);
}

// ---- predicates → intervals ---------------------------------------------------------------------

/** Bounds of an equality: exact for scalars; an array also finds documents by its first element. */
function equalityBounds(v: BsonValue): Interval[] {
  if (v === null) return [point(undefined), point(null)];
  if (isArray(v)) {
    if (v.length === 0) return normalize([point(undefined), point([])]);
    return normalize([point(v[0] as BsonValue), point(v)]);
  }
  return [point(v)];
}

function comparisonBounds(op: 'lt' | 'lte' | 'gt' | 'gte', v: BsonValue): Interval[] | undefined {
  if (isArray(v)) return undefined;
  if (v instanceof MinKey) {
    if (op === 'gt') return [{ low: excl(minKey), high: incl(maxKey) }];
    if (op === 'gte') return [fullInterval];
    return op === 'lte' ? [point(minKey)] : [];
  }
  if (v instanceof MaxKey) {
    if (op === 'lt') return [{ low: incl(minKey), high: excl(maxKey) }];
    if (op === 'lte') return [fullInterval];
    return op === 'gte' ? [point(maxKey)] : [];
  }
  if (v === null) return op === 'lte' || op === 'gte' ? [point(undefined), point(null)] : [];
  if (isNaNValue(v)) return op === 'lte' || op === 'gte' ? [point(v)] : [];
  const bracket = bracketOf(v);
  if (bracket === undefined) return undefined;
  switch (op) {
    case 'gt':
      return normalize([{ low: excl(v), high: bracket.high }]);
    case 'gte':
      return normalize([{ low: incl(v), high: bracket.high }]);
    case 'lt':
      return normalize([{ low: bracket.low, high: excl(v) }]);
    case 'lte':
      return normalize([{ low: bracket.low, high: incl(v) }]);
  }
}

/**
 * The literal prefix a regex requires, as mongod's simpleRegex finds it: `^` then plain
 * characters, no alternation, no flags that change what `^` or a character means.
 */
export function regexPrefix(pattern: string, flags: string): string | undefined {
  if (/[imx]/.test(flags)) return undefined;
  let rest: string;
  if (pattern.startsWith('^')) rest = pattern.slice(1);
  else if (pattern.startsWith('\\A')) rest = pattern.slice(2);
  else return undefined;
  if (pattern.includes('|')) return undefined;
  let prefix = '';
  let i = 0;
  for (; i < rest.length; i++) {
    const c = rest[i] as string;
    if ('\\^$.[]()*+?{}|'.includes(c)) break;
    prefix += c;
  }
  // A quantifier that allows zero occurrences takes the last character back.
  const next = rest[i];
  if (next === '*' || next === '?' || next === '{') prefix = [...prefix].slice(0, -1).join('');
  return prefix;
}

function successor(s: string): string | undefined {
  const chars = [...s];
  while (chars.length > 0) {
    const last = (chars.pop() as string).codePointAt(0) as number;
    if (last < 0x10ffff) {
      let next = last + 1;
      if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
      return chars.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

function regexBounds(pattern: string, flags: string): Interval[] {
  const regexPoint = point(new BSONRegExp(pattern, flags));
  const prefix = regexPrefix(pattern, flags);
  if (prefix === undefined || prefix === '')
    return normalize([{ low: incl(''), high: excl({}) }, regexPoint]);
  const next = successor(prefix);
  const strings: Interval =
    next === undefined
      ? { low: incl(prefix), high: excl({}) }
      : { low: incl(prefix), high: excl(next) };
  return normalize([strings, regexPoint]);
}

/** Values an equality-like predicate pins exactly (for complements), or undefined. */
function exactPoints(node: MatchNode): BsonValue[] | undefined {
  if (node.kind === 'eq') {
    if (isArray(node.value) || node.value instanceof BSONRegExp) return undefined;
    return [node.value];
  }
  if (node.kind === 'in') {
    if (node.regexes.length > 0 || node.values.some((v) => isArray(v) || v instanceof BSONRegExp))
      return undefined;
    return [...node.values];
  }
  return undefined;
}

export interface LeafBounds {
  readonly intervals: Interval[];
  /** True for [MinKey, MaxKey] bounds that only say the field exists ($exists: true). */
  readonly existsOnly?: boolean;
  /**
   * True when the bounds leave out the null key ($ne: null, $nin: [null, ...]). On a multikey
   * path that is wrong: {a: [1, 2]} has the key null for "a.b" yet matches {"a.b": {$ne: null}}.
   */
  readonly excludesNull?: boolean;
}

/** The bounds of each $in node, computed once however many plans consider it. */
const inBoundsCache = new WeakMap<MatchNode, Interval[]>();
/** The bounds of $in nodes being computed in slices (advanceInBounds). */
const inBoundsPending = new WeakMap<MatchNode, Generator<void, Interval[], void>>();

/** Values handled between two pauses of the sliced $in bounds (a few hundred microseconds). */
const inBoundsStepValues = 2048;

/**
 * `values` sorted by compareBson, stably, as a new array, pausing (a `yield`) every
 * inBoundsStepValues values: runs of that length sorted by `sortedBson`, then merged pairwise.
 */
function* sortedBsonSteps(values: readonly BsonValue[]): Generator<void, BsonValue[], void> {
  const numeric = values.every((v) => v instanceof Int32 || v instanceof Double);
  const cmp = numeric
    ? (a: BsonValue, b: BsonValue): number => {
        const x = (a as Int32 | Double).value;
        const y = (b as Int32 | Double).value;
        return x < y ? -1 : x > y ? 1 : x === y ? 0 : compareBson(a, b);
      }
    : (a: BsonValue, b: BsonValue): number => compareBson(a, b);
  let src: BsonValue[] = [];
  for (let i = 0; i < values.length; i += inBoundsStepValues) {
    const run = sortedBson(values.slice(i, i + inBoundsStepValues));
    for (const v of run) src.push(v);
    yield;
  }
  let dst: BsonValue[] = new Array<BsonValue>(src.length);
  for (let width = inBoundsStepValues; width < src.length; width *= 2) {
    let work = 0;
    for (let lo = 0; lo < src.length; lo += 2 * width) {
      const mid = Math.min(lo + width, src.length);
      const hi = Math.min(lo + 2 * width, src.length);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid || j < hi) {
        // Stable: on a tie the left run's value goes first.
        if (j >= hi || (i < mid && cmp(src[i] as BsonValue, src[j] as BsonValue) <= 0))
          dst[k++] = src[i++] as BsonValue;
        else dst[k++] = src[j++] as BsonValue;
        if (++work >= inBoundsStepValues) {
          work = 0;
          yield;
        }
      }
    }
    [src, dst] = [dst, src];
  }
  return src;
}

/**
 * The bounds of an $in list: O(n log n) for n values, in steps (a `yield` every
 * inBoundsStepValues values) so that a planner in a driver's slice can give the event loop
 * back (advanceInBounds). Scalars become points, sorted and deduplicated (values of equal
 * order, such as 1 and 1.0, are one point); null, arrays and regular expressions add their
 * few intervals through `normalize`.
 */
function* inBoundsSteps(
  values: readonly BsonValue[],
  regexes: ReadonlyArray<{ pattern: string; flags: string }>,
): Generator<void, Interval[], void> {
  const scalars: BsonValue[] = [];
  const others: Interval[] = [];
  for (const v of values) {
    if (v === null || isArray(v)) others.push(...equalityBounds(v));
    else scalars.push(v);
  }
  for (const r of regexes) others.push(...regexBounds(r.pattern, r.flags));
  yield;
  const sorted = yield* sortedBsonSteps(scalars);
  const points: Interval[] = [];
  let last: BsonValue | undefined;
  let work = 0;
  for (const v of sorted) {
    if (++work >= inBoundsStepValues) {
      work = 0;
      yield;
    }
    if (points.length > 0 && compareBson(last as BsonValue, v) === 0) continue;
    points.push(point(v));
    last = v;
  }
  if (others.length === 0) return points;
  // Already sorted, the points cost the merge one pass (the sort finds the runs).
  return normalize([...points, ...others]);
}

/** The bounds of an $in node, computed at once (or taken from a sliced computation). */
function inBounds(node: MatchNode & { kind: 'in' }): Interval[] {
  let intervals = inBoundsCache.get(node);
  if (intervals !== undefined) return intervals;
  const steps = inBoundsPending.get(node) ?? inBoundsSteps(node.values, node.regexes);
  for (;;) {
    const r = steps.next();
    if (r.done === true) {
      intervals = r.value;
      break;
    }
  }
  inBoundsPending.delete(node);
  inBoundsCache.set(node, intervals);
  return intervals;
}

/** $in nodes anywhere in a filter tree. */
function inNodesOf(node: MatchNode, out: Array<MatchNode & { kind: 'in' }>): void {
  if (node.kind === 'in') out.push(node);
  if ('children' in node) for (const c of node.children) inNodesOf(c, out);
  if ('child' in node) inNodesOf(node.child, out);
}

/**
 * Computes the bounds of the tree's $in nodes ahead of planning, in steps: true when they
 * are all at hand, false when the driver's slice is due first (the caller answers NEED_TIME
 * and calls again). Outside a slice (sliceDue is false) it finishes in one call. Every call
 * advances by at least one step, so a caller that calls again always progresses.
 */
export function advanceInBounds(tree: MatchNode | undefined): boolean {
  if (tree === undefined) return true;
  const nodes: Array<MatchNode & { kind: 'in' }> = [];
  inNodesOf(tree, nodes);
  for (const node of nodes) {
    if (inBoundsCache.has(node)) continue;
    let steps = inBoundsPending.get(node);
    if (steps === undefined) {
      steps = inBoundsSteps(node.values, node.regexes);
      inBoundsPending.set(node, steps);
    }
    for (;;) {
      const r = steps.next();
      if (r.done === true) {
        inBoundsPending.delete(node);
        inBoundsCache.set(node, r.value);
        break;
      }
      if (sliceDue()) return false;
    }
  }
  return true;
}

/**
 * Intervals for a predicate on one path (the node's own path), or undefined when the
 * predicate cannot bound an index scan.
 */
export function leafBounds(node: MatchNode): LeafBounds | undefined {
  switch (node.kind) {
    case 'eq':
      return { intervals: equalityBounds(node.value) };
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const intervals = comparisonBounds(node.kind, node.value);
      return intervals === undefined ? undefined : { intervals };
    }
    case 'in':
      return { intervals: inBounds(node) };
    case 'regex':
      return { intervals: regexBounds(node.pattern, node.flags) };
    case 'exists':
      return { intervals: [fullInterval], existsOnly: true };
    case 'not': {
      const child = node.child;
      if (child.kind === 'exists') return { intervals: [point(null)] };
      const points = exactPoints(child);
      if (points === undefined) return undefined;
      // {a: {$ne: null}} still matches an empty array, whose key is undefined: keep it.
      return {
        intervals: complementOfPoints(points),
        ...(points.some((p) => p === null) ? { excludesNull: true } : {}),
      };
    }
    case 'elemMatchValue': {
      let acc: Interval[] | undefined;
      for (const c of node.children) {
        // Elements are compared as they are: an element that is itself an array is one key
        // (not expanded), so only predicates on scalar elements may bound the scan.
        if (c.kind === 'elemMatchValue' || c.kind === 'elemMatchObject' || c.kind === 'size')
          continue;
        const b = leafBounds(c);
        if (b === undefined) continue;
        acc = acc === undefined ? b.intervals : intersect(acc, b.intervals);
      }
      return acc === undefined ? undefined : { intervals: acc };
    }
    default:
      return undefined;
  }
}

/** Whether a predicate with these bounds can match a document where the path is missing. */
export function mayMatchMissing(node: MatchNode): boolean {
  switch (node.kind) {
    case 'eq':
      return node.value === null;
    case 'in':
      return node.values.some((v) => v === null);
    case 'lte':
    case 'gte':
      return node.value === null || node.value instanceof MinKey || node.value instanceof MaxKey;
    case 'lt':
      return node.value instanceof MaxKey;
    case 'gt':
      return node.value instanceof MinKey;
    case 'regex':
    case 'exists':
    case 'elemMatchObject':
    case 'elemMatchValue':
    case 'size':
    case 'mod':
    case 'bitsAllSet':
    case 'bitsAllClear':
    case 'bitsAnySet':
    case 'bitsAnyClear':
      return false;
    default:
      return true;
  }
}

/** Whether the intervals hold the keys of a missing field (null) or of an empty array (undefined). */
export function allowsNullish(list: readonly Interval[]): boolean {
  const probe = (v: BsonValue): boolean =>
    list.some((iv) => {
      const lo = compareBson(iv.low.value, v);
      const hi = compareBson(v, iv.high.value);
      return (
        (lo < 0 || (lo === 0 && iv.low.inclusive)) && (hi < 0 || (hi === 0 && iv.high.inclusive))
      );
    });
  return probe(null) || probe(undefined);
}

// ---- explain ---------------------------------------------------------------------------------

/** A bound value as mongod's BSONElement::toString prints it. */
function showValue(v: BsonValue): string {
  if (v instanceof Double || typeof v === 'number') {
    const n = typeof v === 'number' ? v : v.value;
    if (Number.isNaN(n)) return 'nan.0';
    if (n === Infinity) return 'inf.0';
    if (n === -Infinity) return '-inf.0';
  }
  if (bsonTypeName(v) === 'object' && Object.keys(v as object).length === 0) return '{}';
  return formatBson(v);
}

function showEndpoint(e: Endpoint): { text: string; inclusive: boolean } {
  return { text: e.display ?? showValue(e.value), inclusive: e.displayInclusive ?? e.inclusive };
}

/** mongod's Interval::toString: "[1, 1]", "(5, inf.0]"; a descending field reads high to low. */
export function intervalString(iv: Interval, direction: 1 | -1): string {
  const [a, b] = direction === 1 ? [iv.low, iv.high] : [iv.high, iv.low];
  const s = showEndpoint(a);
  const e = showEndpoint(b);
  return `${s.inclusive ? '[' : '('}${s.text}, ${e.text}${e.inclusive ? ']' : ')'}`;
}

export function intervalStrings(list: readonly Interval[], direction: 1 | -1): string[] {
  const ordered = direction === 1 ? list : [...list].reverse();
  return ordered.map((iv) => intervalString(iv, direction));
}

/** The node's path, for path nodes. */
export function pathOf(node: MatchNode): string | undefined {
  return 'path' in node ? (node as PathNode).path : undefined;
}
