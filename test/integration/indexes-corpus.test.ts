// The results must not depend on the plan. Every case of the matcher corpus
// (test/unit/query/corpus) runs through the real server twice — on a collection without
// secondary indexes (COLLSCAN) and on a copy with an index on every path the filter names
// (single-field, ascending and descending, plus compound keys of the first two) — and the two answers must be
// the same documents, and those mongod returns. Each index is then forced with a hint, so
// that the bounds every index would get are checked, not only the plan the planner prefers.
// The sort corpus does the same for index-provided order.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EJSON } from 'bson';
import { MongoServerError } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { compareBson } from '../../src/bson/compare.js';
import type { BsonValue } from '../../src/bson/types.js';
import { compileFilter } from '../../src/query/match/index.js';
import type { MatchNode } from '../../src/query/match/index.js';
import { compileSort } from '../../src/query/sort.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { allMatchCases } from '../unit/query/corpus/index.js';
import { sortCases } from '../unit/query/corpus/sort.js';
import type { Literal } from '../unit/query/corpus/values.js';
import { bs, doc } from '../unit/query/corpus/values.js';

function hasUndefined(v: unknown): boolean {
  if (v === undefined) return true;
  if (Array.isArray(v)) return v.some(hasUndefined);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return Object.values(v).some(hasUndefined);
  return false;
}

const key = (v: unknown): string => EJSON.stringify(v as Document, { relaxed: false });

/** Paths the filter tests, as index key pattern fields ($elemMatch children under their array). */
function filterPaths(tree: MatchNode, prefix = '', out = new Set<string>()): Set<string> {
  switch (tree.kind) {
    case 'and':
    case 'or':
    case 'nor':
      for (const c of tree.children) filterPaths(c, prefix, out);
      return out;
    case 'not':
      return filterPaths(tree.child, prefix, out);
    case 'elemMatchObject':
      out.add(prefix + tree.path);
      return filterPaths(tree.child, `${prefix}${tree.path}.`, out);
    default:
      if ('path' in tree && typeof tree.path === 'string' && tree.path !== '')
        out.add(prefix + tree.path);
      return out;
  }
}

/**
 * A corpus sort in the driver's type: each direction 1 or -1. The driver sends these as int32,
 * the same bytes as the corpus's Int32 directions.
 */
function directions(spec: { readonly [key: string]: Literal }): { [key: string]: 1 | -1 } {
  return Object.fromEntries(
    Object.entries(spec).map(([path, d]): [string, 1 | -1] => {
      assert.ok(d === 1 || d === -1, `the sort corpus has direction ${String(d)} for ${path}`);
      return [path, d];
    }),
  );
}

function usablePath(p: string): boolean {
  return p.split('.').every((part) => part !== '' && !part.startsWith('$'));
}

function sortedIds(docs: Document[]): string[] {
  return docs
    .map((d) => d['_id'] as BsonValue)
    .sort((a, b) => compareBson(a ?? null, b ?? null))
    .map((id) => key(id));
}

let ts: TestServer;
let db: Db;
const ran = { cases: 0, indexedRuns: 0, hintedRuns: 0, indexes: 0 };

before(async () => {
  ts = await startTestServer();
  db = ts.client.db('indexes_corpus');
});

after(async () => {
  await ts?.stop();
});

describe('filters give the same documents with and without indexes', () => {
  allMatchCases.forEach((c, n) => {
    const skip = hasUndefined(c.filter)
      ? 'the filter holds undefined, which the driver sends as null'
      : undefined;
    test(`indexes: ${c.name}`, skip === undefined ? {} : { skip }, async () => {
      const docs = c.docs.filter((d) => !hasUndefined(d)).map((d) => doc(d));
      const dropped = new Set(
        c.docs.filter((d) => hasUndefined(d)).map((d) => key(bs(d['_id'] as Literal))),
      );
      const filter = doc(c.filter);
      let tree: MatchNode;
      try {
        tree = compileFilter(filter).tree;
      } catch {
        return; // Filters that need the server's hooks ($expr) are the other suites' business.
      }
      const plain = db.collection(`plain${n}`);
      const indexed = db.collection(`indexed${n}`);
      if (docs.length > 0) {
        await plain.insertMany(docs);
        await indexed.insertMany(docs);
      } else {
        await db.createCollection(`plain${n}`);
        await db.createCollection(`indexed${n}`);
      }
      const paths = [...filterPaths(tree)].filter(usablePath);
      const specs: Document[] = [];
      for (const p of paths) specs.push({ [p]: 1 }, { [p]: -1 });
      // Compound keys over the first two paths, each way round.
      const [p0, p1] = paths;
      if (p0 !== undefined && p1 !== undefined)
        specs.push({ [p0]: 1, [p1]: -1 }, { [p1]: 1, [p0]: 1 });
      const names: string[] = [];
      for (const spec of specs) {
        try {
          names.push(await indexed.createIndex(spec));
        } catch (e) {
          // Documents mongod cannot index under this pattern (parallel arrays, ambiguous fields).
          assert.ok(
            e instanceof MongoServerError && [171, 16746].includes(e.code as number),
            `createIndex ${key(spec)}: ${String(e)}`,
          );
        }
      }
      ran.indexes += names.length;
      const scanned = await plain.find(filter, { promoteValues: false }).toArray();
      const planned = await indexed.find(filter, { promoteValues: false }).toArray();
      const want = sortedIds(scanned);
      assert.deepEqual(
        sortedIds(planned),
        want,
        `planner's plan on ${key(names)} differs from the collection scan`,
      );
      if (c.expected !== undefined) {
        const expected = c.expected
          .map(bs)
          .filter((id) => !dropped.has(key(id)))
          .sort((a, b) => compareBson(a, b))
          .map((id) => key(id));
        assert.deepEqual(want, expected, `collection scan differs from mongod (${c.source})`);
      }
      ran.cases++;
      ran.indexedRuns++;
      for (const name of names) {
        const hinted = await indexed.find(filter, { promoteValues: false, hint: name }).toArray();
        assert.deepEqual(sortedIds(hinted), want, `hint ${name} differs from the collection scan`);
        ran.hintedRuns++;
      }
      const counted = await indexed.countDocuments(filter);
      assert.equal(counted, want.length, 'countDocuments on the indexed collection');
    });
  });
});

describe('sorts give the same order with and without indexes', () => {
  sortCases.forEach((c, n) => {
    const skip = c.docs.some(hasUndefined) ? 'documents hold undefined' : undefined;
    test(`indexed sort: ${c.name}`, skip === undefined ? {} : { skip }, async () => {
      const coll = db.collection(`sorted${n}`);
      const docs = c.docs.map((d) => doc(d));
      await coll.insertMany(docs);
      const sort = doc(c.sort);
      const driverSort = directions(c.sort);
      try {
        await coll.createIndex(driverSort);
      } catch (e) {
        assert.ok(
          e instanceof MongoServerError && [171, 16746, 67].includes(e.code as number),
          String(e),
        );
        return;
      }
      const got = await coll.find({}, { promoteValues: false }).sort(driverSort).toArray();
      const spec = compileSort(sort);
      // Same documents, in the sort's order (ties may come in either order from an index).
      assert.deepEqual(sortedIds(got), sortedIds(docs));
      for (let i = 1; i < got.length; i++) {
        const cmp = spec.compare(got[i - 1] as Document, got[i] as Document);
        assert.ok(
          cmp <= 0,
          `${key(got[i - 1]?.['_id'])} before ${key(got[i]?.['_id'])} breaks ${key(sort)}`,
        );
      }
      const expected = c.expected.map((id) => key(bs(id)));
      const gotIds = got.map((d) => key(d['_id']));
      // Where the expected order has no ties the orders agree exactly.
      const keys = docs.map((d) => spec.keyOf(d));
      const tied = keys.some((k, i) =>
        keys.some((k2, j) => j !== i && spec.compareKeys(k, k2) === 0),
      );
      if (!tied) assert.deepEqual(gotIds, expected, c.source);
    });
  });
});

describe('corpus coverage', () => {
  test('a non-trivial number of cases ran', (t) => {
    t.diagnostic(
      `cases: ${ran.cases}, indexes built: ${ran.indexes}, hinted runs: ${ran.hintedRuns}`,
    );
    assert.ok(ran.cases >= 200, `only ${ran.cases} cases ran`);
    assert.ok(ran.hintedRuns >= 500, `only ${ran.hintedRuns} hinted runs`);
  });
});
