// Property: the plan never changes the answer. Random documents (scalars of many types,
// arrays — empty, nested, of subdocuments — and missing fields) go into one collection with
// no secondary index and one with several (compound, descending, dotted, multikey); random
// filters, sorts and projections then run as a collection scan, as the planner's own choice,
// and with every index hinted, and must select the same documents in a valid order.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { BSONRegExp, Double, Int32, Long } from 'bson';
import { compareBson } from '../../../src/bson/compare.js';
import type { BsonDocument, BsonValue } from '../../../src/bson/types.js';
import { Catalog } from '../../../src/catalog/catalog.js';
import type { Collection } from '../../../src/catalog/collection.js';
import { buildIndex } from '../../../src/commands/admin/indexes.js';
import { insertDocument, internalWrite } from '../../../src/catalog/write-unit.js';
import { CommandError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import {
  compileQueryFilter,
  compileQueryProjection,
  compileQuerySort,
} from '../../../src/commands/query-language.js';
import { planQuery } from '../../../src/query/planner/planner.js';
import type { QueryRequest } from '../../../src/query/planner/planner.js';
import { compileSort } from '../../../src/query/sort.js';
import type { StorageEngine } from '../../../src/storage/engine.js';
import { openEngine } from '../../../src/storage/open.js';
import { pullSync } from '../../../src/query/exec/yield.js';

const scalar: fc.Arbitrary<BsonValue> = fc.oneof(
  fc.integer({ min: -3, max: 6 }).map((n) => new Int32(n)),
  fc.constantFrom(
    new Double(2.5),
    new Double(-0),
    new Double(Infinity),
    new Double(NaN),
    Long.fromNumber(4),
  ),
  fc.constantFrom('', 'a', 'ab', 'b', 'ba'),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(new Date(0), new Date(1000)),
);
const leaf: fc.Arbitrary<BsonValue> = fc.oneof(
  { weight: 5, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constant<BsonValue[]>([]) },
);
const sub: fc.Arbitrary<BsonValue> = fc.record(
  { x: leaf, y: scalar },
  { requiredKeys: [] },
) as fc.Arbitrary<BsonValue>;
const value: fc.Arbitrary<BsonValue> = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 2, arbitrary: sub },
  { weight: 2, arbitrary: fc.array(fc.oneof(sub, scalar), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.array(scalar, { maxLength: 2 }), { maxLength: 2 }) },
);
const document: fc.Arbitrary<BsonDocument> = fc.record(
  { a: value, b: value, c: scalar },
  { requiredKeys: [] },
) as fc.Arbitrary<BsonDocument>;

const path = fc.constantFrom('a', 'b', 'a.x', 'b.x', 'a.y', 'c', 'a.0');
const predicate: fc.Arbitrary<BsonDocument> = fc.oneof(
  fc.tuple(path, scalar).map(([p, v]) => ({ [p]: v })),
  fc
    .tuple(path, fc.constantFrom('$gt', '$gte', '$lt', '$lte', '$ne'), scalar)
    .map(([p, op, v]) => ({ [p]: { [op]: v } })),
  fc
    .tuple(path, fc.array(scalar, { minLength: 1, maxLength: 3 }))
    .map(([p, vs]) => ({ [p]: { $in: vs } })),
  fc
    .tuple(path, fc.array(scalar, { minLength: 1, maxLength: 2 }))
    .map(([p, vs]) => ({ [p]: { $nin: vs } })),
  fc.tuple(path, fc.boolean()).map(([p, e]) => ({ [p]: { $exists: e } })),
  fc.tuple(path, scalar, scalar).map(([p, lo, hi]) => ({ [p]: { $gte: lo, $lt: hi } })),
  fc
    .tuple(path, fc.constantFrom('^a', 'b', '^$', '^a|^b'))
    .map(([p, re]) => ({ [p]: new BSONRegExp(re, '') })),
  fc.tuple(path, fc.array(scalar, { maxLength: 2 })).map(([p, arr]) => ({ [p]: arr })),
  fc
    .tuple(fc.constantFrom('a', 'b'), scalar, scalar)
    .map(([p, lo, hi]) => ({ [p]: { $elemMatch: { $gt: lo, $lt: hi } } })),
  fc.tuple(fc.constantFrom('a', 'b'), scalar).map(([p, v]) => ({ [p]: { $elemMatch: { x: v } } })),
  fc.tuple(path, scalar).map(([p, v]) => ({ [p]: { $not: { $gte: v } } })),
);
const filter: fc.Arbitrary<BsonDocument> = fc.oneof(
  predicate,
  fc.tuple(predicate, predicate).map(([x, y]) => ({ $and: [x, y] })),
  fc.tuple(predicate, predicate).map(([x, y]) => ({ $or: [x, y] })),
  fc.tuple(predicate, predicate, predicate).map(([x, y, z]) => ({ $and: [x, { $or: [y, z] }] })),
);

const indexSpecs: BsonDocument[] = [
  { key: { a: new Int32(1) }, name: 'a_1' },
  { key: { a: new Int32(-1), c: new Int32(1) }, name: 'a_-1_c_1' },
  { key: { 'a.x': new Int32(1) }, name: 'a.x_1' },
  { key: { c: new Int32(1), 'b.x': new Int32(-1) }, name: 'c_1_b.x_-1' },
  { key: { b: new Int32(1) }, name: 'b_1' },
  { key: { 'a.0': new Int32(1) }, name: 'a.0_1' },
  { key: { 'a.x': new Int32(1), 'a.y': new Int32(1) }, name: 'a.x_1_a.y_1' },
  { key: { c: new Int32(1) }, name: 'c_sparse', sparse: true },
  {
    key: { b: new Int32(-1) },
    name: 'b_partial',
    partialFilterExpression: { c: { $gt: new Int32(0) } },
  },
];

interface Fixture {
  readonly engine: StorageEngine;
  readonly catalog: Catalog;
  readonly plain: Collection;
  readonly indexed: Collection;
}

async function fixture(docs: BsonDocument[]): Promise<Fixture> {
  const engine = await openEngine({ engine: 'memory' });
  const catalog = Catalog.open(engine, silentLogger);
  await engine.write(
    (txn) => {
      let indexed = catalog.getOrCreate(txn, 't', 'indexed');
      for (const spec of indexSpecs)
        indexed = buildIndex(txn, catalog, indexed, { v: new Int32(2), ...spec });
      catalog.getOrCreate(txn, 't', 'plain');
      const w = internalWrite(txn, catalog);
      docs.forEach((d, i) => {
        const doc = { _id: new Int32(i), ...d };
        try {
          insertDocument(w, { db: 't', name: 'indexed' }, doc);
        } catch (e) {
          if (e instanceof CommandError && (e.code === 171 || e.code === 16746)) return;
          throw e;
        }
        insertDocument(w, { db: 't', name: 'plain' }, doc);
      });
    },
    { durable: false },
  );
  return {
    engine,
    catalog,
    plain: catalog.get('t', 'plain') as Collection,
    indexed: catalog.get('t', 'indexed') as Collection,
  };
}

function run(f: Fixture, coll: Collection, req: QueryRequest): BsonDocument[] {
  const snap = f.engine.snapshot();
  try {
    const plan = planQuery(coll, req);
    const out: BsonDocument[] = [];
    for (let row = pullSync(plan, snap); row !== undefined; row = pullSync(plan, snap))
      out.push(row.doc);
    return out;
  } finally {
    snap.release();
  }
}

const ids = (docs: BsonDocument[]): string =>
  JSON.stringify(docs.map((d) => (d['_id'] as Int32).value).sort((x, y) => x - y));

test('property: filters select the same documents whatever the plan', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(document, { minLength: 5, maxLength: 30 }),
      fc.array(filter, { minLength: 1, maxLength: 8 }),
      async (docs, filters) => {
        const f = await fixture(docs);
        try {
          for (const raw of filters) {
            const matcher = compileQueryFilter(raw);
            const req: QueryRequest = { filter: raw, matcher, allowDiskUse: true };
            const want = ids(run(f, f.plain, req));
            assert.equal(
              ids(run(f, f.indexed, req)),
              want,
              `planner's choice for ${JSON.stringify(raw)}`,
            );
            for (const index of f.indexed.indexes) {
              if (index.sparse || index.partialFilter !== undefined) continue;
              assert.equal(
                ids(run(f, f.indexed, { ...req, hint: index.meta.name })),
                want,
                `hint ${index.meta.name} for ${JSON.stringify(raw)}`,
              );
            }
            const count = run(f, f.indexed, { ...req, needsDocument: false }).length;
            assert.equal(count, JSON.parse(want).length, `count for ${JSON.stringify(raw)}`);
          }
        } finally {
          await f.engine.close();
        }
      },
    ),
    { numRuns: 80, seed: 20261130 },
  );
});

test('property: sorts and covered projections agree with the collection scan', async () => {
  const sortSpec = fc.constantFrom<BsonDocument>(
    { a: new Int32(1) },
    { a: new Int32(-1) },
    { a: new Int32(-1), c: new Int32(1) },
    { c: new Int32(1) },
    { 'a.x': new Int32(1) },
    { b: new Int32(-1) },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(document, { minLength: 5, maxLength: 30 }),
      predicate,
      sortSpec,
      async (docs, raw, spec) => {
        const f = await fixture(docs);
        try {
          const matcher = compileQueryFilter(raw);
          const sort = compileQuerySort(spec);
          const req: QueryRequest = {
            filter: raw,
            matcher,
            sort: sort.comparator,
            sortSpec: spec,
            allowDiskUse: true,
          };
          const want = run(f, f.plain, req);
          const got = run(f, f.indexed, req);
          assert.equal(
            ids(got),
            ids(want),
            `sorted ${JSON.stringify(spec)} for ${JSON.stringify(raw)}`,
          );
          const order = compileSort(spec);
          for (let i = 1; i < got.length; i++)
            assert.ok(
              order.compare(got[i - 1] as BsonDocument, got[i] as BsonDocument) <= 0,
              `order of ${JSON.stringify(spec)}`,
            );
          // A projection of the filtered field (covered when the index can hold it).
          const field = Object.keys(raw)[0] ?? 'c';
          if (!field.startsWith('$')) {
            const projectionSpec: BsonDocument = { _id: new Int32(0), [field]: new Int32(1) };
            const projection = compileQueryProjection(projectionSpec);
            const preq: QueryRequest = {
              filter: raw,
              matcher,
              projection: projection?.transform,
              projectionSpec,
              projectionFields: projection?.coveredFields,
              allowDiskUse: true,
            };
            const key = (docs2: BsonDocument[]): string[] =>
              docs2.map((d) => JSON.stringify(d)).sort();
            const plain = run(f, f.plain, preq);
            const indexed = run(f, f.indexed, preq);
            assert.equal(
              compareBson(key(indexed), key(plain)),
              0,
              `projection of ${field} for ${JSON.stringify(raw)}`,
            );
          }
        } finally {
          await f.engine.close();
        }
      },
    ),
    { numRuns: 80, seed: 7 },
  );
});
