// Pipeline-style updates (update / findAndModify with an array for `u`): the document goes
// through $addFields/$set, $project, $unset, $replaceRoot/$replaceWith stages. The update
// layer calls this through its `compilePipeline` hook (CompileUpdateOptions).
//
// The result's oplog diff is computed by comparing the document before and after, as mongod
// does (src/update/diff.ts computeDiff): a diff too large to pay off makes a replacement.

import { ObjectId } from 'bson';
import { getOwn, hasOwn, setOwn } from '../bson/document.js';
import { isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';
import { pullSync } from '../query/exec/yield.js';
import { applyPipelineOutput, computeDiff, upsertSeed } from '../update/index.js';
import type { ApplyContext, CompiledUpdate, UpdateResult, UpsertContext } from '../update/index.js';
import { defineLetVariables } from './context.js';
import { newEnv, newScope } from './expressions/index.js';
import type { ExpressionEnv, VariableScope } from './expressions/index.js';
import { parsePipeline } from './pipeline.js';
import { DocumentsStage } from './stages/base.js';
import type { PipelineContext, Runtime, Stage } from './stages/types.js';
import type { ReadView } from '../storage/engine.js';

/** Reshaping stages read no storage: they get a view of nothing. */
const NO_STORAGE: ReadView = {
  get: () => undefined,
  scan: () => [][Symbol.iterator](),
  count: () => 0,
};

/** The stages a pipeline-style update may use (mongod refuses others with InvalidOptions). */
const UPDATE_STAGES = new Set([
  '$addFields',
  '$set',
  '$project',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
]);

export interface UpdatePipelineOptions {
  /** The command's `let` variables. */
  readonly variables?: BsonDocument | undefined;
  /** Variables bound per application (a $merge's `let`, e.g. $$new): name → slot in `env`. */
  readonly env?: ExpressionEnv;
  readonly scope?: VariableScope;
}

/** A parsed update pipeline that transforms one document. */
export interface DocumentPipeline {
  readonly env: ExpressionEnv;
  apply(doc: BsonDocument): BsonDocument;
}

export function parseDocumentPipeline(
  pipeline: readonly BsonValue[],
  options: UpdatePipelineOptions = {},
): DocumentPipeline {
  const env = options.env ?? newEnv();
  const scope = options.scope ?? newScope(undefined);
  if (options.variables !== undefined) defineLetVariables(env, scope, options.variables);
  const pctx: PipelineContext = {
    env,
    scope,
    db: '',
    collection: undefined,
    allowDiskUse: false,
    subPipelineDepth: 0,
    inFacet: false,
    inLookup: false,
    forUpdate: true,
  };
  for (const spec of pipeline) {
    if (!isPlainDocument(spec))
      fail(ErrorCode.FailedToParse, "Each element of the 'pipeline' array must be an object");
    const name = Object.keys(spec)[0];
    if (name !== undefined && !UPDATE_STAGES.has(name))
      fail(ErrorCode.InvalidOptions, `${name} is not allowed to be used within an update`);
  }
  const stages: readonly Stage[] = parsePipeline(pipeline, pctx).stages;
  // Only reshaping stages get here: they touch neither the catalog nor storage.
  const rt: Runtime = {
    catalog: undefined,
    db: '',
    frame: env.frame,
    allowDiskUse: false,
    interrupt: () => undefined,
  };
  return {
    env,
    apply(doc: BsonDocument): BsonDocument {
      let plan = new DocumentsStage([doc]) as Parameters<Stage['attach']>[0];
      for (const s of stages) plan = s.attach(plan, rt);
      const row = pullSync(plan, NO_STORAGE);
      return row?.doc ?? doc;
    },
  };
}

/**
 * The pipeline's output applied as mongod applies it (the stored `_id` kept when the output
 * has none, `_id` first, storage checks), with the diff from the stored document (computed on
 * first read: only the oplog asks).
 */
function result(before: BsonDocument, output: BsonDocument, ctx: ApplyContext): UpdateResult {
  const applied = applyPipelineOutput(before, output, ctx);
  if (!applied.modified) return applied;
  let diff: { value: BsonDocument | undefined } | undefined;
  return {
    doc: applied.doc,
    modified: true,
    get diff(): BsonDocument | undefined {
      diff ??= { value: computeDiff(before, applied.doc) };
      return diff.value;
    },
  };
}

/**
 * The `compilePipeline` hook of the update layer: pass
 * `(p) => compileUpdatePipeline(p, { variables: args.let })` in CompileUpdateOptions.
 */
export function compileUpdatePipeline(
  pipeline: readonly BsonDocument[],
  options: UpdatePipelineOptions = {},
): CompiledUpdate {
  const compiled = parseDocumentPipeline(pipeline, options);
  return {
    type: 'pipeline',
    needsPositional: false,
    apply(doc: BsonDocument, ctx: ApplyContext): UpdateResult {
      return result(doc, compiled.apply(doc), ctx);
    },
    upsert(filter: BsonDocument, ctx: UpsertContext): UpdateResult {
      const seed = upsertSeed(filter);
      const after = compiled.apply(seed);
      // `_id` first: from the pipeline's output, else from the query, else a new one.
      const id = hasOwn(after, '_id')
        ? getOwn(after, '_id')
        : hasOwn(seed, '_id')
          ? getOwn(seed, '_id')
          : (ctx.generateId?.() ?? new ObjectId());
      const doc: BsonDocument = { _id: id ?? null };
      for (const [k, v] of Object.entries(after)) if (k !== '_id') setOwn(doc, k, v);
      return { doc, modified: true, diff: undefined };
    },
  };
}
