// Runs the matcher corpus (test/unit/query/corpus): each case's filter against its documents,
// comparing the matching `_id`s with what mongod returns; each error case against mongod's code.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { compareBson } from '../../../src/bson/compare.js';
import type { BsonDocument } from '../../../src/bson/types.js';
import { CommandError } from '../../../src/errors.js';
import { compileFilter } from '../../../src/query/match/index.js';
import { allMatchCases, allMatchErrorCases } from './corpus/index.js';
import { bs, doc } from './corpus/values.js';

for (const c of allMatchCases) {
  test(`match: ${c.name}`, () => {
    const matcher = compileFilter(doc(c.filter));
    const got = c.docs
      .map((d) => doc(d))
      .filter((d: BsonDocument) => matcher.matches(d))
      .map((d) => d['_id']);
    if (c.expectedCount !== undefined)
      assert.equal(got.length, c.expectedCount, `count (${c.source})`);
    if (c.expected === undefined) return;
    const want = c.expected.map(bs);
    assert.equal(
      got.length,
      want.length,
      `matched ${JSON.stringify(got)}, expected ${JSON.stringify(want)} (${c.source})`,
    );
    got.forEach((id, i) =>
      assert.equal(
        compareBson(id ?? null, want[i] ?? null),
        0,
        `position ${i}: ${String(id)} (${c.source})`,
      ),
    );
  });
}

for (const c of allMatchErrorCases) {
  test(`match error: ${c.name}`, () => {
    assert.throws(
      () => compileFilter(doc(c.filter)),
      (e: unknown) => {
        assert.ok(e instanceof CommandError, `not a CommandError: ${String(e)}`);
        assert.equal(e.code, c.code, `${e.message} (${c.source})`);
        if (c.message !== undefined)
          assert.ok(e.message.includes(c.message), `message "${e.message}" lacks "${c.message}"`);
        return true;
      },
    );
  });
}
