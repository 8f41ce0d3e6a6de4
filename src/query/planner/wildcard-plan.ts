// Wildcard indexes in the planner. For one query path P a wildcard index is, as in mongod, the
// two-field index {$_path: 1, P: ±1}: its entries for P are the keys ("P", value). The view
// below is that index over the wildcard index's own table, treated as
//
// - sparse for planning: a document without a leaf at P has no key there, so only predicates
//   that cannot match a missing field may use it (not {P: null}, $exists: false, $ne, $not);
//   explain shows the index's own `isSparse` (false), as mongod's IXSCAN does;
// - multikey at the components of P where a document held an array (the index state keeps
//   those paths, as mongod's multikey metadata keys), which keeps bounds from being
//   intersected across array elements, makes the scan deduplicate, and stops the view from
//   sorting or covering;
// - sorting by P when P is bounded and not multikey (the $_path field is then a single point),
//   and covering a projection of P alone under the same conditions, as mongod's expanded
//   index entries do.
//
// A path is served only when the index holds P's leaves (projection), P has no numeric
// (positional) or '$'-prefixed component, no $elemMatch applies to P or a path above it, and
// every predicate on P bounds it to scalars away from null (an object at P is not a key at P:
// its leaves are keys below it) or is `$exists: true`. For `$exists: true` the view scans, as
// mongod's subpath bounds, the keys of P itself and of every path below it (["P", "P"] and
// ["P.", "P/") on $_path, [MinKey, MaxKey] on the value) and deduplicates: a document whose P
// is a non-empty subdocument has keys only below P.
//
// A compound wildcard index ({a: 1, "b.$**": 1}) gives, as mongod's expanded index entries, a
// view per served path with its regular fields around ($_path, P): {a: 1, $_path: 1, P: 1}; and,
// when a predicate bounds a regular field before the wildcard, a prefix view {a: 1, $_path: 1}
// whose $_path bounds hold every path and MinKey (the key of a document with regular fields
// but no leaf), which deduplicates, and which needs a predicate that cannot match a missing
// field (a document with neither leaves nor regular fields has no key).

import { Int32 } from 'bson';
import { MaxKey, MinKey } from 'bson';
import { documentFrom } from '../../bson/document.js';
import { asDocument, isArray } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { CollectionMeta } from '../../catalog/collection.js';
import { IndexAccess } from '../../catalog/index-access.js';
import type { IndexState } from '../../catalog/index-access.js';
import { wildcardIndexesPath, wildcardIndexesSubtree } from '../../catalog/wildcard-keys.js';
import type { ReadView } from '../../storage/engine.js';
import { allowsNullish, isFullRange, point } from './bounds.js';
import type { Interval, LeafBounds } from './bounds.js';

/** The name mongod gives the path field of a wildcard key. */
export const WILDCARD_PATH_FIELD = '$_path';
/**
 * The name the value field of a prefix view goes by here (mongod names it "$_path" too, which
 * a key pattern cannot hold twice; explain shows only the first).
 */
export const WILDCARD_VALUE_FIELD = '$_value';

/**
 * A wildcard index seen as {$_path: 1, <path>: ±1} for one path, with a compound index's
 * regular fields around them; or, with no path, as the index of its regular fields before the
 * wildcard (a prefix view: every path and value, as mongod's "$_path" expansion).
 */
export class WildcardPathAccess extends IndexAccess {
  override readonly sparse = true;
  /** The key pattern explain shows (a prefix view shows one "$_path" field). */
  readonly explainKey: BsonDocument;

  /**
   * @param path the query path the view serves; undefined for a prefix view
   * @param subpaths the scan also reads the keys of the paths below `path` ($exists: true)
   */
  constructor(
    readonly wildcardIndex: IndexAccess,
    readonly path: string | undefined,
    collection: Pick<CollectionMeta, 'db' | 'name'>,
    readonly subpaths: boolean,
  ) {
    const entries: Array<[string, BsonValue]> = [];
    const shown: Array<[string, BsonValue]> = [];
    wildcardIndex.fields.forEach((f, i) => {
      if (i !== wildcardIndex.wildcardPos) {
        const v = wildcardIndex.meta.key[f.path] as BsonValue;
        entries.push([f.path, v]);
        shown.push([f.path, v]);
        return;
      }
      entries.push([WILDCARD_PATH_FIELD, new Int32(1)]);
      shown.push([WILDCARD_PATH_FIELD, new Int32(1)]);
      entries.push([path ?? WILDCARD_VALUE_FIELD, new Int32(f.direction)]);
      if (path !== undefined) shown.push([path, new Int32(f.direction)]);
    });
    const key = documentFrom(entries);
    super({ ...wildcardIndex.meta, key, spec: { ...wildcardIndex.meta.spec, key } }, collection);
    this.explainKey = documentFrom(shown);
  }

  /** One document may have several keys in the scanned bounds: the scan deduplicates. */
  get spreads(): boolean {
    return this.subpaths || this.path === undefined;
  }

  /** The state of the path's keys: multikey at the components where an array was met. */
  override readState(view: ReadView): IndexState {
    const state = this.wildcardIndex.readState(view);
    const arrays = new Set(state.wildcardMultikeyPaths ?? []);
    const parts = this.path?.split('.') ?? [];
    const multikey = parts.flatMap((_, i) =>
      arrays.has(parts.slice(0, i + 1).join('.')) ? [i] : [],
    );
    const valueField = this.path ?? WILDCARD_VALUE_FIELD;
    return {
      multikeyPaths: this.fields.map((f) => (f.path === valueField ? multikey : [])),
      hasTruncatedKeys: state.hasTruncatedKeys,
    };
  }
}

/**
 * The bounds of the $_path field: the path, with `subpaths` every path below it too; for a
 * prefix view MinKey (the key of a document without leaves) and every string.
 */
export function pathIntervals(view: WildcardPathAccess): Interval[] {
  if (view.path === undefined)
    return [
      point(new MinKey()),
      { low: { value: '', inclusive: true }, high: { value: {}, inclusive: false } },
    ];
  const own = point(view.path);
  if (!view.subpaths) return [own];
  // "P." up to "P/" ('/' follows '.'): exactly the dotted paths that extend P.
  const below: Interval = {
    low: { value: `${view.path}.`, inclusive: true },
    high: { value: `${view.path}/`, inclusive: false },
  };
  return [own, below];
}

function wideEndpoint(v: BsonValue): boolean {
  return isArray(v) || asDocument(v) !== undefined || v instanceof MinKey || v instanceof MaxKey;
}

/**
 * Whether a predicate's bounds can be answered from the wildcard keys at its path: bounds of
 * scalars of one type (type bracketing keeps them there); an object at the path is no key
 * there (its leaves are keys below it), so bounds reaching objects or arrays cannot be served.
 */
function servable(bounds: LeafBounds): boolean {
  if (bounds.existsOnly === true) return true;
  if (isFullRange(bounds.intervals)) return false;
  if (allowsNullish(bounds.intervals)) return false;
  return !bounds.intervals.some((iv) => wideEndpoint(iv.low.value) || wideEndpoint(iv.high.value));
}

interface PathPredicate {
  readonly path: string;
  readonly bounds: LeafBounds;
  readonly group?: unknown;
}

/** The per-path views of a wildcard index the predicates may use. */
export function wildcardViews(
  index: IndexAccess,
  preds: readonly PathPredicate[],
  elemMatchPaths: readonly string[],
  collection: Pick<CollectionMeta, 'db' | 'name'>,
): WildcardPathAccess[] {
  const projection = index.wildcard;
  if (projection === undefined) return [];
  const paths = [...new Set(preds.map((p) => p.path))];
  const out: WildcardPathAccess[] = [];
  for (const path of paths) {
    const parts = path.split('.');
    if (parts.some((p) => p === '' || p.startsWith('$') || /^\d+$/.test(p))) continue;
    if (!wildcardIndexesPath(projection, parts)) continue;
    // An $elemMatch on the path or above it is about arrays, which the keys do not keep whole.
    if (elemMatchPaths.some((e) => e === path || path.startsWith(`${e}.`))) continue;
    const mine = preds.filter((p) => p.path === path);
    if (mine.some((p) => p.group !== undefined || !servable(p.bounds))) continue;
    const subpaths = mine.some((p) => p.bounds.existsOnly === true);
    if (subpaths && !wildcardIndexesSubtree(projection, parts)) continue;
    out.push(new WildcardPathAccess(index, path, collection, subpaths));
  }
  // A compound index's regular fields before the wildcard serve predicates on them alone.
  const prefix = index.fields.slice(0, Math.max(0, index.wildcardPos));
  if (preds.some((p) => p.group === undefined && prefix.some((f) => f.path === p.path)))
    out.push(new WildcardPathAccess(index, undefined, collection, false));
  return out;
}
