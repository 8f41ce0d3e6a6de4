// The stage registry: stage name → definition (one file per stage or family of aliases), and
// the stages mongod has that this server refuses with NotImplemented (238) instead of
// "Unrecognized pipeline stage name" (40324).

import { $bucket } from './bucket.js';
import { $bucketAuto } from './bucket-auto.js';
import { $changeStream } from './change-stream-stage.js';
import { $changeStreamSplitLargeEvent } from './split-large-event.js';
import { $densify } from './densify.js';
import { $facet } from './facet.js';
import { $fill } from './fill.js';
import { $geoNear } from './geo-near.js';
import { $graphLookup } from './graph-lookup.js';
import { $group } from './group.js';
import { $listLocalSessions, $listSessions } from './list-sessions.js';
import { $currentOp } from './current-op.js';
import { $lookup } from './lookup.js';
import { $merge } from './merge.js';
import { $setWindowFields } from './set-window-fields.js';
import { $collStats } from './coll-stats.js';
import { $indexStats } from './index-stats.js';
import { $unionWith } from './union-with.js';
import { $limit } from './limit.js';
import { $skip } from './skip.js';
import { $match } from './match.js';
import { $out } from './out.js';
import { $addFields, $set } from './add-fields.js';
import { $project } from './project.js';
import { $unset } from './unset.js';
import { $count } from './count.js';
import { $documents } from './documents.js';
import { $redact } from './redact.js';
import { $replaceRoot, $replaceWith } from './replace-root.js';
import { $sample } from './sample.js';
import { $sortByCount } from './sort-by-count.js';
import { $sort } from './sort.js';
import { $unwind } from './unwind.js';
import { $_internalUnpackBucket } from './unpack-bucket.js';
import type { BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import type { StageDefinition } from './types.js';

const all: readonly StageDefinition[] = [
  $match,
  $group,
  $sort,
  $limit,
  $skip,
  $project,
  $addFields,
  $set,
  $unset,
  $count,
  $unwind,
  $replaceRoot,
  $replaceWith,
  $sortByCount,
  $sample,
  $documents,
  $redact,
  $out,
  $merge,
  $lookup,
  $facet,
  $unionWith,
  $bucket,
  $bucketAuto,
  $graphLookup,
  $collStats,
  $indexStats,
  $listLocalSessions,
  $listSessions,
  $currentOp,
  $setWindowFields,
  $densify,
  $fill,
  $changeStream,
  $changeStreamSplitLargeEvent,
  $geoNear,
  $_internalUnpackBucket,
];

export const stageDefinitions: ReadonlyMap<string, StageDefinition> = new Map(
  all.map((d) => [d.name, d]),
);

/** Stages of mongod 7.0 that need subsystems this server does not have yet (other issues). */
export const unsupportedStages: ReadonlyMap<string, string> = new Map([
  ['$planCacheStats', '$planCacheStats is not supported yet'],
  ['$listSampledQueries', '$listSampledQueries is not supported'],
  ['$shardedDataDistribution', '$shardedDataDistribution is not supported (no sharding)'],
  ['$queryStats', '$queryStats is not supported'],
]);

/**
 * Atlas Search stages: a mongod without mongot refuses them, 7.0 with 6047401 "<stage> stage is
 * only allowed on MongoDB Atlas", 8.0 with SearchNotEnabled (31082) and the messages below;
 * apps and drivers probe for them.
 */
export const atlasSearchStages: ReadonlySet<string> = new Set([
  '$search',
  '$searchMeta',
  '$vectorSearch',
  '$listSearchIndexes',
]);

/** Stages mongod registers as never in API Version 1 (AllowedWithApiStrict::kNeverInVersion1). */
const stagesOutsideApiV1: ReadonlySet<string> = new Set([
  '$currentOp',
  '$indexStats',
  '$listLocalSessions',
  '$listSessions',
  '$planCacheStats',
  '$listCatalog',
  '$search',
  '$searchMeta',
  '$vectorSearch',
  '$listSearchIndexes',
  '$changeStreamSplitLargeEvent',
]);

/**
 * With apiStrict, a pipeline naming a stage outside API Version 1, at any depth ($lookup and
 * $unionWith pipelines, $facet), fails with APIStrictError as mongod's lite parse does: before
 * any stage is parsed, so also for stages this server refuses or does not know.
 */
export function checkPipelineInApiV1(pipeline: BsonValue | undefined): void {
  if (!Array.isArray(pipeline)) return;
  for (const stage of pipeline) {
    if (!isPlainDocument(stage)) continue;
    for (const [name, spec] of Object.entries(stage)) {
      if (stagesOutsideApiV1.has(name))
        fail(
          ErrorCode.APIStrictError,
          `${name} is not allowed with 'apiStrict: true' in API Version 1`,
        );
      if (!isPlainDocument(spec)) continue;
      checkPipelineInApiV1(spec['pipeline']);
      if (name === '$facet') for (const sub of Object.values(spec)) checkPipelineInApiV1(sub);
    }
  }
}
