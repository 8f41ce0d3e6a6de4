// The server side of SCRAM against the RFC test vectors and a client written here, plus
// malformed and replayed messages: every fault is a ScramError, never anything else.

import * as assert from 'node:assert/strict';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  legacyPasswordDigest,
  makeCredential,
  ScramError,
  ScramServer,
} from '../../../src/auth/scram.js';
import type { ScramCredential, ScramMechanism } from '../../../src/auth/scram.js';

const hashName = (m: ScramMechanism): 'sha1' | 'sha256' =>
  m === 'SCRAM-SHA-1' ? 'sha1' : 'sha256';

/** A client conversation: returns the server's final message, or throws the server's error. */
function login(
  server: ScramServer,
  cred: ScramCredential | undefined,
  user: string,
  password: string,
  digest: boolean,
): string {
  const m = server.mechanism;
  const h = hashName(m);
  const clientNonce = randomBytes(18).toString('base64');
  const bare = `n=${user.replace(/=/g, '=3D').replace(/,/g, '=2C')},r=${clientNonce}`;
  const first = server.step(Buffer.from(`n,,${bare}`), () => cred).toString();
  const parts = Object.fromEntries(first.split(',').map((p) => [p[0], p.slice(2)]));
  const secret = m === 'SCRAM-SHA-1' && digest ? legacyPasswordDigest(user, password) : password;
  const salted = pbkdf2Sync(
    secret,
    Buffer.from(parts['s'] ?? '', 'base64'),
    Number(parts['i']),
    h === 'sha1' ? 20 : 32,
    h,
  );
  const clientKey = createHmac(h, salted).update('Client Key').digest();
  const storedKey = createHash(h).update(clientKey).digest();
  const withoutProof = `c=biws,r=${parts['r'] ?? ''}`;
  const authMessage = `${bare},${first},${withoutProof}`;
  const signature = createHmac(h, storedKey).update(authMessage).digest();
  const proof = Buffer.from(clientKey.map((b, i) => b ^ (signature[i] ?? 0)));
  return server
    .step(Buffer.from(`${withoutProof},p=${proof.toString('base64')}`), () => cred)
    .toString();
}

describe('SCRAM credentials match the RFC test vectors', () => {
  // RFC 5802 (SCRAM-SHA-1) and RFC 7677 (SCRAM-SHA-256): user "user", password "pencil".
  const vectors = [
    {
      m: 'SCRAM-SHA-1' as const,
      salt: 'QSXCR+Q6sek8bf92',
      bare: 'n=user,r=fyko+d2lbbFgONRv9qkxdawL',
      serverFirst: 'r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096',
      final: 'c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j',
      proof: 'v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=',
      verifier: 'rmF9pqV8S7suAoZWja4dJRkFsKQ=',
    },
    {
      m: 'SCRAM-SHA-256' as const,
      salt: 'W22ZaJ0SNY7soEsUEjb6gQ==',
      bare: 'n=user,r=rOprNGfwEbeRWgbNEkqO',
      serverFirst:
        'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
      final: 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
      proof: 'dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
      verifier: '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
    },
  ];
  for (const v of vectors) {
    it(`${v.m}: StoredKey verifies the RFC proof, ServerKey signs the RFC verifier`, async () => {
      const h = hashName(v.m);
      const salt = Buffer.from(v.salt, 'base64');
      const { storedKey, serverKey } = await makeCredential(
        v.m,
        'user',
        'pencil',
        4096,
        false,
        salt,
      );
      const authMessage = `${v.bare},${v.serverFirst},${v.final}`;
      const signature = createHmac(h, storedKey).update(authMessage).digest();
      const clientKey = Buffer.from(
        Buffer.from(v.proof, 'base64').map((b, i) => b ^ (signature[i] ?? 0)),
      );
      assert.deepEqual(createHash(h).update(clientKey).digest(), storedKey);
      assert.equal(createHmac(h, serverKey).update(authMessage).digest('base64'), v.verifier);
    });
  }
});

describe('ScramServer', () => {
  for (const m of ['SCRAM-SHA-1', 'SCRAM-SHA-256'] as const) {
    it(`${m}: the right password authenticates, a wrong one and an unknown user fail alike`, async () => {
      const cred = await makeCredential(m, 'alice', 'wonder land', 4096);
      const ok = new ScramServer(m, 4096);
      const final = login(ok, cred, 'alice', 'wonder land', true);
      assert.match(final, /^v=/);
      assert.ok(ok.authenticated);
      assert.equal(ok.user, 'alice');
      for (const [c, pwd] of [
        [cred, 'wrong'],
        [undefined, 'wonder land'],
      ] as const) {
        const s = new ScramServer(m, 4096);
        assert.throws(() => login(s, c, 'alice', pwd, true), ScramError);
        assert.ok(!s.authenticated);
      }
    });
  }

  it('SCRAM-SHA-256 SASLprep: equivalent spellings of a password log in', async () => {
    const cred = await makeCredential('SCRAM-SHA-256', 'u', 'I\u00ADX', 4096);
    assert.match(login(new ScramServer('SCRAM-SHA-256', 4096), cred, 'u', 'IX', true), /^v=/);
  });

  it('an unknown user gets a first reply shaped like a known one, stable per name', () => {
    const first = (user: string): string =>
      new ScramServer('SCRAM-SHA-256', 15000)
        .step(Buffer.from(`n,,n=${user},r=abc`), () => undefined)
        .toString();
    const a = first('ghost');
    assert.match(a, /^r=abc[^,]+,s=[A-Za-z0-9+/=]{40},i=15000$/);
    assert.equal(a.split(',')[1], first('ghost').split(',')[1]);
    assert.notEqual(a.split(',')[1], first('other').split(',')[1]);
  });

  it('a replayed final message fails on a new conversation', async () => {
    const cred = await makeCredential('SCRAM-SHA-256', 'bob', 'pw', 4096);
    const s1 = new ScramServer('SCRAM-SHA-256', 4096);
    const first = s1.step(Buffer.from('n,,n=bob,r=nonce'), () => cred).toString();
    const s2 = new ScramServer('SCRAM-SHA-256', 4096);
    s2.step(Buffer.from('n,,n=bob,r=nonce'), () => cred);
    const nonce = /^r=([^,]+)/.exec(first)?.[1] ?? '';
    assert.throws(
      () =>
        s2.step(
          Buffer.from(`c=biws,r=${nonce},p=${Buffer.alloc(32).toString('base64')}`),
          () => cred,
        ),
      ScramError,
    );
  });

  it('any byte string is refused with a ScramError, never another exception', async () => {
    const cred = await makeCredential('SCRAM-SHA-256', 'u', 'p', 4096);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
        const s = new ScramServer('SCRAM-SHA-256', 4096);
        try {
          s.step(Buffer.from(a), () => cred);
          s.step(Buffer.from(b), () => cred);
        } catch (e) {
          assert.ok(e instanceof ScramError, String(e));
          return;
        }
        assert.ok(!s.authenticated);
      }),
      { numRuns: 300 },
    );
  });
});
