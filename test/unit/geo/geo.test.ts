// The geometry library (src/geo): GeoJSON parsing and mongod's validation messages, the
// relations of query shapes and stored geometries, near-query parsing and units, and the 2d
// geohash and cell ranges that index scans rely on (every key of a point inside a region lies
// in one of the region's ranges).

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { boxHashRanges, capRanges, hash2d, shapeCells } from '../../../src/geo/cells.js';
import * as geometry from '../../../src/geo/geometry.js';
import { toSpherePoint } from '../../../src/geo/geometry.js';
import { nearDistance, parseNear as parseNearDoc } from '../../../src/geo/near.js';
import { bdoc, bv } from '../../helpers/bson-values.js';

// The geometry functions take the server's value model; these take literals.
const parseGeoJson = (v: Record<string, unknown>) => geometry.parseGeoJson(bdoc(v));
const parseStoredGeometry = (v: unknown, name: string) => geometry.parseStoredGeometry(bv(v), name);
const parseQueryShape = (name: string, v: unknown) => geometry.parseQueryShape(name, bv(v));
const parseNear = (v: Record<string, unknown>) => parseNearDoc(bdoc(v));
import { intersects, within } from '../../../src/geo/relations.js';

const polygon = (ring: number[][]) => ({ type: 'Polygon', coordinates: [ring] });

describe('geometry parsing (mongod GeoParser)', () => {
  test('validation messages', () => {
    const message = (v: unknown): string => {
      try {
        parseStoredGeometry(v as never, 'loc');
      } catch (e) {
        return (e as Error).message;
      }
      return 'ok';
    };
    assert.equal(
      message({ type: 'Point', coordinates: [181, 0] }),
      'longitude/latitude is out of bounds, lng: 181 lat: 0',
    );
    assert.match(
      message({
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 1],
            [1, 0],
          ],
        ],
      }),
      /^Loop is not closed/,
    );
    assert.match(
      message(
        polygon([
          [0, 0],
          [1, 1],
          [0, 0],
          [0, 0],
        ]),
      ),
      /^Loop must have at least 3 different vertices/,
    );
    assert.match(
      message(
        polygon([
          [0, 0],
          [10, 10],
          [10, 0],
          [0, 10],
          [0, 0],
        ]),
      ),
      /Edges \d+ and \d+ cross/,
    );
    assert.match(
      message({
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 0],
          ],
          [
            [5, 5],
            [6, 5],
            [6, 6],
            [5, 5],
          ],
        ],
      }),
      /^Secondary loops not contained by first exterior loop/,
    );
    assert.match(
      message({ type: 'LineString', coordinates: [[0, 0]] }),
      /^GeoJSON LineString must have at least 2 vertices/,
    );
    assert.match(message({ type: 'Circle' }), /^unknown GeoJSON type/);
    assert.match(message('x'), /^geo element must be an array or object: loc: "x"/);
    assert.equal(message({ x: 1, y: 2 }), 'ok');
    assert.equal(message([1, 2, 3]), 'ok');
  });
  test('a clockwise ring is the smaller area it bounds', () => {
    const cw = parseQueryShape(
      '$geometry',
      polygon([
        [0, 0],
        [0, 10],
        [10, 10],
        [10, 0],
        [0, 0],
      ]),
    );
    assert.equal(within(cw, parseStoredGeometry([5, 5], 'l')), true);
    assert.equal(within(cw, parseStoredGeometry([50, 5], 'l')), false);
  });
});

describe('relations', () => {
  test('flat shapes contain points, boundaries included', () => {
    const box = parseQueryShape('$box', [
      [0, 0],
      [2, 2],
    ]);
    assert.equal(within(box, parseStoredGeometry([2, 2], 'l')), true);
    assert.equal(
      within(box, parseStoredGeometry({ type: 'Point', coordinates: [1, 1] }, 'l')),
      true,
    );
    assert.equal(
      within(
        box,
        parseStoredGeometry(
          polygon([
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 0],
          ]),
          'l',
        ),
      ),
      false,
    );
    const tri = parseQueryShape('$polygon', [
      [0, 0],
      [4, 0],
      [0, 4],
    ]);
    assert.equal(within(tri, parseStoredGeometry([2, 2], 'l')), true);
    assert.equal(within(tri, parseStoredGeometry([3, 3], 'l')), false);
    const circle = parseQueryShape('$center', [[0, 0], 5]);
    assert.equal(within(circle, parseStoredGeometry([3, 4], 'l')), true);
  });
  test('intersections of lines and polygons', () => {
    const q = parseQueryShape(
      '$geometry',
      polygon([
        [0, 0],
        [10, 0],
        [10, 10],
        [0, 10],
        [0, 0],
      ]),
    );
    const line = (c: number[][]) =>
      parseStoredGeometry({ type: 'LineString', coordinates: c }, 'l');
    assert.equal(
      intersects(
        q,
        line([
          [-5, 5],
          [5, 5],
        ]),
      ),
      true,
    );
    assert.equal(
      intersects(
        q,
        line([
          [-5, 5],
          [-1, 5],
        ]),
      ),
      false,
    );
    assert.equal(
      intersects(
        q,
        line([
          [-5, -5],
          [15, 15],
        ]),
      ),
      true,
    );
  });
});

describe('near queries', () => {
  test('units: meters from GeoJSON, radians for $nearSphere, flat for $near', () => {
    const g = parseStoredGeometry([1, 0], 'l');
    const meters = parseNear({ $near: { $geometry: { type: 'Point', coordinates: [0, 0] } } });
    assert.ok(Math.abs((nearDistance(meters, g) ?? 0) - 111318.845) < 0.01);
    const radians = parseNear({ $nearSphere: [0, 0] });
    assert.ok(Math.abs((nearDistance(radians, g) ?? 0) - Math.PI / 180) < 1e-12);
    const flat = parseNear({ $near: [0, 0], $maxDistance: 3 });
    assert.equal(nearDistance(flat, parseStoredGeometry([3, 4], 'l')), 5);
    assert.equal(flat.maxDistance, 3);
    assert.equal(parseNear({ $near: [0, 0, 7] }).maxDistance, 7);
  });
  test('errors', () => {
    assert.throws(() => parseNear({ $near: [0, 0], $maxDistance: -1 }), { code: 16896 });
    assert.throws(() => parseNear({ $near: [0, 0], $minDistance: 'x' } as never), { code: 16893 });
    assert.throws(() => parseNear({ $near: [0, 0], $foo: 1 }), { code: 34413 });
    assert.throws(() => parseNear({ $near: { $geometry: [0, 0] } }), { code: 16681 });
    assert.throws(() => parseNear({ $near: { $maxDistance: 1 } }), /\$geometry is required/);
    assert.throws(() => parseNear({ $nearSphere: [200, 0] }), { code: 17444 });
  });
});

describe('index keys and ranges', () => {
  const params = { bits: 26, min: -180, max: 180 };
  test('a 2d point hashes into the ranges of a box around it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -179, max: 179, noNaN: true }),
        fc.double({ min: -179, max: 179, noNaN: true }),
        fc.double({ min: 0.0001, max: 50, noNaN: true }),
        (x, y, r) => {
          const h = hash2d({ x, y }, params);
          const ranges = boxHashRanges({ x: x - r, y: y - r }, { x: x + r, y: y + r }, params);
          return ranges.some((k) => k.lo <= h && h <= k.hi);
        },
      ),
    );
  });
  test('a point cell lies in the ranges of a cap around it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -179, max: 179, noNaN: true }),
        fc.double({ min: -89, max: 89, noNaN: true }),
        fc.double({ min: 1e-6, max: 1, noNaN: true }),
        (lng, lat, r) => {
          const p = toSpherePoint({ x: lng, y: lat });
          const cell = BigInt.asIntN(
            64,
            shapeCells(parseGeoJson({ type: 'Point', coordinates: [lng, lat] }).shape)[0] as bigint,
          );
          return capRanges(p, r).some((k) => k.lo <= cell && cell <= k.hi);
        },
      ),
    );
  });
});
