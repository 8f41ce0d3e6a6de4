// Statement execution inside a storage write transaction, shared by insert, update, delete
// and findAndModify. Everything here is synchronous: it runs in the engine's write callback,
// so the reads that decide a write (which documents match, whether a key is taken) and the
// write itself see the same state — no check-then-act across an await.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import { compareBson } from '../../bson/compare.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { Collection, StoredRecord } from '../../catalog/collection.js';
import { lookupView, notACollection } from '../../catalog/views.js';
import { checkIdValue, checkStorable, prepareForInsert } from '../../catalog/validate-document.js';
import { CommandError, ErrorCode } from '../../errors.js';
import type { DocumentFilter, MatchDetailsSink, RowComparator } from '../../query/exec/stages.js';
import { planQuery } from '../../query/planner/planner.js';
import { pullSync } from '../../query/exec/yield.js';
import type { Collator } from '../../bson/collation.js';
import { resolveHint } from './common.js';
import { validateForWrite } from './document-validation.js';
import type { WriteValidation } from './document-validation.js';
import type { WriteTxn } from '../../storage/engine.js';
import type { CompiledUpdate } from '../../update/index.js';

export interface Namespace {
  readonly db: string;
  readonly name: string;
}

/** Insert one document (already prepared) into the collection, creating it if needed; checked by its validator. */
export function insertOne(
  txn: WriteTxn,
  catalog: Catalog,
  ns: Namespace,
  doc: BsonDocument,
  validation?: WriteValidation,
): StoredRecord {
  const coll = catalog.getOrCreate(txn, ns.db, ns.name);
  validateForWrite(coll, doc, undefined, validation);
  const rec = coll.insert(txn, doc);
  catalog.observer.onInsert(txn, coll, doc, rec.bytes);
  return rec;
}

export interface MatchedRecord {
  readonly record: StoredRecord;
  readonly details: MatchDetailsSink;
}

/** The records a filter selects, in plan order (sort first if given), at most `limit`. */
export function selectRecords(
  txn: WriteTxn,
  coll: Collection,
  filter: BsonDocument,
  matcher: DocumentFilter | undefined,
  options: {
    limit?: number;
    sort?: RowComparator;
    hint?: BsonValue;
    collator?: Collator | undefined;
  },
): MatchedRecord[] {
  const plan = planQuery(coll, {
    filter,
    matcher,
    collator: options.collator,
    sort: options.sort,
    limit: options.limit,
    allowDiskUse: true,
    // The statement's hint picks the index (or {$natural: ±1} a collection scan), as for find.
    hint: options.hint,
    natural: resolveHint(undefined, options.hint).natural,
  });
  const out: MatchedRecord[] = [];
  for (let row = pullSync(plan, txn); row !== undefined; row = pullSync(plan, txn)) {
    if (row.recordId === undefined) continue;
    out.push({
      record: { recordId: row.recordId, doc: row.doc, size: 0 },
      details: row.details ?? {},
    });
  }
  return out;
}

export interface UpdateSpec {
  readonly filter: BsonDocument;
  readonly matcher: DocumentFilter | undefined;
  readonly update: CompiledUpdate;
  readonly multi: boolean;
  readonly upsert: boolean;
  readonly sort?: RowComparator | undefined;
  /** The statement's collation (the matcher and sort already use it; the planner must know). */
  readonly collator?: Collator | undefined;
  /** The statement's hint: an index name or key pattern, or {$natural: ±1}. */
  readonly hint?: BsonValue | undefined;
  /** bypassDocumentValidation, and where 'warn' failures are logged. */
  readonly validation?: WriteValidation | undefined;
}

export interface UpdateOutcome {
  readonly n: number;
  readonly nModified: number;
  readonly upsertedId?: BsonValue;
  /** For findAndModify: the first matched document before and after the update. */
  readonly before?: BsonDocument;
  readonly after?: BsonDocument;
}

function positionalOf(details: MatchDetailsSink): number | undefined {
  const key = details.elemMatchKey;
  if (key === undefined) return undefined;
  const n = Number(key);
  return Number.isInteger(n) ? n : undefined;
}

/** The collection a statement writes; undefined if there is none, CommandNotSupportedOnView for a view. */
function writableCollection(
  txn: WriteTxn,
  catalog: Catalog,
  ns: Namespace,
): Collection | undefined {
  const coll = catalog.get(ns.db, ns.name);
  if (coll === undefined && lookupView(catalog, txn, ns.db, ns.name) !== undefined)
    throw notACollection(ns.db, ns.name);
  return coll;
}

/** Apply an update statement. Throws a CommandError (nothing written by this statement). */
export function executeUpdate(
  txn: WriteTxn,
  catalog: Catalog,
  ns: Namespace,
  spec: UpdateSpec,
): UpdateOutcome {
  const coll = writableCollection(txn, catalog, ns);
  const now = new Date();
  const matched =
    coll === undefined
      ? []
      : selectRecords(txn, coll, spec.filter, spec.matcher, {
          ...(spec.multi ? {} : { limit: 1 }),
          ...(spec.sort ? { sort: spec.sort } : {}),
          hint: spec.hint,
          collator: spec.collator,
        });
  if (matched.length === 0) {
    if (!spec.upsert) return { n: 0, nModified: 0 };
    return upsert(txn, catalog, ns, spec, now);
  }
  // Compute every new version first so that a failing document leaves nothing written.
  const changes: Array<{
    record: StoredRecord;
    after: BsonDocument;
    diff: BsonDocument | undefined;
  }> = [];
  let first: { before: BsonDocument; after: BsonDocument } | undefined;
  for (const { record, details } of matched) {
    const res = spec.update.apply(record.doc, {
      positional: positionalOf(details),
      isInsert: false,
      now,
    });
    if (first === undefined) first = { before: record.doc, after: res.doc };
    if (!res.modified) continue;
    checkIdUnchanged(record.doc, res.doc);
    checkStorable(res.doc);
    validateForWrite(coll as Collection, res.doc, record.doc, spec.validation);
    changes.push({ record, after: res.doc, diff: res.diff });
  }
  const target = coll as Collection;
  for (const { record, after, diff } of changes) {
    const written = target.update(txn, record, after);
    catalog.observer.onUpdate(txn, target, record.doc, after, diff, written.bytes);
  }
  return { n: matched.length, nModified: changes.length, ...(first ?? {}) };
}

function upsert(
  txn: WriteTxn,
  catalog: Catalog,
  ns: Namespace,
  spec: UpdateSpec,
  now: Date,
): UpdateOutcome {
  const doc = prepareForInsert(spec.update.upsert(spec.filter, { now }).doc);
  insertOne(txn, catalog, ns, doc, spec.validation);
  return { n: 1, nModified: 0, upsertedId: getOwn(doc, '_id'), after: doc };
}

function checkIdUnchanged(before: BsonDocument, after: BsonDocument): void {
  const a = getOwn(before, '_id');
  const b = getOwn(after, '_id');
  if (b === undefined || compareBson(a, b) !== 0) {
    throw new CommandError(
      ErrorCode.ImmutableField,
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
  checkIdValue(b);
}

/** Delete the selected documents; returns them. */
export function executeDelete(
  txn: WriteTxn,
  catalog: Catalog,
  ns: Namespace,
  spec: {
    filter: BsonDocument;
    matcher: DocumentFilter | undefined;
    limit: number;
    sort?: RowComparator | undefined;
    hint?: BsonValue | undefined;
    collator?: Collator | undefined;
  },
): BsonDocument[] {
  const coll = writableCollection(txn, catalog, ns);
  if (coll === undefined) return [];
  const matched = selectRecords(txn, coll, spec.filter, spec.matcher, {
    ...(spec.limit > 0 ? { limit: spec.limit } : {}),
    ...(spec.sort ? { sort: spec.sort } : {}),
    hint: spec.hint,
    collator: spec.collator,
  });
  for (const { record } of matched) {
    coll.remove(txn, record);
    catalog.observer.onDelete(txn, coll, record.doc);
  }
  return matched.map((m) => m.record.doc);
}
