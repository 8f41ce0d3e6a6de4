// Query planning: a parsed find-like request → a tree of plan stages.
//
// Access paths, in order of preference:
// - $natural (sort or hint): COLLSCAN in record order;
// - IDHACK: the filter pins `_id` to one value;
// - index plans: every usable index whose first field the filter bounds (or that provides the
//   requested sort) becomes a candidate IXSCAN → FETCH (or a covered IXSCAN when the key holds
//   all the query reads), and a top-level $or whose every branch has an index becomes
//   OR → FETCH. One candidate is used as is; several run a short trial on the query's first
//   snapshot (mongod's multi-planner, simplified): a plan that finishes wins by the work it
//   took, otherwise the most productive one (documents per unit of work); ties go to the plan
//   that provides the sort, then to more equality-bound fields, then to unique indexes;
// - COLLSCAN when no index applies.
// Then SORT (unless the index gives the order), SKIP, LIMIT and the projection.
//
// Planning is lazy: the plan is chosen on the first pull, with that pull's snapshot, because
// the choice depends on the indexes' state (multikey paths, long keys) and on the trial, both
// of which need a view. `prepareQueryPlan` does it ahead of time for explain.
//
// Correctness never depends on the bounds being tight: FETCH re-applies the whole filter, so
// bounds only have to hold every key of every matching document (see bounds.ts). What the
// plan does rely on — intersecting bounds on one field, compound bounds, sorting by an index,
// covering — is allowed only when the index's multikey paths and long keys permit it, as
// mongod's planner decides with MultikeyPaths.

import { BSONRegExp, Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { BSONSymbol, isPlainDocument, numericValue } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import { encodeKey } from '../../bson/keystring.js';
import { hashBsonValue } from '../../bson/hash.js';
import type { Collection } from '../../catalog/collection.js';
import type { IndexAccess, IndexState } from '../../catalog/index-access.js';
import { firstEntryKey } from '../../catalog/index-access.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { ReadView } from '../../storage/engine.js';
import {
  CollScanStage,
  IdLookupStage,
  LimitStage,
  RowsStage,
  SkipStage,
  SortStage,
  TransformStage,
} from '../exec/stages.js';
import type {
  DocumentFilter,
  PlanStage,
  RowComparator,
  RowTransform,
  StageStats,
} from '../exec/stages.js';
import { NEED_TIME, runSync } from '../exec/yield.js';
import type { Pull } from '../exec/yield.js';
import {
  IndexScanStage,
  OrStage,
  byteIntervals,
  lazyExtra,
  planRanges,
} from '../exec/index-scan.js';
import type { KeySource } from '../exec/index-scan.js';
import { CoveredRowsStage, FetchStage } from '../exec/fetch.js';
import type { MatchNode, PathNode } from '../match/index.js';
import { partialFilterMatcher } from '../match/index.js';
import {
  allowsNullish,
  fullInterval,
  intersect,
  intervalStrings,
  advanceInBounds,
  isFullRange,
  isPoint,
  leafBounds,
  mayMatchMissing,
  point,
} from './bounds.js';
import type { Interval, LeafBounds } from './bounds.js';
import { serializeFilter } from './serialize-filter.js';
import { ClusteredScanStage, isClustered, recordBounds } from './clustered-plan.js';
import {
  WILDCARD_PATH_FIELD,
  WILDCARD_VALUE_FIELD,
  WildcardPathAccess,
  pathIntervals,
  wildcardViews,
} from './wildcard-plan.js';
import { comparisonNode } from '../match/nodes.js';
import { compareBson } from '../../bson/compare.js';
import type { Collator } from '../../bson/collation.js';
import type { MemoryPolicy } from '../memory.js';
import { checkSpecialPredicates, splitText, textPlan } from './text-plan.js';
import { geoCandidates, nearPlan, splitNear } from './geo-plan.js';
import { queryHashes } from './query-shape.js';
import type { QueryHashes } from './query-shape.js';

export interface QueryRequest {
  readonly filter: BsonDocument;
  /** The compiled filter; a matcher from src/query/match carries the parsed tree the planner reads. */
  readonly matcher: DocumentFilter | undefined;
  /**
   * The query's collation (undefined: simple). Indexes hold strings in binary order, so under a
   * collation they bound no string comparison, provide no order and pin no string _id.
   */
  readonly collator?: Collator | undefined;
  readonly sort?: RowComparator | undefined;
  /** The sort specification ({a: 1, b: -1}): lets an index provide the order. */
  readonly sortSpec?: BsonDocument | undefined;
  /** `$natural` sort or hint direction. */
  readonly natural?: 1 | -1 | undefined;
  readonly skip?: number | undefined;
  /** Positive limit; undefined or 0 for none. */
  readonly limit?: number | undefined;
  readonly projection?: RowTransform | undefined;
  /** The projection specification (explain's transformBy and stage name). */
  readonly projectionSpec?: BsonDocument | undefined;
  /**
   * The dotted paths the projection reads when an index key alone could answer it; undefined
   * when it needs the document (language.ts's QueryProjection.coveredFields). With a
   * projection and no such paths, a plan is never covered.
   */
  readonly projectionFields?: readonly string[] | undefined;
  readonly allowDiskUse: boolean;
  /** An index name or key pattern ($natural hints come as `natural`). */
  readonly hint?: BsonValue | undefined;
  readonly min?: BsonDocument | undefined;
  readonly max?: BsonDocument | undefined;
  /** Rows carry the index key they were found by (find's returnKey). */
  readonly returnKey?: boolean | undefined;
  /** False when rows need no document (count): a covered plan then skips FETCH. */
  readonly needsDocument?: boolean | undefined;
  /** Memory limit of a blocking sort and where it spills (default: limits.ts, no spilling). */
  readonly memory?: MemoryPolicy | undefined;
  /** Checks the operation's deadline during a long blocking sort. */
  readonly interrupt?: (() => void) | undefined;
  /** A projection or sort reads {$meta: "textScore"}: a $text plan computes scores. */
  readonly wantTextScore?: boolean | undefined;
  /** A tailable cursor's plan: a forward COLLSCAN that goes on past the end (with `natural: 1`). */
  readonly tailable?: boolean | undefined;
}

/** The value `_id` is pinned to by the filter, if the filter is an _id equality. */
export function pinnedId(filter: BsonDocument): BsonValue | undefined {
  const id = getOwn(filter, '_id');
  if (id === undefined) return undefined;
  if (id instanceof BSONRegExp) return undefined;
  if (isPlainDocument(id)) {
    const keys = Object.keys(id);
    if (keys.length === 0) return id;
    if (keys.some((k) => k.startsWith('$'))) {
      if (keys.length === 1 && keys[0] === '$eq') {
        const v = id['$eq'];
        return v instanceof BSONRegExp
          ? undefined
          : isPlainDocument(v) || Array.isArray(v)
            ? undefined
            : v;
      }
      return undefined;
    }
    return id;
  }
  // An array `_id` query value matches documents by element too; leave it to the scan.
  if (Array.isArray(id)) return undefined;
  return id;
}

// ---- hints and min/max -------------------------------------------------------------------------

function plannerError(code: number, message: string): CommandError {
  return new CommandError(
    code,
    `error processing query: planner returned error :: caused by :: ${message}`,
  );
}

function sameKeyPattern(a: BsonDocument, b: BsonDocument): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k, i) => {
    if (k !== kb[i]) return false;
    const x = a[k] as BsonValue;
    const y = b[k] as BsonValue;
    const nx = numericValue(x);
    const ny = numericValue(y);
    return nx !== undefined && ny !== undefined ? nx === ny : compareBson(x, y) === 0;
  });
}

/** The index a hint names (by name or key pattern), as mongod's planner resolves it. */
export function hintedIndex(
  coll: Collection,
  hint: BsonValue | undefined,
): IndexAccess | undefined {
  if (hint === undefined || hint === null) return undefined;
  const visible = coll.indexes.filter((i) => !i.hidden);
  if (typeof hint === 'string') {
    const found = visible.find((i) => i.meta.name === hint);
    if (found === undefined)
      throw plannerError(
        ErrorCode.BadValue,
        'hint provided does not correspond to an existing index',
      );
    return found;
  }
  if (isPlainDocument(hint)) {
    if (Object.keys(hint).length === 0 || Object.keys(hint)[0] === '$natural') return undefined;
    const found = visible.filter((i) => sameKeyPattern(i.meta.key, hint));
    if (found.length === 0)
      throw plannerError(
        ErrorCode.BadValue,
        'hint provided does not correspond to an existing index',
      );
    if (found.length > 1) {
      throw plannerError(
        ErrorCode.IndexNotFound,
        `Hint matched multiple indexes, must hint by index name. Matched: ${found[0]?.meta.name} and ${found[1]?.meta.name}`,
      );
    }
    return found[0];
  }
  return undefined;
}

interface MinMaxRange {
  readonly start: Uint8Array;
  readonly end: Uint8Array | undefined;
}

function minMaxRange(
  index: IndexAccess | undefined,
  min: BsonDocument | undefined,
  max: BsonDocument | undefined,
): MinMaxRange | undefined {
  const hasMin = min !== undefined && Object.keys(min).length > 0;
  const hasMax = max !== undefined && Object.keys(max).length > 0;
  if (!hasMin && !hasMax) return undefined;
  if (index === undefined)
    throw plannerError(
      ErrorCode.Location51173,
      'When using min()/max() a hint of which index to use must be provided',
    );
  const paths = index.fields.map((f) => f.path);
  const compatible = (b: BsonDocument | undefined): boolean => {
    if (b === undefined || Object.keys(b).length === 0) return true;
    const keys = Object.keys(b);
    return keys.length === paths.length && keys.every((k, i) => k === paths[i]);
  };
  // A wildcard index's keys are (path, value) pairs: no min/max of the key pattern fits them.
  if (index.kind === 'wildcard' || !compatible(min) || !compatible(max))
    throw plannerError(ErrorCode.Location51174, 'The index chosen is not compatible with min/max');
  const start = hasMin ? encodeKey(Object.values(min), index.directions) : firstEntryKey;
  const end = hasMax ? encodeKey(Object.values(max), index.directions) : undefined;
  if (hasMin && hasMax && end !== undefined && Buffer.compare(start, end) >= 0) {
    throw plannerError(
      ErrorCode.Location51175,
      'The value provided for min() does not come before the value provided for max() in the hinted index',
    );
  }
  return { start, end };
}

// ---- predicates ---------------------------------------------------------------------------------

interface Predicate {
  readonly path: string;
  readonly node: MatchNode;
  readonly bounds: LeafBounds;
  /** Set for predicates inside an $elemMatch on an array at path component `prefixLength - 1`. */
  readonly group?: { readonly id: number; readonly prefixLength: number };
}

function treeOf(matcher: DocumentFilter | undefined): MatchNode | undefined {
  if (matcher === undefined) return undefined;
  const tree = (matcher as { tree?: MatchNode }).tree;
  return tree;
}

/** The conjuncts of a tree (a top-level AND flattened). */
function conjuncts(node: MatchNode | undefined): MatchNode[] {
  if (node === undefined) return [];
  if (node.kind === 'and') return node.children.flatMap((c) => conjuncts(c));
  if (node.kind === 'alwaysTrue') return [];
  return [node];
}

function nodePath(node: MatchNode): string | undefined {
  if ('path' in node) return (node as PathNode).path;
  if (node.kind === 'not' && 'path' in node.child) return (node.child as PathNode).path;
  return undefined;
}

/** Values a collation compares differently from an index's binary order: strings, inside documents and arrays too. */
function collationSensitive(v: BsonValue): boolean {
  if (typeof v === 'string' || v instanceof BSONSymbol) return true;
  if (Array.isArray(v)) return v.some(collationSensitive);
  if (isPlainDocument(v)) return Object.values(v).some(collationSensitive);
  return false;
}

/** Whether a predicate compares a value a collation changes ($eq, ranges, $in and their negations). */
function comparesStrings(node: MatchNode): boolean {
  if (
    node.kind === 'eq' ||
    node.kind === 'lt' ||
    node.kind === 'lte' ||
    node.kind === 'gt' ||
    node.kind === 'gte'
  )
    return collationSensitive(node.value);
  if (node.kind === 'in') return node.values.some(collationSensitive);
  if (node.kind === 'not') return comparesStrings(node.child);
  if (node.kind === 'elemMatchValue') return node.children.some(comparesStrings);
  return false;
}

/**
 * The predicates that may bound an index scan. Under a collation, predicates comparing strings
 * are left to the filter: index keys hold strings in binary order (mongod only uses an index for
 * string bounds when its collation is the query's; ours are all simple).
 */
function collectPredicates(
  tree: MatchNode | undefined,
  collator: Collator | undefined,
): Predicate[] {
  const out: Predicate[] = [];
  let groups = 0;
  const visit = (node: MatchNode, prefix: string, group: Predicate['group']): void => {
    if (node.kind === 'and') {
      for (const c of node.children) visit(c, prefix, group);
      return;
    }
    if (node.kind === 'elemMatchObject') {
      const path = prefix + node.path;
      visit(node.child, `${path}.`, { id: ++groups, prefixLength: path.split('.').length });
      return;
    }
    const path = nodePath(node);
    if (path === undefined || path === '') return;
    if (group !== undefined && /^\d+$/.test(path.split('.')[0] ?? '')) return;
    if (collator !== undefined && comparesStrings(node)) return;
    const bounds = leafBounds(node);
    if (bounds === undefined) return;
    out.push({ path: prefix + path, node, bounds, ...(group === undefined ? {} : { group }) });
  };
  if (tree !== undefined) visit(tree, '', undefined);
  return out;
}

// ---- one index ------------------------------------------------------------------------------------

interface FieldBounds {
  readonly intervals: Interval[];
  /** The predicates these bounds came from (empty: unbounded). */
  readonly from: readonly Predicate[];
}

function sharedPrefix(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** Per-field bounds of an index for the predicates, under the multikey rules. */
function boundsFor(
  index: IndexAccess,
  state: IndexState,
  preds: readonly Predicate[],
): FieldBounds[] {
  const out: FieldBounds[] = index.fields.map((f, i) => {
    if (f.plugin === 'hashed') return hashedBounds(f.path, preds);
    let mine = preds.filter(
      (p) => p.path === f.path && !(p.bounds.existsOnly === true && !index.sparse),
    );
    // A positional path ("a.0") also reaches field "0" of subdocument elements, where it may be
    // missing (matching null) while the key holds the element at position 0: predicates that
    // match a missing field cannot bound such a field.
    if (f.parts.some((part) => /^\d+$/.test(part)))
      mine = mine.filter((p) => !mayMatchMissing(p.node));
    if (mine.length === 0) return { intervals: [fullInterval], from: [] };
    const mk = state.multikeyPaths[i] ?? [];
    if (mk.length > 0) mine = mine.filter((p) => p.bounds.excludesNull !== true);
    if (mine.length === 0) return { intervals: [fullInterval], from: [] };
    const first = mine[0] as Predicate;
    if (mk.length === 0) {
      let acc = first.bounds.intervals;
      for (const p of mine.slice(1)) acc = intersect(acc, p.bounds.intervals);
      return { intervals: acc, from: mine };
    }
    // Multikey: only predicates of one $elemMatch on the array may be intersected.
    const g = first.group;
    if (g !== undefined && mk.every((c) => c < g.prefixLength)) {
      const same = mine.filter((p) => p.group?.id === g.id);
      let acc = first.bounds.intervals;
      for (const p of same.slice(1)) acc = intersect(acc, p.bounds.intervals);
      return { intervals: acc, from: same };
    }
    return { intervals: first.bounds.intervals, from: [first] };
  });
  // Compound bounds: a field sharing a multikey path prefix with an earlier bounded field
  // may not be bounded too (the two values may come from different array elements), unless
  // both come from one $elemMatch on that array.
  for (let j = 1; j < out.length; j++) {
    const bj = out[j] as FieldBounds;
    if (bj.from.length === 0) continue;
    const pj = (index.fields[j] as { parts: readonly string[] }).parts;
    for (let i = 0; i < j; i++) {
      const bi = out[i] as FieldBounds;
      if (bi.from.length === 0) continue;
      const pi = (index.fields[i] as { parts: readonly string[] }).parts;
      const shared = sharedPrefix(pi, pj);
      const mkShared = [
        ...(state.multikeyPaths[i] ?? []),
        ...(state.multikeyPaths[j] ?? []),
      ].filter((c) => c < shared);
      if (mkShared.length === 0) continue;
      const gi = bi.from[0]?.group;
      const gj = bj.from[0]?.group;
      if (
        gi !== undefined &&
        gj !== undefined &&
        gi.id === gj.id &&
        mkShared.every((c) => c < gi.prefixLength)
      )
        continue;
      out[j] = { intervals: [fullInterval], from: [] };
      break;
    }
  }
  return out;
}

/**
 * The bounds of a hashed field: only equality and $in (without regexes) bound it, by the hashes
 * of their values (hashes collide, so FETCH re-checks them); a number with a fraction also
 * bounds the hashes of its floor and ceiling, because a double is truncated and a decimal
 * rounded to an integer before hashing, and equal values of the two types may hash apart.
 */
function hashedBounds(path: string, preds: readonly Predicate[]): FieldBounds {
  let acc: Interval[] | undefined;
  const from: Predicate[] = [];
  for (const p of preds) {
    if (p.path !== path || p.group !== undefined) continue;
    const node = p.node;
    const values =
      node.kind === 'eq'
        ? [node.value]
        : node.kind === 'in' && node.regexes.length === 0
          ? node.values
          : undefined;
    if (values === undefined) continue;
    const hashes: BsonValue[] = [];
    for (const v of values) {
      hashes.push(hashBsonValue(v));
      const n = numericValue(v);
      if (n !== undefined && Number.isFinite(n) && !Number.isInteger(n)) {
        hashes.push(hashBsonValue(Long.fromNumber(Math.floor(n))));
        hashes.push(hashBsonValue(Long.fromNumber(Math.ceil(n))));
      }
    }
    hashes.sort(compareBson);
    const points = hashes
      .filter((h, k) => k === 0 || compareBson(hashes[k - 1] as BsonValue, h) !== 0)
      .map(point);
    acc = acc === undefined ? points : intersect(acc, points);
    from.push(p);
  }
  return acc === undefined ? { intervals: [fullInterval], from: [] } : { intervals: acc, from };
}

/** Whether `query` predicates imply the index's partialFilterExpression. */
function impliesPartial(index: IndexAccess, preds: readonly Predicate[]): boolean {
  const partial = index.partialFilter;
  if (partial === undefined) return true;
  const filter = partialFilterMatcher(partial);
  const top = preds.filter((p) => p.group === undefined);
  const implied = (node: MatchNode): boolean => {
    if (node.kind === 'and') return node.children.every(implied);
    if (node.kind === 'or') return node.children.some(implied);
    if (node.kind === 'alwaysTrue') return true;
    const path = nodePath(node);
    if (path === undefined) return false;
    const mine = top.filter((p) => p.path === path);
    if (node.kind === 'exists') return mine.some((p) => !mayMatchMissing(p.node));
    if (!['eq', 'lt', 'lte', 'gt', 'gte', 'in'].includes(node.kind) || mayMatchMissing(node))
      return false;
    const want = leafBounds(node);
    if (want === undefined) return false;
    return mine.some((p) => {
      if (mayMatchMissing(p.node) || !['eq', 'lt', 'lte', 'gt', 'gte', 'in'].includes(p.node.kind))
        return false;
      // Every value the query's predicate allows is one the partial filter allows.
      return sameIntervals(intersect(p.bounds.intervals, want.intervals), p.bounds.intervals);
    });
  };
  return implied(filter.tree);
}

function sameIntervals(a: readonly Interval[], b: readonly Interval[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i] as Interval;
      return (
        compareBson(x.low.value, y.low.value) === 0 &&
        compareBson(x.high.value, y.high.value) === 0 &&
        x.low.inclusive === y.low.inclusive &&
        x.high.inclusive === y.high.inclusive
      );
    })
  );
}

interface SortKey {
  readonly path: string;
  readonly direction: 1 | -1;
}

function parseSortSpec(spec: BsonDocument | undefined): SortKey[] | undefined {
  if (spec === undefined) return undefined;
  const keys: SortKey[] = [];
  for (const [path, v] of Object.entries(spec)) {
    const n = numericValue(v);
    if (n === undefined || path === '$natural') return undefined;
    keys.push({ path, direction: n < 0 ? -1 : 1 });
  }
  return keys.length === 0 ? undefined : keys;
}

/** Whether scanning the index (forward or backward) with these bounds yields the sort order. */
function sortProvided(
  index: IndexAccess,
  state: IndexState,
  bounds: readonly FieldBounds[],
  sort: readonly SortKey[],
): { reverse: boolean } | undefined {
  if (state.hasTruncatedKeys) return undefined;
  let p = 0;
  let reverse: boolean | undefined;
  for (const s of sort) {
    while (
      p < index.fields.length &&
      index.fields[p]?.path !== s.path &&
      isSinglePoint(bounds[p] as FieldBounds)
    )
      p++;
    const f = index.fields[p];
    if (f === undefined || f.path !== s.path || f.plugin === 'hashed') return undefined;
    if ((state.multikeyPaths[p] ?? []).length > 0) return undefined;
    const r = f.direction !== s.direction;
    if (reverse !== undefined && reverse !== r) return undefined;
    reverse = r;
    p++;
  }
  return { reverse: reverse ?? false };
}

function isSinglePoint(b: FieldBounds): boolean {
  return b.intervals.length === 1 && isPoint(b.intervals[0] as Interval);
}

interface Candidate {
  readonly label: string;
  readonly index: IndexAccess | undefined;
  readonly pointPrefix: number;
  readonly providesSort: boolean;
  readonly covered: boolean;
  readonly unique: boolean;
  readonly order: number;
  build(): PlanStage;
}

interface PlanContext {
  readonly coll: Collection;
  readonly req: QueryRequest;
  readonly view: ReadView;
  readonly tree: MatchNode | undefined;
  readonly preds: readonly Predicate[];
  readonly sort: readonly SortKey[] | undefined;
  /** The filter as explain shows it (computed on demand). */
  readonly parsedQuery: () => BsonDocument;
}

function multiKeyPathsDoc(index: IndexAccess, state: IndexState): BsonDocument {
  const out: BsonDocument = {};
  index.fields.forEach((f, i) => {
    if (f.path === WILDCARD_VALUE_FIELD) return;
    out[f.path] = (state.multikeyPaths[i] ?? []).map((c) => f.parts.slice(0, c + 1).join('.'));
  });
  return out;
}

function indexExplain(
  index: IndexAccess,
  state: IndexState,
  reverse: boolean,
  boundsDoc: BsonDocument,
): Record<string, BsonValue> {
  const v = index.meta.spec['v'];
  return {
    keyPattern: index instanceof WildcardPathAccess ? index.explainKey : index.meta.key,
    indexName: index.meta.name,
    isMultiKey: state.multikeyPaths.some((p) => p.length > 0),
    multiKeyPaths: multiKeyPathsDoc(index, state),
    isUnique: index.unique,
    // A wildcard index's view plans as sparse; explain shows the index's own option.
    isSparse: index instanceof WildcardPathAccess ? index.wildcardIndex.sparse : index.sparse,
    isPartial: index.partialFilter !== undefined,
    indexVersion: new Int32(numericValue(v) ?? 2),
    direction: reverse ? 'backward' : 'forward',
    indexBounds: boundsDoc,
  };
}

/** Builds an IXSCAN over per-field bounds. */
function indexScan(
  index: IndexAccess,
  state: IndexState,
  bounds: readonly FieldBounds[],
  reverse: boolean,
  filter?: () => BsonDocument | undefined,
): IndexScanStage {
  const fields = index.fields.map((f, i) =>
    byteIntervals((bounds[i] as FieldBounds).intervals, f.direction),
  );
  const plan = planRanges(fields, index.directions);
  const boundsOf = (): BsonDocument => {
    const doc: BsonDocument = {};
    index.fields.forEach((f, i) => {
      if (f.path === WILDCARD_VALUE_FIELD) return;
      doc[f.path] = intervalStrings((bounds[i] as FieldBounds).intervals, f.direction);
    });
    return doc;
  };
  // A subpath scan of a wildcard index meets one document under several paths.
  const dedup =
    state.multikeyPaths.some((p) => p.length > 0) ||
    (index instanceof WildcardPathAccess && index.spreads);
  return new IndexScanStage({
    index,
    plan,
    reverse,
    dedup,
    state,
    explain: () => {
      const f = filter?.();
      return {
        ...indexExplain(index, state, reverse, boundsOf()),
        ...(f === undefined ? {} : { filter: f }),
      };
    },
  });
}

/** The conjuncts the bounds do not answer exactly (what explain shows as FETCH's filter). */
function residualFilter(
  ctx: PlanContext,
  state: IndexState | undefined,
  bounds: readonly FieldBounds[] | undefined,
  index: IndexAccess | undefined,
): BsonDocument | undefined {
  const all = conjuncts(ctx.tree);
  if (all.length === 0) return undefined;
  const rest = all.filter((node) => {
    if (index === undefined || bounds === undefined || state === undefined) return true;
    const path = nodePath(node);
    const i = index.fields.findIndex((f) => f.path === path);
    if (i < 0 || index.fields[i]?.plugin === 'hashed') return true;
    const b = bounds[i] as FieldBounds;
    if (!b.from.some((p) => p.node === node)) return true;
    if ((state.multikeyPaths[i] ?? []).length > 0 || state.hasTruncatedKeys) return true;
    return !isExact(node);
  });
  if (rest.length === 0) return undefined;
  return serializeFilter(
    rest.length === 1 ? (rest[0] as MatchNode) : { kind: 'and', children: rest },
  );
}

/** Predicates whose index bounds hold exactly the keys of matching values. */
function isExact(node: MatchNode): boolean {
  const scalar = (v: BsonValue): boolean =>
    v !== null && !Array.isArray(v) && !(v instanceof BSONRegExp);
  switch (node.kind) {
    case 'eq':
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return scalar(node.value);
    case 'in':
      return node.regexes.length === 0 && node.values.every(scalar);
    default:
      return false;
  }
}

/** Whether the index key alone answers the query (no FETCH): see the file comment. */
function coverable(
  ctx: PlanContext,
  index: IndexAccess,
  state: IndexState,
  bounds: readonly FieldBounds[],
  providesSort: boolean,
): boolean {
  const { req } = ctx;
  if (state.hasTruncatedKeys || state.multikeyPaths.some((p) => p.length > 0)) return false;
  // A clustered collection's _id order is its records' (mongod has no _id index to cover with).
  if (index.isIdIndex && isClustered(ctx.coll)) return false;
  if (index.kind === 'hashed') return false;
  const paths = index.fields.map((f) => f.path);
  if (paths.some((p) => paths.some((q) => q !== p && q.startsWith(`${p}.`)))) return false;
  // A position ("a.0") reaches into an array without making the index multikey: the key
  // alone cannot rebuild the document's shape there.
  if (index.fields.some((f) => f.parts.some((part) => /^\d+$/.test(part)))) return false;
  let required: readonly string[];
  if (req.projectionSpec !== undefined && Object.keys(req.projectionSpec).length > 0) {
    if (req.projectionFields === undefined) return false;
    required = req.projectionFields;
  } else if (req.needsDocument === false) {
    required = [];
  } else {
    return false;
  }
  // Every filtered and returned field must be bounded away from null and undefined: a key
  // null may stand for a missing field, which the rebuilt document could not tell apart.
  const solid = new Set<string>();
  index.fields.forEach((f, i) => {
    const b = bounds[i] as FieldBounds;
    if (b.from.length > 0 && !allowsNullish(b.intervals)) solid.add(f.path);
  });
  for (const node of conjuncts(ctx.tree)) {
    if (!['eq', 'lt', 'lte', 'gt', 'gte', 'in', 'regex'].includes(node.kind)) return false;
    const path = nodePath(node);
    if (path === undefined || !solid.has(path)) return false;
  }
  if (!required.every((p) => solid.has(p))) return false;
  if (ctx.sort !== undefined && !providesSort && !ctx.sort.every((s) => solid.has(s.path)))
    return false;
  return true;
}

function analyzeIndex(
  ctx: PlanContext,
  index: IndexAccess,
  order: number,
  hinted: boolean,
): Candidate | undefined {
  const state = index.readState(ctx.view);
  if (!hinted) {
    if (!impliesPartial(index, ctx.preds)) return undefined;
  }
  const bounds = boundsFor(index, state, ctx.preds);
  const first = bounds[0] as FieldBounds;
  const bounded = first.from.length > 0 && (!isFullRange(first.intervals) || index.sparse);
  const sortInfo =
    ctx.sort === undefined ? undefined : sortProvided(index, state, bounds, ctx.sort);
  if (!hinted) {
    if (!bounded && sortInfo === undefined) return undefined;
    if (index.sparse) {
      const requiresField = ctx.preds.some(
        (p) =>
          p.group === undefined &&
          index.fields.some((f) => f.path === p.path) &&
          !mayMatchMissing(p.node),
      );
      if (!requiresField) return undefined;
    }
  }
  let pointPrefix = 0;
  while (
    pointPrefix < bounds.length &&
    (bounds[pointPrefix] as FieldBounds).from.length > 0 &&
    (bounds[pointPrefix] as FieldBounds).intervals.every(isPoint)
  )
    pointPrefix++;
  const reverse = sortInfo?.reverse ?? false;
  const covered = coverable(ctx, index, state, bounds, sortInfo !== undefined);
  const build = (): PlanStage => {
    const residual = (): BsonDocument | undefined => residualFilter(ctx, state, bounds, index);
    if (covered) {
      // A covered scan carries the filter itself, as mongod's covered IXSCAN does.
      const scan = indexScan(index, state, bounds, reverse, residual);
      return new CoveredRowsStage(
        scan,
        index.fields.map((f) => f.path),
        index.directions,
        ctx.req.matcher,
      );
    }
    const fetch = new FetchStage(
      indexScan(index, state, bounds, reverse),
      ctx.coll,
      ctx.req.matcher,
      keyShape(ctx.req, index),
      residual,
    );
    if (!index.isIdIndex || !isClustered(ctx.coll)) return fetch;
    // mongod scans the records between two _id values and re-applies the whole filter.
    return new ClusteredScanStage(fetch, {
      reverse,
      ...recordBounds((bounds[0] as FieldBounds).intervals),
      filter: () => residualFilter(ctx, undefined, undefined, undefined),
    });
  };
  return {
    label: index.meta.name,
    index,
    pointPrefix,
    providesSort: sortInfo !== undefined,
    covered,
    unique: index.unique && pointPrefix === index.fields.length,
    order,
    build,
  };
}

/**
 * The per-path views of a wildcard index for the predicates of `tree`, each with the
 * predicates to plan it by: those of the query and one that bounds the $_path field to the
 * view's path (and the paths below it for a subpath scan).
 */
function wildcardAccesses(
  index: IndexAccess,
  preds: readonly Predicate[],
  tree: MatchNode | undefined,
  coll: Collection,
): Array<{ view: WildcardPathAccess; preds: Predicate[] }> {
  return wildcardViews(index, preds, elemMatchPaths(tree), coll.meta).map((view) => {
    // A prefix view's path bounds hold every document with keys, which is not a predicate
    // that makes the (sparse) view usable: its node stands for one that matches a missing field.
    const pathPred: Predicate = {
      path: WILDCARD_PATH_FIELD,
      node: comparisonNode('eq', WILDCARD_PATH_FIELD, view.path ?? null),
      bounds: { intervals: pathIntervals(view) },
    };
    return { view, preds: [...preds, pathPred] };
  });
}

/** The paths of the top-level $elemMatch predicates. */
function elemMatchPaths(tree: MatchNode | undefined): string[] {
  return conjuncts(tree).flatMap((n) =>
    n.kind === 'elemMatchObject' || n.kind === 'elemMatchValue' ? [n.path] : [],
  );
}

/** Indexes that serve ordinary predicates (the others serve only their own operators). */
function servesPredicates(index: IndexAccess): boolean {
  return index.kind === 'btree' || index.kind === 'hashed';
}

function keyShape(
  req: QueryRequest,
  index: IndexAccess,
): { paths: readonly string[]; directions: readonly (1 | -1)[] } | undefined {
  return req.returnKey === true
    ? { paths: index.fields.map((f) => f.path), directions: index.directions }
    : undefined;
}

/** A top-level $or whose every branch can use an index: OR of index scans, then FETCH. */
function orCandidate(ctx: PlanContext, indexes: readonly IndexAccess[]): Candidate | undefined {
  const tree = ctx.tree;
  if (tree === undefined || tree.kind !== 'or' || tree.children.length < 2) return undefined;
  const builders: Array<() => KeySource> = [];
  for (const branch of tree.children) {
    const branchPreds = collectPredicates(branch, ctx.req.collator);
    // Each branch may use any index, a wildcard index through its per-path views.
    const options = indexes.flatMap((index) =>
      index.kind === 'wildcard'
        ? wildcardAccesses(index, branchPreds, branch, ctx.coll)
        : [{ view: index, preds: branchPreds }],
    );
    let best: { score: number[]; make: () => KeySource } | undefined;
    for (const { view: index, preds } of options) {
      const state = index.readState(ctx.view);
      if (!impliesPartial(index, preds)) continue;
      const bounds = boundsFor(index, state, preds);
      const first = bounds[0] as FieldBounds;
      if (first.from.length === 0 || (isFullRange(first.intervals) && !index.sparse)) continue;
      if (
        index.sparse &&
        !preds.some(
          (p) =>
            p.group === undefined &&
            index.fields.some((f) => f.path === p.path) &&
            !mayMatchMissing(p.node),
        )
      )
        continue;
      let points = 0;
      while (
        points < bounds.length &&
        (bounds[points] as FieldBounds).from.length > 0 &&
        (bounds[points] as FieldBounds).intervals.every(isPoint)
      )
        points++;
      const score = [points, index.unique ? 1 : 0, -index.fields.length];
      if (best === undefined || compareScores(score, best.score) > 0)
        best = { score, make: () => indexScan(index, state, bounds, false) };
    }
    if (best === undefined) return undefined;
    builders.push(best.make);
  }
  return {
    label: 'OR',
    index: undefined,
    pointPrefix: 0,
    providesSort: false,
    covered: false,
    unique: false,
    order: indexes.length,
    build: () =>
      new FetchStage(
        new OrStage(builders.map((b) => b())),
        ctx.coll,
        ctx.req.matcher,
        undefined,
        () => ctx.parsedQuery(),
      ),
  };
}

function compareScores(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

// ---- trial -------------------------------------------------------------------------------------

interface TrialResult {
  readonly candidate: Candidate;
  readonly stage: PlanStage;
  readonly eof: boolean;
  readonly produced: number;
  readonly cost: number;
}

function totalExamined(stats: StageStats): number {
  let n = (stats.keysExamined ?? 0) + (stats.docsExamined ?? 0);
  for (const c of stats.children) n += totalExamined(c);
  return n;
}

function runTrial(candidate: Candidate, view: ReadView): TrialResult {
  // A bounded run, consumed in place (no slice: it never sees NEED_TIME).
  return runSync(() => trial(candidate, view));
}

function trial(candidate: Candidate, view: ReadView): TrialResult {
  const stage = candidate.build();
  let produced = 0;
  let eof = false;
  for (;;) {
    if (
      produced >= limits.planTrialResultsMax ||
      totalExamined(stage.stats) >= limits.planTrialWorksMax
    )
      break;
    const row = stage.next(view);
    if (row === undefined) {
      eof = true;
      break;
    }
    if (row !== NEED_TIME) produced++;
  }
  return { candidate, stage, eof, produced, cost: Math.max(1, totalExamined(stage.stats)) };
}

function better(a: TrialResult, b: TrialResult, wantSort: boolean): boolean {
  if (a.eof !== b.eof) return a.eof;
  if (a.eof && b.eof && a.cost !== b.cost) return a.cost < b.cost;
  if (!a.eof) {
    const pa = a.produced / a.cost;
    const pb = b.produced / b.cost;
    if (pa !== pb) return pa > pb;
  }
  const ka = [
    wantSort && a.candidate.providesSort ? 1 : 0,
    a.candidate.pointPrefix,
    a.candidate.unique ? 1 : 0,
    a.candidate.covered ? 1 : 0,
    -a.candidate.order,
  ];
  const kb = [
    wantSort && b.candidate.providesSort ? 1 : 0,
    b.candidate.pointPrefix,
    b.candidate.unique ? 1 : 0,
    b.candidate.covered ? 1 : 0,
    -b.candidate.order,
  ];
  return compareScores(ka, kb) > 0;
}

// ---- the plan ----------------------------------------------------------------------------------

/** What explain shows about the planning of a query. */
export interface PlanExplain {
  readonly namespace: string;
  readonly parsedQuery: BsonDocument;
  /** queryHash and planCacheKey of the query's shape (query-shape.ts). */
  readonly hashes: QueryHashes;
  readonly winningPlan: StageStats;
  /** The other candidates' plans (with their trial statistics). */
  readonly rejectedPlans: readonly StageStats[];
  /** Every candidate's trial, the winner first (allPlansExecution). */
  readonly trials: ReadonlyArray<{ stats: StageStats; produced: number }>;
}

function projectionStageName(spec: BsonDocument | undefined): string {
  if (spec === undefined) return 'PROJECTION_DEFAULT';
  const simple = Object.entries(spec).every(
    ([k, v]) =>
      !k.includes('.') &&
      !k.startsWith('$') &&
      (typeof v === 'boolean' || numericValue(v) !== undefined),
  );
  return simple ? 'PROJECTION_SIMPLE' : 'PROJECTION_DEFAULT';
}

const plannedByStats = new WeakMap<StageStats, PlannedQuery>();

export class PlannedQuery implements PlanStage {
  readonly stats: StageStats;
  private root: PlanStage | undefined;
  private explainInfo: PlanExplain | undefined;

  /** The planning's outcome once it has run (undefined before the first pull). */
  get planned(): PlanExplain | undefined {
    return this.explainInfo;
  }

  constructor(
    private readonly coll: Collection,
    private readonly req: QueryRequest,
    private readonly hinted: IndexAccess | undefined,
    private readonly minMax: MinMaxRange | undefined,
  ) {
    // The stats object's getters read the plan chosen later, so they need the instance.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const stats = {
      get stage(): string {
        return self.root?.stats.stage ?? 'PLAN';
      },
      get nReturned(): number {
        return self.root?.stats.nReturned ?? 0;
      },
      get works(): number {
        return self.root?.stats.works ?? 0;
      },
      get docsExamined(): number | undefined {
        return self.root?.stats.docsExamined;
      },
      get keysExamined(): number | undefined {
        return self.root?.stats.keysExamined;
      },
      get children(): StageStats[] {
        return self.root?.stats.children ?? [];
      },
      get extra(): Record<string, BsonValue> | undefined {
        return self.root?.stats.extra;
      },
    };
    this.stats = stats as StageStats;
    plannedByStats.set(this.stats, this);
  }

  next(view: ReadView): Pull {
    if (this.root === undefined) {
      // The bounds of a long $in take a while to build: in slices, before the plan is chosen.
      if (!advanceInBounds(treeOf(this.req.matcher))) return NEED_TIME;
      this.prepare(view);
    }
    return (this.root as PlanStage).next(view);
  }

  isEOF(): boolean {
    return this.root?.isEOF?.() === true;
  }

  /** Chooses the plan (once) on `view`; returns what explain needs. */
  prepare(view: ReadView): PlanExplain {
    if (this.explainInfo !== undefined) return this.explainInfo;
    const { coll, req } = this;
    const tree = treeOf(req.matcher);
    let parsed: BsonDocument | undefined;
    const parsedQuery = (): BsonDocument =>
      (parsed ??= tree === undefined ? {} : serializeFilter(tree));
    // Under a collation an index's (binary) order of strings is not the sort's: a blocking sort orders.
    const sort = req.collator === undefined ? parseSortSpec(req.sortSpec) : undefined;
    const ctx: PlanContext = {
      coll,
      req,
      view,
      tree,
      preds: collectPredicates(tree, req.collator),
      sort,
      parsedQuery,
    };
    let access: PlanStage;
    let providesSort = false;
    let covered = false;
    let rejected: StageStats[] = [];
    let trials: Array<{ stats: StageStats; produced: number }> = [];
    let id =
      req.natural === undefined && this.hinted === undefined && this.minMax === undefined
        ? pinnedId(req.filter)
        : undefined;
    if (id !== undefined && req.collator !== undefined && collationSensitive(id)) id = undefined;
    const text = splitText(tree);
    const near = text === undefined ? splitNear(tree) : undefined;
    if (near !== undefined) {
      access = nearPlan({
        coll,
        view,
        node: near.node,
        rest: near.rest,
        interrupt: req.interrupt,
      });
    } else if (text !== undefined) {
      access = textPlan({
        coll,
        view,
        search: text.search,
        rest: text.rest,
        wantTextScore: req.wantTextScore === true,
        interrupt: req.interrupt,
      });
    } else if (req.natural !== undefined) {
      access = new CollScanStage(coll, req.matcher, req.natural === -1, req.tailable === true);
      decorateCollScan(access, ctx);
    } else if (id !== undefined) {
      access = new IdLookupStage(coll, id, req.matcher);
      if (isClustered(coll))
        access = new ClusteredScanStage(access, {
          reverse: false,
          min: id,
          max: id,
          filter: () => residualFilter(ctx, undefined, undefined, undefined),
        });
      providesSort = true;
    } else if (this.minMax !== undefined && this.hinted !== undefined) {
      access = this.minMaxScan(ctx, this.hinted, this.minMax);
    } else {
      const candidates: Candidate[] = [];
      const geo = (only?: IndexAccess): Candidate[] =>
        geoCandidates(coll, view, tree, req.matcher, () => ctx.parsedQuery(), only).map((g, i) => ({
          label: g.index.meta.name,
          index: g.index,
          pointPrefix: 0,
          providesSort: false,
          covered: false,
          unique: false,
          order: coll.indexes.length + i,
          build: g.build,
        }));
      const wildcard = (index: IndexAccess, order: number): Candidate[] =>
        wildcardAccesses(index, ctx.preds, ctx.tree, coll).flatMap(({ view, preds }) => {
          const c = analyzeIndex({ ...ctx, preds }, view, order, false);
          return c === undefined ? [] : [c];
        });
      if (this.hinted?.kind === 'wildcard') {
        // A hinted wildcard index serves the paths it can; otherwise the scan answers.
        candidates.push(...wildcard(this.hinted, 0));
      } else if (this.hinted !== undefined && !servesPredicates(this.hinted)) {
        // A hinted geo index serves the geo predicates; otherwise the scan answers.
        candidates.push(...geo(this.hinted));
      } else if (this.hinted !== undefined) {
        const c = analyzeIndex(ctx, this.hinted, 0, true);
        if (c !== undefined) candidates.push(c);
      } else {
        coll.indexes.forEach((index, i) => {
          if (!index.hidden && index.kind === 'wildcard') candidates.push(...wildcard(index, i));
          // Special indexes (text, geo) serve only their own operators.
          if (index.hidden || !servesPredicates(index)) return;
          const c = analyzeIndex(ctx, index, i, false);
          if (c !== undefined) candidates.push(c);
        });
        candidates.push(...geo());
        if (candidates.length === 0) {
          const or = orCandidate(
            ctx,
            coll.indexes.filter((i) => !i.hidden && (servesPredicates(i) || i.kind === 'wildcard')),
          );
          if (or !== undefined) candidates.push(or);
        }
      }
      if (candidates.length === 0) {
        access = new CollScanStage(coll, req.matcher, false);
        decorateCollScan(access, ctx);
      } else if (candidates.length === 1) {
        const c = candidates[0] as Candidate;
        access = c.build();
        providesSort = c.providesSort;
        covered = c.covered;
      } else {
        const results = candidates.map((c) => runTrial(c, view));
        let best = results[0] as TrialResult;
        for (const r of results.slice(1)) if (better(r, best, ctx.sort !== undefined)) best = r;
        access = best.candidate.build();
        providesSort = best.candidate.providesSort;
        covered = best.candidate.covered;
        rejected = results.filter((r) => r !== best).map((r) => r.stage.stats);
        trials = [best, ...results.filter((r) => r !== best)].map((r) => ({
          stats: r.stage.stats,
          produced: r.produced,
        }));
      }
    }
    let stage = access;
    if (req.sort !== undefined && !providesSort) {
      const topK =
        req.limit !== undefined && req.limit > 0 ? (req.skip ?? 0) + req.limit : undefined;
      const sort = new SortStage(stage, req.sort, {
        ...(topK === undefined ? {} : { limit: topK }),
        allowDiskUse: req.allowDiskUse,
        memory: req.memory,
        interrupt: req.interrupt,
      });
      if (req.sortSpec !== undefined)
        Object.assign(sort.stats, { extra: sortExplain(sort, req.sortSpec, topK) });
      stage = sort;
    }
    if (req.skip !== undefined && req.skip > 0) stage = new SkipStage(stage, req.skip);
    if (req.limit !== undefined && req.limit > 0) stage = new LimitStage(stage, req.limit);
    if (req.projection !== undefined) {
      const name = covered ? 'PROJECTION_COVERED' : projectionStageName(req.projectionSpec);
      stage = new TransformStage(stage, req.projection, name);
      if (req.projectionSpec !== undefined)
        Object.assign(stage.stats, { extra: { transformBy: req.projectionSpec } });
    }
    this.root = stage;
    let hashes: QueryHashes | undefined;
    const shape = {
      tree,
      sortSpec: req.sortSpec,
      projectionSpec: req.projectionSpec,
      collator: req.collator,
    };
    this.explainInfo = {
      namespace: coll.ns,
      get parsedQuery(): BsonDocument {
        return parsedQuery();
      },
      get hashes(): QueryHashes {
        return (hashes ??= queryHashes(shape, coll.indexes));
      },
      winningPlan: stage.stats,
      rejectedPlans: rejected,
      trials: trials.length > 0 ? trials : [{ stats: stage.stats, produced: 0 }],
    };
    return this.explainInfo;
  }

  private minMaxScan(ctx: PlanContext, index: IndexAccess, range: MinMaxRange): PlanStage {
    const state = index.readState(ctx.view);
    const scan = new IndexScanStage({
      index,
      plan: { ranges: [{ start: range.start, end: range.end }], residual: [] },
      reverse: false,
      dedup: state.multikeyPaths.some((p) => p.length > 0),
      state,
      explain: () => indexExplain(index, state, false, {}),
    });
    return new FetchStage(scan, ctx.coll, ctx.req.matcher, keyShape(ctx.req, index), () =>
      residualFilter(ctx, undefined, undefined, undefined),
    );
  }
}

/** SORT's explain parameters; the runtime ones (filtered out of queryPlanner) read the sorter as they are shown. */
function sortExplain(
  sort: SortStage,
  sortSpec: BsonDocument,
  topK: number | undefined,
): Record<string, BsonValue> {
  const extra: Record<string, BsonValue> = {
    sortPattern: sortSpec,
    memLimit: new Int32(sort.memoryLimitBytes),
    ...(topK === undefined ? {} : { limitAmount: new Int32(topK) }),
    type: 'simple',
  };
  return Object.defineProperties(extra, {
    totalDataSizeSorted: {
      enumerable: true,
      get: () => Long.fromNumber(sort.sorterStats?.totalDataSizeSorted ?? 0),
    },
    usedDisk: { enumerable: true, get: () => (sort.sorterStats?.spills ?? 0) > 0 },
    spills: { enumerable: true, get: () => Long.fromNumber(sort.sorterStats?.spills ?? 0) },
  });
}

function decorateCollScan(stage: PlanStage, ctx: PlanContext): void {
  const extra = stage.stats.extra;
  if (extra === undefined) return;
  const fixed = { ...extra };
  Object.assign(stage.stats, {
    extra: lazyExtra(() => {
      const filter = residualFilter(ctx, undefined, undefined, undefined);
      return filter === undefined ? fixed : { ...fixed, filter };
    }),
  });
}

/** The explain information of a plan built by planQuery that has been planned already (else undefined). */
export function plannedQueryInfo(stats: StageStats): PlanExplain | undefined {
  const planned = plannedByStats.get(stats);
  if (planned !== undefined) return planned.planned;
  for (const c of stats.children) {
    const found = plannedQueryInfo(c);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The planner's explain information for a plan built by planQuery (planning it on `view` if not yet done). */
export function prepareQueryPlan(stats: StageStats, view: ReadView): PlanExplain | undefined {
  const planned = plannedByStats.get(stats);
  if (planned !== undefined) return planned.prepare(view);
  for (const c of stats.children) {
    const found = prepareQueryPlan(c, view);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The plan for a query: chosen lazily on the first pull (see the file comment). Hints and
 * min/max are checked now, so their errors reach the command before any document does.
 */
export function planQuery(coll: Collection | undefined, req: QueryRequest): PlanStage {
  if (coll === undefined) {
    let stage: PlanStage = new RowsStage([], 'EOF');
    if (req.projection !== undefined) stage = new TransformStage(stage, req.projection);
    return stage;
  }
  checkSpecialPredicates(treeOf(req.matcher), {
    natural: req.natural !== undefined,
    hint: req.hint !== undefined && req.hint !== null,
  });
  const hinted = req.natural === undefined ? hintedIndex(coll, req.hint) : undefined;
  const minMax = minMaxRange(hinted, req.min, req.max);
  return new PlannedQuery(coll, req, hinted, minMax);
}
