// TLS as mongod's net.tls settings have it, with certificates made here (node:crypto keys,
// node-forge certificates): tls=true URIs with tlsCAFile connect; requireTLS refuses plain
// clients while serving TLS ones; allowTLS / preferTLS take both on one port; client
// certificates are verified against the CA; startup refuses incomplete settings.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import type { MongoClientOptions } from 'mongodb';
import { SecantusServer } from '../../src/embed/index.js';
import { Server } from '../../src/server/server.js';
import type { TlsOptions } from '../../src/embed/index.js';
import { encryptedKey, issue, makeCertFiles } from '../helpers/certs.js';
import type { CertFiles } from '../helpers/certs.js';
import { opMsg, RawConnection } from '../helpers/wire-client.js';
import type { TestDoc } from '../helpers/driver.js';
import { rfc2253Subject } from '../../src/server/tls.js';

let certs: CertFiles;

before(() => {
  certs = makeCertFiles();
});
after(() => {
  certs.remove();
});

async function start(t: Partial<TlsOptions> & Pick<TlsOptions, 'mode'>): Promise<SecantusServer> {
  return SecantusServer.start({
    tls: { certificateKeyFile: certs.serverFile, CAFile: certs.caFile, ...t },
  });
}

/** Connect and ping; the error message when the server refuses. */
async function ping(uri: string, options: MongoClientOptions = {}): Promise<true | string> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1500, ...options });
  try {
    await client.connect();
    const r = await client.db('admin').command({ ping: 1 });
    return r['ok'] === 1 ? true : 'ping failed';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    await client.close();
  }
}

function plainUri(s: { port: number }): string {
  return `mongodb://127.0.0.1:${s.port}/?directConnection=true`;
}

function tlsUri(s: { port: number }): string {
  return `mongodb://127.0.0.1:${s.port}/?directConnection=true&tls=true&tlsCAFile=${encodeURIComponent(certs.caFile)}`;
}

/** A raw TLS socket with our client certificate: does the server answer a ping on it? */
function rawTlsPing(port: number, certFile: string | undefined): Promise<'reply' | 'closed'> {
  return new Promise((resolve) => {
    const kc = certFile === undefined ? undefined : readFileSync(certFile);
    const s = tls.connect({
      port,
      host: '127.0.0.1',
      ca: readFileSync(certs.caFile),
      ...(kc === undefined ? {} : { key: kc, cert: kc }),
    });
    let got = Buffer.alloc(0);
    s.on('secureConnect', () => s.write(opMsg({ ping: 1, $db: 'admin' })));
    s.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 4 && got.length >= got.readInt32LE(0)) {
        s.destroy();
        resolve('reply');
      }
    });
    s.on('error', () => undefined);
    s.on('close', () => resolve('closed'));
  });
}

describe('TLS', () => {
  test('requireTLS: the in-process URI (tls=true, tlsCAFile) connects with a client certificate', async () => {
    const s = await start({ mode: 'requireTLS' });
    try {
      assert.match(s.uri, /[?&]tls=true/);
      assert.match(s.uri, /tlsCAFile=/);
      assert.equal(await ping(s.uri, { tlsCertificateKeyFile: certs.clientFile }), true);
      const client = new MongoClient(s.uri, { tlsCertificateKeyFile: certs.clientFile });
      await client.connect();
      const c = client.db('t').collection<TestDoc>('c');
      await c.insertOne({ _id: 1, over: 'tls' });
      assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, over: 'tls' });
      await client.close();
    } finally {
      await s.stop();
    }
  });

  test('requireTLS: a plain client is refused (connection closed) while a TLS client is served', async () => {
    const s = await start({ mode: 'requireTLS', allowConnectionsWithoutCertificates: true });
    try {
      const tlsClient = new MongoClient(tlsUri(s));
      await tlsClient.connect();
      const raw = await RawConnection.connect(s.port);
      raw.send(opMsg({ hello: 1, $db: 'admin' }));
      assert.equal((await raw.next()).kind, 'closed', 'plain socket closed');
      raw.close();
      assert.notEqual(await ping(plainUri(s)), true, 'the driver without TLS cannot connect');
      assert.equal(
        (await tlsClient.db('admin').command({ ping: 1 }))['ok'],
        1,
        'TLS client served',
      );
      await tlsClient.close();
    } finally {
      await s.stop();
    }
  });

  for (const mode of ['allowTLS', 'preferTLS'] as const) {
    test(`${mode}: plain and TLS clients on the same port`, async () => {
      const s = await start({ mode, allowConnectionsWithoutCertificates: true });
      try {
        assert.equal(await ping(plainUri(s)), true, 'plain');
        assert.equal(await ping(tlsUri(s)), true, 'TLS');
        assert.equal(await ping(tlsUri(s), { tlsCertificateKeyFile: certs.clientFile }), true);
        assert.equal(s.uri.includes('tls=true'), mode === 'preferTLS');
      } finally {
        await s.stop();
      }
    });
  }

  test('disabled: a TLS handshake is refused, plain clients served', async () => {
    const s = await SecantusServer.start();
    try {
      assert.notEqual(await ping(tlsUri(s)), true);
      assert.equal(await ping(plainUri(s)), true);
    } finally {
      await s.stop();
    }
  });

  test('client certificates: a bad one is refused, none is refused unless allowed', async () => {
    const strict = await start({ mode: 'requireTLS' });
    const lenient = await start({ mode: 'requireTLS', allowConnectionsWithoutCertificates: true });
    try {
      assert.equal(await rawTlsPing(strict.port, certs.clientFile), 'reply', 'good certificate');
      assert.equal(await rawTlsPing(strict.port, certs.strangerFile), 'closed', 'untrusted CA');
      assert.equal(await rawTlsPing(strict.port, undefined), 'closed', 'no certificate');
      assert.equal(await rawTlsPing(lenient.port, undefined), 'reply', 'allowed without');
      assert.equal(await rawTlsPing(lenient.port, certs.strangerFile), 'closed', 'still verified');
      assert.notEqual(
        await ping(tlsUri(strict), { tlsCertificateKeyFile: certs.strangerFile }),
        true,
      );
      assert.equal(await ping(tlsUri(strict), { tlsCertificateKeyFile: certs.clientFile }), true);
    } finally {
      await strict.stop();
      await lenient.stop();
    }
  });

  test('an expired client certificate is refused; allowInvalidCertificates accepts it', async () => {
    const expired = issue(certs.ca, {
      subject: 'CN=old,O=SecantusDB',
      usage: 'client',
      notBefore: new Date(Date.now() - 10 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    const file = certs.write('expired.pem', expired.cert + expired.key);
    const strict = await start({ mode: 'requireTLS' });
    const lax = await start({ mode: 'requireTLS', allowInvalidCertificates: true });
    try {
      assert.equal(await rawTlsPing(strict.port, file), 'closed');
      assert.equal(await rawTlsPing(lax.port, file), 'reply');
    } finally {
      await strict.stop();
      await lax.stop();
    }
  });

  test('an encrypted private key opens with tlsCertificateKeyFilePassword', async () => {
    const file = certs.write(
      'server-enc.pem',
      certs.server.cert + encryptedKey(certs.server, 's3cret'),
    );
    const s = await start({
      mode: 'requireTLS',
      certificateKeyFile: file,
      certificateKeyFilePassword: 's3cret',
      allowConnectionsWithoutCertificates: true,
    });
    try {
      assert.equal(await ping(tlsUri(s)), true);
    } finally {
      await s.stop();
    }
    await assert.rejects(
      start({ mode: 'requireTLS', certificateKeyFile: file, certificateKeyFilePassword: 'wrong' }),
      /Can not set up PEM key file/,
    );
  });

  test('a plain client in preferTLS mode is logged as mongod logs it', async () => {
    const lines: string[] = [];
    const { Logger } = await import('../../src/log.js');
    const s = await SecantusServer.start({
      tls: {
        mode: 'preferTLS',
        certificateKeyFile: certs.serverFile,
        CAFile: certs.caFile,
        allowConnectionsWithoutCertificates: true,
      },
      logger: new Logger({ write: (l) => lines.push(l) }, 'info'),
    });
    try {
      assert.equal(await ping(plainUri(s)), true);
      assert.ok(
        lines.some((l) => (JSON.parse(l) as { id: number }).id === 23838),
        'log line 23838',
      );
    } finally {
      await s.stop();
    }
  });

  test('the verified client certificate subject is kept on the connection, RFC 2253', async () => {
    const server = await Server.start({
      port: 0,
      tls: {
        mode: 'requireTLS',
        certificateKeyFile: certs.serverFile,
        CAFile: certs.caFile,
        allowConnectionsWithoutCertificates: true,
      },
    });
    try {
      const withCert = new MongoClient(tlsUri(server), { tlsCertificateKeyFile: certs.clientFile });
      await withCert.connect();
      await withCert.db('admin').command({ ping: 1 });
      const peers = server.connectionStates().map((c) => c.tls);
      assert.ok(
        peers.some((p) => p?.subject === certs.clientSubject && p.verified && !p.clusterMember),
        JSON.stringify(peers),
      );
      await withCert.close();
      // A certificate with the server's O and OU names a cluster member (mongod's isClusterMember).
      const member = issue(certs.ca, {
        subject: 'CN=node2,OU=Server,O=SecantusDB',
        usage: 'client',
      });
      const memberFile = certs.write('member.pem', member.cert + member.key);
      const asMember = new MongoClient(tlsUri(server), { tlsCertificateKeyFile: memberFile });
      await asMember.connect();
      await asMember.db('admin').command({ ping: 1 });
      assert.ok(
        server
          .connectionStates()
          .some((c) => c.tls?.subject === 'CN=node2,OU=Server,O=SecantusDB' && c.tls.clusterMember),
      );
      await asMember.close();
      const without = new MongoClient(tlsUri(server));
      await without.connect();
      await without.db('admin').command({ ping: 1 });
      const states = server.connectionStates();
      assert.ok(states.length > 0);
      for (const c of states)
        assert.deepEqual(c.tls, { subject: undefined, verified: false, clusterMember: false });
      await without.close();
    } finally {
      await server.stop();
    }
  });

  test('startup refuses incomplete or inconsistent settings, with mongod messages', async () => {
    const cases: Array<[TlsOptions, RegExp]> = [
      [
        { mode: 'requireTLS', CAFile: certs.caFile },
        /need tlsCertificateKeyFile or certificateSelector/,
      ],
      [
        { mode: 'requireTLS', certificateKeyFile: certs.serverFile },
        /without specifying a chain of trust/,
      ],
      [
        { mode: 'disabled', CAFile: certs.caFile },
        /need to enable TLS via the sslMode\/tlsMode flag/,
      ],
      [
        { mode: 'requireTLS', certificateKeyFile: '/nope.pem', CAFile: certs.caFile },
        /cannot read tlsCertificateKeyFile/,
      ],
      [
        { mode: 'requireTLS', certificateKeyFile: certs.caFile, CAFile: certs.caFile },
        /Can not set up PEM key file/,
      ],
      [
        {
          mode: 'bogus' as 'requireTLS',
          certificateKeyFile: certs.serverFile,
          CAFile: certs.caFile,
        },
        /unsupported value for tlsMode/,
      ],
    ];
    for (const [tlsOptions, re] of cases) {
      await assert.rejects(
        SecantusServer.start({ tls: tlsOptions }),
        re,
        JSON.stringify(tlsOptions),
      );
    }
    const expired = issue(certs.ca, {
      subject: 'CN=localhost',
      usage: 'server',
      ips: ['127.0.0.1'],
      notBefore: new Date(Date.now() - 10 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    const file = certs.write('server-expired.pem', expired.cert + expired.key);
    await assert.rejects(
      SecantusServer.start({
        tls: { mode: 'requireTLS', certificateKeyFile: file, CAFile: certs.caFile },
      }),
      /The provided SSL certificate is expired or not yet valid/,
    );
  });

  test("an HTTP request on the port gets mongod's plain-text answer", async () => {
    const s = await SecantusServer.start();
    try {
      const body = await new Promise<string>((resolve) => {
        const sock = net.connect({ port: s.port, host: '127.0.0.1' }, () =>
          sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
        );
        let got = '';
        sock.on('data', (d: Buffer) => (got += d.toString()));
        sock.on('close', () => resolve(got));
      });
      assert.match(
        body,
        /It looks like you are trying to access MongoDB over HTTP on the native driver port/,
      );
    } finally {
      await s.stop();
    }
  });
});

describe('RFC 2253 subjects from Node', () => {
  test('reverses the RDNs, joins with commas, keeps multi-valued RDNs and escapes', () => {
    assert.equal(
      rfc2253Subject('C=PT\nL=Lisbon\nO=SecantusDB\nOU=Clients\nCN=client'),
      'CN=client,OU=Clients,O=SecantusDB,L=Lisbon,C=PT',
    );
    assert.equal(rfc2253Subject('O=Acme\nCN=a + UID=7'), 'CN=a+UID=7,O=Acme');
    assert.equal(rfc2253Subject('O=Acme\\, Inc.\nCN=x'), 'CN=x,O=Acme\\, Inc.');
  });
});
