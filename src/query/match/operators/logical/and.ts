import { treeOperator } from './shared.js';

export const $and = treeOperator('$and', 'and');
