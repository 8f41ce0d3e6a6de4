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
import type { DocumentFilter, MatchDetailsSink, PlanStage, Row, StageStats } from './stages.js';

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
  private scores: Map<RecordId, number> | undefined;
  private pending: Iterator<[RecordId, number]> | undefined;
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

  private gather(view: ReadView): Map<RecordId, number> {
    const scores = new Map<RecordId, number>();
    const { children, scoreField, directions, interrupt } = this.options;
    let n = 0;
    for (const child of children) {
      for (let e = child.nextEntry(view); e !== undefined; e = child.nextEntry(view)) {
        this.stats.works++;
        if ((++n & 1023) === 0) interrupt?.();
        if (e.truncated) {
          this.rescored.add(e.recordId);
          scores.set(e.recordId, scores.get(e.recordId) ?? 0);
          continue;
        }
        const score = decodeKey(e.key, directions, e.typeInfo)[scoreField];
        const value = score instanceof Double ? score.value : Number(score?.valueOf() ?? 0);
        scores.set(e.recordId, (scores.get(e.recordId) ?? 0) + value);
      }
    }
    return scores;
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

  next(view: ReadView): Row | undefined {
    if (this.scores === undefined) {
      this.scores = this.gather(view);
      this.pending = this.scores.entries();
    }
    const it = this.pending as Iterator<[RecordId, number]>;
    for (;;) {
      const r = it.next();
      if (r.done === true) return undefined;
      const [recordId, summed] = r.value;
      const rec = this.options.coll.getRecord(view, recordId);
      if (rec === undefined) continue;
      this.stats.docsExamined = (this.stats.docsExamined ?? 0) + 1;
      const details: MatchDetailsSink = {};
      if (this.options.filter !== undefined && !this.options.filter.matches(rec.doc, details))
        continue;
      const score = this.rescored.has(recordId) ? this.scoreFromDocument(rec.doc) : summed;
      setMetadata(rec.doc, { textScore: score });
      this.stats.nReturned++;
      return { doc: rec.doc, recordId, details };
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

  next(view: ReadView): Row | undefined {
    for (;;) {
      const row = this.child.next(view);
      if (row === undefined) return undefined;
      this.stats.works++;
      if (!this.search.matches(row.doc)) continue;
      this.stats.nReturned++;
      return row;
    }
  }
}
