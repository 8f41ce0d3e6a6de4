import { orderedComparison } from './shared.js';

export const $lt = orderedComparison('$lt', 'lt');
