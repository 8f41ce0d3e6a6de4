// Index keys of 2dsphere and 2d indexes (mongod's s2_key_generator.cpp and 2d key generation;
// src/geo/cells.ts has the cells and hashes):
//
// - 2dsphere: each geo field's values are found along its path (arrays in the middle of the path
//   expanded, an array at its end read as a legacy pair); each must be a geometry, else the write
//   fails with 16755 "Can't extract geo keys: <document>  <reason>". A field that is missing,
//   null or an empty array gives no keys; a document with no geometry in any geo field is not
//   indexed (2dsphere version 2+ indexes are sparse). Other fields take ordinary keys, and the
//   document's keys are every combination.
// - 2d: the first field holds a point or an array of points (legacy pairs), each inside
//   [min, max) (13027); the other fields take ordinary keys.

import { formatBson } from '../bson/format.js';
import { getField, MISSING } from '../bson/path.js';
import { asDocument, isArray } from '../bson/types.js';
import { isNumeric } from '../bson/numeric.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import { cellKey, hash2d, hashKey, shapeCells } from '../geo/cells.js';
import type { Hash2dParams } from '../geo/cells.js';
import { parseFlatPoint, parseStoredGeometry, sphereShapeOf } from '../geo/geometry.js';
import type { FlatPoint } from '../geo/geometry.js';
import { generateIndexKeys } from './index-keys.js';
import type { GeneratedKeys, KeyPatternField } from './index-keys.js';

/** The values a geo path reaches: arrays expanded in the middle of the path, not at its end. */
export function geoValuesAlongPath(doc: BsonDocument, parts: readonly string[]): BsonValue[] {
  const out: BsonValue[] = [];
  const walk = (value: BsonValue, i: number): void => {
    if (i === parts.length) {
      out.push(value);
      return;
    }
    if (isArray(value)) {
      for (const el of value) walk(el, i);
      return;
    }
    const d = asDocument(value);
    if (d === undefined) return;
    const v = getField(d, parts[i] as string);
    if (v === MISSING) return;
    walk(v, i + 1);
  };
  walk(doc, 0);
  return out;
}

function cannotExtract(doc: BsonDocument, reason: string): CommandError {
  return new CommandError(
    ErrorCode.Location16755,
    `Can't extract geo keys: ${formatBson(doc)}  ${reason}`,
  );
}

function absentGeo(values: readonly BsonValue[]): boolean {
  if (values.length === 0) return true;
  if (values.length !== 1) return false;
  const v = values[0];
  return v === null || v === undefined || (isArray(v) && v.length === 0);
}

/** The key values of one ordinary field of a geo index (mongod's btree rules, one field). */
function ordinaryValues(
  field: KeyPatternField,
  doc: BsonDocument,
): {
  values: BsonValue[];
  multikey: number[];
} {
  const g = generateIndexKeys([field], doc, { sparse: false });
  return { values: g.keys.map((k) => k[0] as BsonValue), multikey: g.multikeyPaths[0] ?? [] };
}

function product(columns: readonly (readonly BsonValue[])[]): BsonValue[][] {
  let rows: BsonValue[][] = [[]];
  for (const col of columns) {
    const next: BsonValue[][] = [];
    for (const r of rows) for (const v of col) next.push([...r, v]);
    rows = next;
  }
  return rows;
}

/** A 2dsphere index's keys for a document. */
export function s2IndexKeys(fields: readonly KeyPatternField[], doc: BsonDocument): GeneratedKeys {
  const columns: BsonValue[][] = [];
  const multikeyPaths: number[][] = [];
  let anyGeo = false;
  for (const f of fields) {
    if (f.plugin !== '2dsphere') {
      const o = ordinaryValues(f, doc);
      columns.push(o.values);
      multikeyPaths.push(o.multikey);
      continue;
    }
    const values = geoValuesAlongPath(doc, f.parts);
    if (absentGeo(values)) {
      columns.push([null]);
      multikeyPaths.push([]);
      continue;
    }
    const cells = new Set<bigint>();
    for (const v of values) {
      let shape;
      try {
        shape = sphereShapeOf(parseStoredGeometry(v, f.parts[f.parts.length - 1] as string));
      } catch (e) {
        if (e instanceof CommandError) throw cannotExtract(doc, e.message);
        throw e;
      }
      if (shape === undefined) {
        const p = parseFlatPoint(v, true);
        throw cannotExtract(doc, `longitude/latitude is out of bounds, lng: ${p.x} lat: ${p.y}`);
      }
      for (const c of shapeCells(shape)) cells.add(c);
    }
    anyGeo = true;
    columns.push([...cells].map(cellKey));
    multikeyPaths.push(cells.size > 1 ? [f.parts.length - 1] : []);
  }
  if (!anyGeo) return { keys: [], multikeyPaths: fields.map(() => []) };
  return { keys: product(columns), multikeyPaths };
}

function isNum(v: BsonValue | undefined): boolean {
  return v !== undefined && (typeof v === 'number' || isNumeric(v));
}

/** The points of a 2d field's value: one pair, or an array of pairs. */
function pointsOf2d(v: BsonValue, doc: BsonDocument): FlatPoint[] {
  const vals = isArray(v)
    ? v
    : asDocument(v) === undefined
      ? undefined
      : Object.values(v as BsonDocument);
  if (vals === undefined || vals.length === 0) {
    throw new CommandError(
      ErrorCode.Location16804,
      `location object expected, location array not in correct format :: caused by :: ${formatBson(doc)}`,
    );
  }
  const pointOf = (p: BsonValue): FlatPoint => {
    try {
      return parseFlatPoint(p, true);
    } catch {
      throw new CommandError(
        ErrorCode.Location13026,
        `geo values must be 'legacy coordinate pairs' for 2d indexes :: caused by :: ${formatBson(doc)}`,
      );
    }
  };
  if (isNum(vals[0])) return [pointOf(v)];
  return vals.map(pointOf);
}

/** A 2d index's keys for a document. */
export function twoDIndexKeys(
  fields: readonly KeyPatternField[],
  doc: BsonDocument,
  params: Hash2dParams,
): GeneratedKeys {
  const geo = fields[0] as KeyPatternField;
  const values = geoValuesAlongPath(doc, geo.parts);
  if (absentGeo(values)) return { keys: [], multikeyPaths: fields.map(() => []) };
  const hashes = new Set<bigint>();
  for (const v of values) {
    for (const p of pointsOf2d(v, doc)) {
      if (!(p.x >= params.min && p.x < params.max && p.y >= params.min && p.y < params.max)) {
        throw new CommandError(
          ErrorCode.Location13027,
          `point not in interval of [ ${params.min}, ${params.max} ) :: caused by :: ${formatBson(doc)}`,
        );
      }
      hashes.add(hash2d(p, params));
    }
  }
  const columns: BsonValue[][] = [[...hashes].map(hashKey)];
  const multikeyPaths: number[][] = [hashes.size > 1 ? [geo.parts.length - 1] : []];
  for (const f of fields.slice(1)) {
    const o = ordinaryValues(f, doc);
    columns.push(o.values);
    multikeyPaths.push(o.multikey);
  }
  return { keys: product(columns), multikeyPaths };
}
