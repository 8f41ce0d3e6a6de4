// The byte-level paths give the same bytes as decoding and encoding again. An insert's
// documents that come in an OP_MSG document sequence are stored as the bytes they arrived in
// (src/catalog/write-unit.ts), and so are those in an insert's command body (where drivers
// put them); other paths decode and encode again. On generated documents (every BSON type, nested, with and without `_id`, duplicate
// names, `__proto__` keys, the deprecated undefined type) both store byte-identical records
// and oplog entries, read here from the storage engine itself. A find sends stored documents
// as their bytes (src/query/exec/cursor.ts): its replies are byte-identical to aggregate's,
// which decodes and encodes. A find nothing looks inside (no filter, projection or sort) puts
// the records into its batches undecoded (src/query/exec/cursor.ts, storedBytesOf).
//
// Field names that are array indexes ("1", "10") are the one known difference: a decoded
// document is a JS object, which lists such keys first, so the decode/encode path moves them
// before the others; the stored wire bytes keep the client's order, as mongod does (an
// insert's documents keep their bytes in the body too). The generated names are renamed out
// of that form, and one test shows the difference.

import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { Binary, Int32, Long, Timestamp, serialize } from 'bson';
import { decodeDocument, encodeDocument } from '../../src/bson/codec.js';
import { prepareForInsert } from '../../src/catalog/validate-document.js';
import type { Document } from 'mongodb';
import { setOwn } from '../../src/bson/document.js';
import type { BsonDocument, BsonValue } from '../../src/bson/types.js';
import { MongoClient } from 'mongodb';
import { recordTableName } from '../../src/catalog/collection.js';
import { Server } from '../../src/server/server.js';
import { collectionUuid } from '../helpers/driver.js';
import { RawConnection, opMsgRaw } from '../helpers/wire-client.js';
import { bsonDocumentArb, bsonValueArb } from '../unit/bson/arbitraries.js';
import { filterArb } from '../unit/query/filter-arbitraries.js';

let server: Server;
let client: MongoClient;
let conn: RawConnection;

before(async () => {
  server = await Server.start({ port: 0 });
  client = await MongoClient.connect(`mongodb://127.0.0.1:${server.port}/?directConnection=true`);
  conn = await RawConnection.connect(server.port);
});

after(async () => {
  conn.close();
  await client.close();
  await server.stop();
});

// ---- building BSON byte by byte -------------------------------------------------------------

function cstring(s: string): Buffer {
  return Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])]);
}

function docOf(elements: readonly Buffer[]): Buffer {
  const body = Buffer.concat(elements);
  const out = Buffer.alloc(4 + body.length + 1);
  out.writeInt32LE(out.length, 0);
  body.copy(out, 4);
  return out;
}

/** The element bytes of `name: value` as the bson package encodes them. */
function element(name: string, value: BsonValue): Buffer {
  const single: BsonDocument = {};
  setOwn(single, name, value);
  const bytes = Buffer.from(serialize(single, { checkKeys: false, ignoreUndefined: false }));
  return bytes.subarray(4, bytes.length - 1);
}

/** An element of the deprecated undefined type (0x06), which the bson package never writes. */
function undefinedElement(name: string): Buffer {
  return Buffer.concat([Buffer.from([0x06]), cstring(name)]);
}

function stringElement(name: string, value: string): Buffer {
  const v = Buffer.from(value, 'utf8');
  const len = Buffer.alloc(4);
  len.writeInt32LE(v.length + 1, 0);
  return Buffer.concat([Buffer.from([0x02]), cstring(name), len, v, Buffer.from([0])]);
}

/** Bytes of an element's value of `type` at `at` (the bytes are valid BSON). */
function valueBytes(type: number, b: Buffer, at: number): number {
  switch (type) {
    case 0x01:
    case 0x09:
    case 0x11:
    case 0x12:
      return 8;
    case 0x02:
    case 0x0d:
    case 0x0e:
      return 4 + b.readInt32LE(at);
    case 0x03:
    case 0x04:
    case 0x0f:
      return b.readInt32LE(at);
    case 0x05:
      return 5 + b.readInt32LE(at);
    case 0x07:
      return 12;
    case 0x08:
      return 1;
    case 0x0b: {
      const p = b.indexOf(0, at);
      return b.indexOf(0, p + 1) + 1 - at;
    }
    case 0x0c:
      return 4 + b.readInt32LE(at) + 12;
    case 0x10:
      return 4;
    case 0x13:
      return 16;
    default:
      return 0;
  }
}

/** The elements of the document at `start`: [type, name, value offset, value length]. */
function* elementsOf(b: Buffer, start = 0): Generator<[number, string, number, number]> {
  const end = start + b.readInt32LE(start) - 1;
  let at = start + 4;
  while (at < end) {
    const type = b[at] as number;
    const nameEnd = b.indexOf(0, at + 1);
    const valueAt = nameEnd + 1;
    const size = valueBytes(type, b, valueAt);
    yield [type, b.toString('utf8', at + 1, nameEnd), valueAt, size];
    at = valueAt + size;
  }
}

const indexName = /^(0|[1-9][0-9]*)$/;

/**
 * The element (or document, `isDocument`) with every field name that is an array index
 * ("1", "10") in a document, at any depth, given a leading "n" instead: a copy.
 */
function renameIndexNames(bytes: Buffer, isDocument: boolean): Buffer {
  const doc = isDocument ? bytes : docOf([bytes]);
  const out = rewrite(doc, 0, false);
  return isDocument ? out : out.subarray(4, out.length - 1);
}

function rewrite(b: Buffer, start: number, isArray: boolean): Buffer {
  const parts: Buffer[] = [];
  for (const [type, name, valueAt, size] of elementsOf(b, start)) {
    const newName = !isArray && indexName.test(name) ? `n${name}` : name;
    let value = b.subarray(valueAt, valueAt + size);
    if (type === 0x03 || type === 0x04) value = rewrite(b, valueAt, type === 0x04);
    else if (type === 0x0f) {
      const codeBytes = 4 + b.readInt32LE(valueAt + 4);
      const scope = rewrite(b, valueAt + 4 + codeBytes, false);
      value = Buffer.alloc(4 + codeBytes + scope.length);
      value.writeInt32LE(value.length, 0);
      b.copy(value, 4, valueAt + 4, valueAt + 4 + codeBytes);
      scope.copy(value, 4 + codeBytes);
    }
    parts.push(Buffer.concat([Buffer.from([type]), cstring(newName), value]));
  }
  return docOf(parts);
}

/**
 * A generated document as raw elements: perhaps an `_id` (first, or where `idAt` says: a
 * driver appends the `_id` it generates after the other fields), duplicates, undefined.
 */
interface RawDoc {
  readonly elements: readonly Buffer[];
}

const rawDocArb: fc.Arbitrary<RawDoc> = fc
  .record({
    id: fc.option(bsonValueArb({ maxDepth: 1 }), { nil: undefined }),
    doc: bsonDocumentArb,
    duplicate: fc.boolean(),
    undefinedAt: fc.option(fc.nat(4), { nil: undefined }),
    idAt: fc.option(fc.nat(6), { nil: undefined }),
  })
  .map(({ id, doc, duplicate, undefinedAt, idAt }) => {
    const elements: Buffer[] = Object.entries(doc).map(([k, v]) =>
      renameIndexNames(element(k, v), false),
    );
    if (duplicate && elements.length > 0) elements.push(elements[0] as Buffer);
    if (undefinedAt !== undefined)
      elements.splice(Math.min(undefinedAt, elements.length), 0, undefinedElement('u'));
    if (id !== undefined)
      elements.splice(
        Math.min(idAt ?? 0, elements.length),
        0,
        renameIndexNames(element('_id', id), false),
      );
    return { elements };
  });

async function send(sections: Buffer): Promise<Document> {
  conn.send(opMsgRaw(sections));
  const reply = await conn.next();
  assert.equal(reply.kind, 'reply');
  return reply.kind === 'reply' ? reply.body : {};
}

/** insert with the documents in a document sequence (kept as bytes) or in the body. */
async function insertRaw(
  coll: string,
  docs: readonly Buffer[],
  inSequence: boolean,
  session: readonly Buffer[] = [],
) {
  const head = [
    stringElement('insert', coll),
    element('ordered', false),
    stringElement('$db', 'rawbytes'),
    ...session,
  ];
  if (inSequence) {
    const name = cstring('documents');
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + name.length + docs.reduce((n, d) => n + d.length, 0), 0);
    return send(
      Buffer.concat([Buffer.from([0]), docOf(head), Buffer.from([1]), size, name, ...docs]),
    );
  }
  const array = docOf(
    docs.map((d, i) => Buffer.concat([Buffer.from([0x03]), cstring(String(i)), d])),
  );
  const documents = Buffer.concat([Buffer.from([0x04]), cstring('documents'), array]);
  return send(Buffer.concat([Buffer.from([0]), docOf([...head, documents])]));
}

/** The collection's records and the `o` of its insert oplog entries, as stored. */
async function storedBytes(coll: string): Promise<{ records: Buffer[]; logged: Buffer[] }> {
  const uuid = (await collectionUuid(client.db('rawbytes'), coll)).toString('hex');
  const snapshot = server.services.engine.snapshot();
  try {
    const records = [...snapshot.scan(recordTableName(uuid))].map((e) => Buffer.from(e.value));
    const logged: Buffer[] = [];
    for (const { value } of snapshot.scan('oplog')) {
      const entry = Buffer.from(value);
      const fields = new Map([...elementsOf(entry)].map(([, n, at, size]) => [n, { at, size }]));
      const ui = fields.get('ui') ?? { at: 0, size: 0 };
      const o = fields.get('o') ?? { at: 0, size: 0 };
      // ui: binary (length 4, subtype 1, 16 bytes)
      const op = fields.get('op') ?? { at: 0, size: 0 };
      const isInsert = op.size === 6 && entry[op.at + 4] === 0x69; // "i"
      if (
        isInsert &&
        ui.size === 21 &&
        entry.subarray(ui.at + 5, ui.at + 21).toString('hex') === uuid
      )
        logged.push(entry.subarray(o.at, o.at + o.size));
    }
    return { records, logged };
  } finally {
    snapshot.release();
  }
}

/** Two stored versions of one document, the same but for an `_id` each insert generated. */
function assertSameStored(a: Buffer, b: Buffer): void {
  const generatedId = (d: Buffer) => d[4] === 0x07 && d.subarray(5, 9).equals(cstring('_id'));
  // length (4) + type (1) + "_id\0" (4) + ObjectId (12)
  if (generatedId(a) && generatedId(b) && !a.subarray(9, 21).equals(b.subarray(9, 21)))
    assert.deepEqual(
      Buffer.concat([a.subarray(0, 4), a.subarray(21)]),
      Buffer.concat([b.subarray(0, 4), b.subarray(21)]),
    );
  else assert.deepEqual(a, b);
}

let collections = 0;

test('documents stored from their wire bytes are byte-identical to decode and encode', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(rawDocArb, { minLength: 1, maxLength: 4 }), async (raws) => {
      const n = collections++;
      const docs = raws.map((r) => docOf(r.elements));
      const [seq, body] = [`seq${n}`, `body${n}`];
      // The collections exist first: a failed insert creates none.
      await client.db('rawbytes').createCollection(seq);
      await client.db('rawbytes').createCollection(body);
      const seqReply = await insertRaw(seq, docs, true);
      const bodyReply = await insertRaw(body, docs, false);
      assert.equal(seqReply['ok'], 1);
      assert.equal(seqReply['n'], bodyReply['n']);
      const codes = (r: Document) =>
        (r['writeErrors'] as Document[] | undefined)?.map((e) => [e['index'], e['code']]);
      assert.deepEqual(codes(seqReply), codes(bodyReply));
      const [a, b] = [await storedBytes(seq), await storedBytes(body)];
      assert.equal(a.records.length, seqReply['n']);
      assert.equal(b.records.length, bodyReply['n']);
      a.records.forEach((bytes, i) => assertSameStored(bytes, b.records[i] as Buffer));
      // Each oplog entry carries its record's bytes.
      assert.deepEqual(a.logged, a.records);
      assert.deepEqual(b.logged, b.records);
      // find sends the stored bytes (in its first batch and in getMore's); aggregate decodes
      // and encodes: the same bytes, which are the stored ones.
      for (const [c, stored] of [
        [seq, a],
        [body, b],
      ] as const) {
        const coll = client.db('rawbytes').collection(c);
        const found = (await coll.find({}, { raw: true, batchSize: 2 }).toArray()) as unknown[];
        const aggregated = (await coll
          .aggregate([{ $match: {} }], { raw: true })
          .toArray()) as unknown[];
        // A filter that matches all but reads each record makes find decode them.
        const decoded = (await coll
          .find({ absent: { $exists: false } }, { raw: true, batchSize: 2 })
          .toArray()) as unknown[];
        assert.deepEqual(found, aggregated);
        assert.deepEqual(found, decoded);
        assert.deepEqual(found, stored.records);
      }
    }),
    { numRuns: 25 },
  );
});

test('a document whose _id is not first is stored as decoding and encoding it would store it', async () => {
  // mongod stores `_id` first and the other fields in the client's order; the byte path moves
  // the `_id` element without encoding the rest again.
  await fc.assert(
    fc.asyncProperty(rawDocArb, fc.nat(6), async (raw, at) => {
      const n = collections++;
      const id = element('_id', new Int32(n));
      const plain = raw.elements.filter((e) => !e.subarray(1, 5).equals(cstring('_id')));
      const elements = [...plain];
      elements.splice(Math.min(at, elements.length), 0, id);
      const doc = docOf(elements);
      const name = `idat${n}`;
      await client.db('rawbytes').createCollection(name);
      const reply = await insertRaw(name, [doc], true);
      if (reply['n'] !== 1) return; // refused (a duplicate _id value cannot occur: one each)
      const [stored] = (await storedBytes(name)).records;
      const expected = Buffer.from(encodeDocument(prepareForInsert(decodeDocument(doc))));
      const duplicates = new Set(plain.map((e) => e.subarray(1, e.indexOf(0, 1)).toString()));
      // The decode/encode path differs where decoding loses something: repeated names.
      if (duplicates.size === plain.length) assert.deepEqual(stored, expected);
      assert.deepEqual((await storedBytes(name)).logged, [stored]);
    }),
    { numRuns: 40 },
  );
});

/** The insert oplog entries of a collection, as stored, in timestamp order. */
async function insertEntries(coll: string): Promise<Buffer[]> {
  const uuid = (await collectionUuid(client.db('rawbytes'), coll)).toString('hex');
  const snapshot = server.services.engine.snapshot();
  try {
    return [...snapshot.scan('oplog')]
      .map((e) => Buffer.from(e.value))
      .filter((entry) => {
        const d = decodeDocument(entry);
        return d['op'] === 'i' && (d['ui'] as Binary).toString('hex') === uuid;
      });
  } finally {
    snapshot.release();
  }
}

test('insert oplog entries written around the record bytes equal encoding the entry', async () => {
  // The entry's fields after `o` ({o2, ts, t, v, wall} and a retryable write's {lsid,
  // txnNumber, stmtId}) are written by hand (src/repl/oplog.ts, EntryStamp): they must be the
  // bytes the bson package gives for the same values, in mongod's order.
  let txnNumber = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(rawDocArb, { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      fc.boolean(),
      async (raws, inSequence, retryable) => {
        const name = `entries${collections++}`;
        await client.db('rawbytes').createCollection(name);
        const lsid = { id: new Binary(Buffer.from(`${name}`.padEnd(16, '-').slice(0, 16)), 4) };
        txnNumber += 1 + (txnNumber % 3) * 0x1_0000_0000; // beyond 32 bits too
        const session = retryable
          ? [element('lsid', lsid), element('txnNumber', Long.fromNumber(txnNumber))]
          : [];
        const wallFrom = Date.now();
        const reply = await insertRaw(
          name,
          raws.map((r) => docOf(r.elements)),
          inSequence,
          session,
        );
        const wallTo = Date.now();
        assert.equal(reply['ok'], 1);
        const failed = new Set(
          ((reply['writeErrors'] as Document[] | undefined) ?? []).map((e) => e['index']),
        );
        const stmtIds = raws.map((_, i) => i).filter((i) => !failed.has(i));
        const entries = await insertEntries(name);
        const records = (await storedBytes(name)).records;
        assert.equal(entries.length, stmtIds.length);
        let lastTs: Timestamp | undefined;
        entries.forEach((entry, k) => {
          const fields = [...elementsOf(entry)];
          const names = fields.map(([, n]) => n);
          assert.deepEqual(names, [
            'op',
            'ns',
            'ui',
            'o',
            'o2',
            'ts',
            't',
            'v',
            'wall',
            ...(retryable ? ['lsid', 'txnNumber', 'stmtId'] : []),
          ]);
          const [, , oAt, oSize] = fields[3] as [number, string, number, number];
          const o = entry.subarray(oAt, oAt + oSize);
          assert.deepEqual(o, records[k]);
          // Everything but `o`, decoded and encoded again by the bson package.
          const rest = docOf(
            fields
              .filter(([, n]) => n !== 'o')
              .map(([, n, at, size]) => {
                const nameAt = entry.lastIndexOf(cstring(n), at - 1);
                return entry.subarray(nameAt - 1, at + size);
              }),
          );
          const d = decodeDocument(rest);
          assert.deepEqual(rest, Buffer.from(encodeDocument(d)));
          // o2 is {_id} of the record; the stamp's values are the ones expected.
          assert.deepEqual(
            Buffer.from(encodeDocument(d['o2'] as BsonDocument)),
            Buffer.from(encodeDocument({ _id: decodeDocument(o)['_id'] ?? null })),
          );
          const ts = d['ts'] as Timestamp;
          assert.ok(ts instanceof Timestamp);
          if (lastTs !== undefined) assert.ok(ts.greaterThan(lastTs));
          lastTs = ts;
          assert.ok(Math.abs(ts.t - Math.floor(wallFrom / 1000)) <= 1 + (wallTo - wallFrom) / 1000);
          assert.deepEqual(d['t'], Long.fromInt(1));
          assert.deepEqual(d['v'], Long.fromInt(2));
          const wall = (d['wall'] as Date).getTime();
          assert.ok(wall >= wallFrom && wall <= wallTo, `wall ${wall} in [${wallFrom}, ${wallTo}]`);
          if (retryable) {
            assert.deepEqual(
              Buffer.from(encodeDocument(d['lsid'] as BsonDocument)),
              Buffer.from(encodeDocument(lsid)),
            );
            assert.deepEqual(d['txnNumber'], Long.fromNumber(txnNumber));
            assert.deepEqual(d['stmtId'], new Int32(stmtIds[k] as number));
          }
        });
      },
    ),
    { numRuns: 25 },
  );
});

/** A find's documents as raw bytes, or the code it failed with. */
async function findRaw(coll: string, filter: Document): Promise<unknown> {
  try {
    return await client
      .db('rawbytes')
      .collection(coll)
      .find(filter, { raw: true, batchSize: 2 })
      .toArray();
  } catch (e) {
    return { code: (e as { code?: unknown }).code };
  }
}

test('a filter matched on the fields it reads sends the same bytes as one that decodes', async () => {
  // find(filter) on records nothing decoded reads only the filter's top-level fields from
  // their bytes (src/query/exec/stages.ts, matchRecord) and sends a match as its stored
  // bytes; {$and: [filter, {$expr: true}]} may read anything, so it decodes each record.
  let compared = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(rawDocArb, { minLength: 1, maxLength: 6 }),
      fc.array(filterArb, { minLength: 4, maxLength: 8 }),
      async (raws, filters) => {
        const coll = `lazy${collections++}`;
        await client.db('rawbytes').createCollection(coll);
        await insertRaw(
          coll,
          raws.map((r) => docOf(r.elements)),
          true,
        );
        for (const filter of filters) {
          const lazy = await findRaw(coll, filter);
          assert.deepEqual(lazy, await findRaw(coll, { $and: [filter, { $expr: true }] }));
          if (Array.isArray(lazy)) compared++;
        }
      },
    ),
    { numRuns: 25 },
  );
  assert.ok(compared > 10, `only ${compared} filters were accepted`);
});

test('a stored wire document keeps array-index field names where the client put them', async () => {
  // {_id: 1, b: 1, "1": 1}: decoded, a JS object lists "1" first.
  const one = new Int32(1);
  const doc = docOf([element('_id', one), element('b', one), element('1', one)]);
  await client.db('rawbytes').createCollection('order-seq');
  await client.db('rawbytes').createCollection('order-body');
  await insertRaw('order-seq', [doc], true);
  await insertRaw('order-body', [doc], false);
  const names = async (c: string) =>
    [...elementsOf((await storedBytes(c)).records[0] ?? Buffer.alloc(5))].map(([, n]) => n);
  assert.deepEqual(await names('order-seq'), ['_id', 'b', '1']);
  // In the body too (as drivers send an insert's documents): they keep their bytes as well.
  assert.deepEqual(await names('order-body'), ['_id', 'b', '1']);
});

test('a DBRef-shaped document in a code-with-scope scope keeps its field order', async () => {
  // {_id: 1, c: Code('x', {a: {n: 1, $ref: 'coll', $id: 2}})}: the bson package decodes the
  // scope's subdocument as a DBRef, which would encode as {$ref, $id, n}.
  const scope = docOf([
    element('a', {
      n: new Int32(1),
      $ref: 'coll',
      $id: new Int32(2),
    } as unknown as BsonDocument),
  ]);
  const code = cstring('x');
  const value = Buffer.alloc(8 + code.length + scope.length);
  value.writeInt32LE(value.length, 0);
  value.writeInt32LE(code.length, 4);
  code.copy(value, 8);
  scope.copy(value, 8 + code.length);
  const doc = docOf([
    element('_id', new Int32(1)),
    Buffer.concat([Buffer.from([0x0f]), cstring('c'), value]),
  ]);
  for (const inSequence of [true, false]) {
    const name = `scope-${String(inSequence)}`;
    await client.db('rawbytes').createCollection(name);
    assert.equal((await insertRaw(name, [doc], inSequence))['n'], 1);
    assert.deepEqual((await storedBytes(name)).records, [doc]);
    const coll = client.db('rawbytes').collection(name);
    for (const sent of [
      await coll.find({}, { raw: true }).toArray(),
      await coll.find({ absent: { $exists: false } }, { raw: true }).toArray(),
      await coll.aggregate([{ $match: {} }], { raw: true }).toArray(),
    ])
      assert.deepEqual(sent as unknown[], [doc]);
  }
});

test('a repeated name whose first value has a field named like a prototype member', async () => {
  // {_id: 1, a: {constructor: 0}, a: {$ref: 'c', $id: 1}} was an InternalError (the DBRef
  // fix-up read the first `a`'s names in the last one's decoded value).
  const one = new Int32(1);
  const doc = docOf([
    element('_id', one),
    element('a', { constructor: new Int32(0) } as unknown as BsonDocument),
    element('a', { $ref: 'c', $id: one } as unknown as BsonDocument),
  ]);
  const stored: Buffer[] = [];
  for (const inSequence of [true, false]) {
    const name = `repeated-${String(inSequence)}`;
    await client.db('rawbytes').createCollection(name);
    const reply = await insertRaw(name, [doc], inSequence);
    assert.deepEqual([reply['ok'], reply['n'], reply['writeErrors']], [1, 1, undefined]);
    stored.push(...(await storedBytes(name)).records);
  }
  const kept = docOf([element('_id', one), element('a', { $ref: 'c', $id: one } as never)]);
  assert.deepEqual(stored, [kept, kept]);
});

test('undecoded records in a batch keep the batch byte cap and the decoding paths', async () => {
  const coll = client.db('rawbytes').collection<{ _id: number; pad: string }>('big');
  const pad = 'x'.repeat(6 * 1024 * 1024);
  await coll.insertMany([0, 1, 2].map((i) => ({ _id: i, pad })));
  // 3 × 6 MiB: the first batch stops before 16 MiB, whichever way the records go.
  for (const filter of [{}, { absent: { $exists: false } }]) {
    const reply = await client.db('rawbytes').command({ find: 'big', filter, batchSize: 10 });
    const cursor = reply['cursor'] as Document;
    assert.equal((cursor['firstBatch'] as Document[]).length, 2);
    assert.deepEqual(
      (cursor['firstBatch'] as Document[]).map((d) => d['_id']),
      [0, 1],
    );
    const more = await client
      .db('rawbytes')
      .command({ getMore: cursor['id'], collection: 'big', batchSize: 10 });
    assert.deepEqual(
      ((more['cursor'] as Document)['nextBatch'] as Document[]).map((d) => d['pad'] === pad),
      [true],
    );
  }
  // Whatever reshapes the documents still decodes them.
  const withId: Document[] = await coll
    .find({}, { showRecordId: true, projection: { pad: 0 } })
    .toArray();
  assert.deepEqual(
    withId.map((d) => [d['_id'], typeof d['$recordId']]),
    [
      [0, 'number'],
      [1, 'number'],
      [2, 'number'],
    ],
  );
  const sorted = await coll.find({}, { sort: { _id: -1 }, projection: { _id: 1 } }).toArray();
  assert.deepEqual(sorted, [{ _id: 2 }, { _id: 1 }, { _id: 0 }]);
});
