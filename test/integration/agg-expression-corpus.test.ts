// The expression corpus (test/unit/pipeline/corpus) through a real server and the official
// driver. Each case's document is stored as {_id: i, d: <doc>}, and
//
//   aggregate([{$match: {_id: i}}, {$replaceWith: '$d'}, {$replaceWith: {r: <expr>}}])
//
// evaluates the expression with the case's document as $$ROOT; a missing result leaves `r` out
// (so MISSING is told apart from null), and every other result is compared with its exact BSON
// type, recursively. Replies are read raw and decoded here (promoteValues: false, bsonRegExp:
// true): the driver's own decoding would build the CommonJS copies of the bson classes, which
// are not the ones this code's `instanceof` checks know. Error cases are compared by code
// (and by mongod's message fragment where the corpus has one), whether mongod raises them at
// parse time (constant folding) or per document. Expected values come from the corpus, which
// takes them from MongoDB's documentation, jstests and source — never from this server.
//
// All aggregates run in `before` (a few at a time, one collection) so the run stays short;
// each case is then its own test. A last test checks that every operator in the expression
// registry has at least one case here, so the corpus cannot fall behind the registry.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { deserialize } from 'bson';
import { MongoServerError } from 'mongodb';
import type { Collection, Document } from 'mongodb';
import { isPlainDocument } from '../../src/bson/types.js';
import type { BsonDocument, BsonValue } from '../../src/bson/types.js';
import { operators, refusedOperators } from '../../src/pipeline/expressions/registry.js';
import { MISSING } from '../../src/pipeline/expressions/types.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { assertSameTyped } from '../unit/pipeline/corpus/compare.js';
import type { ErrorCase, ValueCase } from '../unit/pipeline/corpus/helpers.js';
import { expressionFamilies } from '../unit/pipeline/corpus/index.js';
import type { TestDoc } from '../helpers/driver.js';

/**
 * Operators whose only cases are errors, with the reason no value case can exist here. Every
 * other registered operator needs at least one value case.
 */
const ERROR_ONLY: ReadonlyMap<string, string> = new Map([
  [
    '$function',
    'the corpus runs against a server started with javascriptEnabled: false (its cases are mongod with scripting disabled; test/integration/javascript.test.ts runs it)',
  ],
  [
    '$meta',
    "no stage here produces metadata ($text, $search, $geoNear, …): only its parse errors are mongod's (docs/compatibility.md)",
  ],
]);

const PARALLEL = 16;

type Planned =
  | { readonly kind: 'value'; readonly id: number; readonly family: string; readonly c: ValueCase }
  | { readonly kind: 'error'; readonly id: number; readonly family: string; readonly c: ErrorCase };

type Outcome = { readonly docs: Document[] } | { readonly error: unknown };

function plan(): Planned[] {
  const out: Planned[] = [];
  for (const [family, f] of Object.entries(expressionFamilies)) {
    for (const c of f.values) out.push({ kind: 'value', id: out.length, family, c });
    for (const c of f.errors) out.push({ kind: 'error', id: out.length, family, c });
  }
  return out;
}

/** Operator names used by an expression (the contents of $literal/$const are data, not operators). */
function operatorsIn(expr: BsonValue, into: Set<string>): void {
  if (Array.isArray(expr)) {
    for (const e of expr) operatorsIn(e, into);
    return;
  }
  if (!isPlainDocument(expr)) return;
  for (const [k, v] of Object.entries(expr)) {
    if (operators.has(k) || refusedOperators.has(k)) into.add(k);
    if (k === '$literal' || k === '$const') continue;
    operatorsIn(v as BsonValue, into);
  }
}

const planned = plan();
const outcomes = new Map<number, Outcome>();
let ts: TestServer;
let coll: Collection<TestDoc>;

async function run(p: Planned): Promise<Outcome> {
  const pipeline: Document[] = [
    { $match: { _id: p.id } },
    { $replaceWith: '$d' },
    { $replaceWith: { r: p.c.expr } },
  ];
  try {
    const raw = await coll.aggregate<Buffer>(pipeline, { raw: true }).toArray();
    return {
      docs: raw.map((b) =>
        deserialize(b, { promoteValues: false, promoteBuffers: false, bsonRegExp: true }),
      ),
    };
  } catch (error) {
    return { error };
  }
}

before(async () => {
  // The corpus's $function cases are those of a mongod with scripting disabled.
  ts = await startTestServer({ javascriptEnabled: false });
  coll = ts.client.db('agg_expression_corpus').collection('cases');
  const runnable = planned.filter((p) => p.c.unitOnly === undefined);
  await coll.insertMany(runnable.map((p) => ({ _id: p.id, d: (p.c.doc ?? {}) as Document })));
  for (let i = 0; i < runnable.length; i += PARALLEL) {
    const batch = runnable.slice(i, i + PARALLEL);
    const results = await Promise.all(batch.map(run));
    batch.forEach((p, k) => outcomes.set(p.id, results[k] as Outcome));
  }
});

after(async () => {
  await ts?.stop();
});

function outcomeOf(p: Planned): Outcome {
  const o = outcomes.get(p.id);
  assert.ok(o !== undefined, 'the case did not run');
  return o;
}

describe('expression corpus through the driver', () => {
  for (const p of planned) {
    const options = p.c.unitOnly === undefined ? {} : { skip: p.c.unitOnly };
    if (p.kind === 'value') {
      const { c } = p;
      test(`${p.family}: ${c.name}`, options, () => {
        const o = outcomeOf(p);
        if ('error' in o)
          assert.fail(
            `expected ${c.expected === MISSING ? 'missing' : 'a value'}, got ${String(o.error)} (${c.source})`,
          );
        assert.equal(o.docs.length, 1, `one result document, got ${o.docs.length}`);
        const got = o.docs[0] as BsonDocument;
        assert.ok(
          Object.keys(got).every((k) => k === 'r'),
          `unexpected fields ${Object.keys(got).join(', ')}`,
        );
        assertSameTyped('r' in got ? (got['r'] as BsonValue) : MISSING, c.expected);
      });
    } else {
      const { c } = p;
      test(`${p.family} error: ${c.name}`, options, () => {
        const o = outcomeOf(p);
        if (!('error' in o))
          assert.fail(`expected error ${c.code}, got ${JSON.stringify(o.docs)} (${c.source})`);
        const e = o.error;
        assert.ok(e instanceof MongoServerError, `not a server error: ${String(e)}`);
        assert.equal(e.code, c.code, `${e.message} (${c.source})`);
        if (c.message !== undefined)
          assert.ok(
            e.message.includes(c.message),
            `message "${e.message}" lacks "${c.message}" (${c.source})`,
          );
      });
    }
  }
});

describe('expression corpus: completeness', () => {
  test('every registered (or deliberately refused) expression operator has driver-level cases', () => {
    const withValue = new Set<string>();
    const withError = new Set<string>();
    for (const p of planned) {
      if (p.c.unitOnly !== undefined) continue;
      operatorsIn(p.c.expr, p.kind === 'value' ? withValue : withError);
    }
    const uncovered = [...operators.keys()].filter(
      (name) => !withValue.has(name) && !withError.has(name),
    );
    assert.deepEqual(
      uncovered,
      [],
      `operators without any driver-level case: ${uncovered.join(' ')}`,
    );
    const valueless = [...operators.keys()].filter(
      (name) => !withValue.has(name) && !ERROR_ONLY.has(name),
    );
    assert.deepEqual(valueless, [], `operators with error cases only: ${valueless.join(' ')}`);
    for (const name of ERROR_ONLY.keys())
      assert.ok(operators.has(name), `ERROR_ONLY lists ${name}, which is not registered`);
    const refusedUntested = [...refusedOperators.keys()].filter((name) => !withError.has(name));
    assert.deepEqual(
      refusedUntested,
      [],
      `refused operators without an error case: ${refusedUntested.join(' ')}`,
    );
  });
});
