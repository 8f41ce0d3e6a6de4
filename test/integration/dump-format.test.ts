// The on-disk formats, checked without the tools' own code: a small parser written here from
// mongo-tools' format description (common/archive/spec.md) reads secantus-dump's archive byte
// by byte, and inputs built here byte by byte the way mongodump writes them (an archive with
// interleaved segments, empty segments, a view and an oplog namespace; a directory with
// mongodump's canonical Extended JSON metadata, gzipped too) must restore.

import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { BSON, Double, Int32, Long } from 'mongodb';
import type { Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { collectionShapes, dump, indexShapes, rawDocuments, restore } from '../helpers/tools.js';
import type { AnyDocument } from '../helpers/tools.js';

// ---- an independent reader of the archive format -------------------------------------------

/** CRC-64/XZ (ECMA-182 polynomial, reflected, all-ones start and final XOR), bit by bit. */
function crc64(chunks: readonly Buffer[]): bigint {
  const poly = 0xc96c5795d7870f42n; // ECMA-182, reflected
  let crc = 0xffffffffffffffffn;
  for (const chunk of chunks)
    for (const byte of chunk) {
      crc ^= BigInt(byte);
      for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n;
    }
  return crc ^ 0xffffffffffffffffn;
}

interface ParsedArchive {
  header: Document;
  prelude: Document[];
  /** Documents per namespace, in order. */
  data: Map<string, Buffer[]>;
  /** EOF CRC per namespace. */
  eof: Map<string, bigint>;
  /** The namespace of each block, in order (EOF blocks as "EOF:<ns>"). */
  blocks: string[];
}

function parseArchive(bytes: Buffer): ParsedArchive {
  let at = 0;
  const u32 = (): number => {
    assert.ok(at + 4 <= bytes.length, `truncated at ${at}`);
    const v = bytes.readUInt32LE(at);
    return v;
  };
  const doc = (): Buffer => {
    const n = u32();
    assert.ok(n >= 5 && at + n <= bytes.length, `bad document length ${n} at ${at}`);
    const d = bytes.subarray(at, at + n);
    assert.equal(d[n - 1], 0);
    at += n;
    return d;
  };
  const isTerminator = (): boolean => u32() === 0xffffffff;
  assert.deepEqual([...bytes.subarray(0, 4)], [0x6d, 0xe2, 0x99, 0x81], 'magic number');
  at = 4;
  const header = BSON.deserialize(doc(), { promoteValues: false });
  const prelude: Document[] = [];
  while (!isTerminator()) prelude.push(BSON.deserialize(doc(), { promoteValues: false }));
  at += 4;
  const data = new Map<string, Buffer[]>();
  const eof = new Map<string, bigint>();
  const blocks: string[] = [];
  while (at < bytes.length) {
    const h = BSON.deserialize(doc(), { promoteValues: false });
    const ns = `${String(h['db'])}.${String(h['collection'])}`;
    assert.deepEqual(Object.keys(h), ['db', 'collection', 'EOF', 'CRC']);
    assert.ok(h['CRC'] instanceof Long, 'CRC is an int64');
    if (h['EOF'] === true) {
      blocks.push(`EOF:${ns}`);
      eof.set(ns, BigInt.asUintN(64, (h['CRC'] as Long).toBigInt()));
      assert.ok(isTerminator(), 'a terminator after an EOF header');
      at += 4;
      continue;
    }
    assert.equal((h['CRC'] as Long).toNumber(), 0);
    blocks.push(ns);
    const list = data.get(ns) ?? [];
    while (!isTerminator()) list.push(doc());
    at += 4;
    data.set(ns, list);
  }
  return { header, prelude, data, eof, blocks };
}

// ---- building mongodump's output by hand ----------------------------------------------------

const bytes = (d: Document): Buffer => Buffer.from(BSON.serialize(d));
const u32le = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0, 0);
  return b;
};
const terminator = u32le(0xffffffff);
const nsHeader = (db: string, collection: string, eof: boolean, crc: bigint): Buffer =>
  bytes({ db, collection, EOF: eof, CRC: Long.fromBigInt(BigInt.asIntN(64, crc)) });

/** Metadata JSON as mongodump's Go code writes it (canonical Extended JSON, its key order). */
const itemsMetadata =
  '{"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"},' +
  '{"v":{"$numberInt":"2"},"key":{"sku":{"$numberInt":"1"}},"name":"sku_1","unique":true},' +
  '{"v":{"$numberInt":"2"},"key":{"n":{"$numberDouble":"-1.0"}},"name":"n_-1","sparse":true}],' +
  '"uuid":"0679db720f4944de90ae27472664e94a","collectionName":"items","type":"collection"}';
const checkedMetadata =
  '{"options":{"validator":{"n":{"$gte":{"$numberDouble":"0.0"}}},"validationLevel":"strict","validationAction":"error"},' +
  '"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"}],' +
  '"uuid":"1679db720f4944de90ae27472664e94b","collectionName":"checked","type":"collection"}';
const viewMetadata =
  '{"options":{"viewOn":"items","pipeline":[{"$match":{"n":{"$gt":{"$numberInt":"1"}}}}]},"indexes":[],' +
  '"collectionName":"big","type":"view"}';

const items = Array.from({ length: 5 }, (_, i) =>
  bytes({ _id: new Int32(i), sku: `s${i}`, n: new Double(i) }),
);
const checked = [bytes({ _id: 'a', n: new Double(1) }), bytes({ _id: 'b', n: new Long(2) })];
const oplogEntry = bytes({
  op: 'n',
  ns: '',
  o: { msg: 'noop' },
  ts: new BSON.Timestamp({ t: 1, i: 1 }),
  t: new Long(1),
  v: new Int32(2),
});

/** An archive as mongodump's multiplexer interleaves it: segments split and mixed, then EOFs. */
function handmadeArchive(): Buffer {
  const crcItems = crc64(items);
  const crcChecked = crc64(checked);
  const parts: Buffer[] = [
    u32le(0x8199e26d),
    bytes({
      concurrent_collections: new Int32(4),
      version: '0.1',
      server_version: '7.0.14',
      tool_version: '100.9.4',
    }),
    bytes({
      db: 'shop',
      collection: 'items',
      metadata: itemsMetadata,
      size: new Int32(0),
      type: 'collection',
    }),
    bytes({
      db: 'shop',
      collection: 'checked',
      metadata: checkedMetadata,
      size: new Int32(0),
      type: 'collection',
    }),
    bytes({
      db: 'shop',
      collection: 'big',
      metadata: viewMetadata,
      size: new Int32(0),
      type: 'view',
    }),
    bytes({ db: '', collection: 'oplog', metadata: '', size: new Int32(0), type: '' }),
    terminator,
    // The view: an empty segment, then its EOF.
    nsHeader('shop', 'big', false, 0n),
    terminator,
    nsHeader('shop', 'big', true, 0n),
    terminator,
    // items and checked interleaved.
    nsHeader('shop', 'items', false, 0n),
    ...items.slice(0, 2),
    terminator,
    nsHeader('shop', 'checked', false, 0n),
    ...checked,
    terminator,
    nsHeader('shop', 'items', false, 0n),
    ...items.slice(2),
    terminator,
    nsHeader('shop', 'checked', true, crcChecked),
    terminator,
    // A last, empty segment of items before its EOF, as mongodump's final flush writes it.
    nsHeader('shop', 'items', false, 0n),
    terminator,
    nsHeader('shop', 'items', true, crcItems),
    terminator,
    nsHeader('', 'oplog', false, 0n),
    oplogEntry,
    terminator,
    nsHeader('', 'oplog', true, crc64([oplogEntry])),
    terminator,
  ];
  return Buffer.concat(parts);
}

describe('dump formats, read and written byte by byte', () => {
  let source: TestServer;
  let dir: string;
  before(async () => {
    source = await startTestServer();
    const db = source.client.db('fmt');
    await db
      .collection<AnyDocument>('a')
      .insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: i, s: 'x'.repeat(i) })));
    await db.collection<AnyDocument>('b').insertMany([{ _id: 1 }, { _id: 2 }]);
    await db.collection<AnyDocument>('a').createIndex({ s: 1 });
    await db.createCollection('empty');
    await db.createCollection('v', { viewOn: 'a', pipeline: [{ $match: { _id: 1 } }] });
    dir = await mkdtemp(join(tmpdir(), 'secantus-format-'));
  });
  after(async () => {
    await source.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("secantus-dump's archive follows the documented format", async () => {
    const path = join(dir, 'out.archive');
    const d = await dump(['--uri', source.uri, `--archive=${path}`, '-j', '2']);
    assert.equal(d.code, 0, d.stderr);
    const archive = parseArchive(await readFile(path));
    assert.equal(archive.header['version'], '0.1');
    assert.ok(archive.header['concurrent_collections'] instanceof Int32);
    assert.equal((archive.header['concurrent_collections'] as Int32).value, 2);
    assert.match(String(archive.header['server_version']), /^\d+\.\d+\.\d+/);
    assert.deepEqual(archive.prelude.map((c) => [c['db'], c['collection'], c['type']]).sort(), [
      ['fmt', 'a', 'collection'],
      ['fmt', 'b', 'collection'],
      ['fmt', 'empty', 'collection'],
      ['fmt', 'v', 'view'],
    ]);
    for (const c of archive.prelude) {
      assert.ok(c['size'] instanceof Int32);
      const meta = JSON.parse(String(c['metadata'])) as Document;
      assert.equal(meta['collectionName'], c['collection']);
    }
    // Every namespace ends with an EOF whose CRC is the CRC-64 of its documents.
    for (const ns of ['fmt.a', 'fmt.b', 'fmt.empty', 'fmt.v']) {
      assert.ok(archive.eof.has(ns), `EOF of ${ns}`);
      assert.equal(archive.eof.get(ns), crc64(archive.data.get(ns) ?? []), `CRC of ${ns}`);
    }
    // The documents are the server's bytes, untouched.
    const want = await rawDocuments(source.client, 'fmt', 'a');
    const got = (archive.data.get('fmt.a') ?? [])
      .slice()
      .sort((x, y) => BSON.deserialize(x)['_id'] - BSON.deserialize(y)['_id']);
    assert.equal(got.length, 300);
    for (let i = 0; i < 300; i++) assert.ok((got[i] as Buffer).equals(want[i] as Buffer));
    // Views and empty collections still open (an empty) segment before their EOF.
    assert.ok(archive.blocks.includes('fmt.v') && archive.blocks.includes('EOF:fmt.v'));
    assert.deepEqual(archive.data.get('fmt.empty'), []);
  });

  it("secantus-dump's gzip directory holds gzip files with mongodump's names", async () => {
    const out = join(dir, 'gz');
    const d = await dump(['--uri', source.uri, '--out', out, '--gzip', '--db', 'fmt']);
    assert.equal(d.code, 0, d.stderr);
    const meta = JSON.parse(
      gunzipSync(await readFile(join(out, 'fmt', 'a.metadata.json.gz'))).toString(),
    ) as Document;
    assert.deepEqual(Object.keys(meta), ['indexes', 'uuid', 'collectionName', 'type']);
    const bson = gunzipSync(await readFile(join(out, 'fmt', 'a.bson.gz')));
    let at = 0;
    let n = 0;
    while (at < bson.length) {
      at += bson.readInt32LE(at);
      n++;
    }
    assert.equal(at, bson.length);
    assert.equal(n, 300);
    const prelude = JSON.parse(
      gunzipSync(await readFile(join(out, 'fmt', 'prelude.json.gz'))).toString(),
    ) as Document;
    assert.deepEqual(Object.keys(prelude), ['ServerVersion', 'ToolVersion']);
  });

  it('restores an archive built byte by byte as mongodump writes one', async () => {
    const path = join(dir, 'handmade.archive');
    await writeFile(path, handmadeArchive());
    const target = await startTestServer();
    try {
      const r = await restore(['--uri', target.uri, `--archive=${path}`]);
      assert.equal(r.code, 0, r.stderr);
      const got = await rawDocuments(target.client, 'shop', 'items');
      assert.equal(got.length, 5);
      for (let i = 0; i < 5; i++) assert.ok((got[i] as Buffer).equals(items[i] as Buffer));
      assert.equal((await rawDocuments(target.client, 'shop', 'checked')).length, 2);
      const shapes = await collectionShapes(target.client, 'shop');
      assert.deepEqual(shapes.find((c) => c['name'] === 'checked')?.['options'], {
        validator: { n: { $gte: new Double(0) } },
        validationLevel: 'strict',
        validationAction: 'error',
      });
      assert.deepEqual(
        shapes.find((c) => c['name'] === 'big'),
        {
          name: 'big',
          type: 'view',
          options: { viewOn: 'items', pipeline: [{ $match: { n: { $gt: new Int32(1) } } }] },
        },
      );
      const indexes = await indexShapes(target.client, 'shop', 'items');
      assert.deepEqual(
        indexes.map((ix) => [ix['name'], ix['unique'] ?? ix['sparse']]),
        [
          ['_id_', undefined],
          ['sku_1', true],
          ['n_-1', true],
        ],
      );
      assert.deepEqual(indexes[2]?.['key'], { n: new Double(-1) });
      // The oplog namespace is read past (and its CRC checked) without --oplogReplay.
      assert.doesNotMatch(r.stderr, /oplog/);
    } finally {
      await target.stop();
    }
  });

  it('restores a directory (plain and gzip) laid out by hand as mongodump writes one', async () => {
    for (const gzip of [false, true]) {
      const root = join(dir, gzip ? 'hand-gz' : 'hand');
      await mkdir(join(root, 'shop'), { recursive: true });
      await mkdir(join(root, 'caf\u00e9'), { recursive: true });
      const put = (path: string, data: Buffer | string): Promise<void> =>
        writeFile(path + (gzip ? '.gz' : ''), gzip ? gzipSync(data) : data);
      await put(join(root, 'shop', 'items.bson'), Buffer.concat(items));
      await put(join(root, 'shop', 'items.metadata.json'), itemsMetadata);
      await put(join(root, 'shop', 'big.metadata.json'), viewMetadata);
      // Collection names are URL query-escaped in file names.
      await put(join(root, 'caf\u00e9', 'a+b%2Fc.bson'), Buffer.concat(checked));
      await put(join(root, 'prelude.json'), '{"ServerVersion":"7.0.14","ToolVersion":"100.9.4"}');
      const target = await startTestServer();
      try {
        const r = await restore(['--uri', target.uri, root, ...(gzip ? ['--gzip'] : [])]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal((await rawDocuments(target.client, 'shop', 'items')).length, 5);
        assert.equal((await rawDocuments(target.client, 'caf\u00e9', 'a b/c')).length, 2);
        assert.equal((await indexShapes(target.client, 'shop', 'items')).length, 3);
        assert.equal(
          (await collectionShapes(target.client, 'shop')).find((c) => c['name'] === 'big')?.[
            'type'
          ],
          'view',
        );
      } finally {
        await target.stop();
      }
    }
  });
});

// Bad input: a clear message and exit code 1, as mongorestore. Whatever fails before the first
// write (options, magic number, prelude, metadata) leaves the target untouched; what fails in
// the middle of the data (truncation, corruption, a CRC mismatch) stops there, as mongorestore
// does, keeping what was inserted and naming the collections left incomplete.
describe('bad input', () => {
  let dir: string;
  let target: TestServer;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'secantus-bad-'));
    target = await startTestServer();
  });
  after(async () => {
    await target.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const empty = async (): Promise<void> => {
    const r = await target.client.db('admin').command({ listDatabases: 1, nameOnly: true });
    assert.deepEqual(r['databases'], [], 'nothing may be written');
  };
  const dropAll = async (): Promise<void> => {
    for (const db of ['shop', 'café']) await target.client.db(db).dropDatabase();
  };
  const restoreArchive = async (bytes: Buffer): Promise<{ code: number; stderr: string }> => {
    const path = join(dir, `bad-${Math.random()}.archive`);
    await writeFile(path, bytes);
    return restore(['--uri', target.uri, `--archive=${path}`]);
  };

  it('refuses an archive with a bad magic number before writing anything', async () => {
    const bytes = handmadeArchive();
    bytes[0] = 0x6e;
    const r = await restoreArchive(bytes);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Failed: .*stream or file does not appear to be a mongodump archive/);
    await empty();
  });

  it('refuses an archive whose prelude metadata is not JSON before writing anything', async () => {
    const good = handmadeArchive();
    const at = good.indexOf(Buffer.from('"collectionName":"checked"'));
    good.write('{', at, 'latin1'); // '"' becomes '{': malformed JSON, same length
    const r = await restoreArchive(good);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Failed: error parsing metadata from the archive's metadata of shop\.checked/,
    );
    await empty();
  });

  it('stops at a truncated archive and names what is incomplete', async () => {
    const good = handmadeArchive();
    const cut = good.indexOf(items[3] as Buffer) + 10; // inside the second segment of items
    const r = await restoreArchive(good.subarray(0, cut));
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Failed: reading the archive: corruption found in archive; unexpected end of archive/,
    );
    assert.match(r.stderr, /restored incompletely: [^)]*shop\.items/);
    await dropAll();
  });

  it('stops at a CRC mismatch', async () => {
    const good = handmadeArchive();
    const eof = nsHeader('shop', 'checked', true, crc64(checked));
    const at = good.indexOf(eof);
    assert.ok(at > 0);
    good.writeUInt8((good[at + eof.length - 2] as number) ^ 1, at + eof.length - 2); // a bit of the CRC
    const r = await restoreArchive(good);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Failed: reading the archive: CRC mismatch for namespace shop\.checked/);
    await dropAll();
  });

  it('stops at an impossible document length inside an archive', async () => {
    const good = handmadeArchive();
    const at = good.indexOf(checked[0] as Buffer);
    good.writeInt32LE(3, at);
    const r = await restoreArchive(good);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /corruption found in archive; .*3 is neither a valid BSON length nor an archive terminator/,
    );
    await dropAll();
  });

  it('refuses malformed metadata.json before writing anything', async () => {
    const root = join(dir, 'badmeta');
    await mkdir(join(root, 'shop'), { recursive: true });
    await writeFile(join(root, 'shop', 'items.bson'), Buffer.concat(items));
    await writeFile(join(root, 'shop', 'items.metadata.json'), itemsMetadata);
    await writeFile(join(root, 'shop', 'checked.bson'), Buffer.concat(checked));
    await writeFile(join(root, 'shop', 'checked.metadata.json'), '{"indexes": [');
    const r = await restore(['--uri', target.uri, root]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Failed: error parsing metadata from .*checked\.metadata\.json/);
    assert.match(r.stderr, /0 document\(s\) restored successfully/);
    await empty();
  });

  it('stops at a truncated .bson file and names it', async () => {
    const root = join(dir, 'truncated');
    await mkdir(join(root, 'shop'), { recursive: true });
    const all = Buffer.concat(items);
    await writeFile(join(root, 'shop', 'items.bson'), all.subarray(0, all.length - 7));
    const r = await restore(['--uri', target.uri, root]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Failed: error restoring from .*items\.bson: reading bson input: unexpected end/,
    );
    assert.match(r.stderr, /restored incompletely: shop\.items/);
    await dropAll();
  });

  it('refuses a --query that is not Extended JSON before writing anything', async () => {
    const out = join(dir, 'noquery');
    const r = await dump([
      '--uri',
      target.uri,
      '--db',
      'shop',
      '--collection',
      'items',
      '--query',
      '{x: 1}',
      '--out',
      out,
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Failed: error parsing query as Extended JSON/);
    await assert.rejects(readFile(join(out, 'shop', 'items.bson')));
  });

  it('refuses unknown and conflicting options', async () => {
    const a = await dump(['--uri', target.uri, '--bogus']);
    assert.equal(a.code, 1);
    assert.match(a.stderr, /error parsing command line options: .*--bogus/);
    const b = await dump(['--uri', target.uri, '--oplog', '--db', 'shop']);
    assert.equal(b.code, 1);
    assert.match(b.stderr, /bad option: --oplog mode only supported on full dumps/);
    const c = await restore(['--uri', target.uri, '--preserveUUID', join(dir, 'x')]);
    assert.equal(c.code, 1);
    assert.match(c.stderr, /cannot specify --preserveUUID without --drop/);
    const d = await restore(['--uri', target.uri, '--nsFrom', 'a.*']);
    assert.equal(d.code, 1);
    assert.match(
      d.stderr,
      /--nsFrom and --nsTo arguments must be specified an equal number of times/,
    );
    await empty();
  });
});
