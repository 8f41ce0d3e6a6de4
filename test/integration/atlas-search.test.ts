// Atlas Search through the driver's helpers, answered as a community mongod 7.0 (no mongot)
// answers them: apps and driver suites probe for exactly these codes.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

describe('Atlas Search without Atlas', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
    await ts.client.db('search').collection<TestDoc>('c').insertOne({ _id: 1 });
  });
  after(() => ts.stop());

  it('search index commands are unknown commands (59)', async () => {
    const c = ts.client.db('search').collection<TestDoc>('c');
    await assert.rejects(
      c.createSearchIndex({ name: 'x', definition: { mappings: { dynamic: true } } }),
      {
        code: 59,
        message: "no such command: 'createSearchIndexes'",
      },
    );
    await assert.rejects(c.updateSearchIndex('x', {}), { code: 59 });
    await assert.rejects(c.dropSearchIndex('x'), { code: 59 });
  });

  it('$listSearchIndexes, $search, $searchMeta and $vectorSearch fail with 6047401', async () => {
    const c = ts.client.db('search').collection<TestDoc>('c');
    await assert.rejects(c.listSearchIndexes().toArray(), {
      code: 6047401,
      codeName: 'Location6047401',
      message: '$listSearchIndexes stage is only allowed on MongoDB Atlas',
    });
    for (const stage of ['$search', '$searchMeta', '$vectorSearch']) {
      await assert.rejects(c.aggregate([{ [stage]: {} }]).toArray(), {
        code: 6047401,
        message: `${stage} stage is only allowed on MongoDB Atlas`,
      });
    }
    assert.equal(await c.countDocuments(), 1, 'the server still serves');
  });
});
