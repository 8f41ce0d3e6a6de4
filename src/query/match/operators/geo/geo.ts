// The geospatial operators (src/geo has the geometry):
//
// - $geoWithin (alias $within) and $geoIntersects: the operator must be alone in its operator
//   document; its argument holds one geometry specifier ($geometry, $box, $polygon, $center,
//   $centerSphere; $uniqueDocs is ignored). $geoWithin needs a region that can contain (a
//   polygon, a multi-polygon, a collection with polygons, a box, a circle or a cap),
//   $geoIntersects a $geometry. The node's test decides on each value the path reaches, with or
//   without an index;
// - $near, $nearSphere and $geoNear: first in their operator document, with $minDistance /
//   $maxDistance beside them (legacy form); they need a geo index (the planner's GEO_NEAR plans),
//   and their node's test checks the distance range.
//
// One file for the family: the operators share their parsing.

import { isArray, isPlainDocument } from '../../../../bson/types.js';
import type { BsonDocument } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { formatBson } from '../../../../bson/format.js';
import { geoError, parseQueryShape, parseStoredGeometry } from '../../../../geo/geometry.js';
import type { QueryShape } from '../../../../geo/geometry.js';
import { intersects, within } from '../../../../geo/relations.js';
import { isNearOperator, nearDistance, parseNear } from '../../../../geo/near.js';
import { pathNode } from '../../nodes.js';
import type { PathOperator } from '../registry.js';
import type { PathValue } from '../../../../bson/path.js';
import type { BsonValue } from '../../../../bson/types.js';

function storedGeometry(value: PathValue): ReturnType<typeof parseStoredGeometry> | undefined {
  if (value === undefined || typeof value === 'symbol') return undefined;
  try {
    return parseStoredGeometry(value as BsonValue, '');
  } catch {
    return undefined;
  }
}

function supportsContains(shape: QueryShape): boolean {
  return shape.kind !== 'sphere' || shape.shape.polygons.length > 0;
}

function geoShape(name: string): PathOperator {
  const predicate = name === '$geoIntersects' ? '$geoIntersects' : '$geoWithin';
  return {
    name,
    parse({ path, arg, operatorDoc }) {
      const entries = Object.entries(operatorDoc);
      if (entries.length > 1) {
        const extra = entries.find(([k]) => k !== name) ?? entries[1];
        fail(
          ErrorCode.BadValue,
          `can't parse extra field: ${extra?.[0] ?? ''}: ${formatBson(extra?.[1] ?? null)}`,
        );
      }
      if (!isPlainDocument(arg)) throw geoError('geometry must be an object');
      let shape: QueryShape | undefined;
      for (const [k, v] of Object.entries(arg)) {
        if (k === '$uniqueDocs') continue;
        shape = parseQueryShape(k, v);
      }
      if (shape === undefined) throw geoError("geo query doesn't have any geometry");
      const raw: BsonDocument = { [name]: arg };
      if (predicate === '$geoWithin' && !supportsContains(shape))
        throw geoError(`$within not supported with provided geometry: ${formatBson(raw)}`);
      if (
        predicate === '$geoIntersects' &&
        (shape.kind === 'box' || shape.kind === 'flatPolygon' || shape.kind === 'circle')
      )
        throw geoError(`$geoIntersect not supported with provided geometry: ${formatBson(raw)}`);
      const s = shape;
      const test = (value: PathValue): boolean => {
        const g = storedGeometry(value);
        if (g === undefined) return false;
        return predicate === '$geoWithin' ? within(s, g) : intersects(s, g);
      };
      return pathNode(path, { kind: 'geo', operator: predicate, shape: s, raw }, test);
    },
  };
}

function geoNear(name: string): PathOperator {
  return {
    name,
    parse({ path, arg, operatorDoc, ctx }) {
      const first = Object.keys(operatorDoc)[0];
      if (first !== name || !(isPlainDocument(arg) || isArray(arg)))
        fail(ErrorCode.BadValue, `near must be first in: ${formatBson(operatorDoc)}`);
      if (ctx.banSpecialFeatures)
        fail(ErrorCode.BadValue, `${name} is not allowed in this context`);
      const near = parseNear(operatorDoc);
      const test = (value: PathValue): boolean => {
        const g = storedGeometry(value);
        if (g === undefined) return false;
        const d = nearDistance(near, g);
        return d !== undefined && d >= near.minDistance && d <= near.maxDistance;
      };
      return pathNode(path, { kind: 'near', near, raw: operatorDoc }, test);
    },
  };
}

/** $minDistance / $maxDistance belong to the near operator that starts the document. */
function nearOption(name: string): PathOperator {
  return {
    name,
    parse({ operatorDoc }) {
      const first = Object.keys(operatorDoc)[0] ?? '';
      if (!isNearOperator(first)) fail(ErrorCode.BadValue, `unknown operator: ${name}`);
      return null;
    },
  };
}

export const geoOperators: readonly PathOperator[] = [
  geoNear('$near'),
  geoNear('$nearSphere'),
  geoNear('$geoNear'),
  geoShape('$geoWithin'),
  geoShape('$within'),
  geoShape('$geoIntersects'),
  nearOption('$minDistance'),
  nearOption('$maxDistance'),
  nearOption('$uniqueDocs'),
];
