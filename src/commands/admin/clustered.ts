// Clustered collections' options (mongod's clustered_util and validateClusteredIndexSpec):
// create's `clusteredIndex: {key: {_id: 1}, unique: true, name?, v?}` and the collection's
// `expireAfterSeconds`, what listIndexes shows for the clustered index.

import { Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import type { Collection } from '../../catalog/collection.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { typeNameOf } from '../args.js';

const specFields = new Set(['v', 'key', 'name', 'unique']);

/**
 * create's clusteredIndex as stored and shown by listCollections (`{v: 2, key, name, unique}`,
 * name `_id_` unless given); undefined when absent or false.
 */
export function parseClusteredIndex(value: BsonValue | undefined): BsonDocument | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true)
    throw new CommandError(
      ErrorCode.Location5979703,
      "The 'clusteredIndex' legacy format {clusteredIndex: <bool>} is only supported for specific internal collections and vice versa",
    );
  if (!isPlainDocument(value))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'create.clusteredIndex' is the wrong type '${typeNameOf(value)}', expected types '[bool, object']`,
    );
  for (const k of Object.keys(value))
    if (!specFields.has(k))
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'clusteredIndex.${k}' is an unknown field.`,
      );
  const key = getOwn(value, 'key');
  const unique = getOwn(value, 'unique');
  for (const [field, v] of [
    ['key', key],
    ['unique', unique],
  ] as const)
    if (v === undefined) throw missingFieldError(`clusteredIndex.${field}`);
  if (!isPlainDocument(key))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'clusteredIndex.key' is the wrong type '${typeNameOf(key)}', expected type 'object'`,
    );
  if (typeof unique !== 'boolean')
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'clusteredIndex.unique' is the wrong type '${typeNameOf(unique)}', expected type 'bool'`,
    );
  const name = getOwn(value, 'name');
  if (name !== undefined && typeof name !== 'string')
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'clusteredIndex.name' is the wrong type '${typeNameOf(name)}', expected type 'string'`,
    );
  if (!unique)
    throw new CommandError(
      ErrorCode.Location5979700,
      'The clusteredIndex option requires unique: true to be specified',
    );
  const keys = Object.keys(key);
  if (keys.length !== 1 || keys[0] !== '_id' || numericValue(key['_id']) !== 1)
    throw new CommandError(
      ErrorCode.InvalidIndexSpecificationOption,
      'The clusteredIndex option is only supported for key: {_id: 1}',
    );
  const vRaw = getOwn(value, 'v');
  const v = vRaw === undefined ? 2 : numericValue(vRaw);
  if (v !== 2)
    throw new CommandError(
      ErrorCode.Location5979704,
      `Invalid clusteredIndex specification; cannot create a clusteredIndex with v=${String(v)}`,
    );
  return { v: new Int32(2), key: { _id: new Int32(1) }, name: name ?? '_id_', unique: true };
}

/** A collection's TTL (create's or collMod's expireAfterSeconds) as stored: a long, 0 to 2^31-1. */
export function parseCollectionTtl(value: BsonValue, command: string): Long {
  const n = numericValue(value);
  if (n === undefined)
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.expireAfterSeconds' is the wrong type '${typeNameOf(value)}', expected types '[long, int, decimal, double]'`,
    );
  if (Number.isNaN(n) || n < 0)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "TTL index 'expireAfterSeconds' option cannot be less than 0.",
    );
  if (n > 0x7fffffff)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer.",
    );
  return Long.fromNumber(Math.trunc(n));
}

/** The clustered index as listIndexes shows it (mongod's formatClusterKeyForListIndexes). */
export function clusteredIndexEntry(coll: Collection): BsonDocument | undefined {
  const spec = getOwn(coll.meta.options, 'clusteredIndex');
  if (!isPlainDocument(spec)) return undefined;
  const out: BsonDocument = { ...spec };
  const collation = getOwn(coll.meta.options, 'collation');
  if (collation !== undefined) out['collation'] = collation;
  const ttl = getOwn(coll.meta.options, 'expireAfterSeconds');
  if (ttl !== undefined) out['expireAfterSeconds'] = ttl;
  out['clustered'] = true;
  return out;
}
