// Time-series collections through secantus-dump and secantus-restore, as mongodump and
// mongorestore 100.x carry them: the dump holds the bucket documents of
// `system.buckets.<name>` under the collection's intent (`<db>/system.buckets.<name>.bson`
// beside `<db>/<name>.metadata.json` with type "timeseries" and the time-series options; in an
// archive a prelude entry for `<name>` of type "timeseries" whose segments name the buckets);
// the restore creates the collection from the metadata and inserts the buckets into
// `system.buckets.<name>`, which the server checks against mongod's bucket schema. --query is
// limited to the meta field, as mongodump's. Inputs built by hand the way mongodump writes
// them restore too.

import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BSON, Int32, Long, MongoServerError, ObjectId } from 'mongodb';
import type { Document, MongoClient } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { collectionShapes, dump, indexShapes, rawDocuments, restore } from '../helpers/tools.js';

const t0 = Date.UTC(2024, 4, 1, 10, 0, 0);
const at = (s: number): Date => new Date(t0 + s * 1000);

async function fill(client: MongoClient): Promise<void> {
  const db = client.db('metrics');
  await db.createCollection('weather', {
    timeseries: { timeField: 'ts', metaField: 'sensor', granularity: 'minutes' },
    expireAfterSeconds: 86400 * 365 * 50,
  });
  const weather = db.collection('weather');
  const docs: Document[] = [];
  for (let i = 0; i < 300; i++)
    docs.push({
      ts: at(i * 37),
      sensor: { id: i % 3, site: i % 2 === 0 ? 'north' : 'south' },
      temp: 10 + (i % 17),
      ...(i % 5 === 0 ? { note: `n${i}` } : {}),
    });
  await weather.insertMany(docs);
  await weather.createIndex({ 'sensor.id': 1, ts: 1 });
  await db.createCollection('raw', {
    timeseries: { timeField: 't', bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600 },
  });
  await db
    .collection('raw')
    .insertMany(Array.from({ length: 50 }, (_, i) => ({ t: at(i * 61), v: new Long(i) })));
  await db.collection('plain').insertOne({ _id: new ObjectId(), x: 1 });
}

/** The time-series view's measurements in a fixed order, as the driver shows them. */
async function measurements(client: MongoClient, db: string, name: string): Promise<Document[]> {
  return client
    .db(db)
    .collection(name)
    .aggregate([{ $sort: { ts: 1, t: 1, _id: 1 } }, { $project: { _id: 0 } }])
    .toArray();
}

async function sameTimeseries(source: MongoClient, target: MongoClient): Promise<void> {
  const shapes = await collectionShapes(source, 'metrics');
  assert.ok(shapes.some((c) => c['type'] === 'timeseries'));
  assert.deepEqual(await collectionShapes(target, 'metrics'), shapes);
  for (const name of ['weather', 'raw']) {
    const want = await measurements(source, 'metrics', name);
    assert.ok(want.length > 0);
    assert.deepEqual(await measurements(target, 'metrics', name), want, name);
    assert.deepEqual(
      await indexShapes(target, 'metrics', name),
      await indexShapes(source, 'metrics', name),
      `${name}: indexes`,
    );
    // The buckets themselves come back byte for byte.
    const buckets = await rawDocuments(source, 'metrics', `system.buckets.${name}`);
    const got = await rawDocuments(target, 'metrics', `system.buckets.${name}`);
    assert.equal(got.length, buckets.length);
    buckets.forEach((b, i) => assert.ok(b.equals(got[i] as Buffer), `${name}: bucket ${i}`));
  }
}

/** A small reader of the archive format (mongo-tools' common/archive/spec.md). */
function parseArchive(bytes: Buffer): { prelude: Document[]; namespaces: Set<string> } {
  let at = 4;
  const doc = (): Buffer => {
    const n = bytes.readInt32LE(at);
    const d = bytes.subarray(at, at + n);
    at += n;
    return d;
  };
  const terminator = (): boolean => bytes.readUInt32LE(at) === 0xffffffff;
  assert.equal(bytes.readUInt32LE(0), 0x8199e26d);
  doc();
  const prelude: Document[] = [];
  while (!terminator()) prelude.push(BSON.deserialize(doc()));
  at += 4;
  const namespaces = new Set<string>();
  while (at < bytes.length) {
    const h = BSON.deserialize(doc());
    namespaces.add(`${String(h['db'])}.${String(h['collection'])}`);
    while (!terminator()) doc();
    at += 4;
  }
  return { prelude, namespaces };
}

describe('time-series collections through dump and restore', () => {
  let source: TestServer;
  let dir: string;
  before(async () => {
    source = await startTestServer();
    await fill(source.client);
    dir = await mkdtemp(join(tmpdir(), 'secantus-ts-dump-'));
  });
  after(async () => {
    await source.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const forms = [
    { name: 'directory', dump: (d: string) => ['--out', d], restore: (d: string) => [d] },
    {
      name: 'gzip directory',
      dump: (d: string) => ['--out', d, '--gzip'],
      restore: (d: string) => [d, '--gzip'],
    },
    {
      name: 'archive',
      dump: (d: string) => [`--archive=${d}.archive`],
      restore: (d: string) => [`--archive=${d}.archive`],
    },
    {
      name: 'gzip archive',
      dump: (d: string) => [`--archive=${d}.archive.gz`, '--gzip'],
      restore: (d: string) => [`--archive=${d}.archive.gz`, '--gzip'],
    },
  ];
  for (const form of forms) {
    it(`round-trips measurements, indexes and options through a ${form.name}`, async () => {
      const out = join(dir, form.name.replace(' ', '-'));
      const d = await dump(['--uri', source.uri, '--db', 'metrics', ...form.dump(out)]);
      assert.equal(d.code, 0, d.stderr);
      assert.match(d.stderr, /done dumping metrics\.system\.buckets\.weather \(\d+ documents\)/);
      const target = await startTestServer();
      try {
        const r = await restore(['--uri', target.uri, ...form.restore(out)]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /finished restoring metrics\.system\.buckets\.weather/);
        await sameTimeseries(source.client, target.client);
        // The restored collection takes new measurements like the original.
        await target.client
          .db('metrics')
          .collection('weather')
          .insertOne({ ts: at(5), sensor: { id: 9 }, temp: 1 });
        assert.equal(
          await target.client.db('metrics').collection('weather').countDocuments({}),
          301,
        );
      } finally {
        await target.stop();
      }
    });
  }

  it('lays the directory out as mongodump: buckets file, metadata of the collection', async () => {
    const out = join(dir, 'layout');
    const d = await dump(['--uri', source.uri, '--db', 'metrics', '--out', out]);
    assert.equal(d.code, 0, d.stderr);
    const files = (await readdir(join(out, 'metrics'))).sort();
    assert.deepEqual(files, [
      'plain.bson',
      'plain.metadata.json',
      'prelude.json',
      'raw.metadata.json',
      'system.buckets.raw.bson',
      'system.buckets.weather.bson',
      'weather.metadata.json',
    ]);
    const meta = JSON.parse(await readFile(join(out, 'metrics', 'weather.metadata.json'), 'utf8'));
    assert.equal(meta.type, 'timeseries');
    assert.equal(meta.collectionName, 'weather');
    assert.deepEqual(meta.options.timeseries, {
      timeField: 'ts',
      metaField: 'sensor',
      granularity: 'minutes',
      bucketMaxSpanSeconds: { $numberInt: '86400' },
    });
    assert.deepEqual(
      meta.indexes.map((ix: Document) => ix['name']),
      ['sensor.id_1_ts_1'],
    );
    // The archive: one prelude entry of type timeseries, segments under the buckets.
    const a = await dump(['--uri', source.uri, '--db', 'metrics', `--archive=${out}.archive`]);
    assert.equal(a.code, 0, a.stderr);
    const parsed = parseArchive(await readFile(`${out}.archive`));
    const entry = parsed.prelude.find((p) => p['collection'] === 'weather');
    assert.equal(entry?.['type'], 'timeseries');
    assert.ok(!parsed.prelude.some((p) => String(p['collection']).startsWith('system.')));
    assert.ok(parsed.namespaces.has('metrics.system.buckets.weather'));
    assert.ok(!parsed.namespaces.has('metrics.weather'));
  });

  it('--query selects buckets by the meta field only, as mongodump', async () => {
    const out = join(dir, 'query');
    const base = ['--uri', source.uri, '--db', 'metrics', '--collection', 'weather'];
    const d = await dump([...base, '--out', out, '--query', '{"sensor.id": 1}']);
    assert.equal(d.code, 0, d.stderr);
    const target = await startTestServer();
    try {
      const r = await restore(['--uri', target.uri, out]);
      assert.equal(r.code, 0, r.stderr);
      const got = await measurements(target.client, 'metrics', 'weather');
      assert.equal(got.length, 100);
      assert.ok(got.every((m) => m['sensor']?.['id'] === 1));
    } finally {
      await target.stop();
    }
    const bad = await dump([...base, '--out', out, '--query', '{"temp": {"$gt": 3}}']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /mongodump only processes queries on metadata fields/);
    const noMeta = await dump([
      ...base.slice(0, 4),
      '--collection',
      'raw',
      '--out',
      out,
      '--query',
      '{"v": 1}',
    ]);
    assert.notEqual(noMeta.code, 0);
    assert.match(noMeta.stderr, /could not determine the metaField for metrics\.raw/);
    const buckets = await dump([
      ...base.slice(0, 4),
      '--collection',
      'system.buckets.weather',
      '--out',
      out,
    ]);
    assert.notEqual(buckets.code, 0);
    assert.match(buckets.stderr, /cannot specify a system\.buckets collection in --collection/);
  });

  it('refuses an existing destination without --drop, and --noOptionsRestore', async () => {
    const out = join(dir, 'existing');
    const d = await dump(['--uri', source.uri, '--db', 'metrics', '--out', out]);
    assert.equal(d.code, 0, d.stderr);
    const target = await startTestServer();
    try {
      await target.client
        .db('metrics')
        .createCollection('weather', { timeseries: { timeField: 'ts' } });
      const r = await restore(['--uri', target.uri, out]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /timeseries collection metrics\.weather already exists/);
      // Nothing was written: the refusal comes before any collection is restored.
      assert.equal(await target.client.db('metrics').collection('plain').countDocuments(), 0);
      const noOptions = await restore(['--uri', target.uri, out, '--drop', '--noOptionsRestore']);
      assert.notEqual(noOptions.code, 0);
      assert.match(noOptions.stderr, /cannot specify --noOptionsRestore/);
      const dropped = await restore(['--uri', target.uri, out, '--drop']);
      assert.equal(dropped.code, 0, dropped.stderr);
      await sameTimeseries(source.client, target.client);
    } finally {
      await target.stop();
    }
  });
});

// ---- inputs as mongodump writes them, and malformed buckets --------------------------------

const bytes = (d: Document): Buffer => Buffer.from(BSON.serialize(d));

/** listCollections' options of a mongod 7.0 time-series collection, as mongodump writes them. */
const sensorsMetadata =
  '{"options":{"timeseries":{"timeField":"t","metaField":"m","granularity":"seconds",' +
  '"bucketMaxSpanSeconds":{"$numberInt":"3600"}}},' +
  '"indexes":[{"v":{"$numberInt":"2"},"key":{"m":{"$numberInt":"1"},"t":{"$numberInt":"1"}},"name":"m_1_t_1"}],' +
  '"collectionName":"sensors","type":"timeseries"}';

function bucket(id: string, meta: string, times: number[], values: number[]): Buffer {
  const data: Document = { t: {}, v: {} };
  times.forEach((s, i) => {
    (data['t'] as Document)[String(i)] = at(s);
    (data['v'] as Document)[String(i)] = new Int32(values[i] ?? 0);
  });
  return bytes({
    _id: new ObjectId(id),
    control: {
      version: new Int32(1),
      min: { t: at(Math.floor(Math.min(...times) / 60) * 60), v: new Int32(Math.min(...values)) },
      max: { t: at(Math.max(...times)), v: new Int32(Math.max(...values)) },
    },
    meta,
    data,
  });
}

let oidCount = 0;
/** An ObjectId whose time part is the bucket's rounded start, as mongod makes them. */
const oid = (s: number): string =>
  Math.floor((t0 + s * 1000) / 1000)
    .toString(16)
    .padStart(8, '0') + (++oidCount).toString(16).padStart(16, '0');

describe('time-series inputs built as mongodump writes them', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startTestServer();
    dir = await mkdtemp(join(tmpdir(), 'secantus-ts-input-'));
  });
  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('restores a directory dump of mongod buckets, and the view unpacks them', async () => {
    const db = join(dir, 'good', 'iot');
    await mkdir(db, { recursive: true });
    await writeFile(join(db, 'sensors.metadata.json'), sensorsMetadata);
    await writeFile(
      join(db, 'system.buckets.sensors.bson'),
      Buffer.concat([bucket(oid(0), 'a', [0, 10], [5, 7]), bucket(oid(0), 'b', [20], [1])]),
    );
    const r = await restore(['--uri', server.uri, join(dir, 'good')]);
    assert.equal(r.code, 0, r.stderr);
    const got = await server.client
      .db('iot')
      .collection('sensors')
      .find({}, { projection: { _id: 0 } })
      .sort({ t: 1 })
      .toArray();
    assert.deepEqual(got, [
      { t: at(0), m: 'a', v: 5 },
      { t: at(10), m: 'a', v: 7 },
      { t: at(20), m: 'b', v: 1 },
    ]);
    const info = await server.client.db('iot').listCollections({ name: 'sensors' }).toArray();
    assert.equal(info[0]?.type, 'timeseries');
    const indexes = await server.client.db('iot').collection('sensors').listIndexes().toArray();
    assert.deepEqual(
      indexes.map((ix) => ix['name']),
      ['m_1_t_1'],
    );
  });

  it('--oplogReplay applies the bucket writes of the oplog, as mongorestore', async () => {
    // mongod logs a time-series write as a write on its buckets: an insert of a new bucket
    // and a $v: 2 diff that adds a measurement to it.
    const root = join(dir, 'oplog');
    const db = join(root, 'iot4');
    await mkdir(db, { recursive: true });
    await writeFile(join(db, 'sensors.metadata.json'), sensorsMetadata);
    await writeFile(join(db, 'system.buckets.sensors.bson'), bucket(oid(0), 'a', [0], [1]));
    const id = new ObjectId(oid(0));
    const entry = (n: number, op: string, o: Document, o2?: Document): Buffer =>
      bytes({
        op,
        ns: 'iot4.system.buckets.sensors',
        o,
        ...(o2 === undefined ? {} : { o2 }),
        ts: new BSON.Timestamp({ t: 1_700_000_000, i: n }),
        t: new Long(1),
        v: new Int32(2),
        wall: new Date(),
      });
    const oplog = Buffer.concat([
      entry(1, 'i', BSON.deserialize(bucket(id.toHexString(), 'b', [30], [9]))),
      entry(
        2,
        'u',
        {
          $v: new Int32(2),
          diff: {
            scontrol: { smax: { u: { t: at(31), v: new Int32(10) } } },
            sdata: { st: { i: { '1': at(31) } }, sv: { i: { '1': new Int32(10) } } },
          },
        },
        { _id: id },
      ),
    ]);
    await writeFile(join(root, 'oplog.bson'), oplog);
    const r = await restore(['--uri', server.uri, root, '--oplogReplay']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /applied 2 oplog entries/);
    const got = await server.client
      .db('iot4')
      .collection('sensors')
      .find({}, { projection: { _id: 0 } })
      .sort({ t: 1 })
      .toArray();
    assert.deepEqual(got, [
      { t: at(0), m: 'a', v: 1 },
      { t: at(30), m: 'b', v: 9 },
      { t: at(31), m: 'b', v: 10 },
    ]);
  });

  it('a buckets file without the collection metadata is refused before writing', async () => {
    const db = join(dir, 'nometa', 'iot2');
    await mkdir(db, { recursive: true });
    await writeFile(join(db, 'system.buckets.sensors.bson'), bucket(oid(0), 'a', [0], [1]));
    const r = await restore(['--uri', server.uri, join(dir, 'nometa')]);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /could not find the timeseries collection metadata file for iot2\.sensors/,
    );
    assert.deepEqual(await server.client.db('iot2').listCollections().toArray(), []);
  });

  it('malformed buckets are refused one by one with DocumentValidationFailure', async () => {
    const db = join(dir, 'bad', 'iot3');
    await mkdir(db, { recursive: true });
    await writeFile(join(db, 'sensors.metadata.json'), sensorsMetadata.replace('"m_1_t_1"', '"x"'));
    const good = bucket(oid(0), 'a', [0, 1], [1, 2]);
    // control.min without the time field; a string `_id`; an unknown top-level field.
    const noMin = bytes({
      _id: new ObjectId(),
      control: { version: new Int32(1), min: {}, max: { t: at(0) } },
      data: { t: { '0': at(0) } },
    });
    const stringId = bytes({
      _id: 'x',
      control: { version: new Int32(1), min: { t: at(0) }, max: { t: at(0) } },
      data: { t: { '0': at(0) } },
    });
    await writeFile(
      join(db, 'system.buckets.sensors.bson'),
      Buffer.concat([noMin, good, stringId]),
    );
    const r = await restore(['--uri', server.uri, join(dir, 'bad')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\(1 document, 2 failures\)/);
    assert.match(r.stderr, /Document failed validation/);
    const got = await server.client.db('iot3').collection('sensors').countDocuments({});
    assert.equal(got, 2);
    // --stopOnError stops at the first malformed bucket.
    const stop = await restore(['--uri', server.uri, join(dir, 'bad'), '--drop', '--stopOnError']);
    assert.notEqual(stop.code, 0);
  });

  it('the buckets collection takes direct inserts checked as mongod checks them', async () => {
    const db = server.client.db('direct');
    await db.createCollection('s', { timeseries: { timeField: 't', metaField: 'm' } });
    const buckets = db.collection('system.buckets.s');
    await buckets.insertOne(BSON.deserialize(bucket(oid(0), 'z', [0, 5], [3, 4])));
    assert.equal(await db.collection('s').countDocuments({ m: 'z' }), 2);
    // A write error carries mongod's code (and, for validation, errInfo); no codeName.
    const refused = async (doc: Document, code: number, message: RegExp): Promise<void> => {
      await assert.rejects(buckets.insertOne(doc), (e: unknown) => {
        assert.ok(e instanceof MongoServerError);
        assert.equal(e.code, code);
        assert.match(e.message, message);
        if (code === 121) assert.ok(e.errInfo?.['failingDocumentId'] !== undefined);
        return true;
      });
    };
    const control = { version: new Int32(1), min: { t: at(0) }, max: { t: at(0) } };
    await refused({ _id: new ObjectId(), control }, 121, /Document failed validation/);
    await refused(
      { _id: new ObjectId(), control: { ...control, max: { t: 'late' } }, data: {} },
      121,
      /Document failed validation/,
    );
    await refused(
      { _id: new ObjectId(), control: { ...control, extra: 1 }, data: {} },
      121,
      /Document failed validation/,
    );
    await refused(
      { _id: new ObjectId(), control, data: {}, other: 1 },
      121,
      /Document failed validation/,
    );
    // A compressed bucket (control.version 2) is not stored: this server could not unpack it.
    await refused(
      { _id: new ObjectId(), control: { ...control, version: new Int32(2) }, data: {} },
      238,
      /only uncompressed buckets/,
    );
    assert.equal(await db.collection('s').countDocuments({}), 2);
    // Other system collections stay closed to inserts.
    for (const name of ['system.foo', 'system.buckets.nothere'])
      await assert.rejects(db.collection(name).insertOne({ x: 1 }), {
        code: 73,
        codeName: 'InvalidNamespace',
      });
  });
});
