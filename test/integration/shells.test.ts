// mongosh and pymongo against a server without access control: the handshake (each client's
// own hello / isMaster and monitoring), then CRUD, cursors over several batches, an index, an
// aggregation and a transaction, checked through the Node driver. Each test skips with a line
// saying how to install the client when it is absent (CI does not install them).

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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

describe('mongosh and pymongo connect and work', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(() => ts.stop());

  it('mongosh --eval: hello, writes, a multi-batch cursor, an index, a transaction', async (t) => {
    const mongosh = mongoshPath();
    if (mongosh === undefined) {
      t.skip(mongoshMissing);
      return;
    }
    const code = `
      const d = db.getSiblingDB('shell');
      const h = db.hello();
      d.people.insertMany([...Array(150).keys()].map((i) => ({ _id: i, n: i % 3 })));
      d.people.createIndex({ n: 1 });
      const s = db.getMongo().startSession();
      s.startTransaction();
      s.getDatabase('shell').people.updateMany({ n: 0 }, { $set: { zero: true } });
      s.commitTransaction();
      const counted = d.people.aggregate([{ $group: { _id: '$n', c: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray();
      print(JSON.stringify({
        primary: h.isWritablePrimary,
        setName: h.setName,
        all: d.people.find().batchSize(20).toArray().length,
        zero: d.people.countDocuments({ zero: true }),
        counted,
        plan: d.people.find({ n: 1 }).explain().queryPlanner.winningPlan.inputStage.stage,
      }));`;
    for (const uri of [
      `mongodb://${ts.server.host}/?directConnection=true&serverSelectionTimeoutMS=10000`,
      `mongodb://${ts.server.host}/?replicaSet=rs0&serverSelectionTimeoutMS=10000`,
    ]) {
      await ts.client.db('shell').dropDatabase();
      const out = await runMongosh(mongosh, uri, code);
      assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1) ?? ''), {
        primary: true,
        setName: 'rs0',
        all: 150,
        zero: 50,
        counted: [
          { _id: 0, c: 50 },
          { _id: 1, c: 50 },
          { _id: 2, c: 50 },
        ],
        plan: 'IXSCAN',
      });
      const people = ts.client.db('shell').collection<TestDoc>('people');
      assert.equal(await people.countDocuments({ zero: true }), 50);
    }
  });

  it('pymongo: discovery, writes, a multi-batch cursor, an index, a transaction', async (t) => {
    const py = pymongoPython();
    if (py === undefined) {
      t.skip(pymongoMissing);
      return;
    }
    const script = `
import json, sys, pymongo
uri, = sys.argv[1:]
c = pymongo.MongoClient(uri, serverSelectionTimeoutMS=10000)
d = c.py
d.people.insert_many([{"_id": i, "n": i % 3} for i in range(150)])
d.people.create_index([("n", 1)])
with c.start_session() as s:
    with s.start_transaction():
        d.people.update_many({"n": 0}, {"$set": {"zero": True}}, session=s)
counted = list(d.people.aggregate([{"$group": {"_id": "$n", "c": {"$sum": 1}}}, {"$sort": {"_id": 1}}]))
out = {
    "primary": c.is_primary,
    "all": len(list(d.people.find().batch_size(20))),
    "zero": d.people.count_documents({"zero": True}),
    "counted": counted,
    "indexes": sorted(d.people.index_information().keys()),
}
c.close()
print(json.dumps(out))
`;
    for (const uri of [
      `mongodb://${ts.server.host}/?directConnection=true`,
      `mongodb://${ts.server.host}/?replicaSet=rs0`,
    ]) {
      await ts.client.db('py').dropDatabase();
      const out = await runClient(py.python, ['-c', script, uri]);
      assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1) ?? ''), {
        primary: true,
        all: 150,
        zero: 50,
        counted: [
          { _id: 0, c: 50 },
          { _id: 1, c: 50 },
          { _id: 2, c: 50 },
        ],
        indexes: ['_id_', 'n_1'],
      });
      const people = ts.client.db('py').collection<TestDoc>('people');
      assert.equal(await people.countDocuments({ zero: true }), 50);
    }
    t.diagnostic(`pymongo ${py.version}`);
  });
});
