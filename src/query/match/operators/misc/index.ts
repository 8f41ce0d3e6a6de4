import type { PathOperator, TopLevelOperator } from '../registry.js';
import { $alwaysFalse, $alwaysTrue } from './always.js';
import { dbrefOperators } from './dbref.js';
import { internalPathOperators, internalTopLevelOperators } from './internal.js';
import { $sampleRate } from './sample-rate.js';

export const miscTopLevelOperators: readonly TopLevelOperator[] = [
  $alwaysTrue,
  $alwaysFalse,
  $sampleRate,
  ...dbrefOperators,
  ...internalTopLevelOperators,
];
export const miscPathOperators: readonly PathOperator[] = internalPathOperators;
