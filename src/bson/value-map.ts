// A map keyed by BSON values under the BSON order's equality (1, 1.0 and
// NumberLong(1) are one key; {a: 1} and {a: 1.0} too). Keys hash to a canonical string in
// which numbers appear as their nearest double; values that share a string are told apart by
// an exact comparison. Iteration follows first insertion.

import type { BsonValue } from './types.js';
import { isArray, isPlainDocument } from './types.js';
import { numericValue } from './types.js';
import { compareBson } from './compare.js';
import type { Collator } from './collation.js';
import { bsonTypeName } from './types.js';

/** The hash of a key; under a collation every string hashes alike (equal strings may differ). */
function canonical(v: BsonValue, collated: boolean): string {
  if (typeof v === 'string') return collated ? 's' : `s${JSON.stringify(v)}`;
  if (isArray(v)) return `[${v.map((x) => canonical(x, collated)).join(',')}]`;
  if (isPlainDocument(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x, collated)}`)
      .join(',')}}`;
  const n = numericValue(v);
  if (n !== undefined) return `#${Object.is(n, -0) ? 0 : n}`;
  if (v instanceof Date) return `d${v.getTime()}`;
  const t = bsonTypeName(v);
  if (t === 'null' || t === 'undefined') return t;
  if (t === 'bool') return `b${String(v)}`;
  if (t === 'objectId') return `o${(v as { toHexString(): string }).toHexString()}`;
  if (t === 'symbol' && collated) return 's';
  return `t${t}`;
}

type Entry<T> = { key: BsonValue; value: T };

export class ValueMap<T> {
  private readonly buckets = new Map<string, Array<Entry<T>>>();
  private readonly ordered: Array<Entry<T>> = [];
  /** Under a collation, the string keys in collation order (found by binary search). */
  private readonly strings: Array<Entry<T>> = [];

  /** With a collator, keys its comparison equates are one key (strings compare by it). */
  constructor(private readonly collator?: Collator) {}

  get size(): number {
    return this.ordered.length;
  }

  has(key: BsonValue): boolean {
    return this.entry(key) !== undefined;
  }

  get(key: BsonValue): T | undefined {
    return this.entry(key)?.value;
  }

  private entry(key: BsonValue): Entry<T> | undefined {
    if (this.isCollatedString(key)) {
      const at = this.stringIndex(key);
      return at.found ? this.strings[at.index] : undefined;
    }
    const bucket = this.buckets.get(canonical(key, this.collator !== undefined));
    return bucket?.find((e) => compareBson(e.key, key, this.collator) === 0);
  }

  /** Sets the value for `key`; the first key seen stays the stored key. */
  set(key: BsonValue, value: T): void {
    if (this.isCollatedString(key)) {
      const at = this.stringIndex(key);
      if (at.found) {
        (this.strings[at.index] as Entry<T>).value = value;
        return;
      }
      const entry = { key, value };
      this.strings.splice(at.index, 0, entry);
      this.ordered.push(entry);
      return;
    }
    const c = canonical(key, this.collator !== undefined);
    let bucket = this.buckets.get(c);
    if (bucket === undefined) {
      bucket = [];
      this.buckets.set(c, bucket);
    }
    const existing = bucket.find((e) => compareBson(e.key, key, this.collator) === 0);
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

  private isCollatedString(key: BsonValue): boolean {
    return (
      this.collator !== undefined && (typeof key === 'string' || bsonTypeName(key) === 'symbol')
    );
  }

  private stringIndex(key: BsonValue): { found: boolean; index: number } {
    let lo = 0;
    let hi = this.strings.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareBson((this.strings[mid] as Entry<T>).key, key, this.collator);
      if (c === 0) return { found: true, index: mid };
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return { found: false, index: lo };
  }
}
