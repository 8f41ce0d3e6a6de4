// Pipeline-style updates (update / findAndModify with an array for `u`): the document goes
// through $addFields/$set, $project, $unset, $replaceRoot/$replaceWith stages. The update
// layer calls this through its `compilePipeline` hook (CompileUpdateOptions).
//
// The result's oplog diff is computed by comparing the document before and after, as mongod
// does (src/update/diff.ts computeDiff): a diff too large to pay off makes a replacement.

import { ObjectId } from 'bson';
import { getOwn, hasOwn, setOwn } from '../bson/document.js';
import type { BsonDocument } from '../bson/types.js';
import { applyPipelineOutput, computeDiff, upsertSeed } from '../update/index.js';
import type { ApplyContext, CompiledUpdate, UpdateResult, UpsertContext } from '../update/index.js';
import { parseDocumentPipeline } from './document-pipeline.js';
import type { UpdatePipelineOptions } from './document-pipeline.js';
import { parsePipeline } from './pipeline.js';

export type { UpdatePipelineOptions } from './document-pipeline.js';

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
  const compiled = parseDocumentPipeline(pipeline, options, parsePipeline);
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
