// The variables of find-like commands through the official driver: the `let` option of find,
// aggregate, update, delete and findAndModify (mongod 5.0+), an update statement's constants
// (`c`), and $$NOW / $$CLUSTER_TIME in `$expr` filters, projections and pipeline updates.
// Expected behaviour comes from mongod's jstests (jstests/core/command_let_variables.js), its
// source (Variables::seedVariablesWithLetParameters, variable_validation.cpp,
// update/pipeline_executor.cpp, update_driver.cpp) and the manual, not from this server.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Collection, Db, Document } from 'mongodb';
import { expectServerCode, freshCollection } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let ts: TestServer;
let db: Db;

before(async () => {
  ts = await startTestServer();
  db = ts.client.db('command_variables');
});

after(async () => {
  await ts?.stop();
});

const fresh = (name: string, docs: Document[]): Promise<Collection<TestDoc>> =>
  freshCollection(db, name, docs);
const expectCode = expectServerCode;

/** The code of a write command's first writeError (mongod reports statement errors there). */
function firstWriteError(reply: Document): { code: number; errmsg: string } {
  const errors = reply['writeErrors'] as Array<{ code: number; errmsg: string }> | undefined;
  assert.ok(
    errors !== undefined && errors.length > 0,
    `no writeErrors in ${JSON.stringify(reply)}`,
  );
  return errors[0] as { code: number; errmsg: string };
}

const birds = [
  { _id: 1, Species: 'Blackbird (Turdus merula)' },
  { _id: 2, Species: 'Bullfinch (Pyrrhula pyrrhula)' },
  { _id: 3, Species: 'Chaffinch (Fringilla coelebs)' },
  { _id: 4, Species: 'Song Thrush (Turdus philomelos)' },
];

describe('let: command_let_variables.js', () => {
  test('find, delete, findAndModify and update see the let variables in $expr and pipelines', async () => {
    const c = await fresh('birds', birds);
    const found = await db.command({
      find: 'birds',
      let: { target_species: 'Song Thrush (Turdus philomelos)' },
      filter: { $expr: { $eq: ['$Species', '$$target_species'] } },
      projection: { _id: 0 },
    });
    assert.deepEqual((found['cursor'] as Document)['firstBatch'], [
      { Species: 'Song Thrush (Turdus philomelos)' },
    ]);

    await db.command({
      delete: 'birds',
      let: { target_species: 'Song Thrush (Turdus philomelos)' },
      deletes: [
        {
          q: { $and: [{ _id: 4 }, { $expr: { $eq: ['$Species', '$$target_species'] } }] },
          limit: 1,
        },
      ],
    });
    assert.equal(await c.countDocuments({ _id: 4 }), 0);

    await c.insertOne({ _id: 5, Species: 'spy_bird' });
    const fam = await db.command({
      findAndModify: 'birds',
      let: { species_name: 'not_a_bird', realSpecies: 'dino' },
      query: { $and: [{ _id: 5 }, { $expr: { $eq: ['$Species', 'spy_bird'] } }] },
      update: [
        { $project: { Species: '$$species_name' } },
        { $addFields: { suspect: '$$realSpecies' } },
      ],
      new: true,
    });
    assert.deepEqual(fam['value'], { _id: 5, Species: 'not_a_bird', suspect: 'dino' });

    const up = await db.command({
      update: 'birds',
      updates: [
        {
          q: { $expr: { $eq: ['$Species', '$$target_species'] } },
          u: [{ $set: { Species: '$$new_name' } }],
        },
      ],
      let: { target_species: 'Chaffinch (Fringilla coelebs)', new_name: 'Chaffinch' },
    });
    assert.equal(up['n'], 1);
    assert.equal(up['nModified'], 1);
    assert.equal(await c.countDocuments({ Species: 'Chaffinch' }), 1);
  });

  test('an undefined variable in the filter or the pipeline of an update is 17276', async () => {
    await fresh('birds', birds);
    const q = await db.command({
      update: 'birds',
      updates: [
        {
          q: { $expr: { $eq: ['$Species', '$$target_species'] } },
          u: [{ $set: { Species: 'Homo Erectus' } }],
        },
      ],
      let: { cat: 'not_a_bird' },
    });
    assert.equal(firstWriteError(q).code, 17276);
    const u = await db.command({
      update: 'birds',
      updates: [
        { q: { $expr: { $eq: ['$Species', 'x'] } }, u: [{ $set: { Species: '$$new_name' } }] },
      ],
      let: { cat: 'not_a_bird' },
    });
    assert.equal(firstWriteError(u).code, 17276);
  });

  test('let names: reserved ones are FailedToParse, internal constants 4738901', async () => {
    await fresh('birds', birds);
    const agg = (letVars: Document): Promise<Document> =>
      db.command({ aggregate: 'birds', pipeline: [], cursor: {}, let: letVars });
    const e = await expectCode(agg({ Reserved: 'failure' }), 9);
    assert.equal(
      e.message,
      "Invalid 'let' parameter :: caused by :: 'Reserved' starts with an invalid character for a user variable name",
    );
    await expectCode(agg({ NOW: 'failure' }), 4738901);
    await expectCode(agg({ CLUSTER_TIME: 'failure' }), 4738901);
    await expectCode(agg({ IS_MR: 'failure' }), 4738901);
    await expectCode(agg({ JS_SCOPE: 'failure' }), 4738901);
    await expectCode(agg({ ROOT: 'failure' }), 9);
    await expectCode(agg({ REMOVE: 'failure' }), 9);
    await expectCode(db.command({ find: 'birds', filter: {}, let: { NOW: 1 } }), 4738901);
  });

  test('a let expression may not read the document (4890500) nor an undefined variable (17276)', async () => {
    await fresh('birds', birds);
    await expectCode(db.command({ find: 'birds', filter: {}, let: { a: '$_id' } }), 4890500);
    await expectCode(
      db.command({ find: 'birds', filter: {}, let: { a: { $add: [1, '$$ROOT.x'] } } }),
      4890500,
    );
    await expectCode(
      db.command({ find: 'birds', filter: {}, let: { a: '$$oops_undefined_var' } }),
      17276,
    );
    // Rebinding CURRENT inside the expression makes the path a variable's, not the document's.
    const r = await db.command({
      find: 'birds',
      filter: { _id: 1 },
      projection: { _id: '$$a' },
      let: { a: { $let: { vars: { CURRENT: { x: 3 } }, in: '$x' } } },
    });
    assert.deepEqual((r['cursor'] as Document)['firstBatch'], [{ _id: 3 }]);
  });

  test('$literal keeps a $-string a string in a let variable', async () => {
    await fresh('birds', birds);
    const got = await db
      .collection('birds')
      .aggregate([{ $match: { $expr: { $eq: ['$_id', 2] } } }, { $project: { a: '$$b' } }], {
        let: { b: { $literal: '$notAFieldPath' } },
      })
      .toArray();
    assert.deepEqual(got, [{ _id: 2, a: '$notAFieldPath' }]);
  });
});

describe("update statement constants ('c')", () => {
  test('bind variables for the pipeline and shadow the command let', async () => {
    const c = await fresh('consts', [{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    const r = await db.command({
      update: 'consts',
      let: { y: 1 },
      updates: [{ q: {}, u: [{ $set: { v: '$$y', w: '$$z' } }], c: { y: 7 }, multi: true }],
    });
    assert.equal(firstWriteError(r).code, 17276, 'z is bound by neither');
    const ok = await db.command({
      update: 'consts',
      let: { y: 1 },
      updates: [{ q: {}, u: [{ $set: { v: '$$y' } }], c: { y: 7 }, multi: true }],
    });
    assert.equal(ok['nModified'], 3);
    assert.deepEqual(await c.find({}, { sort: { _id: 1 } }).toArray(), [
      { _id: 1, v: 7 },
      { _id: 2, v: 7 },
      { _id: 3, v: 7 },
    ]);
  });

  test('are constants, not expressions, and the filter sees them too', async () => {
    const c = await fresh('consts', [
      { _id: 1, k: 2 },
      { _id: 2, k: 3 },
    ]);
    const r = await db.command({
      update: 'consts',
      updates: [
        {
          q: { $expr: { $eq: ['$k', '$$want'] } },
          u: [{ $set: { lit: '$$e' } }],
          c: { want: 3, e: { $add: [1, 2] } },
        },
      ],
    });
    assert.equal(r['nModified'], 1);
    assert.deepEqual(await c.findOne({ _id: 2 }), { _id: 2, k: 3, lit: { $add: [1, 2] } });
  });

  test("an update that is not a pipeline refuses them (51198); 'c' must be an object", async () => {
    await fresh('consts', [{ _id: 1 }]);
    const r = await db.command({
      update: 'consts',
      updates: [{ q: {}, u: { $set: { w: 1 } }, c: { z: 2 } }],
    });
    assert.equal(r['n'], 0);
    assert.deepEqual(firstWriteError(r), {
      index: 0,
      code: 51198,
      errmsg: 'Constant values may only be specified for pipeline updates',
    });
    await expectCode(
      db.command({ update: 'consts', updates: [{ q: {}, u: [{ $set: { w: 1 } }], c: 1 }] }),
      14,
    );
  });
});

describe('$$NOW and $$CLUSTER_TIME', () => {
  test('$$NOW in a find filter, a projection and an update filter', async () => {
    const past = new Date(Date.now() - 60_000);
    const future = new Date(Date.now() + 3_600_000);
    const c = await fresh('now', [
      { _id: 1, d: past },
      { _id: 2, d: future },
    ]);
    assert.deepEqual(
      await c.find({ $expr: { $lt: ['$d', '$$NOW'] } }, { projection: { _id: 1 } }).toArray(),
      [{ _id: 1 }],
    );
    const [p] = await c.find({ _id: 1 }, { projection: { _id: 0, now: '$$NOW' } }).toArray();
    assert.ok(p?.['now'] instanceof Date);
    const r = await c.updateMany({ $expr: { $gt: ['$d', '$$NOW'] } }, [
      { $set: { seen: '$$NOW' } },
    ]);
    assert.equal(r.modifiedCount, 1);
    const after2 = await c.findOne({ _id: 2 });
    assert.ok(after2?.['seen'] instanceof Date);
  });

  test('$$CLUSTER_TIME on a replica set member: in find, update and delete filters and projections', async () => {
    const c = await fresh('ct', [{ _id: 1 }, { _id: 2 }]);
    const [p] = await c
      .find({ _id: 1 }, { projection: { _id: 0, t: '$$CLUSTER_TIME' }, promoteValues: false })
      .toArray();
    assert.equal((p?.['t'] as { _bsontype?: string } | undefined)?._bsontype, 'Timestamp');
    assert.equal(
      await c.countDocuments({ $expr: { $eq: [{ $type: '$$CLUSTER_TIME' }, 'timestamp'] } }),
      2,
    );
    const u = await c.updateOne({ _id: 1, $expr: { $ne: ['$$CLUSTER_TIME', null] } }, [
      { $set: { t: { $type: '$$CLUSTER_TIME' } } },
    ]);
    assert.equal(u.modifiedCount, 1);
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, t: 'timestamp' });
    const d = await c.deleteOne({ $expr: { $eq: [{ $type: '$$CLUSTER_TIME' }, 'timestamp'] } });
    assert.equal(d.deletedCount, 1);
  });

  test('$$CLUSTER_TIME on a standalone is 51144', async () => {
    const standalone = await startTestServer({ replSet: '' });
    try {
      const c = standalone.client.db('ct').collection<TestDoc>('ct');
      await c.insertOne({ _id: 1 });
      await expectCode(c.find({ $expr: { $ne: ['$$CLUSTER_TIME', null] } }).toArray(), 51144);
    } finally {
      await standalone.stop();
    }
  });
});

describe('explain of a write statement', () => {
  test("binds the command's let and the statement's c", async () => {
    await fresh('explained', [{ _id: 1, k: 2 }]);
    const r = await db.command({
      explain: {
        update: 'explained',
        updates: [
          { q: { $expr: { $eq: ['$k', '$$want'] } }, u: [{ $set: { v: '$$v' } }], c: { v: 7 } },
        ],
        let: { want: 2 },
      },
      verbosity: 'executionStats',
    });
    const stats = r['executionStats'] as Document;
    assert.equal(stats['nReturned'], 1);
    assert.deepEqual(
      await db.collection<TestDoc>('explained').findOne({ _id: 1 }),
      { _id: 1, k: 2 },
      'explain writes nothing',
    );
  });
});
