// $unionWith: after the input documents, the documents of another collection (through an
// optional sub-pipeline). A missing collection contributes nothing.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { NEED_TIME } from '../../query/exec/yield.js';
import type { Pull } from '../../query/exec/yield.js';
import type { ReadView } from '../../storage/engine.js';
import { typeName } from '../values.js';
import { newStats } from './base.js';
import { childContext, foreignResolver, parseSubPipeline, pipelineArray } from './sub-pipeline.js';
import { buildPipeline } from '../build.js';
import type { ParsedPipeline, PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

class UnionPlan implements PlanStage {
  readonly stats;
  private second: PlanStage | undefined;
  private firstDone = false;
  constructor(
    private readonly input: PlanStage,
    private readonly make: (view: ReadView) => PlanStage,
  ) {
    this.stats = newStats('$unionWith', [input]);
  }
  next(view: ReadView): Pull {
    if (!this.firstDone) {
      const row = this.input.next(view);
      if (row === NEED_TIME) return row;
      if (row !== undefined) {
        this.stats.nReturned++;
        return { doc: row.doc };
      }
      this.firstDone = true;
    }
    this.second ??= this.make(view);
    const row = this.second.next(view);
    if (row === undefined || row === NEED_TIME) return row;
    this.stats.nReturned++;
    return { doc: row.doc };
  }
}

class UnionWithStage implements Stage {
  readonly name = '$unionWith';
  constructor(
    private readonly spec: BsonValue,
    private readonly coll: string | undefined,
    private readonly pipeline: ParsedPipeline,
    private readonly ctx: PipelineContext,
  ) {}
  serialize(): BsonDocument {
    return { $unionWith: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const foreign = this.coll === undefined ? undefined : foreignResolver(rt, this.ctx, this.coll);
    return new UnionPlan(input, (view) => {
      const source = foreign?.(view);
      // On a view, the view's pipeline runs first, then the $unionWith's own.
      const stages =
        source?.view === undefined
          ? this.pipeline.stages
          : [...source.view.stages, ...this.pipeline.stages];
      return buildPipeline(
        { stages, ctx: this.pipeline.ctx },
        { collection: source?.collection },
        rt,
      ).plan;
    });
  }
}

export const $unionWith: StageDefinition = {
  name: '$unionWith',
  parse(arg, ctx: PipelineContext) {
    let coll: string | undefined;
    let pipelineSpec: BsonValue[] = [];
    if (typeof arg === 'string') {
      coll = arg;
    } else if (isPlainDocument(arg)) {
      for (const [k, v] of Object.entries(arg)) {
        if (k === 'coll') {
          if (typeof v !== 'string')
            fail(
              ErrorCode.TypeMismatch,
              `BSON field '$unionWith.coll' is the wrong type '${typeName(v)}', expected type 'string'`,
            );
          coll = v;
        } else if (k === 'pipeline') {
          pipelineSpec = pipelineArray(v, "'pipeline' option must be specified as an array");
        } else {
          fail(ErrorCode.Location40415, `BSON field '$unionWith.${k}' is an unknown field.`);
        }
      }
      const startsWithDocuments =
        isPlainDocument(pipelineSpec[0]) && Object.keys(pipelineSpec[0])[0] === '$documents';
      if (coll === undefined && !startsWithDocuments)
        fail(
          ErrorCode.FailedToParse,
          '$unionWith stage without explicit collection must have a pipeline with $documents as first stage',
        );
    } else {
      fail(
        ErrorCode.FailedToParse,
        `the $unionWith stage specification must be an object or string, but found ${typeName(arg)}`,
      );
    }
    const sub = childContext(ctx, { inUnionWith: true, collection: coll });
    return new UnionWithStage(arg, coll, parseSubPipeline(pipelineSpec, sub), ctx);
  },
};
