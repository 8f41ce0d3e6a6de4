// Disk full never kills the daemon: on a small tmpfs, a write that cannot be committed fails
// with OutOfDiskSpace (14031) and leaves nothing, reads and other clients go on, acknowledged
// data stays, and writes succeed again once space is freed, without a restart. Mounting a
// tmpfs needs root; where it cannot be mounted the test is skipped with a visible line.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Collection } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { TestDoc } from '../helpers/driver.js';

const root = mkdtempSync(join(tmpdir(), 'secantus-diskfull-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', root], { stdio: 'ignore' });
  mounted = true;
} catch {
  process.stdout.write(
    '# disk-full: skipped (cannot mount a size-limited tmpfs here: needs root)\n',
  );
}

/** Fill the file system with a file until it refuses more; returns its path. */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(256 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
}

describe('disk full', { skip: !mounted }, () => {
  let ts: TestServer;
  let coll: Collection<TestDoc>;
  const dbPath = join(root, 'db');
  const filler = join(root, 'filler');
  const big = 'x'.repeat(200_000);
  const acknowledged: TestDoc[] = Array.from({ length: 10 }, (_, i) => ({ _id: i, big }));

  before(async () => {
    ts = await startTestServer({ dbPath });
    coll = ts.client.db('full').collection<TestDoc>('c');
    await coll.insertMany(acknowledged);
  });
  after(async () => {
    await ts?.stop();
    if (mounted) execFileSync('umount', [root], { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  });

  test('a write that cannot commit fails with 14031, the server keeps serving', async () => {
    fill(filler);
    let refused: MongoServerError | undefined;
    // The data file may hold free pages still: write until the commit needs new space.
    for (let i = 0; i < 200 && refused === undefined; i++) {
      try {
        await coll.insertOne({ _id: 1000 + i, big });
      } catch (e) {
        assert.ok(e instanceof MongoServerError, String(e));
        refused = e;
      }
    }
    assert.ok(refused !== undefined, 'a write was refused');
    assert.equal(refused.code, 14031);
    assert.equal(refused.codeName, 'OutOfDiskSpace');
    const failedId = (await coll.find({ _id: { $gte: 1000 } }).toArray()).length + 1000;
    assert.equal(await coll.countDocuments({ _id: failedId }), 0, 'nothing of it stored');
    // Reads and other clients go on; acknowledged data is all there.
    const other = await ts.newClient();
    assert.equal((await other.db('admin').command({ ping: 1 }))['ok'], 1);
    const kept = await other
      .db('full')
      .collection<TestDoc>('c')
      .find({ _id: { $lt: 1000 } })
      .sort({ _id: 1 })
      .toArray();
    assert.deepEqual(kept, acknowledged);
    // Still full: still refused, cleanly, again; also a write creating a collection.
    await assert.rejects(
      coll.insertOne({ _id: 'again', big }),
      (e: unknown) => e instanceof MongoServerError && e.code === 14031,
    );
    await assert.rejects(
      ts.client.db('full').collection<TestDoc>('fresh').insertOne({ _id: 1, big }),
      (e: unknown) => e instanceof MongoServerError && e.code === 14031,
    );
  });

  test('once space is freed, writes succeed again without a restart', async () => {
    rmSync(filler);
    await coll.insertOne({ _id: 'after', big });
    await coll.updateOne({ _id: 0 }, { $set: { updated: true } });
    assert.equal(await coll.countDocuments({ _id: 'after' }), 1);
    assert.equal((await coll.findOne({ _id: 0 }))?.['updated'], true);
    const fresh = ts.client.db('full').collection<TestDoc>('fresh');
    await fresh.insertOne({ _id: 2, a: 1 });
    assert.deepEqual(await fresh.find().toArray(), [{ _id: 2, a: 1 }]);
  });

  test('what was acknowledged survives a restart', async () => {
    const before = await coll.find().sort({ _id: 1 }).toArray();
    await ts.stop();
    ts = await startTestServer({ dbPath });
    coll = ts.client.db('full').collection<TestDoc>('c');
    assert.deepEqual(await coll.find().sort({ _id: 1 }).toArray(), before);
  });
});
