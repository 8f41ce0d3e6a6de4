// The secantusdb/mocha global fixture (.mocharc.json requires it): one server for the run,
// its URI in process.env.MONGO_URL.
import assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';

describe('the global fixture', function () {
  it('serves MONGO_URL', async function () {
    assert.ok(process.env.MONGO_URL, 'MONGO_URL is set');
    const client = new MongoClient(process.env.MONGO_URL);
    try {
      const r = await client.db('admin').command({ ping: 1 });
      assert.equal(r.ok, 1);
    } finally {
      await client.close();
    }
  });
});
