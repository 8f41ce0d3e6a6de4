import { treeOperator } from './shared.js';

export const $or = treeOperator('$or', 'or');
