import type { TopLevelOperator } from '../registry.js';

/** {$comment: anything}: for logs and profiling; no effect on matching. */
export const $comment: TopLevelOperator = { name: '$comment', parse: () => null };
