// The update corpus (test/unit/update/corpus) through a real server and the official driver.
// Every case runs twice, each time on its own database:
//
// - as an `update` command (updateOne, updateMany for `multi`, replaceOne for replacements,
//   with `upsert` for upserts): the stored document is read back with promoteValues: false and
//   compared as BSON bytes (field order and numeric types), and `modifiedCount` (or, for an
//   upsert, `upsertedCount` and `upsertedId`) with the case's `modified`; an error case must
//   answer mongod's code (and contain mongod's message when the corpus states it) and leave
//   the stored document as it was;
// - as a `findAndModify` (findOneAndUpdate / findOneAndReplace with returnDocument: 'after'):
//   the returned document, or the error code.
//
// Expectations come from the corpus (sourced from mongod's jstests, the manual and mongod's
// source), never from this server. Only what a real clock and a real _id generator decide is
// substituted: the corpus's fixed NOW (for $currentDate) matches any date taken during the
// run, its fixed next cluster Timestamp any timestamp of the run, and its generated _id any
// ObjectId.
//
// Batching: documents are stored in a few collections (distinct `_id`s per collection, one
// insertMany each) and all statements run concurrently, so the whole corpus costs a few round
// trips per case. A case whose query does not pin its document's `_id`, and every upsert,
// gets a collection of its own. When a driver helper refuses a case on the client (updateOne
// requires operators, replaceOne refuses them), the same statement is sent as the plain
// command through the same driver. Cases the driver cannot express are skipped with the
// reason (see skipReason).

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EJSON, ObjectId, Timestamp } from 'bson';
import { MongoServerError } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { decodeDocument } from '../../src/bson/codec.js';
import { compareBson } from '../../src/bson/compare.js';
import type { BsonDocument, BsonValue } from '../../src/bson/types.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { assertSameBson } from '../unit/update/bson-assert.js';
import { corpus, isErrorExpectation, NEXT_TS, NOW } from '../unit/update/corpus/index.js';
import type { UpdateCase } from '../unit/update/corpus/index.js';
import { shell, shellDoc } from '../unit/update/values.js';

/** The `_id` the unit runner generates for upserts; any ObjectId from the server stands for it. */
const GENERATED_ID = new ObjectId('000000000000000000000001');

/**
 * The corpus gives the array position the query reports (mongod's elemMatchKey) for a few
 * cases without writing the query; the driver needs a query, so here is one that matches the
 * element at that position (and only the case's document).
 */
const POSITIONAL_QUERIES: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ['$ and the same explicit index conflict', { _id: 1, a: 2 }],
  ['$ and another explicit index both apply', { _id: 1, a: 1 }],
  ['$.x and explicit index.y merge on the same element', { _id: 1, 'a.x': 2 }],
  ['$unset with $ sets the element to null', { _id: 1, a: 2 }],
  ['$ and $[] together', { _id: 1, 'a.b': 3 }],
]);

/** Cases whose expectation describes the update layer without the server around it. */
const UNIT_ONLY: ReadonlyMap<string, string> = new Map([
  [
    'pipeline updates are not implemented here yet',
    'the expectation (NotImplemented) is the update layer without its pipeline hook; the server runs pipeline updates (test/unit/pipeline/update-pipeline.test.ts)',
  ],
]);

/**
 * Cases the server fails outside the query and update layers (the command layer), reported
 * to its owner; they run as TODO so that the run shows them without failing the suite.
 */
const KNOWN_COMMAND_LAYER_BUGS: ReadonlyMap<string, string> = new Map();

function hasUndefined(v: unknown): boolean {
  if (v === undefined) return true;
  if (Array.isArray(v)) return v.some(hasUndefined);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return Object.values(v).some(hasUndefined);
  return false;
}

function skipReason(c: UpdateCase, via: 'update' | 'findAndModify'): string | undefined {
  const unitOnly = UNIT_ONLY.get(c.name);
  if (unitOnly !== undefined) return unitOnly;
  for (const part of [c.doc, c.update, c.query, c.arrayFilters]) {
    if (part !== undefined && hasUndefined(part))
      return 'holds undefined, which the driver sends as null';
  }
  if (c.positional !== undefined && c.query === undefined && !POSITIONAL_QUERIES.has(c.name)) {
    return `the position ${c.positional} it gives the positional operator is past the end of the array, which no query can report`;
  }
  if (via === 'findAndModify' && c.multi === true) return 'findAndModify has no multi';
  return undefined;
}

const show = (v: unknown): string => EJSON.stringify(v as Document, { relaxed: false });
const sameValue = (a: unknown, b: unknown): boolean =>
  compareBson((a ?? null) as BsonValue, (b ?? null) as BsonValue) === 0;

interface Outcome {
  readonly error?: { readonly code: number; readonly message: string };
  /** update: matched/modified/upserted counts; findAndModify: the returned document. */
  readonly matched?: number;
  readonly modified?: number;
  readonly upserted?: number;
  readonly upsertedId?: unknown;
  readonly returned?: Document | null;
  /** The statement went as a plain command because a driver helper refused it. */
  readonly viaCommand: boolean;
}

interface Planned {
  readonly group: string;
  readonly c: UpdateCase;
  readonly skip?: string;
  readonly collection: string;
  readonly query: Document;
  readonly update: Document | Document[];
  readonly replacement: boolean;
  readonly stored?: BsonDocument;
  outcome?: Outcome;
  /** The documents of the case's collection after the statement (for upserts, all of them). */
  after?: Document[];
}

function isReplacement(update: unknown): boolean {
  if (Array.isArray(update)) return false;
  const first = Object.keys(update as object)[0];
  return first === undefined || !first.startsWith('$');
}

/** Whether the query names the case's own `_id`, so the document can share a collection. */
function pinned(query: Document, stored: BsonDocument): boolean {
  return (
    Object.prototype.hasOwnProperty.call(query, '_id') && sameValue(query['_id'], stored['_id'])
  );
}

function plan(via: 'update' | 'findAndModify'): Planned[] {
  const bins: BsonDocument[][] = [];
  const out: Planned[] = [];
  let own = 0;
  for (const [group, cases] of corpus) {
    for (const c of cases) {
      const skip = skipReason(c, via);
      const update = shell(c.update) as Document | Document[];
      const replacement = isReplacement(c.update);
      if (skip !== undefined) {
        out.push({ group, c, skip, collection: '', query: {}, update, replacement });
        continue;
      }
      if (c.upsert === true) {
        out.push({
          group,
          c,
          collection: `own${own++}`,
          query: shellDoc(c.query ?? {}),
          update,
          replacement,
        });
        continue;
      }
      const stored = shellDoc(c.doc);
      const query = shellDoc(c.query ?? POSITIONAL_QUERIES.get(c.name) ?? { _id: stored['_id'] });
      let collection: string;
      if (!pinned(query, stored)) {
        collection = `own${own++}`;
      } else {
        let bin = bins.findIndex((docs) => !docs.some((d) => sameValue(d['_id'], stored['_id'])));
        if (bin < 0) bin = bins.push([]) - 1;
        bins[bin]?.push(stored);
        collection = `bin${bin}`;
      }
      out.push({ group, c, collection, query, update, replacement, stored });
    }
  }
  return out;
}

/** A driver error that is not the server's answer: the helper refused the arguments. */
function refusedByDriver(e: unknown): boolean {
  return e instanceof Error && !(e instanceof MongoServerError);
}

function serverError(e: unknown): { code: number; message: string } {
  if (e instanceof MongoServerError) return { code: Number(e.code), message: e.message };
  throw e;
}

async function runUpdate(db: Db, p: Planned): Promise<Outcome> {
  const coll = db.collection(p.collection);
  const upsert = p.c.upsert === true;
  const options = {
    upsert,
    ...(p.c.arrayFilters === undefined
      ? {}
      : { arrayFilters: p.c.arrayFilters.map(shellDoc) as Document[] }),
  };
  try {
    const r =
      p.c.multi === true
        ? await coll.updateMany(p.query, p.update, options)
        : p.replacement
          ? await coll.replaceOne(p.query, p.update as Document, { upsert })
          : await coll.updateOne(p.query, p.update, options);
    return {
      matched: r.matchedCount,
      modified: r.modifiedCount,
      upserted: r.upsertedCount,
      upsertedId: r.upsertedId,
      viaCommand: false,
    };
  } catch (e) {
    if (!refusedByDriver(e)) return { error: serverError(e), viaCommand: false };
  }
  // The plain command, as the helper would have sent it had it not refused.
  const statement: Document = { q: p.query, u: p.update, upsert, multi: p.c.multi === true };
  if (p.c.arrayFilters !== undefined) statement['arrayFilters'] = p.c.arrayFilters.map(shellDoc);
  try {
    const reply = await db.command({ update: p.collection, updates: [statement] });
    const writeErrors = reply['writeErrors'] as Array<{ code: number; errmsg: string }> | undefined;
    const first = writeErrors?.[0];
    if (first !== undefined)
      return { error: { code: Number(first.code), message: first.errmsg }, viaCommand: true };
    const upserted = reply['upserted'] as Array<{ _id: unknown }> | undefined;
    const n = Number(reply['n']);
    return {
      matched: upserted === undefined ? n : 0,
      modified: Number(reply['nModified']),
      upserted: upserted?.length ?? 0,
      upsertedId: upserted?.[0]?._id ?? null,
      viaCommand: true,
    };
  } catch (e) {
    return { error: serverError(e), viaCommand: true };
  }
}

async function runFindAndModify(db: Db, p: Planned): Promise<Outcome> {
  const coll = db.collection(p.collection);
  const upsert = p.c.upsert === true;
  // Raw replies, decoded by the server's codec: the driver would turn a document holding
  // $ref and $id into its DBRef class, which reorders the fields.
  const common = {
    upsert,
    returnDocument: 'after' as const,
    includeResultMetadata: true as const,
    raw: true,
  };
  try {
    const r = p.replacement
      ? await coll.findOneAndReplace(p.query, p.update as Document, common)
      : await coll.findOneAndUpdate(p.query, p.update, {
          ...common,
          ...(p.c.arrayFilters === undefined
            ? {}
            : { arrayFilters: p.c.arrayFilters.map(shellDoc) as Document[] }),
        });
    return { returned: fromRaw(r.value), viaCommand: false };
  } catch (e) {
    if (!refusedByDriver(e)) return { error: serverError(e), viaCommand: false };
  }
  const command: Document = {
    findAndModify: p.collection,
    query: p.query,
    update: p.update,
    upsert,
    new: true,
  };
  if (p.c.arrayFilters !== undefined) command['arrayFilters'] = p.c.arrayFilters.map(shellDoc);
  try {
    const reply = fromRaw(await db.command(command, { raw: true })) ?? {};
    return { returned: (reply['value'] as Document | null) ?? null, viaCommand: true };
  } catch (e) {
    return { error: serverError(e), viaCommand: true };
  }
}

/** A raw reply or document (a Buffer) decoded as the server decodes documents. */
function fromRaw(v: unknown): Document | null {
  return Buffer.isBuffer(v)
    ? (decodeDocument(v) as Document)
    : ((v as Document | null | undefined) ?? null);
}

/** The driver loads the bson package's CommonJS build, this file its ESM build: compare tags, not classes. */
function tagOf(v: unknown): string | undefined {
  return typeof v === 'object' && v !== null && '_bsontype' in v
    ? String((v as { _bsontype: unknown })._bsontype)
    : undefined;
}

/**
 * The expected document with the corpus's clock and _id placeholders replaced by what the
 * server chose, where that is of the right kind and within the run: dates between `from` and
 * `to`, timestamps whose seconds fall in that window, any ObjectId for the generated _id.
 */
function substitute(expected: unknown, actual: unknown, from: number, to: number): unknown {
  if (expected === NOW || (expected instanceof Date && expected.getTime() === NOW.getTime())) {
    return actual instanceof Date && actual.getTime() >= from && actual.getTime() <= to
      ? actual
      : expected;
  }
  if (expected instanceof Timestamp && expected.t === NEXT_TS.t && expected.i === NEXT_TS.i) {
    const ok =
      tagOf(actual) === 'Timestamp' &&
      (actual as Timestamp).t >= Math.floor(from / 1000) &&
      (actual as Timestamp).t <= Math.ceil(to / 1000) &&
      (actual as Timestamp).i >= 1;
    return ok ? actual : expected;
  }
  if (expected instanceof ObjectId && expected.equals(GENERATED_ID))
    return tagOf(actual) === 'ObjectId' ? actual : expected;
  if (Array.isArray(expected)) {
    return expected.map((v, i) =>
      substitute(v, Array.isArray(actual) ? actual[i] : undefined, from, to),
    );
  }
  if (
    expected !== null &&
    typeof expected === 'object' &&
    Object.getPrototypeOf(expected) === Object.prototype
  ) {
    const out: Record<string, unknown> = {};
    const a =
      actual !== null && typeof actual === 'object' ? (actual as Record<string, unknown>) : {};
    for (const k of Object.keys(expected)) {
      const v = substitute(
        (expected as Record<string, unknown>)[k],
        Object.prototype.hasOwnProperty.call(a, k) ? a[k] : undefined,
        from,
        to,
      );
      Object.defineProperty(out, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return expected;
}

interface Window {
  from: number;
  to: number;
}

function checkError(p: Planned, o: Outcome): void {
  const expect = p.c.expect;
  assert.ok(isErrorExpectation(expect));
  assert.ok(
    o.error !== undefined,
    `expected error ${expect.error}, got ${show(o)} (${p.c.source})`,
  );
  assert.equal(o.error.code, expect.error, `code (message: ${o.error.message}) (${p.c.source})`);
  if (typeof expect.message === 'string')
    assert.ok(
      o.error.message.includes(expect.message),
      `message "${o.error.message}" lacks "${expect.message}" (${p.c.source})`,
    );
  else if (expect.message !== undefined) assert.match(o.error.message, expect.message, p.c.source);
}

function expectedDoc(p: Planned, actual: Document | undefined, w: Window): BsonDocument {
  const expect = p.c.expect;
  assert.ok(!isErrorExpectation(expect));
  return substitute(shellDoc(expect.doc), actual, w.from, w.to) as BsonDocument;
}

function anyOrder(p: Planned): { anyFieldOrder: boolean } {
  const expect = p.c.expect;
  return { anyFieldOrder: !isErrorExpectation(expect) && expect.anyFieldOrder === true };
}

/** The read-back document of a case: the one with its `_id` (or the only one, for upserts). */
function storedAfter(p: Planned): Document | undefined {
  const docs = p.after ?? [];
  if (p.c.upsert === true) {
    assert.ok(docs.length <= 1, `an upsert left ${docs.length} documents: ${show(docs)}`);
    return docs[0];
  }
  return docs.find((d) => sameValue(d['_id'], p.stored?.['_id']));
}

let ts: TestServer;
const counts = { update: 0, findAndModify: 0, viaCommand: 0, skipped: 0 };

before(async () => {
  ts = await startTestServer();
});

after(async () => {
  await ts?.stop();
});

for (const via of ['update', 'findAndModify'] as const) {
  describe(`update corpus through the driver: ${via}`, () => {
    const planned = plan(via);
    const window: Window = { from: 0, to: 0 };

    before(async () => {
      const db = ts.client.db(`update_corpus_${via}`);
      const runnable = planned.filter((p) => p.skip === undefined);
      const byCollection = new Map<string, Planned[]>();
      for (const p of runnable)
        byCollection.set(p.collection, [...(byCollection.get(p.collection) ?? []), p]);
      await Promise.all(
        [...byCollection].map(async ([name, ps]) => {
          const docs = ps.flatMap((p) => (p.stored === undefined ? [] : [p.stored]));
          if (docs.length > 0) await db.collection(name).insertMany(docs);
        }),
      );
      window.from = Date.now();
      await Promise.all(
        runnable.map(async (p) => {
          p.outcome = via === 'update' ? await runUpdate(db, p) : await runFindAndModify(db, p);
        }),
      );
      window.to = Date.now();
      await Promise.all(
        [...byCollection].map(async ([name, ps]) => {
          const raw: unknown[] = await db.collection(name).find({}, { raw: true }).toArray();
          const docs = raw.map((d) => fromRaw(d) as Document);
          for (const p of ps) p.after = docs;
        }),
      );
    });

    for (const p of planned) {
      const todo = KNOWN_COMMAND_LAYER_BUGS.get(p.c.name);
      const options = p.skip !== undefined ? { skip: p.skip } : todo !== undefined ? { todo } : {};
      test(`${via}: ${p.group}: ${p.c.name}`, options, () => {
        const o = p.outcome;
        assert.ok(o !== undefined, 'the statement did not run');
        counts[via]++;
        if (o.viaCommand) counts.viaCommand++;
        const stored = storedAfter(p);
        if (isErrorExpectation(p.c.expect)) {
          checkError(p, o);
          // A failed statement leaves nothing behind.
          if (p.c.upsert === true)
            assert.equal(stored, undefined, `a failed upsert inserted ${show(stored)}`);
          else if (p.stored !== undefined && stored !== undefined)
            assertSameBson(
              stored as BsonDocument,
              p.stored,
              {},
              'the document after a failed update',
            );
          return;
        }
        assert.equal(o.error, undefined, `unexpected error ${show(o.error)} (${p.c.source})`);
        assert.ok(stored !== undefined, `no document after the ${via} (${p.c.source})`);
        assertSameBson(
          stored as BsonDocument,
          expectedDoc(p, stored, window),
          anyOrder(p),
          `stored document (${p.c.source})`,
        );
        const modified = p.c.expect.modified;
        if (via === 'findAndModify') {
          assert.ok(
            o.returned !== null && o.returned !== undefined,
            'findAndModify returned no document',
          );
          assertSameBson(
            o.returned as BsonDocument,
            expectedDoc(p, o.returned, window),
            anyOrder(p),
            `returned document (${p.c.source})`,
          );
          return;
        }
        if (p.c.upsert === true) {
          assert.equal(o.upserted, 1, `upsertedCount (${p.c.source})`);
          assert.equal(o.modified, 0, 'modifiedCount of an upsert');
          assert.ok(
            sameValue(o.upsertedId, stored['_id']),
            `upsertedId ${show(o.upsertedId)} vs stored ${show(stored['_id'])}`,
          );
        } else {
          assert.equal(o.matched, 1, 'matchedCount');
          assert.equal(o.modified, modified ? 1 : 0, `modifiedCount (${p.c.source})`);
        }
      });
      if (p.skip !== undefined) counts.skipped++;
    }
  });
}

describe('update corpus through the driver: coverage', () => {
  test('a non-trivial number of cases ran', (t) => {
    t.diagnostic(
      `update: ${counts.update}, findAndModify: ${counts.findAndModify}, sent as plain commands: ${counts.viaCommand}, skipped: ${counts.skipped}`,
    );
    assert.ok(counts.update >= 600, `only ${counts.update} cases ran as updates`);
    assert.ok(
      counts.findAndModify >= 600,
      `only ${counts.findAndModify} cases ran as findAndModify`,
    );
  });
});
