import { treeOperator } from './shared.js';

export const $nor = treeOperator('$nor', 'nor');
