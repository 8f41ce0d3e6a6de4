// The benchmark harness's pure parts: statistics, tables, argument checks, the dataset and
// the CPU profile summary. Nothing here starts a server or measures time.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { serialize } from 'bson';
import {
  findCliff,
  formatDuration,
  formatRatio,
  interleavedOrder,
  median,
  spread,
} from '../../../bench/lib/stats.js';
import { markdownTable } from '../../../bench/lib/markdown.js';
import {
  checkLoopbackUri,
  parseArgs,
  quickSizes,
  defaultSizes,
  UsageError,
} from '../../../bench/lib/config.js';
import { makeDataset, objectIdFor } from '../../../bench/lib/dataset.js';
import { areaOf, shortWhere, summariseProfile } from '../../../bench/cpuprofile-top.js';
import type { CpuProfile } from '../../../bench/cpuprofile-top.js';

test('median and spread', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
  assert.throws(() => median([]), RangeError);
  assert.equal(spread([10, 10, 10]), 0);
  assert.equal(spread([8, 10, 12]), 0.4);
});

test('formatting keeps three significant digits in a readable unit', () => {
  assert.equal(formatDuration(0.0123), '12.3 µs');
  assert.equal(formatDuration(12.34), '12.3 ms');
  assert.equal(formatDuration(2345), '2.35 s');
  assert.equal(formatRatio(1.234), '1.23×');
  assert.equal(formatRatio(123.4), '123×');
  assert.equal(formatRatio(Number.NaN), '—');
});

test('findCliff reports the first step that loses more than the threshold', () => {
  assert.equal(
    findCliff([
      { x: 1, rate: 100 },
      { x: 2, rate: 150 },
      { x: 4, rate: 140 },
    ]),
    undefined,
  );
  assert.deepEqual(
    findCliff([
      { x: 1, rate: 100 },
      { x: 2, rate: 150 },
      { x: 4, rate: 60 },
    ]),
    { from: 2, to: 4, drop: 0.6 },
  );
});

test('interleavedOrder rotates so every item leads once', () => {
  assert.deepEqual(interleavedOrder([1, 2, 3], 0), [1, 2, 3]);
  assert.deepEqual(interleavedOrder([1, 2, 3], 1), [2, 3, 1]);
  assert.deepEqual(interleavedOrder([1, 2, 3], 5), [3, 1, 2]);
  assert.deepEqual(interleavedOrder([], 3), []);
});

test('markdownTable pads columns, aligns figures right and escapes pipes', () => {
  const t = markdownTable(
    ['name', 'µs'],
    [
      ['a|b', '1.5'],
      ['long name', '12'],
    ],
  );
  const lines = t.split('\n');
  assert.equal(lines.length, 4);
  assert.match(lines[1] as string, /^\| -+ \| -+: \|$/);
  assert.ok((lines[2] as string).includes('a\\|b'));
  // Every row has the same width in code points (the table reads as plain text too).
  const widths = new Set(lines.map((l) => [...l].length));
  assert.equal(widths.size, 1);
});

test('--uri must name loopback hosts only', () => {
  checkLoopbackUri('mongodb://127.0.0.1:27017/');
  checkLoopbackUri('mongodb://user:pw@localhost:27017,127.0.0.2:27018/?replicaSet=rs0');
  checkLoopbackUri('mongodb://[::1]:27017');
  assert.throws(() => checkLoopbackUri('mongodb://10.0.0.5:27017/'), UsageError);
  assert.throws(() => checkLoopbackUri('mongodb://db.example.com/'), UsageError);
  assert.throws(() => checkLoopbackUri('mongodb+srv://cluster0.example.net/'), UsageError);
});

test('parseArgs: harnesses in dependency order, --quick sizes, bad input refused', () => {
  const all = parseArgs([]);
  assert.deepEqual(all.harnesses, ['floors', 'compare', 'concurrency', 'multiprocess']);
  assert.equal(all.sizes, defaultSizes);
  const q = parseArgs(['concurrency', 'floors', '--quick']);
  assert.deepEqual(q.harnesses, ['floors', 'concurrency']);
  assert.equal(q.sizes, quickSizes);
  assert.throws(() => parseArgs(['--uri']), UsageError);
  assert.throws(() => parseArgs(['nonsense']), UsageError);
  assert.throws(() => parseArgs(['--uri', 'mongodb://192.168.1.4/']), UsageError);
});

test('the dataset is deterministic, about 1 KiB per document, half even', () => {
  const a = makeDataset(200);
  const b = makeDataset(200);
  assert.deepEqual(
    Buffer.from(serialize(a[17] as object)),
    Buffer.from(serialize(b[17] as object)),
  );
  assert.equal(a.filter((d) => d.even).length, 100);
  const sizes = a.map((d) => serialize(d).length);
  const avg = sizes.reduce((s, x) => s + x, 0) / sizes.length;
  assert.ok(avg > 900 && avg < 1100, `average ${avg} bytes`);
  assert.equal(objectIdFor(255).toHexString().slice(-6), '0000ff');
  assert.ok(a[5]?._id.equals(objectIdFor(5)));
});

test('summariseProfile: self and inclusive time, recursion counted once, idle apart', () => {
  const frame = (
    functionName: string,
    url = 'file:///repo/dist/src/storage/x.js',
    lineNumber = 0,
  ) => ({ functionName, url, lineNumber, columnNumber: 0 });
  const profile: CpuProfile = {
    startTime: 0,
    endTime: 100,
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 5] },
      { id: 2, callFrame: frame('outer'), children: [3] },
      { id: 3, callFrame: frame('outer'), children: [4] }, // recursion
      {
        id: 4,
        callFrame: frame('serialize', 'file:///repo/node_modules/bson/lib/bson.mjs', 9),
        positionTicks: [
          { line: 12, ticks: 3 },
          { line: 15, ticks: 1 },
        ],
      },
      { id: 5, callFrame: frame('(idle)', '') },
    ],
    samples: [4, 4, 3, 5],
    timeDeltas: [1000, 2000, 4000, 5000],
  };
  const s = summariseProfile(profile, 10);
  assert.equal(s.sampledMs, 12);
  assert.equal(s.idleMs, 5);
  assert.deepEqual(
    s.bySelf.map((f) => [f.name, f.selfMs]),
    [
      ['outer', 4],
      ['serialize', 3],
    ],
  );
  assert.equal(s.bySelf[1]?.where, 'bson/lib/bson.mjs:10');
  assert.deepEqual(s.bySelf[1]?.hotLines, [
    { line: 12, share: 0.75 },
    { line: 15, share: 0.25 },
  ]);
  const outer = s.byTotal.find((f) => f.name === 'outer');
  assert.equal(outer?.totalMs, 7, 'recursive frames count a sample once');
  assert.deepEqual(
    s.byArea.map((a) => a.area),
    ['idle', 'src/storage', 'package bson'],
  );
});

test('areaOf and shortWhere name our layers, packages and internals', () => {
  const f = (functionName: string, url: string) => ({
    functionName,
    url,
    lineNumber: 0,
    columnNumber: 0,
  });
  assert.equal(areaOf(f('x', 'file:///w/dist/src/catalog/collection.js')), 'src/catalog');
  assert.equal(
    areaOf(f('x', 'file:///w/node_modules/@node-rs/crc32/index.js')),
    'package @node-rs/crc32',
  );
  assert.equal(areaOf(f('x', 'node:internal/buffer')), 'node internals');
  assert.equal(areaOf(f('(garbage collector)', '')), 'GC');
  assert.equal(areaOf(f('writev', '')), 'native builtins');
  assert.equal(shortWhere('file:///w/dist/src/repl/oplog.js', 55), 'dist/src/repl/oplog.js:56');
});
