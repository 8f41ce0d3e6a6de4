// mongorestore's namespace patterns: wildcards, escapes, renames by position or by variable.

import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  escapePattern,
  NamespaceMatcher,
  NamespaceRenamer,
} from '../../../src/tools/ns-patterns.js';
import { ToolError } from '../../../src/tools/tool-error.js';

describe('--nsInclude / --nsExclude patterns', () => {
  const cases: Array<[string, string, boolean]> = [
    ['*', 'a.b', true],
    ['a.*', 'a.b', true],
    ['a.*', 'a.b.c', true], // "*" crosses dots
    ['a.*', 'ab.c', false],
    ['*.users', 'x.users', true],
    ['*.users', 'x.users2', false],
    ['a.b', 'a.b', true],
    ['a.b', 'aXb', false], // "." is literal
    ['a.\\*', 'a.*', true], // escaped asterisk
    ['a.\\*', 'a.b', false],
    ['a\\\\b.*', 'a\\b.c', true], // escaped backslash
    ['pre*.*post', 'prefix.middle.post', true],
    ['(x)[y]+?.c', '(x)[y]+?.c', true], // regex specials are literal
  ];
  for (const [pattern, ns, want] of cases)
    it(`${pattern} ${want ? 'matches' : 'does not match'} ${ns}`, () => {
      assert.equal(new NamespaceMatcher([pattern]).has(ns), want);
    });

  it('refuses "$" in include and exclude patterns', () => {
    assert.throws(() => new NamespaceMatcher(['a.$b$']), ToolError);
  });

  it('escapes names for use in patterns', () => {
    assert.equal(escapePattern('we*ird\\db'), 'we\\*ird\\\\db');
    assert.ok(new NamespaceMatcher([`${escapePattern('we*ird')}.*`]).has('we*ird.c'));
    assert.ok(!new NamespaceMatcher([`${escapePattern('we*ird')}.*`]).has('weXird.c'));
  });
});

describe('--nsFrom / --nsTo renames', () => {
  it('maps wildcards by position', () => {
    const r = new NamespaceRenamer(['a.*_*'], ['b.*-*']);
    assert.equal(r.rename('a.x_y'), 'b.x-y');
    assert.equal(r.rename('c.x_y'), 'c.x_y');
  });

  it('maps variables by name, in any order', () => {
    const r = new NamespaceRenamer(['$db$.$coll$'], ['$coll$.$db$']);
    assert.equal(r.rename('shop.orders'), 'orders.shop');
  });

  it('tries the last pair first', () => {
    const r = new NamespaceRenamer(['a.*', 'a.special'], ['b.*', 'c.special']);
    assert.equal(r.rename('a.special'), 'c.special');
    assert.equal(r.rename('a.other'), 'b.other');
  });

  it('refuses malformed pairs', () => {
    assert.throws(() => new NamespaceRenamer(['a.*'], []), /equal number of times/);
    assert.throws(() => new NamespaceRenamer(['a.*.*'], ['b.*']), /different number of asterisks/);
    assert.throws(() => new NamespaceRenamer(['$a$.x'], ['$b$.x']), /unknown variable "b"/);
    assert.throws(() => new NamespaceRenamer(['$a$.$a$'], ['$a$']), /used more than once/);
    assert.throws(() => new NamespaceRenamer(['$a.x'], ['y']), /odd number of dollar signs/);
  });
});
