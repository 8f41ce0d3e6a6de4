// A pipeline: parsed stage by stage (unknown stage 40324, malformed stage 40323, length
// limit) and checked for position rules; build.ts then optimises it and attaches it to a
// source as a tree of plan stages. Stages parse their sub-pipelines through the context's
// `parseSubPipeline`, which parsePipeline sets: they cannot import the registry that
// imports them.

import type { BsonValue } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';
import { limits } from '../limits.js';
import { hasTextSearch } from '../query/planner/text-plan.js';
import { atlasSearchStages, stageDefinitions, unsupportedStages } from './stages/index.js';
import { MatchStage } from './stages/match.js';
import type { ParsedPipeline, PipelineContext, Stage } from './stages/types.js';

export { buildPipeline, optimize, runToArray } from './build.js';
export type { BuiltPipeline, CollectionSource } from './build.js';
export type { ParsedPipeline } from './stages/types.js';

/**
 * mongod 8.0 without mongot: $listSearchIndexes answers as the search index commands
 * (throwIfNotRunningWithRemoteSearchIndexManagement), the query stages as
 * doThrowIfNotRunningWithMongotHostConfigured (mongod's text, its missing space included).
 */
export const searchIndexesNotEnabledMessage =
  'Using Atlas Search Database Commands and the $listSearchIndexes aggregation stage requires ' +
  'additional configuration. Please connect to Atlas or an AtlasCLI local deployment to enable. ' +
  'For more information on how to connect, see https://dochub.mongodb.org/core/atlas-cli-deploy-local-reqs.';
const searchStagesNotEnabledMessage =
  'Using $search and $vectorSearch aggregation stages requires additional configuration. ' +
  'Please connect to Atlas or an AtlasCLI local deployment to enable.For more information on ' +
  'how to connect, see https://dochub.mongodb.org/core/atlas-cli-deploy-local-reqs.';

function refuseSearchStage(name: string, ctx: PipelineContext): never {
  if (ctx.searchNotEnabled !== true)
    fail(ErrorCode.Location6047401, `${name} stage is only allowed on MongoDB Atlas`);
  fail(
    ErrorCode.SearchNotEnabled,
    name === '$listSearchIndexes' ? searchIndexesNotEnabledMessage : searchStagesNotEnabledMessage,
  );
}

/** One stage document: an object with exactly one field (40323), a known name (40324). */
function parseStage(spec: BsonValue, ctx: PipelineContext): Stage[] {
  if (!isPlainDocument(spec))
    fail(ErrorCode.TypeMismatch, "Each element of the 'pipeline' array must be an object");
  const keys = Object.keys(spec);
  if (keys.length !== 1)
    fail(
      ErrorCode.Location40323,
      'A pipeline stage specification object must contain exactly one field.',
    );
  const name = keys[0] as string;
  const def = stageDefinitions.get(name);
  if (def === undefined) {
    if (atlasSearchStages.has(name)) refuseSearchStage(name, ctx);
    const refusal = unsupportedStages.get(name);
    if (refusal !== undefined) fail(ErrorCode.NotImplemented, refusal);
    fail(ErrorCode.Location40324, `Unrecognized pipeline stage name: '${name}'`);
  }
  const parsed = def.parse(spec[name] as BsonValue, ctx);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** Parses a pipeline array and checks where each stage may stand. */
export function parsePipeline(
  pipeline: readonly BsonValue[],
  context: PipelineContext,
): ParsedPipeline {
  const ctx: PipelineContext =
    context.parseSubPipeline === undefined
      ? { ...context, parseSubPipeline: parsePipeline }
      : context;
  // Checked before parsing, so a huge pipeline cannot exhaust memory (mongod 7.0.x, SERVER-77495).
  if (pipeline.length > limits.pipelineStagesMax) {
    fail(
      ErrorCode.Location7749501,
      `Pipeline length must be no longer than ${limits.pipelineStagesMax} stages.`,
    );
  }
  const stages: Stage[] = [];
  pipeline.forEach((spec, i) => {
    for (const s of parseStage(spec, ctx)) {
      checkPosition(s, i, pipeline.length, ctx, stages[0] ?? s);
      if (i > 0 && s instanceof MatchStage && hasTextSearch(s.matcher.tree))
        fail(
          ErrorCode.Location17313,
          '$match with $text is only allowed as the first pipeline stage',
        );
      stages.push(s);
    }
  });
  return { stages, ctx };
}

function checkPosition(
  stage: Stage,
  index: number,
  length: number,
  ctx: PipelineContext,
  first: Stage,
): void {
  const c = stage.constraints;
  if (c === undefined) return;
  if (
    c.noCollection === true &&
    index === 0 &&
    ctx.collection !== undefined &&
    ctx.subPipelineDepth === 0
  ) {
    fail(
      ErrorCode.InvalidNamespace,
      `${stage.name} can only be run with {aggregate: 1} or in a sub-pipeline`,
    );
  }
  if (c.first === true && index !== 0) {
    // {aggregate: 1} refuses a pipeline that does not start with a collectionless stage first;
    // after one, a misplaced first-only stage is 40602 as anywhere.
    if (
      ctx.collection === undefined &&
      ctx.subPipelineDepth === 0 &&
      first.constraints?.collectionless !== true
    )
      fail(
        ErrorCode.InvalidNamespace,
        `{aggregate: 1} is not valid for a pipeline whose first stage is not a collectionless stage; ${stage.name} must come first`,
      );
    fail(ErrorCode.Location40602, `${stage.name} is only valid as the first stage in a pipeline`);
  }
  if (c.last === true && index !== length - 1)
    fail(ErrorCode.Location40601, `${stage.name} can only be the final stage in the pipeline`);
  if (c.notInFacet === true && ctx.inFacet)
    fail(ErrorCode.Location40600, `${stage.name} is not allowed to be used within a $facet stage`);
  if (c.notInLookup === true && ctx.inLookup)
    fail(ErrorCode.Location51047, `${stage.name} is not allowed within a $lookup's sub-pipeline`);
  if (c.notInLookup === true && ctx.inUnionWith === true)
    fail(
      ErrorCode.Location31441,
      `${stage.name} is not allowed within a $unionWith's sub-pipeline`,
    );
  if (c.writes === true && ctx.inFacet)
    fail(ErrorCode.Location40600, `${stage.name} is not allowed to be used within a $facet stage`);
  if (c.notInTransaction === true && ctx.inTransaction === true) {
    fail(
      ErrorCode.OperationNotSupportedInTransaction,
      `Operation not permitted in transaction :: caused by :: Aggregation stage ${stage.name} cannot run within a multi-document transaction.`,
    );
  }
}
