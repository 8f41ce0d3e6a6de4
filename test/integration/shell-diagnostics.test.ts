// The diagnostics mongosh and pymongo users call, run by the real tools when they are installed
// (neither is a dependency: `npm install --prefix /tmp/mongosh-pkg mongosh` or MONGOSH=path,
// and Debian's `apt-get install -y python3-pymongo`). A missing tool skips its test with a line
// saying so.

import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import {
  mongoshMissing,
  mongoshPath,
  pymongoMissing,
  pymongoPython,
  runClient,
  runMongosh,
} from '../helpers/external-clients.js';

describe('mongosh and pymongo diagnostics', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
    const c = ts.client.db('shell').collection('people');
    await c.insertMany([
      { name: 'Ada', born: 1815 },
      { name: 'Alan', born: 1912 },
    ]);
    await c.createIndex({ name: 1 });
  });
  after(() => ts.stop());

  it('mongosh: db.setProfilingLevel(), db.coll.validate(), db.stats(), show profile', async (t) => {
    const mongosh = mongoshPath();
    if (mongosh === undefined) {
      t.skip(mongoshMissing);
      return;
    }
    const script = `
      const out = {};
      out.stats = db.stats();
      out.set = db.setProfilingLevel(2);
      db.people.find({ born: { $gt: 1900 } }).toArray();
      out.status = db.getProfilingStatus();
      out.profiled = db.system.profile.countDocuments({ ns: 'shell.people' });
      db.setProfilingLevel(0, { slowms: 50 });
      out.validate = db.people.validate({ full: true });
      out.collStats = db.people.stats();
      out.log = db.adminCommand({ getLog: 'global' }).totalLinesWritten;
      print(EJSON.stringify(out, { relaxed: true }));
    `;
    // A non-zero exit rejects, with the tool's output in the error.
    const stdout = await runMongosh(mongosh, ts.server.getUri('shell'), script);
    const lastLine = stdout.trim().split('\n').at(-1) ?? '';
    const out = JSON.parse(lastLine) as Record<string, Record<string, unknown>>;
    assert.equal(out['set']?.['was'], 0);
    assert.equal(out['status']?.['was'], 2);
    assert.ok(Number(out['profiled']) >= 1);
    assert.equal(out['validate']?.['valid'], true);
    assert.equal(out['validate']?.['nIndexes'], 2);
    assert.ok(Number(out['stats']?.['indexSize']) > 0, 'db.stats().indexSize with two indexes');
    assert.equal(out['stats']?.['indexes'], 2);
    const sizes = out['collStats']?.['indexSizes'] as Record<string, number>;
    assert.ok(sizes['_id_'] !== undefined && Number(sizes['name_1']) > 0);
    assert.ok(Number(out['log']) > 0);
  });

  it("pymongo: db.command('dbstats') and 'collstats', validate_collection, profiling", async (t) => {
    const python = pymongoPython();
    if (python === undefined) {
      t.skip(pymongoMissing);
      return;
    }
    const script = `
import json, sys
from pymongo import MongoClient
c = MongoClient(sys.argv[1], serverSelectionTimeoutMS=5000)
db = c.shell
out = {}
out['dbstats'] = db.command('dbstats')
out['collstats'] = db.command('collstats', 'people')
out['validate'] = db.validate_collection('people')
db.command('profile', 2)
db.people.find_one({'name': 'Ada'})
out['profiled'] = db.system.profile.count_documents({'ns': 'shell.people'})
db.command('profile', 0)
out['status'] = c.admin.command('serverStatus')['opcounters']
print(json.dumps(out, default=str))
`;
    const out = JSON.parse(await runClient(python.python, ['-c', script, ts.uri])) as Record<
      string,
      Record<string, unknown>
    >;
    assert.equal(out['dbstats']?.['db'], 'shell');
    assert.ok(Number(out['dbstats']?.['indexSize']) > 0);
    assert.equal(out['collstats']?.['count'], 2);
    assert.equal(out['collstats']?.['nindexes'], 2);
    assert.equal(out['validate']?.['valid'], true);
    assert.ok(Number(out['profiled']) >= 1);
    assert.ok(Number(out['status']?.['insert']) >= 2);
  });
});
