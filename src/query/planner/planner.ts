// Query planning: turns a parsed find-like request into a tree of plan stages. For now it
// knows two access paths — a point lookup on the _id index when the filter pins `_id` to
// one value, and a collection scan — followed by sort, skip, limit and projection.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import type { Collection } from '../../catalog/collection.js';
import { CollScanStage, IdLookupStage, LimitStage, RowsStage, SkipStage, SortStage, TransformStage } from '../exec/stages.js';
import type { DocumentFilter, PlanStage, RowComparator, RowTransform } from '../exec/stages.js';
import { BSONRegExp } from 'bson';

export interface QueryRequest {
  readonly filter: BsonDocument;
  readonly matcher: DocumentFilter | undefined;
  readonly sort?: RowComparator | undefined;
  /** `$natural` sort or hint direction. */
  readonly natural?: 1 | -1 | undefined;
  readonly skip?: number | undefined;
  /** Positive limit; undefined or 0 for none. */
  readonly limit?: number | undefined;
  readonly projection?: RowTransform | undefined;
  readonly allowDiskUse: boolean;
}

/** The value `_id` is pinned to by the filter, if the filter is an _id equality. */
export function pinnedId(filter: BsonDocument): BsonValue | undefined {
  const id = getOwn(filter, '_id');
  if (id === undefined) return undefined;
  if (id instanceof BSONRegExp) return undefined;
  if (isPlainDocument(id)) {
    const keys = Object.keys(id);
    if (keys.length === 0) return id;
    if (keys.some((k) => k.startsWith('$'))) {
      if (keys.length === 1 && keys[0] === '$eq') {
        const v = id['$eq'];
        return v instanceof BSONRegExp ? undefined : isPlainDocument(v) || Array.isArray(v) ? undefined : v;
      }
      return undefined;
    }
    return id;
  }
  // An array `_id` query value matches documents by element too; leave it to the scan.
  if (Array.isArray(id)) return undefined;
  return id;
}

export function planQuery(coll: Collection | undefined, req: QueryRequest): PlanStage {
  let stage: PlanStage;
  if (coll === undefined) {
    stage = new RowsStage([], 'EOF');
  } else {
    const id = req.natural === undefined ? pinnedId(req.filter) : undefined;
    stage = id !== undefined ? new IdLookupStage(coll, id, req.matcher) : new CollScanStage(coll, req.matcher, req.natural === -1);
  }
  if (req.sort !== undefined) {
    const topK = req.limit !== undefined && req.limit > 0 ? (req.skip ?? 0) + req.limit : undefined;
    stage = new SortStage(stage, req.sort, { ...(topK === undefined ? {} : { limit: topK }), allowDiskUse: req.allowDiskUse });
  }
  if (req.skip !== undefined && req.skip > 0) stage = new SkipStage(stage, req.skip);
  if (req.limit !== undefined && req.limit > 0) stage = new LimitStage(stage, req.limit);
  if (req.projection !== undefined) stage = new TransformStage(stage, req.projection);
  return stage;
}
