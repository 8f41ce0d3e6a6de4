// TLS on the server's one port, as mongod's net.tls settings have it. requireTLS accepts only
// TLS; allowTLS and preferTLS accept TLS and plain connections side by side; disabled refuses
// a TLS handshake. Which one a client speaks is read from its first 16 bytes, as mongod reads
// the first message header: a client's first message has responseTo 0 (or -1), while a TLS
// ClientHello has the record and handshake headers and the version bytes there.
//
// A CA file is required (mongod 7.0.6+). A client certificate, when presented, is verified
// against it and refused when invalid (unless tlsAllowInvalidCertificates); a client without
// one is refused unless tlsAllowConnectionsWithoutCertificates. The verified certificate's
// subject (RFC 2253) is what MONGODB-X509 authentication names the user by.

import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import type { Socket } from 'node:net';
import * as tls from 'node:tls';
import { limits } from '../limits.js';
import type { TlsPeerState } from '../commands/context.js';
import type { Logger } from '../log.js';

export const tlsModes = ['disabled', 'allowTLS', 'preferTLS', 'requireTLS'] as const;
export type TlsMode = (typeof tlsModes)[number];

export function isTlsMode(v: unknown): v is TlsMode {
  return typeof v === 'string' && (tlsModes as readonly string[]).includes(v);
}

/** mongod's net.tls.* settings (file paths, as mongod takes them). */
export interface TlsOptions {
  readonly mode: TlsMode;
  /** PEM holding the server's certificate (and chain) and its private key. */
  readonly certificateKeyFile?: string;
  /** Passphrase of an encrypted private key in certificateKeyFile. */
  readonly certificateKeyFilePassword?: string;
  /** PEM of the CA certificates client certificates are verified against. */
  readonly CAFile?: string;
  /** Let clients connect without a certificate (a presented one is still verified). */
  readonly allowConnectionsWithoutCertificates?: boolean;
  /** Accept client certificates that fail verification (logged). */
  readonly allowInvalidCertificates?: boolean;
  /** Only outgoing connections check hostnames; the server makes none, so this changes nothing. */
  readonly allowInvalidHostnames?: boolean;
}

/** A startup error in the TLS settings (mongod: BadValue / InvalidOptions, exit code 2). */
export class TlsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsConfigError';
  }
}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new TlsConfigError(
      `cannot read ${what} ${path}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/**
 * The subject as mongod names X.509 users (SSLX509Name::toString): RDNs most specific first,
 * separated by commas, the parts of a multi-valued RDN joined with "+" in certificate order,
 * values RFC 2253-escaped. Node prints a subject one RDN a line in certificate order, values
 * escaped the same way (ESC_2253, control characters as \XX), multi-valued parts joined with
 * " + "; an escaped value cannot hold a bare "+" or newline, so neither separator is ambiguous.
 */
export function rfc2253Subject(nodeSubject: string): string {
  return nodeSubject
    .split('\n')
    .filter((line) => line !== '')
    .reverse()
    .map((rdn) => rdn.split(' + ').join('+'))
    .join(',');
}

/**
 * Validate the settings as mongod does at startup and build the TLS server context.
 * undefined: TLS disabled.
 */
export function createTlsIngress(o: TlsOptions | undefined): TlsServerSide | undefined {
  if (o === undefined || o.mode === 'disabled') {
    if (
      o !== undefined &&
      (o.certificateKeyFile !== undefined ||
        o.certificateKeyFilePassword !== undefined ||
        o.CAFile !== undefined ||
        o.allowConnectionsWithoutCertificates === true ||
        o.allowInvalidCertificates === true)
    ) {
      throw new TlsConfigError(
        'need to enable TLS via the sslMode/tlsMode flag when using TLS configuration parameters',
      );
    }
    return undefined;
  }
  if (!isTlsMode(o.mode))
    throw new TlsConfigError(`unsupported value for tlsMode ${String(o.mode)}`);
  if (o.certificateKeyFile === undefined)
    throw new TlsConfigError(
      'need tlsCertificateKeyFile or certificateSelector when TLS is enabled',
    );
  if (o.CAFile === undefined)
    throw new TlsConfigError(
      'The use of TLS without specifying a chain of trust is no longer supported',
    );
  const pem = readPem(o.certificateKeyFile, 'tlsCertificateKeyFile');
  const ca = readPem(o.CAFile, 'tlsCAFile');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    throw new TlsConfigError('Can not set up PEM key file.');
  }
  const now = Date.now();
  if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now)
    throw new TlsConfigError('The provided SSL certificate is expired or not yet valid.');
  let server: tls.Server;
  try {
    server = tls.createServer({
      key: pem,
      cert: pem,
      ...(o.certificateKeyFilePassword === undefined
        ? {}
        : { passphrase: o.certificateKeyFilePassword }),
      ca,
      // Ask for a client certificate and decide after the handshake, as mongod does (its
      // verify callback accepts, then the peer certificate is checked): the reasons can
      // then be logged, and tlsAllowConnectionsWithoutCertificates honoured.
      requestCert: true,
      rejectUnauthorized: false,
      handshakeTimeout: limits.tlsHandshakeTimeoutMs,
    });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new TlsConfigError(`Can not set up PEM key file. ${why}`);
  }
  return new TlsServerSide(o, server, o.CAFile, certificate);
}

/** How a connection should proceed after its first bytes were read. */
export type FirstBytesVerdict = 'plain' | 'tls' | 'http' | { refuse: string };

/** Decide from a connection's first 16 bytes (or fewer, when the peer closed). */
export function classifyFirstBytes(first: Buffer, mode: TlsMode): FirstBytesVerdict {
  if (first.length >= 4 && first.toString('latin1', 0, 4) === 'GET ') return 'http';
  const responseTo = first.length >= 12 ? first.readInt32LE(8) : 0;
  const looksTls = responseTo !== 0 && responseTo !== -1;
  if (looksTls) {
    if (mode === 'disabled')
      return { refuse: 'SSL handshake received but server is started without SSL support' };
    return 'tls';
  }
  if (mode === 'requireTLS')
    return { refuse: 'The server is configured to only allow SSL connections' };
  return 'plain';
}

/** OpenSSL's wording for the verification errors a client certificate commonly has. */
const verifyErrorText: Record<string, string> = {
  UNABLE_TO_GET_ISSUER_CERT: 'unable to get issuer certificate',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unable to get local issuer certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unable to verify the first certificate',
  CERT_SIGNATURE_FAILURE: 'certificate signature failure',
  CERT_NOT_YET_VALID: 'certificate is not yet valid',
  CERT_HAS_EXPIRED: 'certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in certificate chain',
  CERT_REVOKED: 'certificate revoked',
  INVALID_CA: 'invalid CA certificate',
  INVALID_PURPOSE: 'unsupported certificate purpose',
  CERT_UNTRUSTED: 'certificate not trusted',
  CERT_REJECTED: 'certificate rejected',
};

interface PendingHandshake {
  readonly onSecure: (secure: tls.TLSSocket) => void;
  readonly onError: (err: Error) => void;
}

/** A TCP connection is named by its peer's address and port while it lives. */
function peerKey(s: Socket): string {
  return `${s.remoteAddress ?? '?'}|${s.remotePort ?? 0}`;
}

/** The RDN parts of a Node-printed subject, as "K=V" strings (values still escaped). */
function subjectParts(nodeSubject: string): string[] {
  return nodeSubject.split('\n').flatMap((rdn) => (rdn === '' ? [] : rdn.split(' + ')));
}

/**
 * mongod's canonical cluster DN: only the DC, O and OU attributes, sorted. Two certificates
 * with the same non-empty one belong to the same cluster.
 */
export function clusterDn(nodeSubject: string): string {
  return subjectParts(nodeSubject)
    .filter((p) => p.startsWith('DC=') || p.startsWith('O=') || p.startsWith('OU='))
    .sort()
    .join(',');
}

export class TlsServerSide {
  readonly mode: TlsMode;
  /** The server certificate's cluster DN ('' when it has no O / OU / DC). */
  private readonly serverClusterDn: string;
  /** Handshakes in progress, by peer: the tls.Server reports results per TLS socket. */
  private readonly pending = new Map<string, PendingHandshake>();

  constructor(
    private readonly options: TlsOptions,
    private readonly server: tls.Server,
    /** The CA file, for the in-process server's URI (the driver verifies the server with it). */
    readonly caFile: string,
    serverCertificate: X509Certificate,
  ) {
    this.mode = options.mode;
    this.serverClusterDn = clusterDn(serverCertificate.subject);
    server.on('secureConnection', (secure: tls.TLSSocket) => {
      const p = this.take(peerKey(secure));
      if (p === undefined) secure.destroy();
      else p.onSecure(secure);
    });
    server.on('tlsClientError', (err: Error, secure: tls.TLSSocket) => {
      this.take(peerKey(secure))?.onError(err);
      secure.destroy();
    });
  }

  private take(key: string): PendingHandshake | undefined {
    const p = this.pending.get(key);
    this.pending.delete(key);
    return p;
  }

  /**
   * Run the TLS handshake on `socket` (its first bytes are pushed back first), then check the
   * client certificate. `onReady` gets the secure socket; a failure is logged and the socket
   * destroyed.
   */
  handshake(
    socket: Socket,
    first: Buffer,
    logger: Logger,
    onReady: (secure: tls.TLSSocket, peer: TlsPeerState) => void,
  ): void {
    const key = peerKey(socket);
    const fail = (errmsg: string): void => {
      logger.info(
        'NETWORK',
        22988,
        'Error receiving request from client. Ending connection from remote',
        { error: { code: 'SSLHandshakeFailed', errmsg }, remote: key.replace('|', ':') },
      );
    };
    const entry: PendingHandshake = {
      onSecure: (secure) => {
        const peer = this.checkPeer(secure, logger);
        if (typeof peer === 'string') {
          fail(peer);
          secure.destroy();
          return;
        }
        onReady(secure, peer);
      },
      onError: (err) => fail(err.message),
    };
    this.pending.set(key, entry);
    socket.once('close', () => {
      if (this.pending.get(key) === entry) this.pending.delete(key);
    });
    socket.unshift(first);
    this.server.emit('connection', socket);
  }

  /** The peer as mongod's parseAndValidatePeerCertificate sees it, or why it is refused. */
  private checkPeer(secure: tls.TLSSocket, logger: Logger): TlsPeerState | string {
    const cert = secure.getPeerX509Certificate();
    if (cert === undefined) {
      if (this.options.allowConnectionsWithoutCertificates !== true)
        return 'no SSL certificate provided by peer; connection rejected';
      logger.warn('NETWORK', 23234, 'No SSL certificate provided by peer');
      return { subject: undefined, verified: false, clusterMember: false };
    }
    const subject = rfc2253Subject(cert.subject);
    const clusterMember =
      this.serverClusterDn !== '' && clusterDn(cert.subject) === this.serverClusterDn;
    if (!secure.authorized) {
      const code = String(secure.authorizationError ?? 'CERT_REJECTED');
      const reason = `SSL peer certificate validation failed: ${verifyErrorText[code] ?? code}`;
      if (this.options.allowInvalidCertificates !== true) return reason;
      logger.warn('NETWORK', 23236, 'SSL peer certificate validation failed', { reason });
      return { subject, verified: false, clusterMember };
    }
    return { subject, verified: true, clusterMember };
  }
}
