import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
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
    [
      ['--storageEngine', 'wiredTiger'],
      {},
      /storageEngine must be one of 'lmdb', 'memory', 'sqlite', 'jsonfile'/,
    ],
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

test('--auth, SECANTUS_AUTH and security.authorization (TOML), default off', () => {
  assert.equal(resolveOptions([], {}).options.auth, false);
  assert.equal(resolveOptions(['--auth'], {}).options.auth, true);
  assert.equal(resolveOptions([], { SECANTUS_AUTH: '1' }).options.auth, true);
  assert.equal(resolveOptions(['--noauth'], { SECANTUS_AUTH: '1' }).options.auth, false);
  const on = configFile('[security]\nauthorization = "enabled"\n');
  assert.equal(resolveOptions(['--config', on], {}).options.auth, true);
  const off = configFile('[security]\nauthorization = "disabled"\n');
  assert.equal(resolveOptions(['--config', off], { SECANTUS_AUTH: 'true' }).options.auth, true);
  const bad = configFile('[security]\nauthorization = "yes"\n');
  assert.throws(() => resolveOptions(['--config', bad], {}), /must be "enabled" or "disabled"/);
  const unknown = configFile('[security]\nclusterAuthMode = "x509"\n');
  assert.throws(() => resolveOptions(['--config', unknown], {}), /unknown key 'clusterAuthMode'/);
});

test('--keyFile: validated as mongod does, and implies --auth', () => {
  const dir = mkdtempSync(join(tmpdir(), 'secantus-key-'));
  const key = (name: string, text: string, mode = 0o600): string => {
    const p = join(dir, name);
    writeFileSync(p, text, { mode });
    chmodSync(p, mode);
    return p;
  };
  const good = key('good', 'c2VjcmV0a2V5\n  dmFsdWU=\n');
  const o = resolveOptions(['--keyFile', good], {}).options;
  assert.equal(o.auth, true);
  assert.equal(o.keyFile, good);
  assert.equal(resolveOptions([], { SECANTUS_KEYFILE: good }).options.auth, true);
  assert.throws(
    () => resolveOptions(['--keyFile', key('open', 'c2VjcmV0a2V5', 0o644)], {}),
    /permissions on .* are too open/,
  );
  assert.throws(
    () => resolveOptions(['--keyFile', key('short', 'abc')], {}),
    /has length 3, must be between 6 and 1024 chars/,
  );
  assert.throws(
    () => resolveOptions(['--keyFile', key('long', 'a'.repeat(1025))], {}),
    /has length 1025/,
  );
  assert.throws(
    () => resolveOptions(['--keyFile', key('bad', 'abc$defgh')], {}),
    /invalid char in key file .*: \$/,
  );
  assert.throws(() => resolveOptions(['--keyFile', key('empty', '  \n')], {}), /file is empty/);
  assert.throws(() => resolveOptions(['--keyFile', join(dir, 'missing')], {}), OptionsError);
});

test('the initial root user comes from the environment or the config file, both parts required', () => {
  const env = { SECANTUS_INITIAL_ROOT_USER: 'admin', SECANTUS_INITIAL_ROOT_PASSWORD: 's3cret' };
  const o = resolveOptions(['--auth'], env).options;
  assert.equal(o.initialRootUser, 'admin');
  assert.equal(o.initialRootPassword, 's3cret');
  const file = configFile('[security]\ninitialRootUser = "boss"\ninitialRootPassword = "pw"\n');
  assert.equal(resolveOptions(['--config', file], {}).options.initialRootUser, 'boss');
  assert.throws(() => resolveOptions([], { SECANTUS_INITIAL_ROOT_USER: 'admin' }), /needs both/);
  assert.throws(
    () =>
      resolveOptions([], { SECANTUS_INITIAL_ROOT_USER: 'a', SECANTUS_INITIAL_ROOT_PASSWORD: '' }),
    /needs both/,
  );
  // No flag carries a password (it would show in ps and getCmdLineOpts).
  assert.throws(() => resolveOptions(['--initialRootPassword', 'x'], {}), OptionsError);
});

test('maxIncomingConnections: --maxConns, SECANTUS_MAX_CONNS, net.maxIncomingConnections', () => {
  assert.equal(defaults.maxIncomingConnections, 10_000);
  assert.equal(resolveOptions(['--maxConns', '5'], {}).options.maxIncomingConnections, 5);
  assert.equal(resolveOptions([], { SECANTUS_MAX_CONNS: '7' }).options.maxIncomingConnections, 7);
  const file = configFile('[net]\nmaxIncomingConnections = 9\n');
  assert.equal(resolveOptions(['--config', file], {}).options.maxIncomingConnections, 9);
  assert.throws(() => resolveOptions(['--maxConns', '0'], {}), OptionsError);
  assert.throws(() => resolveOptions(['--maxConns', 'many'], {}), OptionsError);
  assert.throws(
    () => resolveOptions(['--config', configFile('[net]\nport = 1\n')], {}),
    /unknown key 'port'/,
  );
});

test('--noscripting, SECANTUS_JAVASCRIPT_ENABLED and security.javascriptEnabled, default on', () => {
  assert.equal(resolveOptions([], {}).options.javascriptEnabled, true);
  assert.equal(resolveOptions(['--noscripting'], {}).options.javascriptEnabled, false);
  assert.equal(
    resolveOptions([], { SECANTUS_JAVASCRIPT_ENABLED: '0' }).options.javascriptEnabled,
    false,
  );
  const off = configFile('[security]\njavascriptEnabled = false\n');
  assert.equal(resolveOptions(['--config', off], {}).options.javascriptEnabled, false);
  assert.equal(
    resolveOptions(['--config', off], { SECANTUS_JAVASCRIPT_ENABLED: '1' }).options
      .javascriptEnabled,
    true,
  );
  const bad = configFile('[security]\njavascriptEnabled = "no"\n');
  assert.throws(() => resolveOptions(['--config', bad], {}), /javascriptEnabled must be a boolean/);
});

test('every storage engine is selectable by flag, environment and config file', () => {
  for (const engine of ['lmdb', 'memory', 'sqlite', 'jsonfile'] as const) {
    assert.equal(resolveOptions(['--storageEngine', engine], {}).options.storageEngine, engine);
    assert.equal(
      resolveOptions([], { SECANTUS_STORAGE_ENGINE: engine }).options.storageEngine,
      engine,
    );
    const file = configFile(`storageEngine = "${engine}"\n`);
    assert.equal(resolveOptions(['--config', file], {}).options.storageEngine, engine);
  }
});

test('--unixSocket and --idleShutdownSecs, by flag and environment', () => {
  const o = resolveOptions(['--unixSocket', '/d/s.sock', '--idleShutdownSecs', '2.5'], {}).options;
  assert.equal(o.unixSocket, '/d/s.sock');
  assert.equal(o.idleShutdownSecs, 2.5);
  const e = resolveOptions([], {
    SECANTUS_UNIX_SOCKET: '/e/s.sock',
    SECANTUS_IDLE_SHUTDOWN_SECS: '7',
  }).options;
  assert.equal(e.unixSocket, '/e/s.sock');
  assert.equal(e.idleShutdownSecs, 7);
  assert.equal(resolveOptions([], {}).options.idleShutdownSecs, undefined, 'never by default');
  for (const bad of ['0', '-1', 'soon', '86401']) {
    assert.throws(
      () => resolveOptions([`--idleShutdownSecs=${bad}`], {}),
      (err: unknown) =>
        err instanceof OptionsError &&
        err.message.includes('--idleShutdownSecs') &&
        err.message.includes(bad),
    );
  }
});
