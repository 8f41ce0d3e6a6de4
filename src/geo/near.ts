// $near / $nearSphere / $geoNear in a filter (mongod's GeoNearExpression::parseFrom) and the
// distances they sort by.
//
// Forms: the legacy `{$near: [x, y], $minDistance, $maxDistance}` (also `[x, y, max]`, or a
// GeoJSON Point in place of the pair), and `{$near: {$geometry: <GeoJSON Point>, $minDistance,
// $maxDistance}}`. Units follow mongod: from a GeoJSON point, meters on the sphere; from a legacy
// pair, $nearSphere measures radians on the sphere and $near the flat distance in the
// coordinates' units.

import type { s2 } from 's2js';
import { formatBson } from '../bson/format.js';
import { asDocument, isArray } from '../bson/types.js';
import { isNumeric } from '../bson/numeric.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import type { FlatPoint, StoredGeometry } from './geometry.js';
import {
  flatPointOf,
  geoError,
  geoJsonType,
  isValidLngLat,
  parseFlatPoint,
  sphereShapeOf,
  toSpherePoint,
} from './geometry.js';
import { flatDistance, sphereDistance } from './relations.js';

/** mongod's kRadiusOfEarthInMeters. */
export const EARTH_RADIUS_METERS = 6378.1 * 1000;

export interface NearQuery {
  readonly operator: string;
  readonly point: FlatPoint;
  /** The point is GeoJSON: distances in meters on the sphere. */
  readonly geojson: boolean;
  /** Distances on the sphere (GeoJSON, or $nearSphere). */
  readonly spherical: boolean;
  readonly minDistance: number;
  readonly maxDistance: number;
}

const NEAR_OPERATORS = new Set(['$near', '$nearSphere', '$geoNear']);

function isNum(v: BsonValue | undefined): v is BsonValue {
  return v !== undefined && (typeof v === 'number' || isNumeric(v));
}

function num(v: BsonValue): number {
  return Number((v as { valueOf(): unknown }).valueOf());
}

/** A query point: legacy pair, or a GeoJSON Point (mongod's parseQueryPoint). */
function parseQueryPoint(v: BsonValue): { point: FlatPoint; geojson: boolean } {
  const d = isArray(v) ? undefined : asDocument(v);
  if (!isArray(v) && d === undefined) throw geoError('Point must be an array or object');
  if (isArray(v) || isNum(Object.values(d as BsonDocument)[0])) {
    return { point: parseFlatPoint(v, false), geojson: false };
  }
  const obj = d as BsonDocument;
  if (geoJsonType(obj) !== 'Point') throw geoError(`unknown GeoJSON type: ${formatBson(obj)}`);
  const p = parseFlatPoint(obj['coordinates'] ?? null, true);
  if (!isValidLngLat(p.x, p.y))
    throw geoError(`longitude/latitude is out of bounds, lng: ${p.x} lat: ${p.y}`);
  return { point: p, geojson: true };
}

function distanceArg(
  v: BsonValue,
  name: string,
  codes: { type: number; negative: number },
): number {
  if (!isNum(v)) throw new CommandError(codes.type, `${name} must be a number`);
  const n = num(v);
  if (!(n >= 0)) throw new CommandError(codes.negative, `${name} must be non-negative`);
  return n;
}

/** mongod's parseLegacyQuery: undefined when the operator holds no legacy point. */
function parseLegacy(doc: BsonDocument): NearQuery | undefined {
  let found: { point: FlatPoint; geojson: boolean; operator: string } | undefined;
  let minDistance = 0;
  let maxDistance = Infinity;
  for (const [k, v] of Object.entries(doc)) {
    if (NEAR_OPERATORS.has(k)) {
      if (isArray(v) || asDocument(v) !== undefined) {
        try {
          found = { ...parseQueryPoint(v), operator: k };
        } catch {
          const vals = isArray(v) ? v : Object.values(v as BsonDocument);
          if (vals.length === 3 && vals.every(isNum)) {
            found = {
              point: { x: num(vals[0] as BsonValue), y: num(vals[1] as BsonValue) },
              geojson: false,
              operator: k,
            };
            maxDistance = num(vals[2] as BsonValue);
            if (!(maxDistance >= 0))
              throw new CommandError(ErrorCode.Location18522, 'max distance must be non-negative');
          }
        }
      } else return undefined;
    } else if (k === '$minDistance') {
      minDistance = distanceArg(v, '$minDistance', {
        type: ErrorCode.Location16893,
        negative: ErrorCode.Location16894,
      });
    } else if (k === '$maxDistance') {
      maxDistance = distanceArg(v, '$maxDistance', {
        type: ErrorCode.Location16895,
        negative: ErrorCode.Location16896,
      });
    } else if (k !== '$uniqueDocs') {
      throw new CommandError(ErrorCode.Location34413, `invalid argument in geo near query: ${k}`);
    }
  }
  if (found === undefined) return undefined;
  return finish({ ...found, minDistance, maxDistance });
}

/** mongod's parseNewQuery: {$near: {$geometry, $minDistance, $maxDistance}}. */
function parseNew(doc: BsonDocument): NearQuery {
  const entries = Object.entries(doc);
  const first = entries[0];
  if (first === undefined) throw geoError('empty geo near query object');
  if (entries.length > 1) {
    throw geoError(
      `geo near accepts just one argument when querying for a GeoJSON point. Extra field found: ${entries[1]?.[0]}: ${formatBson(entries[1]?.[1] ?? null)}`,
    );
  }
  const [operator, arg] = first;
  const obj = isArray(arg) ? undefined : asDocument(arg);
  if (obj === undefined) throw geoError('geo near query argument is not an object');
  if (!NEAR_OPERATORS.has(operator)) throw geoError(`invalid geo near query operator: ${operator}`);
  let point: { point: FlatPoint; geojson: boolean } | undefined;
  let minDistance = 0;
  let maxDistance = Infinity;
  for (const [k, v] of Object.entries(obj)) {
    if (k === '$geometry') {
      if (!isArray(v) && asDocument(v) === undefined) continue;
      const g = v;
      try {
        point = parseQueryPoint(v);
      } catch (e) {
        if (!(e instanceof CommandError)) throw e;
        throw geoError(
          `invalid point in geo near query $geometry argument: ${formatBson(g)}  ${e.message}`,
        );
      }
      if (!point.geojson)
        throw new CommandError(
          ErrorCode.Location16681,
          `$near requires geojson point, given ${formatBson(g)}`,
        );
    } else if (k === '$minDistance') {
      minDistance = distanceArg(v, '$minDistance', {
        type: ErrorCode.Location16897,
        negative: ErrorCode.Location16898,
      });
    } else if (k === '$maxDistance') {
      maxDistance = distanceArg(v, '$maxDistance', {
        type: ErrorCode.Location16899,
        negative: ErrorCode.Location16900,
      });
    } else {
      throw geoError(`invalid argument in geo near query: ${k}`);
    }
  }
  if (point === undefined) throw geoError('$geometry is required for geo near query');
  return finish({ ...point, operator, minDistance, maxDistance });
}

function finish(q: {
  point: FlatPoint;
  geojson: boolean;
  operator: string;
  minDistance: number;
  maxDistance: number;
}): NearQuery {
  const sphere = q.operator === '$nearSphere';
  if (sphere && !isValidLngLat(q.point.x, q.point.y)) {
    throw new CommandError(
      ErrorCode.Location17444,
      'Legacy point is out of bounds for spherical query',
    );
  }
  return { ...q, spherical: sphere || q.geojson };
}

/** The near query of an operator document whose first operator is $near / $nearSphere / $geoNear. */
export function parseNear(operatorDoc: BsonDocument): NearQuery {
  return parseLegacy(operatorDoc) ?? parseNew(operatorDoc);
}

export function isNearOperator(name: string): boolean {
  return NEAR_OPERATORS.has(name);
}

/** The center on the sphere (a spherical query's point is in range). */
export function nearCenter(q: NearQuery): s2.Point {
  return toSpherePoint(q.point);
}

/** The distance of a stored geometry from the query point, in the query's units. */
export function nearDistance(q: NearQuery, g: StoredGeometry): number | undefined {
  if (q.spherical) {
    const shape = sphereShapeOf(g);
    if (shape === undefined) return undefined;
    const d = sphereDistance(nearCenter(q), shape);
    return q.geojson ? d * EARTH_RADIUS_METERS : d;
  }
  const p = flatPointOf(g);
  return p === undefined ? undefined : flatDistance(p, q.point);
}
