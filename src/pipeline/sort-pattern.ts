// Sort patterns ({a: 1, b: -1}) as $sort, $top/$bottom, $sortArray, $setWindowFields and
// $bucketAuto use them. Keys come from the query layer's sort (src/query/sort.ts: mongod's
// SortPattern + SortKeyGenerator semantics — arrays give their smallest element for an
// ascending field and largest for a descending one, missing is null, an empty array undefined),
// so find and aggregate order documents alike. A {$meta: ...} part sorts by the document's
// metadata (src/query/exec/metadata.ts): text scores descending, $geoNear distances ascending.

import { setOwn } from '../bson/document.js';
import { Double, Int32 } from 'bson';
import { compareBson } from '../bson/compare.js';
import type { Collator } from '../bson/collation.js';
import { formatBson } from '../bson/format.js';
import { isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';
import { metadataOf } from '../query/exec/metadata.js';
import { compileSort } from '../query/sort.js';
import type { SortSpec } from '../query/sort.js';

export interface SortPart {
  readonly path: string;
  readonly ascending: boolean;
  /** A {$meta: ...} part. */
  readonly meta?: string;
}

export interface SortPattern {
  readonly parts: readonly SortPart[];
  /** The pattern as given, for explain. */
  readonly spec: BsonDocument;
  /** The field parts, compiled by the query layer (undefined when every part is $meta). */
  readonly fields: SortSpec | undefined;
  /** The collation strings compare by (undefined: binary). */
  readonly collator?: Collator | undefined;
}

const META_SORTS = new Set(['textScore', 'randVal', 'geoNearDistance', 'searchScore']);

/** Parses a sort specification with mongod's errors (15974, 15975, 17312, 31138). */
export function parseSortPattern(spec: BsonDocument, collator?: Collator): SortPattern {
  const parts: SortPart[] = [];
  const fieldSpec: BsonDocument = {};
  for (const [field, v] of Object.entries(spec)) {
    if (isPlainDocument(v)) {
      const keys = Object.keys(v);
      if (keys[0] !== '$meta')
        fail(ErrorCode.Location17312, '$meta is the only expression supported by $sort right now');
      if (keys.length !== 1)
        fail(ErrorCode.FailedToParse, 'Cannot have additional keys in a $meta sort specification');
      const name = v['$meta'];
      if (typeof name !== 'string' || !META_SORTS.has(name))
        fail(ErrorCode.Location31138, `Illegal $meta sort: $meta: ${formatBson(name ?? null)}`);
      // Text scores sort highest first, distances nearest first.
      parts.push({ path: field, ascending: name === 'geoNearDistance', meta: name });
      continue;
    }
    setOwn(fieldSpec, field, v);
    parts.push({ path: field, ascending: true });
  }
  const fields = Object.keys(fieldSpec).length === 0 ? undefined : compileSort(fieldSpec, collator);
  if (fields?.natural !== undefined)
    fail(ErrorCode.BadValue, '$natural is not a valid sort key in an aggregation pipeline');
  // Directions as the query layer parsed them.
  let k = 0;
  const resolved = parts.map((p) =>
    p.meta !== undefined
      ? p
      : { path: p.path, ascending: (fields?.keys[k++]?.direction ?? 1) === 1 },
  );
  return { parts: resolved, spec, fields, collator };
}

/**
 * The sort keys of a value for a pattern: one per part (non-documents have only null keys).
 * A key may be `undefined` (an empty array), which sorts below null: keep it as it is.
 */
export function sortKeysOf(value: BsonValue, pattern: SortPattern): BsonValue[] {
  const fieldKeys =
    pattern.fields !== undefined && isPlainDocument(value)
      ? pattern.fields.keyOf(value)
      : undefined;
  let k = 0;
  return pattern.parts.map((p) => {
    if (p.meta !== undefined) return metaSortKey(value, p.meta);
    return fieldKeys === undefined ? null : (fieldKeys[k++] as BsonValue);
  });
}

/** The sort key of a {$meta: ...} part: the document's metadata value, null when absent. */
function metaSortKey(value: BsonValue, name: string): BsonValue {
  if (!isPlainDocument(value)) return null;
  const meta = metadataOf(value);
  const v =
    name === 'textScore'
      ? meta?.textScore
      : name === 'geoNearDistance'
        ? meta?.geoNearDistance
        : undefined;
  return v === undefined ? null : new Double(v);
}

/** Compares precomputed key arrays by the pattern's directions. */
export function compareSortKeys(
  a: readonly BsonValue[],
  b: readonly BsonValue[],
  pattern: SortPattern,
): number {
  for (let i = 0; i < pattern.parts.length; i++) {
    const c = compareBson(a[i] as BsonValue, b[i] as BsonValue, pattern.collator);
    if (c !== 0) return (pattern.parts[i] as SortPart).ascending ? c : -c;
  }
  return 0;
}

/** A comparator over values (keys computed on every call: for small inputs such as $sortArray). */
export function documentComparator(pattern: SortPattern): (a: BsonValue, b: BsonValue) => number {
  return (a, b) => compareSortKeys(sortKeysOf(a, pattern), sortKeysOf(b, pattern), pattern);
}

/** The pattern under the operation's collation (the stage parses it before the collation is known). */
export function collatedPattern(pattern: SortPattern, collator: Collator | undefined): SortPattern {
  return collator === pattern.collator ? pattern : parseSortPattern(pattern.spec, collator);
}

/** The pattern as mongod serialises it for explain ({a: 1, b: -1}). */
export function serializeSortPattern(pattern: SortPattern): BsonDocument {
  const out: BsonDocument = {};
  for (const p of pattern.parts)
    out[p.path] = p.meta !== undefined ? { $meta: p.meta } : new Int32(p.ascending ? 1 : -1);
  return out;
}
