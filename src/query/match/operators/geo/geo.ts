// The geospatial operators. They need geometry (and $near an index), which is not built yet:
// each answers NotImplemented with its name, after the checks mongod does while parsing the
// operator document ($near and $nearSphere must come first in it).
//
// One file for the family: the six operators differ only by name.

import { isArray, isPlainDocument } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { formatBson } from '../../../../bson/format.js';
import type { PathOperator } from '../registry.js';

function notImplemented(name: string): never {
  fail(
    ErrorCode.NotImplemented,
    `${name} is not implemented: geospatial queries are not supported yet`,
  );
}

function geoNear(name: string): PathOperator {
  return {
    name,
    parse({ arg, operatorDoc }) {
      const first = Object.keys(operatorDoc)[0];
      if (first === name && (isPlainDocument(arg) || isArray(arg))) notImplemented(name);
      fail(ErrorCode.BadValue, `near must be first in: ${formatBson(operatorDoc)}`);
    },
  };
}

function geoShape(name: string): PathOperator {
  return { name, parse: () => notImplemented(name) };
}

export const geoOperators: readonly PathOperator[] = [
  geoNear('$near'),
  geoNear('$nearSphere'),
  geoNear('$geoNear'),
  geoShape('$geoWithin'),
  geoShape('$within'),
  geoShape('$geoIntersects'),
];
