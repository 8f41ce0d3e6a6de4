// The matcher corpus (test/unit/query/corpus) through a real server and the official driver:
// each case's documents are inserted, `find(filter)` and `aggregate([{$match: filter}])` run,
// and the `_id`s that come back are compared with the ones mongod returns (taken from the
// corpus, which was sourced from mongod's jstests, the manual and mongod's source — never from
// this server). Error cases are compared by error code (and by mongod's message fragment where
// the corpus has one).
//
// Cases share a collection when they run on the same documents, so the documents are
// inserted once per distinct set. What the driver cannot express is skipped with the reason:
//
// - BSON `undefined` in a document: the driver serializes JavaScript `undefined` as null (the
//   server also stores BSON undefined as null, docs/compatibility.md). Matching is per
//   document, so those documents are left out of the case, and their `_id`s out of the
//   expectation; the rest of the case stands. A case whose expectation is only a count is
//   skipped instead, since the count cannot be adjusted.
// - `undefined` in a filter: the driver would send null, a different filter.
// - Expectations that describe the matcher without the server's hooks (`$expr` without the
//   aggregation layer) are the unit test's business.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EJSON } from 'bson';
import { MongoServerError } from 'mongodb';
import type { Collection, Db, Document } from 'mongodb';
import { compareBson } from '../../src/bson/compare.js';
import type { BsonValue } from '../../src/bson/types.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { allMatchCases, allMatchErrorCases } from '../unit/query/corpus/index.js';
import type { MatchCase } from '../unit/query/corpus/types.js';
import type { Literal } from '../unit/query/corpus/values.js';
import { bs, doc } from '../unit/query/corpus/values.js';

/** Error cases whose expectation is about the unit under test without the server around it. */
const UNIT_ONLY_ERRORS: ReadonlyMap<string, string> = new Map([
  [
    '$expr without the aggregation hook',
    'the expectation (NotImplemented) is the matcher without its $expr hook; the server wires $expr (test/integration/aggregate.test.ts)',
  ],
  [
    '$text',
    'the expectation (NotImplemented) is the matcher without its $text hook; the server wires $text (test/integration/text-search.test.ts: 27 without a text index)',
  ],
]);

/**
 * Cases the server fails outside the matcher (the command layer), reported to its owner; they
 * run as TODO so that the run shows them without failing the suite.
 */
const KNOWN_COMMAND_LAYER_BUGS: ReadonlyMap<string, string> = new Map();

function hasUndefined(v: unknown): boolean {
  if (v === undefined) return true;
  if (Array.isArray(v)) return v.some(hasUndefined);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return Object.values(v).some(hasUndefined);
  return false;
}

const key = (v: unknown): string => EJSON.stringify(v as Document, { relaxed: false });

interface Planned {
  readonly c: MatchCase;
  /** Why the case cannot run through the driver, or undefined. */
  readonly skip?: string;
  /** The documents the case runs on (without those the driver cannot send). */
  readonly docs: ReadonlyArray<{ [key: string]: Literal }>;
  readonly expected?: readonly Literal[];
  /** `_id`s of documents left out, for the test name. */
  readonly dropped: readonly Literal[];
  readonly collection: string;
}

function plan(cases: readonly MatchCase[]): Planned[] {
  const collections = new Map<string, string>();
  return cases.map((c) => {
    if (hasUndefined(c.filter))
      return {
        c,
        skip: 'the filter holds undefined, which the driver sends as null',
        docs: [],
        dropped: [],
        collection: '',
      };
    const kept = c.docs.filter((d) => !hasUndefined(d));
    const dropped = c.docs.filter((d) => hasUndefined(d)).map((d) => d['_id'] as Literal);
    if (dropped.length > 0 && c.expected === undefined) {
      return {
        c,
        skip: 'documents hold undefined (sent as null by the driver) and the expectation is only a count',
        docs: [],
        dropped,
        collection: '',
      };
    }
    const droppedKeys = new Set(dropped.map((id) => key(bs(id))));
    const expected = c.expected?.filter((id) => !droppedKeys.has(key(bs(id))));
    const docsKey = key(kept.map((d) => doc(d)));
    let collection = collections.get(docsKey);
    if (collection === undefined) {
      collection = `docs${collections.size}`;
      collections.set(docsKey, collection);
    }
    return expected === undefined
      ? { c, docs: kept, dropped, collection }
      : { c, docs: kept, expected, dropped, collection };
  });
}

let ts: TestServer;
let db: Db;
const ran = { match: 0, errors: 0 };

before(async () => {
  // The corpus's $where case is mongod's answer without scripting (6108304); $where itself is
  // tested in test/integration/javascript.test.ts.
  ts = await startTestServer({ javascriptEnabled: false });
  db = ts.client.db('query_corpus');
});

after(async () => {
  await ts?.stop();
});

describe('query corpus through the driver: filters', () => {
  const planned = plan(allMatchCases);

  before(async () => {
    // One collection per distinct document set, inserted in parallel.
    const byCollection = new Map<string, Planned>();
    for (const p of planned)
      if (p.skip === undefined && !byCollection.has(p.collection))
        byCollection.set(p.collection, p);
    await Promise.all(
      [...byCollection.values()].map(async (p) => {
        if (p.docs.length > 0)
          await db.collection(p.collection).insertMany(p.docs.map((d) => doc(d)));
      }),
    );
  });

  for (const p of planned) {
    const { c } = p;
    const suffix =
      p.dropped.length > 0 && p.skip === undefined
        ? ` (without undefined-holding _id ${p.dropped.map((id) => JSON.stringify(id)).join(', ')})`
        : '';
    test(
      `find and $match: ${c.name}${suffix}`,
      p.skip === undefined ? {} : { skip: p.skip },
      async () => {
        const coll: Collection<Document> = db.collection(p.collection);
        const filter = doc(c.filter);
        // The same filter through find (the planner's plan) and an aggregate $match stage.
        const runs: Array<[string, Document[]]> = [
          ['find', await coll.find(filter, { promoteValues: false }).toArray()],
          [
            'aggregate $match',
            await coll.aggregate([{ $match: filter }], { promoteValues: false }).toArray(),
          ],
        ];
        ran.match++;
        for (const [how, got] of runs) {
          if (c.expectedCount !== undefined && p.dropped.length === 0)
            assert.equal(got.length, c.expectedCount, `${how}: count (${c.source})`);
          if (p.expected === undefined) continue;
          // Compare in the corpus's document order, whatever order the plan returned them in.
          const position = (id: unknown): number =>
            p.docs.findIndex(
              (d) => compareBson(bs(d['_id'] as Literal), (id ?? null) as BsonValue) === 0,
            );
          const ids = got.map((d) => d['_id'] as unknown);
          const positions = ids.map(position);
          assert.ok(
            positions.every((i) => i >= 0),
            `${how}: unknown _id in ${key(ids)}`,
          );
          const inOrder = positions
            .slice()
            .sort((a, b) => a - b)
            .map((i) => bs(p.docs[i]?.['_id'] as Literal));
          const want = p.expected.map(bs);
          assert.equal(
            key(inOrder),
            key(want),
            `${how}: matched ${key(inOrder)}, expected ${key(want)} (${c.source})`,
          );
        }
      },
    );
  }
});

describe('query corpus through the driver: bad filters', () => {
  before(async () => {
    await db.collection('errors').insertOne(doc({ _id: 1, a: 1 }));
  });

  for (const c of allMatchErrorCases) {
    const skip = hasUndefined(c.filter)
      ? 'the filter holds undefined, which the driver sends as null'
      : UNIT_ONLY_ERRORS.get(c.name);
    const todo = KNOWN_COMMAND_LAYER_BUGS.get(c.name);
    test(
      `find error: ${c.name}`,
      skip !== undefined ? { skip } : todo !== undefined ? { todo } : {},
      async () => {
        await assert.rejects(
          db.collection('errors').find(doc(c.filter)).toArray(),
          (e: unknown) => {
            assert.ok(e instanceof MongoServerError, `not a server error: ${String(e)}`);
            assert.equal(e.code, c.code, `${e.message} (${c.source})`);
            if (c.message !== undefined)
              assert.ok(
                e.message.includes(c.message),
                `message "${e.message}" lacks "${c.message}" (${c.source})`,
              );
            return true;
          },
        );
        ran.errors++;
      },
    );
  }
});

describe('query corpus through the driver: coverage', () => {
  test('a non-trivial number of cases ran', (t) => {
    t.diagnostic(
      `filters: ${ran.match} (each through find and aggregate $match), bad filters: ${ran.errors}`,
    );
    assert.ok(ran.match >= 400, `only ${ran.match} filter cases ran`);
    assert.ok(ran.errors >= 100, `only ${ran.errors} error cases ran`);
  });
});
