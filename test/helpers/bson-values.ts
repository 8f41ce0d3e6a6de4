// Test inputs written as JavaScript literals, turned into the server's value model the way
// the official driver serializes them: integers in int32 range become Int32, other numbers
// Double; arrays and plain objects are converted element by element.
import { Double, Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../src/bson/types.js';

export function bv(v: unknown): BsonValue {
  if (typeof v === 'number') {
    return Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? new Int32(v) : new Double(v);
  }
  if (Array.isArray(v)) return v.map(bv);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: BsonDocument = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, {
        value: bv(x),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return v as BsonValue;
}

/** bv for a value that must be a document. */
export function bdoc(v: Record<string, unknown>): BsonDocument {
  return bv(v) as BsonDocument;
}
