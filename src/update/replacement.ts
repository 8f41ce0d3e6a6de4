// Replacement-style updates (mongod's ObjectReplaceExecutor): every field of the stored
// document is replaced by the replacement's, except `_id`, which stays when the replacement
// has none and may not change when it has one (compared by value: 1.0 may replace 1).
// A replacement whose BSON equals the stored document byte for byte is a no-op; one that
// only omits `_id` is not (mongod compares the two documents as they are).
//
// Top-level Timestamp(0, 0) values other than `_id` become the current cluster time, as on
// insert.

import { Timestamp } from 'bson';
import { compareBson } from '../bson/compare.js';
import { hasOwn, setOwn } from '../bson/document.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isArray } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';
import { binaryEqualDocuments } from './binary-equal.js';
import { finishInserted, finishUpdated, timestampSource, unchanged } from './finish.js';
import { formatDocument, formatElement } from '../bson/format.js';
import { scanDocument } from './storage-validation.js';
import type { ApplyContext, CompiledUpdate, UpdateResult, UpsertContext } from './types.js';
import { upsertSeed } from './upsert-seed.js';

function isZeroTimestamp(v: BsonValue): boolean {
  return v instanceof Timestamp && v.t === 0 && v.i === 0;
}

function fillZeroTimestamps(replacement: BsonDocument, next: () => Timestamp): BsonDocument {
  const keys = Object.keys(replacement);
  if (!keys.some((k) => k !== '_id' && isZeroTimestamp(replacement[k] as BsonValue)))
    return replacement;
  const out: BsonDocument = {};
  for (const k of keys) {
    const v = replacement[k] as BsonValue;
    setOwn(out, k, k !== '_id' && isZeroTimestamp(v) ? next() : v);
  }
  return out;
}

/**
 * Replace `original` by `replacement`; undefined when that changes nothing. Top-level '$'
 * names are refused unless `allowTopLevelDollar` (a pipeline's output may hold them).
 */
function replace(
  original: BsonDocument,
  replacement: BsonDocument,
  validateForStorage: boolean,
  allowTopLevelDollar = false,
): BsonDocument | undefined {
  if (binaryEqualDocuments(original, replacement)) return undefined;
  const out: BsonDocument = {};
  if (!hasOwn(replacement, '_id') && hasOwn(original, '_id'))
    setOwn(out, '_id', original['_id'] as BsonValue);
  for (const k of Object.keys(replacement)) setOwn(out, k, replacement[k] as BsonValue);
  if (validateForStorage) scanDocument(out, { checkTopLevelDollar: !allowTopLevelDollar });
  // `_id` is immutable: once present it may neither disappear nor change value.
  const hadId = hasOwn(original, '_id');
  if (hasOwn(out, '_id') && isArray(out['_id'])) {
    fail(
      ErrorCode.NotSingleValueField,
      "After applying the update to the document, the (immutable) field '_id' was found to be an array or array descendant.",
    );
  }
  if (!hasOwn(out, '_id') && hadId) {
    fail(
      ErrorCode.ImmutableField,
      `After applying the update, the '_id' (required and immutable) field was found to have been removed --${formatDocument(original)}`,
    );
  }
  if (
    hasOwn(out, '_id') &&
    hadId &&
    compareBson(out['_id'] as BsonValue, original['_id'] as BsonValue) !== 0
  ) {
    fail(
      ErrorCode.ImmutableField,
      `After applying the update, the (immutable) field '_id' was found to have been altered to ${formatElement('_id', out['_id'] as BsonValue)}`,
    );
  }
  return out;
}

/**
 * The output of a pipeline-style update applied to the stored document, as mongod's
 * PipelineExecutor does it (ObjectReplaceExecutor::applyReplacementUpdate, top-level '$'
 * names allowed): the stored `_id` stays (first) when the output has none, may not change
 * when it has one, and the update is a no-op only when the output equals the stored document
 * byte for byte. The caller adds the changed paths.
 */
export function applyPipelineOutput(
  original: BsonDocument,
  output: BsonDocument,
  ctx: ApplyContext,
): UpdateResult {
  const out = replace(original, output, !ctx.isInsert, true);
  return out === undefined
    ? unchanged(original)
    : finishUpdated(out, undefined, ctx.checkSize !== false);
}

export class ReplacementUpdate implements CompiledUpdate {
  readonly type = 'replacement';
  readonly needsPositional = false;

  constructor(private readonly replacement: BsonDocument) {}

  apply(doc: BsonDocument, ctx: ApplyContext): UpdateResult {
    const replacement = fillZeroTimestamps(
      this.replacement,
      timestampSource(ctx.now, ctx.nextTimestamp),
    );
    const out = replace(doc, replacement, !ctx.isInsert);
    return out === undefined
      ? unchanged(doc)
      : finishUpdated(out, undefined, ctx.checkSize !== false);
  }

  upsert(filter: BsonDocument, ctx: UpsertContext): UpdateResult {
    const seed = upsertSeed(filter, { replacement: true });
    const replacement = fillZeroTimestamps(
      this.replacement,
      timestampSource(ctx.now, ctx.nextTimestamp),
    );
    // Built without storage checks; the insert checks below cover the whole document.
    const out = replace(seed, replacement, false) ?? seed;
    return finishInserted(out, ctx);
  }
}
