// Index keys of geo indexes and the key ranges a query region scans.
//
// 2dsphere (as mongod's 2dsphereIndexVersion 3): a geometry's keys are the S2 cells of its
// covering (a point: the one cell at the finest indexed level), each stored as the cell id read
// as a signed 64-bit integer (NumberLong), which keeps every cell's descendants in one key range.
// A stored cell can meet a query cell only if one contains the other, so a query region scans, for
// each cell of its covering, the range of the cell's descendants and the cell's ancestors.
//
// 2d: a point's key is its geohash, the interleaved bits of x and y scaled to [min, max) with
// `bits` bits each, left-aligned in 8 bytes (BinData subtype 128, as mongod shows them). A
// region scans the hash ranges of the quadtree cells that cover its bounding box.
//
// The keys only have to reach every candidate: matching is decided on the document.

import { Binary, Long } from 'bson';
import { s2 } from 's2js';
import type { FlatPoint, SphereShape } from './geometry.js';

/** Finest S2 level indexed (about 1 m cells); points are indexed at it. */
export const S2_FINEST_LEVEL = 23;
const storedCovererOptions = { minLevel: 0, maxLevel: S2_FINEST_LEVEL, maxCells: 8 };
const queryCovererOptions = { minLevel: 0, maxLevel: S2_FINEST_LEVEL, maxCells: 16 };

function signed(id: bigint): bigint {
  return BigInt.asIntN(64, id);
}

export function cellKey(id: bigint): Long {
  return Long.fromBigInt(signed(id));
}

function pointCell(p: s2.Point): bigint {
  return s2.cellid.parent(s2.cellid.fromPoint(p), S2_FINEST_LEVEL);
}

function cover(region: s2.Region, options: typeof storedCovererOptions): bigint[] {
  return [...new s2.RegionCoverer(options).covering(region)];
}

/** The S2 cells a stored geometry is indexed under. */
export function shapeCells(shape: SphereShape): bigint[] {
  const cells = new Set<bigint>();
  for (const p of shape.points) cells.add(pointCell(p));
  for (const l of shape.lines) for (const c of cover(l, storedCovererOptions)) cells.add(c);
  for (const g of shape.polygons) for (const c of cover(g, storedCovererOptions)) cells.add(c);
  return [...cells];
}

/** A closed interval of key values (signed cell ids, or 2d hashes as unsigned 64-bit). */
export interface KeyRange {
  readonly lo: bigint;
  readonly hi: bigint;
}

function mergeRanges(ranges: KeyRange[]): KeyRange[] {
  ranges.sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0));
  const out: KeyRange[] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last !== undefined && r.lo <= last.hi + 1n) {
      if (r.hi > last.hi) out[out.length - 1] = { lo: last.lo, hi: r.hi };
    } else out.push(r);
  }
  return out;
}

/** The signed key ranges of cells: each cell's descendants, and its ancestors as points. */
function rangesOfCells(cells: Iterable<bigint>): KeyRange[] {
  const ranges: KeyRange[] = [];
  for (const c of cells) {
    ranges.push({ lo: signed(s2.cellid.rangeMin(c)), hi: signed(s2.cellid.rangeMax(c)) });
    for (let level = s2.cellid.level(c) - 1; level >= 0; level--) {
      const a = signed(s2.cellid.parent(c, level));
      ranges.push({ lo: a, hi: a });
    }
  }
  return mergeRanges(ranges);
}

/** The key ranges a spherical region scans. */
export function sphereRegionRanges(
  regions: readonly s2.Region[],
  points: readonly s2.Point[],
): KeyRange[] {
  const cells = new Set<bigint>();
  for (const p of points) cells.add(pointCell(p));
  for (const r of regions) for (const c of cover(r, queryCovererOptions)) cells.add(c);
  return rangesOfCells(cells);
}

/** The key ranges of a spherical cap (center, radius in radians). */
export function capRanges(center: s2.Point, radius: number): KeyRange[] {
  if (radius >= Math.PI) return [{ lo: -(2n ** 63n), hi: 2n ** 63n - 1n }];
  return sphereRegionRanges([s2.Cap.fromCenterAngle(center, radius)], []);
}

export function shapeRanges(shape: SphereShape): KeyRange[] {
  return sphereRegionRanges([...shape.lines, ...shape.polygons], shape.points);
}

// ---- 2d ------------------------------------------------------------------------------------------

export interface Hash2dParams {
  readonly bits: number;
  readonly min: number;
  readonly max: number;
}

const BINARY_SUBTYPE_2D = 128;

function scaled(v: number, p: Hash2dParams): bigint {
  const cells = 2 ** p.bits;
  const i = Math.floor(((v - p.min) / (p.max - p.min)) * cells);
  return BigInt(Math.min(cells - 1, Math.max(0, i)));
}

/** The geohash of a point: x and y bits interleaved (x first), left-aligned in 64 bits. */
export function hash2d(pt: FlatPoint, p: Hash2dParams): bigint {
  const x = scaled(pt.x, p);
  const y = scaled(pt.y, p);
  let h = 0n;
  for (let i = p.bits - 1; i >= 0; i--) {
    h = (h << 1n) | ((x >> BigInt(i)) & 1n);
    h = (h << 1n) | ((y >> BigInt(i)) & 1n);
  }
  return h << BigInt(64 - 2 * p.bits);
}

export function hashKey(h: bigint): Binary {
  const bytes = new Uint8Array(8);
  let v = h;
  for (let i = 7; i >= 0; i--) {
    bytes[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return new Binary(bytes, BINARY_SUBTYPE_2D);
}

/** The hash ranges of quadtree cells covering the box [lo, hi] (at most about 64 cells). */
export function boxHashRanges(lo: FlatPoint, hi: FlatPoint, p: Hash2dParams): KeyRange[] {
  const out: KeyRange[] = [];
  const span = p.max - p.min;
  // Cells as (level, ix, iy); a cell of level L covers span / 2^L on each axis.
  let frontier: Array<{ level: number; ix: number; iy: number }> = [{ level: 0, ix: 0, iy: 0 }];
  const budget = 64;
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const c of frontier) {
      const size = span / 2 ** c.level;
      const x0 = p.min + c.ix * size;
      const y0 = p.min + c.iy * size;
      if (x0 > hi.x || x0 + size < lo.x || y0 > hi.y || y0 + size < lo.y) continue;
      const inside = x0 >= lo.x && x0 + size <= hi.x && y0 >= lo.y && y0 + size <= hi.y;
      if (inside || c.level >= p.bits || frontier.length + next.length + out.length >= budget) {
        const shift = BigInt(64 - 2 * c.level);
        let prefix = 0n;
        for (let i = c.level - 1; i >= 0; i--) {
          prefix = (prefix << 1n) | BigInt((c.ix >> i) & 1);
          prefix = (prefix << 1n) | BigInt((c.iy >> i) & 1);
        }
        const first = c.level === 0 ? 0n : prefix << shift;
        const last = c.level === 0 ? 2n ** 64n - 1n : ((prefix + 1n) << shift) - 1n;
        out.push({ lo: first, hi: last });
        continue;
      }
      for (const [dx, dy] of [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ] as const)
        next.push({ level: c.level + 1, ix: c.ix * 2 + dx, iy: c.iy * 2 + dy });
    }
    frontier = next;
  }
  return mergeRanges(out);
}
