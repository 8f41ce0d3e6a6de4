// The spill machinery of blocking stages: spill files, sorted runs of length-prefixed BSON
// records, and the external merge sort (runs, k-way merge in bounded passes, top-k, stability,
// cleanup). Expected orders come from JavaScript's own sort of the same input.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Int32 } from 'bson';
import { decodeDocument, encodeDocument } from '../../../src/bson/codec.js';
import { CommandError } from '../../../src/errors.js';
import { limits } from '../../../src/limits.js';
import { SpillArea, SpillScope } from '../../../src/query/spill/area.js';
import { RunReader, RunWriter } from '../../../src/query/spill/runs.js';
import { ExternalSorter, mergeFanIn } from '../../../src/query/spill/sorter.js';
import type { RecordCodec } from '../../../src/query/spill/sorter.js';

interface Item {
  readonly key: number;
  readonly seq: number;
}

const codec: RecordCodec<Item> = {
  encode: (i) => encodeDocument({ k: new Int32(i.key), s: new Int32(i.seq) }),
  decode: (b) => {
    const d = decodeDocument(b);
    return { key: (d['k'] as Int32).value, seq: (d['s'] as Int32).value };
  },
};

function withArea(fn: (area: SpillArea, dir: string) => void): void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'spill-test-'));
  const area = SpillArea.forServer(root);
  try {
    fn(area, path.join(root, '_tmp'));
  } finally {
    area.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** A deterministic pseudo-random sequence (xorshift), so failures reproduce. */
function randoms(n: number, seed: number, range: number): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return Math.abs(x) % range;
  });
}

function sorter(
  scope: SpillScope | undefined,
  memoryBytesMax: number,
  extra: { limit?: number; allowDiskUse?: boolean } = {},
): ExternalSorter<Item> {
  return new ExternalSorter<Item>({
    compare: (a, b) => a.key - b.key,
    sizeOf: () => 100,
    codec,
    memoryBytesMax,
    limit: extra.limit,
    allowDiskUse: extra.allowDiskUse ?? true,
    spill: scope,
    exceeded: (max) => {
      throw new CommandError(292, `over ${max}`);
    },
  });
}

function drainAll(s: ExternalSorter<Item>, items: readonly Item[]): Item[] {
  for (const i of items) s.add(i);
  const out: Item[] = [];
  const stream = s.finish();
  for (let x = stream.next(); x !== undefined; x = stream.next()) out.push(x);
  return out;
}

test('runs round-trip records, including records larger than the read buffer', () => {
  withArea((area) => {
    const file = area.create();
    const writer = new RunWriter(file);
    const docs = [
      { a: 'x' },
      { big: 'y'.repeat(3 * limits.spillReadBufferBytes) },
      { c: new Int32(3) },
    ];
    for (const d of docs) writer.add(encodeDocument(d));
    const first = writer.finishRun();
    writer.add(encodeDocument({ second: true }));
    const second = writer.finishRun();
    assert.equal(first.records, 3);
    assert.equal(second.start, first.end);
    const read = (r: typeof first): unknown[] => {
      const reader = new RunReader(r, 64);
      const out: unknown[] = [];
      for (let rec = reader.next(); rec !== undefined; rec = reader.next())
        out.push(decodeDocument(rec));
      return out;
    };
    assert.deepEqual(read(first), docs);
    assert.deepEqual(read(second), [{ second: true }]);
    file.delete();
    assert.equal(area.fileCount, 0);
    assert.equal(area.bytesInUse, 0);
  });
});

test('an external sort spills runs and merges them into the order JavaScript sorts in, stably', () => {
  withArea((area, dir) => {
    const scope = new SpillScope(area);
    // Few distinct keys: many ties, so stability across runs is exercised.
    const items = randoms(20_000, 7, 500).map((key, seq) => ({ key, seq }));
    const s = sorter(scope, 100 * 50); // a run every 51 items → about 390 runs, several merge passes
    const out = drainAll(s, items);
    const expected = [...items].sort((a, b) => a.key - b.key || a.seq - b.seq);
    assert.deepEqual(out, expected);
    assert.equal(s.stats.spills, Math.ceil(items.length / 51));
    assert.ok(s.usedDisk);
    assert.ok(
      s.stats.spills > mergeFanIn(100 * 50) ** 2,
      'the input needs more than two merge passes',
    );
    // The stream deleted its file when it ended.
    assert.equal(area.fileCount, 0);
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});

test('top-k keeps the first k items in order, spilling when k items do not fit', () => {
  withArea((area) => {
    const items = randoms(5_000, 11, 1_000_000).map((key, seq) => ({ key, seq }));
    const expected = [...items].sort((a, b) => a.key - b.key || a.seq - b.seq).slice(0, 300);
    const spilling = sorter(new SpillScope(area), 100 * 100, { limit: 300 });
    assert.deepEqual(drainAll(spilling, items), expected);
    assert.ok(spilling.usedDisk);
    const inMemory = sorter(new SpillScope(area), 100 * 1000, { limit: 300 });
    assert.deepEqual(drainAll(inMemory, items), expected);
    assert.equal(inMemory.usedDisk, false);
  });
});

test('without disk use the sorter fails once past its limit; without a scope it stays in memory', () => {
  withArea((area) => {
    const items = randoms(100, 3, 50).map((key, seq) => ({ key, seq }));
    assert.throws(
      () => drainAll(sorter(new SpillScope(area), 1000, { allowDiskUse: false }), items),
      (e) => e instanceof CommandError && e.code === 292,
    );
    const s = sorter(undefined, 1000);
    assert.deepEqual(
      drainAll(s, items),
      [...items].sort((a, b) => a.key - b.key || a.seq - b.seq),
    );
    assert.equal(s.usedDisk, false);
    assert.equal(area.fileCount, 0);
  });
});

test('closing a stream early, or releasing its scope, deletes the spill files', () => {
  withArea((area, dir) => {
    const items = randoms(2_000, 5, 1000).map((key, seq) => ({ key, seq }));
    const scope = new SpillScope(area);
    const s = sorter(scope, 100 * 100);
    for (const i of items) s.add(i);
    const stream = s.finish();
    assert.ok(stream.next() !== undefined);
    assert.ok(area.fileCount > 0);
    assert.ok(fs.readdirSync(dir).length > 0);
    stream.close();
    assert.equal(area.fileCount, 0);

    const s2 = sorter(scope, 100 * 100);
    for (const i of items) s2.add(i);
    assert.ok(area.fileCount > 0);
    scope.release();
    assert.equal(area.fileCount, 0);
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.equal(area.bytesInUse, 0);
  });
});

test('a server wipes the spill directory a crash left behind', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'spill-test-'));
  try {
    fs.mkdirSync(path.join(root, '_tmp'));
    fs.writeFileSync(path.join(root, '_tmp', 'spill-1-leftover'), 'x');
    const area = SpillArea.forServer(root);
    area.wipe();
    assert.equal(fs.existsSync(path.join(root, '_tmp')), false);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
