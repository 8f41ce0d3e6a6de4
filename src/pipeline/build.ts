// A parsed pipeline attached to its source as a tree of plan stages: peephole optimisation
// (adjacent $match/$limit/$skip merge, $sort absorbs a following $limit) and the leading
// $match/$sort/$skip/$limit become the cursor's query so the planner can use an index.
//
// Apart from parsing (pipeline.ts, which needs the stage registry), so that the stages that
// build sub-pipelines ($lookup, $facet, $unionWith, $graphLookup) import it without a circle.

import type { BsonDocument, BsonValue } from '../bson/types.js';
import type { Collection } from '../catalog/collection.js';
import type { PlanStage } from '../query/exec/stages.js';
import { planQuery } from '../query/planner/planner.js';
import { asksForTextScore } from '../query/planner/text-plan.js';
import { NEED_TIME, runSync } from '../query/exec/yield.js';
import { collatedPattern } from './sort-pattern.js';
import { DocumentsStage } from './stages/base.js';
import { LimitPipelineStage } from './stages/limit.js';
import { SkipPipelineStage } from './stages/skip.js';
import { MatchStage } from './stages/match.js';
import { UnpackBucketStage } from './stages/unpack-bucket.js';
import { SortPipelineStage } from './stages/sort.js';
import type { ParsedPipeline, Runtime, Stage } from './stages/types.js';

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
