// The last steps every update shares: `_id` first, the size limit, the result object.

import { ObjectId, Timestamp } from 'bson';
import { bsonSize } from '../bson/codec.js';
import { hasOwn, setOwn } from '../bson/document.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isArray } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';
import { limits } from '../limits.js';
import type { ChangeLog } from './state.js';
import { scanDocument } from './storage-validation.js';
import type { UpdateResult, UpsertContext } from './types.js';
import { moveIdFirst } from './upsert-seed.js';

export function unchanged(doc: BsonDocument): UpdateResult {
  return { doc, modified: false, diff: {} };
}

/** mongod's limit on an updated document (17419), for callers that measure the encoding themselves. */
export function assertUpdatedDocumentSize(bytes: number): void {
  if (bytes > limits.bsonObjectSizeMax) {
    fail(
      ErrorCode.Location17419,
      `Resulting document after update is larger than ${limits.bsonObjectSizeMax}`,
    );
  }
}

/** mongod's limit on a document built by an upsert (17420). */
export function assertUpsertDocumentSize(bytes: number): void {
  if (bytes > limits.bsonObjectSizeMax) {
    fail(ErrorCode.Location17420, `Document to upsert is larger than ${limits.bsonObjectSizeMax}`);
  }
}

/** A modified stored document: `_id` first (as mongod's update stage ensures) and within size. */
export function finishUpdated(
  doc: BsonDocument,
  log: ChangeLog | undefined,
  checkSize: boolean,
): UpdateResult {
  const out = moveIdFirst(doc);
  if (checkSize) assertUpdatedDocumentSize(bsonSize(out));
  if (log === undefined) return { doc: out, modified: true, diff: undefined };
  // The diff is built only if someone asks (the oplog).
  let diff: BsonDocument | undefined;
  return {
    doc: out,
    modified: true,
    get diff(): BsonDocument {
      diff ??= log.diff(out);
      return diff;
    },
  };
}

/**
 * The document an upsert inserts: `_id` first (generated when missing), then checked as an
 * insert: '$' names are allowed at the top level, `_id` must be storable and not an array.
 */
export function finishInserted(doc: BsonDocument, ctx: UpsertContext): UpdateResult {
  let out = moveIdFirst(doc);
  if (!hasOwn(out, '_id')) {
    const withId: BsonDocument = {};
    setOwn(withId, '_id', ctx.generateId ? ctx.generateId() : new ObjectId());
    for (const k of Object.keys(out)) setOwn(withId, k, out[k] as BsonValue);
    out = withId;
  }
  scanDocument(out, { checkTopLevelDollar: false });
  if (isArray(out['_id'])) {
    fail(
      ErrorCode.NotSingleValueField,
      "After applying the update to the document, the field '_id' was found to be an array or array descendant.",
    );
  }
  if (ctx.checkSize !== false) assertUpsertDocumentSize(bsonSize(out));
  return { doc: out, modified: true, diff: undefined };
}

/** A timestamp for a top-level Timestamp(0, 0) in a replacement, or for $currentDate. */
export function timestampSource(now: Date, next: (() => Timestamp) | undefined): () => Timestamp {
  return next ?? (() => new Timestamp({ t: Math.floor(now.getTime() / 1000), i: 1 }));
}
