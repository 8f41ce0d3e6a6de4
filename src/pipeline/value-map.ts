// A map keyed by BSON values under the aggregation order's equality (1, 1.0 and
// NumberLong(1) are one key; {a: 1} and {a: 1.0} too). Keys hash to a canonical string in
// which numbers appear as their nearest double; values that share a string are told apart by
// an exact comparison. Iteration follows first insertion.

import type { BsonValue } from '../bson/types.js';
import { isArray, isPlainDocument } from '../bson/types.js';
import { numericValue } from '../bson/types.js';
import { compareBson } from '../bson/compare.js';
import { bsonTypeName } from '../bson/types.js';

function canonical(v: BsonValue): string {
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isPlainDocument(v)) return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  const n = numericValue(v);
  if (n !== undefined) return `#${Object.is(n, -0) ? 0 : n}`;
  if (v instanceof Date) return `d${v.getTime()}`;
  const t = bsonTypeName(v);
  if (t === 'null' || t === 'undefined') return t;
  if (t === 'bool') return `b${String(v)}`;
  if (t === 'objectId') return `o${(v as { toHexString(): string }).toHexString()}`;
  return `t${t}`;
}

export class ValueMap<T> {
  private readonly buckets = new Map<string, Array<{ key: BsonValue; value: T }>>();
  private readonly ordered: Array<{ key: BsonValue; value: T }> = [];

  get size(): number {
    return this.ordered.length;
  }

  get(key: BsonValue): T | undefined {
    const bucket = this.buckets.get(canonical(key));
    return bucket?.find((e) => compareBson(e.key, key) === 0)?.value;
  }

  /** Sets the value for `key`; the first key seen stays the stored key. */
  set(key: BsonValue, value: T): void {
    const c = canonical(key);
    let bucket = this.buckets.get(c);
    if (bucket === undefined) {
      bucket = [];
      this.buckets.set(c, bucket);
    }
    const existing = bucket.find((e) => compareBson(e.key, key) === 0);
    if (existing !== undefined) {
      existing.value = value;
      return;
    }
    const entry = { key, value };
    bucket.push(entry);
    this.ordered.push(entry);
  }

  entries(): ReadonlyArray<{ readonly key: BsonValue; readonly value: T }> {
    return this.ordered;
  }
}
