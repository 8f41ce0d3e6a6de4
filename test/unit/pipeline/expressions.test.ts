// The expression corpus (test/unit/pipeline/corpus): each case parsed and evaluated with
// mongod's expected value — compared with its exact BSON type, recursively — or error code.

import { test } from 'node:test';
import { Int32 } from 'bson';
import * as assert from 'node:assert/strict';
import { bsonTypeName } from '../../../src/bson/types.js';
import type { BsonValue } from '../../../src/bson/types.js';
import { CommandError } from '../../../src/errors.js';
import {
  evaluateOn,
  newEnv,
  parseExpression,
  rootContext,
} from '../../../src/pipeline/expressions/index.js';
import type { Value } from '../../../src/pipeline/expressions/types.js';
import { assertSameTyped } from './corpus/compare.js';
import { expressionFamilies } from './corpus/index.js';

function evaluate(expr: BsonValue, doc: Record<string, BsonValue> | undefined): Value {
  const env = newEnv({ now: new Date('2024-01-01T00:00:00Z') });
  const parsed = parseExpression(expr, rootContext(env));
  return evaluateOn(parsed, doc ?? {}, env.frame);
}

for (const [family, cases] of Object.entries(expressionFamilies)) {
  for (const c of cases.values) {
    test(
      `expression ${family}: ${c.name}`,
      c.driverOnly === undefined ? {} : { skip: c.driverOnly },
      () => {
        assertSameTyped(evaluate(c.expr, c.doc), c.expected);
      },
    );
  }
  for (const c of cases.errors) {
    test(
      `expression ${family} error: ${c.name}`,
      c.driverOnly === undefined ? {} : { skip: c.driverOnly },
      () => {
        assert.throws(
          () => evaluate(c.expr, c.doc),
          (e: unknown) => {
            assert.ok(e instanceof CommandError, `not a CommandError: ${String(e)}`);
            assert.equal(e.code, c.code, `${e.message} (${c.source})`);
            if (c.message !== undefined)
              assert.ok(
                e.message.includes(c.message),
                `message "${e.message}" lacks "${c.message}"`,
              );
            return true;
          },
        );
      },
    );
  }
}

test('expression: $$NOW is one instant for the command', () => {
  const now = new Date('2024-05-01T00:00:00Z');
  const env = newEnv({ now });
  const e = parseExpression(['$$NOW', '$$NOW'], rootContext(env));
  const v = evaluateOn(e, {}, env.frame) as Date[];
  assert.equal(v[0]?.getTime(), now.getTime());
  assert.equal(v[1]?.getTime(), now.getTime());
});

test('expression: $rand is a double in [0, 1) and is not folded', () => {
  const env = newEnv();
  const e = parseExpression({ $rand: {} }, rootContext(env));
  assert.equal(e.kind, 'operator');
  for (let i = 0; i < 20; i++) {
    const v = evaluateOn(e, {}, env.frame);
    assert.equal(bsonTypeName(v as BsonValue), 'double');
    const n = (v as { value: number }).value;
    assert.ok(n >= 0 && n < 1);
  }
});

test('expression: constant operands are folded at parse time (errors too)', () => {
  const env = newEnv();
  const folded = parseExpression({ $add: [new Int32(1), new Int32(2)] }, rootContext(env));
  assert.equal(folded.kind, 'constant');
  assert.throws(
    () => parseExpression({ $divide: [new Int32(1), new Int32(0)] }, rootContext(env)),
    (e: unknown) => e instanceof CommandError && e.code === 2,
  );
});

test('expression: $$CLUSTER_TIME without a cluster time is refused', () => {
  const env = newEnv();
  assert.throws(
    () => parseExpression('$$CLUSTER_TIME', rootContext(env)),
    (e: unknown) => e instanceof CommandError && e.code === 51144,
  );
});
