// Runs the projection corpus: each specification on its input document, compared with the
// document mongod returns (field order included); each bad specification against its code.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { compareBson } from '../../../src/bson/compare.js';
import type { BsonDocument } from '../../../src/bson/types.js';
import { CommandError } from '../../../src/errors.js';
import { compileFilter } from '../../../src/query/match/index.js';
import { compileProjection } from '../../../src/query/projection/index.js';
import type { ExpressionHook } from '../../../src/query/projection/index.js';
import { queryExpressions } from '../../../src/pipeline/index.js';
import { DEFAULT_ERROR_INPUT, projectionCases, projectionErrorCases } from './corpus/projection.js';
import { doc } from './corpus/values.js';

/** Same fields in the same order with equal values (compareBson compares names and order). */
function assertSameDocument(got: BsonDocument, want: BsonDocument, source: string): void {
  assert.deepEqual(Object.keys(got), Object.keys(want), `fields (${source})`);
  assert.equal(
    compareBson(got, want),
    0,
    `${JSON.stringify(got)} vs ${JSON.stringify(want)} (${source})`,
  );
}

for (const c of projectionCases) {
  test(`projection: ${c.name}`, () => {
    const matcher = compileFilter(doc(c.filter ?? {}));
    const projection = compileProjection(doc(c.projection), { matcher });
    assertSameDocument(projection.apply(doc(c.input)), doc(c.expected), c.source);
  });
}

/** The aggregation layer's hook, as the server wires it (src/commands/query-language.ts). */
function realHook(): ExpressionHook {
  const expressions = queryExpressions();
  return {
    compile: (e) => expressions.compileValue(e),
    isExpressionName: (n) => expressions.isExpressionName(n),
  };
}

for (const c of projectionErrorCases) {
  test(`projection error: ${c.name}`, () => {
    assert.throws(
      () => {
        const matcher = compileFilter(doc(c.filter ?? {}));
        const projection = compileProjection(doc(c.projection), { matcher });
        if (c.input !== undefined) projection.apply(doc(c.input));
      },
      (e: unknown) => e instanceof CommandError && e.code === c.code,
      `expected code ${c.code} (${c.source})`,
    );
  });
  const withExpressions = c.withExpressions;
  if (withExpressions === undefined) continue;
  test(`projection error, with the expression layer: ${c.name}`, () => {
    const run = (): BsonDocument => {
      const matcher = compileFilter(doc(c.filter ?? {}));
      return compileProjection(doc(c.projection), { matcher, expressions: realHook() }).apply(
        doc(c.input ?? DEFAULT_ERROR_INPUT),
      );
    };
    if ('code' in withExpressions) {
      assert.throws(
        run,
        (e: unknown) => e instanceof CommandError && e.code === withExpressions.code,
        `expected code ${withExpressions.code} (${c.source})`,
      );
    } else {
      assertSameDocument(run(), doc(withExpressions.expected), c.source);
    }
  });
}

// Every projection the layer answers alone gives the same document with expressions available.
for (const c of projectionCases) {
  test(`projection, with the expression layer: ${c.name}`, () => {
    const projection = compileProjection(doc(c.projection), {
      matcher: compileFilter(doc(c.filter ?? {})),
      expressions: realHook(),
    });
    assertSameDocument(projection.apply(doc(c.input)), doc(c.expected), c.source);
  });
}

test("projection: positional without the filter uses the caller's match details", () => {
  const p = compileProjection(doc({ 'a.$': 1 }));
  assertSameDocument(
    p.apply(doc({ _id: 1, a: [5, 6, 7] }), { elemMatchKey: '2' }),
    doc({ _id: 1, a: [7] }),
    'details',
  );
  assert.throws(
    () => p.apply(doc({ _id: 1, a: [5] }), {}),
    (e: unknown) => e instanceof CommandError && e.code === 51246,
  );
});

test('projection: expressions go through the hook, literals do not need it', () => {
  const calls: unknown[] = [];
  const p = compileProjection(doc({ a: 1, total: { $add: ['$a', 1] }, tag: 'x' }), {
    expressions: {
      compile: (expr) => {
        calls.push(expr);
        return () => 'computed';
      },
      isExpressionName: (name) => name === '$add',
    },
  });
  assertSameDocument(
    p.apply(doc({ _id: 1, a: 2, b: 3 })),
    doc({ _id: 1, a: 2, total: 'computed', tag: 'x' }),
    'hook',
  );
  assert.equal(calls.length, 1);
});

test('projection: helpers', () => {
  const inc = compileProjection(doc({ a: 1, 'b.c': 1, d: { $slice: 2 } }));
  assert.equal(inc.isInclusion, true);
  assert.deepEqual(inc.requiredFields, ['a', 'b.c', 'd', '_id']);
  const exc = compileProjection(doc({ a: 0 }));
  assert.equal(exc.isInclusion, false);
  assert.equal(exc.requiredFields, undefined);
  assert.equal(compileProjection(doc({ x: 'lit' })).requiredFields, undefined);
});
