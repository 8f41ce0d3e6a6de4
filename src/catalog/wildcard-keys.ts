// Wildcard indexes ({"$**": 1}, {"a.b.$**": 1}, {"$**": 1} with wildcardProjection), as
// mongod 7.0's WildcardKeyGenerator builds their keys:
//
// - every key has two values: the dotted path of a leaf (mongod's `$_path` field) and the value
//   found there; a document gives one key per leaf it holds under the indexed paths;
// - subdocuments are descended (no key for the subdocument itself); an empty subdocument or an
//   empty array is a leaf, indexed as its value ({} or []);
// - an array is descended element by element under its own path (positions are not path
//   components): scalar elements are keys at the array's path, subdocument elements are
//   descended, and an array nested directly in an array is one value (not descended again);
//   the array's path is recorded as multikey;
// - the projection (wildcardProjection, or {"a.b": 1} for "a.b.$**") decides which paths are
//   indexed: an inclusion projection keeps a path that is, extends, or leads to an included
//   path; an exclusion projection drops a path that is or extends an excluded one. `_id` is
//   left out unless the projection includes it explicitly.
//
// The index never refuses a document for its wildcard part (no parallel-array or ambiguity
// errors: every path is indexed on its own).
//
// A compound wildcard index (7.0: {a: 1, "b.$**": 1, c: -1}) puts the values of its regular
// fields around every (path, value) pair: [a, path, value, c]. A regular field holds one value
// per document (an array along its path is refused, 7246301: mongod's regular fields of a
// compound wildcard index are never multikey); a missing one is null. A document without any
// wildcard leaf but with some regular field still gets one key, with MinKey as its path and its
// value; a document with neither has no key.

import { Int32, MinKey } from 'bson';
import { MISSING } from '../bson/path.js';
import { asDocument, isArray, isPlainDocument } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { valueAlongPath } from './index-keys.js';
import type { GeneratedKeys, KeyPatternField } from './index-keys.js';

/** The field name that makes an index a wildcard index ("$**", or a path ending in ".$**"). */
export const WILDCARD_FIELD = '$**';

export function isWildcardField(field: string): boolean {
  return field === WILDCARD_FIELD || field.endsWith(`.${WILDCARD_FIELD}`);
}

/** The key pattern of a wildcard index, if it is one (a wildcard field with a numeric value). */
export function wildcardFieldOf(key: BsonDocument): string | undefined {
  for (const [field, v] of Object.entries(key)) {
    if (isWildcardField(field) && typeof v !== 'string') return field;
  }
  return undefined;
}

/** A normalised projection: dotted paths, each included or excluded. */
export interface WildcardProjection {
  /** True for an inclusion projection (apart from `_id`). */
  readonly inclusion: boolean;
  /** Included (inclusion) or excluded (exclusion) paths, `_id` aside. */
  readonly paths: readonly (readonly string[])[];
  /** Whether `_id` (and paths below it) are indexed. */
  readonly includeId: boolean;
}

/** The paths of a projection document, nested documents flattened ({a: {b: 1}} is "a.b"). */
export function flattenProjection(
  spec: BsonDocument,
  prefix = '',
): Array<{ path: string; value: BsonValue }> {
  const out: Array<{ path: string; value: BsonValue }> = [];
  for (const [k, v] of Object.entries(spec)) {
    const path = prefix === '' ? k : `${prefix}.${k}`;
    if (isPlainDocument(v) && Object.keys(v).length > 0) out.push(...flattenProjection(v, path));
    else out.push({ path, value: v });
  }
  return out;
}

function truthy(v: BsonValue): boolean {
  if (typeof v === 'boolean') return v;
  if (v instanceof Int32) return v.value !== 0;
  const n = Number((v as { valueOf(): unknown }).valueOf());
  return Number.isNaN(n) ? true : n !== 0;
}

/**
 * The projection a wildcard index applies, from its key field and wildcardProjection (both
 * validated at createIndexes).
 */
export function wildcardProjectionOf(
  field: string,
  projection: BsonDocument | undefined,
): WildcardProjection {
  if (field !== WILDCARD_FIELD) {
    const path = field.slice(0, -(WILDCARD_FIELD.length + 1));
    return { inclusion: true, paths: [path.split('.')], includeId: path === '_id' };
  }
  if (projection === undefined) return { inclusion: false, paths: [], includeId: false };
  const entries = flattenProjection(projection);
  let includeId = false;
  const included: string[][] = [];
  const excluded: string[][] = [];
  for (const { path, value } of entries) {
    if (path === '_id') {
      includeId = truthy(value);
      continue;
    }
    (truthy(value) ? included : excluded).push(path.split('.'));
  }
  if (included.length > 0) return { inclusion: true, paths: included, includeId };
  // {_id: 1} alone is an inclusion projection of _id only, {_id: 0} an exclusion of _id.
  if (excluded.length === 0 && includeId) return { inclusion: true, paths: [], includeId };
  return { inclusion: false, paths: excluded, includeId };
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => path[i] === p);
}

type Decision = 'skip' | 'index' | 'descendOnly';

/** What the projection does with a path: drop it, index it, or only look for included paths below. */
function decide(projection: WildcardProjection, path: readonly string[]): Decision {
  // `_id` is indexed (whole) only when the projection names it with a true value.
  if (path[0] === '_id') return projection.includeId ? 'index' : 'skip';
  if (!projection.inclusion)
    return projection.paths.some((p) => startsWith(path, p)) ? 'skip' : 'index';
  if (projection.paths.some((p) => startsWith(path, p))) return 'index';
  if (projection.paths.some((p) => startsWith(p, path))) return 'descendOnly';
  return 'skip';
}

/** Whether a wildcard index holds the keys of the leaves at `path` (planner). */
export function wildcardIndexesPath(
  projection: WildcardProjection,
  path: readonly string[],
): boolean {
  return decide(projection, path) === 'index';
}

/**
 * Whether a wildcard index holds the keys of `path` and of every path below it (the planner's
 * subpath scans): an exclusion projection must not leave out a path below it.
 */
export function wildcardIndexesSubtree(
  projection: WildcardProjection,
  path: readonly string[],
): boolean {
  if (decide(projection, path) !== 'index') return false;
  if (projection.inclusion) return true;
  return !projection.paths.some((p) => p.length > path.length && startsWith(p, path));
}

class WildcardGenerator {
  readonly keys: BsonValue[][] = [];
  readonly multikeyPaths = new Set<string>();

  constructor(private readonly projection: WildcardProjection) {}

  private add(path: readonly string[], value: BsonValue): void {
    this.keys.push([path.join('.'), value]);
  }

  /** Walks a document's fields. */
  traverse(doc: BsonDocument, path: string[]): void {
    for (const [name, v] of Object.entries(doc)) {
      path.push(name);
      const decision = decide(this.projection, path);
      if (decision !== 'skip') this.element(v, path, decision);
      path.pop();
    }
  }

  private element(v: BsonValue, path: string[], decision: Decision): void {
    if (isArray(v)) {
      this.multikeyPaths.add(path.join('.'));
      if (v.length === 0) {
        if (decision === 'index') this.add(path, v);
        return;
      }
      this.traverseArray(v, path, decision);
      return;
    }
    const sub = asDocument(v);
    if (sub !== undefined) {
      if (Object.keys(sub).length === 0) {
        if (decision === 'index') this.add(path, v);
        return;
      }
      this.traverse(sub, path);
      return;
    }
    if (decision === 'index') this.add(path, v);
  }

  /**
   * The elements of a non-empty array at `path`, under the array's own path: subdocuments are
   * descended; anything else, an array nested in the array included, is one value.
   */
  private traverseArray(arr: readonly BsonValue[], path: string[], decision: Decision): void {
    for (const el of arr) {
      const sub = asDocument(el);
      if (sub !== undefined && Object.keys(sub).length > 0) this.traverse(sub, path);
      else if (decision === 'index') this.add(path, el);
    }
  }
}

export interface WildcardKeys extends GeneratedKeys {
  /** The paths where an array was met (mongod's multikey metadata keys). */
  readonly multikeyPathStrings: readonly string[];
}

/** The keys ([path, value] pairs) a document gives in a wildcard index. */
export function wildcardIndexKeys(projection: WildcardProjection, doc: BsonDocument): WildcardKeys {
  const g = new WildcardGenerator(projection);
  g.traverse(doc, []);
  return {
    keys: g.keys,
    multikeyPaths: [g.multikeyPaths.size > 0 ? [0] : []],
    multikeyPathStrings: [...g.multikeyPaths].sort(),
  };
}

/** The layout of a compound wildcard index's key: its fields and where the wildcard one is. */
export interface WildcardLayout {
  readonly fields: readonly KeyPatternField[];
  readonly wildcardPos: number;
}

/** A compound wildcard index's regular field holds one value, never an array. */
function regularArrayError(path: string): CommandError {
  return new CommandError(
    ErrorCode.Location7246301,
    `Compound wildcard index regular field cannot be multikey: found an array at path '${path}'`,
  );
}

/**
 * The keys of a compound wildcard index: [regular values before, path, value, regular values
 * after] per leaf (see the file comment).
 */
export function compoundWildcardKeys(
  projection: WildcardProjection,
  layout: WildcardLayout,
  doc: BsonDocument,
): WildcardKeys {
  let anyRegular = false;
  const regular = layout.fields.map((f, i) => {
    if (i === layout.wildcardPos) return null;
    const v = valueAlongPath(doc, f.parts, regularArrayError);
    if (v === MISSING) return null;
    anyRegular = true;
    return v;
  });
  const before = regular.slice(0, layout.wildcardPos);
  const after = regular.slice(layout.wildcardPos + 1);
  const leaves = wildcardIndexKeys(projection, doc);
  const pairs: BsonValue[][] =
    leaves.keys.length > 0 ? [...leaves.keys] : anyRegular ? [[new MinKey(), new MinKey()]] : [];
  return {
    keys: pairs.map((pair) => [...before, ...pair, ...after]),
    multikeyPaths: layout.fields.map((_, i) =>
      i === layout.wildcardPos && leaves.multikeyPathStrings.length > 0 ? [0] : [],
    ),
    multikeyPathStrings: leaves.multikeyPathStrings,
  };
}
