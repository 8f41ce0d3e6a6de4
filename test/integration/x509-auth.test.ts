// MONGODB-X509 login: a client certificate verified against the CA names an `$external` user,
// who then has that user's roles — through the driver's speculative authentication in hello
// and through an explicit `authenticate` command. Refusals as mongod's: no TLS, another
// database, a subject without a user, a requested user that is not the subject.

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoClient, MongoServerError } from 'mongodb';
import { SecantusServer } from '../../src/embed/index.js';
import { issue, makeCertFiles } from '../helpers/certs.js';
import type { CertFiles } from '../helpers/certs.js';
import type { TestDoc } from '../helpers/driver.js';

let certs: CertFiles;
let server: SecantusServer;
const clients: MongoClient[] = [];

function client(uri: string, certFile?: string): MongoClient {
  const c = new MongoClient(uri, {
    serverSelectionTimeoutMS: 2000,
    ...(certFile === undefined ? {} : { tlsCertificateKeyFile: certFile }),
  });
  clients.push(c);
  return c;
}

function tlsUri(query = ''): string {
  return (
    `mongodb://127.0.0.1:${server.port}/?directConnection=true&tls=true` +
    `&tlsCAFile=${encodeURIComponent(certs.caFile)}${query}`
  );
}

before(async () => {
  certs = makeCertFiles();
  server = await SecantusServer.start({
    auth: { username: 'root', password: 'root-pw' },
    tls: { mode: 'allowTLS', certificateKeyFile: certs.serverFile, CAFile: certs.caFile },
  });
  const root = client(server.getUri('admin'), certs.clientFile);
  await root.db('$external').command({
    createUser: certs.clientSubject,
    roles: [{ role: 'readWrite', db: 'app' }],
  });
});

after(async () => {
  for (const c of clients) await c.close();
  await server.stop();
  certs.remove();
});

async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return e instanceof MongoServerError ? Number(e.code) : -1;
  }
}

describe('MONGODB-X509 authentication', () => {
  test("the driver's login (speculative, in hello) grants the $external user's roles", async () => {
    const c = client(tlsUri('&authMechanism=MONGODB-X509'), certs.clientFile);
    const coll = c.db('app').collection<TestDoc>('c');
    await coll.insertOne({ _id: 1, by: 'x509' });
    assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, by: 'x509' });
    const status = await c.db('admin').command({ connectionStatus: 1 });
    assert.deepEqual(status['authInfo']['authenticatedUsers'], [
      { user: certs.clientSubject, db: '$external' },
    ]);
    // readWrite on app only.
    assert.equal(await codeOf(c.db('other').collection('c').insertOne({})), 13);
  });

  test('an explicit authenticate command answers dbname and user', async () => {
    const c = client(tlsUri(), certs.clientFile);
    const r = await c.db('$external').command({ authenticate: 1, mechanism: 'MONGODB-X509' });
    assert.equal(r['dbname'], '$external');
    assert.equal(r['user'], certs.clientSubject);
    await c.db('app').collection('c').countDocuments();
  });

  test('refusals: no user, another user named, another database, no TLS', async () => {
    const stranger = issue(certs.ca, { subject: 'CN=nobody,O=Elsewhere', usage: 'client' });
    const strangerFile = certs.write('nobody.pem', stranger.cert + stranger.key);
    const noUser = client(tlsUri(), strangerFile);
    const authenticate = { authenticate: 1, mechanism: 'MONGODB-X509' };
    assert.equal(await codeOf(noUser.db('$external').command(authenticate)), 18);
    assert.equal(await codeOf(noUser.db('app').collection('c').countDocuments()), 13);

    const named = client(tlsUri(), certs.clientFile);
    assert.equal(
      await codeOf(named.db('$external').command({ ...authenticate, user: 'CN=someone-else' })),
      18,
    );
    assert.equal(await codeOf(named.db('admin').command(authenticate)), 17);

    const plain = client(`mongodb://127.0.0.1:${server.port}/?directConnection=true`);
    assert.equal(await codeOf(plain.db('$external').command(authenticate)), 17);
    // The server still serves the authenticated user.
    const ok = client(tlsUri('&authMechanism=MONGODB-X509'), certs.clientFile);
    assert.equal(await ok.db('app').collection<TestDoc>('c').countDocuments({ _id: 1 }), 1);
  });
});
