// The mongodump / mongorestore flags the tools take: namespace selection and renaming, --drop,
// --dryRun, --noIndexRestore, --query, single collections on stdout and stdin and as one .bson
// file, progress bars on a terminal and summary lines elsewhere, and the bins as processes.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { limits } from '../../src/limits.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { databaseList, dump, rawDocuments, restore } from '../helpers/tools.js';
import type { AnyDocument } from '../helpers/tools.js';

describe('dump and restore options', () => {
  let source: TestServer;
  let target: TestServer;
  let dir: string;
  let archive: string;
  let tree: string;
  before(async () => {
    source = await startTestServer();
    target = await startTestServer();
    dir = await mkdtemp(join(tmpdir(), 'secantus-options-'));
    for (const db of ['app', 'logs']) {
      await source.client
        .db(db)
        .collection<AnyDocument>('users')
        .insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, age: i })));
      await source.client.db(db).collection<AnyDocument>('tmp_1').insertOne({ _id: 1 });
      await source.client.db(db).collection<AnyDocument>('users').createIndex({ age: 1 });
    }
    archive = join(dir, 'all.archive');
    tree = join(dir, 'tree');
    assert.equal((await dump(['--uri', source.uri, `--archive=${archive}`])).code, 0);
    assert.equal((await dump(['--uri', source.uri, '--out', tree])).code, 0);
  });
  after(async () => {
    await source.stop();
    await target.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const reset = async (): Promise<void> => {
    for (const db of await databaseList(target.client)) await target.client.db(db).dropDatabase();
  };

  it('-j / --numParallelCollections takes a positive integer up to the limit, in both tools', async () => {
    for (const [tool, args] of [
      [dump, ['--uri', source.uri, '--out', join(dir, 'never')]],
      [restore, ['--uri', target.uri, tree]],
    ] as const) {
      for (const bad of ['0', '-2', '1.5', 'x']) {
        const r = await tool([...args, `--numParallelCollections=${bad}`]);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /numParallelCollections must be a positive integer, not "/);
      }
      const over = await tool([
        ...args,
        `--numParallelCollections=${limits.toolParallelCollectionsMax + 1}`,
      ]);
      assert.equal(over.code, 1, over.stderr);
      assert.match(
        over.stderr,
        new RegExp(`numParallelCollections is at most ${limits.toolParallelCollectionsMax}`),
      );
    }
  });

  it('selects namespaces with --nsInclude and --nsExclude (archive and directory)', async () => {
    for (const input of [[`--archive=${archive}`], [tree]]) {
      await reset();
      const r = await restore([
        '--uri',
        target.uri,
        ...input,
        '--nsInclude',
        'app.*',
        '--nsExclude',
        '*.tmp_*',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(await databaseList(target.client), ['app']);
      assert.deepEqual(
        (await target.client.db('app').listCollections().toArray()).map((c) => c.name),
        ['users'],
      );
    }
  });

  it('renames with --nsFrom / --nsTo, wildcards and variables', async () => {
    await reset();
    const r = await restore([
      '--uri',
      target.uri,
      `--archive=${archive}`,
      '--nsFrom',
      'app.*',
      '--nsTo',
      'copy.app_*',
      '--nsFrom',
      'logs.$coll$',
      '--nsTo',
      'old.$coll$',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await databaseList(target.client), ['copy', 'old']);
    assert.deepEqual(
      (await target.client.db('copy').listCollections().toArray()).map((c) => c.name).sort(),
      ['app_tmp_1', 'app_users'],
    );
    assert.equal(
      await target.client.db('old').collection<AnyDocument>('users').countDocuments(),
      30,
    );
    assert.equal(
      (await target.client.db('copy').collection<AnyDocument>('app_users').listIndexes().toArray())
        .length,
      2,
    );
  });

  it('counts duplicates as failures without --drop, and replaces with --drop', async () => {
    await reset();
    assert.equal((await restore(['--uri', target.uri, tree, '--nsInclude', 'app.users'])).code, 0);
    await target.client
      .db('app')
      .collection<AnyDocument>('users')
      .updateOne({ _id: 1 }, { $set: { age: 'changed' } });
    const again = await restore(['--uri', target.uri, tree, '--nsInclude', 'app.users']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /restoring to existing collection app\.users without dropping/);
    assert.match(again.stderr, /continuing through error: .*E11000/);
    assert.match(
      again.stderr,
      /0 document\(s\) restored successfully\. 30 document\(s\) failed to restore\./,
    );
    const stop = await restore([
      '--uri',
      target.uri,
      tree,
      '--nsInclude',
      'app.users',
      '--stopOnError',
    ]);
    assert.equal(stop.code, 1);
    const dropped = await restore([
      '--uri',
      target.uri,
      tree,
      '--nsInclude',
      'app.users',
      '--drop',
    ]);
    assert.equal(dropped.code, 0, dropped.stderr);
    assert.match(dropped.stderr, /dropping collection app\.users before restoring/);
    assert.equal(
      (await target.client.db('app').collection<AnyDocument>('users').findOne({ _id: 1 }))?.['age'],
      1,
    );
  });

  it('--dryRun writes nothing; --noIndexRestore skips indexes', async () => {
    await reset();
    const dry = await restore(['--uri', target.uri, `--archive=${archive}`, '--dryRun']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stderr, /the archive is complete: 62 documents, every CRC matches/);
    assert.match(dry.stderr, /dry run completed/);
    assert.deepEqual(await databaseList(target.client), []);
    const r = await restore([
      '--uri',
      target.uri,
      tree,
      '--noIndexRestore',
      '--nsInclude',
      'app.users',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      (await target.client.db('app').collection<AnyDocument>('users').listIndexes().toArray())
        .length,
      1,
    );
  });

  it('dumps one collection with --query to stdout and restores it from stdin and from a file', async () => {
    await reset();
    const d = await dump([
      '--uri',
      source.uri,
      '-d',
      'app',
      '-c',
      'users',
      '-q',
      '{"age": {"$gte": {"$numberInt": "25"}}}',
      '--out',
      '-',
    ]);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stderr, /done dumping app\.users \(5 documents\)/);
    const r = await restore(['--uri', target.uri, '-d', 'copy', '-c', 'adults', '-'], {
      stdin: d.stdout,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      await target.client.db('copy').collection<AnyDocument>('adults').countDocuments(),
      5,
    );
    const file = await restore(['--uri', target.uri, join(tree, 'logs', 'users.bson')]);
    assert.equal(file.code, 0, file.stderr);
    assert.equal(
      await target.client.db('logs').collection<AnyDocument>('users').countDocuments(),
      30,
    );
    assert.equal(
      (await target.client.db('logs').collection<AnyDocument>('users').listIndexes().toArray())
        .length,
      2,
    );
  });

  it('--db restores a database directory into that database', async () => {
    await reset();
    const r = await restore(['--uri', target.uri, '--db', 'renamed', join(tree, 'app')]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await databaseList(target.client), ['renamed']);
    const want = await rawDocuments(source.client, 'app', 'users');
    const got = await rawDocuments(target.client, 'renamed', 'users');
    assert.deepEqual(got, want);
  });

  it('shows progress bars on a terminal and summary lines elsewhere', async () => {
    const big = source.client.db('big').collection<AnyDocument>('docs');
    await big.insertMany(
      Array.from({ length: 20_000 }, (_, i) => ({ _id: i, pad: 'x'.repeat(100) })),
    );
    const tty = await dump(['--uri', source.uri, '--db', 'big', '--out', join(dir, 'tty')], {
      tty: true,
    });
    assert.equal(tty.code, 0, tty.stderr);
    // However fast the dump, the finished bar stays on screen with the final count.
    assert.match(tty.stderr, /\[=+\] big\.docs {2}20000\/20000 documents {2}\(100%\)/);
    const plain = await dump(['--uri', source.uri, '--db', 'big', '--out', join(dir, 'plain')]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.doesNotMatch(plain.stderr, /=====/);
    assert.match(plain.stderr, /done dumping big\.docs \(20000 documents\)/);
    await big.drop();
  });

  it('runs as processes: dump to stdout piped into restore, exit codes', async () => {
    await reset();
    const bin = (name: string): string[] => [
      '--import',
      'tsx',
      join(import.meta.dirname, `../../src/tools/${name}.ts`),
    ];
    const d = spawn(
      process.execPath,
      [...bin('secantus-dump'), '--uri', source.uri, '--archive', '--db', 'logs', '--quiet'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const r = spawn(
      process.execPath,
      [...bin('secantus-restore'), '--uri', target.uri, '--archive'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    d.stdout.pipe(r.stdin);
    let err = '';
    r.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const codes = await Promise.all(
      [d, r].map((p) => new Promise<number | null>((res) => p.on('exit', res))),
    );
    assert.deepEqual(codes, [0, 0], err);
    assert.match(err, /31 document\(s\) restored successfully/);
    assert.equal(
      await target.client.db('logs').collection<AnyDocument>('users').countDocuments(),
      30,
    );
    const bad = spawn(
      process.execPath,
      [...bin('secantus-restore'), '--uri', target.uri, join(dir, 'missing')],
      { stdio: 'ignore' },
    );
    assert.equal(await new Promise((res) => bad.on('exit', res)), 1);
    assert.ok((await readdir(dir)).length > 0);
  });
});
