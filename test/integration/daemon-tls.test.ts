// secantusd with TLS and compression from its config file and flags: a tls=true client
// connects, getCmdLineOpts never shows the key passphrase, and settings mongod refuses make
// the daemon exit with code 2 (bad options). Runs dist/ (npm run build first).

import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { daemonScript, killDaemon, startDaemon } from '../helpers/daemon.js';
import { encryptedKey, makeCertFiles } from '../helpers/certs.js';
import type { CertFiles } from '../helpers/certs.js';

let certs: CertFiles;
let dir: string;

before(() => {
  certs = makeCertFiles();
  dir = mkdtempSync(join(tmpdir(), 'secantus-daemon-tls-'));
});
after(() => {
  certs.remove();
  rmSync(dir, { recursive: true, force: true });
});

test('TOML [net.tls] + [net.compression]: a TLS client with zlib connects; the passphrase stays hidden', async () => {
  const keyFile = certs.write('enc.pem', certs.server.cert + encryptedKey(certs.server, 'hunter2'));
  const config = join(dir, 'secantusd.toml');
  writeFileSync(
    config,
    [
      '[net.tls]',
      'mode = "requireTLS"',
      `certificateKeyFile = ${JSON.stringify(keyFile)}`,
      `CAFile = ${JSON.stringify(certs.caFile)}`,
      '[net.compression]',
      'compressors = "zlib"',
      '',
    ].join('\n'),
  );
  const d = await startDaemon(join(dir, 'data'), [
    '--config',
    config,
    '--storageEngine',
    'memory',
    '--tlsCertificateKeyFilePassword',
    'hunter2',
  ]);
  try {
    const uri = `${d.uri}&tls=true&tlsCAFile=${encodeURIComponent(certs.caFile)}&compressors=zlib`;
    const client = new MongoClient(uri, {
      tlsCertificateKeyFile: certs.clientFile,
      serverSelectionTimeoutMS: 5000,
    });
    await client.connect();
    const hello = await client.db('admin').command({ hello: 1, compression: ['snappy', 'zlib'] });
    assert.deepEqual(hello['compression'], ['zlib']);
    const opts = await client.db('admin').command({ getCmdLineOpts: 1 });
    const text = JSON.stringify(opts);
    assert.ok(!text.includes('hunter2'), 'no passphrase in getCmdLineOpts');
    assert.equal(opts['parsed']['net']['tls']['mode'], 'requireTLS');
    assert.equal(opts['parsed']['net']['tls']['certificateKeyFilePassword'], '<password>');
    assert.ok((opts['argv'] as string[]).includes('<password>'));
    await client.close();
  } finally {
    await killDaemon(d, 'SIGTERM');
  }
});

function exitCode(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(
      process.execPath,
      [daemonScript, '--port', '0', '--storageEngine', 'memory', ...args],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    p.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    p.on('exit', (code) => resolve({ code, stderr }));
  });
}

test('settings mongod refuses exit with code 2 and its message', async () => {
  const noCa = await exitCode([
    '--tlsMode',
    'requireTLS',
    '--tlsCertificateKeyFile',
    certs.serverFile,
  ]);
  assert.equal(noCa.code, 2);
  assert.match(noCa.stderr, /without specifying a chain of trust/);
  const badCompressor = await exitCode(['--networkMessageCompressors', 'zlib,lzma']);
  assert.equal(badCompressor.code, 2);
  assert.match(
    badCompressor.stderr,
    /Invalid network message compressor specified in configuration: lzma/,
  );
  const badMode = await exitCode(['--tlsMode', 'always']);
  assert.equal(badMode.code, 2);
  assert.match(badMode.stderr, /unsupported value for tlsMode always/);
});
