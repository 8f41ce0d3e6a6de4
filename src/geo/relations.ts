// What mongod's GeometryContainer::contains / intersects decide, and the distances $near sorts by.
//
// Flat query shapes ($box, $polygon, $center) contain points only (legacy pairs, or GeoJSON
// Points read as pairs), boundaries included. A $centerSphere cap contains a geometry whose
// every vertex lies within its radius (a cap under a hemisphere is convex). A $geometry polygon
// contains a point inside it, a line whose vertices are inside and which crosses no ring, and
// a polygon it contains in S2's sense; a multi-polygon contains what one of its polygons does.
// Intersection is S2's for every pair of points, lines and polygons. Distances on the sphere are
// angles (radians) to the nearest point of the geometry (0 inside a polygon).

import { s2 } from 's2js';
import type { FlatPoint, QueryShape, SphereShape, StoredGeometry } from './geometry.js';
import { flatPointOf, sphereShapeOf } from './geometry.js';
import { appendAll } from '../bson/arrays.js';

function ringAsPolyline(loop: s2.Loop): s2.Polyline {
  const n = loop.numVertices();
  const vertices: s2.Point[] = [];
  for (let i = 0; i <= n; i++) vertices.push(loop.vertex(i % n));
  return new s2.Polyline(vertices);
}

const ringsCache = new WeakMap<s2.Polygon, s2.Polyline[]>();

function ringsOf(polygon: s2.Polygon): s2.Polyline[] {
  let rings = ringsCache.get(polygon);
  if (rings === undefined) {
    rings = [];
    for (let i = 0; i < polygon.numLoops(); i++) rings.push(ringAsPolyline(polygon.loop(i)));
    ringsCache.set(polygon, rings);
  }
  return rings;
}

function lineVertices(line: s2.Polyline): s2.Point[] {
  const out: s2.Point[] = [];
  for (let i = 0; i < line.numEdges(); i++) out.push(line.edge(i).v0);
  const n = line.numEdges();
  if (n > 0) out.push(line.edge(n - 1).v1);
  return out;
}

function polygonContainsLine(polygon: s2.Polygon, line: s2.Polyline): boolean {
  if (!lineVertices(line).every((p) => polygon.containsPoint(p))) return false;
  return !ringsOf(polygon).some((ring) => ring.intersects(line));
}

function lineIntersectsPolygon(line: s2.Polyline, polygon: s2.Polygon): boolean {
  if (lineVertices(line).some((p) => polygon.containsPoint(p))) return true;
  return ringsOf(polygon).some((ring) => ring.intersects(line));
}

function pointOnLine(p: s2.Point, line: s2.Polyline): boolean {
  return line.intersectsCell(s2.Cell.fromPoint(p));
}

function samePoint(a: s2.Point, b: s2.Point): boolean {
  return s2.cellid.fromPoint(a) === s2.cellid.fromPoint(b);
}

/** Whether two spherical shapes share a point. */
export function shapesIntersect(a: SphereShape, b: SphereShape): boolean {
  for (const p of a.points) {
    if (b.points.some((q) => samePoint(p, q))) return true;
    if (b.lines.some((l) => pointOnLine(p, l))) return true;
    if (b.polygons.some((g) => g.containsPoint(p))) return true;
  }
  for (const l of a.lines) {
    if (b.points.some((q) => pointOnLine(q, l))) return true;
    if (b.lines.some((m) => m.intersects(l))) return true;
    if (b.polygons.some((g) => lineIntersectsPolygon(l, g))) return true;
  }
  for (const g of a.polygons) {
    if (b.points.some((q) => g.containsPoint(q))) return true;
    if (b.lines.some((m) => lineIntersectsPolygon(m, g))) return true;
    if (b.polygons.some((h) => h.intersects(g))) return true;
  }
  return false;
}

/** Whether the polygons of `outer` contain every part of `inner`. */
function shapeContains(outer: SphereShape, inner: SphereShape): boolean {
  const polygons = outer.polygons;
  return (
    inner.points.every((p) => polygons.some((g) => g.containsPoint(p))) &&
    inner.lines.every((l) => polygons.some((g) => polygonContainsLine(g, l))) &&
    inner.polygons.every((h) => polygons.some((g) => g.contains(h)))
  );
}

function shapeVertices(shape: SphereShape): s2.Point[] {
  const out = [...shape.points];
  for (const l of shape.lines) appendAll(out, lineVertices(l));
  for (const g of shape.polygons)
    for (let i = 0; i < g.numLoops(); i++) {
      const loop = g.loop(i);
      for (let j = 0; j < loop.numVertices(); j++) out.push(loop.vertex(j));
    }
  return out;
}

function inFlatPolygon(p: FlatPoint, points: readonly FlatPoint[]): boolean {
  // Boundary first (mongod's flat polygon includes its edges), then ray casting.
  const n = points.length;
  for (let i = 0; i < n; i++) {
    const a = points[i] as FlatPoint;
    const b = points[(i + 1) % n] as FlatPoint;
    const cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
    if (
      Math.abs(cross) < 1e-12 &&
      p.x >= Math.min(a.x, b.x) &&
      p.x <= Math.max(a.x, b.x) &&
      p.y >= Math.min(a.y, b.y) &&
      p.y <= Math.max(a.y, b.y)
    )
      return true;
  }
  let inside = false;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const a = points[i] as FlatPoint;
    const b = points[j] as FlatPoint;
    if (a.y > p.y !== b.y > p.y && p.x < ((b.x - a.x) * (p.y - a.y)) / (b.y - a.y) + a.x)
      inside = !inside;
  }
  return inside;
}

/** $geoWithin: is the stored geometry inside the query shape? */
export function within(query: QueryShape, stored: StoredGeometry): boolean {
  switch (query.kind) {
    case 'box': {
      const p = flatPointOf(stored);
      return (
        p !== undefined &&
        p.x >= query.min.x &&
        p.x <= query.max.x &&
        p.y >= query.min.y &&
        p.y <= query.max.y
      );
    }
    case 'flatPolygon': {
      const p = flatPointOf(stored);
      return p !== undefined && inFlatPolygon(p, query.points);
    }
    case 'circle': {
      const p = flatPointOf(stored);
      return (
        p !== undefined && Math.hypot(p.x - query.center.x, p.y - query.center.y) <= query.radius
      );
    }
    case 'cap': {
      const shape = sphereShapeOf(stored);
      return (
        shape !== undefined &&
        shapeVertices(shape).every((v) => v.distance(query.center) <= query.radius)
      );
    }
    case 'sphere': {
      const shape = sphereShapeOf(stored);
      return shape !== undefined && shapeContains(query.shape, shape);
    }
  }
}

/** $geoIntersects (a $geometry query; mongod matches nothing for other shapes). */
export function intersects(query: QueryShape, stored: StoredGeometry): boolean {
  if (query.kind !== 'sphere') return false;
  const shape = sphereShapeOf(stored);
  return shape !== undefined && shapesIntersect(query.shape, shape);
}

/** The angle between a point and a great-circle segment. */
function segmentDistance(x: s2.Point, a: s2.Point, b: s2.Point): number {
  const n = a.vector.cross(b.vector);
  const len = n.norm();
  if (len === 0) return Math.min(x.distance(a), x.distance(b));
  const nu = n.mul(1 / len);
  const d = x.vector.dot(nu);
  const proj = x.vector.sub(nu.mul(d));
  if (proj.norm() > 0 && a.vector.cross(proj).dot(n) >= 0 && proj.cross(b.vector).dot(n) >= 0)
    return Math.asin(Math.min(1, Math.abs(d)));
  return Math.min(x.distance(a), x.distance(b));
}

function lineDistance(p: s2.Point, line: s2.Polyline): number {
  let best = Infinity;
  for (let i = 0; i < line.numEdges(); i++) {
    const e = line.edge(i);
    best = Math.min(best, segmentDistance(p, e.v0, e.v1));
  }
  return best;
}

/** The angular distance (radians) from a point to the nearest point of a shape. */
export function sphereDistance(p: s2.Point, shape: SphereShape): number {
  let best = Infinity;
  for (const q of shape.points) best = Math.min(best, p.distance(q));
  for (const l of shape.lines) best = Math.min(best, lineDistance(p, l));
  for (const g of shape.polygons) {
    if (g.containsPoint(p)) return 0;
    for (const ring of ringsOf(g)) best = Math.min(best, lineDistance(p, ring));
  }
  return best;
}

export function flatDistance(a: FlatPoint, b: FlatPoint): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}
