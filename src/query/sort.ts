// Sort specifications ({a: 1, "b.c": -1}) compiled into a document comparator with mongod's
// semantics (src/mongo/db/query/sort_pattern.cpp, src/mongo/db/index/sort_key_generator.cpp):
//
// - a document's sort key is the one mongod would index for the pattern, taking the smallest
//   key in the pattern's order when arrays make several: an ascending field sorts by the
//   smallest element of an array, a descending one by the largest, and fields under the same
//   array pair up element by element ({"a.b": 1, "a.c": -1});
// - a missing field sorts as null, an empty array as undefined (below null), and nested arrays
//   are compared as whole values; two fields through different arrays ("parallel arrays") are
//   refused as mongod refuses them;
// - values compare with compareBson, the total order of BSON values.
//
// Ties are not broken here: the comparator is meant for a stable sort (Array.prototype.sort
// is stable), so documents with equal keys keep their input order, as the caller decides.
// `{$natural: ±1}` is recognised and left to the caller (scan order); {$meta: "textScore"}
// sorts by the document's text score, highest first (src/query/exec/metadata.ts).

import { compareBson } from '../bson/compare.js';
import { MISSING, getField, isArrayIndexComponent } from '../bson/path.js';
import { asDocument, isArray } from '../bson/types.js';
import { isNumeric } from '../bson/numeric.js';
import type { BsonArray, BsonDocument, BsonValue } from '../bson/types.js';
import type { Collator } from '../bson/collation.js';
import { formatBson } from '../bson/format.js';
import { ErrorCode, fail } from '../errors.js';
import { validateFieldPath } from './projection/field-path.js';
import { toJsNumber } from './match/numbers.js';
import { metadataOf } from './exec/metadata.js';
import { Double } from 'bson';

export interface SortKeySpec {
  readonly path: string;
  readonly parts: readonly string[];
  /** 1 ascending, -1 descending. */
  readonly direction: 1 | -1;
  /** {$meta: "textScore"}: the document's text score (highest first). */
  readonly meta?: 'textScore';
}

export interface SortSpec {
  /** The fields, in priority order (empty for a $natural sort). */
  readonly keys: readonly SortKeySpec[];
  /** Set for {$natural: 1 | -1}: the caller returns documents in (reverse) record order. */
  readonly natural?: 1 | -1;
  /** The sort key of a document (one value per field), for callers that decorate first. */
  keyOf(doc: BsonDocument): BsonValue[];
  /** Orders two sort keys by the specification. */
  compareKeys(a: readonly BsonValue[], b: readonly BsonValue[]): number;
  /** Orders two documents; use with a stable sort. Keys are computed once per document. */
  compare(a: BsonDocument, b: BsonDocument): number;
}

/** Parses a sort specification; throws CommandError with mongod's codes for a bad one. */
export function compileSort(spec: BsonDocument, collator?: Collator): SortSpec {
  const entries = Object.entries(spec);
  if (entries.some(([k]) => k === '$natural')) return naturalSort(entries);
  const keys = entries.map(([path, value]) => parseSortKey(path, value));
  return buildSort(keys, collator);
}

function naturalSort(entries: Array<[string, BsonValue]>): SortSpec {
  const [, value] = entries.find(([k]) => k === '$natural') as [string, BsonValue];
  const n = isNumeric(value) ? toJsNumber(value) : NaN;
  if (entries.length !== 1 || (n !== 1 && n !== -1)) {
    fail(ErrorCode.BadValue, '$natural sort cannot be set to a value other than -1 or 1.');
  }
  return { ...buildSort([]), natural: n === 1 ? 1 : -1 };
}

function parseSortKey(path: string, value: BsonValue): SortKeySpec {
  const meta = asDocument(value);
  if (meta !== undefined && !isArray(value)) {
    parseMetaSort(meta);
    return { path, parts: path.split('.'), direction: -1, meta: 'textScore' };
  }
  if (!isNumeric(value))
    fail(
      ErrorCode.Location15974,
      `Illegal key in $sort specification: ${path}: ${formatBson(value)}`,
    );
  const n = toJsNumber(value);
  if (n !== 1 && n !== -1)
    fail(
      ErrorCode.Location15975,
      '$sort key ordering must be 1 (for ascending) or -1 (for descending)',
    );
  validateFieldPath(path);
  return { path, parts: path.split('.'), direction: n };
}

/** {$meta: ...} sort keys, validated as mongod does; only textScore sorts here. */
function parseMetaSort(meta: BsonDocument): void {
  const keys = Object.keys(meta);
  if (keys[0] !== '$meta')
    fail(ErrorCode.Location17312, '$meta is the only expression supported by $sort right now');
  if (keys.length !== 1)
    fail(ErrorCode.FailedToParse, 'Cannot have additional keys in a $meta sort specification');
  const kind = meta['$meta'] as BsonValue;
  if (kind === 'textScore') return;
  if (kind === 'randVal') {
    fail(ErrorCode.NotImplemented, `$meta sort by '${kind}' is not implemented yet`);
  }
  if (kind === 'searchScore' || kind === 'searchHighlights') {
    fail(
      kind === 'searchScore' ? ErrorCode.Location31218 : ErrorCode.Location31219,
      `$meta sort by '${kind}' metadata is not supported`,
    );
  }
  fail(ErrorCode.Location31138, `Illegal $meta sort: $meta: ${formatBson(kind)}`);
}

function buildSort(keys: SortKeySpec[], collator?: Collator): SortSpec {
  const directions = keys.map((k) => k.direction);
  const compareKeys = (a: readonly BsonValue[], b: readonly BsonValue[]): number => {
    for (let i = 0; i < directions.length; i++) {
      const c = compareBson(a[i] as BsonValue, b[i] as BsonValue, collator);
      if (c !== 0) return c * (directions[i] as number);
    }
    return 0;
  };
  const fieldKeys = keys.filter((k) => k.meta === undefined);
  const paths = fieldKeys.map((k) => k.parts);
  const fieldCompare = (a: readonly BsonValue[], b: readonly BsonValue[]): number => {
    for (let i = 0; i < fieldKeys.length; i++) {
      const c = compareBson(a[i] as BsonValue, b[i] as BsonValue, collator);
      if (c !== 0) return c * (fieldKeys[i] as SortKeySpec).direction;
    }
    return 0;
  };
  const keyOf = (doc: BsonDocument): BsonValue[] => {
    const fields = paths.length === 0 ? [] : bestKey(candidateKeys(doc, paths), fieldCompare);
    if (fieldKeys.length === keys.length) return fields;
    let i = 0;
    return keys.map((k) => (k.meta === undefined ? (fields[i++] as BsonValue) : textScoreKey(doc)));
  };
  const cache = new WeakMap<BsonDocument, BsonValue[]>();
  const cachedKey = (doc: BsonDocument): BsonValue[] => {
    let key = cache.get(doc);
    if (key === undefined) {
      key = keyOf(doc);
      cache.set(doc, key);
    }
    return key;
  };
  return { keys, keyOf, compareKeys, compare: (a, b) => compareKeys(cachedKey(a), cachedKey(b)) };
}

function textScoreKey(doc: BsonDocument): BsonValue {
  const score = metadataOf(doc)?.textScore;
  return score === undefined ? null : new Double(score);
}

function bestKey(
  candidates: BsonValue[][],
  compareKeys: (a: BsonValue[], b: BsonValue[]) => number,
): BsonValue[] {
  let best = candidates[0] as BsonValue[];
  for (let i = 1; i < candidates.length; i++) {
    const c = candidates[i] as BsonValue[];
    if (compareKeys(c, best) < 0) best = c;
  }
  return best;
}

// ---- key generation (mongod's BtreeKeyGenerator, as sort_key_generator uses it) -----------

/** Where one path stands while walking a (sub)document. */
type Walk =
  | { kind: 'value'; value: BsonValue }
  | { kind: 'array'; array: BsonArray; prefix: number; rest: readonly string[] };

/** Walks `parts` down subdocuments until the end, a missing field, or an array. */
function walk(root: BsonValue, parts: readonly string[], prefixBase: number): Walk {
  let cur: BsonValue = root;
  for (let i = 0; i < parts.length; i++) {
    if (isArray(cur)) {
      const part = parts[i] as string;
      // A numeric component after an array selects a position rather than expanding it.
      if (isArrayIndexComponent(part) && String(Number(part)) === part) {
        cur = Number(part) < cur.length ? (cur[Number(part)] as BsonValue) : null;
        continue;
      }
      return { kind: 'array', array: cur, prefix: prefixBase + i, rest: parts.slice(i) };
    }
    const doc = asDocument(cur);
    if (doc === undefined) return { kind: 'value', value: null };
    const v = getField(doc, parts[i] as string);
    if (v === MISSING) return { kind: 'value', value: null };
    cur = v;
  }
  if (isArray(cur))
    return { kind: 'array', array: cur, prefix: prefixBase + parts.length, rest: [] };
  return { kind: 'value', value: cur };
}

/**
 * Every sort key the document generates: one per element of the array the paths go through
 * (at most one array per level, shared by all the paths that reach it).
 */
function candidateKeys(root: BsonValue, paths: ReadonlyArray<readonly string[]>): BsonValue[][] {
  const walks = paths.map((parts) => walk(root, parts, 0));
  const arrays = walks.filter((w): w is Extract<Walk, { kind: 'array' }> => w.kind === 'array');
  if (arrays.length === 0) return [walks.map((w) => (w.kind === 'value' ? w.value : null))];
  const array = (arrays[0] as Extract<Walk, { kind: 'array' }>).array;
  if (arrays.some((w) => w.array !== array))
    fail(ErrorCode.BadValue, 'cannot sort with keys that are parallel arrays');
  if (array.length === 0) {
    // An empty array is undefined where the path ends and null for anything below it.
    return [
      walks.map((w) => (w.kind === 'value' ? w.value : w.rest.length === 0 ? undefined : null)),
    ];
  }
  const out: BsonValue[][] = [];
  for (const element of array) {
    const subPaths = walks.map((w) => (w.kind === 'array' ? w.rest : []));
    const fixed = walks.map((w) => (w.kind === 'value' ? w.value : undefined));
    for (const sub of elementKeys(element, subPaths)) {
      out.push(
        walks.map((w, i) => (w.kind === 'value' ? (fixed[i] as BsonValue) : (sub[i] as BsonValue))),
      );
    }
  }
  return out;
}

/** Keys inside one array element: the element itself where the path ended at the array. */
function elementKeys(element: BsonValue, rests: ReadonlyArray<readonly string[]>): BsonValue[][] {
  if (rests.every((r) => r.length === 0)) return [rests.map(() => element)];
  if (isArray(element)) {
    // A nested array is a value, not expanded a second time.
    return [rests.map((r) => (r.length === 0 ? element : null))];
  }
  const keys = candidateKeys(
    element,
    rests.map((r) => (r.length === 0 ? [] : r)),
  );
  return keys.map((k) =>
    k.map((v, i) => ((rests[i] as readonly string[]).length === 0 ? element : v)),
  );
}
