// Approximate memory accounting for blocking stages and accumulators. mongod counts
// Value::getApproximateSize(); an exact BSON size would cost a serialisation per value, so
// this walks the value with fixed per-type costs of the same order. It lives below both the
// query layer (find's blocking SORT) and the aggregation layer (its blocking stages).

import { Binary } from 'bson';
import { isPlainDocument } from '../bson/types.js';
import type { BsonValue } from '../bson/types.js';
import type { Missing } from '../bson/path.js';
import type { SpillScope } from './spill/area.js';

const BASE = 16;

export function approximateValueSize(v: BsonValue | Missing): number {
  if (typeof v === 'string') return BASE + v.length;
  if (Array.isArray(v)) {
    let n = BASE;
    for (const x of v) n += approximateValueSize(x);
    return n;
  }
  if (isPlainDocument(v)) {
    let n = BASE;
    for (const [k, x] of Object.entries(v)) n += k.length + approximateValueSize(x as BsonValue);
    return n;
  }
  if (v instanceof Binary) return BASE + v.position;
  return BASE;
}

/**
 * The memory limits of one operation's blocking stages and where they may spill: the
 * server parameters as they were when the command started (setParameter changes later
 * commands, not a running one). Without a policy, stages use the defaults in limits.ts and
 * keep in memory whatever allowDiskUse permits.
 */
export interface MemoryPolicy {
  /** internalQueryMaxBlockingSortMemoryUsageBytes: $sort and find's blocking SORT. */
  readonly sortBytesMax: number;
  /** internalDocumentSourceGroupMaxMemoryBytes: $group, $bucket, $sortByCount. */
  readonly groupBytesMax: number;
  /** internalDocumentSourceBucketAutoMaxMemoryBytes: $bucketAuto. */
  readonly bucketAutoBytesMax?: number;
  /** internalDocumentSourceSetWindowFieldsMaxMemoryBytes: $setWindowFields (and $fill). */
  readonly setWindowFieldsBytesMax?: number;
  /** internalDocumentSourceGraphLookupMaxMemoryBytes: one $graphLookup search. */
  readonly graphLookupBytesMax?: number;
  /** The operation's spill files; undefined where nothing may be written (stages stay in memory). */
  readonly spill: SpillScope | undefined;
}
