// replSetStepDown and replSetFreeze answered as the primary of a one-member replica set:
// argument checks, the step-down attempt that finds no electable secondary (no writes while it
// waits), `force: true` refused, and a frozen primary refused.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { expectServerCode } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';

describe('replSetStepDown / replSetFreeze on a one-member set', () => {
  let ts: TestServer;
  let admin: Db;

  before(async () => {
    ts = await startTestServer();
    admin = ts.client.db('admin');
  });
  after(() => ts.stop());

  it('checks its arguments as mongod does', async () => {
    const bad = [
      [{ replSetStepDown: -1 }, 2],
      [{ replSetStepDown: 60, secondaryCatchUpPeriodSecs: -1 }, 2],
      [{ replSetStepDown: 5, secondaryCatchUpPeriodSecs: 10 }, 2],
      [{ replSetStepDown: 60, secondaryCatchUpPeriodSecs: 'x' }, 14],
      [{ replSetStepDown: 60, secondaryCatchUpPeriodSecs: 1.5 }, 2],
      // stepDownSecs 0 means 60, so 30 seconds of catch-up is allowed (the wait is cut short).
      [{ replSetStepDown: 0, secondaryCatchUpPeriodSecs: 30, maxTimeMS: 50 }, 50],
    ] as const;
    for (const [cmd, code] of bad) await expectServerCode(admin.command(cmd), code);
    const e = await expectServerCode(
      admin.command({ replSetStepDown: 5, secondaryCatchUpPeriodSecs: 10 }),
      2,
    );
    assert.equal(e.errmsg, 'stepdown period must be longer than secondaryCatchUpPeriodSecs');
  });

  it('fails with ExceededTimeLimit once the catch-up period passes, taking no writes meanwhile', async () => {
    const coll = (await ts.newClient({ retryWrites: false })).db('rs').collection<TestDoc>('c');
    await coll.insertOne({ _id: 'before' });
    const attempt = admin
      .command({ replSetStepDown: 10, secondaryCatchUpPeriodSecs: 1 })
      .catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const w = await expectServerCode(coll.insertOne({ _id: 'during' }), 10107);
    assert.equal(w.codeName, 'NotWritablePrimary');
    // hello says so; reads still work (on a client that saw no error, so still selects this
    // server), and a second attempt is refused.
    const during = await admin.command({ hello: 1 });
    assert.equal(during['isWritablePrimary'], false);
    assert.equal(during['secondary'], false);
    assert.equal(await ts.client.db('rs').collection<TestDoc>('c').countDocuments({}), 1);
    await expectServerCode(
      admin.command({ replSetStepDown: 10, secondaryCatchUpPeriodSecs: 1 }),
      117,
    );
    const err = (await attempt) as { code?: number; codeName?: string; errmsg?: string };
    assert.equal(err.code, 262);
    assert.equal(err.codeName, 'ExceededTimeLimit');
    assert.match(err.errmsg ?? '', /^No electable secondaries caught up as of \d{4}-\d\d-\d\dT/);
    assert.match(err.errmsg ?? '', /\{force: true\} to force node to step down\.$/);
    // Primary and writable again.
    await coll.insertOne({ _id: 'after' });
    const hello = await admin.command({ hello: 1 });
    assert.equal(hello['isWritablePrimary'], true);
  });

  it('with secondaryCatchUpPeriodSecs 0 fails at once', async () => {
    await expectServerCode(
      admin.command({ replSetStepDown: 60, secondaryCatchUpPeriodSecs: 0 }),
      262,
    );
  });

  it('refuses force: true with NotImplemented, the node staying primary', async () => {
    const e = await expectServerCode(admin.command({ replSetStepDown: 1, force: true }), 238);
    assert.match(e.errmsg, /force: true is not supported/);
    const hello = await admin.command({ hello: 1 });
    assert.equal(hello['isWritablePrimary'], true);
  });

  it('replSetFreeze on the primary answers NotSecondary', async () => {
    for (const secs of [10, 0]) {
      const e = await expectServerCode(admin.command({ replSetFreeze: secs }), 95);
      assert.equal(e.codeName, 'NotSecondary');
      assert.equal(
        e.errmsg,
        'Cannot freeze node when primary or running for election, state: Primary',
      );
    }
  });

  it('a standalone answers NoReplicationEnabled', async () => {
    const standalone = await startTestServer({ replSet: '' });
    try {
      const a = standalone.client.db('admin');
      await expectServerCode(a.command({ replSetStepDown: 60 }), 76);
      await expectServerCode(a.command({ replSetFreeze: 10 }), 76);
    } finally {
      await standalone.stop();
    }
  });
});
