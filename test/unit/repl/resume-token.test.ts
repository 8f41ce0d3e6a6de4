// Resume tokens: encode/decode round trips, the fragment of a split event, malformed input.

import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Binary, Int32, Timestamp } from 'bson';
import {
  decodeResumeToken,
  encodeResumeToken,
  tokenTypeEvent,
} from '../../../src/repl/resume-token.js';
import type { ResumeTokenData } from '../../../src/repl/resume-token.js';
import { splitChangeEvent } from '../../../src/repl/split-event.js';
import { CommandError } from '../../../src/errors.js';

const base = {
  clusterTime: new Timestamp({ t: 1_700_000_000, i: 3 }),
  tokenType: tokenTypeEvent,
  txnOpIndex: 2,
  fromInvalidate: false,
  uuid: new Binary(Buffer.alloc(16, 7), Binary.SUBTYPE_UUID),
  eventIdentifier: { operationType: 'insert', documentKey: { _id: new Int32(1) } },
};

describe('resume tokens', () => {
  it('round-trip with and without a fragment number, and with the invalidate flag', () => {
    const cases: ResumeTokenData[] = [
      base,
      { ...base, fragmentNum: 0 },
      { ...base, fragmentNum: 5, fromInvalidate: true },
      { ...base, uuid: undefined, eventIdentifier: undefined, fragmentNum: 1 },
    ];
    for (const d of cases) {
      const back = decodeResumeToken(encodeResumeToken(d));
      assert.equal(back.fragmentNum, d.fragmentNum);
      assert.equal(back.fromInvalidate, d.fromInvalidate);
      assert.equal(back.txnOpIndex, d.txnOpIndex);
      assert.deepEqual(back.eventIdentifier, d.eventIdentifier);
    }
  });

  it('fragment tokens sort after their event and in fragment order', () => {
    const hex = (n?: number): string =>
      String(encodeResumeToken({ ...base, fragmentNum: n })['_data']);
    assert.ok(hex() < hex(0) && hex(0) < hex(1) && hex(1) < hex(2));
  });

  it('malformed flags and truncated fragments are InvalidResumeToken (260)', () => {
    const good = String(
      encodeResumeToken({ ...base, uuid: undefined, eventIdentifier: undefined })['_data'],
    );
    const withFlags = (f: number): string =>
      good.slice(0, 28) + f.toString(16).padStart(2, '0') + good.slice(30);
    for (const bad of [withFlags(4), withFlags(2)]) {
      assert.throws(
        () => decodeResumeToken({ _data: bad }),
        (e: unknown) => e instanceof CommandError && e.code === 260,
      );
    }
  });
});

describe('splitChangeEvent', () => {
  const token = encodeResumeToken(base);

  it('fills fragments smallest field first, each within the limit, numbered 1..n', () => {
    const event = {
      _id: token,
      a: 'x'.repeat(600),
      b: 'y'.repeat(600),
      op: 'insert',
      c: 'z'.repeat(300),
    };
    const fragments = splitChangeEvent(event, 1000);
    assert.deepEqual(
      fragments.map((f) => Object.keys(f).filter((k) => k !== '_id' && k !== 'splitEvent')),
      [['op', 'c'], ['a'], ['b']],
    );
    fragments.forEach((f, i) => {
      assert.deepEqual(
        {
          fragment: Number((f['splitEvent'] as Record<string, unknown>)['fragment']),
          of: Number((f['splitEvent'] as Record<string, unknown>)['of']),
        },
        { fragment: i + 1, of: 3 },
      );
      assert.equal(decodeResumeToken(f['_id']).fragmentNum, i);
    });
    assert.equal(splitChangeEvent(event, 1000, 2).length, 1, 'skip leaves out the first ones');
  });

  it('a field larger than the limit, or nothing to split, fails with mongod codes', () => {
    assert.throws(
      () => splitChangeEvent({ _id: token, a: 'x'.repeat(2000) }, 1000),
      (e: unknown) => e instanceof CommandError && e.code === 7182500,
    );
    assert.throws(
      () => splitChangeEvent({ _id: token }, 1000),
      (e: unknown) => e instanceof CommandError && e.code === 7182502,
    );
  });
});
