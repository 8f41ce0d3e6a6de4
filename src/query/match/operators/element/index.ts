import type { PathOperator } from '../registry.js';
import { $exists } from './exists.js';
import { $type } from './type.js';

export const elementOperators: readonly PathOperator[] = [$exists, $type];
