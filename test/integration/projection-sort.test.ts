// The projection and sort corpora (test/unit/query/corpus/projection.ts, sort.ts) through a
// real server and the official driver. Expected documents, orders and error codes come from
// the corpus (sourced from mongod's jstests, the manual and mongod's source), never from
// this server.
//
// - Projection: the case's input document is stored alone in its own collection, then
//   `find(filter, {projection})` must return exactly the expected document: same fields in
//   the same order, same BSON types (read with promoteValues: false, compared as bytes).
// - Sort: the case's documents are inserted in order, then `find({}, {sort})` and
//   `aggregate([{$sort}])` must return their `_id`s in the expected order (the corpus states
//   ties in insertion order).
// - Specifications the driver refuses on the client (it checks sort directions itself) are
//   sent as a plain `find` command through the same driver, so the server still answers
//   them. Error cases whose answer changes with the aggregation expression layer (expressions
//   are computed, find's $slice falls back to the $slice expression) are checked against what
//   mongod answers with it (the corpus's `withExpressions`).

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EJSON, serialize } from 'bson';
import { MongoServerError } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import {
  DEFAULT_ERROR_INPUT,
  projectionCases,
  projectionErrorCases,
} from '../unit/query/corpus/projection.js';
import { sortCases, sortErrorCases } from '../unit/query/corpus/sort.js';
import { bs, doc } from '../unit/query/corpus/values.js';

let ts: TestServer;
let db: Db;
const ran = { projection: 0, projectionErrors: 0, sort: 0, sortErrors: 0, viaCommand: 0 };

before(async () => {
  ts = await startTestServer();
  db = ts.client.db('projection_sort_corpus');
});

after(async () => {
  await ts?.stop();
});

const bytes = (d: Document): Buffer =>
  Buffer.from(serialize(d, { checkKeys: false, ignoreUndefined: false }));
const show = (v: unknown): string => EJSON.stringify(v as Document, { relaxed: false });

interface FindSpec {
  readonly filter?: Document;
  readonly projection?: Document;
  readonly sort?: Document;
}

/**
 * `collection.find(...)` through the driver; when the driver refuses the specification on the
 * client (not a server error), the same find as a plain command, so the server answers it.
 */
async function find(collection: string, spec: FindSpec): Promise<Document[]> {
  try {
    return await db
      .collection(collection)
      .find(spec.filter ?? {}, {
        promoteValues: false,
        ...(spec.projection === undefined ? {} : { projection: spec.projection }),
        ...(spec.sort === undefined ? {} : { sort: spec.sort }),
      })
      .toArray();
  } catch (e) {
    if (e instanceof MongoServerError) throw e;
    ran.viaCommand++;
    const reply = await db.command(
      {
        find: collection,
        filter: spec.filter ?? {},
        ...(spec.projection === undefined ? {} : { projection: spec.projection }),
        ...(spec.sort === undefined ? {} : { sort: spec.sort }),
      },
      { promoteValues: false },
    );
    const cursor = reply['cursor'] as { firstBatch: Document[]; id: unknown };
    return cursor.firstBatch;
  }
}

async function expectServerError(p: Promise<unknown>, code: number, source: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof MongoServerError, `not a server error: ${String(e)}`);
    // With promoteValues: false the driver leaves the reply's code an Int32.
    assert.equal(Number(e.code), code, `${e.message} (${source})`);
    return true;
  });
}

describe('projection corpus through the driver', () => {
  const cases = projectionCases.map((c, i) => ({ c, collection: `p${i}` }));
  const errors = projectionErrorCases.map((c, i) => ({ c, collection: `pe${i}` }));

  before(async () => {
    await Promise.all([
      ...cases.map(({ c, collection }) => db.collection(collection).insertOne(doc(c.input))),
      ...errors.map(({ c, collection }) =>
        db.collection(collection).insertOne(doc(c.input ?? DEFAULT_ERROR_INPUT)),
      ),
    ]);
  });

  for (const { c, collection } of cases) {
    test(`projection: ${c.name}`, async () => {
      const got = await find(collection, {
        filter: doc(c.filter ?? {}),
        projection: doc(c.projection),
      });
      ran.projection++;
      assert.equal(got.length, 1, `returned ${show(got)} (${c.source})`);
      const want = doc(c.expected);
      const one = got[0] as Document;
      assert.deepEqual(Object.keys(one), Object.keys(want), `fields of ${show(one)} (${c.source})`);
      assert.ok(bytes(one).equals(bytes(want)), `${show(one)} vs ${show(want)} (${c.source})`);
    });
  }

  // The server has the expression layer: where the corpus says what mongod answers with it, that stands.
  for (const { c, collection } of errors) {
    const withExpressions = c.withExpressions;
    test(`projection error: ${c.name}`, async () => {
      const run = find(collection, { filter: doc(c.filter ?? {}), projection: doc(c.projection) });
      if (withExpressions !== undefined && 'expected' in withExpressions) {
        const got = await run;
        assert.equal(got.length, 1, `returned ${show(got)} (${c.source})`);
        assert.ok(
          bytes(got[0] as Document).equals(bytes(doc(withExpressions.expected))),
          `${show(got)} vs ${show(withExpressions.expected)} (${c.source})`,
        );
        ran.projection++;
        return;
      }
      await expectServerError(run, withExpressions?.code ?? c.code, c.source);
      ran.projectionErrors++;
    });
  }
});

describe('sort corpus through the driver', () => {
  const cases = sortCases.map((c, i) => ({ c, collection: `s${i}` }));
  const errors = sortErrorCases.map((c, i) => ({ c, collection: `se${i}` }));

  before(async () => {
    await Promise.all([
      ...cases.map(({ c, collection }) =>
        db.collection(collection).insertMany(c.docs.map((d) => doc(d))),
      ),
      ...errors.map(({ c, collection }) =>
        db.collection(collection).insertMany(
          (
            c.docs ?? [
              { _id: 1, a: 1 },
              { _id: 2, a: 2 },
            ]
          ).map((d) => doc(d)),
        ),
      ),
    ]);
  });

  for (const { c, collection } of cases) {
    test(`sort and $sort: ${c.name}`, async () => {
      const sort = doc(c.sort);
      // The same order from find (the planner's SORT stage) and an aggregate $sort stage.
      const runs: Array<[string, Document[]]> = [
        ['find', await find(collection, { sort })],
        [
          'aggregate $sort',
          await db
            .collection(collection)
            .aggregate([{ $sort: sort }], { promoteValues: false })
            .toArray(),
        ],
      ];
      ran.sort++;
      for (const [how, got] of runs) {
        const ids = got.map((d) => d['_id'] as unknown);
        assert.equal(show(ids), show(c.expected.map(bs)), `${how} (${c.source})`);
      }
    });
  }

  for (const { c, collection } of errors) {
    test(`sort error: ${c.name}`, async () => {
      await expectServerError(find(collection, { sort: doc(c.sort) }), c.code, c.source);
      ran.sortErrors++;
    });
  }
});

describe('projection and sort corpora: coverage', () => {
  test('a non-trivial number of cases ran', (t) => {
    t.diagnostic(
      `projection: ${ran.projection} (+${ran.projectionErrors} errors), sort: ${ran.sort} (+${ran.sortErrors} errors), sent as plain find commands: ${ran.viaCommand}`,
    );
    assert.ok(ran.projection >= 70, `only ${ran.projection} projection cases ran`);
    assert.ok(
      ran.projectionErrors >= 30,
      `only ${ran.projectionErrors} projection error cases ran`,
    );
    assert.ok(ran.sort >= 15, `only ${ran.sort} sort cases ran`);
    assert.ok(ran.sortErrors >= 10, `only ${ran.sortErrors} sort error cases ran`);
  });
});
