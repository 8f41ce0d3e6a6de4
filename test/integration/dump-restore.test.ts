// secantus-dump and secantus-restore end to end: a server holding every BSON type it stores,
// indexes of every kind it builds, views, validators and collection options is dumped and
// restored into a fresh server, through each output form (directory, gzip directory, archive,
// gzip archive, archive on standard output); documents must come back byte for byte, and
// indexes and options equal.

import * as assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  UUID,
} from 'mongodb';
import type { Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import {
  collectionShapes,
  databaseList,
  dump,
  indexShapes,
  rawDocuments,
  restore,
} from '../helpers/tools.js';
import type { AnyDocument } from '../helpers/tools.js';

/** One document per BSON type, plus awkward field names and edge values. */
function everyType(): Document[] {
  return [
    {
      _id: 1,
      kind: 'double',
      v: new Double(1.5),
      zero: new Double(-0),
      nan: new Double(NaN),
      inf: new Double(-Infinity),
      whole: new Double(2),
    },
    { _id: 2, kind: 'string', v: 'héllo wörld ✓ 𝄞', empty: '' },
    { _id: 3, kind: 'document', v: { a: { b: { c: [1, { d: null }] } } }, emptyDoc: {} },
    { _id: 4, kind: 'array', v: [1, 'two', [3, [4]], { five: 5 }], emptyArray: [] },
    {
      _id: 5,
      kind: 'binary',
      generic: new Binary(Buffer.from([0, 1, 2, 255])),
      uuid: new UUID('0123456789abcdef0123456789abcdef'),
      md5: new Binary(Buffer.alloc(16, 7), 5),
      user: new Binary(Buffer.from('custom'), 128),
    },
    { _id: 6, kind: 'objectId', v: new ObjectId('64b7f0c2a1b2c3d4e5f60718') },
    { _id: 7, kind: 'bool', t: true, f: false },
    {
      _id: 8,
      kind: 'date',
      v: new Date('2024-02-29T12:34:56.789Z'),
      before1970: new Date(-86_400_000),
    },
    { _id: 9, kind: 'null', v: null },
    { _id: 10, kind: 'regex', v: new BSONRegExp('^a.*z$', 'imsx'), plain: new BSONRegExp('x', '') },
    { _id: 11, kind: 'code', v: new Code('function () { return 1; }') },
    { _id: 12, kind: 'symbol', v: new BSONSymbol('sym') },
    {
      _id: 13,
      kind: 'codeWithScope',
      v: new Code('function () { return x; }', { x: new Int32(1) }),
    },
    { _id: 14, kind: 'int32', v: new Int32(-2147483648), max: new Int32(2147483647) },
    {
      _id: 15,
      kind: 'timestamp',
      v: new Timestamp({ t: 1_700_000_000, i: 7 }),
      nested: { zero: new Timestamp({ t: 0, i: 0 }) },
    },
    {
      _id: 16,
      kind: 'int64',
      v: Long.fromString('9223372036854775807'),
      min: Long.fromString('-9223372036854775808'),
    },
    {
      _id: 17,
      kind: 'decimal128',
      v: Decimal128.fromString('1234567890.123456789012345678901234'),
      nan: Decimal128.fromString('NaN'),
      negZero: Decimal128.fromString('-0'),
    },
    { _id: 18, kind: 'minKey', v: new MinKey() },
    { _id: 19, kind: 'maxKey', v: new MaxKey() },
    {
      _id: 20,
      kind: 'names',
      b: 1,
      '1': 'integer-like key',
      '': 'empty name',
      'a.b': 'dotted',
      $dollar: 'top-level $',
      ['__proto__']: 'proto as data',
      constructor: 'data',
    },
    { _id: new ObjectId('64b7f0c2a1b2c3d4e5f60719'), kind: 'objectId _id' },
    // DBRef-shaped documents are ordinary documents; the bson package decodes them as DBRefs.
    {
      _id: 22,
      kind: 'dbref',
      ref: { $ref: 'items', $id: new ObjectId('64b7f0c2a1b2c3d4e5f6071a'), $db: 'shop' },
      dotted: { $ref: 'shop.items', $id: 1, extra: { nested: true } },
      list: [{ $ref: 'a', $id: 'x' }],
    },
    { _id: 'string id', kind: 'string _id' },
    { _id: { compound: 1, key: 'x' }, kind: 'document _id' },
    { _id: new Double(21.5), kind: 'double _id' },
  ];
}

async function fill(client: MongoClient): Promise<void> {
  const db = client.db('shop');
  // __proto__ as a key must be data, not the prototype: build that document field by field.
  const docs = everyType().map((d) => {
    const copy: Document = {};
    for (const [k, v] of Object.entries(d))
      Object.defineProperty(copy, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return copy;
  });
  await db.collection<AnyDocument>('types').insertMany(docs);
  // A top-level Timestamp(0, 0) can only be stored by an update that does not fill it in.
  await db
    .collection<AnyDocument>('types')
    .updateOne({ _id: 15 }, [{ $set: { top: { $literal: new Timestamp({ t: 0, i: 0 }) } } }]);

  const items = db.collection<AnyDocument>('items');
  await items.insertMany(
    Array.from({ length: 2500 }, (_, i) => ({
      _id: i,
      sku: `sku-${i}`,
      price: new Double(i / 4),
      tags: [`t${i % 7}`, `t${i % 11}`],
      meta: { color: ['red', 'green', 'blue'][i % 3], size: i % 5 === 0 ? undefined : i % 5 },
      created: new Date(1_700_000_000_000 + i * 1000),
      maybe: i % 2 === 0 ? 'even' : undefined,
    })),
    { ignoreUndefined: true },
  );
  await items.createIndex({ sku: 1 }, { unique: true });
  await items.createIndex({ 'meta.color': 1, price: -1 }, { name: 'color_price' });
  await items.createIndex(
    { price: 1 },
    { partialFilterExpression: { price: { $gt: new Double(100) } } },
  );
  await items.createIndex({ maybe: 1 }, { sparse: true });
  await items.createIndex({ created: 1 }, { expireAfterSeconds: 3600 * 24 * 365 * 60 });
  await items.createIndex({ tags: 1 }, { hidden: true });

  await db.createCollection('orders', {
    validator: {
      $jsonSchema: {
        bsonType: 'object',
        required: ['total'],
        properties: { total: { bsonType: 'double' } },
      },
    },
    validationLevel: 'moderate',
    validationAction: 'error',
  });
  await db.collection<AnyDocument>('orders').insertMany([
    { _id: 1, total: new Double(9.5) },
    { _id: 2, total: new Double(20) },
  ]);

  await db.createCollection('people', { collation: { locale: 'fr', strength: 2 } });
  await db.collection<AnyDocument>('people').insertMany([
    { _id: 1, name: 'Émile' },
    { _id: 2, name: 'emile' },
  ]);
  await db
    .collection<AnyDocument>('people')
    .createIndex({ age: 1 }, { collation: { locale: 'simple' } });

  await db.createCollection('images', { changeStreamPreAndPostImages: { enabled: true } });
  await db.createCollection('empty');
  // A capped collection: its options (capped, size, max) and natural order come back.
  await db.createCollection('log', { capped: true, size: 4096, max: 3 });
  for (let i = 1; i <= 5; i++) await db.collection<AnyDocument>('log').insertOne({ _id: i });

  await db.createCollection('cheap', {
    viewOn: 'items',
    pipeline: [{ $match: { price: { $lt: 10 } } }, { $project: { sku: 1 } }],
  });
  await db.createCollection('cheapest', { viewOn: 'cheap', pipeline: [{ $limit: 3 }] });
  await db.createCollection('french', {
    viewOn: 'people',
    pipeline: [],
    collation: { locale: 'fr' },
  });

  await client
    .db('other')
    .collection<AnyDocument>('notes')
    .insertMany([
      { _id: 1, text: 'a' },
      { _id: 2, text: 'b' },
    ]);
  // Every other index kind: text (weights, language), 2dsphere, 2d, hashed, wildcard with a
  // projection; and a clustered collection.
  const places = client.db('other').collection<AnyDocument>('places');
  await places.insertMany([
    {
      _id: 1,
      title: 'Old harbour',
      body: 'boats and fish',
      loc: { type: 'Point', coordinates: [2.35, 48.85] },
      xy: [1, 2],
      attrs: { a: 1, b: 'x' },
    },
    {
      _id: 2,
      title: 'Hill',
      body: 'a long walk',
      loc: { type: 'Point', coordinates: [-0.12, 51.5] },
      xy: [3, 4],
      attrs: { a: 2 },
    },
  ]);
  await places.createIndex(
    { title: 'text', body: 'text' },
    { weights: { title: 5 }, default_language: 'french', name: 'search' },
  );
  await places.createIndex({ loc: '2dsphere' });
  await places.createIndex({ xy: '2d' }, { min: -10, max: 10, bits: 20 });
  await places.createIndex({ title: 'hashed' });
  await places.createIndex({ '$**': 1 }, { wildcardProjection: { attrs: 1 } });
  await client.db('other').createCollection('clustered', {
    clusteredIndex: { key: { _id: 1 }, unique: true, name: 'by_id' },
  });
  await client
    .db('other')
    .collection<AnyDocument>('clustered')
    .insertMany([{ _id: 2 }, { _id: 1 }]);
  await client
    .db('other')
    .collection<AnyDocument>('system.js')
    .insertOne({ _id: 'f', value: new Code('function () {}') });
  // Extension points (issue #18): once access control exists, create users and roles here
  // (db.command({createUser})), which must come back through _mergeAuthzCollections.
}

async function sameContents(
  source: MongoClient,
  target: MongoClient,
  dbs: readonly string[],
): Promise<void> {
  assert.deepEqual(await databaseList(target), await databaseList(source));
  for (const db of dbs) {
    const shapes = await collectionShapes(source, db);
    assert.ok(shapes.length > 0, `nothing in ${db}`);
    assert.deepEqual(await collectionShapes(target, db), shapes, `collections of ${db}`);
    for (const c of shapes) {
      if (c['type'] === 'view') {
        const name = String(c['name']);
        assert.deepEqual(
          await target.db(db).collection(name).find().toArray(),
          await source.db(db).collection(name).find().toArray(),
          `view ${db}.${name}`,
        );
        continue;
      }
      const name = String(c['name']);
      const want = await rawDocuments(source, db, name);
      const got = await rawDocuments(target, db, name);
      assert.equal(got.length, want.length, `${db}.${name}: document count`);
      for (let i = 0; i < want.length; i++)
        assert.ok(
          (got[i] as Buffer).equals(want[i] as Buffer),
          `${db}.${name}: document ${i} differs`,
        );
      assert.deepEqual(
        await indexShapes(target, db, name),
        await indexShapes(source, db, name),
        `${db}.${name}: indexes`,
      );
    }
  }
}

describe('secantus-dump / secantus-restore round trip', () => {
  let source: TestServer;
  let dir: string;
  before(async () => {
    source = await startTestServer();
    await fill(source.client);
    dir = await mkdtemp(join(tmpdir(), 'secantus-dump-'));
  });
  after(async () => {
    await source.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const forms: Array<{
    name: string;
    dump: (d: string) => string[];
    restore: (d: string) => string[];
  }> = [
    { name: 'directory', dump: (d) => ['--out', d], restore: (d) => [d] },
    { name: 'gzip directory', dump: (d) => ['--out', d, '--gzip'], restore: (d) => [d, '--gzip'] },
    {
      name: 'archive',
      dump: (d) => [`--archive=${d}.archive`],
      restore: (d) => [`--archive=${d}.archive`],
    },
    {
      name: 'gzip archive',
      dump: (d) => [`--archive=${d}.archive.gz`, '--gzip'],
      restore: (d) => [`--archive=${d}.archive.gz`, '--gzip'],
    },
  ];
  for (const form of forms) {
    it(`restores every document, index and option through a ${form.name}`, async () => {
      const out = join(dir, form.name.replace(' ', '-'));
      const d = await dump(['--uri', source.uri, ...form.dump(out)]);
      assert.equal(d.code, 0, d.stderr);
      assert.match(d.stderr, /reading every collection at cluster time Timestamp\(\d+, \d+\)/);
      assert.match(d.stderr, /done dumping shop\.items \(2500 documents\)/);
      const target = await startTestServer();
      try {
        const r = await restore(['--uri', target.uri, ...form.restore(out)]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /finished restoring shop\.items \(2500 documents, 0 failures\)/);
        await sameContents(source.client, target.client, ['shop', 'other']);
      } finally {
        await target.stop();
      }
    });
  }

  it("writes mongodump's directory layout", async () => {
    const out = join(dir, 'layout');
    const d = await dump(['--uri', source.uri, '--out', out]);
    assert.equal(d.code, 0, d.stderr);
    assert.deepEqual((await readdir(out)).sort(), ['other', 'prelude.json', 'shop']);
    const shop = (await readdir(join(out, 'shop'))).sort();
    for (const c of ['types', 'items', 'orders', 'people', 'images', 'empty'])
      assert.ok(
        shop.includes(`${c}.bson`) && shop.includes(`${c}.metadata.json`),
        `${c} files: ${shop.join(' ')}`,
      );
    // Views have metadata only; system.views is not dumped (the views' metadata carries them).
    for (const v of ['cheap', 'cheapest', 'french']) {
      assert.ok(shop.includes(`${v}.metadata.json`));
      assert.ok(!shop.includes(`${v}.bson`));
    }
    assert.ok(!shop.some((f) => f.startsWith('system.views')));
    assert.ok((await readdir(join(out, 'other'))).includes('system.js.bson'));
    const meta = JSON.parse(
      await readFile(join(out, 'shop', 'items.metadata.json'), 'utf8'),
    ) as Document;
    assert.deepEqual(Object.keys(meta), ['indexes', 'uuid', 'collectionName', 'type']);
    assert.match(String(meta['uuid']), /^[0-9a-f]{32}$/);
    assert.equal(meta['collectionName'], 'items');
    assert.equal(meta['type'], 'collection');
    assert.deepEqual((meta['indexes'] as Document[])[0], {
      v: { $numberInt: '2' },
      key: { _id: { $numberInt: '1' } },
      name: '_id_',
    });
    const view = JSON.parse(
      await readFile(join(out, 'shop', 'cheap.metadata.json'), 'utf8'),
    ) as Document;
    assert.deepEqual(view['options'], {
      viewOn: 'items',
      pipeline: [
        { $match: { price: { $lt: { $numberInt: '10' } } } },
        { $project: { sku: { $numberInt: '1' } } },
      ],
    });
    assert.equal(view['type'], 'view');
    assert.deepEqual(view['indexes'], []);
    const prelude = JSON.parse(await readFile(join(out, 'prelude.json'), 'utf8')) as Document;
    assert.match(String(prelude['ServerVersion']), /^\d+\.\d+\.\d+/);
  });

  it('pipes an archive from secantus-dump to secantus-restore through standard output and input', async () => {
    const d = await dump(['--uri', source.uri, '--archive', '--gzip', '--db', 'shop']);
    assert.equal(d.code, 0, d.stderr);
    assert.deepEqual([...d.stdout.subarray(0, 2)], [0x1f, 0x8b]); // gzip
    const target = await startTestServer();
    try {
      const r = await restore(['--uri', target.uri, '--archive', '--gzip'], { stdin: d.stdout });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(await databaseList(target.client), ['shop']);
      assert.equal(
        await target.client.db('shop').collection<AnyDocument>('items').countDocuments(),
        2500,
      );
    } finally {
      await target.stop();
    }
  });
});
