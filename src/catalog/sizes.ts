// How big a collection is, from the storage engine's table sizes (no scan of the documents):
// the records' BSON bytes (mongod's `size`), what the record table holds with its keys
// (`storageSize`), and each index's table (`indexSizes`). dbStats, collStats, $collStats,
// dataSize and the metrics endpoint read them.

import { Int32, Long } from 'bson';
import type { BsonDocument } from '../bson/types.js';
import type { StorageEngine } from '../storage/engine.js';
import type { Collection } from './collection.js';
import { cappedStatsFields } from './collection.js';

export interface CollectionSizes {
  readonly count: number;
  /** Bytes of the documents as stored (BSON). */
  readonly dataBytes: number;
  /** Bytes the record table holds: documents and their RecordId keys. */
  readonly storageBytes: number;
  /** Bytes per index (its entries' keys and values), in the collection's index order. */
  readonly indexBytes: ReadonlyArray<readonly [string, number]>;
  readonly totalIndexBytes: number;
}

export function collectionSizes(engine: StorageEngine, coll: Collection): CollectionSizes {
  const records = engine.tableSize(coll.recordTable);
  const indexBytes: Array<readonly [string, number]> = [];
  let totalIndexBytes = 0;
  for (const index of coll.indexes) {
    const t = engine.tableSize(index.table);
    const bytes = t.keyBytes + t.valueBytes;
    indexBytes.push([index.meta.name, bytes]);
    totalIndexBytes += bytes;
  }
  return {
    count: records.entries,
    dataBytes: records.valueBytes,
    storageBytes: records.keyBytes + records.valueBytes,
    indexBytes,
    totalIndexBytes,
  };
}

/** mongod's appendNumber: an int when it fits, else a long. */
export function sizeNumber(n: number): Int32 | Long {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 31
    ? new Int32(n)
    : Long.fromNumber(Math.trunc(n));
}

/**
 * collStats' and $collStats' storage statistics (mongod's appendCollectionStorageStats); sizes
 * divided by `scale` (a whole number >= 1), avgObjSize not. A missing collection gives zeros.
 */
export function storageStatsOf(
  engine: StorageEngine,
  coll: Collection | undefined,
  scale: number,
): BsonDocument {
  if (coll === undefined) {
    return {
      size: new Int32(0),
      count: new Int32(0),
      storageSize: new Int32(0),
      totalSize: new Int32(0),
      nindexes: new Int32(0),
      totalIndexSize: new Int32(0),
      indexDetails: {},
      indexSizes: {},
      scaleFactor: new Int32(scale),
    };
  }
  const s = collectionSizes(engine, coll);
  const scaled = (n: number): Int32 | Long => sizeNumber(Math.trunc(n / scale));
  const indexSizes: BsonDocument = {};
  for (const [name, bytes] of s.indexBytes) indexSizes[name] = scaled(bytes);
  return {
    size: scaled(s.dataBytes),
    count: sizeNumber(s.count),
    avgObjSize: sizeNumber(s.count === 0 ? 0 : Math.trunc(s.dataBytes / s.count)),
    numOrphanDocs: new Int32(0),
    storageSize: scaled(s.storageBytes),
    freeStorageSize: new Int32(0),
    ...cappedStatsFields(coll, scale),
    nindexes: new Int32(coll.indexes.length),
    indexDetails: {},
    indexBuilds: [],
    totalIndexSize: scaled(s.totalIndexBytes),
    totalSize: scaled(s.storageBytes + s.totalIndexBytes),
    indexSizes,
    scaleFactor: new Int32(scale),
  };
}
