// The operator registry: every expression operator by name, assembled from the family files
// (one file per family; adding an operator is one entry in its family's list).

import { accumulatorOperators } from './accumulator.js';
import { arithmeticOperators } from './arithmetic.js';
import { arrayOperators } from './array.js';
import { bitwiseOperators } from './bitwise.js';
import { booleanOperators } from './boolean.js';
import { comparisonOperators } from './comparison.js';
import { conditionalOperators } from './conditional.js';
import { dateOperators } from './date.js';
import { miscOperators } from './misc.js';
import { objectOperators } from './object.js';
import { regexOperators } from './regex.js';
import { setOperators } from './set.js';
import { stringOperators } from './string.js';
import { trigonometryOperators } from './trigonometry.js';
import { typeOperators } from './type.js';
import type { OperatorDefinition } from './types.js';

function buildRegistry(
  families: ReadonlyArray<readonly OperatorDefinition[]>,
): Map<string, OperatorDefinition> {
  const map = new Map<string, OperatorDefinition>();
  for (const family of families) {
    for (const op of family) {
      if (map.has(op.name)) throw new Error(`expression operator ${op.name} registered twice`);
      map.set(op.name, op);
    }
  }
  return map;
}

export const operators: ReadonlyMap<string, OperatorDefinition> = buildRegistry([
  arithmeticOperators,
  trigonometryOperators,
  bitwiseOperators,
  comparisonOperators,
  booleanOperators,
  conditionalOperators,
  stringOperators,
  regexOperators,
  arrayOperators,
  setOperators,
  typeOperators,
  dateOperators,
  objectOperators,
  accumulatorOperators,
  miscOperators,
]);

/**
 * Operators mongod knows that this server refuses with a reason of its own rather than
 * "Unrecognized expression" ($accumulator is an accumulator, not an expression, in mongod too).
 */
export const refusedOperators: ReadonlyMap<string, () => never> = new Map<string, () => never>([]);
