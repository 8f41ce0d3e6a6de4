// A source stage that computes its documents on the first pull, from that batch's snapshot.

import type { BsonDocument } from '../../bson/types.js';
import type { PlanStage, Row } from '../../query/exec/stages.js';
import type { ReadView } from '../../storage/engine.js';
import { newStats } from './base.js';

export /** A source that computes its documents on the first pull, from the batch's snapshot. */
class ComputedSource implements PlanStage {
  readonly stats;
  private docs: BsonDocument[] | undefined;
  private i = 0;
  constructor(
    name: string,
    private readonly compute: (view: ReadView) => BsonDocument[],
  ) {
    this.stats = newStats(name, []);
  }
  next(view: ReadView): Row | undefined {
    this.docs ??= this.compute(view);
    const doc = this.docs[this.i];
    if (doc === undefined) return undefined;
    this.i++;
    this.stats.nReturned++;
    return { doc };
  }
}
