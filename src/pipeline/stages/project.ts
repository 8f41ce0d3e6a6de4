// $project, $addFields / $set and $unset: reshaping documents (see ../projection.ts for the
// semantics of each).

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { fail } from '../../errors.js';
import { expressionContext } from '../context.js';
import { AggCode } from '../error-codes.js';
import { parseAddFields, parseProjection, parseUnset } from '../projection.js';
import type { Projection } from '../projection.js';
import { typeName } from '../values.js';
import { MapStage } from './base.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

export class ProjectionStage implements Stage {
  constructor(
    readonly name: string,
    private readonly spec: BsonValue,
    readonly projection: Projection,
  ) {}
  serialize(): BsonDocument {
    return { [this.name]: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const p = this.projection;
    const frame = rt.frame;
    return new MapStage(this.name, input, (doc) => p.apply(doc, frame));
  }
}

export const $project: StageDefinition = {
  name: '$project',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg)) fail(AggCode.Location15969, '$project specification must be an object');
    return new ProjectionStage('$project', arg, parseProjection(arg, expressionContext(ctx)));
  },
};

function addFields(name: string): StageDefinition {
  return {
    name,
    parse(arg, ctx) {
      if (!isPlainDocument(arg)) fail(AggCode.Location40272, `${name} specification stage must be an object, got ${typeName(arg)}`);
      return new ProjectionStage(name, arg, parseAddFields(arg, expressionContext(ctx), name));
    },
  };
}

export const $addFields = addFields('$addFields');
export const $set = addFields('$set');

export const $unset: StageDefinition = {
  name: '$unset',
  parse(arg) {
    const paths = typeof arg === 'string' ? [arg] : isArray(arg) ? arg : undefined;
    if (paths === undefined) fail(AggCode.Location31002, '$unset specification must be a string or an array');
    if (paths.length === 0) fail(AggCode.Location31119, '$unset specification must be a string or an array with at least one field');
    if (!paths.every((p): p is string => typeof p === 'string')) {
      fail(AggCode.Location31120, '$unset specification must be a string or an array containing only string values');
    }
    return new ProjectionStage('$unset', arg, parseUnset(paths));
  },
};
