// The MONGODB-X509 seam: which $external user a connection's client certificate names, and
// mongod's refusals.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { x509UserName } from '../../../src/commands/auth/x509.js';
import type { ConnectionState, TlsPeerState } from '../../../src/commands/context.js';
import { CommandError } from '../../../src/errors.js';
import { clusterDn } from '../../../src/server/tls.js';
import { ConnectionAuth } from '../../../src/auth/session.js';

const subject = 'CN=app,OU=Clients,O=Example,C=PT';

function conn(tls: TlsPeerState | undefined): ConnectionState {
  return {
    id: 1,
    remote: '127.0.0.1:1',
    local: '127.0.0.1:2',
    clientMetadata: undefined,
    appName: undefined,
    auth: new ConnectionAuth(true),
    ...(tls === undefined ? {} : { tls }),
  };
}

function refused(f: () => unknown, code: number, re: RegExp): void {
  assert.throws(
    f,
    (e: unknown) => e instanceof CommandError && e.code === code && re.test(e.message),
  );
}

test('a verified certificate names its subject, with or without the user given', () => {
  const c = conn({ subject, verified: true, clusterMember: false });
  assert.equal(x509UserName(c, '$external', undefined), subject);
  assert.equal(x509UserName(c, '$external', subject), subject);
});

test("mongod's refusals", () => {
  const ok = conn({ subject, verified: true, clusterMember: false });
  refused(
    () => x509UserName(ok, 'admin', undefined),
    17,
    /must always use the \$external database/,
  );
  refused(
    () => x509UserName(ok, '$external', 'CN=other'),
    18,
    /no x.509 client certificate matching/,
  );
  refused(
    () => x509UserName(conn(undefined), '$external', undefined),
    18,
    /No verified subject name/,
  );
  const none = conn({ subject: undefined, verified: false, clusterMember: false });
  refused(() => x509UserName(none, '$external', undefined), 18, /No verified subject name/);
  const invalid = conn({ subject, verified: false, clusterMember: false });
  refused(() => x509UserName(invalid, '$external', subject), 18, /No verified subject name/);
  const member = conn({ subject, verified: true, clusterMember: true });
  refused(
    () => x509UserName(member, '$external', undefined),
    18,
    /only be used for cluster authentication/,
  );
});

test('cluster DN: O, OU and DC only, order-free', () => {
  assert.equal(clusterDn('C=PT\nO=Example\nOU=Servers\nCN=db1'), 'O=Example,OU=Servers');
  assert.equal(
    clusterDn('OU=Servers\nO=Example\nCN=db2'),
    clusterDn('C=US\nO=Example\nOU=Servers\nCN=x'),
  );
  assert.equal(clusterDn('CN=only'), '');
  assert.equal(clusterDn('DC=org + DC=example\nCN=a'), 'DC=example,DC=org');
});
