// $changeStreamSplitLargeEvent through the driver: an event over 16 MiB (a replacement with
// its pre-image) arrives as fragments that together hold every field; a stream resumed from a
// fragment's token continues with the next fragment; misplaced or malformed stages and
// resumes get mongod's codes.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChangeStreamDocument, Document, ResumeToken } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

const big = (c: string): string => c.repeat(9 * 1024 * 1024);
const split = [{ $changeStreamSplitLargeEvent: {} }];
const options = { fullDocumentBeforeChange: 'required' as const };

describe('$changeStreamSplitLargeEvent', () => {
  let ts: TestServer;
  let startToken: ResumeToken;

  before(async () => {
    ts = await startTestServer();
    const db = ts.client.db('split');
    await db.createCollection('c', { changeStreamPreAndPostImages: { enabled: true } });
    const c = db.collection<TestDoc>('c');
    await c.insertOne({ _id: 1, small: 1 });
    const probe = c.watch();
    await probe.tryNext();
    startToken = probe.resumeToken;
    await probe.close();
    await c.replaceOne({ _id: 1 }, { _id: 1, a: big('a') });
    await c.replaceOne({ _id: 1 }, { _id: 1, b: big('b') });
  });
  after(() => ts.stop());

  it('splits an event over 16 MiB into fragments holding all its fields', async () => {
    const c = ts.client.db('split').collection<TestDoc>('c');
    const stream = c.watch(split, { ...options, startAfter: startToken });
    try {
      // The first replace is small enough (its pre-image is tiny): it comes whole.
      const whole = (await stream.next()) as Document;
      assert.equal(whole['operationType'], 'replace');
      assert.equal(whole['splitEvent'], undefined);
      const first = (await stream.next()) as Document;
      const second = (await stream.next()) as Document;
      assert.deepEqual(first['splitEvent'], { fragment: 1, of: 2 });
      assert.deepEqual(second['splitEvent'], { fragment: 2, of: 2 });
      assert.notDeepEqual(first['_id'], second['_id'], 'each fragment has its own token');
      const fields = new Set([...Object.keys(first), ...Object.keys(second)]);
      for (const f of ['operationType', 'fullDocument', 'fullDocumentBeforeChange', 'ns'])
        assert.ok(fields.has(f), `${f} is in a fragment`);
      // Smallest fields first: the small ones travel with the first fragment.
      assert.equal(first['operationType'], 'replace');
      const docs = [first['fullDocument'], second['fullDocument']].find((d) => d !== undefined);
      assert.equal((docs as Document)['b'], big('b'));

      // Resuming from the first fragment's token delivers the second fragment again.
      const resumed = c.watch(split, { ...options, resumeAfter: first['_id'] as ResumeToken });
      const again = (await resumed.next()) as Document;
      assert.deepEqual(again['splitEvent'], { fragment: 2, of: 2 });
      assert.deepEqual(again['_id'], second['_id']);
      await resumed.close();
    } finally {
      await stream.close();
    }
  });

  it('misuse gets mongod codes, and the server keeps serving', async () => {
    const db = ts.client.db('split');
    const c = db.collection<TestDoc>('c');
    const open = (pipeline: Document[], extra: Document = {}): Promise<Document> =>
      db.command({
        aggregate: 'c',
        pipeline: [{ $changeStream: {} }, ...pipeline],
        cursor: {},
        ...extra,
      });
    await expectServerCode(open([{ $changeStreamSplitLargeEvent: { a: 1 } }]), 7182800);
    await expectServerCode(open([{ $changeStreamSplitLargeEvent: 1 }]), 7182800);
    await expectServerCode(open([{ $changeStreamSplitLargeEvent: {} }, { $match: {} }]), 7182802);
    await expectServerCode(db.command({ aggregate: 'c', pipeline: split, cursor: {} }), 20);
    await expectServerCode(
      db.command({ aggregate: 'c', pipeline: [{ $facet: { x: split } }], cursor: {} }),
      20,
    );

    // A fragment's token without the split stage cannot be resumed from.
    const stream = c.watch(split, { ...options, startAfter: startToken });
    await stream.next();
    const fragment = (await stream.next()) as ChangeStreamDocument & Document;
    await stream.close();
    await expectServerCode(
      db.command({
        aggregate: 'c',
        pipeline: [{ $changeStream: { resumeAfter: fragment._id } }],
        cursor: {},
      }),
      280,
    );
    assert.equal(await c.countDocuments(), 1);
  });
});
