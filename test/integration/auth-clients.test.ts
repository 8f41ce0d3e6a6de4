// Other clients logging in: mongoose (a dev dependency), Debian's pymongo and mongosh when they
// are installed (test/helpers/external-clients.ts says how to install them). Tests that need a
// missing client skip with a line saying so.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mongoose from 'mongoose';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';
import {
  mongoshMissing,
  mongoshPath,
  pymongoMissing,
  pymongoPython,
  runClient,
  runMongosh,
} from '../helpers/external-clients.js';

/** Debian's interpreter first: a python3 earlier in PATH (pyenv, venv) may lack the package. */
describe('other clients log in with SCRAM', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ auth: { username: 'root', password: 'rootpw' } });
    await ts.client.db('admin').command({
      createUser: 'app',
      pwd: 'app pw',
      roles: [{ role: 'readWrite', db: 'shop' }],
    });
    await ts.client.db('shop').collection<TestDoc>('items').insertOne({ _id: 1, name: 'pen' });
  });
  after(() => ts.stop());

  it('mongoose connects with credentials and is refused what the role does not grant', async () => {
    const conn = await mongoose
      .createConnection(
        `mongodb://app:${encodeURIComponent('app pw')}@${ts.server.host}/shop?replicaSet=rs0&authSource=admin`,
      )
      .asPromise();
    try {
      const Item = conn.model('Item', new mongoose.Schema({ _id: Number, name: String }), 'items');
      assert.equal((await Item.findById(1).lean())?.name, 'pen');
      await Item.create({ _id: 2, name: 'ink' });
      await assert.rejects(conn.useDb('other').collection<TestDoc>('x').insertOne({}), {
        code: 13,
      });
    } finally {
      await conn.close();
    }
  });

  it('pymongo (Debian python3-pymongo) logs in with SCRAM-SHA-256 and SCRAM-SHA-1', async (t) => {
    const py = pymongoPython();
    if (py === undefined) {
      t.skip(pymongoMissing);
      return;
    }
    const script = `
import sys, pymongo
from pymongo.errors import OperationFailure
uri, = sys.argv[1:]
for mech in ("SCRAM-SHA-256", "SCRAM-SHA-1"):
    c = pymongo.MongoClient(uri + "&authMechanism=" + mech, serverSelectionTimeoutMS=5000)
    assert c.shop.items.find_one({"_id": 1})["name"] == "pen"
    try:
        c.other.x.insert_one({})
        raise SystemExit("insert into other should be refused")
    except OperationFailure as e:
        assert e.code == 13, e.code
    c.close()
bad = pymongo.MongoClient(uri.replace("app%20pw", "wrong"), serverSelectionTimeoutMS=5000)
try:
    bad.shop.items.find_one()
    raise SystemExit("wrong password accepted")
except OperationFailure as e:
    assert e.code == 18, e.code
print("ok", pymongo.version)
`;
    const uri = `mongodb://app:app%20pw@${ts.server.host}/?replicaSet=rs0&authSource=admin`;
    const out = await runClient(py.python, ['-c', script, uri]);
    assert.match(out, /^ok /);
    t.diagnostic(`pymongo ${py.version}`);
  });

  it('mongosh logs in and runs a query', async (t) => {
    const mongosh = mongoshPath();
    if (mongosh === undefined) {
      t.skip(mongoshMissing);
      return;
    }
    const out = await runMongosh(
      mongosh,
      `mongodb://app:app%20pw@${ts.server.host}/shop?replicaSet=rs0&authSource=admin`,
      'print(JSON.stringify(db.items.findOne({_id: 1})))',
    );
    assert.match(out, /"name":"pen"/);
  });
});
