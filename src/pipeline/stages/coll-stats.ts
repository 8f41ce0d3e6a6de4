// $collStats: statistics of the collection — count, storageStats, and latencyStats /
// queryExecStats with zero counters (this server does not track them yet). Sizes come from the
// storage engine's table sizes; latencyStats from the server's per-namespace counters.

import { Long } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { sizeNumber, storageStatsOf } from '../../catalog/sizes.js';
import { ErrorCode, fail } from '../../errors.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { typeName } from '../values.js';
import { catalogOf, collectionOf } from './types.js';
import type {
  PipelineContext,
  Runtime,
  ServerIntrospection,
  Stage,
  StageDefinition,
} from './types.js';
import { hostname } from 'node:os';

import { ComputedSource } from './computed-source.js';

const SECTIONS = new Set(['count', 'storageStats', 'latencyStats', 'queryExecStats']);

class CollStatsStage implements Stage {
  readonly name = '$collStats';
  readonly constraints = { first: true, notInFacet: true } as const;
  constructor(
    private readonly spec: BsonDocument,
    private readonly ctx: {
      db: string;
      collection: string | undefined;
      server?: ServerIntrospection | undefined;
    },
  ) {}
  serialize(): BsonDocument {
    return { $collStats: this.spec };
  }
  attach(_input: PlanStage, rt: Runtime): PlanStage {
    return new ComputedSource('$collStats', (view) => {
      const name = this.ctx.collection ?? '';
      const ns = `${this.ctx.db}.${name}`;
      const coll = collectionOf(rt, name, this.ctx.db);
      const out: BsonDocument = { ns, host: hostname(), localTime: new Date() };
      const latency = this.spec['latencyStats'];
      if (latency !== undefined) {
        const l = this.ctx.server?.latencyStats?.(ns);
        const section = (c: { latency: number; ops: number } | undefined): BsonDocument => ({
          latency: Long.fromNumber(c?.latency ?? 0),
          ops: Long.fromNumber(c?.ops ?? 0),
        });
        out['latencyStats'] = {
          reads: section(l?.reads),
          writes: section(l?.writes),
          commands: section(l?.commands),
          transactions: section(undefined),
        };
      }
      const storage = this.spec['storageStats'];
      if (isPlainDocument(storage)) {
        if (coll === undefined)
          fail(
            ErrorCode.NamespaceNotFound,
            `Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [${ns}] not found.`,
          );
        out['storageStats'] = storageStatsOf(catalogOf(rt).engine, coll, scaleOf(storage));
      }
      if (this.spec['count'] !== undefined) {
        if (coll === undefined)
          fail(
            ErrorCode.NamespaceNotFound,
            `Unable to retrieve count in $collStats stage :: caused by :: Collection [${ns}] not found.`,
          );
        out['count'] = sizeNumber(coll.count(view));
      }
      if (this.spec['queryExecStats'] !== undefined)
        out['queryExecStats'] = { collectionScans: { total: Long.ZERO, nonTailable: Long.ZERO } };
      return [out];
    });
  }
}

/** storageStats' scale: a whole number >= 1 (StorageStatsSpec). */
function scaleOf(spec: BsonDocument): number {
  for (const [k, v] of Object.entries(spec)) {
    if (k !== 'scale' && k !== 'verbose' && k !== 'waitForLock' && k !== 'numericOnly')
      fail(
        ErrorCode.Location40415,
        `BSON field '$collStats.storageStats.${k}' is an unknown field.`,
      );
    if (k === 'scale') {
      const n = numericValue(v);
      if (n === undefined)
        fail(
          ErrorCode.TypeMismatch,
          `BSON field '$collStats.storageStats.scale' is the wrong type '${typeName(v)}', expected types '[long, int, decimal, double]'`,
        );
      if (Math.trunc(n) < 1)
        fail(
          ErrorCode.Location51024,
          `BSON field 'scale' value must be >= 1, actual value '${Math.trunc(n)}'`,
        );
    }
  }
  const n = numericValue(spec['scale']);
  return n === undefined ? 1 : Math.trunc(n);
}

export const $collStats: StageDefinition = {
  name: '$collStats',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location5447000,
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
    const storage = arg['storageStats'];
    if (isPlainDocument(storage)) scaleOf(storage);
    return new CollStatsStage(arg, ctx);
  },
};
