// $_internalUnpackBucket: the stage of a time-series view's pipeline (mongod's
// DocumentSourceInternalUnpackBucket). Each input document is a bucket of
// system.buckets.<coll> (src/catalog/timeseries.ts); the output is its measurements: the time
// field, the meta field (the bucket's `meta`), then the other fields.
//
// A $match after it also gives, at optimize time, a $match on the buckets placed before it
// (pipeline.ts): predicates on the meta field become the same predicates on `meta`, and
// comparisons of the time field with a date become bounds on control.min/control.max. That
// bucket filter keeps every bucket that may hold a matching measurement; the $match itself
// stays after the stage, so the results are those of unpacking everything.

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument, numericValue } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { TimeseriesOptions } from '../../catalog/timeseries.js';
import { unpackBucket } from '../../catalog/timeseries.js';
import { compileMatch } from '../context.js';
import { FlatMapStage } from './base.js';
import { MatchStage } from './match.js';
import type { PipelineContext, Stage, StageDefinition } from './types.js';

export class UnpackBucketStage implements Stage {
  readonly name = '$_internalUnpackBucket';
  constructor(
    readonly options: TimeseriesOptions,
    private readonly ctx: PipelineContext,
  ) {}
  serialize(): BsonDocument {
    const o = this.options;
    return {
      $_internalUnpackBucket: {
        timeField: o.timeField,
        ...(o.metaField === undefined ? {} : { metaField: o.metaField }),
        bucketMaxSpanSeconds: new Int32(o.bucketMaxSpanSeconds),
      },
    };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    return new FlatMapStage(this.name, input, (doc) => unpackBucket(this.options, doc));
  }
  /** The $match on buckets implied by a $match on measurements; undefined if nothing is. */
  bucketMatch(match: MatchStage): MatchStage | undefined {
    const conjuncts = bucketPredicates(this.options, match.filter);
    if (conjuncts.length === 0) return undefined;
    const filter: BsonDocument =
      conjuncts.length === 1 ? (conjuncts[0] as BsonDocument) : { $and: conjuncts };
    return new MatchStage(filter, compileMatch(filter, this.ctx), this.ctx);
  }
}

const timeBounds: Readonly<Record<string, 'min' | 'max' | 'both'>> = {
  $gt: 'max',
  $gte: 'max',
  $lt: 'min',
  $lte: 'min',
  $eq: 'both',
};

/** Conjuncts on the buckets that every bucket holding a measurement matching `filter` meets. */
export function bucketPredicates(o: TimeseriesOptions, filter: BsonDocument): BsonDocument[] {
  const out: BsonDocument[] = [];
  const minPath = `control.min.${o.timeField}`;
  const maxPath = `control.max.${o.timeField}`;
  const onTime = (op: string, d: Date): void => {
    const side = timeBounds[op];
    if (side === 'max' || side === 'both')
      out.push({ [maxPath]: { [op === '$eq' ? '$gte' : op]: d } });
    if (side === 'min' || side === 'both')
      out.push({ [minPath]: { [op === '$eq' ? '$lte' : op]: d } });
  };
  for (const k of Object.keys(filter)) {
    const v = filter[k] as BsonValue;
    if (k === '$and' && isArray(v)) {
      for (const sub of v) if (isPlainDocument(sub)) out.push(...bucketPredicates(o, sub));
    } else if (
      o.metaField !== undefined &&
      (k === o.metaField || k.startsWith(`${o.metaField}.`))
    ) {
      out.push({ [`meta${k.slice(o.metaField.length)}`]: v });
    } else if (k === o.timeField) {
      if (v instanceof Date) onTime('$eq', v);
      else if (isPlainDocument(v))
        for (const op of Object.keys(v)) {
          const d = v[op];
          if (d instanceof Date && Object.hasOwn(timeBounds, op)) onTime(op, d);
        }
    }
  }
  return out;
}

export const $_internalUnpackBucket: StageDefinition = {
  name: '$_internalUnpackBucket',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(ErrorCode.Location5346500, 'invalid argument to $_internalUnpackBucket stage');
    let timeField: string | undefined;
    let metaField: string | undefined;
    let span: number | undefined;
    for (const k of Object.keys(arg)) {
      const v = arg[k];
      if (k === 'timeField') {
        if (typeof v !== 'string')
          fail(ErrorCode.Location5346500, 'timeField field must be a string');
        timeField = v;
      } else if (k === 'metaField') {
        if (typeof v !== 'string')
          fail(ErrorCode.Location5346504, 'metaField field must be a string');
        metaField = v;
      } else if (k === 'bucketMaxSpanSeconds') {
        const n = numericValue(v);
        if (n === undefined || !Number.isInteger(n))
          fail(ErrorCode.Location5510600, 'bucketMaxSpanSeconds field must be an integer');
        if (n <= 0 || n > limits.timeseriesBucketSpanSecondsMax)
          fail(ErrorCode.Location5510600, 'bucketMaxSpanSeconds field must be greater than zero');
        span = n;
      } else {
        fail(ErrorCode.Location5346506, `unrecognized parameter to $_internalUnpackBucket: ${k}`);
      }
    }
    if (timeField === undefined)
      fail(
        ErrorCode.Location5346500,
        'The $_internalUnpackBucket stage requires a timeField parameter',
      );
    if (span === undefined)
      fail(
        ErrorCode.Location5510600,
        'The $_internalUnpackBucket stage requires a bucketMaxSpanSeconds parameter',
      );
    return new UnpackBucketStage(
      { timeField, metaField, bucketMaxSpanSeconds: span, bucketRoundingSeconds: span },
      ctx,
    );
  },
};
