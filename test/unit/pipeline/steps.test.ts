// Work in steps (src/pipeline/stages/base.ts): the stepped merge sort equals a stable native
// sort, and yields only inside a driver's slice; $in bounds equal the generic union of points.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Double, Int32 } from 'bson';
import type { BsonValue } from '../../../src/bson/types.js';
import { runSteps, sortSteps } from '../../../src/pipeline/stages/base.js';
import { armSlice, disarmSlice } from '../../../src/query/exec/yield.js';
import { compileFilter } from '../../../src/query/match/index.js';
import { leafBounds, normalize, point } from '../../../src/query/planner/bounds.js';

const byKey = (a: { k: number }, b: { k: number }): number => a.k - b.k;

test('sortSteps equals a stable sort, for any input and run boundary', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 1500 }), (keys) => {
      const items = keys.map((k, i) => ({ k, i }));
      const expected = [...items].sort(byKey);
      assert.deepEqual(runSteps(sortSteps([...items], byKey)), expected);
    }),
    { numRuns: 60 },
  );
});

test('sortSteps yields in an armed slice that is over, and ends with the same order', () => {
  const items = Array.from({ length: 2000 }, (_, i) => ({ k: (i * 7919) % 101, i }));
  const expected = [...items].sort(byKey);
  // A comparison costing a few microseconds: the sort outlasts a slice of a few milliseconds.
  const slow = (a: { k: number }, b: { k: number }): number => {
    const until = performance.now() + 0.003;
    while (performance.now() < until);
    return a.k - b.k;
  };
  armSlice();
  const steps = sortSteps([...items], slow);
  let yields = 0;
  let r = steps.next();
  for (; r.done !== true; r = steps.next()) {
    yields++;
    disarmSlice();
    armSlice();
  }
  disarmSlice();
  assert.ok(yields > 0, 'it gave the driver its turn');
  assert.deepEqual(r.value, expected);
});

test('$in bounds: sorted, deduplicated points (1 and 1.0 are one), plus null and arrays', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.integer({ min: -50, max: 50 }), fc.string({ maxLength: 3 })), {
        maxLength: 300,
      }),
      fc.boolean(),
      (raw, withNull) => {
        const values: BsonValue[] = raw.map((v, i) =>
          typeof v === 'string' ? v : i % 2 === 0 ? new Int32(v) : new Double(v),
        );
        if (withNull) values.push(null);
        const b = leafBounds(compileFilter({ a: { $in: values } }).tree);
        assert.ok(b !== undefined);
        const reference = normalize([
          ...values.filter((v) => v !== null).map(point),
          ...(withNull ? [point(undefined), point(null)] : []),
        ]);
        assert.deepEqual(
          b.intervals.map((iv) => [iv.low.value, iv.high.value].map(String)),
          reference.map((iv) => [iv.low.value, iv.high.value].map(String)),
        );
      },
    ),
    { numRuns: 100 },
  );
});
