// Sort patterns ({a: 1, b: -1}) as $sort, $top/$bottom, $sortArray, $setWindowFields and
// $bucketAuto use them (mongod's SortPattern + SortKeyGenerator). The key of a document for a
// field is found as an index key would be: arrays along the path are expanded, an ascending
// sort uses the smallest element and a descending sort the largest, a missing field is null and
// an empty array is undefined (so it sorts before null). Ties keep the input order.
//
// TODO(issue 5): switch to src/query/sort.ts once the query layer has one, so that find and
// aggregate share a single implementation.

import { Int32 } from 'bson';
import { compareBson } from '../bson/compare.js';
import { getField, isArrayIndexComponent } from '../bson/path.js';
import { asDocument, isArray, isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';
import { formatBson } from '../bson/format.js';
import { parseFieldPath } from './expressions/field-path.js';
import { MISSING } from './expressions/types.js';
import { isNumeric, numberOf } from './values.js';

export interface SortPart {
  readonly path: string;
  readonly parts: readonly string[];
  readonly ascending: boolean;
  /** A {$meta: ...} part: no metadata is produced here, so its key is always missing. */
  readonly meta?: string;
}

export interface SortPattern {
  readonly parts: readonly SortPart[];
  /** The pattern as given, for explain. */
  readonly spec: BsonDocument;
}

const META_SORTS = new Set(['textScore', 'randVal', 'geoNearDistance', 'searchScore']);

/** Parses a sort specification with mongod's errors (15974, 15975, 17312, 31138). */
export function parseSortPattern(spec: BsonDocument): SortPattern {
  const parts: SortPart[] = [];
  for (const [field, v] of Object.entries(spec)) {
    if (isPlainDocument(v)) {
      const keys = Object.keys(v);
      if (keys[0] !== '$meta') fail(ErrorCode.Location17312, '$meta is the only expression supported by $sort right now');
      if (keys.length !== 1) fail(ErrorCode.FailedToParse, 'Cannot have additional keys in a $meta sort specification');
      const name = v['$meta'];
      if (typeof name !== 'string' || !META_SORTS.has(name)) fail(ErrorCode.Location31138, `Illegal $meta sort: $meta: ${formatBson(name ?? null)}`);
      parts.push({ path: field, parts: [], ascending: false, meta: name });
      continue;
    }
    if (!isNumeric(v)) fail(ErrorCode.Location15974, `Illegal key in $sort specification: ${field}: ${formatBson(v ?? null)}`);
    // BSONElement::safeNumberLong truncates: 1.5 is ascending, as in mongod.
    const dir = Math.trunc(numberOf(v));
    if (dir !== 1 && dir !== -1) fail(ErrorCode.Location15975, '$sort key ordering must be 1 (for ascending) or -1 (for descending)');
    parts.push({ path: field, parts: parseFieldPath(field), ascending: dir === 1 });
  }
  return { parts, spec };
}

/** All values a path reaches, index-key style (arrays expanded, missing → null). */
function collectKeys(v: BsonValue, parts: readonly string[], i: number, out: BsonValue[]): void {
  if (i === parts.length) {
    if (isArray(v)) {
      if (v.length === 0) out.push(undefined);
      else out.push(...v);
    } else {
      out.push(v);
    }
    return;
  }
  if (isArray(v)) {
    const name = parts[i] as string;
    const positional = isArrayIndexComponent(name) ? Number(name) : -1;
    if (v.length === 0) out.push(null);
    v.forEach((el, k) => {
      if (k === positional) collectKeys(el, parts, i + 1, out);
      else if (asDocument(el) !== undefined) collectKeys(el, parts, i, out);
    });
    return;
  }
  const doc = asDocument(v);
  if (doc === undefined) {
    out.push(null);
    return;
  }
  const next = getField(doc, parts[i] as string);
  if (next === MISSING) out.push(null);
  else collectKeys(next, parts, i + 1, out);
}

/** The sort key of `value` for one pattern part. */
export function sortKeyOf(value: BsonValue, part: SortPart): BsonValue {
  if (part.meta !== undefined) return null;
  const keys: BsonValue[] = [];
  collectKeys(value, part.parts, 0, keys);
  let best = keys[0] ?? null;
  for (let k = 1; k < keys.length; k++) {
    const c = compareBson(keys[k] ?? null, best);
    if (part.ascending ? c < 0 : c > 0) best = keys[k] ?? null;
  }
  return best;
}

/** The sort keys of a document for every part of a pattern. */
export function sortKeysOf(value: BsonValue, pattern: SortPattern): BsonValue[] {
  return pattern.parts.map((p) => sortKeyOf(value, p));
}

/** Compares precomputed key arrays by the pattern's directions. */
export function compareSortKeys(a: readonly BsonValue[], b: readonly BsonValue[], pattern: SortPattern): number {
  for (let i = 0; i < pattern.parts.length; i++) {
    const c = compareBson(a[i] ?? null, b[i] ?? null);
    if (c !== 0) return (pattern.parts[i] as SortPart).ascending ? c : -c;
  }
  return 0;
}

/** A comparator over documents (keys computed on every call: for small inputs). */
export function documentComparator(pattern: SortPattern): (a: BsonValue, b: BsonValue) => number {
  return (a, b) => compareSortKeys(sortKeysOf(a, pattern), sortKeysOf(b, pattern), pattern);
}

/**
 * Sorts values stably by precomputed keys: each key is computed once, not per comparison.
 */
export function sortByPattern<T>(items: readonly T[], docOf: (t: T) => BsonValue, pattern: SortPattern): T[] {
  const keyed = items.map((item, seq) => ({ item, seq, keys: sortKeysOf(docOf(item), pattern) }));
  keyed.sort((x, y) => compareSortKeys(x.keys, y.keys, pattern) || x.seq - y.seq);
  return keyed.map((k) => k.item);
}

/** The pattern as mongod serialises it for explain ({a: 1, b: -1}). */
export function serializeSortPattern(pattern: SortPattern): BsonDocument {
  const out: BsonDocument = {};
  for (const p of pattern.parts) out[p.path] = p.meta !== undefined ? { $meta: p.meta } : new Int32(p.ascending ? 1 : -1);
  return out;
}

