// Accumulators that collect values: $push (every non-missing value, in order) and $addToSet
// (distinct values). Each group's array is bounded, as mongod's internalQueryMaxPushBytes /
// internalQueryMaxAddToSetBytes do: past the limit the operation fails with
// ExceededMemoryLimit (146), whatever allowDiskUse says.

import { compareBson } from '../../bson/compare.js';
import type { Collator } from '../../bson/collation.js';
import { ValueMap } from '../../bson/value-map.js';
import type { BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { approximateValueSize } from '../../query/memory.js';
import { MISSING } from '../expressions/types.js';
import type { Value } from '../expressions/types.js';
import { simpleAccumulator } from './simple.js';
import { SCALAR_STATE_BYTES } from './types.js';
import type { Accumulator, AccumulatorDefinition } from './types.js';

function tooMuch(name: string): never {
  fail(
    ErrorCode.ExceededMemoryLimit,
    `${name} used too much memory and cannot spill to disk. Memory limit: ${limits.accumulatorMemoryBytesMax} bytes`,
  );
}

export class PushAccumulator implements Accumulator {
  readonly needsInput = true;
  private readonly items: BsonValue[] = [];
  bytes = SCALAR_STATE_BYTES;
  process(v: Value): void {
    if (v === MISSING) return;
    this.items.push(v);
    this.bytes += approximateValueSize(v);
    if (this.bytes > limits.accumulatorMemoryBytesMax) tooMuch('$push');
  }
  value(): Value {
    // A copy: window functions keep adding after reading a value.
    return [...this.items];
  }
}

/**
 * Distinct values in first-seen order (mongod keeps an unordered set, so no order is promised;
 * first-seen order is the stable choice). Values are bucketed by a cheap type-aware key and
 * compared exactly within a bucket, so 1, 1.0 and NumberLong(1) count once.
 */
export class AddToSetAccumulator implements Accumulator {
  readonly needsInput = true;
  private readonly items: BsonValue[] = [];
  private readonly buckets = new Map<string, BsonValue[]>();
  /** Under a collation: the values seen, strings equal by it being one (see ValueMap). */
  private readonly collated: ValueMap<true> | undefined;
  bytes = SCALAR_STATE_BYTES;
  constructor(collator?: Collator) {
    this.collated = collator === undefined ? undefined : new ValueMap<true>(collator);
  }
  process(v: Value): void {
    if (v === MISSING) return;
    if (this.collated !== undefined) {
      if (this.collated.get(v) !== undefined) return;
      this.collated.set(v, true);
    } else {
      const key = bucketKey(v);
      const bucket = this.buckets.get(key);
      if (bucket !== undefined) {
        if (bucket.some((x) => compareBson(x, v) === 0)) return;
        bucket.push(v);
      } else {
        this.buckets.set(key, [v]);
      }
    }
    this.items.push(v);
    this.bytes += approximateValueSize(v);
    if (this.bytes > limits.accumulatorMemoryBytesMax) tooMuch('$addToSet');
  }
  value(): Value {
    // A copy: window functions keep adding after reading a value.
    return [...this.items];
  }
}

/** A key equal for values that compare equal (numbers by their double value). */
export function bucketKey(v: BsonValue): string {
  if (typeof v === 'string') return `s:${v}`;
  if (typeof v === 'boolean') return `b:${v}`;
  if (v === null || v === undefined) return 'n';
  if (typeof v === 'object' && '_bsontype' in v) {
    const t = String((v as { _bsontype: unknown })._bsontype);
    if (t === 'Int32' || t === 'Double') return `#${(v as { value: number }).value}`;
    if (t === 'Long') return `#${(v as { toNumber(): number }).toNumber()}`;
    if (t === 'Decimal128') return `#${Number((v as { toString(): string }).toString())}`;
    if (t === 'ObjectId') return `o:${(v as { toHexString(): string }).toHexString()}`;
    return `t:${t}`;
  }
  if (v instanceof Date) return `d:${v.getTime()}`;
  if (Array.isArray(v)) return `a:${v.length}`;
  return `O:${Object.keys(v).join('\u0000')}`;
}

export const collectionAccumulators: readonly AccumulatorDefinition[] = [
  simpleAccumulator('$push', () => new PushAccumulator()),
  simpleAccumulator('$addToSet', (collator) => new AddToSetAccumulator(collator)),
];
