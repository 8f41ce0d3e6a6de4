// The in-process server for tests: `await SecantusServer.start()` gives a URI a driver can
// connect to, in memory unless a dbPath is given, on a free port of 127.0.0.1.
//
//   const server = await SecantusServer.start();
//   const client = new MongoClient(server.uri);
//   ...
//   await server.stop();

import type { EngineName } from '../storage/engine.js';
import type { Logger } from '../log.js';
import { Server } from '../server/server.js';
import type { ResetResult, ServerSnapshot } from '../server/fixtures.js';
import type { TlsOptions } from '../server/tls.js';
import type { CompatibilityVersion } from '../commands/version.js';

export interface SecantusServerOptions {
  /** TCP port; default 0 (a free port). */
  readonly port?: number;
  /** Listen address; default 127.0.0.1. */
  readonly bindIp?: string;
  /** Data directory. Without one, data lives in memory and is gone after stop(). */
  readonly dbPath?: string;
  /** Default: lmdb with a dbPath, memory without. */
  readonly storageEngine?: EngineName;
  /** Replica set name; default 'rs0' (sessions, transactions, change streams). '' for standalone. */
  readonly replSet?: string;
  /** configureFailPoint and other test commands; default true for the in-process server. */
  readonly enableTestCommands?: boolean;
  readonly logger?: Logger;
  /** How often idle cursors, sessions and transactions are reaped (ms). Default 15 s. */
  readonly reaperIntervalMs?: number;
  /**
   * Oplog entries written off the writers' path by a background drainer (--oplog-async).
   * A crash can lose the entries of acknowledged writes (docs/architecture.md). Default false.
   */
  readonly oplogAsync?: boolean;
  /** The oplog in a second storage committing without fsync (--oplog-nonlogged). Default false. */
  readonly oplogNonlogged?: boolean;
  /**
   * Access control on, with this user created (root role on admin) if it does not exist yet;
   * `uri` then carries the credentials. `true`: access control on with no user created (the
   * localhost exception lets the first client create one).
   */
  readonly auth?: { readonly username: string; readonly password: string } | boolean;
  /**
   * TLS, as mongod's net.tls settings (file paths): e.g. `{ mode: 'requireTLS',
   * certificateKeyFile, CAFile }`. The URI then carries `tls=true` and the CA file.
   */
  readonly tls?: TlsOptions;
  /** --networkMessageCompressors: "snappy,zstd,zlib" by default (what is installed), or "disabled". */
  readonly networkMessageCompressors?: string;
  /**
   * Server-side JavaScript ($where, $function, $accumulator, mapReduce) in a sandbox; false
   * answers as mongod's --noscripting (security.javascriptEnabled: false). Default true.
   */
  readonly javascriptEnabled?: boolean;
  /**
   * Most client connections open at once (mongod's net.maxIncomingConnections); past it a new
   * connection is logged and closed. Default 10000.
   */
  readonly maxIncomingConnections?: number;
  /** The MongoDB version to present and behave as ('7.0' or '8.0'); default '8.0'. */
  readonly compatibilityVersion?: CompatibilityVersion;
}

export class SecantusServer implements AsyncDisposable {
  private constructor(
    private readonly server: Server,
    private readonly credentials:
      { readonly username: string; readonly password: string } | undefined,
  ) {}

  static async start(options: SecantusServerOptions = {}): Promise<SecantusServer> {
    const credentials = typeof options.auth === 'object' ? options.auth : undefined;
    const server = await Server.start({
      auth: options.auth !== undefined && options.auth !== false,
      ...(credentials === undefined ? {} : { initialUser: credentials }),
      port: options.port ?? 0,
      bindIp: options.bindIp ?? '127.0.0.1',
      ...(options.dbPath === undefined ? {} : { dbPath: options.dbPath }),
      ...(options.storageEngine === undefined ? {} : { storageEngine: options.storageEngine }),
      replSet: options.replSet ?? 'rs0',
      enableTestCommands: options.enableTestCommands ?? true,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.reaperIntervalMs === undefined
        ? {}
        : { reaperIntervalMs: options.reaperIntervalMs }),
      ...(options.oplogAsync === undefined ? {} : { oplogAsync: options.oplogAsync }),
      ...(options.oplogNonlogged === undefined ? {} : { oplogNonlogged: options.oplogNonlogged }),
      ...(options.maxIncomingConnections === undefined
        ? {}
        : { maxIncomingConnections: options.maxIncomingConnections }),
      ...(options.tls === undefined ? {} : { tls: options.tls }),
      ...(options.networkMessageCompressors === undefined
        ? {}
        : { networkMessageCompressors: options.networkMessageCompressors }),
      ...(options.javascriptEnabled === undefined
        ? {}
        : { javascriptEnabled: options.javascriptEnabled }),
      ...(options.compatibilityVersion === undefined
        ? {}
        : { compatibilityVersion: options.compatibilityVersion }),
    });
    return new SecantusServer(server, credentials);
  }

  get port(): number {
    return this.server.port;
  }

  /** host:port as clients should address it. */
  get host(): string {
    return this.server.config.advertisedHost;
  }

  /**
   * A connection string ending in `/`, so a database name can be appended:
   * `${server.uri}mydb`. Drivers discover the replica set from the server itself; getUri()
   * also names it. With an `auth` user it carries the credentials; with no database in the
   * path the driver authenticates against admin, where that user is — append a database
   * through getUri(dbName), which keeps authSource=admin. Under TLS it ends in a query
   * string (`?tls=true&tlsCAFile=...`): use getUri(dbName) to name a database.
   */
  get uri(): string {
    const tls = this.tlsParams();
    return (
      `mongodb://${this.userinfo()}${this.host}/` + (tls.length === 0 ? '' : `?${tls.join('&')}`)
    );
  }

  /**
   * A connection string with `dbName` as its default database, before the query string that
   * names the replica set (when there is one): `mongodb://127.0.0.1:PORT/mydb?replicaSet=rs0`.
   */
  getUri(dbName = ''): string {
    const rs = this.server.config.replSet;
    const c = this.credentials;
    const params = [
      ...(rs === '' ? [] : [`replicaSet=${encodeURIComponent(rs)}`]),
      ...(c === undefined ? [] : ['authSource=admin']),
      ...this.tlsParams(),
    ];
    return (
      `mongodb://${this.userinfo()}${this.host}/${encodeURIComponent(dbName)}` +
      (params.length === 0 ? '' : `?${params.join('&')}`)
    );
  }

  /**
   * Under requireTLS / preferTLS the driver is asked for TLS and told the CA file (a client
   * certificate, when the server wants one, is the caller's to add: `tlsCertificateKeyFile`).
   */
  private tlsParams(): string[] {
    const mode = this.server.tlsMode;
    if (mode !== 'requireTLS' && mode !== 'preferTLS') return [];
    const ca = this.server.tlsCAFile;
    return ['tls=true', ...(ca === undefined ? [] : [`tlsCAFile=${encodeURIComponent(ca)}`])];
  }

  private userinfo(): string {
    const c = this.credentials;
    return c === undefined
      ? ''
      : `${encodeURIComponent(c.username)}:${encodeURIComponent(c.password)}@`;
  }

  /**
   * Drop every user database (all but admin's system collections, config and local), as one
   * dropDatabase each: change streams see the drops, cursors on them are killed, and open
   * transactions are aborted first. docs/testing.md.
   */
  reset(): Promise<ResetResult> {
    return this.server.reset();
  }

  /**
   * Capture the user data — documents, indexes, collection options, views — for restore().
   * O(1) per collection on the memory engine (structure is shared); a copy on lmdb.
   */
  snapshot(): Promise<ServerSnapshot> {
    return this.server.snapshot();
  }

  /** Drop every user database, then bring back the collections of `snapshot`. */
  restore(snapshot: ServerSnapshot): Promise<ResetResult> {
    return this.server.restore(snapshot);
  }

  /** Stop the server: every socket and the storage are closed when this resolves. */
  stop(): Promise<void> {
    return this.server.stop();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
