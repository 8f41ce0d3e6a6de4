// Arrays far longer than a call's argument list, through the driver. Growing an array with
// `push(...items)` or `splice(at, 0, ...items)` passes each item as an argument and throws
// RangeError ("Maximum call stack size exceeded") past about 125k items, which reached the
// client as an internal error; and $addToSet $each and $pullAll compared every value with
// every element, minutes of one update holding the event loop. mongod has no such limit below
// the 16 MiB document size: each operation here, on a 200,000-element array (~2.4 MB
// stored), must give mongod's answer.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Collection } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const N = 200_000;
const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

interface Holder {
  _id: string;
  a: number[];
}

describe('arrays of 200,000 elements', () => {
  let ts: TestServer;
  let coll: Collection<Holder>;
  before(async () => {
    ts = await startTestServer();
    coll = ts.client.db('large_arrays').collection<Holder>('docs');
  });
  after(async () => {
    await ts.stop();
  });

  const seed = async (id: string, a: number[]): Promise<void> => {
    await coll.insertOne({ _id: id, a });
  };
  const arrayOf = async (id: string): Promise<number[]> => {
    const doc = await coll.findOne({ _id: id });
    return doc?.a ?? [];
  };

  test('$concatArrays and $setUnion in an aggregation', async () => {
    await seed('agg', range(0, N));
    const [r] = await coll
      .aggregate([
        { $match: { _id: 'agg' } },
        {
          $project: {
            concat: { $size: { $concatArrays: ['$a', '$a'] } },
            union: { $size: { $setUnion: ['$a', [N, N + 1]] } },
            zipped: { $size: { $zip: { inputs: ['$a', [1, 2, 3]], useLongestLength: true } } },
          },
        },
      ])
      .toArray();
    assert.deepEqual(r, { _id: 'agg', concat: 2 * N, union: N + 2, zipped: N });
  });

  test('$push $each at the end, in the middle, and at the front', async () => {
    await seed('push', [-1, -2]);
    await coll.updateOne({ _id: 'push' }, { $push: { a: { $each: range(0, N) } } });
    let a = await arrayOf('push');
    assert.equal(a.length, N + 2);
    assert.deepEqual(a.slice(0, 3), [-1, -2, 0]);
    assert.equal(a.at(-1), N - 1);

    await coll.updateOne({ _id: 'push' }, { $push: { a: { $each: range(N, N), $position: 1 } } });
    a = await arrayOf('push');
    assert.equal(a.length, 2 * N + 2);
    assert.deepEqual(a.slice(0, 3), [-1, N, N + 1]);
    assert.deepEqual(a.slice(N, N + 3), [2 * N - 1, -2, 0]);

    await coll.updateOne(
      { _id: 'push' },
      { $push: { a: { $each: [7, 8], $position: 0, $slice: N } } },
    );
    a = await arrayOf('push');
    assert.equal(a.length, N);
    assert.deepEqual(a.slice(0, 3), [7, 8, -1]);
  });

  test('$addToSet $each, $pull and $pullAll keep and drop the right elements', async () => {
    await seed('set', [0, 1]);
    await coll.updateOne({ _id: 'set' }, { $addToSet: { a: { $each: range(0, N) } } });
    let a = await arrayOf('set');
    assert.equal(a.length, N);
    assert.deepEqual(a.slice(0, 3), [0, 1, 2]);

    await coll.updateOne({ _id: 'set' }, { $pull: { a: { $gte: N / 2 } } });
    a = await arrayOf('set');
    assert.equal(a.length, N / 2);
    assert.equal(a.at(-1), N / 2 - 1);

    await coll.updateOne({ _id: 'set' }, { $pullAll: { a: range(1, N / 2 - 2) } });
    assert.deepEqual(await arrayOf('set'), [0, N / 2 - 1]);
  });

  test('distinct over one document holding the whole array', async () => {
    await seed('distinct', range(0, N));
    const values = await coll.distinct('a', { _id: 'distinct' });
    assert.equal(values.length, N);
    assert.equal(values[0], 0);
    assert.equal(values.at(-1), N - 1);
  });

  test('the server still answers after all of it', async () => {
    assert.equal(await coll.countDocuments(), 4);
  });
});
