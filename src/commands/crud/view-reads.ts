// find, count and distinct on a view run as the aggregation mongod turns them into
// (query_request_conversion.cpp, ParsedDistinct::asAggregationCommand): the command's own
// stages, after the views' pipelines that `aggregate` puts in front. Options aggregation has no
// equivalent for are InvalidPipelineOperator (168), as in mongod.

import { Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { genericArgs, parseArgs } from '../args.js';
import type { ArgSpec } from '../args.js';
import type { Invocation } from '../registry.js';
import type { ExplainVerbosity } from '../../query/planner/explain.js';
import { aggregateArgs, runAggregate } from './aggregate.js';
import { requireNonNegative } from './read-args.js';
import type { countArgs, distinctArgs, findArgs } from './read-args.js';

/** The aggregate command a read on a view becomes: its generic arguments carried over. */
function asAggregate(
  inv: Invocation<ArgSpec>,
  pipeline: BsonDocument[],
  options: BsonDocument,
): Invocation<typeof aggregateArgs> {
  const body: BsonDocument = { aggregate: inv.target, pipeline, ...options };
  for (const [k, v] of Object.entries(inv.body)) if (Object.hasOwn(genericArgs, k)) body[k] = v;
  return {
    ...inv,
    name: 'aggregate',
    body,
    args: parseArgs('aggregate', body, aggregateArgs, 'aggregate'),
  };
}

/** Options of the read that the aggregate takes as they are. */
function passedOn(
  args: { collation?: BsonDocument | undefined; hint?: BsonValue | undefined },
  extra: BsonDocument = {},
): BsonDocument {
  const out: BsonDocument = { ...extra };
  if (args.collation !== undefined) out['collation'] = args.collation;
  if (
    args.hint !== undefined &&
    !(isPlainDocument(args.hint) && Object.keys(args.hint).length === 0)
  )
    out['hint'] = args.hint;
  return out;
}

function unsupported(message: string): never {
  throw new CommandError(ErrorCode.InvalidPipelineOperator, message);
}

/** find on a view: filter, sort, skip, limit and projection as stages, batchSize as the cursor's. */
export function runFindOnView(
  inv: Invocation<typeof findArgs>,
  verbosity?: ExplainVerbosity,
): Promise<BsonDocument> {
  const a = inv.args;
  const skip = requireNonNegative('find', 'skip', a.skip);
  const limit = requireNonNegative('find', 'limit', a.limit);
  const batchSize = requireNonNegative('find', 'batchSize', a.batchSize);
  const option = (name: string): never =>
    unsupported(`Option ${name} not supported in aggregation.`);
  if (a.min !== undefined && Object.keys(a.min).length > 0) option('min');
  if (a.max !== undefined && Object.keys(a.max).length > 0) option('max');
  if (a.returnKey === true) option('returnKey');
  if (a.showRecordId === true) option('showRecordId');
  if (a.tailable === true) unsupported('Tailable cursors are not supported in aggregation.');
  if (a.noCursorTimeout === true) option('noCursorTimeout');
  if (a.allowPartialResults === true) option('allowPartialResults');
  if (a.sort !== undefined && Object.hasOwn(a.sort, '$natural'))
    unsupported('Sort option $natural not supported in aggregation.');
  if (a.singleBatch === true && limit !== 1) option('singleBatch');
  if (a.readOnce === true) option('readOnce');
  if (a.$_requestResumeToken === true) option('$_requestResumeToken');
  if (a.$_resumeAfter !== undefined && Object.keys(a.$_resumeAfter).length > 0)
    option('$_resumeAfter');
  const pipeline: BsonDocument[] = [];
  if (a.filter !== undefined && Object.keys(a.filter).length > 0)
    pipeline.push({ $match: a.filter });
  if (a.sort !== undefined && Object.keys(a.sort).length > 0) pipeline.push({ $sort: a.sort });
  if (skip !== undefined && skip > 0) pipeline.push({ $skip: inv.body['skip'] as BsonValue });
  if (limit !== undefined && limit > 0) pipeline.push({ $limit: inv.body['limit'] as BsonValue });
  if (a.projection !== undefined && Object.keys(a.projection).length > 0)
    pipeline.push({ $project: a.projection });
  const options = passedOn(a, {
    cursor: batchSize === undefined ? {} : { batchSize: inv.body['batchSize'] as BsonValue },
  });
  if (a.allowDiskUse !== undefined) options['allowDiskUse'] = a.allowDiskUse;
  if (a.let !== undefined) options['let'] = a.let;
  return runAggregate(asAggregate(inv, pipeline, options), verbosity);
}

/** The single document a converted count or distinct yields (undefined: none). */
async function singleResult(
  inv: Invocation<typeof aggregateArgs>,
): Promise<BsonDocument | undefined> {
  const reply = await runAggregate(inv, undefined);
  const cursor = reply['cursor'];
  const batch = isPlainDocument(cursor) ? cursor['firstBatch'] : undefined;
  const first = Array.isArray(batch) ? batch[0] : undefined;
  return isPlainDocument(first) ? first : undefined;
}

function countPipeline(inv: Invocation<typeof countArgs>): BsonDocument[] {
  const a = inv.args;
  const pipeline: BsonDocument[] = [];
  if (a.query !== undefined && Object.keys(a.query).length > 0) pipeline.push({ $match: a.query });
  const skip = a.skip ?? 0;
  if (skip < 0)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'skip' value must be >= 0, actual value '${skip}'`,
    );
  if (skip > 0) pipeline.push({ $skip: inv.body['skip'] as BsonValue });
  // A negative limit counts like its absolute value, as on a collection.
  const limit = Math.abs(a.limit ?? 0);
  if (limit > 0) pipeline.push({ $limit: Long.fromNumber(limit) });
  pipeline.push({ $count: 'count' });
  return pipeline;
}

/** count on a view: [$match, $skip, $limit, $count], answered as {n}. */
export async function runCountOnView(
  inv: Invocation<typeof countArgs>,
  verbosity?: ExplainVerbosity,
): Promise<BsonDocument> {
  const agg = asAggregate(inv, countPipeline(inv), passedOn(inv.args, { cursor: {} }));
  if (verbosity !== undefined) return runAggregate(agg, verbosity);
  const n = numericValue((await singleResult(agg))?.['count']) ?? 0;
  return { n: new Int32(n) };
}

function distinctPipeline(inv: Invocation<typeof distinctArgs>): BsonDocument[] {
  const key = inv.args.key;
  if (key === undefined) throw missingFieldError('distinct.key');
  if (key === '')
    throw new CommandError(ErrorCode.BadValue, 'FieldPath cannot be constructed with empty string');
  const pipeline: BsonDocument[] = [{ $match: inv.args.query ?? {} }];
  // Every array along the path is unwound, so that its elements are distinct values.
  const parts = key.split('.');
  for (let i = 1; i <= parts.length; i++) {
    pipeline.push({
      $unwind: { path: `$${parts.slice(0, i).join('.')}`, preserveNullAndEmptyArrays: true },
    });
  }
  pipeline.push({ $group: { _id: null, distinct: { $addToSet: `$${key}` } } });
  return pipeline;
}

/** distinct on a view: unwind the key's path and collect its values with $addToSet. */
export async function runDistinctOnView(
  inv: Invocation<typeof distinctArgs>,
  verbosity?: ExplainVerbosity,
): Promise<BsonDocument> {
  const agg = asAggregate(inv, distinctPipeline(inv), passedOn(inv.args, { cursor: {} }));
  if (verbosity !== undefined) return runAggregate(agg, verbosity);
  const values = (await singleResult(agg))?.['distinct'];
  const reply: BsonDocument = { values: Array.isArray(values) ? values : [] };
  if (inv.op.atClusterTime !== undefined) reply['atClusterTime'] = inv.op.atClusterTime;
  return reply;
}
