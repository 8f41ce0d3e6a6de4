// A query's shape and the two hashes mongod names it by: `queryHash` (the shape alone) and
// `planCacheKey` (the shape and which of the collection's indexes its predicates can use).
// Explain's queryPlanner, the slow-query log line and system.profile all take them from here,
// so the same query shows the same values everywhere.
//
// The shape follows mongod 7.0's canonical_query_encoder (the classic engine's encoding): each
// filter node's kind and path, not its values; regex flags and "$in with regexes" kept apart;
// comparisons with MinKey / MaxKey and a negated equality to null kept apart; the children of
// $and / $or / $nor in a canonical order (mongod sorts the tree before encoding it); then the
// sort pattern, the fields an inclusion projection needs, and the collation. planCacheKey adds,
// per predicate path, the indexes on it and what decides whether they can serve it (sparse,
// partial, collation), as mongod's plan-cache indexability discriminators do; a plain new
// index on a queried field changes planCacheKey, not queryHash.
//
// mongod hashes the shape with its own 32-bit string hash; ours is the first 32 bits of its
// SHA-256. Both are 8 upper-case hex digits, equal for equal shapes; the digits themselves are
// not mongod's (docs/compatibility.md).

import { createHash } from 'node:crypto';
import { MaxKey, MinKey } from 'bson';
import type { Collator } from '../../bson/collation.js';
import { formatBson } from '../../bson/format.js';
import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import type { IndexAccess } from '../../catalog/index-access.js';
import type { MatchNode } from '../match/types.js';

export interface QueryHashes {
  readonly queryHash: string;
  readonly planCacheKey: string;
}

export interface QueryShapeInput {
  readonly tree: MatchNode | undefined;
  readonly sortSpec?: BsonDocument | undefined;
  readonly projectionSpec?: BsonDocument | undefined;
  readonly collator?: Collator | undefined;
}

/** mongod's encodeMatchType codes. */
const kindCodes: Readonly<Record<MatchNode['kind'], string>> = {
  and: 'an',
  or: 'or',
  nor: 'nr',
  not: 'nt',
  elemMatchObject: 'eo',
  elemMatchValue: 'ev',
  size: 'sz',
  lte: 'le',
  lt: 'lt',
  eq: 'eq',
  gt: 'gt',
  gte: 'ge',
  regex: 're',
  mod: 'mo',
  exists: 'ex',
  in: 'in',
  type: 'ty',
  geo: 'go',
  where: 'wh',
  alwaysFalse: 'af',
  alwaysTrue: 'at',
  near: 'gn',
  text: 'te',
  bitsAllSet: 'ls',
  bitsAllClear: 'lc',
  bitsAnySet: 'ys',
  bitsAnyClear: 'yc',
  expr: 'xp',
  jsonSchema: 'js',
  sampleRate: 'sr',
};

/** The delimiters of the encoding, escaped where a user's path contains them. */
const delimiters = /[[\],#|\-/~@?:^\\<>]/g;
const escaped = (s: string): string => s.replace(delimiters, (c) => `\\${c}`);

const validRegexFlags = new Set(['i', 'm', 's', 'x', 'u']);

function regexFlags(flags: readonly string[]): string {
  const set = [...new Set(flags.join('').split(''))].filter((f) => validRegexFlags.has(f)).sort();
  return set.length === 0 ? '' : `/${set.join('')}/`;
}

/** The node as mongod's normalizeTree leaves it: a one-value $in is an equality or a regex. */
function normalized(node: MatchNode): MatchNode {
  if (node.kind === 'in' && node.values.length + node.regexes.length === 1) {
    const [value] = node.values;
    const [regex] = node.regexes;
    if (value !== undefined) return { ...node, kind: 'eq', value };
    if (regex !== undefined) return { ...node, kind: 'regex', ...regex };
  }
  return node;
}

/** The children of a logical node, nested nodes of the same kind flattened (normalizeTree). */
function flatChildren(node: MatchNode & { children: readonly MatchNode[] }): MatchNode[] {
  const out: MatchNode[] = [];
  for (const c of node.children) {
    if ((c.kind === 'and' || c.kind === 'or') && c.kind === node.kind) out.push(...flatChildren(c));
    else out.push(c);
  }
  return out;
}

function encodeNode(raw: MatchNode): string {
  const node = normalized(raw);
  if (node.kind === 'and' || node.kind === 'or') {
    const children = flatChildren(node);
    if (children.length === 1 && children[0] !== undefined) return encodeNode(children[0]);
    if (node.kind === 'and' && children.length === 0) return '';
  }
  let out = kindCodes[node.kind];
  if ('path' in node) out += escaped(node.path);
  switch (node.kind) {
    case 'regex':
      out += regexFlags([node.flags]);
      break;
    case 'in':
      if (node.regexes.length > 0) out += `_re${regexFlags(node.regexes.map((r) => r.flags))}`;
      break;
    case 'gt':
    case 'gte':
      if (node.value instanceof MinKey) out += 'min';
      break;
    case 'lt':
    case 'lte':
      if (node.value instanceof MaxKey) out += 'max';
      break;
    case 'geo':
      out += node.operator === '$geoWithin' ? 'wi' : 'in';
      break;
    case 'near':
      out += node.near.spherical ? 'ns' : 'nr';
      break;
    case 'not': {
      const c = node.child;
      if ((c.kind === 'eq' || c.kind === 'gte' || c.kind === 'lte') && c.value === null)
        out += 'not_eq_null';
      break;
    }
    default:
      break;
  }
  const children = childrenOf(node).map(encodeNode);
  // mongod sorts a logical node's children before encoding: their order in the query is not shape.
  if (node.kind === 'and' || node.kind === 'or' || node.kind === 'nor') children.sort();
  if (children.length > 0) out += `[${children.join(',')}]`;
  return out;
}

function childrenOf(node: MatchNode): readonly MatchNode[] {
  switch (node.kind) {
    case 'and':
    case 'or':
      return flatChildren(node);
    case 'nor':
    case 'elemMatchValue':
      return node.children;
    case 'not':
    case 'elemMatchObject':
      return [node.child];
    default:
      return [];
  }
}

function encodeSort(sort: BsonDocument | undefined): string {
  const entries = sort === undefined ? [] : Object.entries(sort);
  if (entries.length === 0) return '';
  const parts = entries.map(([path, dir]) => {
    const meta = isPlainDocument(dir) && dir['$meta'] === 'textScore';
    const up = !meta && Number(dir?.valueOf()) === 1;
    return `${meta ? 't' : up ? 'a' : 'd'}${escaped(path)}`;
  });
  return `~${parts.join(',')}`;
}

/**
 * The fields an inclusion projection needs (mongod's getRequiredFields), or nothing when the
 * projection needs the whole document (exclusion, expressions, positional or $elemMatch).
 */
function encodeProjection(projection: BsonDocument | undefined): string {
  if (projection === undefined) return '';
  const fields = new Set<string>(['_id']);
  for (const [path, v] of Object.entries(projection)) {
    const n = typeof v === 'boolean' ? (v ? 1 : 0) : Number(v?.valueOf());
    if (path === '_id' && n === 0) {
      fields.delete('_id');
      continue;
    }
    const expression = isPlainDocument(v) || Array.isArray(v) || typeof v === 'string';
    if (expression || path.includes('$') || n === 0 || Number.isNaN(n)) return '';
    fields.add(path);
  }
  return `|${[...fields].sort().map(escaped).join('-')}`;
}

function encodeCollation(collator: Collator | undefined): string {
  return collator === undefined ? '' : `#${escaped(formatBson(collator.spec))}`;
}

/** The shape string: what queryHash hashes. */
export function queryShape(input: QueryShapeInput): string {
  return (
    (input.tree === undefined ? '' : encodeNode(input.tree)) +
    encodeSort(input.sortSpec) +
    encodeProjection(input.projectionSpec) +
    encodeCollation(input.collator) +
    // The engine section: always the classic engine here.
    '@f'
  );
}

/** The paths the filter's predicates are on, in the order the shape encodes them. */
function predicatePaths(node: MatchNode | undefined, out: string[] = []): string[] {
  if (node === undefined) return out;
  if ('path' in node && node.path !== '' && !out.includes(node.path)) out.push(node.path);
  for (const c of childrenOf(node)) predicatePaths(c, out);
  return out;
}

function indexCovers(index: IndexAccess, path: string): boolean {
  return index.fields.some((f) => {
    if (f.path === path) return true;
    if (f.path === '$**') return true;
    return f.path.endsWith('.$**') && path.startsWith(f.path.slice(0, -3));
  });
}

/**
 * mongod's indexability discriminators, per predicate path: each index on it, and whether it
 * is sparse, partial, or under another collation than the query's.
 */
function indexability(input: QueryShapeInput, indexes: readonly IndexAccess[]): string {
  let out = '';
  for (const path of predicatePaths(input.tree)) {
    const on = indexes.filter((i) => !i.hidden && indexCovers(i, path));
    if (on.length === 0) continue;
    const queryCollation = input.collator === undefined ? '' : formatBson(input.collator.spec);
    const marks = on.map((i) => {
      const collation = i.meta.spec['collation'];
      const same =
        collation === undefined ? queryCollation === '' : formatBson(collation) === queryCollation;
      return `${escaped(i.meta.name)}:${i.sparse ? 's' : ''}${i.partialFilter ? 'p' : ''}${same ? '1' : '0'}`;
    });
    out += `<${escaped(path)}${marks.join(',')}>`;
  }
  return out;
}

function hash32(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8).toUpperCase();
}

/** The queryHash and planCacheKey of a query on a collection with `indexes`. */
export function queryHashes(input: QueryShapeInput, indexes: readonly IndexAccess[]): QueryHashes {
  const shape = queryShape(input);
  return { queryHash: hash32(shape), planCacheKey: hash32(shape + indexability(input, indexes)) };
}
