// Index bounds from filter predicates, printed the way mongod's explain prints them
// (src/mongo/db/query/index_bounds_builder.cpp, interval.cpp), and the byte ranges they become.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { BSONRegExp, Double, Int32, MaxKey, MinKey } from 'bson';
import type { BsonDocument } from '../../../src/bson/types.js';
import { compileFilter } from '../../../src/query/match/index.js';
import {
  intersect,
  intervalStrings,
  leafBounds,
  regexPrefix,
} from '../../../src/query/planner/bounds.js';
import type { Interval } from '../../../src/query/planner/bounds.js';
import { byteIntervals, planRanges } from '../../../src/query/exec/index-scan.js';

function bounds(filter: BsonDocument, direction: 1 | -1 = 1): string[] | undefined {
  const b = leafBounds(compileFilter(filter).tree);
  return b === undefined ? undefined : intervalStrings(b.intervals, direction);
}

function intervals(filter: BsonDocument): Interval[] {
  const b = leafBounds(compileFilter(filter).tree);
  assert.ok(b !== undefined);
  return b.intervals;
}

test('equality, ranges and type brackets', () => {
  assert.deepEqual(bounds({ a: new Int32(5) }), ['[5, 5]']);
  assert.deepEqual(bounds({ a: { $gt: new Int32(5) } }), ['(5, inf.0]']);
  assert.deepEqual(bounds({ a: { $lte: new Double(2.5) } }), ['[-inf.0, 2.5]']);
  assert.deepEqual(bounds({ a: { $gte: 'm' } }), ['["m", {})']);
  assert.deepEqual(bounds({ a: { $lt: 'm' } }), ['["", "m")']);
  assert.deepEqual(bounds({ a: { $gt: new Date(5) } }), [
    '(new Date(5), new Date(9223372036854775807)]',
  ]);
  assert.deepEqual(bounds({ a: { $gt: true } }), []);
  assert.deepEqual(bounds({ a: { $gte: false } }), ['[false, true]']);
  assert.deepEqual(bounds({ a: { $gt: new Double(NaN) } }), []);
  assert.deepEqual(bounds({ a: { $gte: new Double(NaN) } }), ['[nan.0, nan.0]']);
  assert.deepEqual(bounds({ a: { $gt: new MinKey() } }), ['(MinKey, MaxKey]']);
  assert.deepEqual(bounds({ a: { $lt: new MaxKey() } }), ['[MinKey, MaxKey)']);
  assert.deepEqual(bounds({ a: { $gt: new Int32(5) } }, -1), ['[inf.0, 5)']);
});

test('null, arrays and $in', () => {
  assert.deepEqual(bounds({ a: null }), ['[undefined, undefined]', '[null, null]']);
  assert.deepEqual(bounds({ a: [new Int32(2), new Int32(1)] }), ['[2, 2]', '[[ 2, 1 ], [ 2, 1 ]]']);
  assert.deepEqual(bounds({ a: [] }), ['[undefined, undefined]', '[[], []]']);
  assert.deepEqual(bounds({ a: { $in: [new Int32(3), new Int32(1), new Int32(3), null] } }), [
    '[undefined, undefined]',
    '[null, null]',
    '[1, 1]',
    '[3, 3]',
  ]);
  // A comparison with an array is a comparison of whole arrays, which are not keys.
  assert.equal(bounds({ a: { $gt: [new Int32(1)] } }), undefined);
});

test('negations keep what an index cannot rule out', () => {
  assert.deepEqual(bounds({ a: { $ne: new Int32(5) } }), ['[MinKey, 5)', '(5, MaxKey]']);
  assert.deepEqual(bounds({ a: { $nin: [new Int32(1), new Int32(2)] } }), [
    '[MinKey, 1)',
    '(1, 2)',
    '(2, MaxKey]',
  ]);
  // {$ne: null} still matches [] (key undefined): only null is left out.
  assert.deepEqual(bounds({ a: { $ne: null } }), ['[MinKey, null)', '(null, MaxKey]']);
  assert.deepEqual(bounds({ a: { $exists: false } }), ['[null, null]']);
  assert.equal(bounds({ a: { $not: { $gt: new Int32(1) } } }), undefined);
  assert.equal(bounds({ a: { $ne: [new Int32(1)] } }), undefined);
});

test('regexes: a literal prefix bounds the strings', () => {
  assert.equal(regexPrefix('^abc', ''), 'abc');
  assert.equal(regexPrefix('^ab?c', ''), 'a');
  assert.equal(regexPrefix('^abc', 'i'), undefined);
  assert.equal(regexPrefix('abc', ''), undefined);
  assert.equal(regexPrefix('^a|b', ''), undefined);
  assert.deepEqual(bounds({ a: new BSONRegExp('^ab', '') }), ['["ab", "ac")', '[/^ab/, /^ab/]']);
  assert.deepEqual(bounds({ a: new BSONRegExp('b', '') }), ['["", {})', '[/b/, /b/]']);
});

test('intersections', () => {
  const both = intersect(
    intervals({ a: { $gt: new Int32(1) } }),
    intervals({ a: { $lte: new Int32(9) } }),
  );
  assert.deepEqual(intervalStrings(both, 1), ['(1, 9]']);
  assert.deepEqual(intersect(intervals({ a: new Int32(1) }), intervals({ a: new Int32(2) })), []);
  assert.deepEqual(bounds({ a: { $elemMatch: { $gte: new Int32(1), $lt: new Int32(3) } } }), [
    '[1, 3)',
  ]);
});

test('compound bounds: point prefixes multiply into byte ranges', () => {
  const a = byteIntervals(intervals({ a: { $in: [new Int32(1), new Int32(2)] } }), 1);
  const b = byteIntervals(intervals({ b: { $gt: new Int32(5) } }), -1);
  const plan = planRanges([a, b], [1, -1]);
  assert.equal(plan.ranges.length, 2);
  assert.equal(plan.residual.length, 0);
  for (const r of plan.ranges) assert.ok(r.end !== undefined && Buffer.compare(r.start, r.end) < 0);
  const c = byteIntervals(intervals({ c: new Int32(7) }), 1);
  const withResidual = planRanges(
    [byteIntervals(intervals({ a: { $gt: new Int32(1) } }), 1), c],
    [1, 1],
  );
  assert.equal(withResidual.ranges.length, 1);
  assert.deepEqual(
    withResidual.residual.map((r) => r.field),
    [1],
  );
  assert.deepEqual(planRanges([a, []], [1, 1]).ranges, []);
});
