// Runs the update corpus (test/unit/update/corpus): every case is compiled and applied,
// and the resulting document (bytes: field order and numeric types), the modified flag or
// the error code and message are checked. The input document must come out unchanged.
//
// arrayFilters and $pull conditions need a matcher: the corpus runs twice, with the small
// test matcher and with the real one (src/query/match, under mongod's restrictions for
// these filters), which is how the commands call the update layer.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ObjectId, Timestamp } from 'bson';
import { compileUpdate } from '../../../src/update/index.js';
import type { CompileUpdateOptions, FilterCompiler } from '../../../src/update/index.js';
import { compileRestrictedFilter } from '../../../src/query/match/index.js';
import type { BsonDocument } from '../../../src/bson/types.js';
import { isCommandError } from '../../../src/errors.js';
import { corpus, isErrorExpectation, NEXT_TS, NOW } from './corpus/index.js';
import type { UpdateCase } from './corpus/index.js';
import { assertSameBson, encode } from './bson-assert.js';
import { fakeCompileFilter } from './fake-matcher.js';
import { shell, shellDoc } from './values.js';

const generatedId = new ObjectId('000000000000000000000001');

function run(c: UpdateCase, compileFilter: FilterCompiler) {
  const options: CompileUpdateOptions = {
    compileFilter,
    ...(c.arrayFilters ? { arrayFilters: c.arrayFilters.map(shellDoc) } : {}),
    ...(c.multi ? { multi: true } : {}),
  };
  const update = shell(c.update) as BsonDocument | BsonDocument[];
  const nextTimestamp = (): Timestamp => new Timestamp(NEXT_TS);
  const compiled = compileUpdate(update, options);
  if (c.upsert) {
    return {
      input: undefined,
      result: compiled.upsert(shellDoc(c.query ?? {}), {
        now: NOW,
        nextTimestamp,
        generateId: () => generatedId,
      }),
    };
  }
  const input = shellDoc(c.doc);
  return {
    input,
    result: compiled.apply(input, {
      isInsert: false,
      now: NOW,
      nextTimestamp,
      positional: c.positional,
    }),
  };
}

const matchers: ReadonlyArray<readonly [string, FilterCompiler]> = [
  ['test matcher', fakeCompileFilter],
  ['src/query/match', (filter) => compileRestrictedFilter(filter)],
];

for (const [matcherName, compileFilter] of matchers) {
  describe(matcherName, () => {
    for (const [group, cases] of corpus) {
      describe(group, () => {
        const names = new Set<string>();
        for (const c of cases) {
          test(c.name, () => {
            assert.ok(!names.has(c.name), `duplicate case name ${c.name}`);
            names.add(c.name);
            check(c, compileFilter);
          });
        }
      });
    }
  });
}

function check(c: UpdateCase, compileFilter: FilterCompiler): void {
  const expect = c.expect;
  if (isErrorExpectation(expect)) {
    assert.throws(
      () => run(c, compileFilter),
      (e: unknown) => {
        assert.ok(isCommandError(e), `expected a CommandError, got ${String(e)}`);
        assert.equal(e.code, expect.error, `code (message: ${e.message})`);
        if (typeof expect.message === 'string') assert.equal(e.message, expect.message);
        else if (expect.message) assert.match(e.message, expect.message);
        return true;
      },
    );
    return;
  }
  const before = c.doc === undefined ? undefined : encode(shellDoc(c.doc));
  const { input, result } = run(c, compileFilter);
  assertSameBson(result.doc, shellDoc(expect.doc), {
    anyFieldOrder: expect.anyFieldOrder === true,
  });
  assert.equal(result.modified, expect.modified, 'modified');
  if (input !== undefined && before !== undefined) {
    assert.ok(encode(input).equals(before), 'the input document was changed');
    if (!result.modified)
      assert.equal(result.doc, input, 'a no-op returns the input document itself');
  }
}
