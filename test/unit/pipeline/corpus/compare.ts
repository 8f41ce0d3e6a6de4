// The corpus's comparison: the same value in the BSON order and the same BSON type at every
// level (int32, int64, double and decimal128 are different answers even when equal in value).
// Shared by the unit harness and the driver-level run (test/integration/agg-expression-corpus).

import * as assert from 'node:assert/strict';
import { compareBson } from '../../../../src/bson/compare.js';
import { bsonTypeName, isPlainDocument } from '../../../../src/bson/types.js';
import type { BsonValue } from '../../../../src/bson/types.js';
import { MISSING } from '../../../../src/pipeline/expressions/types.js';
import type { Value } from '../../../../src/pipeline/expressions/types.js';
import { formatValue } from '../../../../src/pipeline/values.js';

export function assertSameTyped(actual: Value, expected: Value, path = '$'): void {
  if (expected === MISSING || actual === MISSING) {
    assert.equal(
      actual,
      expected,
      `${path}: expected ${formatValue(expected)}, got ${formatValue(actual)}`,
    );
    return;
  }
  assert.equal(
    bsonTypeName(actual),
    bsonTypeName(expected),
    `${path}: expected type ${bsonTypeName(expected)} (${formatValue(expected)}), got ${bsonTypeName(actual)} (${formatValue(actual)})`,
  );
  if (Array.isArray(expected) && Array.isArray(actual)) {
    assert.equal(
      actual.length,
      expected.length,
      `${path}: array length, got ${formatValue(actual)}`,
    );
    expected.forEach((e, i) => assertSameTyped(actual[i] as BsonValue, e, `${path}[${i}]`));
    return;
  }
  if (isPlainDocument(expected) && isPlainDocument(actual)) {
    assert.deepEqual(
      Object.keys(actual),
      Object.keys(expected),
      `${path}: field names, got ${formatValue(actual)}`,
    );
    for (const k of Object.keys(expected))
      assertSameTyped(actual[k] as BsonValue, expected[k] as BsonValue, `${path}.${k}`);
    return;
  }
  assert.equal(
    compareBson(actual, expected),
    0,
    `${path}: expected ${formatValue(expected)}, got ${formatValue(actual)}`,
  );
  // compareBson orders NaN with NaN and -0 with 0; the corpus tells them apart where it says so.
  if (
    typeof expected === 'object' &&
    expected !== null &&
    '_bsontype' in expected &&
    expected._bsontype === 'Double'
  ) {
    assert.ok(
      Object.is((actual as typeof expected).value, expected.value),
      `${path}: expected ${String(expected.value)}, got ${String((actual as typeof expected).value)}`,
    );
  }
}
