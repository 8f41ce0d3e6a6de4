// The plan stages of a $text query, as mongod builds them (planner_access.cpp buildTextSubPlan):
//
//   TEXT_MATCH ← TEXT_OR ← IXSCAN per term          (the text score is wanted)
//   TEXT_MATCH ← FETCH ← OR ← IXSCAN per term       (it is not; one term: FETCH ← IXSCAN)
//
// Each IXSCAN reads one term's keys of the text index (every score, backward: best first).
// TEXT_OR adds up the scores each document's keys carry over the query terms (reading all of
// them first, as mongod's does), then fetches the documents, applies the rest of the filter and
// gives each its score (metadata textScore). TEXT_MATCH applies what the index cannot: negated
// terms and phrases, and the terms themselves when the search is case- or diacritic-sensitive.

import { Double, Int32 } from 'bson';
import { decodeKey } from '../../bson/keystring.js';
import type { KeyDirection } from '../../bson/keystring.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { Collection } from '../../catalog/collection.js';
import type { RecordId } from '../../catalog/record-id.js';
import type { ReadView } from '../../storage/engine.js';
import { scoreDocument, indexedTerm } from '../../text/spec.js';
import type { TextSearch } from '../../text/query.js';
import { lazyExtra } from './index-scan.js';
import type { KeySource } from './index-scan.js';
import { setMetadata } from './metadata.js';
import { matchRow } from './stages.js';
import type { DocumentFilter, MatchDetailsSink, PlanStage, StageStats } from './stages.js';
import { NEED_TIME, sliceDue } from './yield.js';
import type { NeedTime, Pull } from './yield.js';

export interface TextOrOptions {
  readonly children: readonly KeySource[];
  readonly coll: Collection;
  readonly search: TextSearch;
  /** Position of the score in the key tuple (after the prefix fields and the term). */
  readonly scoreField: number;
  readonly directions: readonly KeyDirection[];
  /** The rest of the query's filter; explain shows it as the stage's filter. */
  readonly filter: DocumentFilter | undefined;
  readonly filterExplain: () => BsonDocument | undefined;
  /** Checks the operation's deadline while the scores are gathered. */
  readonly interrupt?: (() => void) | undefined;
}

/** TEXT_OR: the union of the term scans, with each document's summed score. */
export class TextOrStage implements PlanStage {
  readonly stats: StageStats;
  /** Summed scores gathered so far from the term scans (children[0..child)). */
  private readonly scores = new Map<RecordId, number>();
  private child = 0;
  private gathered = 0;
  private pending: Iterator<[RecordId, number]> | undefined;
  /** A document read but not yet matched: its filter asked for time. */
  private held: { recordId: RecordId; summed: number; doc: BsonDocument } | undefined;
  /** Documents whose keys were too long to decode: their score is computed from the document. */
  private readonly rescored = new Set<RecordId>();

  constructor(private readonly options: TextOrOptions) {
    this.stats = {
      stage: 'TEXT_OR',
      nReturned: 0,
      works: 0,
      docsExamined: 0,
      children: options.children.map((c) => c.stats),
      extra: lazyExtra(() => {
        const filter = options.filterExplain();
        return filter === undefined ? {} : { filter };
      }),
    };
  }

  /**
   * Reads the term scans into `scores`, across calls: true once every scan is read, NEED_TIME
   * when the slice is over first.
   */
  private gather(view: ReadView): true | NeedTime {
    const { children, scoreField, directions, interrupt } = this.options;
    const scores = this.scores;
    for (;;) {
      const child = children[this.child];
      if (child === undefined) return true;
      const e = child.nextEntry(view);
      if (e === NEED_TIME) return NEED_TIME;
      if (e === undefined) {
        this.child++;
        continue;
      }
      this.stats.works++;
      if ((++this.gathered & 1023) === 0) interrupt?.();
      if (e.truncated) {
        this.rescored.add(e.recordId);
        scores.set(e.recordId, scores.get(e.recordId) ?? 0);
      } else {
        const score = decodeKey(e.key, directions, e.typeInfo)[scoreField];
        const value = score instanceof Double ? score.value : Number(score?.valueOf() ?? 0);
        scores.set(e.recordId, (scores.get(e.recordId) ?? 0) + value);
      }
      if (sliceDue()) return NEED_TIME;
    }
  }

  /** The score of a document whose index key was stored truncated, from the document itself. */
  private scoreFromDocument(doc: BsonDocument): number {
    const { search } = this.options;
    const terms = scoreDocument(search.spec, doc);
    let total = 0;
    for (const [term, score] of terms)
      if (
        search.query.termsForBounds.includes(term) ||
        search.query.termsForBounds.includes(indexedTerm(term))
      )
        total += score;
    return total;
  }

  next(view: ReadView): Pull {
    if (this.pending === undefined) {
      if (this.gather(view) === NEED_TIME) return NEED_TIME;
      this.pending = this.scores.entries();
    }
    for (;;) {
      let held = this.held;
      if (held === undefined) {
        const r = this.pending.next();
        if (r.done === true) return undefined;
        const [recordId, summed] = r.value;
        const rec = this.options.coll.getRecord(view, recordId);
        if (rec === undefined) continue;
        this.stats.docsExamined = (this.stats.docsExamined ?? 0) + 1;
        held = { recordId, summed, doc: rec.doc };
      }
      const details: MatchDetailsSink = {};
      const m = matchRow(this.options.filter, held.doc, details);
      if (m === NEED_TIME) {
        this.held = held;
        return NEED_TIME;
      }
      this.held = undefined;
      if (!m) {
        if (sliceDue()) return NEED_TIME;
        continue;
      }
      const { recordId, summed, doc } = held;
      const score = this.rescored.has(recordId) ? this.scoreFromDocument(doc) : summed;
      setMetadata(doc, { textScore: score });
      this.stats.nReturned++;
      return { doc, recordId, details };
    }
  }
}

/** TEXT_MATCH: what the index does not answer (negations, phrases, sensitive terms). */
export class TextMatchStage implements PlanStage {
  readonly stats: StageStats;

  constructor(
    private readonly child: PlanStage,
    private readonly search: TextSearch,
    params: { indexName: string; indexPrefix: BsonDocument },
  ) {
    const q = search.query;
    const extra: Record<string, BsonValue> = {
      indexPrefix: params.indexPrefix,
      indexName: params.indexName,
      parsedTextQuery: {
        terms: [...q.terms],
        negatedTerms: [...q.negatedTerms],
        phrases: [...q.phrases],
        negatedPhrases: [...q.negatedPhrases],
      },
      textIndexVersion: new Int32(search.spec.version),
    };
    this.stats = { stage: 'TEXT_MATCH', nReturned: 0, works: 0, children: [child.stats], extra };
  }

  next(view: ReadView): Pull {
    for (;;) {
      const row = this.child.next(view);
      if (row === undefined || row === NEED_TIME) return row;
      this.stats.works++;
      if (!this.search.matches(row.doc)) {
        if (sliceDue()) return NEED_TIME;
        continue;
      }
      this.stats.nReturned++;
      return row;
    }
  }
}
