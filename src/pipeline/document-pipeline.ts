// A pipeline-style update's pipeline (update / findAndModify with an array for `u`, $merge's
// whenMatched pipeline): $addFields/$set, $project, $unset, $replaceRoot/$replaceWith stages
// applied to one document. The parser is passed in: $merge, a stage, cannot import the
// registry that imports it.

import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';
import { pullSync } from '../query/exec/yield.js';
import type { ReadView } from '../storage/engine.js';
import { defineLetVariables } from './context.js';
import { newEnv, newScope } from './expressions/index.js';
import type { ExpressionEnv, VariableScope } from './expressions/index.js';
import { DocumentsStage } from './stages/base.js';
import type { ParsedPipeline, PipelineContext, Runtime, Stage } from './stages/types.js';

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

/**
 * Parses an update pipeline with `parse` (parsePipeline, or the parser a stage's context
 * carries: $merge's whenMatched pipeline) into a transform of one document.
 */
export function parseDocumentPipeline(
  pipeline: readonly BsonValue[],
  options: UpdatePipelineOptions,
  parse: (pipeline: readonly BsonValue[], ctx: PipelineContext) => ParsedPipeline,
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
  const stages: readonly Stage[] = parse(pipeline, pctx).stages;
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
