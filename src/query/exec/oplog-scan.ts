// `find` on local.oplog.rs: the oplog read as a collection (through src/repl/oplog-reader.ts),
// in timestamp (natural) order or reverse, with the usual filter, sort, skip, limit and
// projection on top.

import type { BsonDocument } from '../../bson/types.js';
import type { ReadView } from '../../storage/engine.js';
import { OplogCursor, decodeOplogEntry } from '../../repl/oplog-reader.js';
import { LimitStage, SkipStage, SortStage, TransformStage, matchRow } from './stages.js';
import { NEED_TIME, sliceDue } from './yield.js';
import type { Pull } from './yield.js';
import type {
  DocumentFilter,
  PlanStage,
  RowComparator,
  RowTransform,
  StageStats,
} from './stages.js';

/** Scans oplog entries; remembers its position so each batch's snapshot re-seeks after it. */
export class OplogScanStage implements PlanStage {
  readonly stats: StageStats = {
    stage: 'COLLSCAN',
    nReturned: 0,
    works: 0,
    docsExamined: 0,
    children: [],
  };
  private readonly cursor: OplogCursor;
  /** An entry read but not yet matched: its filter asked for time (a regex in a worker). */
  private held: BsonDocument | undefined;
  private done = false;

  constructor(
    private readonly filter: DocumentFilter | undefined,
    reverse: boolean,
  ) {
    this.cursor = new OplogCursor({ reverse });
  }

  next(view: ReadView): Pull {
    if (this.done) return undefined;
    for (;;) {
      let doc = this.held;
      if (doc === undefined) {
        this.stats.works++;
        const r = this.cursor.next(view);
        if (r === undefined) {
          this.done = true;
          return undefined;
        }
        this.stats.docsExamined = (this.stats.docsExamined ?? 0) + 1;
        doc = decodeOplogEntry(r);
      }
      const m = matchRow(this.filter, doc, {});
      if (m === NEED_TIME) {
        this.held = doc;
        return NEED_TIME;
      }
      this.held = undefined;
      if (m) {
        this.stats.nReturned++;
        return { doc };
      }
      if (sliceDue()) return NEED_TIME;
    }
  }
}

export interface OplogQuery {
  readonly matcher: DocumentFilter | undefined;
  readonly sort?: RowComparator | undefined;
  readonly natural?: 1 | -1 | undefined;
  readonly skip?: number | undefined;
  readonly limit?: number | undefined;
  readonly projection?: RowTransform | undefined;
  readonly allowDiskUse: boolean;
}

export function planOplogQuery(q: OplogQuery): PlanStage {
  let stage: PlanStage = new OplogScanStage(q.matcher, q.natural === -1);
  if (q.sort !== undefined) {
    const topK = q.limit !== undefined && q.limit > 0 ? (q.skip ?? 0) + q.limit : undefined;
    stage = new SortStage(stage, q.sort, {
      ...(topK === undefined ? {} : { limit: topK }),
      allowDiskUse: q.allowDiskUse,
    });
  }
  if (q.skip !== undefined && q.skip > 0) stage = new SkipStage(stage, q.skip);
  if (q.limit !== undefined && q.limit > 0) stage = new LimitStage(stage, q.limit);
  if (q.projection !== undefined) stage = new TransformStage(stage, q.projection);
  return stage;
}
