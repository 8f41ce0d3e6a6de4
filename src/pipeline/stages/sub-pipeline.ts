// Sub-pipelines ($lookup, $facet, $unionWith): parsed once in a child context (one level
// deeper, bounded by limits.subPipelineDepthMax as mongod's kMaxSubPipelineDepth), and built
// afresh for every run since plan stages keep state.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { Collection } from '../../catalog/collection.js';
import { ErrorCode, fail, invariant } from '../../errors.js';
import { limits } from '../../limits.js';
import type { ReadView } from '../../storage/engine.js';
import { buildPipeline, runToArray } from '../build.js';
import { typeName } from '../values.js';
import type { ParsedPipeline, PipelineContext, Runtime } from './types.js';
import { catalogOf } from './types.js';
import { resolveView } from '../../catalog/views.js';
import { parseCollation, sameCollation } from '../../bson/collation.js';
import type { VariableScope } from '../expressions/types.js';
import { newScope } from '../expressions/variables.js';

export function childContext(
  ctx: PipelineContext,
  options: {
    inFacet?: boolean;
    inLookup?: boolean;
    inUnionWith?: boolean;
    collection?: string | undefined;
    scope?: VariableScope;
  },
): PipelineContext {
  const depth = ctx.subPipelineDepth + 1;
  if (depth > limits.subPipelineDepthMax) {
    fail(
      ErrorCode.MaxSubPipelineDepthExceeded,
      `Maximum number of nested sub-pipelines exceeded. Limit is ${limits.subPipelineDepthMax}`,
    );
  }
  return {
    ...ctx,
    subPipelineDepth: depth,
    inFacet: ctx.inFacet || options.inFacet === true,
    inLookup: ctx.inLookup || options.inLookup === true,
    inUnionWith: ctx.inUnionWith === true || options.inUnionWith === true,
    collection: options.collection,
    scope: options.scope ?? ctx.scope,
    // $text reads the command's collection's text index: not a sub-pipeline's.
    textSearch: undefined,
  };
}

/** Checks that a sub-pipeline is an array of objects; `what` names the option in messages. */
export function pipelineArray(v: BsonValue, message: string): BsonValue[] {
  if (!isArray(v)) fail(ErrorCode.FailedToParse, message);
  for (const s of v)
    if (!isPlainDocument(s))
      fail(ErrorCode.FailedToParse, `${message}, found element of type ${typeName(s)}`);
  return v;
}

/** The parser parsePipeline put in the context, for a stage's sub-pipelines. */
export function subPipelineParser(
  ctx: PipelineContext,
): (spec: readonly BsonValue[], ctx: PipelineContext) => ParsedPipeline {
  const parse = ctx.parseSubPipeline;
  invariant(parse !== undefined, 'a sub-pipeline parsed outside parsePipeline');
  return parse;
}

export function parseSubPipeline(spec: readonly BsonValue[], ctx: PipelineContext): ParsedPipeline {
  return subPipelineParser(ctx)(spec, ctx);
}

/** Runs a parsed sub-pipeline to completion over a collection (or given documents) on `view`. */
export function runSubPipeline(
  parsed: ParsedPipeline,
  source: { collection: Collection | undefined } | { documents: readonly BsonDocument[] },
  view: ReadView,
  rt: Runtime,
): BsonDocument[] {
  const built = buildPipeline(parsed, source, rt);
  return runToArray(built.plan, view, rt);
}

/**
 * A namespace a stage reads ($lookup's and $graphLookup's `from`, $unionWith's `coll`): a
 * collection, or a view, whose pipeline (the views' pipelines, innermost first) runs over the
 * collection it ends on before the stage's own filtering and sub-pipeline.
 */
export interface ForeignSource {
  readonly collection: Collection | undefined;
  readonly view: ParsedPipeline | undefined;
}

/**
 * Resolves `name` on first use and keeps the answer for the rest of the command, as mongod
 * resolves the views a pipeline involves once, when it is parsed.
 */
export function foreignResolver(
  rt: Runtime,
  ctx: PipelineContext,
  name: string,
): (view: ReadView) => ForeignSource {
  let resolved: ForeignSource | undefined;
  return (view) => {
    if (resolved !== undefined) return resolved;
    const catalog = catalogOf(rt);
    const coll = catalog.get(rt.db, name, view);
    const onView = coll === undefined ? resolveView(catalog, view, rt.db, name) : undefined;
    if (onView === undefined) {
      resolved = { collection: coll, view: undefined };
    } else {
      // The pipeline's collation must be the view's (mongod resolves views under that rule).
      if (
        !sameCollation(
          rt.collator,
          onView.collation === undefined ? undefined : parseCollation(onView.collation),
        )
      ) {
        fail(ErrorCode.OptionNotSupportedOnView, "Cannot override a view's default collation");
      }
      const sub = childContext(ctx, { collection: onView.collection, scope: newScope(undefined) });
      resolved = {
        collection: catalog.get(rt.db, onView.collection, view),
        view: parseSubPipeline(onView.pipeline, sub),
      };
    }
    return resolved;
  };
}
