// The regex cost guard (src/query/match/regex-guard.ts): the cost classes it assigns, that a
// search it sends to the worker answers exactly as the same RegExp run here, and that a search
// running past the time limit fails with 51156 instead of holding the thread.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { CommandError } from '../../../src/errors.js';
import { limits } from '../../../src/limits.js';
import { compileRegex } from '../../../src/query/match/regex.js';
import { guardRegex, regexCost } from '../../../src/query/match/regex-guard.js';

describe('regexCost', () => {
  const cases: Array<[string, string]> = [
    ['abc', 'polynomial 0'],
    ['^a.*b', 'polynomial 1'],
    ['.*a.*a.*a.*b', 'polynomial 4'],
    ['x{1,5}y', 'polynomial 0'],
    ['x{2,}y', 'polynomial 1'],
    ['x{1,1000}y', 'polynomial 1'],
    ['(ab)+c', 'polynomial 1'],
    ['(?:ab)+c', 'polynomial 1'],
    ['(?<name>ab)+c', 'polynomial 1'],
    ['foo(?=bar)', 'polynomial 0'],
    ['(?:a+)?b', 'polynomial 1'],
    ['[(+*]+', 'polynomial 1'],
    ['\\(a+\\)+', 'polynomial 2'],
    ['(a+)+$', 'exponential'],
    ['(a*)*b', 'exponential'],
    ['(a|aa)+$', 'exponential'],
    ['(?:a|b)*c', 'exponential'],
    ['(a?){20}', 'exponential'],
    ['(.*a){10}', 'exponential'],
    ['((ab)*c)+', 'exponential'],
    ['(\\w+)\\1', 'exponential'],
    ['(?<x>a)\\k<x>', 'exponential'],
  ];
  for (const [pattern, expected] of cases) {
    test(pattern, () => {
      const c = regexCost(new RegExp(pattern, 'u').source);
      assert.equal(c.kind === 'exponential' ? c.kind : `${c.kind} ${c.degree}`, expected);
    });
  }
});

function errorCode(fn: () => unknown): number | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e instanceof CommandError ? e.code : -1;
  }
}

describe('guarded searches', () => {
  test('a search sent to the worker answers as the same RegExp run here', () => {
    // Quantified alternations are "exponential": on strings longer than the native bound they
    // run in the worker. These ones are fast, so both sides answer.
    const patterns = ['(?:a|b)*c', '(a|ab)+b$', '^(?:ab|ba)+', '(b|c)+a(?:a|c)*', '(\\w)\\1'];
    fc.assert(
      fc.property(
        fc.constantFrom(...patterns),
        fc.stringMatching(/^[abc]{17,80}$/),
        fc.nat(20),
        (pattern, input, from) => {
          const native = new RegExp(pattern, 'gu');
          native.lastIndex = from;
          const expected = native.exec(input);
          const guarded = guardRegex(new RegExp(pattern, 'gu'), '$regex');
          const got = guarded.exec(input, from);
          assert.deepEqual(
            got,
            expected === null ? null : { index: expected.index, groups: Array.from(expected) },
          );
          assert.equal(guarded.test(input), new RegExp(pattern, 'u').test(input));
        },
      ),
      { numRuns: 150 },
    );
  });

  test('long strings go to the worker and still match', () => {
    const re = compileRegex('^abc.*xyz$', '');
    assert.equal(re.test(`abc${'q'.repeat(200_000)}xyz`), true);
    assert.equal(re.test(`abc${'q'.repeat(200_000)}xy`), false);
  });

  test('exponential backtracking fails with 51156 within the limit, and the next search works', () => {
    const re = compileRegex('(a+)+$', '');
    const started = performance.now();
    assert.equal(
      errorCode(() => re.test(`${'a'.repeat(40)}!`)),
      51156,
    );
    const elapsed = performance.now() - started;
    // 2^40 steps would take hours; the guard gives up after the limit (plus a worker start).
    assert.ok(
      elapsed < limits.regexMatchTimeMsMax + limits.regexWorkerStartMsMax,
      `took ${elapsed} ms`,
    );
    assert.equal(re.test('a'.repeat(40)), true);
    assert.equal(re.test('b'.repeat(40)), false);
  });

  test('polynomial blow-up on a long string fails with 51156', () => {
    const re = compileRegex('.*a.*a.*a.*b', '');
    assert.equal(
      errorCode(() => re.test('a'.repeat(100_000))),
      51156,
    );
  });

  test('the error names the operator', () => {
    const re = guardRegex(/(x+x+)+y/u, '$regexMatch');
    assert.throws(
      () => re.test('x'.repeat(40)),
      /in \$regexMatch\. Result code: match limit exceeded/,
    );
  });
});
