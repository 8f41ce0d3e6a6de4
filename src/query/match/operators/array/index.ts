import type { PathOperator } from '../registry.js';
import { $all } from './all.js';
import { $elemMatch } from './elem-match.js';
import { $size } from './size.js';

export const arrayOperators: readonly PathOperator[] = [$all, $elemMatch, $size];
