// $bucketAuto: sorts documents by a groupBy value and cuts them into `buckets` groups of about
// equal size (equal values always share a bucket), each with {_id: {min, max}} and the output
// accumulators (default {count: {$sum: 1}}). A bucket's max is the next bucket's min, the last
// one's its largest value; with a `granularity` the bounds are rounded to a preferred-number
// series (mongod's GranularityRounder).

import { Double } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { setOwn } from '../../bson/document.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import type { Accumulator } from '../accumulators/index.js';
import { expressionContext } from '../context.js';
import { AggCode } from '../error-codes.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression } from '../expressions/types.js';
import { approximateValueSize } from '../memory.js';
import { compareValues, formatValue, integralValue, isIntegral32, isNumeric, numberOf, typeName } from '../values.js';
import { BlockingStage } from './base.js';
import { countField, isGroupByExpression, parseOutputFields } from './bucket.js';
import { createAccumulator } from './group.js';
import type { AccumulatedField } from './group.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

// ---- granularity -----------------------------------------------------------------------------

const SERIES: Record<string, readonly number[]> = {
  R5: [1.0, 1.6, 2.5, 4.0, 6.3],
  R10: [1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0],
  R20: [1.0, 1.12, 1.25, 1.4, 1.6, 1.8, 2.0, 2.24, 2.5, 2.8, 3.15, 3.55, 4.0, 4.5, 5.0, 5.6, 6.3, 7.1, 8.0, 9.0],
  '1-2-5': [1, 2, 5],
  E6: [1.0, 1.5, 2.2, 3.3, 4.7, 6.8],
  E12: [1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2],
  E24: [1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7, 3.0, 3.3, 3.6, 3.9, 4.3, 4.7, 5.1, 5.6, 6.2, 6.8, 7.5, 8.2, 9.1],
};
const UNSUPPORTED_SERIES = new Set(['R40', 'R80', 'E48', 'E96', 'E192']);

interface Rounder {
  up(x: number): number;
  down(x: number): number;
}

function seriesRounder(base: readonly number[]): Rounder {
  // The series repeated over powers of ten; `up` is strictly greater, `down` strictly less.
  const candidates = (x: number): number[] => {
    const e = Math.floor(Math.log10(x));
    const out: number[] = [];
    for (let k = e - 1; k <= e + 1; k++) for (const b of base) out.push(Number((b * 10 ** k).toPrecision(12)));
    return out.sort((a, b) => a - b);
  };
  return {
    up: (x) => (x === 0 ? 0 : (candidates(x).find((c) => c > x) ?? x)),
    down: (x) => (x === 0 ? 0 : ([...candidates(x)].reverse().find((c) => c < x) ?? 0)),
  };
}

const powersOf2: Rounder = {
  up: (x) => (x === 0 ? 0 : 2 ** (Math.floor(Math.log2(x)) + 1)),
  down: (x) => {
    if (x === 0) return 0;
    const p = 2 ** Math.floor(Math.log2(x));
    return p === x ? p / 2 : p;
  },
};

function rounderFor(name: string): Rounder {
  if (name === 'POWERSOF2') return powersOf2;
  const series = SERIES[name];
  if (series !== undefined) return seriesRounder(series);
  if (UNSUPPORTED_SERIES.has(name)) fail(ErrorCode.NotImplemented, `$bucketAuto granularity ${name} is not supported yet`);
  fail(AggCode.Location40257, `Rounding granularity not recognized: ${name}`);
}

function roundValue(v: BsonValue, r: Rounder, dir: 'up' | 'down'): BsonValue {
  if (!isNumeric(v)) fail(AggCode.Location40258, `$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: ${typeName(v)}`);
  const x = numberOf(v);
  if (x < 0 || Number.isNaN(x)) fail(AggCode.Location40260, `A granularity can only be used with positive numbers, but found ${formatValue(v)}`);
  return new Double(dir === 'up' ? r.up(x) : r.down(x));
}

// ---- the stage ------------------------------------------------------------------------------------

interface Bucket {
  min: BsonValue;
  max: BsonValue;
  readonly accs: Accumulator[];
}

class BucketAutoStage implements Stage {
  readonly name = '$bucketAuto';
  constructor(
    private readonly spec: BsonDocument,
    private readonly groupBy: Expression,
    private readonly buckets: number,
    private readonly output: readonly AccumulatedField[],
    private readonly rounder: Rounder | undefined,
  ) {}
  serialize(): BsonDocument {
    return { $bucketAuto: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    return new BlockingStage('$bucketAuto', input, (docs) => this.compute(docs, rt));
  }
  private compute(docs: Iterable<BsonDocument>, rt: Runtime): BsonDocument[] {
    const frame = rt.frame;
    const keyed: Array<{ key: BsonValue; doc: BsonDocument; seq: number }> = [];
    let bytes = 0;
    for (const doc of docs) {
      frame.vars[ROOT_SLOT] = doc;
      const k = this.groupBy.evaluate(frame);
      keyed.push({ key: k === MISSING ? null : k, doc, seq: keyed.length });
      bytes += approximateValueSize(doc);
      if (bytes > limits.blockingStageMemoryBytesMax && !rt.allowDiskUse) {
        fail(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed, `$bucketAuto exceeded memory limit of ${limits.blockingStageMemoryBytesMax} bytes, but did not opt in to external sorting.`);
      }
    }
    if (this.rounder !== undefined) for (const k of keyed) roundValue(k.key, this.rounder, 'up');
    keyed.sort((a, b) => compareValues(a.key, b.key) || a.seq - b.seq);
    const approx = Math.max(1, Math.round(keyed.length / this.buckets));
    const out: Bucket[] = [];
    const add = (b: Bucket, item: { key: BsonValue; doc: BsonDocument }): void => {
      frame.vars[ROOT_SLOT] = item.doc;
      b.max = item.key;
      this.output.forEach((f, i) => {
        const acc = b.accs[i] as Accumulator;
        frame.vars[ROOT_SLOT] = item.doc;
        if (acc.needsInput) acc.process(f.spec.argument.evaluate(frame));
      });
    };
    let i = 0;
    for (let n = 0; n < this.buckets && i < keyed.length; n++) {
      const last = n === this.buckets - 1;
      const first = keyed[i++] as { key: BsonValue; doc: BsonDocument };
      const bucket: Bucket = { min: first.key, max: first.key, accs: this.output.map((f) => createAccumulator(f.spec, null, rt)) };
      if (this.rounder !== undefined) {
        bucket.min = roundValue(first.key, this.rounder, 'down');
        const prev = out[out.length - 1];
        if (prev !== undefined && compareValues(prev.max, bucket.min) > 0) bucket.min = prev.max;
      }
      add(bucket, first);
      let count = 1;
      while ((last || count < approx) && i < keyed.length) {
        add(bucket, keyed[i++] as { key: BsonValue; doc: BsonDocument });
        count++;
      }
      // Equal values stay together.
      while (i < keyed.length && compareValues((keyed[i] as { key: BsonValue }).key, bucket.max) === 0) add(bucket, keyed[i++] as { key: BsonValue; doc: BsonDocument });
      if (this.rounder !== undefined) {
        const rounded = roundValue(bucket.max, this.rounder, 'up');
        while (i < keyed.length && compareValues((keyed[i] as { key: BsonValue }).key, rounded) < 0) add(bucket, keyed[i++] as { key: BsonValue; doc: BsonDocument });
        bucket.max = rounded;
      }
      out.push(bucket);
      if ((n & 63) === 0) rt.interrupt();
    }
    if (this.rounder === undefined) for (let b = 0; b < out.length - 1; b++) (out[b] as Bucket).max = (out[b + 1] as Bucket).min;
    return out.map((b) => {
      const doc: BsonDocument = { _id: { min: b.min, max: b.max } };
      this.output.forEach((f, k) => {
        const v = (b.accs[k] as Accumulator).value();
        setOwn(doc, f.name, v === MISSING ? null : v);
      });
      return doc;
    });
  }
}

export const $bucketAuto: StageDefinition = {
  name: '$bucketAuto',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg)) fail(AggCode.Location40240, `The argument to $bucketAuto must be an object, but found type: ${typeName(arg)}.`);
    let groupBy: Expression | undefined;
    let buckets: number | undefined;
    let output: AccumulatedField[] | undefined;
    let rounder: Rounder | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'groupBy') {
        if (!isGroupByExpression(v)) fail(AggCode.Location40239, `The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: ${formatBson(v)}.`);
        groupBy = expressionContext(ctx).parse(v);
      } else if (k === 'buckets') {
        if (!isNumeric(v)) fail(AggCode.Location40241, `The $bucketAuto 'buckets' field must be a numeric value, but found type: ${typeName(v)}.`);
        if (!isIntegral32(v)) fail(AggCode.Location40242, `The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found ${formatValue(v)}.`);
        const n = Number(integralValue(v));
        if (n <= 0) fail(AggCode.Location40243, `The $bucketAuto 'buckets' field must be greater than 0, but found: ${n}.`);
        buckets = n;
      } else if (k === 'output') {
        output = parseOutputFields(v, ctx, AggCode.Location40244, '$bucketAuto');
      } else if (k === 'granularity') {
        if (typeof v !== 'string') fail(AggCode.Location40261, `The $bucketAuto 'granularity' field must be a string, but found type: ${typeName(v)}.`);
        rounder = rounderFor(v);
      } else {
        fail(AggCode.Location40245, `Unrecognized option to $bucketAuto: ${k}.`);
      }
    }
    if (groupBy === undefined || buckets === undefined) fail(AggCode.Location40246, "$bucketAuto requires 'groupBy' and 'buckets' to be specified");
    return new BucketAutoStage(arg, groupBy, buckets, output ?? [countField(ctx)], rounder);
  },
};
