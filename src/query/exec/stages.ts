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
import { FieldNames, decodeDocument, decodeFields, encodeDocument } from '../../bson/codec.js';
import type { MemoryPolicy } from '../memory.js';
import { ExternalSorter } from '../spill/sorter.js';
import type { RecordCodec, SortedStream, SorterStats } from '../spill/sorter.js';
import { decodeWithMetadata, encodeWithMetadata } from './metadata.js';

import { NEED_TIME, retryable, sliceDue } from './yield.js';
import type { NeedTime, Pull } from './yield.js';
import type { MatchDetailsSink, Row } from './row.js';

export { NEED_TIME } from './yield.js';
export type { Pull } from './yield.js';
export type { MatchDetailsSink, Row } from './row.js';

/** What a filter stage needs from a compiled filter; details carry the positional match. */
export interface DocumentFilter {
  matches(doc: BsonDocument, details?: MatchDetailsSink): boolean;
  /**
   * The top-level fields `matches` reads, when known: a document of only those fields
   * matches as the whole does, so a stored record is matched on them alone (decodeFields).
   */
  readonly fieldsRead?: readonly string[] | undefined;
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
  /**
   * The next row, undefined at the end, or NEED_TIME: work was done, call again (see
   * yield.ts; only while a driver's slice is armed). `view` is the snapshot of the current
   * batch.
   */
  next(view: ReadView): Pull;
  /**
   * True when the stage knows, without doing more work, that it has nothing more (mongod's
   * PlanStage::isEOF): a limit reached, a sort or a queue fully returned. Absent or false:
   * not known until a pull says so (a scan knows its end only once it has met it).
   */
  isEOF?(): boolean;
}

/** The counters of a new plan stage over `children` (every stage's, here and in pipeline/). */
export function newStats(
  stage: string,
  children: readonly PlanStage[],
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
  /** A record whose filter deferred its answer (NEED_TIME): evaluated again first. */
  private held: StoredRecord | undefined;
  private done = false;
  /** The filter is absent or empty: records are not looked at. */
  private readonly matchesAll: boolean;
  /** The fields the filter reads, when an undecoded record is matched on them alone. */
  private readonly fields: FieldNames | undefined;

  /**
   * @param tailable a tailable cursor's scan (capped collections): at the end of the records it
   *   ends this pull only, and the next pull goes on after the last record seen
   */
  constructor(
    private readonly coll: Collection,
    private readonly filter: DocumentFilter | undefined,
    private readonly reverse = false,
    private readonly tailable = false,
  ) {
    this.stats = newStats('COLLSCAN', [], { direction: reverse ? 'backward' : 'forward' });
    this.stats.docsExamined = 0;
    this.matchesAll = matchesEverything(filter);
    this.fields = fieldNamesOf(filter);
  }

  next(view: ReadView): Pull {
    if (this.done) return undefined;
    if (view !== this.boundView || this.it === undefined) {
      // In a capped collection the record the scan stopped at may have been deleted (the
      // oldest go first): the scan cannot know what it missed, and dies as mongod's does.
      if (
        this.last !== undefined &&
        this.coll.capped !== undefined &&
        !this.coll.hasRecord(view, this.last)
      )
        throw new CommandError(
          ErrorCode.CappedPositionLost,
          `CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(${this.last})`,
        );
      this.boundView = view;
      this.held = undefined;
      this.it = this.coll.scanRecords(view, {
        reverse: this.reverse,
        ...(this.last === undefined ? {} : { after: this.last }),
      });
    }
    for (;;) {
      let rec = this.held;
      if (rec === undefined) {
        this.stats.works++;
        const r = this.it.next();
        if (r.done === true) {
          if (this.tailable) this.it = undefined;
          else this.done = true;
          return undefined;
        }
        rec = r.value;
        this.last = rec.recordId;
        this.stats.docsExamined = (this.stats.docsExamined ?? 0) + 1;
      }
      if (this.matchesAll) {
        // Nothing to look at: the record goes on undecoded (the cursor may send its bytes).
        this.stats.nReturned++;
        return rec;
      }
      const details: MatchDetailsSink = {};
      const m = matchRecord(this.filter, this.fields, rec, details);
      if (m === NEED_TIME) {
        this.held = rec;
        return NEED_TIME;
      }
      this.held = undefined;
      if (m) {
        this.stats.nReturned++;
        return rowOf(rec, details);
      }
      if (sliceDue()) return NEED_TIME;
    }
  }
}

/** Whether `filter` is absent or matches every document without reading it (`{}`). */
export function matchesEverything(filter: DocumentFilter | undefined): boolean {
  if (filter === undefined) return true;
  const tree = (filter as { tree?: { kind: string; children?: readonly unknown[] } }).tree;
  return (
    tree !== undefined &&
    (tree.kind === 'alwaysTrue' || (tree.kind === 'and' && tree.children?.length === 0))
  );
}

/** The fields `filter` reads as FieldNames, when it says which (DocumentFilter.fieldsRead). */
export function fieldNamesOf(filter: DocumentFilter | undefined): FieldNames | undefined {
  const names = filter?.fieldsRead;
  return names === undefined ? undefined : new FieldNames(names);
}

/**
 * matchRow for a stored record, reading no more of it than the filter needs: nothing without
 * a filter; while the record is undecoded and the filter's fields are known (`fields`), only
 * those fields (decodeFields), so the record stays undecoded; else its document.
 */
export function matchRecord(
  filter: DocumentFilter | undefined,
  fields: FieldNames | undefined,
  rec: StoredRecord,
  details: MatchDetailsSink,
): boolean | NeedTime {
  if (filter === undefined) return true;
  const doc =
    fields !== undefined && rec.bytes !== undefined && rec.decoded === false
      ? decodeFields(rec.bytes, fields)
      : rec.doc;
  return matchRow(filter, doc, details);
}

/**
 * The row of a matched record: its document is the record's (decoded when first read), and
 * while nobody has read it the row carries the stored bytes (the cursor may send them).
 */
export function rowOf(rec: StoredRecord, details: MatchDetailsSink, indexKey?: BsonDocument): Row {
  if (rec.decoded !== false)
    return { doc: rec.doc, recordId: rec.recordId, details, ...(indexKey ? { indexKey } : {}) };
  return {
    get doc(): BsonDocument {
      return rec.doc;
    },
    get decoded(): boolean | undefined {
      return rec.decoded;
    },
    recordId: rec.recordId,
    details,
    ...(rec.bytes === undefined ? {} : { bytes: rec.bytes }),
    ...(indexKey ? { indexKey } : {}),
  };
}

/**
 * Applies a filter to a document: true, false, or NEED_TIME when the filter waits for work
 * done elsewhere (a regular expression in a worker); the caller keeps the document and asks
 * again on its next pull.
 */
export function matchRow(
  filter: DocumentFilter | undefined,
  doc: BsonDocument,
  details: MatchDetailsSink,
): boolean | NeedTime {
  if (filter === undefined) return true;
  return retryable(() => filter.matches(doc, details));
}

/** Point lookup by `_id` through the _id index (mongod's IDHACK). */
export class IdLookupStage implements PlanStage {
  readonly stats: StageStats;
  private done = false;
  private readonly fields: FieldNames | undefined;

  constructor(
    private readonly coll: Collection,
    private readonly id: BsonValue,
    private readonly filter: DocumentFilter | undefined,
  ) {
    this.stats = newStats('IDHACK', []);
    this.stats.keysExamined = 0;
    this.stats.docsExamined = 0;
    this.fields = fieldNamesOf(filter);
  }

  next(view: ReadView): Pull {
    if (this.done) return undefined;
    this.stats.works++;
    const rec = this.coll.findById(view, this.id);
    this.stats.keysExamined = 1;
    if (rec === undefined) {
      this.done = true;
      return undefined;
    }
    this.stats.docsExamined = 1;
    const details: MatchDetailsSink = {};
    const m = matchRecord(this.filter, this.fields, rec, details);
    if (m === NEED_TIME) return NEED_TIME;
    this.done = true;
    if (!m) return undefined;
    this.stats.nReturned++;
    return rowOf(rec, details);
  }
  isEOF(): boolean {
    return this.done;
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
  next(): Pull {
    const row = this.rows[this.i];
    if (row === undefined) return undefined;
    this.i++;
    this.stats.works++;
    this.stats.nReturned++;
    return row;
  }
  isEOF(): boolean {
    return this.i >= this.rows.length;
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
 * src/query/spill/sorter.ts); without allowDiskUse it fails with 292. With a limit it keeps
 * only the top k rows. Its explain shows memLimit, and after execution totalDataSizeSorted,
 * usedDisk and spills.
 */
export class SortStage implements PlanStage {
  readonly stats: StageStats;
  private sorted: SortedStream<Row> | undefined;
  /** The sorted stream was pulled past its last row. */
  private exhausted = false;
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

  next(view: ReadView): Pull {
    if (this.sorted === undefined) {
      const loaded = this.load(view);
      if (loaded === NEED_TIME) return NEED_TIME;
      this.sorted = loaded;
    }
    const row = this.sorted.next();
    if (row === undefined) {
      this.exhausted = true;
      return undefined;
    }
    this.stats.works++;
    this.stats.nReturned++;
    return row;
  }

  /**
   * As mongod's SortExecutor: true once a pull found the sorted stream empty, not when the
   * last row was returned. A batch that ends on the last sorted row leaves the cursor open,
   * and the next getMore answers an empty batch with id 0.
   */
  isEOF(): boolean {
    return this.exhausted;
  }

  /** Reads the input into the sorter, a slice at a time; the sorted stream at its end. */
  private load(view: ReadView): SortedStream<Row> | NeedTime {
    const sorter = (this.sorter ??= this.newSorter());
    for (;;) {
      const row = this.child.next(view);
      if (row === NEED_TIME) return NEED_TIME;
      if (row === undefined) return sorter.finish();
      sorter.add(row);
      if (sliceDue()) return NEED_TIME;
    }
  }

  private newSorter(): ExternalSorter<Row> {
    const { limit, allowDiskUse, memory, interrupt } = this.options;
    return new ExternalSorter<Row>({
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
  next(view: ReadView): Pull {
    while (this.skipped < this.skip) {
      const r = this.child.next(view);
      if (r === undefined || r === NEED_TIME) return r;
      this.skipped++;
      if (sliceDue()) return NEED_TIME;
    }
    const row = this.child.next(view);
    if (row === NEED_TIME) return row;
    if (row !== undefined) this.stats.nReturned++;
    this.stats.works++;
    return row;
  }
  isEOF(): boolean {
    return this.child.isEOF?.() === true;
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
  next(view: ReadView): Pull {
    if (this.returned >= this.limit) return undefined;
    const row = this.child.next(view);
    if (row === undefined || row === NEED_TIME) return row;
    this.returned++;
    this.stats.works++;
    this.stats.nReturned++;
    return row;
  }
  isEOF(): boolean {
    return this.returned >= this.limit || this.child.isEOF?.() === true;
  }
}

export type RowTransform = (row: Row) => BsonDocument;

/** Projection (or any per-row reshaping). */
export class TransformStage implements PlanStage {
  readonly stats: StageStats;
  /** A row whose transform deferred its answer (NEED_TIME): transformed again first. */
  private held: Row | undefined;
  constructor(
    private readonly child: PlanStage,
    private readonly transform: RowTransform,
    name = 'PROJECTION_DEFAULT',
  ) {
    this.stats = newStats(name, [child]);
  }
  next(view: ReadView): Pull {
    const row = this.held ?? this.child.next(view);
    if (row === undefined || row === NEED_TIME) return row;
    const doc = retryable(() => this.transform(row));
    if (doc === NEED_TIME) {
      this.held = row;
      return NEED_TIME;
    }
    this.held = undefined;
    this.stats.works++;
    this.stats.nReturned++;
    return { ...row, doc };
  }
  isEOF(): boolean {
    return this.held === undefined && this.child.isEOF?.() === true;
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
