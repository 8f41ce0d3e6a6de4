// Plan stages: a tree of pull-based operators, as in mongod's PlanStage. A cursor pulls
// documents batch by batch; each batch runs on its own storage snapshot (`view`), so no
// snapshot is held between getMores. Leaf stages remember their position (the last RecordId
// or index key) and re-seek when they are handed a new view, as mongod's stages do after a
// yield: a document changed between batches may be seen in its new version or not at all,
// never twice at the same position.

import { Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { ReadView } from '../../storage/engine.js';
import type { Collection, StoredRecord } from '../../catalog/collection.js';
import type { RecordId } from '../../catalog/record-id.js';
import { decodeDocument, encodeDocument } from '../../bson/codec.js';
import type { MemoryPolicy } from '../../pipeline/memory.js';
import { ExternalSorter } from '../../pipeline/spill/sorter.js';
import type { RecordCodec, SortedStream, SorterStats } from '../../pipeline/spill/sorter.js';
import { decodeWithMetadata, encodeWithMetadata } from './metadata.js';

/** What a filter stage needs from a compiled filter; details carry the positional match. */
export interface DocumentFilter {
  matches(doc: BsonDocument, details?: MatchDetailsSink): boolean;
}

/** Where the matcher reports the array position that satisfied the query (for `$`). */
export interface MatchDetailsSink {
  elemMatchKey?: string | undefined;
}

export interface Row {
  readonly doc: BsonDocument;
  readonly recordId?: RecordId;
  readonly details?: MatchDetailsSink;
  /** The index key the row was found by (index plans), for returnKey. */
  readonly indexKey?: BsonDocument;
}

export interface StageStats {
  readonly stage: string;
  nReturned: number;
  works: number;
  docsExamined?: number;
  keysExamined?: number;
  readonly children: StageStats[];
  readonly extra?: Record<string, BsonValue>;
}

export interface PlanStage {
  readonly stats: StageStats;
  /** The next row, or undefined at the end. `view` is the snapshot of the current batch. */
  next(view: ReadView): Row | undefined;
}

function newStats(
  stage: string,
  children: PlanStage[],
  extra?: Record<string, BsonValue>,
): StageStats {
  return {
    stage,
    nReturned: 0,
    works: 0,
    children: children.map((c) => c.stats),
    ...(extra ? { extra } : {}),
  };
}

/** Collection scan in RecordId order (natural order), with an optional filter. */
export class CollScanStage implements PlanStage {
  readonly stats: StageStats;
  private boundView: ReadView | undefined;
  private it: Iterator<StoredRecord> | undefined;
  private last: RecordId | undefined;
  private done = false;

  constructor(
    private readonly coll: Collection,
    private readonly filter: DocumentFilter | undefined,
    private readonly reverse = false,
  ) {
    this.stats = newStats('COLLSCAN', [], { direction: reverse ? 'backward' : 'forward' });
    this.stats.docsExamined = 0;
  }

  next(view: ReadView): Row | undefined {
    if (this.done) return undefined;
    if (view !== this.boundView || this.it === undefined) {
      this.boundView = view;
      this.it = this.coll.scanRecords(view, {
        reverse: this.reverse,
        ...(this.last === undefined ? {} : { after: this.last }),
      });
    }
    for (;;) {
      this.stats.works++;
      const r = this.it.next();
      if (r.done === true) {
        this.done = true;
        return undefined;
      }
      const rec = r.value;
      this.last = rec.recordId;
      this.stats.docsExamined = (this.stats.docsExamined ?? 0) + 1;
      const details: MatchDetailsSink = {};
      if (this.filter === undefined || this.filter.matches(rec.doc, details)) {
        this.stats.nReturned++;
        return { doc: rec.doc, recordId: rec.recordId, details };
      }
    }
  }
}

/** Point lookup by `_id` through the _id index (mongod's IDHACK). */
export class IdLookupStage implements PlanStage {
  readonly stats: StageStats;
  private done = false;

  constructor(
    private readonly coll: Collection,
    private readonly id: BsonValue,
    private readonly filter: DocumentFilter | undefined,
  ) {
    this.stats = newStats('IDHACK', []);
    this.stats.keysExamined = 0;
    this.stats.docsExamined = 0;
  }

  next(view: ReadView): Row | undefined {
    if (this.done) return undefined;
    this.done = true;
    this.stats.works++;
    const rec = this.coll.findById(view, this.id);
    this.stats.keysExamined = 1;
    if (rec === undefined) return undefined;
    this.stats.docsExamined = 1;
    const details: MatchDetailsSink = {};
    if (this.filter !== undefined && !this.filter.matches(rec.doc, details)) return undefined;
    this.stats.nReturned++;
    return { doc: rec.doc, recordId: rec.recordId, details };
  }
}

/** A stage over rows computed in advance (e.g. documents produced by a pipeline). */
export class RowsStage implements PlanStage {
  readonly stats: StageStats;
  private i = 0;
  constructor(
    private readonly rows: readonly Row[],
    name = 'QUEUED_DATA',
  ) {
    this.stats = newStats(name, []);
  }
  next(): Row | undefined {
    const row = this.rows[this.i];
    if (row === undefined) return undefined;
    this.i++;
    this.stats.works++;
    this.stats.nReturned++;
    return row;
  }
}

export type RowComparator = (a: BsonDocument, b: BsonDocument) => number;

export interface SortStageOptions {
  readonly limit?: number;
  readonly allowDiskUse: boolean;
  /** Memory limit and spill files; without one, the default limit and no spilling. */
  readonly memory?: MemoryPolicy | undefined;
  readonly interrupt?: (() => void) | undefined;
}

/**
 * Blocking sort (mongod's SORT): reads its whole input on the first pull. Past the sort memory
 * limit it spills sorted runs to disk when allowed and merges them as it is pulled (see
 * src/pipeline/spill/sorter.ts); without allowDiskUse it fails with 292. With a limit it keeps
 * only the top k rows. Its explain shows memLimit, and after execution totalDataSizeSorted,
 * usedDisk and spills.
 */
export class SortStage implements PlanStage {
  readonly stats: StageStats;
  private sorted: SortedStream<Row> | undefined;
  private sorter: ExternalSorter<Row> | undefined;
  private readonly memLimit: number;

  constructor(
    private readonly child: PlanStage,
    private readonly compare: RowComparator,
    private readonly options: SortStageOptions,
  ) {
    this.memLimit = options.memory?.sortBytesMax ?? limits.sortMemoryBytesMax;
    this.stats = newStats('SORT', [child]);
  }

  /** Execution statistics of the sorter (undefined before the first pull). */
  get sorterStats(): SorterStats | undefined {
    return this.sorter?.stats;
  }

  get memoryLimitBytes(): number {
    return this.memLimit;
  }

  next(view: ReadView): Row | undefined {
    if (this.sorted === undefined) this.sorted = this.load(view);
    const row = this.sorted.next();
    if (row === undefined) return undefined;
    this.stats.works++;
    this.stats.nReturned++;
    return row;
  }

  private load(view: ReadView): SortedStream<Row> {
    const { limit, allowDiskUse, memory, interrupt } = this.options;
    const sorter = new ExternalSorter<Row>({
      compare: (a, b) => this.compare(a.doc, b.doc),
      sizeOf: (row) => approximateSize(row.doc),
      codec: rowCodec,
      memoryBytesMax: this.memLimit,
      limit: limit !== undefined && limit > 0 ? limit : undefined,
      allowDiskUse,
      spill: memory?.spill,
      interrupt,
      exceeded: (max) => {
        throw new CommandError(
          ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed,
          `Sort exceeded memory limit of ${max} bytes, but did not opt in to external sorting.`,
        );
      },
    });
    this.sorter = sorter;
    let n = 0;
    for (let row = this.child.next(view); row !== undefined; row = this.child.next(view)) {
      sorter.add(row);
      if ((++n & 1023) === 0) interrupt?.();
    }
    return sorter.finish();
  }
}

/** A row in a spill file: the document and what the row carries besides it. */
const rowCodec: RecordCodec<Row> = {
  encode(row) {
    const rec: BsonDocument = encodeWithMetadata(row.doc);
    if (row.recordId !== undefined) rec['r'] = Long.fromNumber(row.recordId);
    if (row.indexKey !== undefined) rec['k'] = row.indexKey;
    if (row.details?.elemMatchKey !== undefined) rec['e'] = row.details.elemMatchKey;
    return encodeDocument(rec);
  },
  decode(bytes) {
    const rec = decodeDocument(bytes);
    const r = rec['r'];
    const e = rec['e'];
    return {
      doc: decodeWithMetadata(rec),
      ...(r instanceof Long ? { recordId: r.toNumber() } : {}),
      ...(rec['k'] === undefined ? {} : { indexKey: rec['k'] as BsonDocument }),
      details: typeof e === 'string' ? { elemMatchKey: e } : {},
    };
  },
};

export class SkipStage implements PlanStage {
  readonly stats: StageStats;
  private skipped = 0;
  constructor(
    private readonly child: PlanStage,
    private readonly skip: number,
  ) {
    this.stats = newStats('SKIP', [child], { skipAmount: new Int32(skip) });
  }
  next(view: ReadView): Row | undefined {
    while (this.skipped < this.skip) {
      if (this.child.next(view) === undefined) return undefined;
      this.skipped++;
    }
    const row = this.child.next(view);
    if (row !== undefined) this.stats.nReturned++;
    this.stats.works++;
    return row;
  }
}

export class LimitStage implements PlanStage {
  readonly stats: StageStats;
  private returned = 0;
  constructor(
    private readonly child: PlanStage,
    private readonly limit: number,
  ) {
    this.stats = newStats('LIMIT', [child], { limitAmount: new Int32(limit) });
  }
  next(view: ReadView): Row | undefined {
    if (this.returned >= this.limit) return undefined;
    const row = this.child.next(view);
    if (row === undefined) return undefined;
    this.returned++;
    this.stats.works++;
    this.stats.nReturned++;
    return row;
  }
}

export type RowTransform = (row: Row) => BsonDocument;

/** Projection (or any per-row reshaping). */
export class TransformStage implements PlanStage {
  readonly stats: StageStats;
  constructor(
    private readonly child: PlanStage,
    private readonly transform: RowTransform,
    name = 'PROJECTION_DEFAULT',
  ) {
    this.stats = newStats(name, [child]);
  }
  next(view: ReadView): Row | undefined {
    const row = this.child.next(view);
    if (row === undefined) return undefined;
    this.stats.works++;
    this.stats.nReturned++;
    return { ...row, doc: this.transform(row) };
  }
}

/** Cheap size estimate for memory accounting (exact BSON size would cost a serialisation). */
export function approximateSize(doc: BsonDocument): number {
  let n = 5;
  for (const [k, v] of Object.entries(doc)) {
    n += k.length + 2;
    if (typeof v === 'string') n += v.length + 5;
    else if (Array.isArray(v)) n += 16 * v.length + 5;
    else if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
      n += approximateSize(v as BsonDocument);
    else n += 8;
  }
  return n;
}
