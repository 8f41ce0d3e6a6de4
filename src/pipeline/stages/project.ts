// $project: inclusion or exclusion of fields, with computed fields (../projection.ts).

import { isPlainDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { expressionContext } from '../context.js';
import { parseProjection } from '../projection.js';
import type { PipelineContext, StageDefinition } from './types.js';

import { ProjectionStage } from './projection-stage.js';

export const $project: StageDefinition = {
  name: '$project',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg))
      fail(ErrorCode.Location15969, '$project specification must be an object');
    return new ProjectionStage('$project', arg, parseProjection(arg, expressionContext(ctx)));
  },
};
