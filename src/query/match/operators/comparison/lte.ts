import { orderedComparison } from './shared.js';

export const $lte = orderedComparison('$lte', 'lte');
