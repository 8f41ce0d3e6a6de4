// $bucket: groups documents into ranges [boundaries[i], boundaries[i+1]) of a groupBy value,
// the bucket's lower boundary as `_id`, plus an optional default bucket for values outside;
// sorted by `_id`. mongod rewrites it into $group + $sort over a $switch; the same semantics
// are computed directly here (binary search over the boundaries).

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { canonicalTypeRank, isArray, isPlainDocument } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { fail, ErrorCode } from '../../errors.js';
import { accumulators } from '../accumulators/index.js';
import { expressionContext } from '../context.js';
import { MISSING } from '../expressions/types.js';
import type { Expression, Frame, Value } from '../expressions/types.js';
import { compareValues, formatValue, typeName } from '../values.js';
import { BlockingStage } from './base.js';
import { GroupComputation, parseAccumulatedField, streamToArray } from './group.js';
import type { AccumulatedField, GroupSpec } from './group.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

export function isGroupByExpression(v: BsonValue): boolean {
  return (
    (typeof v === 'string' && v.startsWith('$')) ||
    (isPlainDocument(v) && (Object.keys(v)[0] ?? '').startsWith('$'))
  );
}

/** The default output of $bucket and $bucketAuto: {count: {$sum: 1}}. */
export function countField(ctx: PipelineContext): AccumulatedField {
  const sum = accumulators.get('$sum');
  if (sum === undefined) throw new Error('$sum accumulator missing');
  return { name: 'count', spec: sum.parse(new Int32(1), expressionContext(ctx)) };
}

export function parseOutputFields(
  v: BsonValue,
  ctx: PipelineContext,
  code: number,
  stage: string,
): AccumulatedField[] {
  if (!isPlainDocument(v))
    fail(code, `The ${stage} 'output' field must be an object, but found type: ${typeName(v)}.`);
  const ectx = expressionContext(ctx);
  return Object.entries(v).map(([name, spec]) => parseAccumulatedField(name, spec, ectx));
}

class BucketStage implements Stage {
  readonly name = '$bucket';
  constructor(
    private readonly spec: BsonDocument,
    private readonly group: GroupSpec,
  ) {}
  serialize(): BsonDocument {
    return { $bucket: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    return new BlockingStage('$bucket', input, () => {
      const group = new GroupComputation(this.group, rt, '$bucket');
      return {
        add: (doc) => group.add(doc),
        finish: () =>
          streamToArray(group.finish()).sort((a, b) =>
            compareValues(a['_id'] ?? null, b['_id'] ?? null),
          ),
      };
    });
  }
}

export const $bucket: StageDefinition = {
  name: '$bucket',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location40201,
        `Argument to $bucket stage must be an object, but found type: ${typeName(arg)}.`,
      );
    let groupBy: Expression | undefined;
    let boundaries: BsonValue[] | undefined;
    let dflt: Value = MISSING;
    let output: AccumulatedField[] | undefined;
    const ectx = expressionContext(ctx);
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'groupBy') {
        if (!isGroupByExpression(v))
          fail(
            ErrorCode.Location40202,
            `The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: ${formatBson(v)}.`,
          );
        groupBy = ectx.parse(v);
      } else if (k === 'boundaries') {
        if (!isArray(v))
          fail(
            ErrorCode.Location40200,
            `The $bucket 'boundaries' field must be an array, but found type: ${typeName(v)}.`,
          );
        boundaries = v.map((b, i) => {
          const e = ectx.parse(b);
          if (e.kind !== 'constant')
            fail(
              ErrorCode.Location40191,
              `The $bucket 'boundaries' field must be an array of constant values, but found value: ${formatBson(b)}.`,
            );
          void i;
          return (e.value === MISSING ? null : e.value) as BsonValue;
        });
      } else if (k === 'default') {
        const e = ectx.parse(v);
        if (e.kind !== 'constant')
          fail(
            ErrorCode.Location40195,
            `The $bucket 'default' field must be a constant expression, but found: ${formatBson(v)}.`,
          );
        dflt = e.value ?? null;
      } else if (k === 'output') {
        output = parseOutputFields(v, ctx, ErrorCode.Location40196, '$bucket');
      } else {
        fail(ErrorCode.Location40197, `Unrecognized option to $bucket: ${k}.`);
      }
    }
    if (groupBy === undefined || boundaries === undefined)
      fail(ErrorCode.Location40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.");
    if (boundaries.length < 2)
      fail(
        ErrorCode.Location40192,
        `The $bucket 'boundaries' field must have at least 2 values, but found ${boundaries.length} value(s).`,
      );
    for (let i = 1; i < boundaries.length; i++) {
      const lo = boundaries[i - 1] as BsonValue;
      const hi = boundaries[i] as BsonValue;
      if (canonicalTypeRank(lo) !== canonicalTypeRank(hi)) {
        fail(
          ErrorCode.Location40193,
          `All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types ${typeName(lo)} and ${typeName(hi)}.`,
        );
      }
      if (compareValues(lo, hi) >= 0) {
        fail(
          ErrorCode.Location40194,
          `The 'boundaries' option to $bucket must be sorted, but elements ${i - 1} and ${i} are not in ascending order (${formatValue(lo)} is not less than ${formatValue(hi)}).`,
        );
      }
    }
    const bounds = boundaries;
    const lowest = bounds[0] as BsonValue;
    const highest = bounds[bounds.length - 1] as BsonValue;
    if (dflt !== MISSING && compareValues(dflt, lowest) >= 0 && compareValues(dflt, highest) < 0) {
      fail(
        ErrorCode.Location40199,
        "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.",
      );
    }
    const by = groupBy;
    const fallback = dflt;
    const id: Expression = {
      kind: 'operator',
      op: '$bucket',
      evaluate: (frame: Frame): Value => {
        const v = by.evaluate(frame);
        // mongod's $switch compares with $gte/$lt: a value of another type is out of range.
        if (compareValues(v, lowest) >= 0 && compareValues(v, highest) < 0) {
          let lo = 0;
          let hi = bounds.length - 1;
          while (hi - lo > 1) {
            const mid = (lo + hi) >> 1;
            if (compareValues(v, bounds[mid] as BsonValue) >= 0) lo = mid;
            else hi = mid;
          }
          return bounds[lo] as BsonValue;
        }
        if (fallback === MISSING)
          fail(
            ErrorCode.Location40066,
            '$switch could not find a matching branch for an input, and no default was specified.',
          );
        return fallback;
      },
    };
    return new BucketStage(arg, { id, fields: output ?? [countField(ctx)] });
  },
};
