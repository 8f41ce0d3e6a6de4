import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaults, OptionsError, resolveOptions } from '../../../src/cli/options.js';

function configFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'secantus-cfg-'));
  const p = join(dir, 'secantusd.toml');
  writeFileSync(p, text);
  return p;
}

test('defaults', () => {
  assert.deepEqual(resolveOptions([], {}).options, defaults);
});

test('precedence: flag > environment > file > default', () => {
  const file = configFile(
    'port = 1111\ndbpath = "/from/file"\nreplSet = "fileRs"\nstorageEngine = "memory"\n',
  );
  const env = { SECANTUS_CONFIG: file, SECANTUS_PORT: '2222', SECANTUS_DBPATH: '/from/env' };
  const o = resolveOptions(['--port', '3333'], env).options;
  assert.equal(o.port, 3333, 'flag beats env and file');
  assert.equal(o.dbPath, '/from/env', 'env beats file');
  assert.equal(o.replSet, 'fileRs', 'file beats default');
  assert.equal(o.storageEngine, 'memory');
  assert.equal(o.bindIp, '127.0.0.1', 'default');
});

test('--config flag, setParameter table and flag', () => {
  const file = configFile('[setParameter]\nenableTestCommands = true\n');
  assert.equal(resolveOptions(['--config', file], {}).options.enableTestCommands, true);
  assert.equal(
    resolveOptions(['--setParameter', 'enableTestCommands=1'], {}).options.enableTestCommands,
    true,
  );
  assert.equal(
    resolveOptions([], { SECANTUS_ENABLE_TEST_COMMANDS: '1' }).options.enableTestCommands,
    true,
  );
});

test('an empty replica set name from the environment means standalone', () => {
  assert.equal(resolveOptions([], { SECANTUS_REPLSET: '' }).options.replSet, '');
  assert.equal(resolveOptions(['--replSet', ''], {}).options.replSet, '');
});

test('bad input is an OptionsError with a clear message', () => {
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['--port', 'abc'], {}, /port must be an integer/],
    [['--port', '70000'], {}, /port must be an integer/],
    [['--storageEngine', 'wiredTiger'], {}, /storageEngine must be 'lmdb' or 'memory'/],
    [['--nope'], {}, /Unknown option/],
    [['--setParameter', 'foo=1'], {}, /unknown parameter 'foo'/],
    [[], { SECANTUS_PORT: '-1' }, /SECANTUS_PORT/],
    [['--config', '/does/not/exist.toml'], {}, /cannot read config file/],
    [['--config', configFile('port = [1')], {}, /not valid TOML/],
    [['--config', configFile('colour = "red"')], {}, /unknown key 'colour'/],
  ];
  for (const [argv, env, re] of cases) {
    assert.throws(
      () => resolveOptions(argv, env),
      (e: unknown) => e instanceof OptionsError && re.test(e.message),
      argv.join(' '),
    );
  }
});

test('--oplog-async and --oplog-nonlogged: flag, SECANTUS_OPLOG_* and TOML keys, default off', () => {
  assert.equal(defaults.oplogAsync, false);
  assert.equal(defaults.oplogNonlogged, false);
  assert.equal(resolveOptions(['--oplog-async'], {}).options.oplogAsync, true);
  assert.equal(resolveOptions(['--oplog-nonlogged'], {}).options.oplogNonlogged, true);
  assert.equal(resolveOptions([], { SECANTUS_OPLOG_ASYNC: '1' }).options.oplogAsync, true);
  assert.equal(
    resolveOptions([], { SECANTUS_OPLOG_NONLOGGED: 'true' }).options.oplogNonlogged,
    true,
  );
  const file = configFile('oplogAsync = true\noplogNonlogged = true\n');
  const o = resolveOptions(['--config', file], {}).options;
  assert.deepEqual([o.oplogAsync, o.oplogNonlogged], [true, true]);
  // Precedence: the environment turns off what the file turned on; a flag turns it on again.
  assert.equal(
    resolveOptions(['--config', file], { SECANTUS_OPLOG_ASYNC: '0' }).options.oplogAsync,
    false,
  );
  assert.equal(
    resolveOptions(['--config', file, '--oplog-async'], { SECANTUS_OPLOG_ASYNC: '0' }).options
      .oplogAsync,
    true,
  );
  assert.throws(
    () => resolveOptions([], { SECANTUS_OPLOG_ASYNC: 'maybe' }),
    (e: unknown) => e instanceof OptionsError && /SECANTUS_OPLOG_ASYNC/.test(e.message),
  );
  assert.throws(
    () => resolveOptions(['--config', configFile('oplogNonlogged = "yes"\n')], {}),
    (e: unknown) => e instanceof OptionsError && /oplogNonlogged/.test(e.message),
  );
});
