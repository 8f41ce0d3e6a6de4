import { orderedComparison } from './shared.js';

export const $gte = orderedComparison('$gte', 'gte');
