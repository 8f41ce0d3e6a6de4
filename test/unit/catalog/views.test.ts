// The view catalog below the commands: which collections a view's pipeline reads (mongod's
// LiteParsedPipeline::getInvolvedNamespaces), the graph checks of ViewGraph (cycles named as
// mongod names them, the depth limit of 20 counted through parents and children), resolution
// of a view on a view, and system.views documents written and removed through the catalog.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Int32 } from 'bson';
import type { BsonDocument } from '../../../src/bson/types.js';
import { Catalog } from '../../../src/catalog/catalog.js';
import {
  checkViewGraph,
  involvedCollections,
  listViews,
  lookupView,
  removeView,
  resolveView,
  storeView,
} from '../../../src/catalog/views.js';
import type { ViewDefinition } from '../../../src/catalog/views.js';
import { CommandError, ErrorCode } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { openEngine } from '../../../src/storage/open.js';

test('involvedCollections: $lookup, $graphLookup and $unionWith, nested in sub-pipelines and $facet, same database only', () => {
  const pipeline: BsonDocument[] = [
    { $match: { a: new Int32(1) } },
    { $lookup: { from: 'l1', as: 'x', pipeline: [{ $unionWith: 'u2' }] } },
    { $lookup: { from: { db: 'd', coll: 'l2' }, as: 'y', localField: 'a', foreignField: 'b' } },
    {
      $lookup: {
        from: { db: 'elsewhere', coll: 'l3' },
        as: 'z',
        localField: 'a',
        foreignField: 'b',
      },
    },
    {
      $graphLookup: {
        from: 'g1',
        as: 'g',
        startWith: '$a',
        connectFromField: 'a',
        connectToField: 'b',
      },
    },
    { $unionWith: { coll: 'u1', pipeline: [{ $lookup: { from: 'l4', as: 'w', pipeline: [] } }] } },
    {
      $facet: {
        f: [{ $lookup: { from: 'f1', as: 'q', localField: 'a', foreignField: 'b' } }],
        g: [{ $count: 'n' }],
      },
    },
  ];
  assert.deepEqual([...involvedCollections(pipeline, 'd')].sort(), [
    'f1',
    'g1',
    'l1',
    'l2',
    'l4',
    'u1',
    'u2',
  ]);
  assert.deepEqual([...involvedCollections([], 'd')], []);
});

async function withCatalog(
  fn: (
    catalog: Catalog,
    write: (f: Parameters<Catalog['engine']['write']>[0]) => Promise<unknown>,
  ) => Promise<void>,
): Promise<void> {
  const engine = await openEngine({ engine: 'memory' });
  try {
    const catalog = Catalog.open(engine, silentLogger);
    await fn(catalog, (f) => engine.write(f, { durable: false }));
  } finally {
    await engine.close();
  }
}

/** Stored documents come back with typed numbers. */
const one = new Int32(1);

const view = (name: string, viewOn: string, pipeline: BsonDocument[] = []): ViewDefinition => ({
  db: 'd',
  name,
  viewOn,
  pipeline,
});

function codeOf(f: () => void): { code: number; message: string } | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof CommandError) return { code: e.code, message: e.message };
    throw e;
  }
  return undefined;
}

test('checkViewGraph: cycles are GraphContainsCycle, named as mongod names them', async () => {
  await withCatalog(async (catalog, write) => {
    await write((txn) => {
      assert.deepEqual(
        codeOf(() => checkViewGraph(catalog, txn, view('a', 'a'))),
        { code: ErrorCode.GraphContainsCycle, message: 'View cycle detected: d.a => d.a => d.a' },
      );
      storeView(catalog, txn, view('a', 'b'));
      storeView(catalog, txn, view('b', 'c'));
      assert.deepEqual(
        codeOf(() => checkViewGraph(catalog, txn, view('c', 'a'))),
        {
          code: ErrorCode.GraphContainsCycle,
          message: 'View cycle detected: d.c => d.c => d.b => d.a => d.c',
        },
      );
      // Through a $lookup in the pipeline too.
      assert.equal(
        codeOf(() =>
          checkViewGraph(
            catalog,
            txn,
            view('c', 'x', [{ $lookup: { from: 'a', as: 'r', pipeline: [] } }]),
          ),
        )?.code,
        ErrorCode.GraphContainsCycle,
      );
      // Redefining b to read something else is fine: the old definition no longer counts.
      assert.equal(
        codeOf(() => checkViewGraph(catalog, txn, view('b', 'z'))),
        undefined,
      );
    });
  });
});

test('checkViewGraph: a chain of 20 views is the limit, counted from either end', async () => {
  await withCatalog(async (catalog, write) => {
    await write((txn) => {
      for (let i = 1; i <= 20; i++) storeView(catalog, txn, view(`v${i}`, `v${i + 1}`));
      const depth = {
        code: ErrorCode.ViewDepthLimitExceeded,
        message: 'View depth limit exceeded; maximum depth is 20',
      };
      // v21 is the collection at the bottom: making it a view lengthens the chain to 21.
      assert.deepEqual(
        codeOf(() => checkViewGraph(catalog, txn, view('v21', 'v22'))),
        depth,
      );
      assert.deepEqual(
        codeOf(() => checkViewGraph(catalog, txn, view('v0', 'v1'))),
        depth,
      );
      assert.equal(
        codeOf(() => checkViewGraph(catalog, txn, view('vMid', 'v10'))),
        undefined,
      );
    });
  });
});

test('resolveView stacks the pipelines innermost first and ends on the collection; lookup, list and remove', async () => {
  await withCatalog(async (catalog, write) => {
    await write((txn) => {
      storeView(catalog, txn, view('v1', 'coll', [{ $match: { a: one } }]));
      storeView(catalog, txn, view('v2', 'v1', [{ $project: { a: one } }]));
      assert.deepEqual(resolveView(catalog, txn, 'd', 'v2'), {
        collection: 'coll',
        pipeline: [{ $match: { a: one } }, { $project: { a: one } }],
        collation: undefined,
      });
      assert.equal(resolveView(catalog, txn, 'd', 'coll'), undefined);
      assert.deepEqual(
        lookupView(catalog, txn, 'd', 'v1'),
        view('v1', 'coll', [{ $match: { a: one } }]),
      );
      // Storing again replaces the definition.
      storeView(catalog, txn, view('v1', 'other'));
      assert.deepEqual(
        listViews(catalog, txn, 'd').map((v) => [v.name, v.viewOn]),
        [
          ['v1', 'other'],
          ['v2', 'v1'],
        ],
      );
      assert.equal(removeView(catalog, txn, 'd', 'v1'), true);
      assert.equal(removeView(catalog, txn, 'd', 'v1'), false);
      assert.deepEqual(
        listViews(catalog, txn, 'd').map((v) => v.name),
        ['v2'],
      );
      // An implicit creation on a view's name is refused.
      assert.equal(
        codeOf(() => catalog.getOrCreate(txn, 'd', 'v2'))?.code,
        ErrorCode.CommandNotSupportedOnView,
      );
    });
  });
});
