// $sort: a blocking sort by a sort pattern (../sort-pattern.ts), stable, with sort keys computed
// once per document. Followed by a $limit it keeps only the top k (mongod's sort+limit
// coalescing). Without allowDiskUse its memory is bounded by limits.sortMemoryBytesMax
// (QueryExceededMemoryLimitNoDiskUseAllowed, 292); with it, we keep sorting in memory.

import { Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { AggCode } from '../error-codes.js';
import { approximateValueSize } from '../memory.js';
import { compareSortKeys, parseSortPattern, serializeSortPattern, sortKeysOf } from '../sort-pattern.js';
import type { SortPattern } from '../sort-pattern.js';
import { BlockingStage } from './base.js';
import type { Runtime, Stage, StageDefinition } from './types.js';

interface Keyed {
  readonly doc: BsonDocument;
  readonly keys: BsonValue[];
  readonly seq: number;
}

/** Sorts documents by a pattern, keeping at most `limit`; enforces the memory limit. */
export function sortDocuments(docs: Iterable<BsonDocument>, pattern: SortPattern, limit: number | undefined, rt: Runtime): BsonDocument[] {
  const cmp = (a: Keyed, b: Keyed): number => compareSortKeys(a.keys, b.keys, pattern) || a.seq - b.seq;
  let rows: Keyed[] = [];
  let bytes = 0;
  let seq = 0;
  for (const doc of docs) {
    rows.push({ doc, keys: sortKeysOf(doc, pattern), seq: seq++ });
    bytes += approximateValueSize(doc);
    if (limit !== undefined && rows.length > 2 * limit + 64) {
      rows.sort(cmp);
      rows = rows.slice(0, limit);
      bytes = rows.reduce((n, r) => n + approximateValueSize(r.doc), 0);
    }
    if (bytes > limits.sortMemoryBytesMax && !rt.allowDiskUse) {
      fail(
        ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed,
        `Sort exceeded memory limit of ${limits.sortMemoryBytesMax} bytes, but did not opt in to external sorting. Aborting operation. Pass allowDiskUse:true to opt in.`,
      );
    }
    if ((seq & 1023) === 0) rt.interrupt();
  }
  rows.sort(cmp);
  if (limit !== undefined && rows.length > limit) rows.length = limit;
  return rows.map((r) => r.doc);
}

export class SortPipelineStage implements Stage {
  readonly name = '$sort';
  constructor(
    readonly pattern: SortPattern,
    readonly limit?: number,
  ) {}
  serialize(): BsonDocument {
    const out: BsonDocument = { $sort: serializeSortPattern(this.pattern) };
    if (this.limit !== undefined) (out['$sort'] as BsonDocument)['$limit'] = Long.fromNumber(this.limit);
    return out;
  }
  withLimit(limit: number): SortPipelineStage {
    return new SortPipelineStage(this.pattern, this.limit === undefined ? limit : Math.min(this.limit, limit));
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    return new BlockingStage('$sort', input, (docs) => sortDocuments(docs, this.pattern, this.limit, rt));
  }
}

/** Parses a sort specification as $sort does (15973 not an object, 15976 empty). */
export function parseSortStageSpec(arg: BsonValue): SortPattern {
  if (!isPlainDocument(arg)) fail(AggCode.Location15973, 'the $sort key specification must be an object');
  if (Object.keys(arg).length === 0) fail(AggCode.Location15976, '$sort stage must have at least one sort key');
  return parseSortPattern(arg);
}

export const $sort: StageDefinition = {
  name: '$sort',
  parse(arg) {
    return new SortPipelineStage(parseSortStageSpec(arg));
  },
};
