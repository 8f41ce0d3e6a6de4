// readConcern on getMore, as mongod's: any level is accepted and the cursor keeps its own read
// concern (a snapshot cursor keeps reading its snapshot); afterClusterTime is refused.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db, Document, Long, Timestamp } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

describe('readConcern on getMore', () => {
  let ts: TestServer;
  let db: Db;

  before(async () => {
    ts = await startTestServer();
    db = ts.client.db('gmrc');
    await db.collection<TestDoc>('c').insertMany([1, 2, 3, 4, 5].map((i) => ({ _id: i })));
  });
  after(() => ts.stop());

  const ids = (reply: Document): unknown[] =>
    (reply['cursor'] as { nextBatch: Document[] }).nextBatch.map((d) => d['_id']);

  it("accepts any level and reads from the snapshot cursor's own snapshot", async () => {
    const first = await db.command({
      find: 'c',
      batchSize: 1,
      readConcern: { level: 'snapshot' },
    });
    const cursor = first['cursor'] as { id: Long; atClusterTime: Timestamp };
    // Written after the snapshot: the cursor must not see it, whatever the getMore asks for.
    await db.collection<TestDoc>('c').insertOne({ _id: 0 });
    const levels = [
      { level: 'snapshot' },
      { level: 'snapshot', atClusterTime: cursor.atClusterTime },
      { level: 'local' },
      { level: 'majority' },
    ];
    const seen: unknown[] = [];
    for (const readConcern of levels) {
      const r = await db.command({
        getMore: cursor.id,
        collection: 'c',
        batchSize: 1,
        readConcern,
      });
      seen.push(...ids(r));
    }
    assert.deepEqual(seen, [2, 3, 4, 5]);
    await db.collection<TestDoc>('c').deleteOne({ _id: 0 });
  });

  it('accepts level snapshot on a cursor that was not a snapshot read', async () => {
    const first = await db.command({ find: 'c', batchSize: 1, sort: { _id: 1 } });
    const id = (first['cursor'] as { id: Long }).id;
    const r = await db.command({
      getMore: id,
      collection: 'c',
      batchSize: 2,
      readConcern: { level: 'snapshot' },
    });
    assert.deepEqual(ids(r), [2, 3]);
  });

  it('refuses afterClusterTime with InvalidOptions', async () => {
    const first = await db.command({ find: 'c', batchSize: 1 });
    const hello = await db.admin().command({ hello: 1 });
    const time = (hello['lastWrite'] as { majorityOpTime: { ts: Timestamp } }).majorityOpTime.ts;
    const e = await expectServerCode(
      db.command({
        getMore: (first['cursor'] as { id: Long }).id,
        collection: 'c',
        readConcern: { afterClusterTime: time },
      }),
      72,
    );
    assert.equal(e.errmsg, 'afterClusterTime is not allowed for this command');
  });
});
