import { orderedComparison } from './shared.js';

export const $gt = orderedComparison('$gt', 'gt');
