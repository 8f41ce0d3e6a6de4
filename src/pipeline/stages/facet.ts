// $facet: runs several sub-pipelines over the same input and outputs one document holding
// each one's results under its name. The input is buffered once, bounded by
// limits.facetBufferBytesMax (mongod's internalQueryFacetBufferSizeBytes).

import { setOwn } from '../../bson/document.js';
import type { BsonDocument } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { bsonSize } from '../../bson/codec.js';
import { formatBson } from '../../bson/format.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { validateFieldName } from '../expressions/field-path.js';
import { approximateValueSize } from '../../query/memory.js';
import { typeName } from '../values.js';
import { newStats } from './base.js';
import { childContext, parseSubPipeline } from './sub-pipeline.js';
import { buildPipeline } from '../build.js';
import type { PlanStage, StageStats } from '../../query/exec/stages.js';
import { NEED_TIME, sliceDue } from '../../query/exec/yield.js';
import type { Pull } from '../../query/exec/yield.js';
import type { ReadView } from '../../storage/engine.js';
import type { ParsedPipeline, PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

class FacetStage implements Stage {
  readonly name = '$facet';
  readonly constraints = { notInFacet: true } as const;
  constructor(
    private readonly spec: BsonDocument,
    private readonly facets: ReadonlyArray<{ name: string; pipeline: ParsedPipeline }>,
  ) {}
  serialize(): BsonDocument {
    return { $facet: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    return new FacetPlan(input, this.facets, rt);
  }
}

/**
 * $facet's plan: buffers its input (yielding as it reads), then runs each sub-pipeline over the
 * buffer, pulling it a slice at a time, and outputs the one document.
 */
class FacetPlan implements PlanStage {
  readonly stats: StageStats;
  private readonly buffer: BsonDocument[] = [];
  private bytes = 0;
  private inputDone = false;
  private facet = 0;
  private plan: PlanStage | undefined;
  private results: BsonDocument[] = [];
  private readonly out: BsonDocument = {};
  private emitted = false;

  constructor(
    private readonly input: PlanStage,
    private readonly facets: ReadonlyArray<{ name: string; pipeline: ParsedPipeline }>,
    private readonly rt: Runtime,
  ) {
    this.stats = newStats('$facet', [input]);
  }

  next(view: ReadView): Pull {
    if (this.emitted) return undefined;
    while (!this.inputDone) {
      const row = this.input.next(view);
      if (row === NEED_TIME) return row;
      if (row === undefined) {
        this.inputDone = true;
        break;
      }
      this.buffer.push(row.doc);
      this.bytes += approximateValueSize(row.doc);
      if (this.bytes > limits.facetBufferBytesMax) {
        fail(
          ErrorCode.ExceededMemoryLimit,
          `$facet exceeded memory limit of ${limits.facetBufferBytesMax} bytes`,
        );
      }
      if (sliceDue()) return NEED_TIME;
    }
    for (;;) {
      const f = this.facets[this.facet];
      if (f === undefined) break;
      const plan = (this.plan ??= buildPipeline(
        f.pipeline,
        { documents: this.buffer },
        this.rt,
      ).plan);
      const row = plan.next(view);
      if (row === NEED_TIME) return row;
      if (row === undefined) {
        setOwn(this.out, f.name, this.results);
        this.results = [];
        this.plan = undefined;
        this.facet++;
        continue;
      }
      this.results.push(row.doc);
      if (sliceDue()) return NEED_TIME;
    }
    const size = bsonSize(this.out);
    if (size > limits.bsonObjectSizeMax) {
      fail(
        ErrorCode.Location4031700,
        `document constructed by $facet is ${size} bytes, which exceeds the limit of ${limits.bsonObjectSizeMax} bytes`,
      );
    }
    this.emitted = true;
    this.stats.works++;
    this.stats.nReturned++;
    return { doc: this.out };
  }
}

export const $facet: StageDefinition = {
  name: '$facet',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg) || Object.keys(arg).length === 0) {
      fail(
        ErrorCode.Location40169,
        `the $facet specification must be a non-empty object, but found: $facet: ${isPlainDocument(arg) || isArray(arg) ? formatBson(arg) : typeName(arg)}`,
      );
    }
    const sub = childContext(ctx, { inFacet: true, collection: ctx.collection });
    const facets = Object.entries(arg).map(([name, v]) => {
      validateFieldName(name);
      if (!isArray(v))
        fail(
          ErrorCode.Location40170,
          `arguments to $facet must be arrays, ${name} is type ${typeName(v)}`,
        );
      for (const s of v) {
        if (!isPlainDocument(s))
          fail(
            ErrorCode.Location40171,
            `elements of arrays in $facet spec must be non-empty objects, ${name} argument contained an element of type ${typeName(s)}: ${formatBson(s)}`,
          );
      }
      return { name, pipeline: parseSubPipeline(v, sub) };
    });
    return new FacetStage(arg, facets);
  },
};
