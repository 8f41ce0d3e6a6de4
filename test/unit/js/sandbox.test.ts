// The sandbox on its own (src/js): values crossing in and back through an identity function
// keep their BSON types (numbers come back as doubles, as from mongod's engine), keys that look
// like tags or prototypes stay data, and a running call stops with the operation's code when
// it is killed or its deadline passes.

import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  Binary,
  BSONRegExp,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';
import { loadScriptEngine } from '../../../src/js/engine.js';
import type { ScriptEngine, ScriptScope } from '../../../src/js/engine.js';
import { CommandError } from '../../../src/errors.js';
import { bdoc } from '../../helpers/bson-values.js';

let engine: ScriptEngine;
let scope: ScriptScope;

before(async () => {
  engine = await loadScriptEngine();
  scope = engine.newScope({ deadlineMs: undefined, signal: new AbortController().signal });
});

after(() => scope.dispose());

test('values keep their BSON types across the sandbox', () => {
  const identity = scope.compile('function (x) { return x; }');
  const doc = bdoc({
    l: Long.fromString('-9007199254740993'),
    o: new ObjectId('64b7f0c2a1b2c3d4e5f60718'),
    d: new Date(1_700_000_000_123),
    dec: Decimal128.fromString('1.10'),
    bin: new Binary(Buffer.from([1, 2, 3]), 4),
    ts: new Timestamp({ t: 5, i: 7 }),
    re: new BSONRegExp('^a.c$', 'i'),
    min: new MinKey(),
    max: new MaxKey(),
    nested: { arr: [new Double(1.5), 'x', null, true, { deep: new Double(-0) }] },
    $dollar: 'data',
    '1': 'integer-like key',
  });
  Object.defineProperty(doc, '__proto__', {
    value: 'a plain key',
    enumerable: true,
    writable: true,
    configurable: true,
  });
  const back = scope.call(identity, [doc]);
  assert.deepEqual(back, doc);
  assert.equal(Object.getPrototypeOf(back), Object.prototype);
});

test('int32 and double become JavaScript numbers and come back as doubles', () => {
  const identity = scope.compile('function (x) { return [x, typeof x, NumberInt(x)]; }');
  assert.deepEqual(scope.call(identity, [new Int32(3)]), [new Double(3), 'number', new Int32(3)]);
});

test('killOp and maxTimeMS stop a running call with the operation code', () => {
  const killed = new AbortController();
  const s1 = engine.newScope({ deadlineMs: undefined, signal: killed.signal });
  // The deadline is set once the scope exists: making one may take long on a busy machine.
  const op2: { deadlineMs: number | undefined; signal: AbortSignal } = {
    deadlineMs: undefined,
    signal: new AbortController().signal,
  };
  const s2 = engine.newScope(op2);
  try {
    const loop1 = s1.compile('for (;;) {}');
    killed.abort();
    assert.throws(
      () => s1.call(loop1, []),
      (e) => e instanceof CommandError && e.code === 11601,
    );
    const loop2 = s2.compile('for (;;) {}');
    op2.deadlineMs = Date.now() + 20;
    assert.throws(
      () => s2.call(loop2, []),
      (e) => e instanceof CommandError && e.code === 50,
    );
  } finally {
    s1.dispose();
    s2.dispose();
  }
});

test('code replacing JSON or Array in its own context cannot forge what comes back', () => {
  const s = engine.newScope({ deadlineMs: undefined, signal: new AbortController().signal });
  try {
    const f = s.compile(
      'function () { JSON.stringify = function () { return \'{"$oid":"zz"}\'; }; Array.prototype.join = function () { return "}{"; }; return [1, 2]; }',
    );
    assert.throws(
      () => s.call(f, []),
      (e) => e instanceof CommandError && e.code === 139,
    );
  } finally {
    s.dispose();
  }
});
