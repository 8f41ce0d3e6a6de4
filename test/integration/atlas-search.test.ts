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

  it('search index commands answer CommandNotSupported (115), as mongod 7.0.5+ without Atlas', async () => {
    const c = ts.client.db('search').collection<TestDoc>('c');
    const refusal = { code: 115, message: 'Search index commands are only supported with Atlas.' };
    await assert.rejects(
      c.createSearchIndex({ name: 'x', definition: { mappings: { dynamic: true } } }),
      refusal,
    );
    await assert.rejects(c.updateSearchIndex('x', {}), refusal);
    await assert.rejects(c.dropSearchIndex('x'), refusal);
    const db = ts.client.db('search');
    await assert.rejects(db.command({ listSearchIndexes: 'c' }), refusal);
    // Malformed requests fail parsing first, with mongod's IDL codes.
    await assert.rejects(db.command({ createSearchIndexes: 'c' }), { code: 40414 });
    await assert.rejects(db.command({ createSearchIndexes: 'c', indexes: [{}] }), {
      code: 40414,
    });
    await assert.rejects(db.command({ createSearchIndexes: 'c', indexes: 'x' }), { code: 14 });
    await assert.rejects(db.command({ updateSearchIndex: 'c', name: 'x' }), { code: 40414 });
    await assert.rejects(db.command({ dropSearchIndex: 'c', name: 1 }), { code: 14 });
    await assert.rejects(db.command({ dropSearchIndex: 'c', bogus: 1 }), { code: 40415 });
    assert.equal(await c.countDocuments(), 1, 'nothing changed; the server still serves');
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
