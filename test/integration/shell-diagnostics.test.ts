// The diagnostics mongosh and pymongo users call, run by the real tools when they are installed
// (neither is a dependency: `npm install --prefix /tmp/mongosh-pkg mongosh` or MONGOSH=path,
// and Debian's `apt-get install -y python3-pymongo`). A missing tool skips its test with a line
// saying so.

import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

function mongoshPath(): string | undefined {
  for (const p of [process.env['MONGOSH'], '/tmp/mongosh-pkg/node_modules/.bin/mongosh']) {
    if (p !== undefined && p !== '' && existsSync(p)) return p;
  }
  return undefined;
}

/** Debian's interpreter first: a python3 earlier in PATH (pyenv, venv) may lack the package. */
function pymongoPython(): string | undefined {
  for (const python of ['/usr/bin/python3', 'python3']) {
    const r = spawnSync(python, ['-c', 'import pymongo'], { encoding: 'utf8' });
    if (r.status === 0) return python;
  }
  return undefined;
}

/**
 * Runs a tool without blocking the event loop: the server under test runs in this process.
 */
function runTool(
  file: string,
  args: readonly string[],
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, [...args], { encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ status: code, stdout, stderr });
    });
  });
}

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
      t.skip('mongosh not installed (npm install --prefix /tmp/mongosh-pkg mongosh)');
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
    const r = await runTool(mongosh, [
      ts.server.getUri('shell'),
      '--quiet',
      '--norc',
      '--eval',
      script,
    ]);
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const lastLine = r.stdout.trim().split('\n').at(-1) ?? '';
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
      t.skip('python3 with pymongo not installed (apt-get install -y python3-pymongo)');
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
    const r = await runTool(python, ['-c', script, ts.uri]);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, Record<string, unknown>>;
    assert.equal(out['dbstats']?.['db'], 'shell');
    assert.ok(Number(out['dbstats']?.['indexSize']) > 0);
    assert.equal(out['collstats']?.['count'], 2);
    assert.equal(out['collstats']?.['nindexes'], 2);
    assert.equal(out['validate']?.['valid'], true);
    assert.ok(Number(out['profiled']) >= 1);
    assert.ok(Number(out['status']?.['insert']) >= 2);
  });
});
