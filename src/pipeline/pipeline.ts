// A pipeline: parsed stage by stage (unknown stage 40324, malformed stage 40323, length
// limit), checked for position rules, optimised (adjacent $match/$limit/$skip merge, $sort
// absorbs a following $limit, and the leading $match/$sort/$skip/$limit become the cursor's
// query so the planner can use the _id index), and finally attached to a source as a tree of
// plan stages.

import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import type { Collection } from '../catalog/collection.js';
import { ErrorCode, fail } from '../errors.js';
import { limits } from '../limits.js';
import type { PlanStage } from '../query/exec/stages.js';
import { planQuery } from '../query/planner/planner.js';
import { asksForTextScore, hasTextSearch } from '../query/planner/text-plan.js';

import { NEED_TIME, runSync } from '../query/exec/yield.js';
import { collatedPattern } from './sort-pattern.js';
import { AggCode } from './error-codes.js';
import { DocumentsStage } from './stages/base.js';
import { atlasSearchStages, stageDefinitions, unsupportedStages } from './stages/index.js';
import { LimitPipelineStage } from './stages/limit.js';
import { SkipPipelineStage } from './stages/skip.js';
import { MatchStage } from './stages/match.js';
import { UnpackBucketStage } from './stages/unpack-bucket.js';
import { SortPipelineStage } from './stages/sort.js';
import type { PipelineContext, Runtime, Stage } from './stages/types.js';

export interface ParsedPipeline {
  readonly stages: readonly Stage[];
  readonly ctx: PipelineContext;
}

/** One stage document: an object with exactly one field (40323), a known name (40324). */
function parseStage(spec: BsonValue, ctx: PipelineContext): Stage[] {
  if (!isPlainDocument(spec))
    fail(ErrorCode.TypeMismatch, "Each element of the 'pipeline' array must be an object");
  const keys = Object.keys(spec);
  if (keys.length !== 1)
    fail(
      AggCode.Location40323,
      'A pipeline stage specification object must contain exactly one field.',
    );
  const name = keys[0] as string;
  const def = stageDefinitions.get(name);
  if (def === undefined) {
    if (atlasSearchStages.has(name))
      fail(AggCode.Location6047401, `${name} stage is only allowed on MongoDB Atlas`);
    const refusal = unsupportedStages.get(name);
    if (refusal !== undefined) fail(ErrorCode.NotImplemented, refusal);
    fail(AggCode.Location40324, `Unrecognized pipeline stage name: '${name}'`);
  }
  const parsed = def.parse(spec[name] as BsonValue, ctx);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** Parses a pipeline array and checks where each stage may stand. */
export function parsePipeline(
  pipeline: readonly BsonValue[],
  ctx: PipelineContext,
): ParsedPipeline {
  // Checked before parsing, so a huge pipeline cannot exhaust memory (mongod 7.0.x, SERVER-77495).
  if (pipeline.length > limits.pipelineStagesMax) {
    fail(
      AggCode.Location7749501,
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
    fail(AggCode.Location40602, `${stage.name} is only valid as the first stage in a pipeline`);
  }
  if (c.last === true && index !== length - 1)
    fail(AggCode.Location40601, `${stage.name} can only be the final stage in the pipeline`);
  if (c.notInFacet === true && ctx.inFacet)
    fail(AggCode.Location40600, `${stage.name} is not allowed to be used within a $facet stage`);
  if (c.notInLookup === true && ctx.inLookup)
    fail(AggCode.Location51047, `${stage.name} is not allowed within a $lookup's sub-pipeline`);
  if (c.notInLookup === true && ctx.inUnionWith === true)
    fail(AggCode.Location31441, `${stage.name} is not allowed within a $unionWith's sub-pipeline`);
  if (c.writes === true && ctx.inFacet)
    fail(AggCode.Location40600, `${stage.name} is not allowed to be used within a $facet stage`);
  if (c.notInTransaction === true && ctx.inTransaction === true) {
    fail(
      ErrorCode.OperationNotSupportedInTransaction,
      `Operation not permitted in transaction :: caused by :: Aggregation stage ${stage.name} cannot run within a multi-document transaction.`,
    );
  }
}

/** Peephole optimisations, as mongod's Pipeline::optimizePipeline does. */
export function optimize(stages: readonly Stage[]): Stage[] {
  const out: Stage[] = [];
  for (const s of stages) {
    const prev = out[out.length - 1];
    if (prev instanceof SortPipelineStage && s instanceof MatchStage) {
      // Filtering first sorts fewer documents and lets a leading $match reach the query.
      out.pop();
      const before = out[out.length - 1];
      if (before instanceof MatchStage) out[out.length - 1] = before.mergeWith(s);
      else out.push(s);
      out.push(prev);
    } else if (prev instanceof UnpackBucketStage && s instanceof MatchStage) {
      // A time-series view: the buckets that may hold a match are filtered before unpacking.
      const onBuckets = prev.bucketMatch(s);
      if (onBuckets !== undefined) {
        out.pop();
        const before = out[out.length - 1];
        if (before instanceof MatchStage) out[out.length - 1] = before.mergeWith(onBuckets);
        else out.push(onBuckets);
        out.push(prev);
      }
      out.push(s);
    } else if (prev instanceof MatchStage && s instanceof MatchStage) {
      out[out.length - 1] = prev.mergeWith(s);
    } else if (prev instanceof LimitPipelineStage && s instanceof LimitPipelineStage) {
      out[out.length - 1] = new LimitPipelineStage(Math.min(prev.limit, s.limit));
    } else if (prev instanceof SkipPipelineStage && s instanceof SkipPipelineStage) {
      out[out.length - 1] = new SkipPipelineStage(prev.skip + s.skip);
    } else if (prev instanceof SortPipelineStage && s instanceof LimitPipelineStage) {
      // The sort keeps only the top k, and the $limit stays (harmless, and explain shows it).
      out[out.length - 1] = prev.withLimit(s.limit);
      out.push(s);
    } else {
      out.push(s);
    }
  }
  return out;
}

/**
 * The leading stages the cursor's query absorbs: $match*, then a $sort on fields (the planner
 * may take the order from an index instead of sorting), then $skip/$limit.
 */
interface QueryPrefix {
  filter: BsonDocument;
  match: MatchStage | undefined;
  sort: SortPipelineStage | undefined;
  skip: number;
  limit: number | undefined;
  rest: Stage[];
}

function splitQueryPrefix(stages: readonly Stage[]): QueryPrefix {
  let i = 0;
  let match: MatchStage | undefined;
  while (stages[i] instanceof MatchStage) {
    const m = stages[i] as MatchStage;
    match = match === undefined ? m : match.mergeWith(m);
    i++;
  }
  let sort: SortPipelineStage | undefined;
  const next = stages[i];
  if (
    next instanceof SortPipelineStage &&
    next.pattern.fields !== undefined &&
    next.pattern.parts.every((p) => p.meta === undefined)
  ) {
    // Its coalesced $limit stays as the next stage, and is absorbed below.
    sort = next;
    i++;
  }
  let skip = 0;
  let limit: number | undefined;
  for (;;) {
    const s = stages[i];
    if (s instanceof SkipPipelineStage) {
      if (limit !== undefined) {
        if (limit - s.skip <= 0) break;
        limit -= s.skip;
      }
      skip += s.skip;
    } else if (s instanceof LimitPipelineStage) {
      limit = limit === undefined ? s.limit : Math.min(limit, s.limit);
    } else break;
    i++;
  }
  return { filter: match?.filter ?? {}, match, sort, skip, limit, rest: stages.slice(i) };
}

export interface BuiltPipeline {
  readonly plan: PlanStage;
  /** The query the cursor source runs, for explain. */
  readonly query: { filter: BsonDocument; skip: number; limit?: number };
  /** The stages after the query, for explain. */
  readonly stages: readonly Stage[];
  /** The plan stage each of `stages` became, for explain's execution statistics. */
  readonly attached: readonly PlanStage[];
}

/** The collection a pipeline reads, and the aggregate's hint for the query that reads it. */
export interface CollectionSource {
  readonly collection: Collection | undefined;
  /** An index name or key pattern; the planner uses that index for the leading $match/$sort. */
  readonly hint?: BsonValue | undefined;
  /** A {$natural: ±1} hint: a collection scan in that direction. */
  readonly natural?: 1 | -1 | undefined;
}

function attachAll(
  stages: readonly Stage[],
  plan: PlanStage,
  rt: Runtime,
): { plan: PlanStage; attached: PlanStage[] } {
  const attached: PlanStage[] = [];
  for (const s of stages) {
    plan = s.attach(plan, rt);
    attached.push(plan);
  }
  return { plan, attached };
}

/**
 * Builds the plan of a pipeline over a collection (or over given input documents for
 * sub-pipelines): the absorbed prefix runs in the planner's stages, the rest on top.
 */
export function buildPipeline(
  parsed: ParsedPipeline,
  source: CollectionSource | { documents: readonly BsonDocument[] },
  rt: Runtime,
): BuiltPipeline {
  const stages = optimize(parsed.stages);
  const first = stages[0];
  if (first?.constraints?.first === true || !('collection' in source)) {
    // A source stage ($documents, $collStats...) or a sub-pipeline over given documents.
    const input: PlanStage =
      'documents' in source ? new DocumentsStage(source.documents) : new DocumentsStage([], 'EOF');
    const { plan, attached } = attachAll(stages, input, rt);
    return { plan, query: { filter: {}, skip: 0 }, stages, attached };
  }
  const prefix = splitQueryPrefix(stages);
  const sortFields =
    prefix.sort === undefined
      ? undefined
      : collatedPattern(prefix.sort.pattern, rt.collator).fields;
  const query: PlanStage = planQuery(source.collection, {
    filter: prefix.filter,
    matcher: prefix.match?.matcher,
    collator: rt.collator,
    ...(sortFields === undefined
      ? {}
      : {
          sort: (a: BsonDocument, b: BsonDocument) => sortFields.compare(a, b),
          sortSpec: prefix.sort?.pattern.spec,
        }),
    skip: prefix.skip,
    limit: prefix.limit,
    allowDiskUse: rt.allowDiskUse,
    memory: rt.memory,
    interrupt: () => rt.interrupt(),
    hint: source.hint,
    natural: source.natural,
    wantTextScore: asksForTextScore(prefix.rest.map((s) => s.serialize())),
  });
  const { plan, attached } = attachAll(prefix.rest, query, rt);
  return {
    plan,
    attached,
    query: {
      filter: prefix.filter,
      skip: prefix.skip,
      ...(prefix.limit === undefined ? {} : { limit: prefix.limit }),
    },
    stages: prefix.rest,
  };
}

/**
 * Runs a sub-pipeline to completion over input documents (or a collection) on one view, in
 * place (no yield inside: stages that can, pull their sub-plans incrementally instead).
 */
export function runToArray(
  plan: PlanStage,
  view: Parameters<PlanStage['next']>[0],
  rt: Runtime,
): BsonDocument[] {
  return runSync(() => {
    const out: BsonDocument[] = [];
    for (;;) {
      const row = plan.next(view);
      if (row === undefined) return out;
      if (row === NEED_TIME) continue;
      out.push(row.doc);
      if ((out.length & 1023) === 0) rt.interrupt();
    }
  });
}
