// Find projections: `compileProjection(spec, {matcher})` parses once; `apply(doc)` projects.
//
//   const p = compileProjection({ name: 1, 'grades.$': 1 }, { matcher });
//   p.apply(doc)  // {_id, name, grades: [<the element the filter matched>]}
//
// Inclusion/exclusion, nested and dotted paths through arrays, literals, $slice, $elemMatch and
// the positional `$` behave as in mongod 7.0; aggregation expressions go through the
// `expressions` hook; {$meta: "textScore"} (and the $near distance and point) read the document's
// metadata (src/query/exec/metadata.ts) and are set after the rest.

import type { BsonDocument } from '../../bson/types.js';
import type { MatchDetails } from '../match/index.js';
import { applyExclusion, applyInclusion, elemMatchValue } from './apply.js';
import { isMissing } from '../../bson/path.js';
import { setOwn, deleteOwn, getOwn } from '../../bson/document.js';
import { parseProjection } from './parse.js';
import type { ParsedProjection } from './parse.js';
import type { ProjectionOptions } from './computed.js';
import { applyPositional, applySlice } from './slice.js';
import type { ProjectionNode, ProjectionType } from './tree.js';
import { metadataOf } from '../exec/metadata.js';
import { Double } from 'bson';
import type { BsonValue } from '../../bson/types.js';

export type { ExpressionHook, ProjectionOptions } from './computed.js';
export type { ProjectionType } from './tree.js';

export interface Projection {
  readonly type: ProjectionType;
  readonly isInclusion: boolean;
  /** Whether the projection uses the positional `$` (it then needs the filter's match). */
  readonly hasPositional: boolean;
  /**
   * The dotted paths an inclusion projection reads, for covered queries; undefined when the
   * whole document may be needed (exclusions, computed fields).
   */
  readonly requiredFields: readonly string[] | undefined;
  /**
   * Projects a document that matched the filter. A positional projection takes the matched
   * position from the filter given as `options.matcher` (matched again, as mongod does), or
   * else from `details` of the caller's own match.
   */
  apply(doc: BsonDocument, details?: MatchDetails): BsonDocument;
}

/** Parses a find projection; throws CommandError with mongod's codes for a bad one. */
export function compileProjection(spec: BsonDocument, options: ProjectionOptions = {}): Projection {
  const parsed = parseProjection(spec, options);
  const identity = Object.keys(spec).length === 0;
  return {
    type: parsed.type,
    isInclusion: parsed.type === 'inclusion',
    hasPositional: parsed.positional !== undefined,
    requiredFields: requiredFields(parsed),
    apply: identity
      ? (doc) => doc
      : (doc, details) => applyProjection(parsed, options, doc, details),
  };
}

function applyProjection(
  parsed: ParsedProjection,
  options: ProjectionOptions,
  doc: BsonDocument,
  callerDetails: MatchDetails | undefined,
): BsonDocument {
  let out =
    parsed.type === 'inclusion'
      ? applyInclusion(parsed.root, doc, doc)
      : applyExclusion(parsed.root, doc);
  for (const s of parsed.slices) out = applySlice(out, s.path, s.skip, s.limit);
  if (parsed.positional !== undefined)
    out = applyPositional(out, parsed.positional, positionOf(options, doc, callerDetails));
  if (parsed.type === 'exclusion') {
    // In an exclusion projection, $elemMatch replaces the field where it stands.
    for (const { field, matcher } of parsed.elemMatches) {
      const v = elemMatchValue(matcher, doc, field);
      if (isMissing(v)) deleteOwn(out, field);
      else setOwn(out, field, v);
    }
  }
  if (parsed.metaFields.length > 0) out = withMetaFields(out, doc, parsed.metaFields);
  return out;
}

/** The projection's {$meta: ...} fields, from the input document's metadata. */
function withMetaFields(
  out: BsonDocument,
  doc: BsonDocument,
  fields: ParsedProjection['metaFields'],
): BsonDocument {
  const meta = metadataOf(doc);
  if (out === doc) out = { ...doc };
  for (const { path, name } of fields) {
    let v: BsonValue | undefined;
    if (name === 'textScore' && meta?.textScore !== undefined) v = new Double(meta.textScore);
    else if (name === 'geoNearDistance' && meta?.geoNearDistance !== undefined)
      v = new Double(meta.geoNearDistance);
    else if (name === 'geoNearPoint') v = meta?.geoNearPoint;
    if (v === undefined) continue;
    let target = out;
    for (const part of path.slice(0, -1)) {
      const next = getOwn(target, part);
      const sub: BsonDocument =
        next !== null && typeof next === 'object' && !Array.isArray(next) && !('_bsontype' in next)
          ? (next as BsonDocument)
          : {};
      setOwn(target, part, sub);
      target = sub;
    }
    setOwn(target, path[path.length - 1] as string, v);
  }
  return out;
}

/** mongod matches the filter again against the original document to find the position. */
function positionOf(
  options: ProjectionOptions,
  doc: BsonDocument,
  callerDetails: MatchDetails | undefined,
): string | undefined {
  if (options.matcher === undefined) return callerDetails?.elemMatchKey;
  const details: MatchDetails = {};
  options.matcher.matches(doc, details);
  return details.elemMatchKey;
}

function requiredFields(parsed: ParsedProjection): readonly string[] | undefined {
  if (parsed.type !== 'inclusion') return undefined;
  const paths: string[] = [];
  const walk = (children: Map<string, ProjectionNode>, prefix: string): boolean => {
    for (const [name, node] of children) {
      const path = prefix === '' ? name : `${prefix}.${name}`;
      if (node.kind === 'computed') return false;
      if (node.kind === 'path') {
        if (!walk(node.children, path)) return false;
      } else if (node.kind !== 'exclude') {
        paths.push(path);
      }
    }
    return true;
  };
  return walk(parsed.root.children, '') ? paths : undefined;
}
