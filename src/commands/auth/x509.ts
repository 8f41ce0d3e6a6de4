// MONGODB-X509: the user a client certificate authenticates as, checked as mongod's
// _authenticateX509 checks it. The transport (src/server/tls.ts) verifies the certificate
// against the CA during the TLS handshake and keeps its RFC 2253 subject on the connection
// (ConnectionState.tls); this decides whether an `authenticate` (or hello's
// speculativeAuthenticate) with mechanism MONGODB-X509 may name a user, and which. Looking the
// user up in `$external` and granting its roles belongs to the authentication service.

import { CommandError, ErrorCode } from '../../errors.js';
import type { ConnectionState } from '../context.js';

export const x509Mechanism = 'MONGODB-X509';
export const externalDb = '$external';

/**
 * The `$external` user name for a MONGODB-X509 authentication on `connection`: the
 * certificate's subject. `requestedUser` (the command's `user`, optional) must equal it.
 * Throws what mongod throws: ProtocolError for another database, AuthenticationFailed for a
 * connection without a verified certificate, a subject that is not the requested user, or a
 * certificate that names a cluster member (this server has no x.509 cluster authentication).
 * The authenticate command reports every AuthenticationFailed as "Authentication failed." to
 * the client, as mongod does; these messages are for the log.
 */
export function x509UserName(
  connection: ConnectionState,
  db: string,
  requestedUser: string | undefined,
): string {
  if (db !== externalDb)
    throw new CommandError(
      ErrorCode.ProtocolError,
      'X.509 authentication must always use the $external database.',
    );
  const peer = connection.tls;
  // Under tlsAllowInvalidCertificates an unverified certificate names nobody (mongod keeps
  // no subject for it).
  const subject = peer?.verified === true ? peer.subject : undefined;
  if (subject === undefined || subject === '')
    throw new CommandError(
      ErrorCode.AuthenticationFailed,
      'No verified subject name available from client',
    );
  if (requestedUser !== undefined && requestedUser !== '' && requestedUser !== subject)
    throw new CommandError(
      ErrorCode.AuthenticationFailed,
      'There is no x.509 client certificate matching the user.',
    );
  if (peer?.clusterMember === true)
    throw new CommandError(
      ErrorCode.AuthenticationFailed,
      'The provided certificate can only be used for cluster authentication, not client ' +
        'authentication. The current configuration does not allow x.509 cluster ' +
        'authentication, check the --clusterAuthMode flag',
    );
  return subject;
}
