// create with `timeseries` (mongod 7.0's TimeseriesOptions IDL, validateAndSetBucketingParameters
// and the create command's checks): the options validated and defaulted, the buckets
// collection and the view created together; what listCollections shows of them.

import type { Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { Collection } from '../../catalog/collection.js';
import {
  bucketsNameOf,
  bucketsPrefix,
  maxSpanSecondsOf,
  roundingSecondsOf,
  timeseriesOptionsDocument,
  timeseriesOptionsOf,
  unpackStageSpec,
} from '../../catalog/timeseries.js';
import type { Granularity, TimeseriesOptions } from '../../catalog/timeseries.js';
import { lookupView, storeView } from '../../catalog/views.js';
import type { ViewDefinition } from '../../catalog/views.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import type { ReadView, WriteTxn } from '../../storage/engine.js';
import { typeNameOf } from '../args.js';

const optionFields = new Set([
  'timeField',
  'metaField',
  'granularity',
  'bucketMaxSpanSeconds',
  'bucketRoundingSeconds',
]);

/** create options mongod refuses beside `timeseries`. */
const incompatible = [
  'capped',
  'size',
  'max',
  'autoIndexId',
  'idIndex',
  'validator',
  'validationLevel',
  'validationAction',
  'viewOn',
  'pipeline',
  'clusteredIndex',
  'changeStreamPreAndPostImages',
  'encryptedFields',
];

function wrongType(field: string, v: BsonValue, expected: string): CommandError {
  return new CommandError(
    ErrorCode.TypeMismatch,
    `BSON field 'timeseries.${field}' is the wrong type '${typeNameOf(v)}', expected type '${expected}'`,
  );
}

function fieldName(field: 'timeField' | 'metaField', v: BsonValue): string {
  if (typeof v !== 'string') throw wrongType(field, v, 'string');
  if (v.length === 0)
    throw new CommandError(ErrorCode.InvalidOptions, `The '${field}' cannot be an empty string`);
  if (v.includes('.'))
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `The '${field}' field cannot contain embedded '.'`,
    );
  if (v.startsWith('$'))
    throw new CommandError(ErrorCode.BadValue, `The '${field}' field cannot start with '$'`);
  return v;
}

function seconds(field: string, v: BsonValue): number {
  const n = numericValue(v);
  if (n === undefined) throw wrongType(field, v, 'int');
  if (!Number.isInteger(n))
    throw new CommandError(
      ErrorCode.BadValue,
      `BSON field 'timeseries.${field}' must be an integer, actual value '${n}'`,
    );
  if (n < 1)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'timeseries.${field}' value must be >= 1, actual value '${n}'`,
    );
  if (n > limits.timeseriesBucketSpanSecondsMax)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'timeseries.${field}' value must be <= ${limits.timeseriesBucketSpanSecondsMax}, actual value '${n}'`,
    );
  return n;
}

/** create's `timeseries` document validated, the bucketing defaults filled in as mongod does. */
export function parseTimeseriesOptions(spec: BsonValue): TimeseriesOptions {
  if (!isPlainDocument(spec))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'create.timeseries' is the wrong type '${typeNameOf(spec)}', expected type 'object'`,
    );
  for (const k of Object.keys(spec))
    if (!optionFields.has(k))
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'timeseries.${k}' is an unknown field.`,
      );
  const rawTime = getOwn(spec, 'timeField');
  if (rawTime === undefined) throw missingFieldError('timeseries.timeField');
  const timeField = fieldName('timeField', rawTime);
  const rawMeta = getOwn(spec, 'metaField');
  const metaField = rawMeta === undefined ? undefined : fieldName('metaField', rawMeta);
  if (metaField === timeField)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "The 'metaField' cannot be the same as the 'timeField'",
    );
  if (metaField === '_id')
    throw new CommandError(ErrorCode.InvalidOptions, "The 'metaField' cannot be '_id'");
  const rawGranularity = getOwn(spec, 'granularity');
  let granularity: Granularity | undefined;
  if (rawGranularity !== undefined) {
    if (typeof rawGranularity !== 'string')
      throw wrongType('granularity', rawGranularity, 'string');
    if (rawGranularity !== 'seconds' && rawGranularity !== 'minutes' && rawGranularity !== 'hours')
      throw new CommandError(
        ErrorCode.BadValue,
        `Enumeration value '${rawGranularity}' for field 'timeseries.granularity' is not a valid value.`,
      );
    granularity = rawGranularity;
  }
  const rawSpan = getOwn(spec, 'bucketMaxSpanSeconds');
  const rawRounding = getOwn(spec, 'bucketRoundingSeconds');
  const span = rawSpan === undefined ? undefined : seconds('bucketMaxSpanSeconds', rawSpan);
  const rounding =
    rawRounding === undefined ? undefined : seconds('bucketRoundingSeconds', rawRounding);
  if (granularity !== undefined || (span === undefined && rounding === undefined)) {
    const g = granularity ?? 'seconds';
    if (span !== undefined && span !== maxSpanSecondsOf(g))
      throw new CommandError(
        ErrorCode.InvalidOptions,
        `Time-series 'bucketMaxSpanSeconds' cannot be set to a value other than the default of ${maxSpanSecondsOf(g)} for the provided granularity`,
      );
    if (rounding !== undefined)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        "Time-series 'bucketRoundingSeconds' cannot be set alongside the granularity parameter",
      );
    return {
      timeField,
      metaField,
      granularity: g,
      bucketMaxSpanSeconds: maxSpanSecondsOf(g),
      bucketRoundingSeconds: roundingSecondsOf(g),
    };
  }
  if (span !== rounding || span === undefined)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "Time-series 'bucketRoundingSeconds' must be equal to 'bucketMaxSpanSeconds'",
    );
  return { timeField, metaField, bucketMaxSpanSeconds: span, bucketRoundingSeconds: span };
}

/** Refuses the create options mongod does not allow with `timeseries`, and a transaction. */
export function checkTimeseriesCreate(
  db: string,
  name: string,
  body: BsonDocument,
  inTransaction: boolean,
): void {
  for (const k of incompatible) {
    const v = getOwn(body, k);
    if (v === undefined || (k === 'capped' && v === false)) continue;
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `${db}.${name}: 'timeseries' is not allowed with '${k}'`,
    );
  }
  if (name.startsWith(bucketsPrefix))
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `Invalid collection name for a time-series collection: ${name}`,
    );
  if (inTransaction)
    throw new CommandError(
      ErrorCode.OperationNotSupportedInTransaction,
      'Cannot create a time-series collection in a multi-document transaction.',
    );
}

/** Whether `coll` is the buckets collection of a time-series collection. */
export function isBucketsCollection(coll: Collection): boolean {
  return coll.meta.name.startsWith(bucketsPrefix) && timeseriesOptionsOf(coll) !== undefined;
}

/** The buckets collection behind the view `view`, if the view is a time-series collection. */
export function bucketsBehind(catalog: Catalog, def: ViewDefinition): Collection | undefined {
  if (def.viewOn !== bucketsNameOf(def.name)) return undefined;
  const coll = catalog.get(def.db, def.viewOn);
  return coll !== undefined && isBucketsCollection(coll) ? coll : undefined;
}

function sameDocument(a: BsonValue | undefined, b: BsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Within a write transaction: creates the buckets collection and the view. Creating it again
 * with the same options succeeds; anything else by that name is NamespaceExists.
 */
export function createTimeseriesIn(
  txn: WriteTxn,
  catalog: Catalog,
  def: {
    readonly db: string;
    readonly name: string;
    readonly options: TimeseriesOptions;
    readonly expireAfterSeconds: Long | undefined;
    readonly collation: BsonDocument | undefined;
  },
): void {
  const { db, name } = def;
  const stored = timeseriesOptionsDocument(def.options);
  const bucketsName = bucketsNameOf(name);
  const bucketOptions: BsonDocument = {
    ...(def.collation === undefined ? {} : { collation: def.collation }),
    clusteredIndex: true,
    timeseries: stored,
    ...(def.expireAfterSeconds === undefined ? {} : { expireAfterSeconds: def.expireAfterSeconds }),
  };
  const view = lookupView(catalog, txn, db, name);
  const existing = catalog.get(db, bucketsName);
  if (view !== undefined || catalog.get(db, name) !== undefined || existing !== undefined) {
    if (
      view !== undefined &&
      existing !== undefined &&
      view.viewOn === bucketsName &&
      sameDocument(existing.meta.options, bucketOptions)
    )
      return;
    throw new CommandError(
      ErrorCode.NamespaceExists,
      view === undefined && catalog.get(db, name) !== undefined
        ? `Collection ${db}.${name} already exists.`
        : `A timeseries collection or view already exists with the name ${db}.${name}`,
    );
  }
  catalog.create(txn, db, bucketsName, { options: bucketOptions });
  storeView(catalog, txn, {
    db,
    name,
    viewOn: bucketsName,
    pipeline: [unpackStageSpec(def.options)],
    ...(def.collation === undefined ? {} : { collation: def.collation }),
  });
}

/** listCollections' entry for a time-series collection (mongod: type "timeseries"). */
export function timeseriesInfo(name: string, buckets: Collection): BsonDocument {
  const o = buckets.meta.options;
  const options: BsonDocument = {};
  const collation = getOwn(o, 'collation');
  if (collation !== undefined) options['collation'] = collation;
  options['timeseries'] = getOwn(o, 'timeseries') ?? {};
  const ttl = getOwn(o, 'expireAfterSeconds');
  if (ttl !== undefined) options['expireAfterSeconds'] = ttl;
  return { name, type: 'timeseries', options, info: { readOnly: false } };
}

/** Whether `name` in `db` is a time-series collection as `view` sees it. */
export function isTimeseries(catalog: Catalog, view: ReadView, db: string, name: string): boolean {
  const def = lookupView(catalog, view, db, name);
  return def !== undefined && bucketsBehind(catalog, def) !== undefined;
}

// ---- indexes on a time-series collection (mongod's createBucketsIndexSpecFromTimeseriesIndexSpec) ----

function indexNotSupported(what: string): CommandError {
  return new CommandError(
    ErrorCode.NotImplemented,
    `${what} on a time-series collection is not supported yet (indexes on the metaField and the timeField are)`,
  );
}

/** A key pattern on measurements as the key pattern on buckets it stands for. */
export function bucketsIndexKey(o: TimeseriesOptions, key: BsonValue): BsonDocument {
  if (!isPlainDocument(key)) throw indexNotSupported('This index key');
  const out: BsonDocument = {};
  for (const path of Object.keys(key)) {
    const v = key[path] as BsonValue;
    if (o.metaField !== undefined && (path === o.metaField || path.startsWith(`${o.metaField}.`))) {
      out[`meta${path.slice(o.metaField.length)}`] = v;
      continue;
    }
    const dir = numericValue(v);
    if (path !== o.timeField || (dir !== 1 && dir !== -1))
      throw indexNotSupported(`An index on '${path}': ${JSON.stringify(v)}`);
    const [first, second] = dir === 1 ? ['min', 'max'] : ['max', 'min'];
    out[`control.${first}.${o.timeField}`] = v;
    out[`control.${second}.${o.timeField}`] = v;
  }
  return out;
}

/** The key pattern on measurements a buckets index stands for; undefined for internal ones. */
export function measurementsIndexKey(
  o: TimeseriesOptions,
  key: BsonDocument,
): BsonDocument | undefined {
  const out: BsonDocument = {};
  const paths = Object.keys(key);
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i] as string;
    if (o.metaField !== undefined && (path === 'meta' || path.startsWith('meta.'))) {
      out[`${o.metaField}${path.slice(4)}`] = key[path] as BsonValue;
    } else if (path === `control.min.${o.timeField}` || path === `control.max.${o.timeField}`) {
      out[o.timeField] = key[path] as BsonValue;
      i++; // its partner (control.max after control.min, or the reverse)
    } else return undefined;
  }
  return out;
}

/** createIndexes' spec on the view as the spec built on the buckets (name: the user's). */
export function bucketsIndexSpec(
  o: TimeseriesOptions,
  spec: BsonValue,
  name: BsonValue,
): BsonDocument {
  if (!isPlainDocument(spec)) throw indexNotSupported('This index specification');
  for (const k of Object.keys(spec))
    if (k !== 'key' && k !== 'name' && k !== 'v')
      throw indexNotSupported(`The index option '${k}'`);
  return { key: bucketsIndexKey(o, getOwn(spec, 'key')), name };
}

/** listIndexes on the view: the buckets' indexes as measurements' indexes. */
export function listedTimeseriesIndexes(o: TimeseriesOptions, buckets: Collection): BsonDocument[] {
  const out: BsonDocument[] = [];
  for (const i of buckets.meta.indexes) {
    if (i.name === '_id_') continue;
    const key = measurementsIndexKey(o, i.key);
    if (key !== undefined) out.push({ ...i.spec, key });
  }
  return out;
}
