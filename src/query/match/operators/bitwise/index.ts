import type { PathOperator } from '../registry.js';
import { $bitsAllClear } from './bits-all-clear.js';
import { $bitsAllSet } from './bits-all-set.js';
import { $bitsAnyClear } from './bits-any-clear.js';
import { $bitsAnySet } from './bits-any-set.js';

export const bitwiseOperators: readonly PathOperator[] = [
  $bitsAllSet,
  $bitsAllClear,
  $bitsAnySet,
  $bitsAnyClear,
];
