// open({ dbPath, multiProcess: true }): several real processes (test/helpers/mp-worker.ts,
// run with tsx) on one data directory through the on-demand daemon. Writes and reads of
// four processes, a change stream and a transaction across processes, simultaneous starts,
// a SIGKILLed daemon replaced by the next open(), the idle exit, and the errors.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { EJSON } from 'bson';
import type { Document, MongoClient } from 'mongodb';
import { open } from '../../src/embed/embedded/index.js';
import { daemonLogName, socketPathFor } from '../../src/embed/embedded/multi-process.js';
import { socketOwner } from '../../src/server/socket-lock.js';
import { lockFileName, lockHolder } from '../../src/storage/lock-file.js';

const root = join(import.meta.dirname, '../..');
const workerScript = join(import.meta.dirname, '../helpers/mp-worker.ts');
const daemonScript = join(root, 'src/cli/secantusd.ts');
/** Short, so that the tests that wait for the idle exit do not wait long. */
const idleShutdownSecs = 1;

interface Reply {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: string;
  readonly code?: number | null;
  readonly labels?: string[];
}

class Worker {
  private readonly waiting: ((line: Document) => void)[] = [];
  private readonly early: Document[] = [];
  readonly exited: Promise<number | null>;
  stderr = '';

  private constructor(readonly proc: ChildProcessByStdio<Writable, Readable, Readable>) {
    this.exited = new Promise((r) => proc.on('exit', (code) => r(code)));
    proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    const lines = createInterface({ input: proc.stdout });
    lines.on('line', (line) => {
      const doc = EJSON.parse(line) as Document;
      const next = this.waiting.shift();
      if (next === undefined) this.early.push(doc);
      else next(doc);
    });
  }

  /** Spawn a worker on `dbPath`; resolves once its client is open. */
  static async start(
    dbPath: string,
    options: Document = { idleShutdownSecs },
  ): Promise<{ worker: Worker; daemonPid: number }> {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', workerScript, dbPath, JSON.stringify(options)],
      { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const worker = new Worker(proc);
    const ready: Document = await Promise.race([
      worker.line(),
      worker.exited.then((code): Document => ({ ready: false, error: `exited with ${code}` })),
    ]);
    if (ready['ready'] !== true)
      throw new Error(`worker not ready: ${String(ready['error'])} ${worker.stderr}`);
    return { worker, daemonPid: Number(ready['daemonPid']) };
  }

  private line(): Promise<Document> {
    const first = this.early.shift();
    if (first !== undefined) return Promise.resolve(first);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async send(cmd: Document): Promise<Reply> {
    this.proc.stdin.write(`${EJSON.stringify(cmd, { relaxed: false })}\n`);
    return (await this.line()) as Reply;
  }

  /** Run `cmd`; its result, or a failed assertion with the worker's error. */
  async run(cmd: Document): Promise<unknown> {
    const reply = await this.send(cmd);
    assert.ok(reply.ok, `worker: ${cmd['op']} failed: ${reply.error}`);
    return reply.result;
  }

  async close(): Promise<void> {
    if (this.proc.exitCode === null) await this.send({ op: 'close' });
    await this.exited;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` is gone within 30 s. */
async function exits(pid: number): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return !isAlive(pid);
}

/** Wait until no daemon holds the socket of `dir` nor its data directory. */
async function daemonGone(dir: string): Promise<void> {
  const socket = socketPathFor(realpathSync(dir));
  const deadline = Date.now() + 60_000;
  while (
    socketOwner(socket) !== undefined ||
    lockHolder(join(realpathSync(dir), lockFileName)) !== undefined
  ) {
    if (Date.now() > deadline) throw new Error(`the daemon of ${dir} did not exit`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function logLines(dir: string, msg: string): number {
  const file = join(dir, daemonLogName);
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"msg":"${msg}"`)).length;
}

describe('open({ multiProcess: true })', { timeout: 180_000 }, () => {
  let base: string;
  let n = 0;
  const fresh = (): string => join(base, `db${n++}`);
  const dirs: string[] = [];
  before(() => {
    base = mkdtempSync(join(tmpdir(), 'secantus-mp-'));
  });
  after(async () => {
    for (const d of dirs) if (existsSync(d)) await daemonGone(d);
    rmSync(base, { recursive: true, force: true });
  });
  const newDir = (): string => {
    const d = fresh();
    dirs.push(d);
    return d;
  };

  test('four processes write and read one collection at once; one daemon', async () => {
    const dir = newDir();
    const started = await Promise.all([0, 1, 2, 3].map(() => Worker.start(dir)));
    const workers = started.map((s) => s.worker);
    try {
      const pids = new Set(started.map((s) => s.daemonPid));
      assert.equal(pids.size, 1, 'every process reaches the same daemon');
      assert.notEqual([...pids][0], process.pid);
      const perWorker = 40;
      await Promise.all(
        workers.map((w, i) => w.run({ op: 'insertEach', n: perWorker, worker: i })),
      );
      const total = perWorker * workers.length;
      const counts = await Promise.all(workers.map((w) => w.run({ op: 'waitCount', n: total })));
      assert.deepEqual(counts, [total, total, total, total]);
      for (const w of workers) {
        const docs = (await w.run({ op: 'find' })) as Document[];
        assert.equal(docs.length, total);
        for (let i = 0; i < workers.length; i++) {
          const mine = docs.filter((d) => d['worker'] === i).map((d) => d['i'] as number);
          assert.deepEqual(
            mine.sort((a, b) => a - b),
            Array.from({ length: perWorker }, (_, k) => k),
          );
        }
      }
      assert.equal(logLines(dir, 'Waiting for connections'), 1, 'one daemon listened');
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  test('six processes opening at once end with one daemon', async () => {
    const dir = newDir();
    const started = await Promise.all([0, 1, 2, 3, 4, 5].map(() => Worker.start(dir)));
    try {
      assert.equal(new Set(started.map((s) => s.daemonPid)).size, 1);
      assert.equal(logLines(dir, 'Waiting for connections'), 1);
    } finally {
      await Promise.all(started.map((s) => s.worker.close()));
    }
  });

  test('daemons started at once for one socket: one listens, the others exit 48', async () => {
    const dir = newDir();
    const socket = join(base, `race-${n}.sock`);
    const procs = [0, 1, 2].map(() =>
      spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          daemonScript,
          '--dbpath',
          dir,
          '--unixSocket',
          socket,
          '--idleShutdownSecs',
          String(idleShutdownSecs),
          '--quiet',
        ],
        { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
      ),
    );
    const codes = await Promise.all(
      procs.map((p) => new Promise<number | null>((r) => p.on('exit', (code) => r(code)))),
    );
    // The winner exits 0 at its idle shutdown; the losers 48 before opening the data.
    assert.deepEqual([...codes].sort(), [0, 48, 48], `exit codes ${codes.join(', ')}`);
    assert.equal(existsSync(socket), false, 'the winner removed its socket');
    assert.equal(existsSync(`${socket}.lock`), false);
  });

  test('a change stream in one process sees an insert of another', async () => {
    const dir = newDir();
    const client = await open({ dbPath: dir, multiProcess: true, idleShutdownSecs });
    try {
      const stream = client.db('mp').collection('c').watch();
      assert.equal(await stream.tryNext(), null);
      const { worker, daemonPid } = await Worker.start(dir);
      try {
        const status = await client.db('admin').command({ serverStatus: 1 });
        assert.equal(Number(status['pid']), daemonPid);
        await worker.run({ op: 'insertOne', doc: { _id: 'from-worker', pid: worker.proc.pid } });
        const change = await stream.next();
        assert.equal(change.operationType, 'insert');
        assert.deepEqual((change as { fullDocument?: Document }).fullDocument, {
          _id: 'from-worker',
          pid: worker.proc.pid,
        });
      } finally {
        await stream.close();
        await worker.close();
      }
    } finally {
      await client.close();
    }
  });

  test('a transaction in one process: invisible to another until it commits', async () => {
    const dir = newDir();
    const client = await open({ dbPath: dir, multiProcess: true, idleShutdownSecs });
    const { worker } = await Worker.start(dir);
    try {
      const c = client.db('mp').collection<{ _id: string; v?: number }>('c');
      await c.insertOne({ _id: 'shared', v: 0 });
      await worker.run({ op: 'startTransaction' });
      await worker.run({ op: 'txnInsert', doc: { _id: 't1' } });
      await worker.run({ op: 'txnInsert', doc: { _id: 't2' } });
      assert.equal(await c.countDocuments({ _id: { $in: ['t1', 't2'] } }), 0);
      await worker.run({ op: 'commit' });
      assert.equal(await c.countDocuments({ _id: { $in: ['t1', 't2'] } }), 2);

      // Both processes in a transaction on one document: the second writer conflicts.
      await worker.run({ op: 'startTransaction' });
      assert.equal(
        await worker.run({
          op: 'txnUpdate',
          filter: { _id: 'shared' },
          update: { $set: { v: 1 } },
        }),
        1,
      );
      const session = client.startSession();
      try {
        session.startTransaction();
        await assert.rejects(
          c.updateOne({ _id: 'shared' }, { $set: { v: 2 } }, { session }),
          (e: { code?: number; errorLabels?: string[] }) =>
            e.code === 112 && (e.errorLabels ?? []).includes('TransientTransactionError'),
        );
        await session.abortTransaction().catch(() => undefined);
      } finally {
        await session.endSession();
      }
      await worker.run({ op: 'commit' });
      assert.deepEqual(await c.findOne({ _id: 'shared' }), { _id: 'shared', v: 1 });
    } finally {
      await worker.close();
      await client.close();
    }
  });

  test('a SIGKILLed daemon: the next open() starts another, acknowledged writes kept', async () => {
    const dir = newDir();
    const { worker, daemonPid } = await Worker.start(dir);
    await worker.run({ op: 'insertEach', n: 30, worker: 0 });
    process.kill(daemonPid, 'SIGKILL');
    assert.ok(await exits(daemonPid));
    // Its client has nothing to talk to any more (the driver's close() would wait for server
    // selection to end its sessions): the process goes.
    worker.proc.kill();
    await worker.exited;
    const socket = socketPathFor(realpathSync(dir));
    assert.ok(existsSync(socket), 'the killed daemon left its socket file');
    assert.ok(existsSync(`${socket}.lock`), 'and its socket lock');
    const client = await open({ dbPath: dir, multiProcess: true, idleShutdownSecs });
    try {
      const status = await client.db('admin').command({ serverStatus: 1 });
      assert.notEqual(Number(status['pid']), daemonPid);
      assert.equal(await client.db('mp').collection('c').countDocuments({ worker: 0 }), 30);
    } finally {
      await client.close();
    }
  });

  test('close() leaves the daemon to the others; with no client it exits cleanly', async () => {
    const dir = newDir();
    const a = await Worker.start(dir);
    const b = await Worker.start(dir);
    assert.equal(a.daemonPid, b.daemonPid);
    await b.worker.run({ op: 'insertEach', n: 5, worker: 1 });
    await a.worker.close();
    // Longer than the idle period: b is still connected, so the daemon stays.
    await new Promise((r) => setTimeout(r, idleShutdownSecs * 2500));
    assert.ok(isAlive(a.daemonPid));
    assert.equal(await b.worker.run({ op: 'count' }), 5);
    await b.worker.close();
    await daemonGone(dir);
    assert.ok(await exits(a.daemonPid), 'the daemon exited');
    assert.equal(logLines(dir, 'No client for the idle period'), 1);
    assert.match(readFileSync(join(dir, daemonLogName), 'utf8'), /"exitCode":0\}\}\n$/);
    assert.equal(existsSync(socketPathFor(realpathSync(dir))), false, 'socket removed');
    // The data directory is free and holds the acknowledged writes.
    const plain = await open({ dbPath: dir });
    try {
      assert.equal(await plain.db('mp').collection('c').countDocuments({}), 5);
    } finally {
      await plain.close();
    }
  });

  test('a dbPath held by a plain open() is refused clearly, and the reverse', async () => {
    const dir = newDir();
    const plain = await open({ dbPath: dir });
    try {
      await assert.rejects(
        open({ dbPath: dir, multiProcess: true, idleShutdownSecs }),
        (e: Error) =>
          e.name === 'DataDirectoryLockedError' &&
          e.message.includes('not its on-demand daemon') &&
          e.message.includes(`pid ${process.pid}`),
      );
    } finally {
      await plain.close();
    }
    const shared: MongoClient = await open({ dbPath: dir, multiProcess: true, idleShutdownSecs });
    try {
      await assert.rejects(open({ dbPath: dir }), { name: 'DataDirectoryLockedError' });
    } finally {
      await shared.close();
    }
  });

  test('bad options', async () => {
    await assert.rejects(open({ multiProcess: true } as never), TypeError);
    await assert.rejects(
      open({ dbPath: fresh(), multiProcess: true, engine: 'memory' }),
      /the 'memory' engine has none/,
    );
    await assert.rejects(
      open({ dbPath: fresh(), multiProcess: true, idleShutdownSecs: 0 }),
      RangeError,
    );
    await assert.rejects(
      open({ dbPath: fresh(), multiProcess: true, startTimeoutMs: -1 }),
      /startTimeoutMs must be a positive number/,
    );
  });
});

test('socketPathFor: inside the data directory, or hashed in the temporary directory', () => {
  assert.equal(socketPathFor('/data/app'), '/data/app/secantusd.sock');
  const long = `/data/${'x'.repeat(120)}`;
  const p = socketPathFor(long);
  assert.ok(p.startsWith(join(tmpdir(), 'secantusd-')) && p.endsWith('.sock'), p);
  assert.equal(socketPathFor(long), p, 'the same directory, the same socket');
  assert.notEqual(socketPathFor(`${long}y`), p);
});
