// The accumulator registry: name → definition, for $group, $bucket, $bucketAuto and the window
// functions. Server-side JavaScript ($accumulator) parses but cannot run here (31264, as mongod
// answers with scripting disabled).

import { fail } from '../../errors.js';
import { AggCode } from '../error-codes.js';
import { collectionAccumulators } from './collections.js';
import { nAccumulators } from './n.js';
import { percentileAccumulators } from './percentile.js';
import { simpleAccumulators } from './simple.js';
import type { AccumulatorDefinition } from './types.js';

const $accumulator: AccumulatorDefinition = {
  name: '$accumulator',
  parse(arg, ctx) {
    return {
      name: '$accumulator',
      argument: ctx.parse(null),
      create: () => ({
        bytes: 0,
        needsInput: true,
        process: () =>
          fail(
            AggCode.Location31264,
            'Cannot run server-side javascript without the javascript engine enabled',
          ),
        value: () =>
          fail(
            AggCode.Location31264,
            'Cannot run server-side javascript without the javascript engine enabled',
          ),
      }),
    };
    void arg;
  },
};

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
