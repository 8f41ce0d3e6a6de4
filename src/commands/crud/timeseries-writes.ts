// Writes on a time-series collection (src/catalog/timeseries.ts has the layout), within
// mongod 7.0.0's rules:
// - insert: each measurement needs a date in the time field (BadValue otherwise); it joins
//   the open bucket of its meta value whose span covers its time, else a new bucket;
// - delete: any filter (7.0 allows arbitrary deletes): the buckets that may hold a match are
//   read, their matching measurements removed, a bucket left empty is deleted;
// - update: only multi: true, no upsert, a filter on the meta field only and modifiers that
//   change the meta field only (7.0's meta updates; arbitrary updates came with 7.1), run on
//   the buckets' `meta`; otherwise InvalidOptions (72), as mongod 7.0;
// - none of these in a multi-document transaction (OperationNotSupportedInTransaction).
// Everything goes through the write unit on the buckets collection.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument, numericValue } from '../../bson/types.js';
import { bsonSize, encodeDocument } from '../../bson/codec.js';
import { getOwn, setOwn } from '../../bson/document.js';
import type { Collection } from '../../catalog/collection.js';
import {
  bucketAccepts,
  bucketIdFor,
  bucketSchemaValidator,
  bucketsPrefix,
  bucketVersion,
  bucketsNameOf,
  buildBucket,
  idBound,
  roundDown,
  splitMeta,
  storedMeasurements,
  timeseriesOptionsOf,
  unpackBucket,
  appendMeasurement,
  bucketTimes,
  columnsOf,
  measurementCount,
  withColumns,
} from '../../catalog/timeseries.js';
import type { BucketColumns, TimeseriesOptions } from '../../catalog/timeseries.js';
import type { StoredRecord } from '../../catalog/collection.js';
import { limits } from '../../limits.js';
import { ObjectId } from 'bson';
import { deleteDocument, insertDocument, updateDocument } from '../../catalog/write-unit.js';
import type { Namespace, WriteContext } from '../../catalog/write-unit.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { compileQueryFilter } from '../query-language.js';
import { selectRecords } from '../../query/exec/select-records.js';
import type { MatchedRecord, RecordSelection } from '../../query/exec/select-records.js';
import type { DocumentFilter } from '../../query/exec/stages.js';
import type { Collator } from '../../bson/collation.js';
import type { OperationContext, ServerServices } from '../context.js';
import { viewOf } from './target.js';
import { fixedValidatorFailure } from './document-validation.js';
import { runSlicedWrite } from './write-exec.js';
import { bucketPredicates } from '../../pipeline/stages/unpack-bucket.js';

/** A time-series collection named by a write: its buckets namespace and options. */
export interface TimeseriesTarget {
  readonly view: Namespace;
  readonly buckets: Namespace;
  readonly options: TimeseriesOptions;
}

/** The time-series collection `db.name`, if it is one (its view over system.buckets.name). */
export function timeseriesTargetOf(
  services: ServerServices,
  op: OperationContext,
  db: string,
  name: string,
): TimeseriesTarget | undefined {
  const bucketsName = bucketsNameOf(name);
  const coll = services.catalog.get(db, bucketsName);
  if (coll === undefined) return undefined;
  const options = timeseriesOptionsOf(coll);
  if (options === undefined || viewOf(services, op, db, name)?.viewOn !== bucketsName)
    return undefined;
  return { view: { db, name }, buckets: { db, name: bucketsName }, options };
}

/**
 * The time-series collection whose buckets collection is `db.name` (a direct insert of bucket
 * documents, as mongorestore sends them), if `name` is one.
 */
export function bucketsTargetOf(
  services: ServerServices,
  op: OperationContext,
  db: string,
  name: string,
): TimeseriesTarget | undefined {
  if (!name.startsWith(bucketsPrefix)) return undefined;
  return timeseriesTargetOf(services, op, db, name.slice(bucketsPrefix.length));
}

/**
 * Inserts a whole bucket document into the buckets collection, as mongod does for a direct
 * insert: checked against the buckets' schema (DocumentValidationFailure, unless the command
 * bypasses validation). Compressed buckets (control.version 2, columns as BSONColumn binary)
 * are refused: this server reads uncompressed buckets only, and a bucket it could not unpack
 * must not be stored.
 */
export function insertBucket(
  w: WriteContext,
  target: TimeseriesTarget,
  raw: BsonDocument,
  sourceBytes: Uint8Array | undefined,
): void {
  if (!w.bypassDocumentValidation) {
    const failure = fixedValidatorFailure(bucketSchemaValidator(target.options.timeField), raw);
    if (failure !== undefined) throw failure;
  }
  const version = bucketVersion(raw);
  if (version !== 1)
    throw new CommandError(
      ErrorCode.NotImplemented,
      `Time-series bucket of control.version ${String(version)} in ${target.buckets.db}.${target.buckets.name}: only uncompressed buckets (control.version 1) are supported`,
    );
  insertDocument(w, target.buckets, raw, sourceBytes);
}

/** Writes on a time-series collection are refused in a multi-document transaction. */
export function refuseTimeseriesWriteInTransaction(
  op: OperationContext,
  target: TimeseriesTarget,
  verb: string,
): void {
  if (op.access.transaction !== undefined)
    throw new CommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      `Cannot ${verb} a time-series collection in a multi-document transaction: ${target.view.db}.${target.view.name}`,
    );
}

function bucketsOf(w: WriteContext, target: TimeseriesTarget): Collection {
  const coll = w.catalog.get(target.buckets.db, target.buckets.name);
  if (coll === undefined)
    throw new CommandError(
      ErrorCode.NamespaceNotFound,
      `Time-series buckets collection ${target.buckets.db}.${target.buckets.name} does not exist`,
    );
  return coll;
}

/** A bucket the measurements of one batch go into: a stored one being extended, or a new one. */
interface OpenBucket {
  /** The stored version this batch replaces; undefined for a bucket new in this batch. */
  readonly record: StoredRecord | undefined;
  /** The bucket's fields other than its columns (the stored document, or the new skeleton). */
  readonly base: BsonDocument;
  readonly columns: BucketColumns;
  /** control.min of the time field (the rounded start): the span runs from it. */
  readonly startMs: number;
  count: number;
  /** The stored size plus the measurements added since (mongod's estimate, too). */
  sizeBytes: number;
  /** The statement that added the last measurement: the bucket write is logged under it. */
  w: WriteContext;
  dirty: boolean;
}

/**
 * The measurements of one chunk of an insert command grouped into buckets, as mongod's
 * bucket catalog groups a batch: by meta value and time span, within the count and size
 * limits. Each measurement is checked and placed when its statement runs (so a bad one fails
 * its own statement and leaves the others); the buckets it touched are written once, by
 * flush(), in the same write transaction, before the chunk commits. A bucket already stored
 * is read once per chunk and then extended in memory.
 */
export class MeasurementBatch {
  private readonly byMeta = new Map<string, OpenBucket[]>();
  private readonly byId = new Map<string, OpenBucket>();

  constructor(private readonly target: TimeseriesTarget) {}

  /** Forgets everything placed so far (a chunk that starts, or starts again). */
  begin(): void {
    this.byMeta.clear();
    this.byId.clear();
  }

  /** Places one measurement; throws its statement's error without changing anything. */
  add(w: WriteContext, raw: BsonDocument): void {
    const o = this.target.options;
    const time = getOwn(raw, o.timeField);
    if (!(time instanceof Date))
      throw new CommandError(
        ErrorCode.BadValue,
        `'${o.timeField}' must be present and contain a valid BSON UTC datetime value`,
      );
    // The measurement keeps its _id (a new ObjectId when it has none, appended as mongod does).
    const doc: BsonDocument = { ...raw };
    if (getOwn(doc, '_id') === undefined) setOwn(doc, '_id', bucketIdFor(Date.now()));
    const { meta, rest } = splitMeta(o, doc);
    const ms = time.getTime();
    const bytes = bsonSize(rest);
    const start = roundDown(ms, o.bucketRoundingSeconds);
    if (bytes > limits.timeseriesBucketSizeBytesMax) {
      // Too big to share a bucket: stored alone, now, so that a measurement past the document
      // size limit fails its own statement.
      insertDocument(w, this.target.buckets, buildBucket(o, bucketIdFor(start), meta, [rest]));
      return;
    }
    const key = metaKey(meta);
    let list = this.byMeta.get(key);
    if (list === undefined) {
      list = [];
      this.byMeta.set(key, list);
    }
    let bucket = list.find((b) => this.fits(b, ms, bytes));
    if (bucket === undefined) {
      bucket = this.stored(w, meta, ms, bytes) ?? this.fresh(w, meta, start);
      list.push(bucket);
      const id = getOwn(bucket.base, '_id');
      if (id instanceof ObjectId) this.byId.set(id.toHexString(), bucket);
    }
    appendMeasurement(o, bucket.columns, bucket.count, rest);
    bucket.count++;
    bucket.sizeBytes += bytes;
    bucket.w = w;
    bucket.dirty = true;
  }

  /** Writes every bucket the batch changed: an update of a stored one, or an insert. */
  flush(): void {
    for (const b of this.byId.values()) {
      if (!b.dirty) continue;
      const doc = withColumns(b.base, b.columns);
      if (b.record === undefined) insertDocument(b.w, this.target.buckets, doc);
      else updateDocument(b.w, bucketsOf(b.w, this.target), b.record, doc, undefined);
    }
    this.begin();
  }

  private fits(b: OpenBucket, ms: number, bytes: number): boolean {
    const o = this.target.options;
    return (
      ms >= b.startMs &&
      ms < b.startMs + o.bucketMaxSpanSeconds * 1000 &&
      b.count < limits.timeseriesBucketMeasurementsMax &&
      b.sizeBytes + bytes <= limits.timeseriesBucketSizeBytesMax
    );
  }

  /** A stored bucket that accepts the measurement, not already open in this batch. */
  private stored(
    w: WriteContext,
    meta: BsonValue | undefined,
    ms: number,
    bytes: number,
  ): OpenBucket | undefined {
    const o = this.target.options;
    const coll = bucketsOf(w, this.target);
    const filter: BsonDocument = {
      _id: { $gte: idBound(ms - o.bucketMaxSpanSeconds * 1000, false), $lte: idBound(ms, true) },
    };
    // The meta value narrows the candidates before they are decoded whole (the matcher reads
    // `_id` and `meta` only); bucketAccepts still decides.
    const onMeta = metaPredicate(meta);
    if (onMeta !== undefined) filter['meta'] = onMeta;
    for (const { record } of selectRecords(w.txn, coll, {
      filter,
      matcher: compileQueryFilter(filter),
    })) {
      const id = getOwn(record.doc, '_id');
      // A bucket open in this batch is newer than its stored version, and did not fit.
      if (!(id instanceof ObjectId) || this.byId.has(id.toHexString())) continue;
      const size = bsonSize(record.doc);
      if (!bucketAccepts(o, record.doc, size, meta, ms, bytes)) continue;
      const times = bucketTimes(o, record.doc);
      if (times === undefined) continue;
      return {
        record,
        base: record.doc,
        columns: columnsOf(record.doc),
        startMs: times.min,
        count: measurementCount(o, record.doc),
        sizeBytes: size,
        w,
        dirty: false,
      };
    }
    return undefined;
  }

  private fresh(w: WriteContext, meta: BsonValue | undefined, startMs: number): OpenBucket {
    const base = buildBucket(this.target.options, bucketIdFor(startMs), meta, []);
    return {
      record: undefined,
      base,
      columns: { min: {}, max: {}, data: {} },
      startMs,
      count: 0,
      sizeBytes: bsonSize(base),
      w,
      dirty: false,
    };
  }
}

/**
 * A filter on buckets' `meta` that every bucket of this meta value passes, for the values whose
 * `$eq` is plain equality (not arrays, whose $eq also matches elements; not regexes, nulls or
 * other odd types, left to bucketAccepts); undefined when there is none.
 */
function metaPredicate(meta: BsonValue | undefined): BsonDocument | undefined {
  if (meta === undefined) return { $exists: false };
  if (
    typeof meta === 'string' ||
    typeof meta === 'boolean' ||
    meta instanceof Date ||
    meta instanceof ObjectId ||
    numericValue(meta) !== undefined ||
    isPlainDocument(meta)
  )
    return { $eq: meta };
  return undefined;
}

/**
 * The key buckets of one meta value share in a batch: the value's BSON bytes (field order
 * included, as buckets compare meta values). A stored bucket whose meta value is equal but
 * encoded otherwise (1 and 1.0) is found through storage, as before.
 */
function metaKey(meta: BsonValue | undefined): string {
  if (meta === undefined) return '';
  return Buffer.from(encodeDocument({ m: meta })).toString('latin1');
}

/** Inserts one measurement: into an open bucket that accepts it, or a new one. */
export function insertMeasurement(
  w: WriteContext,
  target: TimeseriesTarget,
  raw: BsonDocument,
): void {
  const batch = new MeasurementBatch(target);
  batch.add(w, raw);
  batch.flush();
}

// ---- deletes -----------------------------------------------------------------------------------

export interface TimeseriesDelete {
  readonly filter: BsonDocument;
  readonly matcher: DocumentFilter | undefined;
  readonly collator: Collator | undefined;
  /** 1: the first matching measurement only; 0: all. */
  readonly limit: number;
}

/** The buckets that may hold a measurement the filter matches. */
function bucketSelection(o: TimeseriesOptions, spec: TimeseriesDelete): RecordSelection {
  const conjuncts = bucketPredicates(o, spec.filter);
  const filter: BsonDocument =
    conjuncts.length === 0
      ? {}
      : conjuncts.length === 1
        ? (conjuncts[0] as BsonDocument)
        : { $and: conjuncts };
  return {
    filter,
    matcher: compileQueryFilter(filter, { collator: spec.collator }),
    collator: spec.collator,
  };
}

/**
 * Removes the matching measurements of the given buckets (stopping after `budget` when it is
 * set); returns how many were removed.
 */
function deleteFromBuckets(
  w: WriteContext,
  coll: Collection,
  o: TimeseriesOptions,
  buckets: readonly MatchedRecord[],
  spec: TimeseriesDelete,
  budget: number | undefined,
): number {
  let removed = 0;
  for (const { record } of buckets) {
    if (budget !== undefined && removed >= budget) break;
    const shown = unpackBucket(o, record.doc);
    const stored = storedMeasurements(o, record.doc);
    const keep: BsonDocument[] = [];
    let gone = 0;
    shown.forEach((m, i) => {
      const hit =
        (budget === undefined || removed + gone < budget) &&
        (spec.matcher === undefined || spec.matcher.matches(m));
      if (hit) gone++;
      else keep.push(stored[i] as BsonDocument);
    });
    if (gone === 0) continue;
    removed += gone;
    if (keep.length === 0) deleteDocument(w, coll, record);
    else {
      const id = getOwn(record.doc, '_id');
      const rebuilt = buildBucket(
        o,
        id as ReturnType<typeof bucketIdFor>,
        getOwn(record.doc, 'meta'),
        keep,
      );
      updateDocument(w, coll, record, rebuilt, undefined);
    }
  }
  return removed;
}

/** A delete statement in the write transaction `w`: how many measurements it removed. */
export function deleteMeasurements(
  w: WriteContext,
  target: TimeseriesTarget,
  spec: TimeseriesDelete,
): number {
  const coll = bucketsOf(w, target);
  const buckets = selectRecords(w.txn, coll, bucketSelection(target.options, spec));
  return deleteFromBuckets(
    w,
    coll,
    target.options,
    buckets,
    spec,
    spec.limit === 1 ? 1 : undefined,
  );
}

/** deleteMany outside a transaction: the buckets rewritten in slices (runSlicedWrite). */
export async function slicedDeleteMeasurements(
  services: ServerServices,
  op: OperationContext,
  target: TimeseriesTarget,
  spec: TimeseriesDelete,
  options: { readonly durable: boolean },
): Promise<number> {
  let n = 0;
  await runSlicedWrite(
    services,
    op,
    target.buckets,
    bucketSelection(target.options, spec),
    (w, coll, batch) => {
      n += deleteFromBuckets(w, coll, target.options, batch, spec, undefined);
    },
    { ...options, bypassDocumentValidation: false },
  );
  return n;
}

// ---- updates -----------------------------------------------------------------------------------

function invalid(message: string): CommandError {
  return new CommandError(ErrorCode.InvalidOptions, message);
}

/** A path under the meta field renamed to the buckets' `meta`; undefined for any other path. */
function metaPath(o: TimeseriesOptions, path: string): string | undefined {
  if (o.metaField === undefined) return undefined;
  if (path === o.metaField) return 'meta';
  if (path.startsWith(`${o.metaField}.`)) return `meta${path.slice(o.metaField.length)}`;
  return undefined;
}

/** The filter on measurements' meta field as a filter on buckets; throws for other fields. */
function metaFilter(o: TimeseriesOptions, filter: BsonDocument): BsonDocument {
  const out: BsonDocument = {};
  for (const k of Object.keys(filter)) {
    const v = filter[k] as BsonValue;
    if ((k === '$and' || k === '$or' || k === '$nor') && isArray(v)) {
      setOwn(
        out,
        k,
        v.map((sub) => (isPlainDocument(sub) ? metaFilter(o, sub) : sub)),
      );
      continue;
    }
    const renamed = metaPath(o, k);
    if (renamed === undefined)
      throw invalid(
        `Cannot perform an update on a time-series collection using a query that includes fields other than the metaField '${o.metaField ?? ''}'`,
      );
    setOwn(out, renamed, v);
  }
  return out;
}

/** An update document touching only the meta field, rewritten for the buckets. */
function metaUpdate(o: TimeseriesOptions, u: BsonValue): BsonDocument {
  if (!isPlainDocument(u) || Object.keys(u).some((k) => !k.startsWith('$')))
    throw invalid(
      'Cannot perform an update on a time-series collection with a replacement document or a pipeline',
    );
  const out: BsonDocument = {};
  for (const op of Object.keys(u)) {
    const fields = u[op];
    if (!isPlainDocument(fields)) {
      setOwn(out, op, fields as BsonValue);
      continue;
    }
    const renamed: BsonDocument = {};
    for (const path of Object.keys(fields)) {
      const to = metaPath(o, path);
      let value = fields[path] as BsonValue;
      if (op === '$rename' && typeof value === 'string') {
        const target = metaPath(o, value);
        if (target === undefined) value = '';
        else value = target;
      }
      if (to === undefined || value === '')
        throw invalid(
          `Cannot perform an update on a time-series collection which updates a field that is not the metaField '${o.metaField ?? ''}'`,
        );
      setOwn(renamed, to, value);
    }
    setOwn(out, op, renamed);
  }
  return out;
}

/**
 * An update statement on a time-series collection as the statement on its buckets it
 * becomes; the refusal (InvalidOptions) when 7.0 does not allow it.
 */
export function bucketsUpdateStatement<
  S extends { q: BsonDocument; u: BsonValue; multi: boolean; upsert: boolean },
>(o: TimeseriesOptions, st: S): S | CommandError {
  try {
    if (o.metaField === undefined)
      throw invalid(
        'Cannot perform an update on a time-series collection that does not have a metaField',
      );
    if (!st.multi) throw invalid('Cannot perform a non-multi update on a time-series collection');
    if (st.upsert) throw invalid('Cannot perform an upsert on a time-series collection');
    return { ...st, q: metaFilter(o, st.q), u: metaUpdate(o, st.u) };
  } catch (e) {
    if (e instanceof CommandError) return e;
    throw e;
  }
}
