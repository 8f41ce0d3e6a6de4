// Collection document validation through the driver, as mongod 7.0: create / collMod with
// validator, validationLevel and validationAction; inserts, updates, upserts, pipeline updates
// and findAndModify checked; DocumentValidationFailure (121) "Document failed validation" with
// errInfo {failingDocumentId, details: {operatorName, ...}}; 'moderate', 'off', 'warn' (a log
// line with the _id only); bypassDocumentValidation; bad validators with mongod's codes.
// Expected values come from MongoDB's schema-validation documentation and mongod's
// collection_impl.cpp / doc_validation_error.cpp / expression_parser.cpp.

import { after, before, describe, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'node:assert/strict';
import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { collectionInfo, expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';
import { Logger } from '../../src/log.js';

const DocumentValidationFailure = 121;
const BadValue = 2;
const InvalidOptions = 72;

const schema = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['name'],
    properties: { name: { bsonType: 'string' } },
  },
};

describe('document validation', () => {
  let ts: TestServer;
  let db: Db;
  const logLines: string[] = [];
  before(async () => {
    ts = await startTestServer({
      logger: new Logger({ write: (line) => logLines.push(line) }, 'info'),
    });
    db = ts.client.db('validation_test');
    await db.dropDatabase();
  });
  after(async () => {
    await ts.stop();
  });

  async function fresh(name: string, options: Document): Promise<void> {
    await db
      .collection(name)
      .drop()
      .catch(() => undefined);
    await db.command({ create: name, ...options });
  }

  test('create stores validator, validationLevel and validationAction; listCollections shows them', async () => {
    await fresh('shown', {
      validator: schema,
      validationLevel: 'moderate',
      validationAction: 'warn',
    });
    const info = await collectionInfo(db, 'shown');
    assert.deepEqual(info.options, {
      validator: schema,
      validationLevel: 'moderate',
      validationAction: 'warn',
    });
  });

  test('an insert that fails is 121 with errInfo {failingDocumentId, details}; nothing is stored', async () => {
    await fresh('ins', { validator: schema });
    const c = db.collection<TestDoc>('ins');
    const e = await expectServerCode(
      c.insertOne({ _id: 1, name: 5 } as Document),
      DocumentValidationFailure,
    );
    assert.equal(e.message, 'Document failed validation');
    const errInfo = e.errInfo as Document;
    assert.equal(errInfo['failingDocumentId'], 1);
    assert.equal(errInfo['details']['operatorName'], '$jsonSchema');
    assert.equal(await c.countDocuments(), 0);
    await c.insertOne({ _id: 2, name: 'ok' });
    assert.equal(await c.countDocuments(), 1);
  });

  test('an unordered batch applies the valid statements and reports the invalid one', async () => {
    await fresh('batch', { validator: { qty: { $gte: 0 } } });
    const c = db.collection<TestDoc>('batch');
    try {
      await c.insertMany(
        [
          { _id: 1, qty: 1 },
          { _id: 2, qty: -1 },
          { _id: 3, qty: 3 },
        ],
        { ordered: false },
      );
      assert.fail('expected a write error');
    } catch (e) {
      assert.ok(e instanceof MongoBulkWriteError);
      assert.ok(Array.isArray(e.writeErrors), 'writeErrors is a list');
      assert.equal(e.writeErrors.length, 1);
      const we = e.writeErrors[0];
      assert.equal(we?.index, 1);
      assert.equal(we?.code, DocumentValidationFailure);
      assert.deepEqual(we?.errInfo, {
        failingDocumentId: 2,
        details: {
          operatorName: '$gte',
          specifiedAs: { qty: { $gte: 0 } },
          reason: 'comparison failed',
          consideredValue: -1,
        },
      });
    }
    assert.deepEqual(await c.find({}, { sort: { _id: 1 } }).toArray(), [
      { _id: 1, qty: 1 },
      { _id: 3, qty: 3 },
    ]);
  });

  test('several top-level clauses are an implicit $and listing the failing ones by index', async () => {
    await fresh('and', { validator: { a: { $type: 'string' }, b: { $gt: 0 } } });
    const e = await expectServerCode(
      db.collection<TestDoc>('and').insertOne({ _id: 1, a: 'x', b: -1 }),
      DocumentValidationFailure,
    );
    assert.deepEqual(e.errInfo, {
      failingDocumentId: 1,
      details: {
        operatorName: '$and',
        clausesNotSatisfied: [
          {
            index: 1,
            details: {
              operatorName: '$gt',
              specifiedAs: { b: { $gt: 0 } },
              reason: 'comparison failed',
              consideredValue: -1,
            },
          },
        ],
      },
    });
  });

  test("a comparison's details: 'field was missing', and an array's elements as consideredValues", async () => {
    await fresh('cmp', { validator: { 'a.qty': { $in: [1, 2] } } });
    const c = db.collection<TestDoc>('cmp');
    const missing = await expectServerCode(
      c.insertOne({ _id: 1, a: {} }),
      DocumentValidationFailure,
    );
    assert.deepEqual(missing.errInfo, {
      failingDocumentId: 1,
      details: {
        operatorName: '$in',
        specifiedAs: { 'a.qty': { $in: [1, 2] } },
        reason: 'field was missing',
      },
    });
    const array = await expectServerCode(
      c.insertOne({ _id: 2, a: { qty: [3, 4] } }),
      DocumentValidationFailure,
    );
    assert.deepEqual(array.errInfo, {
      failingDocumentId: 2,
      details: {
        operatorName: '$in',
        specifiedAs: { 'a.qty': { $in: [1, 2] } },
        reason: 'no matching value found in array',
        consideredValues: [3, 4],
      },
    });
    await fresh('eq', { validator: { status: 'A' } });
    const eq = await expectServerCode(
      db.collection<TestDoc>('eq').insertOne({ _id: 3, status: 'B' }),
      DocumentValidationFailure,
    );
    assert.deepEqual(eq.errInfo, {
      failingDocumentId: 3,
      details: {
        operatorName: '$eq',
        specifiedAs: { status: 'A' },
        reason: 'comparison failed',
        consideredValue: 'B',
      },
    });
  });

  test("$expr's details: specifiedAs, reason and the expression's value", async () => {
    const expr = { $eq: ['$total', { $multiply: ['$price', '$qty'] }] };
    await fresh('expr', { validator: { $expr: expr } });
    const e = await expectServerCode(
      db.collection<TestDoc>('expr').insertOne({ _id: 1, price: 2, qty: 3, total: 5 }),
      DocumentValidationFailure,
    );
    assert.deepEqual(e.errInfo, {
      failingDocumentId: 1,
      details: {
        operatorName: '$expr',
        specifiedAs: { $expr: expr },
        reason: 'expression did not match',
        expressionResult: false,
      },
    });
  });

  test("$jsonSchema's details: a property of the wrong type, missing required properties", async () => {
    const typed = {
      $jsonSchema: {
        bsonType: 'object',
        required: ['name'],
        properties: { name: { bsonType: 'string', description: 'must be a string' } },
      },
    };
    await fresh('schema', { validator: typed });
    const c = db.collection<TestDoc>('schema');
    const wrongType = await expectServerCode(
      c.insertOne({ _id: 1, name: 5 }),
      DocumentValidationFailure,
    );
    assert.deepEqual(wrongType.errInfo, {
      failingDocumentId: 1,
      details: {
        operatorName: '$jsonSchema',
        schemaRulesNotSatisfied: [
          {
            operatorName: 'properties',
            propertiesNotSatisfied: [
              {
                propertyName: 'name',
                description: 'must be a string',
                details: [
                  {
                    operatorName: 'bsonType',
                    specifiedAs: { bsonType: 'string' },
                    reason: 'type did not match',
                    consideredValue: 5,
                    consideredType: 'int',
                  },
                ],
              },
            ],
          },
        ],
      },
    });
    const missing = await expectServerCode(c.insertOne({ _id: 2 }), DocumentValidationFailure);
    assert.deepEqual(missing.errInfo, {
      failingDocumentId: 2,
      details: {
        operatorName: '$jsonSchema',
        schemaRulesNotSatisfied: [
          {
            operatorName: 'required',
            specifiedAs: { required: ['name'] },
            missingProperties: ['name'],
          },
        ],
      },
    });
  });

  test('updates, upserts, pipeline updates and findAndModify check the new document', async () => {
    await fresh('upd', { validator: schema });
    const c = db.collection<TestDoc>('upd');
    await c.insertOne({ _id: 1, name: 'a' });
    await expectServerCode(
      c.updateOne({ _id: 1 }, { $set: { name: 1 } }),
      DocumentValidationFailure,
    );
    await expectServerCode(
      c.updateOne({ _id: 1 }, [{ $unset: 'name' }]),
      DocumentValidationFailure,
    );
    await expectServerCode(c.replaceOne({ _id: 1 }, { other: 1 }), DocumentValidationFailure);
    await expectServerCode(
      c.updateOne({ _id: 2 }, { $set: { x: 1 } }, { upsert: true }),
      DocumentValidationFailure,
    );
    const fam = await expectServerCode(
      c.findOneAndUpdate({ _id: 1 }, { $set: { name: false } }),
      DocumentValidationFailure,
    );
    assert.equal((fam.errInfo as Document)['failingDocumentId'], 1);
    assert.deepEqual(await c.find().toArray(), [{ _id: 1, name: 'a' }]);
    await c.updateOne({ _id: 1 }, { $set: { name: 'b' } });
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, name: 'b' });
  });

  test('bypassDocumentValidation skips the check for insert, update and findAndModify', async () => {
    await fresh('bypass', { validator: schema });
    const c = db.collection<TestDoc>('bypass');
    await c.insertOne({ _id: 1 }, { bypassDocumentValidation: true });
    await c.updateOne({ _id: 1 }, { $set: { name: 3 } }, { bypassDocumentValidation: true });
    await c.findOneAndUpdate({ _id: 1 }, { $set: { n: 1 } }, { bypassDocumentValidation: true });
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, name: 3, n: 1 });
  });

  test("'moderate' does not check updates of documents that already fail; 'strict' does", async () => {
    await fresh('mod', { validator: schema, validationLevel: 'moderate' });
    const c = db.collection<TestDoc>('mod');
    await c.insertOne({ _id: 1 }, { bypassDocumentValidation: true });
    await c.insertOne({ _id: 2, name: 'ok' });
    await c.updateOne({ _id: 1 }, { $set: { x: 1 } });
    await expectServerCode(
      c.updateOne({ _id: 2 }, { $set: { name: 2 } }),
      DocumentValidationFailure,
    );
    await expectServerCode(c.insertOne({ _id: 3 }), DocumentValidationFailure);
    await db.command({ collMod: 'mod', validationLevel: 'strict' });
    await expectServerCode(c.updateOne({ _id: 1 }, { $set: { x: 2 } }), DocumentValidationFailure);
    assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, x: 1 });
  });

  test("'off' checks nothing; 'warn' writes and logs the failure naming only the _id", async () => {
    await fresh('off', { validator: schema, validationLevel: 'off' });
    await db.collection<TestDoc>('off').insertOne({ _id: 1, secret: 'x' });
    await fresh('warn', { validator: schema, validationAction: 'warn' });
    logLines.length = 0;
    await db.collection<TestDoc>('warn').insertOne({ _id: 7, hidden: 'do-not-log' });
    assert.deepEqual(await db.collection<TestDoc>('warn').findOne({ _id: 7 }), {
      _id: 7,
      hidden: 'do-not-log',
    });
    const warned = logLines.map((l) => JSON.parse(l) as Document).filter((l) => l['id'] === 20294);
    assert.equal(warned.length, 1);
    assert.equal(warned[0]?.['s'], 'W');
    assert.equal(warned[0]?.['msg'], 'Document would fail validation');
    assert.ok(!logLines.join('').includes('do-not-log'));
    assert.deepEqual(warned[0]?.['attr']['document'], { _id: 7 });
  });

  test('collMod adds, changes and removes a validator; existing documents are not checked', async () => {
    await fresh('cm', {});
    const c = db.collection<TestDoc>('cm');
    await c.insertOne({ _id: 1 });
    await db.command({ collMod: 'cm', validator: schema, validationAction: 'error' });
    const info = await collectionInfo(db, 'cm');
    assert.deepEqual(info.options, { validator: schema, validationAction: 'error' });
    await expectServerCode(c.insertOne({ _id: 2 }), DocumentValidationFailure);
    await db.command({ collMod: 'cm', validator: { n: { $exists: true } } });
    await c.insertOne({ _id: 2, n: 1 });
    await db.command({ collMod: 'cm', validator: {} });
    await c.insertOne({ _id: 3 });
    const after = await collectionInfo(db, 'cm');
    assert.deepEqual(after.options, { validationAction: 'error' });
    assert.equal(await c.countDocuments(), 3);
  });

  test("collMod keeps mongod's option order, so create with the same options still succeeds", async () => {
    await fresh('order', { collation: { locale: 'en' } });
    await db.command({ collMod: 'order', validator: { a: 1 } });
    const info = await collectionInfo(db, 'order');
    assert.deepEqual(Object.keys(info.options ?? {}), ['validator', 'collation']);
    await db.command({ create: 'order', collation: { locale: 'en' }, validator: { a: 1 } });
  });

  test("bad validators and options answer mongod's codes", async () => {
    await db
      .collection('bad')
      .drop()
      .catch(() => undefined);
    for (const validator of [
      { $where: 'true' },
      { $text: { $search: 'x' } },
      { loc: { $near: [0, 0] } },
      { $or: [{ $where: 'true' }] },
    ]) {
      const e = await expectServerCode(db.command({ create: 'bad', validator }), BadValue);
      assert.match(e.message, /^Parsing of collection validator failed :: caused by :: /);
    }
    await expectServerCode(db.command({ create: 'bad', validator: { a: { $foo: 1 } } }), BadValue);
    const rand = await expectServerCode(
      db.command({ create: 'bad', validator: { $expr: { $lt: [{ $rand: {} }, 1] } } }),
      3040500,
    );
    assert.equal(
      rand.message,
      'Parsing of collection validator failed :: caused by :: $rand not allowed inside collection validators',
    );
    const level = await expectServerCode(
      db.command({ create: 'bad', validationLevel: 'sometimes' }),
      BadValue,
    );
    assert.equal(
      level.message,
      "Enumeration value 'sometimes' for field 'create.validationLevel' is not a valid value.",
    );
    await expectServerCode(db.command({ create: 'bad', validationAction: 'shout' }), BadValue);
    assert.equal((await db.listCollections({ name: 'bad' }).toArray()).length, 0);
    await expectServerCode(
      ts.client.db('admin').command({ create: 'v', validator: { a: 1 } }),
      InvalidOptions,
    );
    await fresh('bad', {});
    await expectServerCode(db.command({ collMod: 'bad', validator: { $where: 'true' } }), BadValue);
    await expectServerCode(db.command({ collMod: 'bad', validationLevel: 'x' }), BadValue);
  });

  test('$out and $merge targets are validated unless the aggregate bypasses validation', async () => {
    await fresh('agg_src', {});
    await db.collection<TestDoc>('agg_src').insertMany([{ _id: 1, name: 'a' }, { _id: 2 }]);
    await fresh('agg_out', { validator: schema });
    await db.collection<TestDoc>('agg_out').insertOne({ _id: 9, name: 'kept' });
    await expectServerCode(
      db
        .collection('agg_src')
        .aggregate([{ $out: 'agg_out' }])
        .toArray(),
      DocumentValidationFailure,
    );
    assert.deepEqual(await db.collection('agg_out').find().toArray(), [{ _id: 9, name: 'kept' }]);
    await expectServerCode(
      db
        .collection('agg_src')
        .aggregate([{ $merge: { into: 'agg_out' } }])
        .toArray(),
      DocumentValidationFailure,
    );
    await db.collection<TestDoc>('agg_out').insertOne({ _id: 1, name: 'x' });
    await expectServerCode(
      db
        .collection('agg_src')
        .aggregate([
          { $match: { _id: 1 } },
          { $project: { name: 1, n: { $literal: 1 } } },
          { $set: { name: 5 } },
          { $merge: { into: 'agg_out' } },
        ])
        .toArray(),
      DocumentValidationFailure,
    );
    await db
      .collection('agg_src')
      .aggregate([{ $merge: { into: 'agg_out' } }], { bypassDocumentValidation: true })
      .toArray();
    assert.deepEqual(
      await db
        .collection('agg_out')
        .find({}, { sort: { _id: 1 } })
        .toArray(),
      [{ _id: 1, name: 'a' }, { _id: 2 }, { _id: 9, name: 'kept' }],
    );
  });

  test('writes in a transaction are validated the same way', async () => {
    await fresh('txn', { validator: schema });
    const session = ts.client.startSession();
    try {
      session.startTransaction();
      const c = db.collection<TestDoc>('txn');
      await c.insertOne({ _id: 1, name: 'ok' }, { session });
      const e = await c.insertOne({ _id: 2 }, { session }).catch((err: unknown) => err);
      assert.ok(e instanceof MongoServerError);
      assert.equal(e.code, DocumentValidationFailure);
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    assert.equal(await db.collection('txn').countDocuments(), 0);
  });
});

test('a validator survives a restart on lmdb', async () => {
  const dbPath = mkdtempSync(join(tmpdir(), 'secantus-validation-'));
  try {
    let ts = await startTestServer({ dbPath });
    await ts.client
      .db('durable')
      .command({ create: 'c', validator: schema, validationLevel: 'moderate' });
    await ts.stop();
    ts = await startTestServer({ dbPath });
    try {
      const db = ts.client.db('durable');
      const info = await collectionInfo(db, 'c');
      assert.deepEqual(info.options, { validator: schema, validationLevel: 'moderate' });
      await expectServerCode(
        db.collection<TestDoc>('c').insertOne({ _id: 1 }),
        DocumentValidationFailure,
      );
      assert.equal(await db.collection('c').countDocuments(), 0);
    } finally {
      await ts.stop();
    }
  } finally {
    rmSync(dbPath, { recursive: true, force: true });
  }
});
