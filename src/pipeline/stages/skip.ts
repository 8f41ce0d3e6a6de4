// $skip: drops the first n documents. Adjacent $skip stages add up (pipeline.ts).

import { ErrorCode } from '../../errors.js';
import type { BsonDocument } from '../../bson/types.js';
import { Long } from 'bson';
import { SkipStage } from '../../query/exec/stages.js';
import { nonNegative } from './integer-argument.js';
import type { Stage, StageDefinition } from './types.js';

export class SkipPipelineStage implements Stage {
  readonly name = '$skip';
  constructor(readonly skip: number) {}
  serialize(): BsonDocument {
    return { $skip: Long.fromNumber(this.skip) };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    return new SkipStage(input, this.skip);
  }
}

export const $skip: StageDefinition = {
  name: '$skip',
  parse(arg) {
    return new SkipPipelineStage(nonNegative('$skip', arg, ErrorCode.Location5107200));
  },
};
