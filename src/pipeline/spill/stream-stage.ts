// A blocking pipeline stage whose output is a stream rather than an array: on the first pull
// it drains its input (on that batch's snapshot) into a sorter or grouper, which may have
// spilled to disk, and then serves one document per pull, reading spilled runs as the cursor
// advances. Its explain statistics come from the computation (usedDisk, spills, ...).

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { PlanStage, StageStats } from '../../query/exec/stages.js';
import type { ReadView } from '../../storage/engine.js';
import { NEED_TIME, runSync } from '../../query/exec/yield.js';
import type { Pull } from '../../query/exec/yield.js';
import { feed, newStats } from '../stages/base.js';
import type { BlockingComputation } from '../stages/base.js';
import type { SortedStream } from '../../query/spill/sorter.js';

export class StreamingBlockingStage implements PlanStage {
  readonly stats: StageStats;
  private computation: BlockingComputation<SortedStream<BsonDocument>> | undefined;
  private out: SortedStream<BsonDocument> | undefined;

  constructor(
    name: string,
    private readonly input: PlanStage,
    private readonly start: () => BlockingComputation<SortedStream<BsonDocument>>,
    runtimeStats?: () => Record<string, BsonValue>,
  ) {
    this.stats = newStats(name, [input]);
    if (runtimeStats !== undefined)
      Object.defineProperty(this.stats, 'extra', { enumerable: true, get: runtimeStats });
  }

  next(view: ReadView): Pull {
    if (this.out === undefined) {
      const c = (this.computation ??= this.start());
      if (feed(this.input, view, c) === NEED_TIME) return NEED_TIME;
      this.out = runSync(() => c.finish(view));
      this.computation = undefined;
    }
    const doc = this.out.next();
    if (doc === undefined) return undefined;
    this.stats.works++;
    this.stats.nReturned++;
    return { doc };
  }
}
