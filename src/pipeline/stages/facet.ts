// $facet: runs several sub-pipelines over the same input and outputs one document holding
// each one's results under its name. The input is buffered once, bounded by
// limits.facetBufferBytesMax (mongod's internalQueryFacetBufferSizeBytes).

import type { BsonDocument } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { bsonSize } from '../../bson/codec.js';
import { formatBson } from '../../bson/format.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { AggCode } from '../error-codes.js';
import { validateFieldName } from '../expressions/field-path.js';
import { approximateValueSize } from '../memory.js';
import type { ParsedPipeline } from '../pipeline.js';
import { typeName } from '../values.js';
import { BlockingStage } from './base.js';
import { childContext, parseSubPipeline, runSubPipeline } from './sub-pipeline.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

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
    return new BlockingStage('$facet', input, (docs, view) => {
      const buffer: BsonDocument[] = [];
      let bytes = 0;
      for (const d of docs) {
        buffer.push(d);
        bytes += approximateValueSize(d);
        if (bytes > limits.facetBufferBytesMax) {
          fail(
            ErrorCode.ExceededMemoryLimit,
            `$facet exceeded memory limit of ${limits.facetBufferBytesMax} bytes`,
          );
        }
      }
      const out: BsonDocument = {};
      for (const f of this.facets)
        out[f.name] = runSubPipeline(f.pipeline, { documents: buffer }, view, rt);
      const size = bsonSize(out);
      if (size > limits.bsonObjectSizeMax) {
        fail(
          AggCode.Location4031700,
          `document constructed by $facet is ${size} bytes, which exceeds the limit of ${limits.bsonObjectSizeMax} bytes`,
        );
      }
      return [out];
    });
  }
}

export const $facet: StageDefinition = {
  name: '$facet',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg) || Object.keys(arg).length === 0) {
      fail(
        AggCode.Location40169,
        `the $facet specification must be a non-empty object, but found: $facet: ${isPlainDocument(arg) || isArray(arg) ? formatBson(arg) : typeName(arg)}`,
      );
    }
    const sub = childContext(ctx, { inFacet: true, collection: ctx.collection });
    const facets = Object.entries(arg).map(([name, v]) => {
      validateFieldName(name);
      if (!isArray(v))
        fail(
          AggCode.Location40170,
          `arguments to $facet must be arrays, ${name} is type ${typeName(v)}`,
        );
      for (const s of v) {
        if (!isPlainDocument(s))
          fail(
            AggCode.Location40171,
            `elements of arrays in $facet spec must be non-empty objects, ${name} argument contained an element of type ${typeName(s)}: ${formatBson(s)}`,
          );
      }
      return { name, pipeline: parseSubPipeline(v, sub) };
    });
    return new FacetStage(arg, facets);
  },
};
