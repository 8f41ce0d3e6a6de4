// $limit: a positive number of documents (15958 for 0). Adjacent $limit stages merge, and a
// $sort followed by $limit keeps only the top k (pipeline.ts).

import type { BsonDocument } from '../../bson/types.js';
import { Long } from 'bson';
import { fail, ErrorCode } from '../../errors.js';
import { LimitStage } from '../../query/exec/stages.js';
import { nonNegative } from './integer-argument.js';
import type { Stage, StageDefinition } from './types.js';

export class LimitPipelineStage implements Stage {
  readonly name = '$limit';
  constructor(readonly limit: number) {}
  serialize(): BsonDocument {
    return { $limit: Long.fromNumber(this.limit) };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    return new LimitStage(input, this.limit);
  }
}

export const $limit: StageDefinition = {
  name: '$limit',
  parse(arg) {
    const n = nonNegative('$limit', arg, ErrorCode.Location5107201);
    if (n === 0) fail(ErrorCode.Location15958, 'the limit must be positive');
    return new LimitPipelineStage(n);
  },
};
