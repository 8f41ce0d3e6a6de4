// The jsonfile engine: the shared contract and the cross-process suite on a real data
// directory, plus what is particular to it — a log people can read, a torn tail ignored on
// replay, compaction on close and while open, damage refused.

import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BSON, Double, Int32 } from 'bson';
import { registerContractSuite } from './contract.js';
import { diskEngineFixture, registerProcessSuite } from './process-suite.js';
import { openEngine } from '../../../src/storage/open.js';
import {
  JsonFileEngine,
  JsonFileFormatError,
  jsonFileName,
} from '../../../src/storage/jsonfile/jsonfile-engine.js';

const { freshDir, openAt, contract } = diskEngineFixture('jsonfile', 40);

registerContractSuite(contract);

registerProcessSuite({ engine: 'jsonfile', freshDir, openAt });

const durable = { durable: true } as const;
const b = (s: string): Buffer => Buffer.from(s);
const logOf = (dir: string): string => fs.readFileSync(path.join(dir, jsonFileName), 'utf8');
const lines = (dir: string): Record<string, unknown>[] =>
  logOf(dir)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('jsonfile engine', () => {
  it('needs a path and logs documents as canonical Extended JSON, other bytes as binaries', async () => {
    await assert.rejects(openEngine({ engine: 'jsonfile' }), TypeError);
    const dir = freshDir();
    const e = await openAt(dir);
    assert.equal(e.name, 'jsonfile');
    assert.equal(e.persistent, true);
    const doc = BSON.serialize({ _id: new Int32(1), x: new Double(2), s: 'é', __proto__: 'data' });
    await e.write((t) => {
      t.put('coll', b('k1'), doc);
      t.put('raw', b('k2'), Buffer.from([1, 2, 3]));
      t.delete('coll', b('absent'));
    }, durable);
    await e.write((t) => t.delete('raw', b('k2')), durable);
    const log = lines(dir);
    assert.deepEqual(log[0], { secantus: 'jsonfile', version: 1, seq: 0 });
    assert.deepEqual(log.slice(1), [
      {
        op: 'put',
        table: 'coll',
        key: { $binary: { base64: b('k1').toString('base64'), subType: '00' } },
        doc: { _id: { $numberInt: '1' }, x: { $numberDouble: '2.0' }, s: 'é', __proto__: 'data' },
      },
      {
        op: 'put',
        table: 'raw',
        key: { $binary: { base64: b('k2').toString('base64'), subType: '00' } },
        value: { $binary: { base64: 'AQID', subType: '00' } },
      },
      { commit: 1 },
      {
        op: 'del',
        table: 'raw',
        key: { $binary: { base64: b('k2').toString('base64'), subType: '00' } },
      },
      { commit: 2 },
    ]);
    e.snapshot().release();
    const s = e.snapshot();
    assert.ok(Buffer.from(s.get('coll', b('k1')) ?? []).equals(doc));
    s.release();
    await e.close();
    // The same bytes come back from the Extended JSON after a restart.
    const again = await openAt(dir);
    const s2 = again.snapshot();
    assert.ok(Buffer.from(s2.get('coll', b('k1')) ?? []).equals(doc));
    assert.equal(s2.count('raw'), 0);
    s2.release();
    await again.close();
  });

  it('ignores a torn last line and an uncommitted last transaction, then appends after them', async () => {
    const dir = freshDir();
    const e = await openAt(dir);
    await e.write((t) => t.put('t', b('a'), b('1')), durable);
    await e.write((t) => t.put('t', b('b'), b('2')), durable);
    const seq = e.committedSeq;
    // Leave the log as a crash leaves it (no compaction on close): kill -9 is tested above.
    const whole = logOf(dir);
    await e.close();
    const file = path.join(dir, jsonFileName);
    const uncommitted = JSON.stringify({
      op: 'put',
      table: 't',
      key: { $binary: { base64: 'eg==', subType: '00' } },
      value: { $binary: { base64: 'eg==', subType: '00' } },
    });
    fs.writeFileSync(file, `${whole}${uncommitted}\n{"commit":${seq + 1}`);
    const e2 = await openAt(dir);
    assert.equal(e2.committedSeq, seq);
    let s = e2.snapshot();
    assert.deepEqual(
      [...s.scan('t')].map((x) => String(x.key)),
      ['a', 'b'],
    );
    s.release();
    assert.equal(logOf(dir), whole, 'the tail is cut off');
    await e2.write((t) => t.put('t', b('c'), b('3')), durable);
    await e2.close();
    const e3 = await openAt(dir);
    assert.equal(e3.committedSeq, seq + 1);
    s = e3.snapshot();
    assert.deepEqual(
      [...s.scan('t')].map((x) => String(x.key)),
      ['a', 'b', 'c'],
    );
    s.release();
    await e3.close();
  });

  it('refuses damage before the last line and files it did not write, and unlocks', async () => {
    const dir = freshDir();
    const e = await openAt(dir);
    await e.write((t) => t.put('t', b('a'), b('1')), durable);
    await e.close();
    const file = path.join(dir, jsonFileName);
    const good = logOf(dir);
    fs.writeFileSync(file, good.replace('"op":"put"', '"op":"put"}garbage'));
    await assert.rejects(
      openAt(dir),
      (err: unknown) => err instanceof JsonFileFormatError && /line 2: not JSON/.test(err.message),
    );
    fs.writeFileSync(file, '{"someone":"else"}\n');
    await assert.rejects(openAt(dir), /not a SecantusDB jsonfile log/);
    fs.writeFileSync(file, good);
    const ok = await openAt(dir); // the failed opens released the lock
    assert.equal(ok.committedSeq, 1);
    await ok.close();
  });

  it('compacts on close, and while open when the log outgrows the data, without losing a write', async () => {
    const dir = freshDir();
    const e = await JsonFileEngine.open({ path: dir, compactLogBytesMin: 20_000 });
    const value = Buffer.alloc(200, 7);
    let peak = 0;
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 40; round++) {
      // Overwrites: the log grows, the data does not; writes keep coming during compactions.
      for (let i = 0; i < 10; i++)
        writes.push(
          e.write((t) => t.put('t', b(`k${i}`), Buffer.concat([value, b(String(round))])), durable),
        );
      await writes[writes.length - 1];
      peak = Math.max(peak, e.stats().storageSizeBytes);
    }
    await Promise.all(writes);
    const seq = e.committedSeq;
    assert.equal(seq, 400);
    assert.ok(peak < 60_000, `the log reached ${peak} bytes: not compacted while open`);
    await e.close();
    const log = lines(dir);
    assert.deepEqual(log[0], { secantus: 'jsonfile', version: 1, seq });
    assert.equal(log.length, 12, 'after close: header, 10 puts, one commit');
    const e2 = await openAt(dir);
    assert.equal(e2.committedSeq, seq);
    const s = e2.snapshot();
    assert.equal(s.count('t'), 10);
    assert.ok(String(s.get('t', b('k3'))).endsWith('39'));
    s.release();
    assert.equal(await e2.write((t) => t.seq, durable), seq + 1);
    await e2.close();
  });
});
