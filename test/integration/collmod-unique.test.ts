// Converting an index to unique with collMod, as mongod does it (jstests/core/ddl/
// collmod_convert_to_unique*.js, index_prepareUnique.js): `prepareUnique: true` makes the index
// refuse new duplicate keys while the old ones stay; `unique: true` converts it when no key is
// held by two documents, and otherwise fails with CannotConvertIndexToUnique listing the
// documents' _ids; `dryRun` checks without converting; `forceNonUnique: true` converts back.
// Through the driver, on the memory engine and on disk across a restart.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Collection, Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const BadValue = 2;
const TypeMismatch = 14;
const InvalidOptions = 72;
const DuplicateKey = 11000;
const CannotConvertIndexToUnique = 359;

async function indexNamed(coll: Collection<TestDoc>, name: string): Promise<Document | undefined> {
  return (await coll.listIndexes().toArray()).find((i) => i['name'] === name);
}

async function ids(coll: Collection<TestDoc>, filter: Document): Promise<unknown[]> {
  const docs = await coll.find(filter).hint({ x: 1 }).sort({ _id: 1 }).toArray();
  return docs.map((d) => d._id);
}

describe('collMod: converting an index to unique', () => {
  let ts: TestServer;
  let db: Db;
  let coll: Collection<TestDoc>;
  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('collmod_unique');
    coll = db.collection<TestDoc>('c');
    await coll.insertMany([
      { _id: 1, x: 1 },
      { _id: 2, x: 1 },
      { _id: 3, x: [5, 6] },
      { _id: 4, x: 6 },
    ]);
    await coll.createIndex({ x: 1 });
  });
  after(async () => {
    await ts.stop();
  });

  test('a one-step conversion is refused: prepareUnique must be set first', async () => {
    const e = await expectServerCode(
      db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, unique: true } }),
      InvalidOptions,
    );
    assert.match(e.message, /prepareUnique/);
  });

  test('prepareUnique refuses new duplicates and keeps the old ones', async () => {
    const reply = await db.command({
      collMod: 'c',
      index: { keyPattern: { x: 1 }, prepareUnique: true },
    });
    assert.equal(reply['prepareUnique_old'], false);
    assert.equal(reply['prepareUnique_new'], true);
    assert.equal((await indexNamed(coll, 'x_1'))?.['prepareUnique'], true);
    // The same value again is a no-op: no _old/_new fields.
    const again = await db.command({ collMod: 'c', index: { name: 'x_1', prepareUnique: true } });
    assert.equal(again['prepareUnique_new'], undefined);
    await expectServerCode(coll.insertOne({ _id: 10, x: 1 }), DuplicateKey);
    await expectServerCode(coll.updateOne({ _id: 4 }, { $set: { x: 1 } }), DuplicateKey);
    await coll.insertOne({ _id: 11, x: 2 });
    // A document may keep its own key.
    await coll.updateOne({ _id: 11 }, { $set: { y: 1 } });
    assert.deepEqual(await ids(coll, { x: 1 }), [1, 2]);
    await coll.deleteOne({ _id: 11 });
  });

  test('unique: true with duplicates fails with CannotConvertIndexToUnique and their _ids', async () => {
    const e = await expectServerCode(
      db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, unique: true } }),
      CannotConvertIndexToUnique,
    );
    // Groups in key order: x: 1 held by 1 and 2, x: 6 by 3 (an array) and 4.
    assert.deepEqual(e.errorResponse['violations'], [{ ids: [1, 2] }, { ids: [3, 4] }]);
    assert.equal(e.codeName, 'CannotConvertIndexToUnique');
    const index = await indexNamed(coll, 'x_1');
    assert.equal(index?.['unique'], undefined);
    assert.equal(index?.['prepareUnique'], true);
    // A dry run finds the same, and changes nothing either.
    const dry = await expectServerCode(
      db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, unique: true }, dryRun: true }),
      CannotConvertIndexToUnique,
    );
    assert.deepEqual(dry.errorResponse['violations'], [{ ids: [1, 2] }, { ids: [3, 4] }]);
  });

  test('once the duplicates are gone, dryRun passes without converting, then unique: true converts', async () => {
    await coll.deleteMany({ _id: { $in: [2, 4] } });
    const dry = await db.command({
      collMod: 'c',
      index: { keyPattern: { x: 1 }, unique: true },
      dryRun: true,
    });
    assert.equal(dry['ok'], 1);
    assert.equal(dry['unique_new'], undefined);
    assert.equal((await indexNamed(coll, 'x_1'))?.['unique'], undefined);

    const reply = await db.command({ collMod: 'c', index: { name: 'x_1', unique: true } });
    assert.equal(reply['unique_new'], true);
    const index = await indexNamed(coll, 'x_1');
    assert.equal(index?.['unique'], true);
    assert.equal(index?.['prepareUnique'], undefined);
    // Converting a unique index again is a no-op.
    const again = await db.command({ collMod: 'c', index: { name: 'x_1', unique: true } });
    assert.equal(again['unique_new'], undefined);

    // The index answers queries in its new layout, enforces uniqueness and validates.
    assert.deepEqual(await ids(coll, { x: 1 }), [1]);
    assert.deepEqual(await ids(coll, { x: { $gte: 5 } }), [3]);
    const dup = await expectServerCode(coll.insertOne({ _id: 12, x: 5 }), DuplicateKey);
    assert.match(dup.message, /index: x_1 dup key: \{ x: 5 \}/);
    await coll.insertOne({ _id: 13, x: 7 });
    await coll.deleteOne({ _id: 13 });
    const valid = await db.command({ validate: 'c', full: true });
    assert.equal(valid['valid'], true, JSON.stringify(valid['errors']));
  });

  test('the conversion is in the oplog as collMod with the index name and unique: true', async () => {
    const entry = await ts.client
      .db('local')
      .collection('oplog.rs')
      .find({ ns: 'collmod_unique.$cmd', 'o.collMod': 'c', 'o.index.unique': true })
      .toArray();
    assert.equal(entry.length, 1);
    assert.deepEqual(entry[0]?.['o']['index'], { name: 'x_1', unique: true });
  });

  test('forceNonUnique: true converts back; duplicates are accepted again', async () => {
    const reply = await db.command({ collMod: 'c', index: { name: 'x_1', forceNonUnique: true } });
    assert.equal(reply['forceNonUnique_new'], true);
    assert.equal((await indexNamed(coll, 'x_1'))?.['unique'], undefined);
    await coll.insertOne({ _id: 2, x: 1 });
    assert.deepEqual(await ids(coll, { x: 1 }), [1, 2]);
    const valid = await db.command({ validate: 'c', full: true });
    assert.equal(valid['valid'], true, JSON.stringify(valid['errors']));
  });

  test('bad requests answer mongod codes and change nothing', async () => {
    const before = await coll.listIndexes().toArray();
    const bad: Array<[Document, number]> = [
      [{ collMod: 'c', index: { name: 'x_1', unique: false } }, BadValue],
      [{ collMod: 'c', index: { name: 'x_1', forceNonUnique: false } }, BadValue],
      [
        { collMod: 'c', index: { name: 'x_1', unique: true, forceNonUnique: true } },
        InvalidOptions,
      ],
      [{ collMod: 'c', index: { name: 'x_1', prepareUnique: true, hidden: true } }, InvalidOptions],
      [
        { collMod: 'c', index: { name: 'x_1', prepareUnique: true }, validationLevel: 'moderate' },
        InvalidOptions,
      ],
      [{ collMod: 'c', index: { name: 'x_1', prepareUnique: 'yes' } }, TypeMismatch],
      [{ collMod: 'c', dryRun: true }, InvalidOptions],
      [{ collMod: 'c', index: { name: 'x_1', hidden: true }, dryRun: true }, InvalidOptions],
      [{ collMod: 'c', index: { name: '_id_', forceNonUnique: true } }, BadValue],
    ];
    for (const [command, code] of bad) await expectServerCode(db.command(command), code);
    assert.deepEqual(await coll.listIndexes().toArray(), before);
    assert.equal(await coll.countDocuments(), 3);
  });

  test('createIndex takes prepareUnique: existing duplicates stay, new ones are refused', async () => {
    const p = db.collection<TestDoc>('p');
    await p.insertMany([
      { _id: 1, a: 1 },
      { _id: 2, a: 1 },
    ]);
    // The driver's createIndex drops prepareUnique (not in its allowlist): the command itself.
    const createIndexes = (prepareUnique: unknown): Promise<Document> =>
      db.command({ createIndexes: 'p', indexes: [{ key: { a: 1 }, name: 'a_1', prepareUnique }] });
    await createIndexes(1);
    assert.equal((await indexNamed(p, 'a_1'))?.['prepareUnique'], true);
    await expectServerCode(p.insertOne({ _id: 3, a: 1 }), DuplicateKey);
    await p.insertOne({ _id: 4, a: 2 });
    await expectServerCode(createIndexes(false), 85);
    await expectServerCode(createIndexes('yes'), TypeMismatch);
    const back = await db.command({ collMod: 'p', index: { name: 'a_1', prepareUnique: false } });
    assert.equal(back['prepareUnique_new'], false);
    await p.insertOne({ _id: 3, a: 1 });
  });
});

describe('collMod unique conversion on disk', () => {
  test('the converted index survives a restart and still enforces uniqueness', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'collmod-unique-'));
    try {
      let disk = await startTestServer({ dbPath: dir });
      try {
        const d = disk.client.db('t');
        const k = d.collection<TestDoc>('k');
        await k.insertMany([
          { _id: 1, x: 'a' },
          { _id: 2, x: 'b' },
        ]);
        await k.createIndex({ x: 1 });
        await d.command({ collMod: 'k', index: { name: 'x_1', prepareUnique: true } });
        await d.command({ collMod: 'k', index: { name: 'x_1', unique: true } });
      } finally {
        await disk.stop();
      }
      disk = await startTestServer({ dbPath: dir });
      try {
        const d = disk.client.db('t');
        const k = d.collection<TestDoc>('k');
        assert.equal((await indexNamed(k, 'x_1'))?.['unique'], true);
        await expectServerCode(k.insertOne({ _id: 3, x: 'a' }), DuplicateKey);
        assert.deepEqual(await ids(k, { x: 'b' }), [2]);
        const valid = await d.command({ validate: 'k', full: true });
        assert.equal(valid['valid'], true, JSON.stringify(valid['errors']));
      } finally {
        await disk.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
