// Every family of the expression corpus, by name: the unit harness
// (test/unit/pipeline/expressions.test.ts) and the driver-level run
// (test/integration/agg-expression-corpus.test.ts) both iterate this table.

import { accumulators } from './accumulators.js';
import { arithmetic } from './arithmetic.js';
import { arrays } from './arrays.js';
import { bitwise } from './bitwise.js';
import { conditional } from './conditional.js';
import { dateArithmetic } from './date-arithmetic.js';
import { conversions } from './conversions.js';
import { dates } from './dates.js';
import { logic } from './logic.js';
import { misc } from './misc.js';
import { objects } from './objects.js';
import { sets } from './sets.js';
import { strings } from './strings.js';
import { trigonometry } from './trigonometry.js';
import { types } from './types.js';
import { variables } from './variables.js';
import type { Family } from './helpers.js';

export const expressionFamilies: Readonly<Record<string, Family>> = {
  arithmetic,
  trigonometry,
  bitwise,
  logic,
  conditional,
  variables,
  strings,
  arrays,
  sets,
  objects,
  accumulators,
  types,
  conversions,
  dates,
  dateArithmetic,
  misc,
};
