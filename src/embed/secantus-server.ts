// The in-process server for tests: `await SecantusServer.start()` gives a URI a driver can
// connect to, in memory unless a dbPath is given, on a free port of 127.0.0.1.
//
//   const server = await SecantusServer.start();
//   const client = new MongoClient(server.uri);
//   ...
//   await server.stop();

import type { Logger } from '../log.js';
import { Server } from '../server/server.js';
import type { TlsOptions } from '../server/tls.js';

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
   * TLS, as mongod's net.tls settings (file paths): e.g. `{ mode: 'requireTLS',
   * certificateKeyFile, CAFile }`. The URI then carries `tls=true` and the CA file.
   */
  readonly tls?: TlsOptions;
  /** --networkMessageCompressors: "snappy,zstd,zlib" by default (what is installed), or "disabled". */
  readonly networkMessageCompressors?: string;
}

export class SecantusServer implements AsyncDisposable {
  private constructor(private readonly server: Server) {}

  static async start(options: SecantusServerOptions = {}): Promise<SecantusServer> {
    const server = await Server.start({
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
      ...(options.tls === undefined ? {} : { tls: options.tls }),
      ...(options.networkMessageCompressors === undefined
        ? {}
        : { networkMessageCompressors: options.networkMessageCompressors }),
    });
    return new SecantusServer(server);
  }

  get port(): number {
    return this.server.port;
  }

  /** host:port as clients should address it. */
  get host(): string {
    return this.server.config.advertisedHost;
  }

  /**
   * A connection string for the official driver: names the replica set when there is one and,
   * under requireTLS / preferTLS, asks for TLS and names the CA file (a client certificate,
   * when the server wants one, is the caller's to add: `tlsCertificateKeyFile`).
   */
  get uri(): string {
    const params: string[] = [];
    const rs = this.server.config.replSet;
    if (rs !== '') params.push(`replicaSet=${encodeURIComponent(rs)}`);
    const mode = this.server.tlsMode;
    const ca = this.server.tlsCAFile;
    if (mode === 'requireTLS' || mode === 'preferTLS') {
      params.push('tls=true');
      if (ca !== undefined) params.push(`tlsCAFile=${encodeURIComponent(ca)}`);
    }
    return `mongodb://${this.host}/` + (params.length === 0 ? '' : `?${params.join('&')}`);
  }

  /** Stop the server: every socket and the storage are closed when this resolves. */
  stop(): Promise<void> {
    return this.server.stop();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
