import type { PathOperator } from '../registry.js';
import { $eq } from './eq.js';
import { $gt } from './gt.js';
import { $gte } from './gte.js';
import { $in } from './in.js';
import { $lt } from './lt.js';
import { $lte } from './lte.js';
import { $ne } from './ne.js';
import { $nin } from './nin.js';

export const comparisonOperators: readonly PathOperator[] = [
  $eq,
  $ne,
  $gt,
  $gte,
  $lt,
  $lte,
  $in,
  $nin,
];
