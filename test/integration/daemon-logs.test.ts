// secantusd's log file (from dist/, `npm run build` first): opened before anything can fail, so
// a failed start leaves its error in it; written line by line, so the last lines before SIGTERM
// are in it; moved aside without --logappend; renamed by SIGUSR1 and logRotate. Also the
// profiler and verbosity flags, and the slow-query line in the file.

import { after, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { daemonScript } from '../helpers/daemon.js';

const dir = mkdtempSync(join(tmpdir(), 'secantus-logs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface LogLine {
  readonly id: number;
  readonly msg: string;
  readonly s: string;
  readonly attr?: Record<string, unknown>;
}

function readLog(path: string): LogLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LogLine);
}

async function waitFor<T>(what: string, f: () => T | undefined, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function run(args: readonly string[]): {
  proc: ReturnType<typeof spawn>;
  exited: Promise<number | null>;
} {
  const proc = spawn(process.execPath, [daemonScript, '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return { proc, exited };
}

describe('secantusd --logpath', () => {
  it('keeps every line up to the last one before SIGTERM, with the slow query', async () => {
    const logPath = join(dir, 'a.log');
    const { proc, exited } = run([
      '--dbpath',
      join(dir, 'a'),
      '--logpath',
      logPath,
      '--slowms',
      '0',
      '--profile',
      '1',
      '-v',
    ]);
    const port = await waitFor('Waiting for connections', () => {
      const l = readLog(logPath).find((x) => x.id === 23016);
      return l === undefined ? undefined : Number(l.attr?.['port']);
    });
    const client = new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`);
    try {
      await client.connect();
      const c = client.db('t').collection('c');
      await c.insertMany(Array.from({ length: 2000 }, (_, i) => ({ i, pad: 'x'.repeat(50) })));
      await c.find({ i: { $gt: 10 } }).toArray();
      assert.equal(
        (await client.db('admin').command({ getParameter: 1, logLevel: 1 }))['logLevel'],
        1,
        '-v sets logLevel 1',
      );
      const profiled = await client.db('t').collection('system.profile').countDocuments({});
      assert.ok(profiled > 0, '--profile 1 with --slowms 0 profiles');
    } finally {
      await client.close();
    }
    proc.kill('SIGTERM');
    assert.equal(await exited, 0);
    const lines = readLog(logPath);
    const ids = lines.map((l) => l.id);
    for (const id of [4615611, 23403, 21951, 22943, 51800, 22944, 23377, 20562, 20565])
      assert.ok(ids.includes(id), `line ${id}`);
    const slow = lines.filter((l) => l.id === 51803 && l.attr?.['ns'] === 't.c');
    assert.ok(slow.some((l) => (l.attr?.['command'] as Record<string, unknown>)['find'] === 'c'));
    const last = lines.at(-1);
    assert.equal(last?.id, 23138, 'the last line is the exit');
    assert.deepEqual(last?.attr, { exitCode: 0 });
  });

  it('a failed start leaves its error in the file', async () => {
    const logPath = join(dir, 'b.log');
    const dbPath = join(dir, 'b');
    writeFileSync(dbPath, 'not a directory');
    const { exited } = run(['--dbpath', dbPath, '--logpath', logPath]);
    assert.notEqual(await exited, 0);
    const lines = readLog(logPath);
    assert.ok(
      lines.some((l) => l.id === 4615611),
      'started logging first',
    );
    assert.ok(
      lines.some((l) => l.s === 'F' || l.s === 'E'),
      'the error is in the file',
    );
    assert.equal(lines.at(-1)?.id, 23138);
    assert.notEqual(lines.at(-1)?.attr?.['exitCode'], 0);
  });

  it('moves an old file aside without --logappend, appends with it, rotates on SIGUSR1', async () => {
    const logPath = join(dir, 'c.log');
    writeFileSync(logPath, '{"old":1}\n');
    const first = run(['--dbpath', join(dir, 'c'), '--logpath', logPath]);
    await waitFor('start', () => (readLog(logPath).some((l) => l.id === 23016) ? true : undefined));
    const moved = readdirSync(dir).filter((f) => f.startsWith('c.log.'));
    assert.equal(moved.length, 1, 'the old file renamed');
    assert.equal(readFileSync(join(dir, moved[0] ?? ''), 'utf8'), '{"old":1}\n');
    first.proc.kill('SIGUSR1');
    await waitFor('rotation', () =>
      readdirSync(dir).filter((f) => f.startsWith('c.log.')).length === 2 ? true : undefined,
    );
    first.proc.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    assert.equal(readLog(logPath).at(-1)?.id, 23138, 'the new file goes on after rotation');

    const before = readFileSync(logPath, 'utf8');
    const second = run(['--dbpath', join(dir, 'c'), '--logpath', logPath, '--logappend']);
    await waitFor('restart', () =>
      readLog(logPath).some((l) => l.id === 23016) ? true : undefined,
    );
    second.proc.kill('SIGTERM');
    assert.equal(await second.exited, 0);
    assert.ok(readFileSync(logPath, 'utf8').startsWith(before), '--logappend keeps the file');
  });

  it('refuses bad profiler and verbosity options', async () => {
    for (const args of [
      ['--profile', '3'],
      ['--slowms', 'x'],
      ['--slowOpSampleRate', '2'],
    ]) {
      const { exited } = run(['--dbpath', join(dir, 'd'), ...args]);
      assert.equal(await exited, 2, args.join(' '));
    }
  });
});
