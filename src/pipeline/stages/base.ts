// Plan-stage helpers for pipeline stages: stats, a one-in-one-out transform, and a blocking
// stage that reads its whole input once and then serves the computed rows.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { PlanStage, Row, StageStats } from '../../query/exec/stages.js';
import { copyMetadata } from '../../query/exec/metadata.js';
import type { ReadView } from '../../storage/engine.js';

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

/**
 * A stage mapping each input document to zero or one output document (`undefined` drops it):
 * $match, $project, $addFields, $replaceRoot, $redact...
 */
export class MapStage implements PlanStage {
  readonly stats: StageStats;
  constructor(
    name: string,
    private readonly input: PlanStage,
    private readonly fn: (doc: BsonDocument, view: ReadView) => BsonDocument | undefined,
  ) {
    this.stats = newStats(name, [input]);
  }
  next(view: ReadView): Row | undefined {
    for (;;) {
      const row = this.input.next(view);
      if (row === undefined) return undefined;
      this.stats.works++;
      const out = this.fn(row.doc, view);
      if (out === undefined) continue;
      copyMetadata(row.doc, out);
      this.stats.nReturned++;
      return { doc: out };
    }
  }
}

/** A stage mapping each input document to any number of outputs ($unwind, $lookup + unwind). */
export class FlatMapStage implements PlanStage {
  readonly stats: StageStats;
  private pending: BsonDocument[] = [];
  private i = 0;
  constructor(
    name: string,
    private readonly input: PlanStage,
    private readonly fn: (doc: BsonDocument, view: ReadView) => BsonDocument[],
  ) {
    this.stats = newStats(name, [input]);
  }
  next(view: ReadView): Row | undefined {
    while (this.i >= this.pending.length) {
      const row = this.input.next(view);
      if (row === undefined) return undefined;
      this.stats.works++;
      this.pending = this.fn(row.doc, view);
      for (const out of this.pending) copyMetadata(row.doc, out);
      this.i = 0;
    }
    const doc = this.pending[this.i++] as BsonDocument;
    this.stats.nReturned++;
    return { doc };
  }
}

/**
 * A blocking stage: on the first pull it drains its input (on that batch's snapshot) through
 * `compute`, then serves the results; later batches only read the buffer.
 */
export class BlockingStage implements PlanStage {
  readonly stats: StageStats;
  private out: BsonDocument[] | undefined;
  private i = 0;
  constructor(
    name: string,
    private readonly input: PlanStage,
    private readonly compute: (rows: Iterable<BsonDocument>, view: ReadView) => BsonDocument[],
  ) {
    this.stats = newStats(name, [input]);
  }
  next(view: ReadView): Row | undefined {
    if (this.out === undefined) this.out = this.compute(drain(this.input, view), view);
    const doc = this.out[this.i];
    if (doc === undefined) return undefined;
    this.i++;
    this.stats.works++;
    this.stats.nReturned++;
    return { doc };
  }
}

/** Iterates an input stage's documents on one view. */
export function* drain(input: PlanStage, view: ReadView): Generator<BsonDocument> {
  for (let row = input.next(view); row !== undefined; row = input.next(view)) yield row.doc;
}

/** A source of fixed documents ($documents, sub-pipeline inputs). */
export class DocumentsStage implements PlanStage {
  readonly stats: StageStats;
  private i = 0;
  constructor(
    private readonly docs: readonly BsonDocument[],
    name = 'QUEUED_DATA',
  ) {
    this.stats = newStats(name, []);
  }
  next(): Row | undefined {
    const doc = this.docs[this.i];
    if (doc === undefined) return undefined;
    this.i++;
    this.stats.works++;
    this.stats.nReturned++;
    return { doc };
  }
}
