// What the server knows of one client connection (its id, addresses, client metadata, auth
// and TLS state) and what a long operation reports of itself in currentOp. Apart from
// context.ts so that the operation registry (operations.ts), which the server's services
// hold, can use them without a circle.

import type { BsonDocument } from '../bson/types.js';
import type { ConnectionAuth } from '../auth/session.js';

export interface ConnectionState {
  readonly id: number;
  readonly remote: string;
  readonly local: string;
  /** Client metadata from the first hello. */
  clientMetadata: BsonDocument | undefined;
  /** appName from client metadata, used by failpoints. */
  appName: string | undefined;
  /** Who the client authenticated as, and the SASL conversation in progress. */
  readonly auth: ConnectionAuth;

  /** Compressors hello negotiated, in the client's order (hello repeats them when asked again). */
  negotiatedCompressors?: string[];
  /** Set on a TLS connection: the client certificate, as MONGODB-X509 authentication reads it. */
  readonly tls?: TlsPeerState;
}

export interface TlsPeerState {
  /** The client certificate's subject, RFC 2253 (e.g. "CN=app,OU=Clients,O=Example"); none: undefined. */
  readonly subject: string | undefined;
  /** The certificate verified against the CA (false only under tlsAllowInvalidCertificates). */
  readonly verified: boolean;
  /**
   * Its O, OU and DC attributes are the server certificate's (mongod's isClusterMember): such a
   * certificate names a cluster member, not a user.
   */
  readonly clusterMember: boolean;
}

/** What a long operation reports of itself in currentOp (mongod's CurOp message and progress). */
export interface CurOpStatus {
  msg?: string | undefined;
  progress?: { done: number; total: number } | undefined;
}
