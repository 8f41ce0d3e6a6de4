// aggregate: runs an aggregation pipeline (src/pipeline) over a collection, or over no
// collection ({aggregate: 1}) for source stages such as $documents. The result streams
// through a ServerCursor like find's, batch by batch on fresh snapshots; a pipeline ending in
// $out or $merge runs to completion and writes in one storage transaction instead.

import { Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { parseCollation, sameCollation } from '../../bson/collation.js';
import type { ResolvedView } from '../../catalog/views.js';
import type { CatalogScope } from '../../catalog/catalog.js';
import type { Collator } from '../../bson/collation.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { ErrorCode, fail, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import { fullName } from '../../catalog/namespace.js';
import { textSearchHook } from '../query-language.js';
import { ServerCursor } from '../../query/exec/cursor.js';
import type { PlanStage } from '../../query/exec/stages.js';
import {
  buildPipeline,
  checkPipelineInApiV1,
  defineLetVariables,
  newEnv,
  newScope,
  parsePipeline,
} from '../../pipeline/index.js';
import { drainPlan } from '../../query/exec/drive.js';
import type {
  ExpressionEnv,
  PipelineContext,
  Runtime,
  Stage,
  VariableScope,
} from '../../pipeline/index.js';
import { isWriteStage } from '../../pipeline/stages/write.js';
import { explainPlan } from '../../query/planner/explain.js';
import type { ExplainSections, ExplainVerbosity } from '../../query/planner/explain.js';
import { explainServerInfo, explainServerParameters } from './explain-server.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import { supports } from '../version.js';
import type { Invocation } from '../registry.js';
import type { ServerServices } from '../context.js';
import { cursorReply, noteBatch, parseCursorOption, keepTimeLeft } from './cursor-reply.js';
import { clusterTimeOf, scriptingOf, resolveCollation, writeWithConcern } from './operation-env.js';
import {
  collectionRestoreCheck,
  resolvedViewOf,
  targetCollection,
  readCollection,
} from './target.js';
import { resolveHint } from './hint.js';
import { redactCommand } from '../operations.js';
import { isChangeStreamPipeline, runChangeStreamAggregate } from './change-stream-cursor.js';
import {
  SplitLargeEventStage,
  notInChangeStream,
} from '../../pipeline/stages/split-large-event.js';
import { notACollection } from '../../catalog/views.js';
import { diskUseFor } from './disk-use.js';
import { serverIntrospection } from '../diag/current-op.js';
import { pipelinePrivileges, privileges } from '../authorization.js';

export const aggregateArgs = {
  pipeline: t.array,
  cursor: t.document,
  explain: t.bool,
  allowDiskUse: t.bool,
  let: t.document,
  hint: t.any,
  collation: t.document,
  bypassDocumentValidation: t.safeBool,
  // Accepted as mongod accepts them; nothing here acts on them.
  fromMongos: t.ignored,
  needsMerge: t.ignored,
  isMapReduceCommand: t.ignored,
  collectionUUID: t.ignored,
  encryptionInformation: t.ignored,
  exchange: t.ignored,
  $_requestReshardingResumeToken: t.ignored,
  $_generateV2ResumeTokens: t.ignored,
};

type AggregateInvocation = Invocation<typeof aggregateArgs>;

/** The target: a collection name, or 1 for a collectionless aggregate. */
function targetOf(inv: AggregateInvocation): string | undefined {
  const target = inv.target;
  const n = numericValue(target);
  if (n !== undefined) {
    if (n !== 1)
      fail(
        ErrorCode.FailedToParse,
        "Invalid command format: the 'aggregate' field must specify a collection name or 1",
      );
    return undefined;
  }
  return targetCollection(inv);
}

/** The command's `let`: each variable an expression evaluated once, before the pipeline runs. */
function letScope(letVars: BsonDocument | undefined, env: ExpressionEnv): VariableScope {
  const scope = newScope(undefined);
  if (letVars !== undefined) defineLetVariables(env, scope, letVars);
  return scope;
}

export const aggregate = defineCommand({
  name: 'aggregate',
  auth: privileges('find on the collection and what each stage reads or writes', (input) => [
    pipelinePrivileges(
      {
        db: input.db,
        coll: typeof input.target === 'string' ? input.target : undefined,
        bypassDocumentValidation: input.args.bypassDocumentValidation === true,
      },
      input.body['pipeline'] ?? [],
    ),
  ]),
  args: aggregateArgs,
  traits: { allowedInTransaction: true, snapshotReads: true, apiVersion1: true },
  run: (inv) => runAggregate(inv, inv.args.explain === true ? 'queryPlanner' : undefined),
});

/** Stages whose comparisons all follow the collation: filters, sorts, group keys, expressions. */
const COLLATED_STAGES = new Set([
  '$match',
  '$sort',
  '$skip',
  '$limit',
  '$count',
  '$group',
  '$unwind',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
  '$sortByCount',
  '$sample',
  '$redact',
  '$facet',
  '$lookup',
  '$graphLookup',
  '$unionWith',
]);
/** Operators whose order comes from sort patterns that do not take the collation yet. */
const BINARY_OPERATORS = new Set(['$minN', '$maxN', '$top', '$bottom', '$topN', '$bottomN']);

function containsOperator(v: BsonValue, names: ReadonlySet<string>): boolean {
  if (Array.isArray(v)) return v.some((x) => containsOperator(x, names));
  if (!isPlainDocument(v)) return false;
  return Object.entries(v).some(([k, x]) => names.has(k) || containsOperator(x, names));
}

/** Whether every comparison of the pipeline follows the collation as mongod's would. */
function collatedPipelineSupported(pipeline: readonly BsonValue[]): boolean {
  return pipeline.every((stage) => {
    if (!isPlainDocument(stage)) return true; // the parser reports it
    const [name] = Object.keys(stage);
    if (name === undefined || !COLLATED_STAGES.has(name)) return false;
    const arg = stage[name] as BsonValue;
    if (name === '$facet')
      return (
        isPlainDocument(arg) &&
        Object.values(arg).every((p) => !Array.isArray(p) || collatedPipelineSupported(p))
      );
    // Sub-pipelines run with the same collation: their stages must follow it too.
    if (
      (name === '$lookup' || name === '$unionWith') &&
      isPlainDocument(arg) &&
      Array.isArray(arg['pipeline']) &&
      !collatedPipelineSupported(arg['pipeline'])
    )
      return false;
    return !containsOperator(arg, BINARY_OPERATORS);
  });
}

/**
 * The collation an aggregate runs with: its own, else the collection's default; on a view, the
 * view's, which a command may not override (mongod: 167). Pipelines with stages or operators
 * that do not follow a collation yet answer NotImplemented instead of comparing in binary order.
 */
function pipelineCollation(
  services: ServerServices,
  db: string,
  collName: string | undefined,
  view: ResolvedView | undefined,
  collation: BsonDocument | undefined,
  pipeline: readonly BsonValue[],
  scope: CatalogScope,
): Collator | undefined {
  let collator: Collator | undefined;
  if (view !== undefined) {
    collator = view.collation === undefined ? undefined : parseCollation(view.collation);
    if (collation !== undefined && !sameCollation(parseCollation(collation), collator))
      fail(ErrorCode.OptionNotSupportedOnView, "Cannot override a view's default collation");
  } else {
    collator = resolveCollation(
      collName === undefined ? undefined : services.catalog.get(db, collName, scope),
      collation,
    );
  }
  if (collator !== undefined && !collatedPipelineSupported(pipeline)) {
    fail(
      ErrorCode.NotImplemented,
      `aggregate with a non-simple collation (given, or the collection default) supports only the stages ${[...COLLATED_STAGES].join(', ')}, without ${[...BINARY_OPERATORS].join(', ')}`,
    );
  }
  return collator;
}

/**
 * A change stream reads majority-committed changes: it upconverts an absent read concern level
 * and refuses any other explicit one (mongod's onlySingleReadConcernSupported).
 */
function checkChangeStreamReadConcern(rc: BsonDocument | undefined): void {
  const level = rc?.['level'];
  if (typeof level !== 'string' || level === 'majority') return;
  fail(
    ErrorCode.InvalidOptions,
    `Command aggregate does not support { readConcern: { level: "${level}" } } :: caused by :: Aggregation stage $changeStream cannot run with a readConcern other than 'majority'. Current readConcern: ${level}`,
  );
}

/** Runs an aggregate, or explains it with the given verbosity (the explain command's entry too). */
export async function runAggregate(
  inv: AggregateInvocation,
  verbosity: ExplainVerbosity | undefined,
): Promise<BsonDocument> {
  const { services, args, db } = inv;
  const collName = targetOf(inv);
  if (args.pipeline === undefined) throw missingFieldError('aggregate.pipeline');
  if (args.apiStrict === true) checkPipelineInApiV1(args.pipeline);
  const explain = verbosity !== undefined;
  if (args.cursor === undefined && !explain) {
    fail(
      ErrorCode.FailedToParse,
      "The 'cursor' option is required, except for aggregate with the explain argument",
    );
  }
  if (explain && args.writeConcern !== undefined) {
    // mongod's message, missing space included (aggregation_request_helper validate()).
    fail(ErrorCode.FailedToParse, "Aggregation explain does not support the'writeConcern' option");
  }
  const batchSize = parseCursorOption('aggregate', args.cursor);
  // On a view, the views' pipelines run first, over the collection they end on; the cursor
  // keeps the view's namespace (mongod's ResolvedView::asExpandedViewAggregation).
  const resolved =
    collName === undefined ? undefined : resolvedViewOf(services, inv.op, db, collName);
  if (resolved !== undefined && collName !== undefined && isChangeStreamPipeline(args.pipeline))
    throw notACollection(db, collName);
  if (
    isChangeStreamPipeline(args.pipeline) &&
    args.collation !== undefined &&
    parseCollation(args.collation) !== undefined
  ) {
    fail(
      ErrorCode.NotImplemented,
      'change streams with a non-simple collation are not supported yet',
    );
  }
  if (isChangeStreamPipeline(args.pipeline) && args.autocommit === undefined)
    checkChangeStreamReadConcern(args.readConcern);
  if (!explain && isChangeStreamPipeline(args.pipeline))
    return runChangeStreamAggregate(inv, collName, batchSize);
  const ns = collName === undefined ? `${db}.$cmd.aggregate` : fullName(db, collName);
  const sourceName = resolved?.collection ?? collName;
  const collator = pipelineCollation(
    services,
    db,
    collName,
    resolved,
    args.collation,
    [...(resolved?.pipeline ?? []), ...args.pipeline],
    inv.op.access.transaction,
  );
  const disk = diskUseFor(services, args.allowDiskUse);
  const allowDiskUse = disk.allowDiskUse;
  const env = newEnv({
    now: new Date(),
    clusterTime: clusterTimeOf(services),
    collator,
    scripting: scriptingOf(services, inv.op),
  });
  const scope = letScope(args.let, env);
  const ctx: PipelineContext = {
    env,
    scope,
    db,
    collection: sourceName,
    allowDiskUse,
    collator,
    subPipelineDepth: 0,
    inFacet: false,
    inLookup: false,
    inTransaction: args.autocommit === false,
    session: args.lsid,
    server: serverIntrospection(services, inv.connection),
    searchNotEnabled: supports(services.config.reported, 'searchNotEnabled'),
    textSearch:
      sourceName === undefined
        ? undefined
        : textSearchHook(
            fullName(db, sourceName),
            services.catalog.get(db, sourceName, inv.op.access.transaction),
          ),
  };
  const parsed = parsePipeline(
    resolved === undefined ? args.pipeline : [...resolved.pipeline, ...args.pipeline],
    ctx,
  );
  if (parsed.stages.some((s) => s instanceof SplitLargeEventStage)) notInChangeStream();
  const first = parsed.stages[0];
  if (collName === undefined && first?.constraints?.collectionless !== true) {
    fail(
      ErrorCode.InvalidNamespace,
      `{aggregate: 1} is not valid for '${first?.name ?? '[]'}'; a collection is required.`,
    );
  }
  const coll =
    sourceName === undefined ? undefined : readCollection(services, inv.op, db, sourceName);
  const hint = resolveHint(coll, args.hint);
  const rt: Runtime = {
    catalog: services.catalog,
    db,
    frame: env.frame,
    allowDiskUse,
    memory: disk.memory,
    interrupt: () => inv.op.checkDeadline(),
    collator,
  };
  const last = parsed.stages[parsed.stages.length - 1];
  const writer = last !== undefined && isWriteStage(last) ? last : undefined;
  if (writer !== undefined && args.autocommit === false) {
    fail(
      ErrorCode.OperationNotSupportedInTransaction,
      `${writer.name} cannot be used in a transaction`,
    );
  }
  if (
    writer !== undefined &&
    isPlainDocument(args.readConcern) &&
    args.readConcern['level'] === 'linearizable'
  ) {
    fail(
      ErrorCode.InvalidOptions,
      `${writer.name} cannot be used with a 'linearizable' read concern level`,
    );
  }
  const readStages = writer === undefined ? parsed.stages : parsed.stages.slice(0, -1);
  const built = buildPipeline(
    { ...parsed, stages: readStages },
    { collection: coll, hint: args.hint, natural: hint.natural },
    rt,
  );

  const restore =
    sourceName === undefined
      ? undefined
      : collectionRestoreCheck(services.catalog, db, sourceName, coll, inv.op.access.transaction);

  if (verbosity !== undefined) {
    try {
      return await explainReply(
        inv,
        sourceName === undefined ? ns : fullName(db, sourceName),
        built,
        writer,
        verbosity,
      );
    } finally {
      disk.release();
    }
  }

  if (writer !== undefined) {
    const lease = inv.op.access.acquireView();
    const docs: BsonDocument[] = [];
    try {
      // The reading half yields like any read; the writing half is one write unit.
      await drainPlan(built.plan, lease.view, inv.op, (row) => docs.push(row.doc), restore);
    } finally {
      lease.release();
      disk.release();
    }
    const bypassDocumentValidation = args.bypassDocumentValidation === true;
    const { wcError } = await writeWithConcern(services, inv.op, (txn) =>
      writer.executeWrite(
        { txn, catalog: services.catalog, statement: undefined, bypassDocumentValidation },
        docs,
        rt,
      ),
    );
    const reply = cursorReply(undefined, ns, [], true);
    if (wcError !== undefined) reply['writeConcernError'] = wcError;
    return reply;
  }

  const cursor = new ServerCursor(built.plan, {
    ns,
    owner: { sessionKey: inv.op.session?.session.key },
    comment: args.comment,
    views: () => inv.op.access.acquireView(),
    onClose: disk.release,
    restore,
    originatingCommand: redactCommand(inv.body),
  });
  inv.op.debug.plan = built.plan.stats;
  if (batchSize === 0) {
    services.cursors.register(cursor);
    rt.interrupt = () => undefined;
    return cursorReply(cursor, ns, [], true, inv.op.atClusterTime);
  }
  const batch = await cursor.nextBatch(batchSize ?? limits.firstBatchDocsDefault, inv.op);
  noteBatch(inv.op, cursor, batch);
  keepTimeLeft(cursor, inv.op.deadlineMs);
  // The stages' own checks end with this command; getMore batches run within what is left
  // of maxTimeMS (keepTimeLeft), checked where the cursor yields.
  rt.interrupt = () => undefined;
  if (cursor.isExhausted) return cursorReply(undefined, ns, batch, true, inv.op.atClusterTime);
  services.cursors.register(cursor);
  return cursorReply(cursor, ns, batch, true, inv.op.atClusterTime);
}

// ---- explain --------------------------------------------------------------------------------

/**
 * One pipeline stage in explain: the stage as written, and with execution statistics its
 * nReturned plus what the stage reports (usedDisk and spills for $sort and $group).
 */
function explainStageEntry(
  stage: Stage,
  attached: PlanStage | undefined,
  verbosity: ExplainVerbosity,
): BsonDocument {
  const entry = stage.serialize();
  if (verbosity === 'queryPlanner' || attached === undefined) return entry;
  return {
    ...entry,
    ...(attached.stats.extra ?? {}),
    nReturned: Long.fromNumber(attached.stats.nReturned),
    executionTimeMillisEstimate: Long.ZERO,
  };
}

async function explainReply(
  inv: AggregateInvocation,
  ns: string,
  built: ReturnType<typeof buildPipeline>,
  writer: Stage | undefined,
  verbosity: ExplainVerbosity,
): Promise<BsonDocument> {
  const stages = [...built.stages, ...(writer === undefined ? [] : [writer])];
  const lease = inv.op.access.acquireView();
  let sections: ExplainSections;
  try {
    // Execution runs the whole pipeline (its query part included); writes never run.
    sections = await explainPlan(built.plan, lease.view, { namespace: ns, verbosity }, inv.op);
  } finally {
    lease.release();
  }
  const command: BsonDocument = {
    aggregate: inv.target,
    pipeline: inv.args.pipeline ?? [],
    ...(inv.args.allowDiskUse === undefined ? {} : { allowDiskUse: inv.args.allowDiskUse }),
    $db: inv.db,
  };
  const serverInfo = explainServerInfo(inv.services);
  const serverParameters = explainServerParameters(inv.services.parameters);
  if (stages.length === 0) {
    return {
      explainVersion: '1',
      queryPlanner: sections.queryPlanner,
      ...(sections.executionStats === undefined ? {} : { executionStats: sections.executionStats }),
      command,
      serverInfo,
      serverParameters,
    };
  }
  const cursorStage: BsonDocument = {
    queryPlanner: sections.queryPlanner,
    ...(sections.executionStats === undefined ? {} : { executionStats: sections.executionStats }),
  };
  return {
    explainVersion: '1',
    stages: [
      { $cursor: cursorStage },
      ...stages.map((s, i) => explainStageEntry(s, built.attached[i], verbosity)),
    ],
    command,
    serverInfo,
    serverParameters,
  };
}
