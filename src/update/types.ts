// The public shapes of the update layer: what callers pass in and get back.

import type { Timestamp } from 'bson';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import type { Collator } from '../bson/collation.js';

/** A compiled query filter, as the matcher (src/query/match) produces one. */
export interface FilterMatcher {
  matches(doc: BsonDocument): boolean;
}

/**
 * Compiles a filter for arrayFilters and $pull conditions. Injected so that the update layer
 * does not depend on the matcher's files; the caller passes the real matcher with the
 * operation's collation. mongod parses both kinds of filter with the special features
 * ($where, $text, $expr, …) banned, so the adapter should reject those.
 */
export type FilterCompiler = (filter: BsonDocument) => FilterMatcher;

export interface CompileUpdateOptions {
  /** The command's arrayFilters; every one must be used by a `$[<id>]` in the update. */
  readonly arrayFilters?: readonly BsonDocument[];
  /** Needed as soon as arrayFilters or a $pull condition appears; see FilterCompiler. */
  readonly compileFilter?: FilterCompiler;
  /** Hook for pipeline-style updates (an array); without it they answer NotImplemented. */
  readonly compilePipeline?: (pipeline: readonly BsonDocument[]) => CompiledUpdate;
  /** The statement's `multi` flag: replacement updates refuse it, as mongod does. */
  readonly multi?: boolean;
  /** The operation's collation for the operators that compare values (see ParseEnv). */
  readonly collator?: Collator | undefined;
}

export interface ApplyContext {
  /**
   * Position of the array element the query matched, needed by the positional `$`: the
   * matcher's MatchDetails.elemMatchKey (a string) or a number. Undefined when the query
   * matched no array element.
   */
  readonly positional?: number | string | undefined;
  /** True while building the document an upsert inserts: $setOnInsert applies only then. */
  readonly isInsert: boolean;
  /** The time $currentDate writes. */
  readonly now: Date;
  /** The next cluster timestamp ($currentDate {$type: "timestamp"}, zero timestamps in replacements). */
  readonly nextTimestamp?: () => Timestamp;
  /**
   * Measure the updated document against the 16 MiB limit (17419). A caller that encodes
   * the document anyway can pass false and call assertUpdatedDocumentSize on the bytes.
   */
  readonly checkSize?: boolean;
}

export interface UpsertContext {
  readonly now: Date;
  readonly nextTimestamp?: () => Timestamp;
  /** The `_id` given to an inserted document that has none; a new ObjectId by default. */
  readonly generateId?: () => BsonValue;
  /** As ApplyContext.checkSize, for the upsert limit (17420, assertUpsertDocumentSize). */
  readonly checkSize?: boolean;
}

export interface UpdateResult {
  /**
   * The document after the update. When `modified` is false this is the input document
   * itself. Otherwise it is a new document that may share unchanged subdocuments with the
   * input: treat both as immutable.
   */
  readonly doc: BsonDocument;
  /** False for real no-ops (nModified counts only real changes). */
  readonly modified: boolean;
  /**
   * The change as mongod's `$v: 2` oplog diff (src/update/diff.ts), built on first read; from it
   * change streams derive updateDescription. Undefined when the change is logged as a
   * whole-document replacement: replacement updates, upserts, and pipeline updates whose diff
   * would not be smaller than the document (as mongod decides).
   */
  readonly diff: BsonDocument | undefined;
}

export interface CompiledUpdate {
  /** 'replacement' for a whole-document replacement, 'operator' for $-modifiers. */
  readonly type: 'operator' | 'replacement' | 'pipeline';
  /** True when the update uses the positional `$`: the caller must supply ctx.positional. */
  readonly needsPositional: boolean;
  /** Apply to one stored document. The input is not mutated. */
  apply(doc: BsonDocument, ctx: ApplyContext): UpdateResult;
  /**
   * The document an upsert inserts when `filter` matched nothing: the filter's equality
   * fields (only `_id` for a replacement), the update applied with isInsert, `_id` first
   * (generated when missing), validated as an insert.
   */
  upsert(filter: BsonDocument, ctx: UpsertContext): UpdateResult;
}
