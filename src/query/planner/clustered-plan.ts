// Clustered collections in explain. A collection created with `clusteredIndex: {key: {_id: 1}}`
// keeps its documents in _id order in mongod, which has no _id index for it: a query bounding
// `_id` runs as a collection scan between two record ids, shown as the stage CLUSTERED_IXSCAN
// with `minRecord` / `maxRecord` (the bounds' ends; an end left open is not shown) and the
// whole filter, which the scan re-applies; an _id equality is such a scan from the value to
// itself (there is no IDHACK without an _id index).
//
// Here the clustered order is the collection's _id index, so the plan underneath is an index
// scan and FETCH (or an _id lookup); the stage below presents it as mongod's single stage. A
// difference: docsExamined counts the documents fetched, without mongod's one extra read past
// the end of the range.

import { Double, MaxKey, MinKey } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { numericValue } from '../../bson/types.js';
import type { Collection } from '../../catalog/collection.js';
import type { ReadView } from '../../storage/engine.js';
import type { PlanStage, StageStats } from '../exec/stages.js';
import type { Pull } from '../exec/yield.js';
import type { Endpoint, Interval } from './bounds.js';

export function isClustered(coll: Collection): boolean {
  return coll.meta.options['clusteredIndex'] !== undefined;
}

/** A record bound as explain shows it; undefined for an open end. */
function recordBound(e: Endpoint | undefined): BsonValue | undefined {
  if (e === undefined || e.display !== undefined) return undefined;
  const v = e.value;
  if (v instanceof MinKey || v instanceof MaxKey) return undefined;
  // The least number in BSON order is NaN, where a numeric record range starts.
  if (numericValue(v) === -Infinity) return new Double(NaN);
  return v;
}

/** The (min, max) record bounds of `_id` intervals (in ascending order). */
export function recordBounds(intervals: readonly Interval[]): {
  min: BsonValue | undefined;
  max: BsonValue | undefined;
} {
  return {
    min: recordBound(intervals[0]?.low),
    max: recordBound(intervals[intervals.length - 1]?.high),
  };
}

/** The plan of a clustered _id range, shown as mongod's CLUSTERED_IXSCAN (see the file comment). */
export class ClusteredScanStage implements PlanStage {
  readonly stats: StageStats;

  constructor(
    private readonly inner: PlanStage,
    options: {
      readonly reverse: boolean;
      readonly min: BsonValue | undefined;
      readonly max: BsonValue | undefined;
      readonly filter: () => BsonDocument | undefined;
    },
  ) {
    const bounded = options.min !== undefined || options.max !== undefined;
    const stats = {
      stage: bounded ? 'CLUSTERED_IXSCAN' : 'COLLSCAN',
      get nReturned(): number {
        return inner.stats.nReturned;
      },
      get works(): number {
        return inner.stats.works;
      },
      get docsExamined(): number {
        return inner.stats.docsExamined ?? 0;
      },
      children: [],
      get extra(): Record<string, BsonValue> {
        const filter = options.filter();
        return {
          ...(filter === undefined ? {} : { filter }),
          direction: options.reverse ? 'backward' : 'forward',
          ...(options.min === undefined ? {} : { minRecord: options.min }),
          ...(options.max === undefined ? {} : { maxRecord: options.max }),
        };
      },
    };
    this.stats = stats as unknown as StageStats;
  }

  next(view: ReadView): Pull {
    return this.inner.next(view);
  }

  isEOF(): boolean {
    return this.inner.isEOF?.() === true;
  }
}
