// Regexes cannot stall the server: a pattern that backtracks exponentially (or polynomially
// on a long string) fails its operation with 51156 after a bounded time, other clients keep
// being served, nothing stored changes; and searches routed to the guard's worker (long
// strings) still answer correctly.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type { Collection } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

const evil = `${'a'.repeat(48)}!`;
const long = `start-${'x'.repeat(300_000)}-end`;

async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return e instanceof MongoServerError && typeof e.code === 'number' ? e.code : -1;
  }
}

describe('regex cost is bounded', () => {
  let t: TestServer;
  let coll: Collection<TestDoc>;

  before(async () => {
    t = await startTestServer();
    coll = t.client.db('regex_cost').collection('c');
    await coll.insertMany([
      { _id: 1, s: evil },
      { _id: 2, s: 'aaaa' },
      { _id: 3, s: long },
      { _id: 4, s: 'start-short-end' },
    ]);
  });
  after(async () => {
    await t.stop();
  });

  test('find with an exponential pattern fails with 51156 while another client is served', async () => {
    const other = await t.newClient();
    const bad = codeOf(coll.find({ s: { $regex: '(a+)+$' } }).toArray());
    const ping = other.db('admin').command({ ping: 1 });
    assert.equal(await bad, 51156);
    assert.deepEqual((await ping)['ok'], 1);
    assert.equal(await coll.countDocuments({}), 4);
  });

  test('the same pattern in $regexMatch, $regexFind, $jsonSchema and $in fails the same way', async () => {
    assert.equal(
      await codeOf(
        coll
          .aggregate([{ $project: { m: { $regexMatch: { input: '$s', regex: '(a+)+$' } } } }])
          .toArray(),
      ),
      51156,
    );
    assert.equal(
      await codeOf(
        coll
          .aggregate([{ $project: { m: { $regexFind: { input: '$s', regex: /(a|aa)+$/ } } } }])
          .toArray(),
      ),
      51156,
    );
    assert.equal(
      await codeOf(
        coll.find({ $jsonSchema: { properties: { s: { pattern: '(a+)+$' } } } }).toArray(),
      ),
      51156,
    );
    assert.equal(await codeOf(coll.find({ s: { $in: [/(a+)+$/] } }).toArray()), 51156);
  });

  test('a polynomial pattern on a long string fails with 51156', async () => {
    assert.equal(await codeOf(coll.find({ s: { $regex: '.*x.*x.*x.*y' } }).toArray()), 51156);
  });

  test('the same pattern still matches where it is cheap', async () => {
    const docs = await coll.find({ _id: { $in: [2, 4] }, s: { $regex: '(a+)+$' } }).toArray();
    assert.deepEqual(
      docs.map((d) => d['_id']),
      [2],
    );
  });

  test('long strings are searched correctly through the guard', async () => {
    const ids = (
      await coll.find({ s: { $regex: '^start-.*-end$' } }, { sort: { _id: 1 } }).toArray()
    ).map((d) => d['_id']);
    assert.deepEqual(ids, [3, 4]);
    const [found] = await coll
      .aggregate([
        { $match: { _id: 3 } },
        { $project: { _id: 0, f: { $regexFindAll: { input: '$s', regex: '(x{100000})' } } } },
      ])
      .toArray();
    const matches = (found?.['f'] ?? []) as Array<{ idx: number }>;
    // 300,000 x's hold three disjoint runs of 100,000, found after the 6 characters of "start-".
    assert.deepEqual(
      matches.map((m) => m.idx),
      [6, 100_006, 200_006],
    );
  });
});
