// The regex cost guard (src/query/match/regex-guard.ts): the bounds it computes, that a
// search it sends to the worker answers exactly as the same RegExp run here, and that a search
// running past the time limit fails with 51156 instead of holding the thread.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { CommandError } from '../../../src/errors.js';
import { limits } from '../../../src/limits.js';
import { compileRegex } from '../../../src/query/match/regex.js';
import { guardRegex, patternShape, searchBound } from '../../../src/query/match/regex-guard.js';

describe('searchBound', () => {
  const bound = (pattern: string, input: string, flags = 'u'): number =>
    searchBound(patternShape(new RegExp(pattern, flags).source, flags), input, 0);
  const budget = limits.regexNativeStepsMax;

  // Patterns whose backtracking blows up on these inputs: never run on the main thread.
  const heavy: Array<[string, string]> = [
    ['^(a+)+$', `${'a'.repeat(35)}b`],
    // Bounded repeats of an alternation fooled the former estimate (3 s on 26 characters).
    ['^(?:a|a){16}(?:a|a){10}$', 'a'.repeat(26)],
    ['(a|aa)+$', `${'a'.repeat(40)}!`],
    ['(.*a){10}', 'a'.repeat(60)],
    ['.*a.*a.*a.*b', 'a'.repeat(100_000)],
    ['(\\w+)\\1x', 'ab'.repeat(5_000)],
    ['(?=(a+)+$)a', `${'a'.repeat(40)}!`],
  ];
  for (const [pattern, input] of heavy) {
    test(`${pattern} on ${input.length} characters is over the budget`, () => {
      assert.ok(bound(pattern, input) > budget);
    });
  }

  // Everyday patterns on everyday strings: searched in place.
  const light: Array<[string, string, string?]> = [
    ['abc', 'x'.repeat(10_000)],
    ['abc', 'x'.repeat(10_000), 'iu'],
    ['^prefix', `prefix${'x'.repeat(100_000)}`],
    ['foo.*bar', `${'x'.repeat(1000)}foo${'y'.repeat(1000)}`],
    ['^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$', 'someone.name@example.com', 'iu'],
    ['^(a+)+$', 'aaaa'],
  ];
  for (const [pattern, input, flags] of light) {
    test(`${pattern} on ${input.length} characters is within the budget`, () => {
      assert.ok(bound(pattern, input, flags) <= budget);
    });
  }

  test('the bound grows with the input and never goes down', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('a+b', '(a|b)*c', '^(ab)+$', 'x{2,5}y', '(?:a|a){3}', '\\d+x'),
        fc.nat(200),
        fc.nat(200),
        (pattern, m, k) => {
          const [short, long] = m <= k ? [m, k] : [k, m];
          const b1 = bound(pattern, 'a'.repeat(short));
          const b2 = bound(pattern, 'a'.repeat(long));
          assert.ok(!Number.isNaN(b1) && !Number.isNaN(b2));
          assert.ok(b1 <= b2, `${pattern}: ${b1} > ${b2}`);
        },
      ),
      { numRuns: 100 },
    );
  });
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
