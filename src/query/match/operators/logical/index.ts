import type { PathOperator, TopLevelOperator } from '../registry.js';
import { $and } from './and.js';
import { $nor } from './nor.js';
import { $not } from './not.js';
import { $or } from './or.js';

export const logicalTopLevelOperators: readonly TopLevelOperator[] = [$and, $or, $nor];
export const logicalPathOperators: readonly PathOperator[] = [$not];
