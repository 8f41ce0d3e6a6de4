// $indexStats: one document per index; access counters are not tracked yet, so `ops` is 0.

import { Long } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { collectionOf } from './types.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';
import { hostname } from 'node:os';

import { ComputedSource } from './computed-source.js';

class IndexStatsStage implements Stage {
  readonly name = '$indexStats';
  readonly constraints = { first: true } as const;
  constructor(private readonly ctx: { db: string; collection: string | undefined }) {}
  serialize(): BsonDocument {
    return { $indexStats: {} };
  }
  attach(_input: PlanStage, rt: Runtime): PlanStage {
    return new ComputedSource('$indexStats', () => {
      const coll = collectionOf(rt, this.ctx.collection ?? '', this.ctx.db);
      if (coll === undefined) return [];
      const since = new Date();
      return coll.indexes.map((i) => ({
        name: i.meta.name,
        key: i.meta.key,
        host: hostname(),
        accesses: { ops: Long.ZERO, since },
        spec: i.meta.spec,
      }));
    });
  }
}

export const $indexStats: StageDefinition = {
  name: '$indexStats',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg) || Object.keys(arg).length > 0)
      fail(ErrorCode.Location28803, 'The $indexStats stage specification must be an empty object');
    return new IndexStatsStage(ctx);
  },
};
