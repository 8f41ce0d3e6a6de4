// Planning geo queries (src/query/exec/geo-near.ts has the near stage):
//
// - $near / $nearSphere (at the top of the filter) need a geo index on their path: a GeoJSON
//   point a 2dsphere index, a legacy pair with $nearSphere a 2dsphere or 2d index, a legacy pair
//   with $near a 2d index; without one the query fails as in mongod (291, "unable to find index
//   for $geoNear query"). The plan is GEO_NEAR_2DSPHERE / GEO_NEAR_2D, the rest of the filter
//   applied to the documents it finds;
// - $geoWithin / $geoIntersects may use a geo index (an IXSCAN over the cells covering the
//   region, then FETCH with the whole filter), competing with the other plans; without one they
//   run as a collection scan, with the same results.

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { numericValue } from '../../bson/types.js';
import type { Collection } from '../../catalog/collection.js';
import type { IndexAccess, IndexState } from '../../catalog/index-access.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { boxHashRanges, capRanges, shapeRanges } from '../../geo/cells.js';
import type { Hash2dParams, KeyRange } from '../../geo/cells.js';
import type { FlatPoint, QueryShape } from '../../geo/geometry.js';
import type { NearQuery } from '../../geo/near.js';
import type { ReadView } from '../../storage/engine.js';
import { FetchStage } from '../exec/fetch.js';
import { GeoNearStage, geoIndexScan, keyIntervals } from '../exec/geo-near.js';
import type { DocumentFilter, PlanStage } from '../exec/stages.js';
import { conjunctsOf, filterOfNodes } from './conjuncts.js';
import type { MatchNode, PathNode } from '../match/index.js';
import { fullInterval, intervalStrings } from './bounds.js';
import type { Interval } from './bounds.js';

type NearNode = Extract<PathNode, { kind: 'near' }>;
type GeoNode = Extract<PathNode, { kind: 'geo' }>;

/** The $near node at the top of a filter and the other conjuncts. */
export function splitNear(
  tree: MatchNode | undefined,
): { node: NearNode; rest: MatchNode[] } | undefined {
  if (tree === undefined) return undefined;
  const all = conjunctsOf(tree);
  const node = all.find((c): c is NearNode => c.kind === 'near');
  if (node === undefined) return undefined;
  return { node, rest: all.filter((c) => c !== node) };
}

/** The position of the geo field of `index` on `path`, or -1. */
function geoField(index: IndexAccess, path: string): number {
  if (index.kind === '2d') return index.fields[0]?.path === path ? 0 : -1;
  if (index.kind !== '2dsphere') return -1;
  return index.fields.findIndex((f) => f.plugin === '2dsphere' && f.path === path);
}

/** The index a near query uses, as mongod's planner allows it. */
function nearIndex(coll: Collection, node: NearNode): IndexAccess | undefined {
  const near = node.near;
  const usable = coll.indexes.filter((i) => !i.hidden && geoField(i, node.path) >= 0);
  const sphere = usable.find((i) => i.kind === '2dsphere');
  const flat = usable.find((i) => i.kind === '2d');
  if (near.geojson) return sphere;
  if (near.operator === '$nearSphere') return sphere ?? flat;
  return flat;
}

export function noNearIndex(): CommandError {
  return new CommandError(
    ErrorCode.NoQueryExecutionPlans,
    'error processing query: planner returned error :: caused by :: unable to find index for $geoNear query',
  );
}

export interface NearPlanRequest {
  readonly coll: Collection;
  readonly view: ReadView;
  readonly node: NearNode;
  readonly rest: readonly MatchNode[];
  readonly interrupt?: (() => void) | undefined;
}

export function nearPlan(req: NearPlanRequest): PlanStage {
  const index = nearIndex(req.coll, req.node);
  if (index === undefined) throw noNearIndex();
  return new GeoNearStage({
    coll: req.coll,
    index,
    state: index.readState(req.view),
    near: req.node.near,
    field: geoField(index, req.node.path),
    filter: filterOfNodes(req.rest),
    interrupt: req.interrupt,
  });
}

// ---- $geoWithin / $geoIntersects -------------------------------------------------------------

function bboxOf(points: readonly FlatPoint[]): { lo: FlatPoint; hi: FlatPoint } {
  let lo = { x: Infinity, y: Infinity };
  let hi = { x: -Infinity, y: -Infinity };
  for (const p of points) {
    lo = { x: Math.min(lo.x, p.x), y: Math.min(lo.y, p.y) };
    hi = { x: Math.max(hi.x, p.x), y: Math.max(hi.y, p.y) };
  }
  return { lo, hi };
}

/** The key ranges a region scans in an index, or undefined when the index cannot serve it. */
function regionRanges(
  index: IndexAccess,
  operator: string,
  shape: QueryShape,
): KeyRange[] | undefined {
  if (index.kind === '2dsphere') {
    if (shape.kind === 'sphere') return shapeRanges(shape.shape);
    if (shape.kind === 'cap') return capRanges(shape.center, shape.radius);
    return undefined;
  }
  if (operator !== '$geoWithin') return undefined;
  const params: Hash2dParams = index.hash2d;
  switch (shape.kind) {
    case 'box':
      return boxHashRanges(shape.min, shape.max, params);
    case 'circle':
      return boxHashRanges(
        { x: shape.center.x - shape.radius, y: shape.center.y - shape.radius },
        { x: shape.center.x + shape.radius, y: shape.center.y + shape.radius },
        params,
      );
    case 'flatPolygon': {
      const b = bboxOf(shape.points);
      return boxHashRanges(b.lo, b.hi, params);
    }
    case 'cap': {
      const dy = (shape.radius * 180) / Math.PI;
      const lat = Math.min(89.999, Math.abs(shape.centerFlat.y) + dy);
      const cos = Math.cos((lat * Math.PI) / 180);
      const dx = cos <= 1e-9 ? params.max - params.min : dy / cos;
      const c = shape.centerFlat;
      return boxHashRanges({ x: c.x - dx, y: c.y - dy }, { x: c.x + dx, y: c.y + dy }, params);
    }
    default:
      return undefined;
  }
}

function multiKeyPathsDoc(index: IndexAccess, state: IndexState): BsonDocument {
  const out: BsonDocument = {};
  index.fields.forEach((f, i) => {
    out[f.path] = (state.multikeyPaths[i] ?? []).map((c) => f.parts.slice(0, c + 1).join('.'));
  });
  return out;
}

export interface GeoCandidate {
  readonly index: IndexAccess;
  build(): PlanStage;
}

/** Index plans for the $geoWithin / $geoIntersects conjuncts of a filter. */
export function geoCandidates(
  coll: Collection,
  view: ReadView,
  tree: MatchNode | undefined,
  matcher: DocumentFilter | undefined,
  filterExplain: () => BsonDocument | undefined,
  only?: IndexAccess,
): GeoCandidate[] {
  if (tree === undefined) return [];
  const out: GeoCandidate[] = [];
  const nodes = conjunctsOf(tree).filter((c): c is GeoNode => c.kind === 'geo');
  for (const index of only === undefined ? coll.indexes : [only]) {
    if (index.hidden || (index.kind !== '2dsphere' && index.kind !== '2d')) continue;
    for (const node of nodes) {
      const field = geoField(index, node.path);
      if (field < 0) continue;
      const ranges = regionRanges(index, node.operator, node.shape);
      if (ranges === undefined) continue;
      const state = index.readState(view);
      const kind = index.kind;
      const intervals = keyIntervals(ranges, kind);
      const explain = (): Record<string, BsonValue> => {
        const bounds: BsonDocument = {};
        index.fields.forEach((f, i) => {
          const list: Interval[] = i === field ? intervals : [fullInterval];
          bounds[f.path] = intervalStrings(list, f.direction);
        });
        return {
          keyPattern: index.meta.key,
          indexName: index.meta.name,
          isMultiKey: state.multikeyPaths.some((p) => p.length > 0),
          multiKeyPaths: multiKeyPathsDoc(index, state),
          isUnique: false,
          isSparse: index.sparse,
          isPartial: index.partialFilter !== undefined,
          indexVersion: new Int32(numericValue(index.meta.spec['v']) ?? 2),
          direction: 'forward',
          indexBounds: bounds,
        };
      };
      out.push({
        index,
        build: () =>
          new FetchStage(
            geoIndexScan(index, state, field, intervals, explain),
            coll,
            matcher,
            undefined,
            filterExplain,
          ),
      });
      break;
    }
  }
  return out;
}

export type { NearQuery };
