// The multi-process benchmark's pure parts: the workload plan (deterministic, JSON-shaped,
// split between workers without loss or overlap), the percentile, and how wrong answers,
// failures and "not run" reach the table. Nothing here starts a process.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  makePlan,
  mpDefaultSizes,
  partition,
  percentile,
} from '../../../bench/lib/multiprocess-plan.js';
import type { MpSizes } from '../../../bench/lib/multiprocess-plan.js';
import { profileTable, summarize, wrongText } from '../../../bench/lib/multiprocess-summary.js';
import type { MpResult, MpRun, PhaseFigure } from '../../../bench/lib/multiprocess-summary.js';
import type { RowSpec } from '../../../bench/multiprocess-stores.js';

test('partition: every item exactly once, slices differ by at most one', () => {
  const items = Array.from({ length: 103 }, (_, i) => i);
  for (const parts of [1, 2, 3, 4, 7, 103, 150]) {
    const slices = Array.from({ length: parts }, (_, k) => partition(items, parts, k));
    assert.deepEqual(slices.flat(), items, `${parts} parts`);
    const sizes = slices.map((s) => s.length);
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${parts} parts: ${sizes.join(',')}`);
  }
  assert.throws(() => partition(items, 0, 0), RangeError);
  assert.throws(() => partition(items, 4, 4), RangeError);
  assert.throws(() => partition(items, 4, -1), RangeError);
});

test('percentile: nearest rank', () => {
  const xs = Array.from({ length: 20 }, (_, i) => 20 - i); // 20..1, unsorted on purpose
  assert.equal(percentile(xs, 95), 19);
  assert.equal(percentile(xs, 100), 20);
  assert.equal(percentile(xs, 50), 10);
  assert.equal(percentile([7], 95), 7);
  assert.throws(() => percentile([], 95), RangeError);
  assert.throws(() => percentile([1], 0), RangeError);
});

test('plan: deterministic, JSON-shaped, reads present, updates and deletes disjoint', () => {
  const a = makePlan(mpDefaultSizes);
  const b = makePlan(mpDefaultSizes);
  assert.deepEqual(a, b);
  assert.notDeepEqual(makePlan(mpDefaultSizes, 7).pointReads, a.pointReads);
  assert.equal(a.docs.length, 1000);
  // Only JSON types: a JSON round trip gives the same documents.
  assert.deepEqual(JSON.parse(JSON.stringify(a.docs)), a.docs);
  const ids = new Set(a.docs.map((d) => d._id));
  assert.equal(ids.size, 1000);
  assert.equal(new Set(a.pointReads).size, 200);
  assert.ok(a.pointReads.every((id) => ids.has(id)));
  assert.equal(a.updates.length, 100);
  assert.equal(a.deletes.length, 100);
  const updated = new Set(a.updates);
  assert.ok(a.deletes.every((id) => ids.has(id) && !updated.has(id)));
  assert.throws(() => makePlan({ ...mpDefaultSizes, docs: 150 }), RangeError);
});

const sizes: MpSizes = { ...mpDefaultSizes, docs: 10, pointReads: 4, updates: 2, deletes: 2 };
const row: RowSpec = {
  key: 'x',
  label: 'store x',
  kind: 'nedb',
  durability: 'appended',
  persistent: true,
};
const memRow: RowSpec = {
  ...row,
  key: 'm',
  label: 'store m',
  persistent: false,
  notRun: { minWorkers: 2, reason: 'per process' },
};

function fig(ms: number, workerOk: number[], expected: number): PhaseFigure {
  return {
    ms,
    workerMs: workerOk.map(() => ms),
    workerOk,
    ok: workerOk.reduce((a, b) => a + b, 0),
    expected,
  };
}

function run(rep: number, workers: number, readAllOk: number[], extra: Partial<MpRun> = {}): MpRun {
  return {
    row: 'x',
    workers,
    repetition: rep,
    status: 'ok',
    phases: {
      insert: fig(10 + rep, [10], 10),
      readAll: fig(5, readAllOk, 10 * workers),
      pointReads: { ...fig(4, [4], 4), avgMs: 1 + rep, p95Ms: 2 },
      updates: fig(20, [2], 2),
      deletes: fig(30, [2], 2),
    },
    reopen: { count: 8, updated: 2, expectedCount: 8, expectedUpdated: 2 },
    diskKiB: 100 + rep,
    wallMs: 1,
    ...extra,
  };
}

test('summary: medians of right answers; WRONG, failed and not run are named', () => {
  const result: MpResult = {
    sizes,
    rows: [row, memRow],
    runs: [
      run(0, 1, [10]),
      run(1, 1, [10]),
      run(2, 1, [10]),
      run(0, 4, [2, 3, 2, 3]),
      { ...run(1, 4, [10, 10, 10, 10]), status: 'failed', error: 'updates: boom' },
    ],
    startedLoad: 1,
    endedLoad: 1,
    totalSeconds: 1,
  };
  const one = summarize(result, row, 1);
  assert.equal(one.phaseMs.insert, 11);
  assert.equal(one.pointAvgMs, 2);
  assert.equal(one.diskKiB, 101);
  assert.equal(one.totalMs, 11 + 5 + 4 + 20 + 30);
  const four = summarize(result, row, 4);
  assert.equal(four.phaseMs.readAll, 'WRONG: each saw 2–3 of 10');
  assert.equal(four.failed, 'updates: boom (1 of 2 runs)');
  assert.equal(four.totalMs, undefined);
  assert.equal(summarize(result, memRow, 4).notRun, 'per process');
  const table = profileTable(result, 4);
  assert.match(table, /failed: updates: boom/);
  assert.match(table, /not run: per process/);
  assert.match(table, /WRONG: each saw 2–3 of 10/);
  assert.equal(wrongText('updates', fig(1, [1], 2)), 'WRONG: 1 of 2 right');
});

test('summary: a reopen that finds other data than was written is WRONG', () => {
  const result: MpResult = {
    sizes,
    rows: [row],
    runs: [
      run(0, 1, [10], { reopen: { count: 3, updated: 0, expectedCount: 8, expectedUpdated: 2 } }),
    ],
    startedLoad: 1,
    endedLoad: 1,
    totalSeconds: 1,
  };
  assert.match(
    summarize(result, row, 1).reopenWrong ?? '',
    /found 3 documents \(0 updated\), expected 8/,
  );
  assert.match(profileTable(result, 1), /WRONG: reopen found 3/);
});
