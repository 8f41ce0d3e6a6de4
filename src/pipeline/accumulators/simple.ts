// The one-value accumulators: $sum $avg $min $max $first $last $stdDevPop $stdDevSamp $count
// $mergeObjects, with mongod's rules for what each ignores (non-numbers for $sum/$avg/$stdDev*,
// null and missing for $min/$max, nothing for $first/$last, which turn missing into null).

import { Int32 } from 'bson';
import { Double } from 'bson';
import { isNumeric, toDouble } from '../../bson/numeric.js';
import { setOwn } from '../../bson/document.js';
import { isPlainDocument } from '../../bson/types.js';
import type { BsonDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { approximateValueSize } from '../../query/memory.js';
import { compareValues, formatValue, isNullish, typeName } from '../values.js';
import { MISSING } from '../expressions/types.js';
import type { Value } from '../expressions/types.js';
import { Summation } from './summation.js';
import type { Collator } from '../../bson/collation.js';
import { SCALAR_STATE_BYTES } from './types.js';
import type { Accumulator, AccumulatorDefinition, AccumulatorSpec } from './types.js';

/** The common shape: `{$op: <expression>}` with a factory for the state. */
export function simpleAccumulator(
  name: string,
  create: (collator: Collator | undefined) => Accumulator,
): AccumulatorDefinition {
  return {
    name,
    parse(arg, ctx): AccumulatorSpec {
      return { name, argument: ctx.parse(arg), create: (_initial, collator) => create(collator) };
    },
  };
}

export class SumAccumulator implements Accumulator {
  readonly bytes = SCALAR_STATE_BYTES;
  readonly needsInput = true;
  private readonly sum = new Summation();
  process(v: Value): void {
    if (isNumeric(v)) this.sum.add(v);
  }
  value(): Value {
    return this.sum.total();
  }
}

export class AvgAccumulator implements Accumulator {
  readonly bytes = SCALAR_STATE_BYTES;
  readonly needsInput = true;
  private readonly sum = new Summation();
  process(v: Value): void {
    if (isNumeric(v)) this.sum.add(v);
  }
  value(): Value {
    return this.sum.average();
  }
}

export class MinMaxAccumulator implements Accumulator {
  readonly needsInput = true;
  private best: Value = MISSING;
  bytes = SCALAR_STATE_BYTES;
  constructor(
    private readonly sense: 1 | -1,
    private readonly collator?: Collator,
  ) {}
  process(v: Value): void {
    if (isNullish(v)) return;
    if (this.best === MISSING || compareValues(v, this.best, this.collator) * this.sense > 0) {
      this.best = v;
      this.bytes = SCALAR_STATE_BYTES + approximateValueSize(v);
    }
  }
  value(): Value {
    return this.best === MISSING ? null : this.best;
  }
}

export class FirstAccumulator implements Accumulator {
  private v: Value = MISSING;
  private seen = false;
  bytes = SCALAR_STATE_BYTES;
  get needsInput(): boolean {
    return !this.seen;
  }
  process(v: Value): void {
    if (this.seen) return;
    this.seen = true;
    this.v = v === MISSING ? null : v;
    this.bytes = SCALAR_STATE_BYTES + approximateValueSize(this.v);
  }
  value(): Value {
    return this.seen ? this.v : null;
  }
}

export class LastAccumulator implements Accumulator {
  readonly needsInput = true;
  private v: Value = null;
  bytes = SCALAR_STATE_BYTES;
  process(v: Value): void {
    this.v = v === MISSING ? null : v;
    this.bytes = SCALAR_STATE_BYTES + approximateValueSize(this.v);
  }
  value(): Value {
    return this.v;
  }
}

/** Welford's online algorithm, as mongod's AccumulatorStdDev. */
export class StdDevAccumulator implements Accumulator {
  readonly bytes = SCALAR_STATE_BYTES;
  readonly needsInput = true;
  private count = 0;
  private mean = 0;
  private m2 = 0;
  constructor(private readonly sample: boolean) {}
  process(v: Value): void {
    if (!isNumeric(v)) return;
    const x = toDouble(v);
    this.count++;
    const delta = x - this.mean;
    if (delta !== 0) {
      this.mean += delta / this.count;
      this.m2 += delta * (x - this.mean);
    }
  }
  value(): Value {
    const n = this.count - (this.sample ? 1 : 0);
    if (n <= 0) return null;
    return new Double(Math.sqrt(this.m2 / n));
  }
}

export class MergeObjectsAccumulator implements Accumulator {
  readonly needsInput = true;
  private readonly out: BsonDocument = {};
  bytes = SCALAR_STATE_BYTES;
  process(v: Value): void {
    if (isNullish(v)) return;
    if (!isPlainDocument(v))
      fail(
        ErrorCode.Location40400,
        `$mergeObjects requires object inputs, but input ${formatValue(v)} is of type ${typeName(v)}`,
      );
    for (const [k, x] of Object.entries(v)) setOwn(this.out, k, x);
    this.bytes = SCALAR_STATE_BYTES + approximateValueSize(this.out);
  }
  value(): Value {
    return { ...this.out };
  }
}

const $count: AccumulatorDefinition = {
  name: '$count',
  parse(arg, ctx) {
    if (!isPlainDocument(arg) || Object.keys(arg).length > 0)
      fail(ErrorCode.Location40481, '$count only accepts an empty object as input');
    return {
      name: '$count',
      argument: ctx.parse(new Int32(1)),
      create: () => new SumAccumulator(),
    };
  },
};

export const simpleAccumulators: readonly AccumulatorDefinition[] = [
  simpleAccumulator('$sum', () => new SumAccumulator()),
  simpleAccumulator('$avg', () => new AvgAccumulator()),
  simpleAccumulator('$min', (collator) => new MinMaxAccumulator(-1, collator)),
  simpleAccumulator('$max', (collator) => new MinMaxAccumulator(1, collator)),
  simpleAccumulator('$first', () => new FirstAccumulator()),
  simpleAccumulator('$last', () => new LastAccumulator()),
  simpleAccumulator('$stdDevPop', () => new StdDevAccumulator(false)),
  simpleAccumulator('$stdDevSamp', () => new StdDevAccumulator(true)),
  simpleAccumulator('$mergeObjects', () => new MergeObjectsAccumulator()),
  $count,
];
