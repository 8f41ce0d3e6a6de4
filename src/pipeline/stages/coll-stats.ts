// $collStats: statistics of the collection — count, storageStats, and latencyStats /
// queryExecStats with zero counters (this server does not track them yet).

import { Int32, Long } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { AggCode } from '../error-codes.js';
import { typeName } from '../values.js';
import { cappedStatsFields } from '../../catalog/collection.js';
import { catalogOf, collectionOf } from './types.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';
import { hostname } from 'node:os';

import { ComputedSource } from './computed-source.js';

const SECTIONS = new Set(['count', 'storageStats', 'latencyStats', 'queryExecStats']);

class CollStatsStage implements Stage {
  readonly name = '$collStats';
  readonly constraints = { first: true, notInFacet: true } as const;
  constructor(
    private readonly spec: BsonDocument,
    private readonly ctx: { db: string; collection: string | undefined },
  ) {}
  serialize(): BsonDocument {
    return { $collStats: this.spec };
  }
  attach(_input: PlanStage, rt: Runtime): PlanStage {
    return new ComputedSource('$collStats', (view) => {
      const name = this.ctx.collection ?? '';
      const coll = collectionOf(rt, name, this.ctx.db);
      const out: BsonDocument = {
        ns: `${this.ctx.db}.${name}`,
        host: hostname(),
        localTime: new Date(),
      };
      const size =
        coll === undefined ? { count: 0, dataBytes: 0 } : catalogOf(rt).sizeOf(view, coll);
      if (this.spec['latencyStats'] !== undefined) {
        const zero = { latency: Long.ZERO, ops: Long.ZERO };
        out['latencyStats'] = { reads: zero, writes: zero, commands: zero, transactions: zero };
      }
      if (this.spec['storageStats'] !== undefined) {
        if (coll === undefined)
          fail(
            ErrorCode.NamespaceNotFound,
            `Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [${this.ctx.db}.${name}] not found.`,
          );
        const indexSizes: BsonDocument = {};
        for (const i of coll.indexes) indexSizes[i.meta.name] = new Int32(0);
        out['storageStats'] = {
          size: new Int32(size.dataBytes),
          count: new Int32(size.count),
          avgObjSize: new Int32(size.count === 0 ? 0 : Math.floor(size.dataBytes / size.count)),
          storageSize: new Int32(size.dataBytes),
          freeStorageSize: new Int32(0),
          ...cappedStatsFields(coll),
          nindexes: new Int32(coll.indexes.length),
          indexBuilds: [],
          totalIndexSize: new Int32(0),
          totalSize: new Int32(size.dataBytes),
          indexSizes,
          scaleFactor: new Int32(1),
        };
      }
      if (this.spec['count'] !== undefined) {
        if (coll === undefined)
          fail(
            ErrorCode.NamespaceNotFound,
            `Unable to retrieve count in $collStats stage :: caused by :: Collection [${this.ctx.db}.${name}] not found.`,
          );
        out['count'] = new Int32(size.count);
      }
      if (this.spec['queryExecStats'] !== undefined)
        out['queryExecStats'] = { collectionScans: { total: Long.ZERO, nonTailable: Long.ZERO } };
      return [out];
    });
  }
}

export const $collStats: StageDefinition = {
  name: '$collStats',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg))
      fail(
        AggCode.Location5447000,
        `$collStats must take a nested object but found: ${typeName(arg)}`,
      );
    for (const [k, v] of Object.entries(arg)) {
      if (!SECTIONS.has(k))
        fail(ErrorCode.Location40415, `BSON field '$collStats.${k}' is an unknown field.`);
      if (!isPlainDocument(v))
        fail(
          ErrorCode.TypeMismatch,
          `BSON field '$collStats.${k}' is the wrong type '${typeName(v)}', expected type 'object'`,
        );
    }
    return new CollStatsStage(arg, ctx);
  },
};
