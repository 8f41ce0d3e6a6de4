// A blocking pipeline stage whose output is a stream rather than an array: on the first pull
// it drains its input (on that batch's snapshot) into a sorter or grouper, which may have
// spilled to disk, and then serves one document per pull, reading spilled runs as the cursor
// advances. Its explain statistics come from the computation (usedDisk, spills, ...).

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { PlanStage, Row, StageStats } from '../../query/exec/stages.js';
import type { ReadView } from '../../storage/engine.js';
import { drain, newStats } from '../stages/base.js';
import type { SortedStream } from './sorter.js';

export class StreamingBlockingStage implements PlanStage {
  readonly stats: StageStats;
  private out: SortedStream<BsonDocument> | undefined;

  constructor(
    name: string,
    private readonly input: PlanStage,
    private readonly compute: (rows: Iterable<BsonDocument>) => SortedStream<BsonDocument>,
    runtimeStats?: () => Record<string, BsonValue>,
  ) {
    this.stats = newStats(name, [input]);
    if (runtimeStats !== undefined)
      Object.defineProperty(this.stats, 'extra', { enumerable: true, get: runtimeStats });
  }

  next(view: ReadView): Row | undefined {
    this.out ??= this.compute(drain(this.input, view));
    const doc = this.out.next();
    if (doc === undefined) return undefined;
    this.stats.works++;
    this.stats.nReturned++;
    return { doc };
  }
}
