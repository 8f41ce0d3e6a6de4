// Geometries as mongod's geo code reads them (geoparser.cpp, geometry_container.cpp):
//
// - stored values: a GeoJSON object ({type, coordinates} / GeometryCollection {geometries}) or a
//   legacy coordinate pair ([x, y], {x, y}; extra elements allowed); GeoJSON coordinates are
//   [longitude, latitude] in degrees, in range, finite;
// - GeoJSON Polygon rings are closed, have at least 3 distinct vertices after consecutive
//   duplicates are removed, do not self-intersect; every ring is taken as the smaller of the two
//   areas it bounds (mongod's Normalize); rings after the first must be holes inside it;
// - query shapes: $geometry (GeoJSON, or a legacy point), $box, $polygon, $center (flat, in the
//   coordinates' own units) and $centerSphere (a spherical cap, radius in radians).
//
// Spherical shapes are S2 objects from the s2js package (a port of Google's S2 geometry library,
// which mongod uses for 2dsphere): points, polylines (edges are geodesics) and polygons with holes.
// Errors are BadValue with mongod's messages; callers wrap them (16755 for stored documents).

import { Double } from 'bson';
import { s2 } from 's2js';
import { formatBson } from '../bson/format.js';
import { asDocument, isArray } from '../bson/types.js';
import { isNumeric } from '../bson/numeric.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import { appendAll } from '../bson/arrays.js';

export interface FlatPoint {
  readonly x: number;
  readonly y: number;
}

/** A geometry on the sphere: its points, lines and polygons (multi-geometries flattened). */
export interface SphereShape {
  readonly points: readonly s2.Point[];
  readonly lines: readonly s2.Polyline[];
  readonly polygons: readonly s2.Polygon[];
}

/** A stored geometry: a legacy pair (flat, projectable to the sphere when in range) or GeoJSON. */
export type StoredGeometry =
  | { readonly kind: 'legacyPoint'; readonly flat: FlatPoint }
  | {
      readonly kind: 'geojson';
      readonly shape: SphereShape;
      /** A GeoJSON Point's coordinates (a flat query may use them). */
      readonly point?: FlatPoint;
    };

/** A query region of $geoWithin / $geoIntersects. */
export type QueryShape =
  | { readonly kind: 'sphere'; readonly shape: SphereShape; readonly source: BsonDocument }
  | {
      readonly kind: 'cap';
      readonly center: s2.Point;
      readonly radius: number;
      readonly centerFlat: FlatPoint;
    }
  | { readonly kind: 'box'; readonly min: FlatPoint; readonly max: FlatPoint }
  | { readonly kind: 'flatPolygon'; readonly points: readonly FlatPoint[] }
  | { readonly kind: 'circle'; readonly center: FlatPoint; readonly radius: number };

export function geoError(message: string): CommandError {
  return new CommandError(ErrorCode.BadValue, message);
}

/** A BSON number (plain JavaScript numbers too, for callers outside the wire). */
function isNum(v: BsonValue | undefined): v is BsonValue {
  return v !== undefined && (typeof v === 'number' || isNumeric(v));
}

function num(v: BsonValue): number {
  return Number((v as { valueOf(): unknown }).valueOf());
}

function show(v: BsonValue): string {
  return formatBson(v);
}

/** The values of an array or a document, in order. */
function valuesOf(v: BsonValue): BsonValue[] | undefined {
  if (isArray(v)) return v;
  const d = asDocument(v);
  return d === undefined ? undefined : Object.values(d);
}

/** mongod's parseFlatPoint. */
export function parseFlatPoint(v: BsonValue, allowExtra: boolean): FlatPoint {
  const vals = valuesOf(v);
  if (vals === undefined) throw geoError('Point must be an array or object');
  const [x, y] = vals;
  if (!isNum(x) || !isNum(y)) throw geoError('Point must only contain numeric elements');
  if (!allowExtra && vals.length > 2)
    throw geoError('Point must only contain two numeric elements');
  const p = { x: num(x), y: num(y) };
  if (!Number.isFinite(p.x) || !Number.isFinite(p.y))
    throw geoError('Point coordinates must be finite numbers');
  return p;
}

export function isValidLngLat(lng: number, lat: number): boolean {
  return lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180;
}

export function toSpherePoint(p: FlatPoint): s2.Point {
  if (!isValidLngLat(p.x, p.y))
    throw geoError(`longitude/latitude is out of bounds, lng: ${p.x} lat: ${p.y}`);
  return s2.Point.fromLatLng(s2.LatLng.fromDegrees(p.y, p.x));
}

function coordinate(v: BsonValue): s2.Point {
  if (!isArray(v)) throw geoError('GeoJSON coordinates must be an array');
  return toSpherePoint(parseFlatPoint(v, true));
}

function coordinates(v: BsonValue): s2.Point[] {
  if (!isArray(v)) throw geoError('GeoJSON coordinates must be an array of coordinates');
  return v.map(coordinate);
}

function withoutAdjacentDuplicates(points: s2.Point[]): s2.Point[] {
  const out: s2.Point[] = [];
  for (const p of points) {
    const last = out[out.length - 1];
    if (last === undefined || !last.equals(p)) out.push(p);
  }
  return out;
}

const CRS_NAMES = new Set(['urn:ogc:def:crs:OGC:1.3:CRS84', 'EPSG:4326']);
const STRICT_WINDING = 'urn:x-mongodb:crs:strictwinding:EPSG:4326';

function checkCrs(obj: BsonDocument): void {
  const crs = obj['crs'];
  if (crs === undefined) return;
  const c = asDocument(crs);
  if (c === undefined || isArray(crs)) throw geoError('GeoJSON CRS must be an object');
  if (c['type'] !== 'name') throw geoError('GeoJSON CRS must have field "type": "name"');
  const props = asDocument(c['properties']);
  if (props === undefined) throw geoError('CRS must have field "properties" which is an object');
  const name = props['name'];
  if (typeof name !== 'string') throw geoError('In CRS, "properties.name" must be a string');
  if (name === STRICT_WINDING) {
    throw new CommandError(
      ErrorCode.NotImplemented,
      'big polygons (strict winding order CRS) are not supported',
    );
  }
  if (!CRS_NAMES.has(name)) throw geoError(`Unknown CRS name: ${name}`);
}

function parseLine(v: BsonValue): s2.Polyline {
  const vertices = withoutAdjacentDuplicates(coordinates(v));
  if (vertices.length < 2)
    throw geoError(`GeoJSON LineString must have at least 2 vertices: ${show(v)}`);
  const line = new s2.Polyline(vertices);
  const err = line.validate();
  if (err !== null) throw geoError(`GeoJSON LineString is not valid: ${err.message} ${show(v)}`);
  return line;
}

function orientation(a: s2.Point, b: s2.Point, c: s2.Point): number {
  return Math.sign(a.vector.cross(b.vector).dot(c.vector));
}

/** Whether edges AB and CD cross at a point interior to both (S2's crossing rule). */
function edgesCross(a: s2.Point, b: s2.Point, c: s2.Point, d: s2.Point): boolean {
  const acb = -orientation(a, b, c);
  const bda = orientation(a, b, d);
  if (acb === 0 || acb !== bda) return false;
  const cbd = -orientation(c, d, b);
  const dac = orientation(c, d, a);
  return acb === cbd && cbd === dac;
}

/** mongod's "Edges i and j cross" (s2js's validation does not look for crossings). */
function selfIntersection(vertices: readonly s2.Point[]): string | undefined {
  const n = vertices.length;
  if (n > limits.geoRingCrossingCheckVerticesMax) return undefined;
  for (let i = 0; i < n; i++) {
    const a = vertices[i] as s2.Point;
    const b = vertices[(i + 1) % n] as s2.Point;
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue;
      if (edgesCross(a, b, vertices[j] as s2.Point, vertices[(j + 1) % n] as s2.Point))
        return `Edges ${i} and ${j} cross.`;
    }
  }
  return undefined;
}

function parsePolygon(v: BsonValue): s2.Polygon {
  if (!isArray(v)) throw geoError('Polygon coordinates must be an array');
  const loops: s2.Loop[] = [];
  for (const ring of v) {
    const points = coordinates(ring);
    if (points.length === 0) throw geoError(`Loop has no vertices: ${show(ring)}`);
    if (!(points[0] as s2.Point).equals(points[points.length - 1] as s2.Point))
      throw geoError(`Loop is not closed: ${show(ring)}`);
    const vertices = withoutAdjacentDuplicates(points);
    vertices.pop();
    if (vertices.length < 3)
      throw geoError(`Loop must have at least 3 different vertices: ${show(ring)}`);
    const loop = new s2.Loop(vertices);
    const err = loop.validate()?.message ?? selfIntersection(vertices);
    if (err !== undefined) throw geoError(`Loop is not valid: ${show(ring)} ${err}`);
    loop.normalize();
    const shell = loops[0];
    if (shell !== undefined && !shell.contains(loop)) {
      throw geoError(
        `Secondary loops not contained by first exterior loop - secondary loops must be holes: ${show(ring)} first loop: ${show(v[0] as BsonValue)}`,
      );
    }
    loops.push(loop);
  }
  if (loops.length === 0) throw geoError('Polygon has no loops.');
  const polygon = new s2.Polygon(loops);
  const err = polygon.validate();
  if (err !== null) throw geoError(`Polygon isn't valid: ${err.message} ${show(v)}`);
  for (let i = 0; i < polygon.numLoops(); i++) {
    if (polygon.loop(i).depth > 1)
      throw geoError(`Polygon interior loops cannot be nested: ${show(v)}`);
  }
  return polygon;
}

type GeoJsonType =
  | 'Point'
  | 'LineString'
  | 'Polygon'
  | 'MultiPoint'
  | 'MultiLineString'
  | 'MultiPolygon'
  | 'GeometryCollection';

const GEOJSON_TYPES: ReadonlySet<string> = new Set([
  'Point',
  'LineString',
  'Polygon',
  'MultiPoint',
  'MultiLineString',
  'MultiPolygon',
  'GeometryCollection',
]);

export function geoJsonType(obj: BsonDocument): GeoJsonType | undefined {
  const t = obj['type'];
  return typeof t === 'string' && GEOJSON_TYPES.has(t) ? (t as GeoJsonType) : undefined;
}

interface ParsedGeoJson {
  readonly shape: SphereShape;
  readonly type: GeoJsonType;
  readonly point?: FlatPoint;
}

function empty(): { points: s2.Point[]; lines: s2.Polyline[]; polygons: s2.Polygon[] } {
  return { points: [], lines: [], polygons: [] };
}

/** A GeoJSON object (mongod's parseFromGeoJSON). */
export function parseGeoJson(obj: BsonDocument, nested = false): ParsedGeoJson {
  const type = geoJsonType(obj);
  if (type === undefined) throw geoError(`unknown GeoJSON type: ${show(obj)}`);
  const out = empty();
  const coords = obj['coordinates'] ?? null;
  if (type !== 'GeometryCollection') checkCrs(obj);
  switch (type) {
    case 'Point': {
      const p = parseFlatPoint(coords, true);
      out.points.push(toSpherePoint(p));
      return { shape: out, type, point: p };
    }
    case 'LineString':
      out.lines.push(parseLine(coords));
      break;
    case 'Polygon':
      out.polygons.push(parsePolygon(coords));
      break;
    case 'MultiPoint':
      appendAll(out.points, coordinates(coords));
      if (out.points.length === 0)
        throw geoError('MultiPoint coordinates must have at least 1 element');
      break;
    case 'MultiLineString':
      if (!isArray(coords)) throw geoError('MultiLineString coordinates must be an array');
      for (const l of coords) out.lines.push(parseLine(l));
      if (out.lines.length === 0)
        throw geoError('MultiLineString coordinates must have at least 1 element');
      break;
    case 'MultiPolygon':
      if (!isArray(coords)) throw geoError('MultiPolygon coordinates must be an array');
      for (const p of coords) out.polygons.push(parsePolygon(p));
      if (out.polygons.length === 0)
        throw geoError('MultiPolygon coordinates must have at least 1 element');
      break;
    case 'GeometryCollection': {
      const geometries = obj['geometries'];
      if (!isArray(geometries)) throw geoError('GeometryCollection geometries must be an array');
      if (geometries.length === 0)
        throw geoError('GeometryCollection geometries must have at least 1 element');
      geometries.forEach((g, i) => {
        const d = isArray(g) ? undefined : asDocument(g);
        if (d === undefined) throw geoError(`Element ${i} of "geometries" is not an object`);
        const t = geoJsonType(d);
        if (t === undefined) throw geoError(`Unknown GeoJSON type: ${show(g)}`);
        if (t === 'GeometryCollection' || nested)
          throw geoError(`GeometryCollections cannot be nested: ${show(g)}`);
        const inner = parseGeoJson(d, true).shape;
        appendAll(out.points, inner.points);
        appendAll(out.lines, inner.lines);
        appendAll(out.polygons, inner.polygons);
      });
      break;
    }
  }
  return { shape: out, type };
}

/** A value stored at a geo-indexed path (mongod's parseFromStorage). */
export function parseStoredGeometry(v: BsonValue, name: string): StoredGeometry {
  const d = isArray(v) ? undefined : asDocument(v);
  if (!isArray(v) && d === undefined)
    throw geoError(`geo element must be an array or object: ${name}: ${show(v)}`);
  if (d !== undefined) {
    try {
      const g = parseGeoJson(d);
      return {
        kind: 'geojson',
        shape: g.shape,
        ...(g.point === undefined ? {} : { point: g.point }),
      };
    } catch (e) {
      // {x: 1, y: 2} (even with a type field) may be a legacy point.
      try {
        return { kind: 'legacyPoint', flat: parseFlatPoint(v, true) };
      } catch {
        throw e;
      }
    }
  }
  return { kind: 'legacyPoint', flat: parseFlatPoint(v, true) };
}

/** A stored geometry on the sphere, or undefined when a legacy pair is out of lng/lat range. */
export function sphereShapeOf(g: StoredGeometry): SphereShape | undefined {
  if (g.kind === 'geojson') return g.shape;
  if (!isValidLngLat(g.flat.x, g.flat.y)) return undefined;
  return { points: [toSpherePoint(g.flat)], lines: [], polygons: [] };
}

/** The flat point of a stored geometry (a legacy pair or a GeoJSON Point), if it is one. */
export function flatPointOf(g: StoredGeometry): FlatPoint | undefined {
  return g.kind === 'legacyPoint' ? g.flat : g.point;
}

// ---- query shapes ----------------------------------------------------------------------------

function parseBox(v: BsonValue): QueryShape {
  const vals = valuesOf(v) ?? [];
  const a = parseFlatPoint(vals[0] ?? null, false);
  const b = parseFlatPoint(vals[1] ?? null, false);
  return {
    kind: 'box',
    min: { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y) },
    max: { x: Math.max(a.x, b.x), y: Math.max(a.y, b.y) },
  };
}

function parseFlatPolygon(v: BsonValue): QueryShape {
  const points = (valuesOf(v) ?? []).map((p) => parseFlatPoint(p, false));
  if (points.length < 3) throw geoError('Polygon must have at least 3 points');
  return { kind: 'flatPolygon', points };
}

function radiusOf(v: BsonValue | undefined): number {
  if (!isNum(v) || !(num(v) >= 0)) throw geoError('radius must be a non-negative number');
  return num(v);
}

function parseCenter(v: BsonValue, sphere: boolean): QueryShape {
  const vals = valuesOf(v) ?? [];
  const center = parseFlatPoint(vals[0] ?? null, false);
  if (sphere) toSpherePoint(center);
  const radius = radiusOf(vals[1]);
  if (vals.length > 2) throw geoError('Only 2 fields allowed for circular region');
  return sphere
    ? { kind: 'cap', center: toSpherePoint(center), radius, centerFlat: center }
    : { kind: 'circle', center, radius };
}

/**
 * The geometry of $geoWithin / $geoIntersects: `{$geometry | $box | $polygon | $center |
 * $centerSphere: ...}` (mongod's parseFromQuery); `within` refuses shapes that contain nothing.
 */
export function parseQueryShape(name: string, v: BsonValue): QueryShape {
  const isObj = isArray(v) || asDocument(v) !== undefined;
  if (!isObj) throw geoError(`unknown geo specifier: ${name}: ${show(v)}`);
  switch (name) {
    case '$box':
      return parseBox(v);
    case '$polygon':
      return parseFlatPolygon(v);
    case '$center':
      return parseCenter(v, false);
    case '$centerSphere':
      return parseCenter(v, true);
    case '$geometry': {
      const d = isArray(v) ? undefined : asDocument(v);
      if (d === undefined || isNum(Object.values(d)[0])) {
        // A legacy point as a query geometry: a point on the sphere.
        const p = parseFlatPoint(v, false);
        return {
          kind: 'sphere',
          shape: { points: [toSpherePoint(p)], lines: [], polygons: [] },
          source: { type: 'Point', coordinates: [new Double(p.x), new Double(p.y)] },
        };
      }
      return { kind: 'sphere', shape: parseGeoJson(d).shape, source: d };
    }
    default:
      throw geoError(`unknown geo specifier: ${name}: ${show(v)}`);
  }
}
