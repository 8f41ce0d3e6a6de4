// secantus-export and secantus-import end to end against a real server: a collection holding
// every BSON type the driver can send is exported in each format, imported into another
// collection, and compared value for value (types included) where the format keeps them; the
// Parquet file's schema is checked column by column. Bad input answers as mongoexport and
// mongoimport do: the message, and exit code 1.

import { limits } from '../../src/limits.js';
import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { asyncBufferFromFile, parquetMetadataAsync } from 'hyparquet';
import { parquetWriteFile } from 'hyparquet-writer';
import {
  Binary,
  BSON,
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
import { exportTool, importTool } from '../helpers/tools.js';
import type { AnyDocument } from '../helpers/tools.js';

/** The slice of @duckdb/node-api the test uses (not a dependency, so not imported by type). */
interface DuckModule {
  DuckDBInstance: {
    create(path: string): Promise<{
      connect(): Promise<{
        runAndReadAll(sql: string): Promise<{ getRows(): unknown[][] }>;
        closeSync(): void;
      }>;
    }>;
  };
}

const raw = {
  promoteValues: false,
  promoteLongs: false,
  promoteBuffers: false,
  bsonRegExp: true,
} as const;

/** One value per BSON type (and edge values), each under field `v` of its own document. */
function everyType(): Document[] {
  const values: unknown[] = [
    new Double(1.5),
    new Double(2),
    new Double(-0),
    new Double(NaN),
    new Double(-Infinity),
    new Double(1e21),
    'héllo wörld ✓ 𝄞',
    '',
    { a: { b: [1, { c: null }] }, d: new Int32(4) },
    {},
    [1, 'two', [3, [new Long(4)]], { five: new Double(5) }],
    [],
    new Binary(Buffer.from([0, 1, 2, 255])),
    new UUID('0123456789abcdef0123456789abcdef'),
    new Binary(Buffer.alloc(16, 7), 5),
    new Binary(Buffer.from('custom'), 128),
    new ObjectId('64b7f0c2a1b2c3d4e5f60718'),
    true,
    false,
    new Date('2024-02-29T12:34:56.789Z'),
    new Date(-86_400_000),
    null,
    new BSONRegExp('^a.*z$', 'imsx'),
    new Code('function () { return 1; }'),
    new Code('function () { return x; }', { x: new Int32(1) }),
    new BSONSymbol('sym'),
    new Int32(-2147483648),
    new Int32(2147483647),
    new Timestamp({ t: 4_000_000_000, i: 7 }),
    Long.fromString('9223372036854775807'),
    Long.fromString('-9223372036854775808'),
    Decimal128.fromString('1234567890.123456789012345678901234'),
    Decimal128.fromString('NaN'),
    Decimal128.fromString('-0'),
    new MinKey(),
    new MaxKey(),
    // DBRef-shaped documents are ordinary documents; the bson package decodes them as DBRefs.
    { $ref: 'items', $id: new ObjectId('64b7f0c2a1b2c3d4e5f6071a'), $db: 'shop' },
    [{ $ref: 'a', $id: 'x', extra: { nested: true } }],
  ];
  const docs: Document[] = values.map((v, i) => ({ _id: i + 1, v }));
  // Awkward field names, __proto__ among them: set as data, not as the prototype.
  const names: Document = {};
  const fields: Array<[string, unknown]> = [
    ['_id', values.length + 1],
    ['b', new Int32(1)],
    ['1', 'integer-like key'],
    ['', 'empty name'],
    ['a.b', 'dotted'],
    ['$dollar', 'top-level $'],
    ['__proto__', 'proto as data'],
    ['constructor', 'data'],
  ];
  for (const [k, v] of fields)
    Object.defineProperty(names, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  docs.push(names);
  return docs;
}

/** Documents whose fields each keep one type, so that each gets a typed Parquet column. */
function typedRows(): Document[] {
  const out: Document[] = [];
  for (let i = 0; i < 25; i++) {
    const d: Document = {
      _id: new ObjectId(`64b7f0c2a1b2c3d4e5f607${(16 + i).toString(16)}`),
      d: new Double(i + 0.25),
      i32: new Int32(i - 12),
      i64: Long.fromString(`${i}000000000000`),
      s: `row ${i}`,
      b: i % 2 === 0,
      when: new Date(Date.UTC(2020, 0, 1) + i * 86_400_000),
      id: new UUID(`00000000-0000-4000-8000-0000000000${(10 + i).toString(16).padStart(2, '0')}`),
      bin: new Binary(Buffer.from([i, i + 1])),
      md5: new Binary(Buffer.alloc(16, i), 5),
      ts: new Timestamp({
        t: i === 24 ? 4_294_967_295 : 1_700_000_000 + i,
        i: i === 24 ? 4_294_967_295 : i + 1,
      }),
      dec: Decimal128.fromString(`${i}.5`),
      code: new Code(`return ${i};`),
      sym: new BSONSymbol(`s${i}`),
      nested: { n: new Int32(i), list: [new Int32(i), 'x'] },
      maybe: i % 3 === 0 ? null : new Int32(i),
      // edge values in typed columns
      x: new Double([NaN, -0, Infinity, -Infinity, 1.5e308][i % 5] as number),
      l: [Long.MAX_VALUE, Long.MIN_VALUE, Long.fromNumber(-1)][i % 3],
      w: [new Date(-62135596800000), new Date(253402300799999), new Date(-1)][i % 3],
      big: [new Int32(2147483647), new Int32(-2147483648)][i % 2],
    };
    if (i % 4 !== 0) d['sometimes'] = `present ${i}`;
    if (i % 5 === 0) d['mixedNulls'] = null;
    else if (i % 5 === 1) d['mixedNulls'] = new Int32(i);
    out.push(d);
  }
  return out;
}

/** A value's canonical Extended JSON with document keys sorted (Parquet keeps column order). */
function sortedCanonical(doc: Document): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Document = {};
      for (const k of Object.keys(v as Document).sort())
        Object.defineProperty(out, k, {
          value: sort((v as Document)[k]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(BSON.EJSON.serialize(doc, { relaxed: false })));
}

async function contents(client: MongoClient, db: string, coll: string): Promise<string[]> {
  const docs = await client
    .db(db)
    .collection(coll)
    .find({}, { ...raw, sort: { _id: 1 } })
    .toArray();
  return docs.map((d) => sortedCanonical(d));
}

describe('secantus-export / secantus-import', () => {
  let t: TestServer;
  let dir: string;

  before(async () => {
    t = await startTestServer();
    dir = await mkdtemp(join(tmpdir(), 'secantus-export-'));
    await t.client.db('src').collection<AnyDocument>('every').insertMany(everyType());
    await t.client.db('src').collection<AnyDocument>('typed').insertMany(typedRows());
  });

  after(async () => {
    await t.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const roundTrip = async (
    coll: string,
    exportArgs: string[],
    importArgs: string[],
    target: string,
    expect: (canonical: string) => string = (c) => c,
  ): Promise<void> => {
    const file = join(dir, `${target}.out`);
    const e = await exportTool([
      '--uri',
      t.uri,
      '-d',
      'src',
      '-c',
      coll,
      '--out',
      file,
      ...exportArgs,
    ]);
    assert.equal(e.code, 0, e.stderr);
    const expected = await t.client.db('src').collection(coll).countDocuments();
    assert.match(e.stderr, new RegExp(`exported ${expected} records`));
    const i = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      target,
      '--file',
      file,
      ...importArgs,
    ]);
    assert.equal(i.code, 0, i.stderr);
    assert.match(
      i.stderr,
      new RegExp(`${expected} document\\(s\\) imported successfully. 0 document\\(s\\) failed`),
    );
    const before = (await contents(t.client, 'src', coll)).map(expect);
    const afterImport = await contents(t.client, 'dst', target);
    assert.ok(before.length > 0);
    assert.deepEqual(afterImport, before);
  };

  const everyTypeFormats: ReadonlyArray<{
    readonly through: string;
    readonly exportArgs: string[];
    readonly importArgs: string[];
    readonly target: string;
  }> = [
    {
      through: 'canonical JSON, one document a line',
      exportArgs: ['--jsonFormat=canonical'],
      importArgs: [],
      target: 'json_canonical',
    },
    {
      through: 'a canonical JSON array',
      exportArgs: ['--jsonFormat=canonical', '--jsonArray'],
      importArgs: ['--jsonArray'],
      target: 'json_array',
    },
    {
      through: 'pretty JSON',
      exportArgs: ['--jsonFormat=canonical', '--pretty'],
      importArgs: [],
      target: 'json_pretty',
    },
    {
      through: 'Parquet (mixed types: a JSON column)',
      exportArgs: ['--type=parquet'],
      importArgs: ['--type=parquet'],
      target: 'parquet_every',
    },
  ];
  for (const f of everyTypeFormats)
    it(`round-trips every BSON type through ${f.through}`, async () => {
      await roundTrip('every', f.exportArgs, f.importArgs, f.target);
    });

  it('relaxed JSON keeps doubles, strings, dates and the $-wrapped types', async () => {
    // An int64 within int32 range is written as a plain number, which reads back as an int32
    // (relaxed Extended JSON's rule, as mongoexport's); everything else comes back exactly.
    await roundTrip('typed', [], [], 'json_relaxed_typed', (c) =>
      c
        .replace('"i64":{"$numberLong":"0"}', '"i64":{"$numberInt":"0"}')
        .replace('"l":{"$numberLong":"-1"}', '"l":{"$numberInt":"-1"}'),
    );
    const file = join(dir, 'relaxed.json');
    const e = await exportTool(['--uri', t.uri, '-d', 'src', '-c', 'every', '--out', file]);
    assert.equal(e.code, 0, e.stderr);
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    assert.equal(lines.length, everyType().length);
    assert.equal(lines[0], '{"_id":1,"v":1.5}');
    assert.equal(lines[1], '{"_id":2,"v":2.0}');
    assert.equal(lines[5], '{"_id":6,"v":1E+21}');
    assert.ok(
      lines.includes('{"_id":20,"v":{"$date":"2024-02-29T12:34:56.789Z"}}'),
      lines.join('\n'),
    );
    assert.ok(lines.includes('{"_id":21,"v":{"$date":{"$numberLong":"-86400000"}}}'));
  });

  it('round-trips empty and extreme values of typed columns through Parquet', async () => {
    const decimals = [
      'NaN',
      '-0',
      'Infinity',
      '-Infinity',
      '1E+6144',
      '-1.000000000000000000000000000000000E-6143',
    ];
    await t.client
      .db('src')
      .collection<AnyDocument>('edges')
      .insertMany(
        decimals.map((dec, i) => ({
          _id: i,
          empty: '',
          nothing: new Binary(Buffer.alloc(0)),
          dec: Decimal128.fromString(dec),
          id: i % 2 === 0 ? null : new UUID(),
          flag: i % 3 === 0 ? null : i % 3 === 1,
          long: 'x'.repeat(i === 5 ? 1_000_000 : 1),
          sym: new BSONSymbol(''),
          allNull: null,
        })),
      );
    await roundTrip('edges', ['--type=parquet'], ['--type=parquet'], 'parquet_edges');
  });

  it('round-trips typed columns through Parquet, with each column of its Parquet type', async () => {
    await roundTrip('typed', ['--type=parquet'], ['--type=parquet'], 'parquet_typed');
    const meta = await parquetMetadataAsync(
      await asyncBufferFromFile(join(dir, 'parquet_typed.out')),
    );
    const byName = new Map(meta.schema.slice(1).map((e) => [e.name, e]));
    const shape = (name: string): string => {
      const e = byName.get(name);
      assert.ok(e !== undefined, `column ${name}`);
      return [e.type, e.converted_type ?? '', e.logical_type?.type ?? ''].join('/');
    };
    assert.equal(shape('_id'), 'BYTE_ARRAY/UTF8/');
    assert.equal(shape('d'), 'DOUBLE//');
    assert.equal(shape('i32'), 'INT32//');
    assert.equal(shape('i64'), 'INT64//');
    assert.equal(shape('s'), 'BYTE_ARRAY/UTF8/');
    assert.equal(shape('b'), 'BOOLEAN//');
    assert.equal(shape('when'), 'INT64/TIMESTAMP_MILLIS/');
    assert.equal(shape('id'), 'FIXED_LEN_BYTE_ARRAY//UUID');
    assert.equal(shape('bin'), 'BYTE_ARRAY//');
    assert.equal(shape('md5'), 'BYTE_ARRAY//');
    assert.equal(shape('ts'), 'INT64/UINT_64/');
    assert.equal(shape('dec'), 'BYTE_ARRAY/UTF8/');
    assert.equal(shape('nested'), 'BYTE_ARRAY/JSON/JSON');
    assert.equal(shape('maybe'), 'INT32//');
    assert.equal(shape('x'), 'DOUBLE//');
    assert.equal(shape('l'), 'INT64//');
    assert.equal(shape('w'), 'INT64/TIMESTAMP_MILLIS/');
    assert.equal(shape('sometimes'), 'BYTE_ARRAY/UTF8/');
    // both missing and null somewhere: a JSON column
    assert.equal(shape('mixedNulls'), 'BYTE_ARRAY/JSON/JSON');
    assert.equal(meta.num_rows, 25n);
  });

  it('DuckDB reads the exported Parquet file with its column types (when @duckdb/node-api is installed)', async (ctx) => {
    // DuckDB is not a dependency: `npm install --no-save @duckdb/node-api` to run this test.
    const name = '@duckdb/node-api';
    let duck: DuckModule;
    try {
      duck = (await import(name)) as DuckModule;
    } catch {
      ctx.skip('@duckdb/node-api is not installed: DuckDB reading our Parquet files not checked');
      return;
    }
    const file = join(dir, 'duckdb.parquet');
    const e = await exportTool([
      '--uri',
      t.uri,
      '-d',
      'src',
      '-c',
      'typed',
      '--type=parquet',
      '-o',
      file,
    ]);
    assert.equal(e.code, 0, e.stderr);
    const instance = await duck.DuckDBInstance.create(':memory:');
    const con = await instance.connect();
    try {
      const from = `read_parquet('${file.replace(/'/g, "''")}')`;
      const types = await con.runAndReadAll(
        `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${from})`,
      );
      const byName = new Map(types.getRows().map((r) => [String(r[0]), String(r[1])]));
      assert.equal(byName.get('_id'), 'VARCHAR');
      assert.equal(byName.get('d'), 'DOUBLE');
      assert.equal(byName.get('i32'), 'INTEGER');
      assert.equal(byName.get('i64'), 'BIGINT');
      assert.equal(byName.get('b'), 'BOOLEAN');
      assert.match(byName.get('when') ?? '', /^TIMESTAMP/);
      assert.equal(byName.get('id'), 'UUID');
      assert.equal(byName.get('bin'), 'BLOB');
      assert.equal(byName.get('ts'), 'UBIGINT');
      assert.equal(byName.get('nested'), 'JSON');
      const sums = await con.runAndReadAll(
        `SELECT count(*), sum(d), sum(i32), count(maybe), count(sometimes), min("when")::VARCHAR, ` +
          `max(CAST(json_extract_string(nested, '$.n."$numberInt"') AS INTEGER)) FROM ${from}`,
      );
      const src = typedRows();
      const row = sums.getRows()[0] as unknown[];
      assert.equal(Number(row[0]), src.length);
      assert.equal(
        Number(row[1]),
        src.reduce((a, d) => a + Number(d['d']), 0),
      );
      assert.equal(
        Number(row[2]),
        src.reduce((a, d) => a + Number(d['i32']), 0),
      );
      assert.equal(Number(row[3]), src.filter((d) => d['maybe'] !== null).length);
      assert.equal(Number(row[4]), src.filter((d) => d['sometimes'] !== undefined).length);
      assert.match(String(row[5]), /^2020-01-01 00:00:00/);
      assert.equal(Number(row[6]), src.length - 1);
    } finally {
      con.closeSync();
    }
  });

  it('imports a Parquet file written elsewhere by its Parquet types', async () => {
    const file = join(dir, 'foreign.parquet');
    await parquetWriteFile({
      filename: file,
      columnData: [
        { name: '_id', data: [1, 2, 3], type: 'INT32' },
        { name: 'big', data: [1n, 2n ** 40n, null], type: 'INT64' },
        { name: 'f', data: [2, 2.5, -0.5], type: 'DOUBLE' },
        { name: 'ok', data: [true, false, null], type: 'BOOLEAN' },
        { name: 'name', data: ['a', null, 'c'], type: 'STRING' },
        {
          name: 'at',
          data: [new Date(0), new Date('2024-05-06T07:08:09.010Z'), null],
          type: 'TIMESTAMP',
        },
        { name: 'id', data: ['0123456789abcdef0123456789abcdef', null, null], type: 'UUID' },
        { name: 'raw', data: [new Uint8Array([1, 2]), null, null], type: 'BYTE_ARRAY' },
        { name: 'j', data: [{ a: 1, b: [1.5, 'x'] }, null, null], type: 'JSON' },
      ],
    });
    const i = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      'foreign',
      '--type=parquet',
      file,
    ]);
    assert.equal(i.code, 0, i.stderr);
    assert.match(i.stderr, /3 document\(s\) imported successfully/);
    const docs = await t.client
      .db('dst')
      .collection('foreign')
      .find({}, { ...raw, sort: { _id: 1 } })
      .toArray();
    assert.deepEqual(
      docs.map((d) => sortedCanonical(d)),
      [
        {
          _id: new Int32(1),
          big: Long.fromNumber(1),
          f: new Double(2),
          ok: true,
          name: 'a',
          at: new Date(0),
          id: new UUID('0123456789abcdef0123456789abcdef'),
          raw: new Binary(Buffer.from([1, 2])),
          j: { a: new Int32(1), b: [new Double(1.5), 'x'] },
        },
        {
          _id: new Int32(2),
          big: Long.fromBigInt(2n ** 40n),
          f: new Double(2.5),
          ok: false,
          at: new Date('2024-05-06T07:08:09.010Z'),
        },
        { _id: new Int32(3), f: new Double(-0.5), name: 'c' },
      ].map((d) => sortedCanonical(d)),
    );
  });

  it('imports a Parquet file DuckDB wrote, lists and structs included (when @duckdb/node-api is installed)', async (ctx) => {
    const name = '@duckdb/node-api';
    let duck: DuckModule;
    try {
      duck = (await import(name)) as DuckModule;
    } catch {
      ctx.skip(
        '@duckdb/node-api is not installed: importing a DuckDB-written Parquet file not checked',
      );
      return;
    }
    const file = join(dir, 'from-duckdb.parquet');
    const instance = await duck.DuckDBInstance.create(':memory:');
    const con = await instance.connect();
    try {
      await con.runAndReadAll(
        `COPY (SELECT i AS _id, 'n' || i AS name, i * 1.5::DOUBLE AS x, [i, i + 1] AS list, ` +
          `{'a': i, 'b': 'z'} AS st, DATE '2024-01-01' + CAST(i AS INTEGER) AS day FROM range(3) t(i)) ` +
          `TO '${file.replace(/'/g, "''")}' (FORMAT parquet)`,
      );
    } finally {
      con.closeSync();
    }
    const i = await importTool(['--uri', t.uri, '-d', 'dst', '-c', 'duck', '--type=parquet', file]);
    assert.equal(i.code, 0, i.stderr);
    const docs = await t.client
      .db('dst')
      .collection('duck')
      .find({}, { ...raw, sort: { _id: 1 } })
      .toArray();
    assert.equal(docs.length, 3);
    assert.deepEqual(
      sortedCanonical(docs[2] as Document),
      sortedCanonical({
        _id: Long.fromNumber(2),
        name: 'n2',
        x: new Double(3),
        list: [Long.fromNumber(2), Long.fromNumber(3)],
        st: { a: Long.fromNumber(2), b: 'z' },
        day: new Date('2024-01-03T00:00:00Z'),
      }),
    );
  });

  it('Parquet to standard output and back from standard input, with progress bars on a terminal', async () => {
    const e = await exportTool(['--uri', t.uri, '-d', 'src', '-c', 'typed', '--type=parquet'], {
      tty: true,
    });
    assert.equal(e.code, 0, e.stderr);
    assert.equal(e.stdout.subarray(0, 4).toString(), 'PAR1');
    assert.equal(e.stdout.subarray(-4).toString(), 'PAR1');
    assert.match(e.stderr, /\[=+\] src\.typed {2}25\/25 documents {2}\(100%\)/);
    const i = await importTool(
      ['--uri', t.uri, '-d', 'dst', '-c', 'stdin_parquet', '--type=parquet'],
      {
        stdin: e.stdout,
        tty: true,
      },
    );
    assert.equal(i.code, 0, i.stderr);
    assert.match(i.stderr, /\[=+\] dst\.stdin_parquet {2}25\/25 documents {2}\(100%\)/);
    assert.deepEqual(
      await contents(t.client, 'dst', 'stdin_parquet'),
      await contents(t.client, 'src', 'typed'),
    );
    const file = join(dir, 'bar.json');
    await writeFile(file, '{"_id": 1}\n{"_id": 2}\n');
    const j = await importTool(['--uri', t.uri, '-d', 'dst', '-c', 'bar', file], { tty: true });
    assert.equal(j.code, 0, j.stderr);
    assert.match(j.stderr, /\[=+\] dst\.bar {2}22\/22 bytes {2}\(100%\)/);
  });

  it('a Parquet schema sampled from the first documents refuses a later one that does not fit', async () => {
    const db = t.client.db('src');
    await db.collection<AnyDocument>('drift').insertMany([
      { _id: 1, x: new Int32(1) },
      { _id: 2, x: 'text' },
    ]);
    const file = join(dir, 'drift.parquet');
    const e = await exportTool([
      '--uri',
      t.uri,
      '-d',
      'src',
      '-c',
      'drift',
      '--type=parquet',
      '--parquetSampleSize=1',
      '--out',
      file,
    ]);
    assert.equal(e.code, 1);
    assert.match(
      e.stderr,
      /Failed: document #2: field "x" is string, but its Parquet column was inferred as int/,
    );
    const all = await exportTool([
      '--uri',
      t.uri,
      '-d',
      'src',
      '-c',
      'drift',
      '--type=parquet',
      '--out',
      file,
      '-v',
    ]);
    assert.equal(all.code, 0, all.stderr);
    // the schema's read and the rows' read are one snapshot on SecantusDB
    assert.match(all.stderr, /inferred the Parquet schema from 2 documents/);
    assert.match(all.stderr, /the schema and the rows are read at one snapshot/);
  });

  it('CSV: --fields columns as mongoexport prints them, and back with --headerline', async () => {
    const db = t.client.db('src');
    await db.collection<AnyDocument>('people').insertMany([
      {
        _id: 1,
        name: 'Ada, Countess',
        age: new Int32(36),
        score: new Double(9.5),
        addr: { city: 'London' },
      },
      {
        _id: 2,
        name: 'Alan "Turing"',
        age: new Int32(41),
        big: Long.fromString('5000000000'),
        tags: ['a', 'b'],
      },
      {
        _id: 3,
        name: ' leading',
        oid: new ObjectId('64b7f0c2a1b2c3d4e5f60718'),
        when: new Date('2024-01-02T03:04:05.006Z'),
      },
    ]);
    const file = join(dir, 'people.csv');
    const e = await exportTool([
      '--uri',
      t.uri,
      '-d',
      'src',
      '-c',
      'people',
      '--type=csv',
      '--fields=_id,name,age,score,addr.city,big,tags,oid,when',
      '--out',
      file,
    ]);
    assert.equal(e.code, 0, e.stderr);
    assert.equal(
      await readFile(file, 'utf8'),
      [
        '_id,name,age,score,addr.city,big,tags,oid,when',
        '1,"Ada, Countess",36,9.5,London,,,,',
        '2,"Alan ""Turing""",41,,,5000000000,"[""a"",""b""]",,',
        '3," leading",,,,,,ObjectId(64b7f0c2a1b2c3d4e5f60718),2024-01-02T03:04:05.006Z',
        '',
      ].join('\n'),
    );
    const i = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      'people',
      '--type=csv',
      '--headerline',
      file,
    ]);
    assert.equal(i.code, 0, i.stderr);
    assert.match(
      i.stderr,
      /3 document\(s\) imported successfully. 0 document\(s\) failed to import./,
    );
    const back = await t.client
      .db('dst')
      .collection('people')
      .find({}, { ...raw, sort: { _id: 1 } })
      .toArray();
    assert.equal(back.length, 3);
    // numbers are typed as mongoimport types them; nested names make documents; blanks are ""
    assert.ok(back[0]?.['age'] instanceof Int32);
    assert.ok(back[0]?.['score'] instanceof Double);
    assert.deepEqual(back[0]?.['addr'], { city: 'London' });
    assert.ok(back[1]?.['big'] instanceof Long);
    assert.equal(back[1]?.['name'], 'Alan "Turing"');
    assert.equal(back[2]?.['age'], '');
  });

  it('TSV with --fields and --ignoreBlanks', async () => {
    const file = join(dir, 'rows.tsv');
    await writeFile(file, '1\tone\t\r\n2\t\t2.5\n3\tthree\t-7\textra\n');
    const i = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      'tsv',
      '--type=tsv',
      '--fields=_id,name,n',
      '--ignoreBlanks',
      file,
    ]);
    assert.equal(i.code, 0, i.stderr);
    const docs = await t.client
      .db('dst')
      .collection('tsv')
      .find({}, { sort: { _id: 1 } })
      .toArray();
    assert.deepEqual(docs, [
      { _id: 1, name: 'one' },
      { _id: 2, n: 2.5 },
      { _id: 3, name: 'three', n: -7, field3: 'extra' },
    ]);
    const fromStdin = await importTool(
      [
        '--uri',
        t.uri,
        '-d',
        'dst',
        '-c',
        'tsv_stdin',
        '--type=tsv',
        '--fields=_id,name,n',
        '--ignoreBlanks',
      ],
      { stdin: await readFile(file) },
    );
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.deepEqual(
      await t.client
        .db('dst')
        .collection('tsv_stdin')
        .find({}, { sort: { _id: 1 } })
        .toArray(),
      docs,
    );
  });

  it('--mode upsert, merge and delete, by --upsertFields', async () => {
    const coll = t.client.db('dst').collection<AnyDocument>('modes');
    await coll.insertMany([
      { _id: 1, k: 'a', x: 1, keep: true },
      { _id: 2, k: 'b', x: 2, keep: true },
    ]);
    const file = join(dir, 'modes.json');
    await writeFile(file, '{"k": "a", "x": 10}\n{"k": "c", "x": 30}\n');
    const up = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      'modes',
      '--mode=upsert',
      '--upsertFields=k',
      file,
    ]);
    assert.equal(up.code, 0, up.stderr);
    assert.deepEqual(
      await coll.findOne({ k: 'a' }, { projection: { _id: 1, k: 1, x: 1, keep: 1 } }),
      { _id: 1, k: 'a', x: 10 },
    );
    assert.equal(await coll.countDocuments({ k: 'c' }), 1);
    await writeFile(file, '{"_id": 2, "x": 20}\n');
    const merge = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      'modes',
      '--mode=merge',
      file,
    ]);
    assert.equal(merge.code, 0, merge.stderr);
    assert.deepEqual(await coll.findOne({ _id: 2 }), { _id: 2, k: 'b', x: 20, keep: true });
    await writeFile(file, '{"_id": 2}\n{"_id": 99}\n');
    const del = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      'modes',
      '--mode=delete',
      file,
    ]);
    assert.equal(del.code, 0, del.stderr);
    assert.match(
      del.stderr,
      /1 document\(s\) deleted successfully. 0 document\(s\) failed to delete./,
    );
    assert.equal(await coll.countDocuments({ _id: 2 }), 0);
  });

  it('duplicate keys are counted and skipped, or stop the import with --stopOnError; --drop empties first', async () => {
    const file = join(dir, 'dups.json');
    await writeFile(file, '{"_id": 1}\n{"_id": 1}\n{"_id": 2}\n');
    const i = await importTool(['--uri', t.uri, '-d', 'dst', '-c', 'dups', file]);
    assert.equal(i.code, 0, i.stderr);
    assert.match(
      i.stderr,
      /2 document\(s\) imported successfully. 1 document\(s\) failed to import./,
    );
    const s = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      'dups',
      '--stopOnError',
      '--maintainInsertionOrder',
      file,
    ]);
    assert.equal(s.code, 1);
    assert.match(s.stderr, /Failed: .*E11000 duplicate key error/);
    const d = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      'dups',
      '--drop',
      '-j',
      '4',
      file,
    ]);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stderr, /dropping: `dst.dups`/);
    assert.equal(await t.client.db('dst').collection('dups').countDocuments(), 2);
  });

  it('exports with --query, --sort, --skip, --limit and --fields', async () => {
    const e = await exportTool([
      '--uri',
      t.uri,
      '-d',
      'src',
      '-c',
      'typed',
      '--query',
      '{"i32": {"$gte": 0}}',
      '--sort',
      '{"i32": -1}',
      '--skip',
      '1',
      '--limit',
      '2',
      '--fields',
      's,i32',
    ]);
    assert.equal(e.code, 0, e.stderr);
    const lines = e.stdout
      .toString()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Document);
    assert.deepEqual(
      lines.map((d) => [d['s'], d['i32'], Object.keys(d).sort().join(',')]),
      [
        ['row 23', 11, '_id,i32,s'],
        ['row 22', 10, '_id,i32,s'],
      ],
    );
    assert.match(e.stderr, /exported 2 records/);
  });

  // Parquet's two reads run at one snapshot, so the driver sends readConcern snapshot on their
  // getMores too: a collection larger than one batch needs them answered.
  it('exports to Parquet a collection larger than one batch', async () => {
    const n = limits.dumpCursorBatchDocs + 500;
    const coll = t.client.db('src').collection<AnyDocument>('many');
    await coll.insertMany(Array.from({ length: n }, (_, i) => ({ _id: i, v: i % 7 })));
    const file = join(dir, 'many.parquet');
    const e = await exportTool([
      '--uri',
      t.uri,
      '-d',
      'src',
      '-c',
      'many',
      '--type=parquet',
      '--out',
      file,
    ]);
    assert.equal(e.code, 0, e.stderr);
    assert.match(e.stderr, new RegExp(`exported ${n} records`));
    const meta = await parquetMetadataAsync(await asyncBufferFromFile(file));
    assert.equal(meta.num_rows, BigInt(n));
  });

  it('exports what an aggregation pipeline returns, to JSON and to Parquet and back', async () => {
    const pipeline = JSON.stringify([
      { $match: { i32: { $gte: 0 } } },
      { $group: { _id: { $mod: ['$i32', 3] }, n: { $sum: 1 }, top: { $max: '$d' } } },
      { $sort: { _id: 1 } },
    ]);
    const base = ['--uri', t.uri, '-d', 'src', '-c', 'typed', '--pipeline', pipeline];
    const e = await exportTool([...base, '--limit', '2', '--fields', 'n']);
    assert.equal(e.code, 0, e.stderr);
    assert.deepEqual(
      e.stdout
        .toString()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Document),
      [
        { _id: 0, n: 5 },
        { _id: 1, n: 4 },
      ],
    );
    // The same pipeline into a Parquet file (schema and rows read at one snapshot), then
    // imported: the groups the server computed, with their types.
    const file = join(dir, 'pipeline.parquet');
    const p = await exportTool([...base, '--type=parquet', '--out', file]);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stderr, /exported 3 records/);
    const i = await importTool([
      '--uri',
      t.uri,
      '-d',
      'dst',
      '-c',
      'groups',
      '--type=parquet',
      file,
    ]);
    assert.equal(i.code, 0, i.stderr);
    const want = await t.client
      .db('src')
      .collection('typed')
      .aggregate(JSON.parse(pipeline) as Document[])
      .toArray();
    assert.deepEqual(
      await t.client.db('dst').collection('groups').find().sort({ _id: 1 }).toArray(),
      want,
    );
  });
});

describe('secantus-export / secantus-import: bad input', () => {
  let t: TestServer;
  let dir: string;

  before(async () => {
    t = await startTestServer();
    dir = await mkdtemp(join(tmpdir(), 'secantus-import-bad-'));
  });

  after(async () => {
    await t.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('an unknown flag', async () => {
    for (const tool of [exportTool, importTool]) {
      const r = await tool(['--uri', t.uri, '-c', 'x', '--frobnicate']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /error parsing command line options: Unknown option '--frobnicate'/);
      assert.match(r.stderr, /try 'secantus-(export|import) --help' for more information/);
    }
  });

  it('a bad --type', async () => {
    const e = await exportTool(['--uri', t.uri, '-c', 'x', '--type=xml']);
    assert.equal(e.code, 1);
    assert.match(e.stderr, /invalid output type 'xml', choose 'json', 'csv' or 'parquet'/);
    const i = await importTool(['--uri', t.uri, '-c', 'x', '--type=xml']);
    assert.equal(i.code, 1);
    assert.match(i.stderr, /error validating settings: unknown type xml/);
  });

  it("option checks as mongoimport's and mongoexport's, before connecting", async () => {
    // A port nothing listens on: each check must fail before any connection is tried.
    const uri = 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200';
    const cases: Array<[typeof importTool, string[], RegExp]> = [
      [
        importTool,
        ['--mode=bogus'],
        /Invalid value `bogus' for option `--mode'. Allowed values are: insert, upsert, merge or delete/,
      ],
      [
        importTool,
        ['--mode=insert', '--upsertFields=a'],
        /error validating settings: cannot use --upsertFields with --mode=insert/,
      ],
      [
        importTool,
        ['--headerline'],
        /error validating settings: cannot use --headerline when input type is JSON/,
      ],
      [
        importTool,
        ['--type=csv', '--headerline', '--fields=a'],
        /incompatible options: --fields and --headerline/,
      ],
      [
        importTool,
        ['--type=csv', '--fields=a,a.b'],
        /error validating settings: fields `a` and `a.b` are incompatible/,
      ],
      [
        importTool,
        ['--upsertFields=$x'],
        /invalid --upsertFields argument: field `\$x` cannot start with a '\$'/,
      ],
      [
        importTool,
        ['-j', 'many'],
        /invalid argument for flag `-j, --numInsertionWorkers' \(expected int\)/,
      ],
      [
        importTool,
        ['--type=parquet', '--jsonArray'],
        /cannot use --jsonArray when input type is Parquet/,
      ],
      [
        importTool,
        ['a.json', 'b.json'],
        /provide only one file name and only one MongoDB connection string/,
      ],
      [exportTool, ['--limit=ten'], /invalid argument for flag `--limit' \(expected int64\)/],
      [
        exportTool,
        ['--query={}', '--queryFile=q.json'],
        /either --query or --queryFile can be specified as a query option/,
      ],
      [exportTool, ['--parquetSampleSize=5'], /--parquetSampleSize applies to --type=parquet only/],
      [exportTool, ['--type=parquet', '--jsonArray'], /--jsonArray applies to --type=json only/],
      [exportTool, ['--pipeline={"$match": {}}'], /pipeline .* is not a JSON array of stages/],
      [exportTool, ['--pipeline=[1]'], /pipeline stage 0 is not a JSON object/],
      [exportTool, ['--pipeline=[{"$match": }]'], /pipeline .* is not valid JSON/],
      [
        exportTool,
        ['--pipeline=[{"$match": {}}, {"$out": "copy"}]'],
        /pipeline stage 1 is \$out: an export writes nothing to the server/,
      ],
      [
        exportTool,
        ['--pipeline=[]', '--query={}'],
        /--query cannot be used with --pipeline: put it in the pipeline/,
      ],
      [
        exportTool,
        ['--pipeline=[]', '--pipelineFile=p.json'],
        /either --pipeline or --pipelineFile can be specified/,
      ],
    ];
    for (const [tool, args, expected] of cases) {
      const r = await tool(['--uri', uri, '-c', 'x', ...args]);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, expected, args.join(' '));
      assert.doesNotMatch(r.stderr, /connected to/);
    }
    const noCollection = await exportTool(['--uri', uri]);
    assert.equal(noCollection.code, 1);
    assert.match(noCollection.stderr, /must specify a collection/);
  });

  it('CSV without --fields', async () => {
    const e = await exportTool(['--uri', t.uri, '-c', 'x', '--type=csv']);
    assert.equal(e.code, 1);
    assert.match(e.stderr, /CSV mode requires a field list/);
    const i = await importTool(['--uri', t.uri, '-c', 'x', '--type=csv']);
    assert.equal(i.code, 1);
    assert.match(
      i.stderr,
      /error validating settings: must specify --fields, --fieldFile or --headerline to import this file type/,
    );
  });

  it('a malformed JSON line stops the import at that document and line; what came before is written', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, '{"_id": 1}\n{"_id": 2}\n{"_id": 3,, "x": 1}\n{"_id": 4}\n');
    const i = await importTool(['--uri', t.uri, '-d', 'bad', '-c', 'lines', file]);
    assert.equal(i.code, 1);
    assert.match(
      i.stderr,
      /Failed: error processing document #3 \(line 3\): invalid character ',' looking for beginning of object key string/,
    );
    assert.match(
      i.stderr,
      /2 document\(s\) imported successfully. 0 document\(s\) failed to import./,
    );
    assert.equal(await t.client.db('bad').collection('lines').countDocuments(), 2);
  });

  it('bad Extended JSON, an unterminated document, a JSON array without --jsonArray', async () => {
    const cases: Array<[string, string[], RegExp]> = [
      ['{"_id": {"$oid": "nothex"}}\n', [], /error processing document #1 \(line 1\): .*/],
      [
        '{"_id": 1}\n\n{"_id": 2',
        [],
        /error processing document #2 \(line 3\): unexpected end of JSON input/,
      ],
      [
        '[{"_id": 1}]',
        [],
        /error processing document #1 \(line 1\): invalid character '\[' looking for beginning of object \(the input is a JSON array: use --jsonArray\)/,
      ],
      [
        '{"_id": 1}',
        ['--jsonArray'],
        /bad JSON array format - found no opening bracket '\[' in input source/,
      ],
      [
        '[{"_id": 1}',
        ['--jsonArray'],
        /bad JSON array format - found no closing bracket '\]' in input source/,
      ],
      [
        '{"_id": 1} x',
        [],
        /error processing document #2 \(line 1\): invalid character 'x' looking for beginning of object/,
      ],
    ];
    for (const [text, args, expected] of cases) {
      const file = join(dir, 'case.json');
      await writeFile(file, text);
      const i = await importTool(['--uri', t.uri, '-d', 'bad', '-c', 'cases', ...args, file]);
      assert.equal(i.code, 1, text);
      assert.match(i.stderr, expected, text);
      assert.match(i.stderr, /Failed: /);
    }
  });

  it('a bad --query, --jsonFormat, a missing collection with --assertExists, a missing file, not a Parquet file', async () => {
    const q = await exportTool(['--uri', t.uri, '-c', 'x', '--query', '{"a": }']);
    assert.equal(q.code, 1);
    assert.match(
      q.stderr,
      /query '\{"a": \}' is not valid JSON: invalid character '\}' looking for beginning of value/,
    );
    const f = await exportTool(['--uri', t.uri, '-c', 'x', '--jsonFormat=loose']);
    assert.equal(f.code, 1);
    assert.match(f.stderr, /invalid JSON format 'loose', choose 'relaxed' or 'canonical'/);
    const a = await exportTool(['--uri', t.uri, '-c', 'nothere', '--assertExists']);
    assert.equal(a.code, 1);
    assert.match(a.stderr, /Failed: collection `nothere` does not exist/);
    const m = await importTool(['--uri', t.uri, '-c', 'x', join(dir, 'missing.json')]);
    assert.equal(m.code, 1);
    assert.match(m.stderr, /Failed: open .*missing.json: no such file or directory/);
    const notParquet = join(dir, 'plain.parquet');
    await writeFile(notParquet, 'not parquet at all');
    const p = await importTool(['--uri', t.uri, '-c', 'x', '--type=parquet', notParquet]);
    assert.equal(p.code, 1);
    assert.match(p.stderr, /Failed: not a Parquet file/);
  });

  it('a CSV record with a bare quote names its entry', async () => {
    const file = join(dir, 'bad.csv');
    await writeFile(file, 'a,b\n1,2\n3,x"y\n');
    const i = await importTool([
      '--uri',
      t.uri,
      '-d',
      'bad',
      '-c',
      'csv',
      '--type=csv',
      '--headerline',
      file,
    ]);
    assert.equal(i.code, 1);
    assert.match(i.stderr, /Failed: read error on entry #2 \(line 3\): /);
  });
});
