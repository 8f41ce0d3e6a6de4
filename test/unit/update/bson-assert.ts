// Exact comparison of BSON documents for tests: same bytes once encoded (field order and
// numeric types included), with a readable diff when they differ.

import * as assert from 'node:assert/strict';
import { EJSON, serialize } from 'bson';
import type { BsonDocument } from '../../../src/bson/types.js';

export function encode(doc: BsonDocument): Buffer {
  return Buffer.from(serialize(doc, { checkKeys: false, ignoreUndefined: false }));
}

export function canonical(doc: BsonDocument): string {
  return EJSON.stringify(doc, { relaxed: false });
}

/** Recursively sort the fields of documents (arrays keep their order). */
function sortFields(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortFields);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort())
      Object.defineProperty(out, k, {
        value: sortFields((v as Record<string, unknown>)[k]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return v;
}

export function assertSameBson(
  actual: BsonDocument,
  expected: BsonDocument,
  options: { anyFieldOrder?: boolean } = {},
  message = '',
): void {
  const a = options.anyFieldOrder ? (sortFields(actual) as BsonDocument) : actual;
  const e = options.anyFieldOrder ? (sortFields(expected) as BsonDocument) : expected;
  if (encode(a).equals(encode(e))) return;
  assert.equal(canonical(a), canonical(e), message);
  assert.fail(`documents differ in their bytes only: ${message}`);
}
