// GEO_NEAR_2DSPHERE / GEO_NEAR_2D: documents in order of distance from a point, as mongod's
// NearStage finds them: in growing annuli around the point. Each annulus scans the geo index over
// the cells (2dsphere) or hash ranges (2d) that cover its outer circle, fetches the documents not
// yet seen, keeps those whose distance falls in the annulus (and that pass the rest of the
// filter), and hands them out nearest first; the next annulus starts where this one ended. The
// annulus width adapts (wider when empty, narrower when crowded), so one pull computes the
// distances of about one annulus of documents, never of the whole collection.

import { Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isNumeric } from '../../bson/numeric.js';
import type { Collection } from '../../catalog/collection.js';
import type { IndexAccess, IndexState } from '../../catalog/index-access.js';
import type { RecordId } from '../../catalog/record-id.js';
import { geoValuesAlongPath } from '../../catalog/geo-keys.js';
import { boxHashRanges, capRanges, hashKey } from '../../geo/cells.js';
import type { KeyRange } from '../../geo/cells.js';
import { parseStoredGeometry } from '../../geo/geometry.js';
import { EARTH_RADIUS_METERS, nearCenter, nearDistance } from '../../geo/near.js';
import type { NearQuery } from '../../geo/near.js';
import type { ReadView } from '../../storage/engine.js';
import { fullInterval } from '../planner/bounds.js';
import type { Interval } from '../planner/bounds.js';
import { IndexScanStage, byteIntervals, planRanges } from './index-scan.js';
import { setMetadata } from './metadata.js';
import type { DocumentFilter, MatchDetailsSink, PlanStage, Row, StageStats } from './stages.js';
import { NEED_TIME, runSync } from './yield.js';

export interface GeoNearOptions {
  readonly coll: Collection;
  readonly index: IndexAccess;
  readonly state: IndexState;
  readonly near: NearQuery;
  /** Position of the geo field in the index key. */
  readonly field: number;
  /** The rest of the filter. */
  readonly filter: DocumentFilter | undefined;
  readonly interrupt?: (() => void) | undefined;
}

/** Geo key ranges as index intervals of the field's stored values. */
export function keyIntervals(ranges: readonly KeyRange[], kind: '2dsphere' | '2d'): Interval[] {
  return ranges.map((r) => {
    const lo: BsonValue = kind === '2dsphere' ? Long.fromBigInt(r.lo) : hashKey(r.lo);
    const hi: BsonValue = kind === '2dsphere' ? Long.fromBigInt(r.hi) : hashKey(r.hi);
    return { low: { value: lo, inclusive: true }, high: { value: hi, inclusive: true } };
  });
}

/** An index scan over geo key ranges of one field (the other fields unbounded). */
export function geoIndexScan(
  index: IndexAccess,
  state: IndexState,
  field: number,
  intervals: readonly Interval[],
  explain: () => Record<string, BsonValue>,
): IndexScanStage {
  const fields = index.fields.map((f, i) =>
    byteIntervals(i === field ? intervals : [fullInterval], f.direction),
  );
  return new IndexScanStage({
    index,
    plan: planRanges(fields, index.directions),
    reverse: false,
    dedup: true,
    state,
    explain,
  });
}

interface Found {
  readonly distance: number;
  readonly row: Row;
  readonly location: BsonValue;
}

const RESULTS_PER_ANNULUS_TARGET = 256;

export class GeoNearStage implements PlanStage {
  readonly stats: StageStats;
  private readonly kind: '2dsphere' | '2d';
  /** Distances are compared in the index's units: radians on the sphere, else flat units. */
  private readonly minNative: number;
  private readonly maxNative: number;
  private readonly toQueryUnits: number;
  private inner: number;
  private step: number;
  private done = false;
  private buffer: Found[] = [];
  private readonly seen = new Set<RecordId>();

  constructor(private readonly options: GeoNearOptions) {
    const { index, near } = options;
    this.kind = index.kind === '2d' ? '2d' : '2dsphere';
    this.toQueryUnits = near.geojson ? EARTH_RADIUS_METERS : 1;
    this.minNative = near.minDistance / this.toQueryUnits;
    const params = index.hash2d;
    const extent = near.spherical ? Math.PI : (params.max - params.min) * Math.SQRT2;
    this.maxNative = Math.min(near.maxDistance / this.toQueryUnits, extent);
    this.inner = this.minNative;
    this.step = near.spherical ? 1e-5 : (params.max - params.min) / 2 ** 12;
    const v = index.meta.spec['v'];
    this.stats = {
      stage: this.kind === '2d' ? 'GEO_NEAR_2D' : 'GEO_NEAR_2DSPHERE',
      nReturned: 0,
      works: 0,
      keysExamined: 0,
      docsExamined: 0,
      children: [],
      extra: {
        keyPattern: index.meta.key,
        indexName: index.meta.name,
        indexVersion: new Int32(Number(v?.valueOf() ?? 2)),
      },
    };
  }

  next(view: ReadView): Row | undefined {
    for (;;) {
      const found = this.buffer.pop();
      if (found !== undefined) {
        this.stats.nReturned++;
        setMetadata(found.row.doc, {
          geoNearDistance: found.distance * this.toQueryUnits,
          geoNearPoint: found.location,
        });
        return found.row;
      }
      if (this.done) return undefined;
      this.searchAnnulus(view);
      this.options.interrupt?.();
    }
  }

  private ranges(outer: number): KeyRange[] {
    const { near, index } = this.options;
    if (this.kind === '2dsphere') return capRanges(nearCenter(near), outer);
    const params = index.hash2d;
    let dx = outer;
    let dy = outer;
    if (near.spherical) {
      // Radians to degrees, widened in longitude away from the equator.
      dy = (outer * 180) / Math.PI;
      const cos = Math.cos((Math.min(89.999, Math.abs(near.point.y) + dy) * Math.PI) / 180);
      dx = cos <= 1e-9 ? params.max - params.min : dy / cos;
    }
    const lo = {
      x: Math.max(params.min, near.point.x - dx),
      y: Math.max(params.min, near.point.y - dy),
    };
    const hi = {
      x: Math.min(params.max, near.point.x + dx),
      y: Math.min(params.max, near.point.y + dy),
    };
    return boxHashRanges(lo, hi, params);
  }

  /** The distance of a document (nearest of its locations) and that location. */
  private distanceOf(doc: BsonDocument): { distance: number; location: BsonValue } | undefined {
    const { index, field, near } = this.options;
    const f = index.fields[field];
    if (f === undefined) return undefined;
    let best: { distance: number; location: BsonValue } | undefined;
    for (const v of geoValuesAlongPath(doc, f.parts)) {
      // A 2d field may hold an array of pairs; a pair itself starts with a number.
      const candidates =
        this.kind === '2d' && Array.isArray(v) && v.length > 0 && !isNumeric(v[0] as BsonValue)
          ? (v as BsonValue[])
          : [v];
      for (const c of candidates) {
        let g;
        try {
          g = parseStoredGeometry(c, f.path);
        } catch {
          continue;
        }
        const d = nearDistance(near, g);
        if (d === undefined) continue;
        const native = d / this.toQueryUnits;
        if (best === undefined || native < best.distance) best = { distance: native, location: c };
      }
    }
    return best;
  }

  private searchAnnulus(view: ReadView): void {
    const { index, state, field } = this.options;
    const outer = Math.min(this.inner + this.step, this.maxNative);
    const last = outer >= this.maxNative;
    const scan = geoIndexScan(
      index,
      state,
      field,
      keyIntervals(this.ranges(outer), this.kind),
      () => ({}),
    );
    const found: Found[] = [];
    // One annulus is searched in one go (its size adapts to a few dozen results), with no
    // slice armed: the scan never answers NEED_TIME and a filter's regex waits in place.
    runSync(() => this.scanAnnulus(view, scan, outer, last, found));
    found.sort((a, b) => b.distance - a.distance);
    this.buffer = found;
    this.inner = outer;
    if (last) this.done = true;
    if (found.length === 0) this.step *= 2;
    else if (found.length > RESULTS_PER_ANNULUS_TARGET) this.step /= 2;
    else this.step *= 1.5;
  }

  private scanAnnulus(
    view: ReadView,
    scan: ReturnType<typeof geoIndexScan>,
    outer: number,
    last: boolean,
    found: Found[],
  ): void {
    const { coll, filter } = this.options;
    const local = new Set<RecordId>();
    for (let e = scan.nextEntry(view); e !== undefined; e = scan.nextEntry(view)) {
      if (e === NEED_TIME) continue;
      this.stats.works++;
      this.stats.keysExamined = (this.stats.keysExamined ?? 0) + 1;
      if (this.seen.has(e.recordId) || local.has(e.recordId)) continue;
      local.add(e.recordId);
      const rec = coll.getRecord(view, e.recordId);
      if (rec === undefined) continue;
      this.stats.docsExamined = (this.stats.docsExamined ?? 0) + 1;
      const d = this.distanceOf(rec.doc);
      if (d === undefined || d.distance < this.minNative || d.distance > this.maxNative) {
        this.seen.add(e.recordId);
        continue;
      }
      if (d.distance > outer && !last) continue;
      this.seen.add(e.recordId);
      const details: MatchDetailsSink = {};
      if (filter !== undefined && !filter.matches(rec.doc, details)) continue;
      found.push({
        distance: d.distance,
        location: d.location,
        row: { doc: rec.doc, recordId: rec.recordId, details },
      });
    }
  }
}
