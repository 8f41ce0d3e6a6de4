// The persistent B+ tree under the memory engine: checked against a sorted array, including
// the property that matters most to snapshots — a frozen root never changes afterwards.

import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  SortedMap,
  TreeCursor,
  emptyTree,
  newEditToken,
  treeDelete,
  treeGet,
  treeSet,
  treeSize,
  type Bounds,
  type TreeNode,
} from '../../../src/storage/btree.js';

const cmp = (a: number, b: number): number => a - b;

function collect(root: TreeNode<number, number>, bounds: Bounds<number>): number[] {
  const c = new TreeCursor(root, cmp, bounds);
  const out: number[] = [];
  while (c.next()) out.push(c.key as number);
  return out;
}

function modelRange(keys: number[], b: Bounds<number>): number[] {
  const inside = keys.filter(
    (k) =>
      (b.lo === undefined || k > b.lo || (k === b.lo && b.loInclusive)) &&
      (b.hi === undefined || k < b.hi || (k === b.hi && b.hiInclusive)),
  );
  inside.sort(cmp);
  return b.reverse ? inside.reverse() : inside;
}

const boundsArb = fc.record({
  lo: fc.option(fc.integer({ min: -5, max: 1005 }), { nil: undefined }),
  loInclusive: fc.boolean(),
  hi: fc.option(fc.integer({ min: -5, max: 1005 }), { nil: undefined }),
  hiInclusive: fc.boolean(),
  reverse: fc.boolean(),
});

describe('persistent B+ tree', () => {
  it('matches a sorted-array model under random inserts and deletes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 1000 })), {
          maxLength: 3000,
          size: 'max',
        }),
        fc.array(boundsArb, { minLength: 1, maxLength: 5 }),
        (ops, boundsList) => {
          const model = new Map<number, number>();
          let root = emptyTree<number, number>();
          // A new token every 100 ops mixes in-place edits with copy-on-write edits.
          let token = newEditToken();
          ops.forEach(([isPut, k], i) => {
            if (i % 100 === 0) token = newEditToken();
            if (isPut) {
              root = treeSet(root, k, i, cmp, token);
              model.set(k, i);
            } else {
              root = treeDelete(root, k, cmp, token);
              model.delete(k);
            }
          });
          assert.equal(treeSize(root), model.size);
          for (const [k, v] of model) assert.equal(treeGet(root, k, cmp), v);
          const keys = [...model.keys()];
          for (const b of boundsList) assert.deepEqual(collect(root, b), modelRange(keys, b));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('leaves a frozen root unchanged while the map goes on being edited', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 500 }), { minLength: 1, maxLength: 800, size: 'max' }),
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 500 })), {
          maxLength: 800,
          size: 'max',
        }),
        (initial, later) => {
          const map = new SortedMap<number, number>(cmp);
          for (const k of initial) map.set(k, k);
          const frozen = map.freeze();
          const before = collect(frozen, {
            lo: undefined,
            loInclusive: true,
            hi: undefined,
            hiInclusive: false,
            reverse: false,
          });
          for (const [isPut, k] of later) {
            if (isPut) map.set(k, -k);
            else map.delete(k);
          }
          const after = collect(frozen, {
            lo: undefined,
            loInclusive: true,
            hi: undefined,
            hiInclusive: false,
            reverse: false,
          });
          assert.deepEqual(after, before);
          for (const k of before) assert.equal(treeGet(frozen, k, cmp), k);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('reports the previous value of replaced and deleted keys', () => {
    const map = new SortedMap<number, string>(cmp);
    const r = { found: false, prev: undefined as string | undefined };
    map.set(1, 'a', r);
    assert.deepEqual(r, { found: false, prev: undefined });
    map.set(1, 'b', r);
    assert.deepEqual(r, { found: true, prev: 'a' });
    map.delete(1, r);
    assert.deepEqual(r, { found: true, prev: 'b' });
    map.delete(1, r);
    assert.deepEqual(r, { found: false, prev: undefined });
  });

  it('stays shallow and balanced after mass deletes (sizes and order survive rebalancing)', () => {
    const map = new SortedMap<number, number>(cmp);
    for (let i = 0; i < 20_000; i++) map.set(i, i);
    for (let i = 0; i < 20_000; i++) if (i % 97 !== 0) map.delete(i);
    const keys = collect(map.freeze(), {
      lo: undefined,
      loInclusive: true,
      hi: undefined,
      hiInclusive: false,
      reverse: false,
    });
    assert.equal(keys.length, map.size);
    assert.deepEqual(
      keys,
      Array.from({ length: Math.ceil(20_000 / 97) }, (_, i) => i * 97),
    );
  });
});
