// TLS and compression options: mongod's flag names, SECANTUS_TLS_* variables, the TOML
// tables [net.tls] / [net.compression] with mongod's YAML keys; precedence as for every
// option; bad values refused; the key passphrase never shown.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaults, OptionsError, resolveOptions } from '../../../src/cli/options.js';
import { netParsedDocument, redactArgv, tlsOptionsOf } from '../../../src/cli/net-options.js';

function configFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'secantus-cfg-'));
  const p = join(dir, 'secantusd.toml');
  writeFileSync(p, text);
  return p;
}

test('defaults: TLS disabled, mongod default compressors', () => {
  assert.equal(defaults.tlsMode, 'disabled');
  assert.equal(defaults.networkMessageCompressors, undefined);
  assert.equal(defaults.tlsAllowConnectionsWithoutCertificates, false);
});

test('flags, as mongod spells them', () => {
  const o = resolveOptions(
    [
      '--tlsMode',
      'requireTLS',
      '--tlsCertificateKeyFile',
      '/k.pem',
      '--tlsCertificateKeyFilePassword',
      'pw',
      '--tlsCAFile',
      '/ca.pem',
      '--tlsAllowConnectionsWithoutCertificates',
      '--tlsAllowInvalidCertificates',
      '--tlsAllowInvalidHostnames',
      '--networkMessageCompressors',
      'zlib,snappy',
    ],
    {},
  ).options;
  assert.deepEqual(tlsOptionsOf(o), {
    mode: 'requireTLS',
    certificateKeyFile: '/k.pem',
    certificateKeyFilePassword: 'pw',
    CAFile: '/ca.pem',
    allowConnectionsWithoutCertificates: true,
    allowInvalidCertificates: true,
    allowInvalidHostnames: true,
  });
  assert.equal(o.networkMessageCompressors, 'zlib,snappy');
});

test('TOML: [net.tls] and [net.compression] with mongod YAML keys', () => {
  const file = configFile(
    [
      '[net.tls]',
      'mode = "preferTLS"',
      'certificateKeyFile = "/srv.pem"',
      'CAFile = "/ca.pem"',
      'allowConnectionsWithoutCertificates = true',
      '[net.compression]',
      'compressors = "disabled"',
      '',
    ].join('\n'),
  );
  const o = resolveOptions(['--config', file], {}).options;
  assert.equal(o.tlsMode, 'preferTLS');
  assert.equal(o.tlsCertificateKeyFile, '/srv.pem');
  assert.equal(o.tlsCAFile, '/ca.pem');
  assert.equal(o.tlsAllowConnectionsWithoutCertificates, true);
  assert.equal(o.networkMessageCompressors, 'disabled');
  const dotted = configFile(
    'net.tls.mode = "allowTLS"\nnet.compression.compressors = ["zstd", "zlib"]\n',
  );
  const d = resolveOptions(['--config', dotted], {}).options;
  assert.equal(d.tlsMode, 'allowTLS');
  assert.equal(d.networkMessageCompressors, 'zstd,zlib');
});

test('environment, and precedence flag > env > file per field', () => {
  const file = configFile(
    '[net.tls]\nmode = "allowTLS"\nCAFile = "/file-ca.pem"\ncertificateKeyFile = "/file.pem"\n',
  );
  const env = {
    SECANTUS_CONFIG: file,
    SECANTUS_TLS_MODE: 'preferTLS',
    SECANTUS_TLS_CA_FILE: '/env-ca.pem',
    SECANTUS_TLS_ALLOW_INVALID_CERTIFICATES: 'true',
    SECANTUS_NETWORK_MESSAGE_COMPRESSORS: 'zlib',
  };
  const o = resolveOptions(['--tlsMode', 'requireTLS'], env).options;
  assert.equal(o.tlsMode, 'requireTLS', 'flag beats env');
  assert.equal(o.tlsCAFile, '/env-ca.pem', 'env beats file');
  assert.equal(o.tlsCertificateKeyFile, '/file.pem', 'file beats default');
  assert.equal(o.tlsAllowInvalidCertificates, true);
  assert.equal(o.networkMessageCompressors, 'zlib');
  const all = resolveOptions([], {
    SECANTUS_TLS_CERTIFICATE_KEY_FILE: '/k.pem',
    SECANTUS_TLS_CERTIFICATE_KEY_FILE_PASSWORD: 'pw',
    SECANTUS_TLS_ALLOW_CONNECTIONS_WITHOUT_CERTIFICATES: '1',
    SECANTUS_TLS_ALLOW_INVALID_HOSTNAMES: 'true',
  }).options;
  assert.equal(all.tlsCertificateKeyFile, '/k.pem');
  assert.equal(all.tlsCertificateKeyFilePassword, 'pw');
  assert.equal(all.tlsAllowConnectionsWithoutCertificates, true);
  assert.equal(all.tlsAllowInvalidHostnames, true);
});

test('bad values are OptionsErrors', () => {
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['--tlsMode', 'sometimes'], {}, /unsupported value for tlsMode sometimes/],
    [[], { SECANTUS_TLS_MODE: 'requireSSL' }, /SECANTUS_TLS_MODE: unsupported value for tlsMode/],
    [[], { SECANTUS_TLS_ALLOW_INVALID_CERTIFICATES: 'maybe' }, /expected a boolean/],
    [['--config', configFile('[net.tls]\nmode = 3\n')], {}, /unsupported value for tlsMode 3/],
    [['--config', configFile('[net.tls]\nPEMKeyFile = "/x"\n')], {}, /unknown key 'PEMKeyFile'/],
    [['--config', configFile('[net.tls]\nCAFile = 1\n')], {}, /CAFile must be a string/],
    [['--config', configFile('[net.compression]\nlevel = 1\n')], {}, /unknown key 'level'/],
    [['--config', configFile('[net.compression]\ncompressors = 1\n')], {}, /must be a string/],
    [['--config', configFile('[net]\nipv6 = true\n')], {}, /unknown key 'ipv6'/],
    [['--config', configFile('net = 1\n')], {}, /net must be a table/],
  ];
  for (const [argv, env, re] of cases) {
    assert.throws(
      () => resolveOptions(argv, env),
      (e: unknown) => e instanceof OptionsError && re.test(e.message),
      `${argv.join(' ')} ${JSON.stringify(env)}`,
    );
  }
});

test('the key passphrase is redacted in getCmdLineOpts argv and parsed', () => {
  assert.deepEqual(redactArgv(['--tlsCertificateKeyFilePassword', 'pw', '--port', '1']), [
    '--tlsCertificateKeyFilePassword',
    '<password>',
    '--port',
    '1',
  ]);
  assert.deepEqual(redactArgv(['--tlsCertificateKeyFilePassword=pw']), [
    '--tlsCertificateKeyFilePassword=<password>',
  ]);
  const o = resolveOptions(
    [
      '--tlsMode',
      'requireTLS',
      '--tlsCertificateKeyFilePassword',
      'pw',
      '--networkMessageCompressors',
      'zlib',
    ],
    {},
  ).options;
  const doc = netParsedDocument(o);
  assert.deepEqual(doc, {
    tls: { mode: 'requireTLS', certificateKeyFilePassword: '<password>' },
    compression: { compressors: 'zlib' },
  });
  assert.ok(!JSON.stringify(doc).includes('"pw"'));
});
