// The in-process server for tests: `await SecantusServer.start()` gives a URI a driver can
// connect to, in memory unless a dbPath is given, on a free port of 127.0.0.1.
//
//   const server = await SecantusServer.start();
//   const client = new MongoClient(server.uri);
//   ...
//   await server.stop();

import type { Logger } from '../log.js';
import { Server } from '../server/server.js';

export interface SecantusServerOptions {
  /** TCP port; default 0 (a free port). */
  readonly port?: number;
  /** Listen address; default 127.0.0.1. */
  readonly bindIp?: string;
  /** Data directory. Without one, data lives in memory and is gone after stop(). */
  readonly dbPath?: string;
  /** Default: lmdb with a dbPath, memory without. */
  readonly storageEngine?: 'memory' | 'lmdb';
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
   * A connection string for the official driver; names the replica set when there is one, and
   * carries the credentials of the `auth` user (authSource admin) when one was given.
   */
  get uri(): string {
    const rs = this.server.config.replSet;
    const c = this.credentials;
    const userinfo =
      c === undefined ? '' : `${encodeURIComponent(c.username)}:${encodeURIComponent(c.password)}@`;
    const params = [
      ...(rs === '' ? [] : [`replicaSet=${encodeURIComponent(rs)}`]),
      ...(c === undefined ? [] : ['authSource=admin']),
    ];
    return (
      `mongodb://${userinfo}${this.host}/` + (params.length === 0 ? '' : `?${params.join('&')}`)
    );
  }

  /** Stop the server: every socket and the storage are closed when this resolves. */
  stop(): Promise<void> {
    return this.server.stop();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
