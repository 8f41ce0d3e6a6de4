// Certificates made in the test: a CA, a server certificate for 127.0.0.1 / localhost and
// client certificates, written as PEM files to a temporary directory (nothing is fetched).
// RSA keys come from node:crypto; node-forge builds and signs the X.509 certificates.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type * as Forge from 'node-forge';

// node-forge is CommonJS whose namespaces are attached at run time: load it with require.
const forge = createRequire(import.meta.url)('node-forge') as typeof Forge;
const { pki } = forge;

export interface Issued {
  /** PEM of the certificate. */
  readonly cert: string;
  /** PEM (PKCS#8) of the private key. */
  readonly key: string;
  readonly privateKey: KeyObject;
  readonly certificate: Forge.pki.Certificate;
}

/** "CN=a,O=b" (most significant last, as RFC 2253 writes it) → forge attributes, in cert order. */
function attributes(dn: string): Forge.pki.CertificateField[] {
  return dn
    .split(',')
    .map((part) => {
      const eq = part.indexOf('=');
      return { shortName: part.slice(0, eq).trim(), value: part.slice(eq + 1).trim() };
    })
    .reverse();
}

const day = 24 * 60 * 60 * 1000;

interface CertSpec {
  readonly subject: string;
  readonly issuer?: Issued;
  readonly ca: boolean;
  readonly usage?: 'server' | 'client';
  readonly dns?: readonly string[];
  readonly ips?: readonly string[];
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}

function build(spec: CertSpec): Issued {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = pki.createCertificate();
  cert.publicKey = pki.publicKeyFromPem(
    publicKey.export({ type: 'spki', format: 'pem' }) as string,
  );
  cert.serialNumber = '01' + randomBytes(8).toString('hex');
  cert.validity.notBefore = spec.notBefore ?? new Date(Date.now() - day);
  cert.validity.notAfter = spec.notAfter ?? new Date(Date.now() + 30 * day);
  cert.setSubject(attributes(spec.subject));
  cert.setIssuer(
    spec.issuer === undefined
      ? attributes(spec.subject)
      : spec.issuer.certificate.subject.attributes,
  );
  const altNames = [
    ...(spec.dns ?? []).map((value) => ({ type: 2, value })),
    ...(spec.ips ?? []).map((ip) => ({ type: 7, ip })),
  ];
  cert.setExtensions([
    { name: 'basicConstraints', cA: spec.ca, critical: true },
    spec.ca
      ? { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true }
      : { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    ...(spec.usage === undefined
      ? []
      : [
          {
            name: 'extKeyUsage',
            serverAuth: spec.usage === 'server',
            clientAuth: spec.usage === 'client',
          },
        ]),
    ...(altNames.length > 0 ? [{ name: 'subjectAltName', altNames }] : []),
    { name: 'subjectKeyIdentifier' },
  ]);
  const signer = spec.issuer?.privateKey ?? privateKey;
  cert.sign(
    pki.privateKeyFromPem(signer.export({ type: 'pkcs1', format: 'pem' }) as string),
    forge.md.sha256.create(),
  );
  return {
    cert: pki.certificateToPem(cert),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    privateKey,
    certificate: cert,
  };
}

export function makeCa(subject = 'CN=Secantus Test CA,O=SecantusDB'): Issued {
  return build({ subject, ca: true });
}

export interface IssueOptions {
  readonly subject: string;
  readonly usage: 'server' | 'client';
  readonly dns?: readonly string[];
  readonly ips?: readonly string[];
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}

export function issue(ca: Issued, o: IssueOptions): Issued {
  return build({ ...o, issuer: ca, ca: false });
}

/** The private key as encrypted PKCS#8 PEM (tlsCertificateKeyFilePassword). */
export function encryptedKey(issued: Issued, passphrase: string): string {
  return issued.privateKey.export({
    type: 'pkcs8',
    format: 'pem',
    cipher: 'aes-256-cbc',
    passphrase,
  }) as string;
}

/** A temporary directory of PEM files; remove() deletes it. */
export interface CertFiles {
  readonly dir: string;
  readonly ca: Issued;
  readonly server: Issued;
  readonly caFile: string;
  /** cert + key of the server in one PEM (mongod's tlsCertificateKeyFile). */
  readonly serverFile: string;
  /** cert + key of a client signed by the CA. */
  readonly clientFile: string;
  /** The client certificate's subject, RFC 2253. */
  readonly clientSubject: string;
  /** cert + key of a client signed by a CA the server does not trust. */
  readonly strangerFile: string;
  write(name: string, pem: string): string;
  remove(): void;
}

export function makeCertFiles(): CertFiles {
  const dir = mkdtempSync(join(tmpdir(), 'secantus-tls-'));
  const write = (name: string, pem: string): string => {
    const p = join(dir, name);
    writeFileSync(p, pem, { mode: 0o600 });
    return p;
  };
  const ca = makeCa();
  const other = makeCa('CN=Other CA,O=Elsewhere');
  const server = issue(ca, {
    subject: 'CN=localhost,OU=Server,O=SecantusDB',
    dns: ['localhost'],
    ips: ['127.0.0.1'],
    usage: 'server',
  });
  const clientSubject = 'CN=client,OU=Clients,O=SecantusDB,L=Lisbon,C=PT';
  const client = issue(ca, { subject: clientSubject, usage: 'client' });
  const stranger = issue(other, { subject: 'CN=stranger,O=Elsewhere', usage: 'client' });
  return {
    dir,
    ca,
    server,
    caFile: write('ca.pem', ca.cert),
    serverFile: write('server.pem', server.cert + server.key),
    clientFile: write('client.pem', client.cert + client.key),
    clientSubject,
    strangerFile: write('stranger.pem', stranger.cert + stranger.key),
    write,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
