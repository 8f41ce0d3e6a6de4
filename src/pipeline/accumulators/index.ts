// The accumulator registry: name → definition, for $group, $bucket, $bucketAuto and the window
// functions. $accumulator (server-side JavaScript) is in javascript.ts.

import { $accumulator } from './javascript.js';
import { collectionAccumulators } from './collections.js';
import { nAccumulators } from './n.js';
import { percentileAccumulators } from './percentile.js';
import { simpleAccumulators } from './simple.js';
import type { AccumulatorDefinition } from './types.js';

export const accumulators: ReadonlyMap<string, AccumulatorDefinition> = new Map(
  [
    ...simpleAccumulators,
    ...collectionAccumulators,
    ...nAccumulators,
    ...percentileAccumulators,
    $accumulator,
  ].map((a) => [a.name, a]),
);

export type { Accumulator, AccumulatorDefinition, AccumulatorSpec } from './types.js';
