// Time-series collections, as mongod 7.0 lays them out: the user's namespace `db.x` is a view
// (its system.views document is `{viewOn: "system.buckets.x", pipeline:
// [{$_internalUnpackBucket: {timeField, metaField?, bucketMaxSpanSeconds}}]}`), and the
// measurements live in the collection `db.system.buckets.x`, whose options carry
// `timeseries`. Each bucket document groups the measurements of one meta value within one
// time span:
//
//   {_id: ObjectId(<rounded min time>...), control: {version: 1, min: {...}, max: {...}},
//    meta: <metaField value>, data: {<field>: {"0": v0, "1": v1, ...}, ...}}
//
// Buckets are uncompressed (control.version 1; mongod 7.0 compresses closed buckets to
// version 2). control.min/max hold, per field, the least and greatest value of the bucket's
// measurements in BSON order (mongod recurses into sub-documents and arrays; here a whole
// value is compared) and the time field's minimum is rounded down to bucketRoundingSeconds.
// This module is pure: building, extending and unpacking buckets.

import { Int32, ObjectId } from 'bson';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isPlainDocument, numericValue } from '../bson/types.js';
import { getOwn, hasOwn, setOwn } from '../bson/document.js';
import { compareBson } from '../bson/compare.js';
import { limits } from '../limits.js';
import type { Collection } from './collection.js';

export const bucketsPrefix = 'system.buckets.';

export type Granularity = 'seconds' | 'minutes' | 'hours';

/** A time-series collection's options with the defaults filled in. */
export interface TimeseriesOptions {
  readonly timeField: string;
  readonly metaField?: string | undefined;
  /** Absent when custom bucketing (bucketMaxSpanSeconds = bucketRoundingSeconds) was asked. */
  readonly granularity?: Granularity | undefined;
  readonly bucketMaxSpanSeconds: number;
  readonly bucketRoundingSeconds: number;
}

/** mongod's getMaxSpanSecondsFromGranularity. */
export function maxSpanSecondsOf(g: Granularity): number {
  return g === 'seconds' ? 3600 : g === 'minutes' ? 86400 : 86400 * 30;
}

/** mongod's getBucketRoundingSecondsFromGranularity. */
export function roundingSecondsOf(g: Granularity): number {
  return g === 'seconds' ? 60 : g === 'minutes' ? 3600 : 86400;
}

export function bucketsNameOf(name: string): string {
  return bucketsPrefix + name;
}

/** The options as stored and listed (mongod's TimeseriesOptions field order). */
export function timeseriesOptionsDocument(o: TimeseriesOptions): BsonDocument {
  const out: BsonDocument = { timeField: o.timeField };
  if (o.metaField !== undefined) out['metaField'] = o.metaField;
  if (o.granularity !== undefined) out['granularity'] = o.granularity;
  else out['bucketRoundingSeconds'] = new Int32(o.bucketRoundingSeconds);
  out['bucketMaxSpanSeconds'] = new Int32(o.bucketMaxSpanSeconds);
  return out;
}

/** The stored options of a buckets collection; undefined for any other collection. */
export function timeseriesOptionsOf(coll: Collection): TimeseriesOptions | undefined {
  const ts = getOwn(coll.meta.options, 'timeseries');
  if (!isPlainDocument(ts)) return undefined;
  const timeField = getOwn(ts, 'timeField');
  if (typeof timeField !== 'string') return undefined;
  const metaField = getOwn(ts, 'metaField');
  const g = getOwn(ts, 'granularity');
  const granularity = g === 'seconds' || g === 'minutes' || g === 'hours' ? g : undefined;
  const span = numericValue(getOwn(ts, 'bucketMaxSpanSeconds'));
  const rounding = numericValue(getOwn(ts, 'bucketRoundingSeconds'));
  return {
    timeField,
    metaField: typeof metaField === 'string' ? metaField : undefined,
    granularity,
    bucketMaxSpanSeconds: span ?? maxSpanSecondsOf(granularity ?? 'seconds'),
    bucketRoundingSeconds: rounding ?? roundingSecondsOf(granularity ?? 'seconds'),
  };
}

/** The view's pipeline (mongod's generateViewPipeline). */
export function unpackStageSpec(o: TimeseriesOptions): BsonDocument {
  const spec: BsonDocument = { timeField: o.timeField };
  if (o.metaField !== undefined) spec['metaField'] = o.metaField;
  spec['bucketMaxSpanSeconds'] = new Int32(o.bucketMaxSpanSeconds);
  return { $_internalUnpackBucket: spec };
}

/** The time rounded down to a multiple of `seconds` (towards -infinity, as mongod). */
export function roundDown(ms: number, seconds: number): number {
  const unit = seconds * 1000;
  return Math.floor(ms / unit) * unit;
}

/** The ObjectId a bucket starting at `minMs` gets: its time part is the rounded start. */
export function bucketIdFor(minMs: number): ObjectId {
  const id = new ObjectId();
  const bytes = Buffer.from(id.id);
  bytes.writeUInt32BE(Math.floor(minMs / 1000) >>> 0, 0);
  return new ObjectId(bytes);
}

/** The least ObjectId (or, with `last`, the greatest) whose time part is `ms`'s second. */
export function idBound(ms: number, last: boolean): ObjectId {
  const bytes = Buffer.alloc(12, last ? 0xff : 0);
  bytes.writeUInt32BE(Math.max(0, Math.min(0xffffffff, Math.floor(ms / 1000))), 0);
  return new ObjectId(bytes);
}

/** A measurement split into its meta value (undefined when absent) and the rest. */
export function splitMeta(
  o: TimeseriesOptions,
  m: BsonDocument,
): { meta: BsonValue | undefined; rest: BsonDocument } {
  if (o.metaField === undefined || !hasOwn(m, o.metaField)) return { meta: undefined, rest: m };
  const rest: BsonDocument = {};
  for (const k of Object.keys(m)) if (k !== o.metaField) setOwn(rest, k, m[k] as BsonValue);
  return { meta: getOwn(m, o.metaField), rest };
}

function docOf(v: BsonValue | undefined): BsonDocument {
  return isPlainDocument(v) ? v : {};
}

/** How many measurements a bucket holds (entries of its time column). */
export function measurementCount(o: TimeseriesOptions, bucket: BsonDocument): number {
  return Object.keys(docOf(getOwn(docOf(getOwn(bucket, 'data')), o.timeField))).length;
}

/** The bucket's time bounds: control.min (rounded) and control.max of the time field. */
export function bucketTimes(
  o: TimeseriesOptions,
  bucket: BsonDocument,
): { min: number; max: number } | undefined {
  const control = docOf(getOwn(bucket, 'control'));
  const min = getOwn(docOf(getOwn(control, 'min')), o.timeField);
  const max = getOwn(docOf(getOwn(control, 'max')), o.timeField);
  if (!(min instanceof Date) || !(max instanceof Date)) return undefined;
  return { min: min.getTime(), max: max.getTime() };
}

/** Whether the measurement (time `ms`, meta) may go into `bucket` of `sizeBytes`. */
export function bucketAccepts(
  o: TimeseriesOptions,
  bucket: BsonDocument,
  sizeBytes: number,
  meta: BsonValue | undefined,
  ms: number,
  measurementBytes: number,
): boolean {
  const bucketMeta = getOwn(bucket, 'meta');
  if ((bucketMeta === undefined) !== (meta === undefined)) return false;
  if (bucketMeta !== undefined && meta !== undefined && !sameValue(bucketMeta, meta)) return false;
  const times = bucketTimes(o, bucket);
  if (times === undefined) return false;
  if (ms < times.min || ms >= times.min + o.bucketMaxSpanSeconds * 1000) return false;
  if (measurementCount(o, bucket) >= limits.timeseriesBucketMeasurementsMax) return false;
  return sizeBytes + measurementBytes <= limits.timeseriesBucketSizeBytesMax;
}

/** Same BSON value, field order included (mongod compares bucket meta values the same way). */
function sameValue(a: BsonValue, b: BsonValue): boolean {
  if (compareBson(a, b) !== 0) return false;
  if (isPlainDocument(a) && isPlainDocument(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
  }
  return true;
}

/** A new bucket holding the measurements (none of which carries the meta field). */
export function buildBucket(
  o: TimeseriesOptions,
  id: ObjectId,
  meta: BsonValue | undefined,
  measurements: readonly BsonDocument[],
): BsonDocument {
  let bucket: BsonDocument = {
    _id: id,
    control: { version: new Int32(1), min: {}, max: {} },
    ...(meta === undefined ? {} : { meta }),
    data: {},
  };
  for (const m of measurements) bucket = withMeasurement(o, bucket, m);
  return bucket;
}

/** A bucket's columns and per-field bounds, updated in place as measurements are added. */
export interface BucketColumns {
  readonly min: BsonDocument;
  readonly max: BsonDocument;
  readonly data: BsonDocument;
}

/**
 * Adds measurement number `n` (its meta field already removed) to the columns: one entry per
 * field in `data`, and control.min / control.max widened (the time field's minimum rounded
 * down to bucketRoundingSeconds). Each column must be a document of its own (not shared with
 * a stored bucket): it is written to.
 */
export function appendMeasurement(
  o: TimeseriesOptions,
  columns: BucketColumns,
  n: number,
  m: BsonDocument,
): void {
  const { min, max, data } = columns;
  const index = String(n);
  for (const k of Object.keys(m)) {
    const v = m[k] as BsonValue;
    let column = getOwn(data, k);
    if (!isPlainDocument(column)) {
      column = {};
      setOwn(data, k, column);
    }
    setOwn(column, index, v);
    let low = v;
    if (k === o.timeField && v instanceof Date)
      low = new Date(roundDown(v.getTime(), o.bucketRoundingSeconds));
    const curMin = getOwn(min, k);
    if (curMin === undefined || compareBson(low, curMin) < 0) setOwn(min, k, low);
    const curMax = getOwn(max, k);
    if (curMax === undefined || compareBson(v, curMax) > 0) setOwn(max, k, v);
  }
}

/** Copies of a bucket's columns and bounds that appendMeasurement may write to. */
export function columnsOf(bucket: BsonDocument): BucketColumns {
  const control = docOf(getOwn(bucket, 'control'));
  const data: BsonDocument = {};
  const stored = docOf(getOwn(bucket, 'data'));
  for (const k of Object.keys(stored)) setOwn(data, k, { ...docOf(getOwn(stored, k)) });
  return {
    min: { ...docOf(getOwn(control, 'min')) },
    max: { ...docOf(getOwn(control, 'max')) },
    data,
  };
}

/**
 * `bucket` with its control.min / control.max and data replaced by `columns`, every other
 * field (and the order of all fields) as it was.
 */
export function withColumns(bucket: BsonDocument, columns: BucketColumns): BsonDocument {
  const control = docOf(getOwn(bucket, 'control'));
  const out: BsonDocument = {};
  for (const k of Object.keys(bucket)) {
    if (k === 'control') setOwn(out, k, { ...control, min: columns.min, max: columns.max });
    else if (k === 'data') setOwn(out, k, columns.data);
    else setOwn(out, k, bucket[k] as BsonValue);
  }
  return out;
}

/** A copy of `bucket` with one more measurement (its meta field already removed). */
export function withMeasurement(
  o: TimeseriesOptions,
  bucket: BsonDocument,
  m: BsonDocument,
): BsonDocument {
  const columns = columnsOf(bucket);
  appendMeasurement(o, columns, measurementCount(o, bucket), m);
  return withColumns(bucket, columns);
}

/**
 * The measurements of a bucket as the view shows them: the time field first, then the meta
 * field, then the other fields in the order their columns were added.
 */
export function unpackBucket(o: TimeseriesOptions, bucket: BsonDocument): BsonDocument[] {
  const data = docOf(getOwn(bucket, 'data'));
  const timeColumn = docOf(getOwn(data, o.timeField));
  const meta = getOwn(bucket, 'meta');
  const columns = Object.keys(data)
    .filter((k) => k !== o.timeField)
    .map((k) => [k, docOf(getOwn(data, k))] as const);
  const out: BsonDocument[] = [];
  for (const i of Object.keys(timeColumn)) {
    const doc: BsonDocument = {};
    setOwn(doc, o.timeField, timeColumn[i] as BsonValue);
    if (o.metaField !== undefined && meta !== undefined) setOwn(doc, o.metaField, meta);
    for (const [k, column] of columns) {
      const v = getOwn(column, i);
      if (v !== undefined) setOwn(doc, k, v);
    }
    out.push(doc);
  }
  return out;
}

/** The measurements of a bucket in stored form (without the meta field), in column order. */
export function storedMeasurements(o: TimeseriesOptions, bucket: BsonDocument): BsonDocument[] {
  const data = docOf(getOwn(bucket, 'data'));
  const timeColumn = docOf(getOwn(data, o.timeField));
  const columns = Object.keys(data).map((k) => [k, docOf(getOwn(data, k))] as const);
  return Object.keys(timeColumn).map((i) => {
    const doc: BsonDocument = {};
    for (const [k, column] of columns) {
      const v = getOwn(column, i);
      if (v !== undefined) setOwn(doc, k, v);
    }
    return doc;
  });
}

const bucketSchemas = new Map<string, BsonDocument>();

/**
 * The validator mongod 7.0 gives a buckets collection, as a `$jsonSchema` over its bucket
 * documents: an ObjectId `_id`, a `control` with a numeric `version` and `min` / `max`
 * documents whose time field is a date (optionally `closed` and a positive `count`), a `data`
 * document, an optional `meta`, and nothing else. Direct inserts into the buckets (what
 * mongorestore sends) are checked against it. One document per time field, so that the
 * compiled validator can be cached by identity.
 */
export function bucketSchemaValidator(timeField: string): BsonDocument {
  const known = bucketSchemas.get(timeField);
  if (known !== undefined) return known;
  const bound = (): BsonDocument => ({
    bsonType: 'object',
    required: [timeField],
    properties: { [timeField]: { bsonType: 'date' } },
  });
  const v: BsonDocument = {
    $jsonSchema: {
      bsonType: 'object',
      required: ['_id', 'control', 'data'],
      properties: {
        _id: { bsonType: 'objectId' },
        control: {
          bsonType: 'object',
          required: ['version', 'min', 'max'],
          properties: {
            version: { bsonType: 'number' },
            min: bound(),
            max: bound(),
            closed: { bsonType: 'bool' },
            count: { bsonType: 'number', minimum: new Int32(1) },
          },
          additionalProperties: false,
        },
        data: { bsonType: 'object' },
        meta: {},
      },
      additionalProperties: false,
    },
  };
  if (bucketSchemas.size < 64) bucketSchemas.set(timeField, v);
  return v;
}

/** The bucket's control.version (1: uncompressed; 2: compressed columns), if a number. */
export function bucketVersion(bucket: BsonDocument): number | undefined {
  return numericValue(getOwn(docOf(getOwn(bucket, 'control')), 'version'));
}
