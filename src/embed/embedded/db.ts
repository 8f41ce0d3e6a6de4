// A database of the embedded client: the driver's Db methods over the in-process transport.

import type { Document } from 'mongodb';
import { ChangeStream } from './change-stream.js';
import { Collection } from './collection.js';
import type { OperationOptions } from './collection.js';
import { AggregationCursor, CommandCursor } from './cursor.js';
import type { CursorTarget } from './cursor.js';
import { decodeOptions } from './transport.js';
import type { Transport } from './transport.js';

function without(options: OperationOptions | undefined, ...keys: string[]): Document {
  const out: Document = {};
  for (const [k, v] of Object.entries(options ?? {}))
    if (v !== undefined && k !== 'session' && !keys.includes(k)) out[k] = v;
  return out;
}

export class Db {
  constructor(
    private readonly transport: Transport,
    readonly databaseName: string,
  ) {}

  private target(options: OperationOptions | undefined): CursorTarget {
    return {
      transport: this.transport,
      dbName: this.databaseName,
      session: options?.session,
      decode: decodeOptions(options),
    };
  }

  /** `options.writeConcern` is the default of the collection's writes. */
  collection<TSchema extends Document = Document>(
    name: string,
    options?: { readonly writeConcern?: Document },
  ): Collection<TSchema> {
    return new Collection<TSchema>(this.transport, this.databaseName, name, options?.writeConcern);
  }

  /** Run a command document on this database; the reply (MongoServerError when ok: 0). */
  command(command: Document, options?: OperationOptions): Promise<Document> {
    const cmd = { ...command };
    options?.session?.applyTo(cmd);
    return this.transport.command(this.databaseName, cmd, decodeOptions(options));
  }

  async createCollection<TSchema extends Document = Document>(
    name: string,
    options?: OperationOptions,
  ): Promise<Collection<TSchema>> {
    await this.command({ create: name, ...without(options) }, options);
    return this.collection<TSchema>(name);
  }

  async dropCollection(name: string, options?: OperationOptions): Promise<boolean> {
    await this.command({ drop: name, ...without(options) }, options);
    return true;
  }

  async dropDatabase(options?: OperationOptions): Promise<boolean> {
    await this.command({ dropDatabase: 1, ...without(options) }, options);
    return true;
  }

  listCollections(filter: Document = {}, options?: OperationOptions): CommandCursor<Document> {
    return new CommandCursor(this.target(options), {
      listCollections: 1,
      filter,
      ...without(options, 'batchSize'),
    });
  }

  async collections(options?: OperationOptions): Promise<Collection[]> {
    const infos = await this.listCollections({}, { ...options, nameOnly: true }).toArray();
    return infos
      .map((i) => String(i['name']))
      .filter((n) => !n.startsWith('system.'))
      .map((n) => this.collection(n));
  }

  /** A database-level aggregation ($documents, $currentOp, $listLocalSessions, ...). */
  aggregate<T extends Document = Document>(
    pipeline: Document[] = [],
    options?: OperationOptions,
  ): AggregationCursor<T> {
    return new AggregationCursor<T>(this.target(options), 1, pipeline, without(options));
  }

  watch<T extends Document = Document>(
    pipeline: Document[] = [],
    options?: OperationOptions,
  ): ChangeStream<T> {
    return new ChangeStream<T>(this.target(options), 1, pipeline, without(options));
  }

  createIndex(
    collection: string,
    spec: Parameters<Collection['createIndex']>[0],
    options?: OperationOptions,
  ): Promise<string> {
    return this.collection(collection).createIndex(spec, options);
  }

  /** The admin database's commands (the driver's db.admin().command). */
  admin(): Db {
    return new Db(this.transport, 'admin');
  }
}
