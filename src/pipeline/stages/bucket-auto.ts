// $bucketAuto: sorts documents by a groupBy value and cuts them into `buckets` groups of about
// equal size (equal values always share a bucket), each with {_id: {min, max}} and the output
// accumulators (default {count: {$sum: 1}}). A bucket's max is the next bucket's min, the last
// one's its largest value; with a `granularity` the bounds are rounded to a preferred-number
// series (mongod's GranularityRounder).

import type { BsonNumber } from '../../bson/numeric.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { setOwn } from '../../bson/document.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import type { Accumulator } from '../accumulators/index.js';
import { expressionContext } from '../context.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression } from '../expressions/types.js';
import {
  compareValues,
  formatValue,
  integralValue,
  isIntegral32,
  isNumeric,
  typeName,
} from '../values.js';
import { toDouble } from '../../bson/numeric.js';
import { BlockingStage, collected, memoryBound, sortSteps } from './base.js';
import type { Steps } from './base.js';
import { sliceDue } from '../../query/exec/yield.js';
import { rounderFor } from './granularity.js';
import type { Rounder } from './granularity.js';
import { countField, isGroupByExpression, parseOutputFields } from './bucket.js';
import { createAccumulator } from './group.js';
import type { AccumulatedField } from './group.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

/** mongod's extractKey checks: granularity needs non-negative numbers (40258, 40259, 40260). */
function checkGranularityKey(v: BsonValue): void {
  if (!isNumeric(v))
    fail(
      ErrorCode.Location40258,
      `$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: ${typeName(v)}`,
    );
  const x = toDouble(v);
  if (Number.isNaN(x))
    fail(
      ErrorCode.Location40259,
      "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a NaN",
    );
  if (x < 0)
    fail(
      ErrorCode.Location40260,
      "$bucketAuto can specify a 'granularity' with non-negative numbers only, but found a negative number",
    );
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
    const bytesMax = rt.memory?.bucketAutoBytesMax ?? limits.bucketAutoMemoryBytesMax;
    return new BlockingStage('$bucketAuto', input, () =>
      collected(
        (docs) => this.compute(docs, rt),
        memoryBound(bytesMax, rt.allowDiskUse, () =>
          fail(
            ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed,
            `$bucketAuto exceeded memory limit of ${bytesMax} bytes, but did not opt in to external sorting.`,
          ),
        ),
      ),
    );
  }
  private *compute(docs: BsonDocument[], rt: Runtime): Steps<BsonDocument[]> {
    const frame = rt.frame;
    let keyed: Array<{ key: BsonValue; doc: BsonDocument; seq: number }> = [];
    for (const doc of docs) {
      frame.vars[ROOT_SLOT] = doc;
      const k = this.groupBy.evaluate(frame);
      keyed.push({ key: k === MISSING ? null : k, doc, seq: keyed.length });
      if (sliceDue()) yield;
    }
    docs.length = 0;
    if (this.rounder !== undefined) for (const k of keyed) checkGranularityKey(k.key);
    keyed = yield* sortSteps(keyed, (a, b) => compareValues(a.key, b.key) || a.seq - b.seq);
    const approx = Math.max(1, Math.round(keyed.length / this.buckets));
    const out: Bucket[] = [];
    const add = (b: Bucket, item: { key: BsonValue; doc: BsonDocument }): void => {
      b.max = item.key;
      this.output.forEach((f, i) => {
        const acc = b.accs[i] as Accumulator;
        frame.vars[ROOT_SLOT] = item.doc;
        if (acc.needsInput) acc.process(f.spec.argument.evaluate(frame));
      });
    };
    const rounder = this.rounder;
    const keyAt = (k: number): BsonValue => (keyed[k] as { key: BsonValue }).key;
    let i = 0;
    let previousMax: BsonValue | undefined;
    // mongod's DocumentSourceBucketAuto::populateNextBucket and adjustBoundariesAndGetMinForNextBucket.
    for (let n = 0; n < this.buckets && i < keyed.length; n++) {
      const last = n === this.buckets - 1;
      const first = keyed[i++] as { key: BsonValue; doc: BsonDocument };
      const bucket: Bucket = {
        min: first.key,
        max: first.key,
        accs: this.output.map((f) => createAccumulator(f.spec, null, rt)),
      };
      // With a granularity, a bucket starts where the previous one ended.
      if (rounder !== undefined) bucket.min = previousMax ?? rounder.down(first.key as BsonNumber);
      add(bucket, first);
      for (let count = 1; (last || count < approx) && i < keyed.length; count++) {
        add(bucket, keyed[i++] as { key: BsonValue; doc: BsonDocument });
        if (sliceDue()) yield;
      }
      if (rounder !== undefined) {
        const boundary = rounder.up(bucket.max as BsonNumber);
        // Values below the rounded boundary (or equal to the maximum) join this bucket.
        while (
          i < keyed.length &&
          (compareValues(boundary, keyAt(i)) > 0 || compareValues(bucket.max, keyAt(i)) === 0)
        ) {
          add(bucket, keyed[i++] as { key: BsonValue; doc: BsonDocument });
          if (sliceDue()) yield;
        }
        // A boundary of zero would make the next bucket's minimum inclusive twice.
        bucket.max =
          toDouble(boundary as BsonNumber) === 0 && i < keyed.length
            ? rounder.down(keyAt(i) as BsonNumber)
            : boundary;
      } else {
        // Equal values stay together; a bucket ends where the next one starts.
        while (i < keyed.length && compareValues(keyAt(i), bucket.max) === 0) {
          add(bucket, keyed[i++] as { key: BsonValue; doc: BsonDocument });
          if (sliceDue()) yield;
        }
        if (i < keyed.length) bucket.max = keyAt(i);
      }
      previousMax = bucket.max;
      out.push(bucket);
      if (sliceDue()) yield;
    }
    const result: BsonDocument[] = [];
    for (const b of out) {
      const doc: BsonDocument = { _id: { min: b.min, max: b.max } };
      this.output.forEach((f, k) => {
        const v = (b.accs[k] as Accumulator).value();
        setOwn(doc, f.name, v === MISSING ? null : v);
      });
      result.push(doc);
      if (sliceDue()) yield;
    }
    return result;
  }
}

export const $bucketAuto: StageDefinition = {
  name: '$bucketAuto',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location40240,
        `The argument to $bucketAuto must be an object, but found type: ${typeName(arg)}.`,
      );
    let groupBy: Expression | undefined;
    let buckets: number | undefined;
    let output: AccumulatedField[] | undefined;
    let rounder: Rounder | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'groupBy') {
        if (!isGroupByExpression(v))
          fail(
            ErrorCode.Location40239,
            `The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: ${formatBson(v)}.`,
          );
        groupBy = expressionContext(ctx).parse(v);
      } else if (k === 'buckets') {
        if (!isNumeric(v))
          fail(
            ErrorCode.Location40241,
            `The $bucketAuto 'buckets' field must be a numeric value, but found type: ${typeName(v)}.`,
          );
        if (!isIntegral32(v))
          fail(
            ErrorCode.Location40242,
            `The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found ${formatValue(v)}.`,
          );
        const n = Number(integralValue(v));
        if (n <= 0)
          fail(
            ErrorCode.Location40243,
            `The $bucketAuto 'buckets' field must be greater than 0, but found: ${n}.`,
          );
        buckets = n;
      } else if (k === 'output') {
        output = parseOutputFields(v, ctx, ErrorCode.Location40244, '$bucketAuto');
      } else if (k === 'granularity') {
        if (typeof v !== 'string')
          fail(
            ErrorCode.Location40261,
            `The $bucketAuto 'granularity' field must be a string, but found type: ${typeName(v)}.`,
          );
        rounder = rounderFor(v);
      } else {
        fail(ErrorCode.Location40245, `Unrecognized option to $bucketAuto: ${k}.`);
      }
    }
    if (groupBy === undefined || buckets === undefined)
      fail(ErrorCode.Location40246, "$bucketAuto requires 'groupBy' and 'buckets' to be specified");
    return new BucketAutoStage(arg, groupBy, buckets, output ?? [countField(ctx)], rounder);
  },
};
