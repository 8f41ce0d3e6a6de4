// secantusdb/embedded: SecantusDB in this process, with no socket. open() starts the server
// without a TCP listener and returns a client shaped like the driver's MongoClient whose
// commands go straight to the server's dispatcher (the same command layer a socket reaches):
//
//   import { open } from 'secantusdb/embedded';
//   const client = await open({ dbPath: './data' });
//   await client.db('app').collection('users').insertOne({ name: 'Ada' });
//   await client.close();
//
// Values are the `bson` package's types (the driver's), errors the driver's classes
// (MongoServerError with code, codeName, errorLabels). docs/embedded.md lists what differs.

import type { Document, MongoClient, MongoClientOptions } from 'mongodb';
import type { TransactionOptions } from 'mongodb';
import type { Logger } from '../../log.js';
import { Server } from '../../server/server.js';
import type { ServerOptions } from '../../server/server.js';
import { ChangeStream } from './change-stream.js';
import type { OperationOptions } from './collection.js';
import { Db } from './db.js';
import { EmbeddedSession } from './session.js';
import { Transport } from './transport.js';
import { openMultiProcess } from './multi-process.js';

export { Collection } from './collection.js';
export type { OperationOptions } from './collection.js';
export { Db } from './db.js';
export { AggregationCursor, CommandCursor, FindCursor } from './cursor.js';
export { ChangeStream } from './change-stream.js';
export { EmbeddedSession } from './session.js';
export { EmbeddedBulkWriteResult } from './writes.js';
export {
  MongoServerError,
  MongoBulkWriteError,
  MongoInvalidArgumentError,
  MongoClientClosedError,
} from 'mongodb';
export { BSON, Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp, UUID } from 'mongodb';

export interface OpenOptions {
  /** Data directory. Without one, data lives in memory and is gone after close(). */
  readonly dbPath?: string;
  /**
   * A storage engine the server knows (as the daemon's --storageEngine). Default: lmdb with
   * a dbPath, memory without.
   */
  readonly engine?: ServerOptions['storageEngine'];
  /** Replica set name; default 'rs0' (sessions, transactions, change streams). '' for standalone. */
  readonly replSet?: string;
  /** configureFailPoint and other test commands. Default false. */
  readonly enableTestCommands?: boolean;
  /** Server-side JavaScript ($where, $function, ...). Default true. */
  readonly javascriptEnabled?: boolean;
  readonly logger?: Logger;
  /** The database db() returns when given no name. Default 'test'. */
  readonly defaultDbName?: string;
  /**
   * Share the dbPath with other processes: instead of a server in this process, connect to
   * the data directory's secantusd over a Unix domain socket, starting it if none runs, and
   * return the driver's MongoClient (docs/embedded.md). The other options then configure the
   * daemon this call starts (a running one keeps its own); `logger` is not used (the daemon
   * logs to <dbPath>/secantusd.log). Default false.
   */
  readonly multiProcess?: boolean;
  /** multiProcess: the daemon exits once no client has been connected for this long. Default 5. */
  readonly idleShutdownSecs?: number;
  /** multiProcess: give up when no daemon answers within this long. Default 60000. */
  readonly startTimeoutMs?: number;
  /** multiProcess: options of the MongoClient returned. */
  readonly clientOptions?: MongoClientOptions;
}

export interface StartSessionOptions {
  readonly defaultTransactionOptions?: TransactionOptions;
}

export class EmbeddedClient implements AsyncDisposable {
  private readonly sessions = new Set<EmbeddedSession>();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    private readonly transport: Transport,
    private readonly defaultDbName: string,
  ) {}

  /** @internal Use open(). */
  static async open(options: OpenOptions = {}): Promise<EmbeddedClient> {
    const server = await Server.start({
      listen: false,
      ...(options.dbPath === undefined ? {} : { dbPath: options.dbPath }),
      ...(options.engine === undefined ? {} : { storageEngine: options.engine }),
      replSet: options.replSet ?? 'rs0',
      enableTestCommands: options.enableTestCommands ?? false,
      ...(options.javascriptEnabled === undefined
        ? {}
        : { javascriptEnabled: options.javascriptEnabled }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    return new EmbeddedClient(
      server,
      new Transport(() => server.openInProcess()),
      options.defaultDbName ?? 'test',
    );
  }

  db(name: string = this.defaultDbName): Db {
    return new Db(this.transport, name);
  }

  startSession(options: StartSessionOptions = {}): EmbeddedSession {
    const s = new EmbeddedSession(this.transport, options.defaultTransactionOptions, (x) =>
      this.sessions.delete(x),
    );
    this.sessions.add(s);
    return s;
  }

  /** Run `fn` with a new session, ended afterwards. */
  async withSession<T>(fn: (session: EmbeddedSession) => Promise<T>): Promise<T>;
  async withSession<T>(
    options: StartSessionOptions,
    fn: (session: EmbeddedSession) => Promise<T>,
  ): Promise<T>;
  async withSession<T>(
    a: StartSessionOptions | ((session: EmbeddedSession) => Promise<T>),
    b?: (session: EmbeddedSession) => Promise<T>,
  ): Promise<T> {
    const fn = typeof a === 'function' ? a : b;
    if (fn === undefined) throw new TypeError('withSession needs a function');
    const session = this.startSession(typeof a === 'function' ? {} : a);
    try {
      return await fn(session);
    } finally {
      await session.endSession();
    }
  }

  /** A change stream over every database (allChangesForCluster). */
  watch<T extends Document = Document>(
    pipeline: Document[] = [],
    options: OperationOptions = {},
  ): ChangeStream<T> {
    const { session, ...rest } = options;
    return new ChangeStream<T>(
      { transport: this.transport, dbName: 'admin', session },
      1,
      pipeline,
      {
        ...rest,
        allChangesForCluster: true,
      },
    );
  }

  /** End the sessions, stop the server and close its storage. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.sessions].map((s) => s.endSession().catch(() => undefined)));
      this.transport.markClosed();
      await this.server.stop();
    })();
    return this.closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Open SecantusDB in this process: the server without a socket, and a client on it. With
 * `multiProcess: true`, the driver's MongoClient on the dbPath's shared daemon instead.
 */
export function open(
  options: OpenOptions & { readonly dbPath: string; readonly multiProcess: true },
): Promise<MongoClient>;
export function open(
  options?: OpenOptions & { readonly multiProcess?: false },
): Promise<EmbeddedClient>;
export function open(options?: OpenOptions): Promise<EmbeddedClient | MongoClient>;
export function open(options: OpenOptions = {}): Promise<EmbeddedClient | MongoClient> {
  if (options.multiProcess === true) {
    if (options.dbPath === undefined)
      return Promise.reject(new TypeError('open({ multiProcess: true }) needs a dbPath'));
    return openMultiProcess({
      dbPath: options.dbPath,
      ...(options.engine === undefined ? {} : { engine: options.engine }),
      ...(options.replSet === undefined ? {} : { replSet: options.replSet }),
      ...(options.enableTestCommands === undefined
        ? {}
        : { enableTestCommands: options.enableTestCommands }),
      ...(options.javascriptEnabled === undefined
        ? {}
        : { javascriptEnabled: options.javascriptEnabled }),
      ...(options.defaultDbName === undefined ? {} : { defaultDbName: options.defaultDbName }),
      ...(options.idleShutdownSecs === undefined
        ? {}
        : { idleShutdownSecs: options.idleShutdownSecs }),
      ...(options.startTimeoutMs === undefined ? {} : { startTimeoutMs: options.startTimeoutMs }),
      ...(options.clientOptions === undefined ? {} : { clientOptions: options.clientOptions }),
    });
  }
  return EmbeddedClient.open(options);
}
