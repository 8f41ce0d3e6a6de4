// FETCH: index entries → documents, with the query's filter re-applied to each document (the
// planner's bounds are only a superset of the matching keys). And the covered alternative:
// documents rebuilt from the index key itself, when the plan proved the key holds every field
// the filter and the projection read.

import { decodeKey } from '../../bson/keystring.js';
import type { KeyDirection } from '../../bson/keystring.js';
import { setOwn, setValueAt } from '../../bson/document.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { Collection } from '../../catalog/collection.js';
import type { IndexEntry } from '../../catalog/index-access.js';
import type { ReadView } from '../../storage/engine.js';
import { lazyExtra } from './index-scan.js';
import type { KeySource } from './index-scan.js';
import { fieldNamesOf, matchRecord, matchRow, rowOf } from './stages.js';
import type { DocumentFilter, MatchDetailsSink, PlanStage, StageStats } from './stages.js';
import type { StoredRecord } from '../../catalog/collection.js';
import type { FieldNames } from '../../bson/codec.js';
import { NEED_TIME, sliceDue } from './yield.js';
import type { Pull } from './yield.js';

/** The key of an entry as a document {field: value, ...} (returnKey, covered plans). */
export function keyDocument(
  entry: IndexEntry,
  paths: readonly string[],
  directions: readonly KeyDirection[],
): BsonDocument {
  const out: BsonDocument = {};
  if (entry.truncated) return out;
  const values = decodeKey(entry.key, directions, entry.typeInfo);
  paths.forEach((p, i) => setOwn(out, p, values[i] as BsonValue));
  return out;
}

export class FetchStage implements PlanStage {
  readonly stats: StageStats;
  /** A fetched record whose filter deferred its answer (NEED_TIME): evaluated again first. */
  private held: { entry: IndexEntry; rec: StoredRecord; view: ReadView } | undefined;
  /** The fields the filter reads, when an undecoded record is matched on them alone. */
  private readonly fields: FieldNames | undefined;

  constructor(
    private readonly child: KeySource,
    private readonly coll: Collection,
    private readonly filter: DocumentFilter | undefined,
    /** With returnKey: the key pattern's paths and directions, to attach each row's key. */
    private readonly keyShape?: { paths: readonly string[]; directions: readonly KeyDirection[] },
    /** The filter explain shows (computed when explain asks). */
    filterExplain?: () => BsonDocument | undefined,
  ) {
    this.stats = {
      stage: 'FETCH',
      nReturned: 0,
      works: 0,
      docsExamined: 0,
      children: [child.stats],
      extra: lazyExtra(() => {
        const filter = filterExplain?.();
        return filter === undefined ? {} : { filter };
      }),
    };
    this.fields = fieldNamesOf(filter);
  }

  next(view: ReadView): Pull {
    for (;;) {
      let held = this.held;
      if (held === undefined || held.view !== view) {
        const e = this.child.nextEntry(view);
        if (e === undefined || e === NEED_TIME) return e;
        this.stats.works++;
        const rec = this.coll.getRecord(view, e.recordId);
        if (rec === undefined) {
          if (sliceDue()) return NEED_TIME;
          continue;
        }
        this.stats.docsExamined = (this.stats.docsExamined ?? 0) + 1;
        held = { entry: e, rec, view };
      }
      const { entry: e, rec } = held;
      const details: MatchDetailsSink = {};
      const m = matchRecord(this.filter, this.fields, rec, details);
      if (m === NEED_TIME) {
        this.held = held;
        return NEED_TIME;
      }
      this.held = undefined;
      if (!m) {
        if (sliceDue()) return NEED_TIME;
        continue;
      }
      this.stats.nReturned++;
      return rowOf(
        rec,
        details,
        this.keyShape === undefined
          ? undefined
          : keyDocument(e, this.keyShape.paths, this.keyShape.directions),
      );
    }
  }
}

/**
 * The rows of a covered plan: each entry's key values rebuilt into a document holding just
 * the indexed fields, filtered. Invisible in explain: it reports the index scan's statistics
 * (the scan carries the filter there, as mongod's covered IXSCAN does).
 */
export class CoveredRowsStage implements PlanStage {
  readonly stats: StageStats;
  /** An entry whose filter deferred its answer (NEED_TIME): evaluated again first. */
  private held: IndexEntry | undefined;

  constructor(
    private readonly child: KeySource,
    private readonly paths: readonly string[],
    private readonly directions: readonly KeyDirection[],
    private readonly filter: DocumentFilter | undefined,
  ) {
    this.stats = child.stats;
  }

  next(view: ReadView): Pull {
    for (;;) {
      const e = this.held ?? this.child.nextEntry(view);
      if (e === undefined || e === NEED_TIME) return e;
      const values = decodeKey(e.key, this.directions, e.typeInfo);
      const doc: BsonDocument = {};
      this.paths.forEach((p, i) => setValueAt(doc, p.split('.'), values[i] as BsonValue));
      const details: MatchDetailsSink = {};
      const m = matchRow(this.filter, doc, details);
      if (m === NEED_TIME) {
        this.held = e;
        return NEED_TIME;
      }
      this.held = undefined;
      if (!m) {
        this.stats.nReturned--;
        if (sliceDue()) return NEED_TIME;
        continue;
      }
      const key: BsonDocument = {};
      this.paths.forEach((p, i) => setOwn(key, p, values[i] as BsonValue));
      return { doc, recordId: e.recordId, details, indexKey: key };
    }
  }
}
