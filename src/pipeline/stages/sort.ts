// $sort: a blocking sort by a sort pattern (../sort-pattern.ts), stable, with sort keys computed
// once per document. Followed by a $limit it keeps only the top k (mongod's sort+limit
// coalescing). Past the sort memory limit (internalQueryMaxBlockingSortMemoryUsageBytes) it
// spills sorted runs to disk and merges them as the cursor is pulled (../spill/sorter.ts);
// without disk use it fails with QueryExceededMemoryLimitNoDiskUseAllowed (292).

import { Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { decodeDocument, encodeDocument } from '../../bson/codec.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { approximateValueSize } from '../../query/memory.js';
import {
  collatedPattern,
  compareSortKeys,
  parseSortPattern,
  serializeSortPattern,
  sortKeysOf,
} from '../sort-pattern.js';
import type { SortPattern } from '../sort-pattern.js';
import { ExternalSorter } from '../../query/spill/sorter.js';
import type { SortedStream } from '../../query/spill/sorter.js';
import { StreamingBlockingStage } from '../spill/stream-stage.js';
import { decodeWithMetadata, encodeWithMetadata } from '../../query/exec/metadata.js';
import type { Runtime, Stage, StageDefinition } from './types.js';
import type { BlockingComputation } from './base.js';

interface Keyed {
  readonly doc: BsonDocument;
  readonly keys: BsonValue[];
}

/** A sorter of documents by a pattern, keeping at most `limit`, under the operation's memory policy. */
export function documentSorter(
  pattern: SortPattern,
  limit: number | undefined,
  rt: Runtime,
): ExternalSorter<Keyed> {
  return new ExternalSorter<Keyed>({
    compare: (a, b) => compareSortKeys(a.keys, b.keys, pattern),
    sizeOf: (k) => approximateValueSize(k.doc),
    // Spilled runs hold the documents; their keys are computed again as they are read.
    codec: {
      encode: (k) => encodeDocument(encodeWithMetadata(k.doc)),
      decode: (bytes) => keyed(decodeWithMetadata(decodeDocument(bytes)), pattern),
    },
    memoryBytesMax: rt.memory?.sortBytesMax ?? limits.sortMemoryBytesMax,
    limit,
    allowDiskUse: rt.allowDiskUse,
    spill: rt.memory?.spill,
    interrupt: () => rt.interrupt(),
    exceeded: (max) =>
      fail(
        ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed,
        `Sort exceeded memory limit of ${max} bytes, but did not opt in to external sorting.`,
      ),
  });
}

function keyed(doc: BsonDocument, pattern: SortPattern): Keyed {
  return { doc, keys: sortKeysOf(doc, pattern) };
}

/** Sorts documents through `sorter`; the result streams (from disk if the sorter spilled). */
export function sortComputation(
  pattern: SortPattern,
  sorter: ExternalSorter<Keyed>,
): BlockingComputation<SortedStream<BsonDocument>> {
  return {
    add: (doc) => sorter.add(keyed(doc, pattern)),
    finish: () => {
      const sorted = sorter.finish();
      return { next: () => sorted.next()?.doc, close: () => sorted.close() };
    },
  };
}

export class SortPipelineStage implements Stage {
  readonly name = '$sort';
  constructor(
    readonly pattern: SortPattern,
    readonly limit?: number,
  ) {}
  serialize(): BsonDocument {
    const out: BsonDocument = { $sort: serializeSortPattern(this.pattern) };
    if (this.limit !== undefined)
      (out['$sort'] as BsonDocument)['$limit'] = Long.fromNumber(this.limit);
    return out;
  }
  withLimit(limit: number): SortPipelineStage {
    return new SortPipelineStage(
      this.pattern,
      this.limit === undefined ? limit : Math.min(this.limit, limit),
    );
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const pattern = collatedPattern(this.pattern, rt.collator);
    const sorter = documentSorter(pattern, this.limit, rt);
    // What mongod's $sort reports in executionStats.
    const stats = (): Record<string, BsonValue> => ({
      totalDataSizeSortedBytesEstimate: Long.fromNumber(sorter.stats.totalDataSizeSorted),
      usedDisk: sorter.usedDisk,
      spills: Long.fromNumber(sorter.stats.spills),
    });
    return new StreamingBlockingStage(
      '$sort',
      input,
      () => sortComputation(pattern, sorter),
      stats,
    );
  }
}

/** Parses a sort specification as $sort does (15973 not an object, 15976 empty). */
export function parseSortStageSpec(arg: BsonValue): SortPattern {
  if (!isPlainDocument(arg))
    fail(ErrorCode.Location15973, 'the $sort key specification must be an object');
  if (Object.keys(arg).length === 0)
    fail(ErrorCode.Location15976, '$sort stage must have at least one sort key');
  return parseSortPattern(arg);
}

export const $sort: StageDefinition = {
  name: '$sort',
  parse(arg) {
    return new SortPipelineStage(parseSortStageSpec(arg));
  },
};
