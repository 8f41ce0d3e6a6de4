// Approximate memory accounting for blocking stages and accumulators. mongod counts
// Value::getApproximateSize(); an exact BSON size would cost a serialisation per value, so
// this walks the value with fixed per-type costs of the same order.

import { Binary } from 'bson';
import { isPlainDocument } from '../bson/types.js';
import type { BsonValue } from '../bson/types.js';
import type { Value } from './expressions/types.js';

const BASE = 16;

export function approximateValueSize(v: Value): number {
  if (typeof v === 'string') return BASE + v.length;
  if (Array.isArray(v)) {
    let n = BASE;
    for (const x of v) n += approximateValueSize(x);
    return n;
  }
  if (isPlainDocument(v)) {
    let n = BASE;
    for (const [k, x] of Object.entries(v)) n += k.length + approximateValueSize(x as BsonValue);
    return n;
  }
  if (v instanceof Binary) return BASE + v.position;
  return BASE;
}
