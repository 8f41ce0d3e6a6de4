import { MISSING } from '../../../../bson/path.js';
import { Decimal128, Double, Int32, Long } from '../../../../bson/types.js';
import type { BsonValue } from '../../../../bson/types.js';
import { notNode, pathNode, simpleTest } from '../../nodes.js';
import type { PathOperator } from '../registry.js';

/** mongod's BSONElement::trueValue: false, 0, null and undefined are false; all else true. */
export function trueValue(v: BsonValue): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (v instanceof Int32 || v instanceof Double) return v.value !== 0;
  if (v instanceof Long) return !v.isZero();
  if (v instanceof Decimal128) return !/^-?0(\.0*)?(E[+-]?\d+)?$/i.test(v.toString());
  return true;
}

/**
 * {a: {$exists: true}}: some value is reached (an empty array counts, an array in the
 * middle of the path with no subdocuments does not). {$exists: false} is its negation.
 */
export const $exists: PathOperator = {
  name: '$exists',
  parse({ path, arg }) {
    const exists = pathNode(
      path,
      { kind: 'exists' },
      simpleTest((v) => v !== MISSING),
    );
    return trueValue(arg) ? exists : notNode(exists);
  },
};
