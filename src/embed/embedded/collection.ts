// A collection of the embedded client: the driver's Collection methods, each building the
// command the driver would send and running it in process (transport.ts).

import { ObjectId } from 'mongodb';
import type { Document } from 'mongodb';
import { MongoInvalidArgumentError } from 'mongodb';
import type {
  AnyBulkWriteOperation,
  DeleteResult,
  Filter,
  IndexSpecification,
  InsertManyResult,
  InsertOneResult,
  OptionalUnlessRequiredId,
  UpdateFilter,
  UpdateResult,
  WithId,
} from 'mongodb';
import { ChangeStream } from './change-stream.js';
import { AggregationCursor, CommandCursor, FindCursor, sortDocument } from './cursor.js';
import type { CursorTarget } from './cursor.js';
import type { EmbeddedSession } from './session.js';
import { decodeOptions, own } from './transport.js';
import type { Transport } from './transport.js';
import { executeWrites, throwIfFailed, throwIfSingleFailed } from './writes.js';
import { EmbeddedBulkWriteResult } from './writes.js';
import type { Statement } from './writes.js';

/** Options every operation takes; the rest are passed on as the command's fields. */
export interface OperationOptions extends Document {
  session?: EmbeddedSession;
}

/** Options that belong to the client, never sent as command fields. */
const clientOnly = new Set([
  'session',
  'ordered',
  'upsert',
  'arrayFilters',
  'returnDocument',
  'includeResultMetadata',
  'projection',
  'sort',
  'forceServerObjectId',
  'raw',
  'enableUtf8Validation',
  'promoteValues',
  'promoteLongs',
  'promoteBuffers',
  'bsonRegExp',
  'ignoreUndefined',
  'serializeFunctions',
  'checkKeys',
  'readPreference',
  'timeoutMS',
]);

/** Command-level options (writeConcern, comment, let, maxTimeMS, ...). */
function commandFields(options: Document | undefined, also: readonly string[] = []): Document {
  const out: Document = {};
  if (options === undefined) return out;
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined || clientOnly.has(k) || also.includes(k)) continue;
    out[k] = v;
  }
  return out;
}

function acknowledged(options: Document | undefined): boolean {
  const wc: unknown = options?.['writeConcern'];
  return !(typeof wc === 'object' && wc !== null && (wc as Document)['w'] === 0);
}

function hasAtomicOperator(update: Document): boolean {
  const keys = Object.keys(update);
  return keys.length > 0 && keys.every((k) => k.startsWith('$'));
}

function checkUpdate(update: unknown): Document | Document[] {
  if (Array.isArray(update)) return update as Document[];
  if (typeof update !== 'object' || update === null || !hasAtomicOperator(update as Document))
    throw new MongoInvalidArgumentError('Update document requires atomic operators');
  return update as Document;
}

function checkReplacement(replacement: unknown): Document {
  if (typeof replacement !== 'object' || replacement === null || Array.isArray(replacement))
    throw new MongoInvalidArgumentError('Replacement document must be an object');
  if (Object.keys(replacement).some((k) => k.startsWith('$')))
    throw new MongoInvalidArgumentError('Replacement document must not contain atomic operators');
  return replacement as Document;
}

/** The name the driver gives an index: field_direction pairs joined by '_'. */
function indexKey(spec: IndexSpecification): Document {
  const key: Document = {};
  const add = (item: unknown): void => {
    if (typeof item === 'string') key[item] = 1;
    else if (Array.isArray(item)) key[String(item[0])] = item[1];
    else if (item instanceof Map) for (const [k, v] of item) key[String(k)] = v;
    else if (typeof item === 'object' && item !== null) Object.assign(key, item);
  };
  if (Array.isArray(spec) && !(spec.length === 2 && typeof spec[1] !== 'object')) {
    for (const item of spec as unknown[]) add(item);
  } else {
    add(spec);
  }
  return key;
}

function indexName(key: Document): string {
  return Object.entries(key)
    .map(([k, v]) => `${k}_${String(v)}`)
    .join('_');
}

function updateStatement(
  filter: Document,
  update: Document | Document[],
  multi: boolean,
  options: Document | undefined,
): Document {
  const s: Document = { q: filter, u: update, multi };
  for (const k of ['upsert', 'arrayFilters', 'collation', 'hint', 'sort'] as const) {
    const v: unknown = options?.[k];
    if (v !== undefined) s[k] = k === 'sort' ? sortDocument(v as Document) : v;
  }
  return s;
}

function deleteStatement(filter: Document, many: boolean, options: Document | undefined): Document {
  const s: Document = { q: filter, limit: many ? 0 : 1 };
  for (const k of ['collation', 'hint'] as const) {
    const v: unknown = options?.[k];
    if (v !== undefined) s[k] = v;
  }
  return s;
}

export class Collection<TSchema extends Document = Document> {
  constructor(
    private readonly transport: Transport,
    readonly dbName: string,
    readonly collectionName: string,
    /** The writes' write concern when an operation names none. */
    private readonly writeConcern?: Document,
  ) {}

  private withDefaults(options: OperationOptions | undefined): OperationOptions | undefined {
    if (this.writeConcern === undefined || options?.['writeConcern'] !== undefined) return options;
    return { ...options, writeConcern: this.writeConcern };
  }

  get namespace(): string {
    return `${this.dbName}.${this.collectionName}`;
  }

  private target(options: OperationOptions | undefined): CursorTarget {
    return {
      transport: this.transport,
      dbName: this.dbName,
      session: options?.session,
      decode: decodeOptions(options),
    };
  }

  private run(command: Document, options: OperationOptions | undefined): Promise<Document> {
    options?.session?.applyTo(command);
    return this.transport.command(this.dbName, command);
  }

  private writes(
    statements: Statement[],
    options: OperationOptions | undefined,
  ): Promise<EmbeddedBulkWriteResult> {
    options = this.withDefaults(options);
    if (!acknowledged(options)) {
      // w: 0: the driver sends the write without waiting and reports nothing of it; here it
      // runs to completion (there is no wire to leave it on) and its outcome is dropped.
      const { writeConcern, ...rest } = options ?? {};
      void writeConcern;
      return executeWrites(
        this.transport,
        rest.session,
        this.dbName,
        this.collectionName,
        statements,
        rest['ordered'] !== false,
        commandFields(rest, ['collation', 'hint']),
      ).catch(() => new EmbeddedBulkWriteResult());
    }
    return executeWrites(
      this.transport,
      options?.session,
      this.dbName,
      this.collectionName,
      statements,
      options?.['ordered'] !== false,
      commandFields(options, ['collation', 'hint']),
    );
  }

  /** The document with an _id, as the driver gives it one: set on the caller's object. */
  private withId(doc: Document, options: OperationOptions | undefined): Document {
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
      throw new MongoInvalidArgumentError('Document must be an object');
    if (options?.['forceServerObjectId'] !== true && own(doc, '_id') === undefined)
      doc['_id'] = new ObjectId();
    return doc;
  }

  async insertOne(
    doc: OptionalUnlessRequiredId<TSchema>,
    options?: OperationOptions,
  ): Promise<InsertOneResult<TSchema>> {
    const d = this.withId(doc, options);
    const r = await this.writes([{ kind: 'insert', body: d }], options);
    throwIfSingleFailed(r);
    return {
      acknowledged: acknowledged(this.withDefaults(options)),
      insertedId: d['_id'] as InsertOneResult<TSchema>['insertedId'],
    };
  }

  async insertMany(
    docs: ReadonlyArray<OptionalUnlessRequiredId<TSchema>>,
    options?: OperationOptions,
  ): Promise<InsertManyResult<TSchema>> {
    if (!Array.isArray(docs))
      throw new MongoInvalidArgumentError('Argument "docs" must be an array of documents');
    const statements = docs.map((d: Document) => ({
      kind: 'insert' as const,
      body: this.withId(d, options),
    }));
    const r = await this.writes(statements, options);
    throwIfFailed(r);
    return {
      acknowledged: acknowledged(this.withDefaults(options)),
      insertedCount: r.insertedCount,
      insertedIds: r.insertedIds as InsertManyResult<TSchema>['insertedIds'],
    };
  }

  private async update(
    filter: Document,
    update: Document | Document[],
    multi: boolean,
    options: OperationOptions | undefined,
  ): Promise<UpdateResult<TSchema>> {
    const r = await this.writes(
      [{ kind: 'update', body: updateStatement(filter, update, multi, options) }],
      options,
    );
    throwIfSingleFailed(r);
    const upsertedId = r.upsertedIds[0];
    return {
      acknowledged: acknowledged(this.withDefaults(options)),
      matchedCount: r.matchedCount,
      modifiedCount: r.modifiedCount,
      upsertedCount: r.upsertedCount,
      upsertedId: (upsertedId ?? null) as UpdateResult<TSchema>['upsertedId'],
    };
  }

  updateOne(
    filter: Filter<TSchema>,
    update: UpdateFilter<TSchema> | Document[],
    options?: OperationOptions,
  ): Promise<UpdateResult<TSchema>> {
    return this.update(filter, checkUpdate(update), false, options);
  }

  updateMany(
    filter: Filter<TSchema>,
    update: UpdateFilter<TSchema> | Document[],
    options?: OperationOptions,
  ): Promise<UpdateResult<TSchema>> {
    return this.update(filter, checkUpdate(update), true, options);
  }

  replaceOne(
    filter: Filter<TSchema>,
    replacement: Document,
    options?: OperationOptions,
  ): Promise<UpdateResult<TSchema>> {
    return this.update(filter, checkReplacement(replacement), false, options);
  }

  private async delete(
    filter: Document,
    many: boolean,
    options: OperationOptions | undefined,
  ): Promise<DeleteResult> {
    const r = await this.writes(
      [{ kind: 'delete', body: deleteStatement(filter, many, options) }],
      options,
    );
    throwIfSingleFailed(r);
    return { acknowledged: acknowledged(this.withDefaults(options)), deletedCount: r.deletedCount };
  }

  deleteOne(filter: Filter<TSchema> = {}, options?: OperationOptions): Promise<DeleteResult> {
    return this.delete(filter, false, options);
  }

  deleteMany(filter: Filter<TSchema> = {}, options?: OperationOptions): Promise<DeleteResult> {
    return this.delete(filter, true, options);
  }

  /** The driver's bulkWrite: insertOne, updateOne/Many, replaceOne, deleteOne/Many models. */
  async bulkWrite(
    operations: ReadonlyArray<AnyBulkWriteOperation<TSchema>>,
    options?: OperationOptions,
  ): Promise<EmbeddedBulkWriteResult> {
    if (!Array.isArray(operations))
      throw new MongoInvalidArgumentError('Argument "operations" must be an array of documents');
    const statements: Statement[] = operations.map((op: Document) => {
      const [name] = Object.keys(op);
      const m: unknown = name === undefined ? undefined : op[name];
      if (typeof m !== 'object' || m === null)
        throw new MongoInvalidArgumentError('Invalid BulkWriteOperation');
      const model = m as Document;
      const filter = (model['filter'] ?? {}) as Document;
      switch (name) {
        case 'insertOne':
          return { kind: 'insert', body: this.withId(model['document'] as Document, options) };
        case 'updateOne':
        case 'updateMany':
          return {
            kind: 'update',
            body: updateStatement(
              filter,
              checkUpdate(model['update']),
              name === 'updateMany',
              model,
            ),
          };
        case 'replaceOne':
          return {
            kind: 'update',
            body: updateStatement(filter, checkReplacement(model['replacement']), false, model),
          };
        case 'deleteOne':
        case 'deleteMany':
          return { kind: 'delete', body: deleteStatement(filter, name === 'deleteMany', model) };
        default:
          throw new MongoInvalidArgumentError(`Invalid BulkWriteOperation: ${String(name)}`);
      }
    });
    const r = await this.writes(statements, options);
    throwIfFailed(r);
    return r;
  }

  find<T extends Document = WithId<TSchema>>(
    filter: Filter<TSchema> = {},
    options?: OperationOptions,
  ): FindCursor<T> {
    const spec = commandFields(options);
    for (const k of ['projection', 'sort'] as const)
      if (options?.[k] !== undefined) spec[k] = options[k];
    return new FindCursor<T>(this.target(options), this.collectionName, filter, spec);
  }

  async findOne<T extends Document = WithId<TSchema>>(
    filter: Filter<TSchema> = {},
    options?: OperationOptions,
  ): Promise<T | null> {
    const cursor = this.find<T>(filter, { ...options, limit: -1, batchSize: 1 });
    const doc = await cursor.next();
    await cursor.close();
    return doc;
  }

  aggregate<T extends Document = Document>(
    pipeline: Document[] = [],
    options?: OperationOptions,
  ): AggregationCursor<T> {
    return new AggregationCursor<T>(this.target(options), this.collectionName, pipeline, {
      ...commandFields(options),
      ...(options?.['batchSize'] === undefined ? {} : { batchSize: options['batchSize'] }),
    });
  }

  watch<T extends Document = Document>(
    pipeline: Document[] = [],
    options?: OperationOptions,
  ): ChangeStream<T> {
    return new ChangeStream<T>(this.target(options), this.collectionName, pipeline, {
      ...commandFields(options),
    });
  }

  async countDocuments(filter: Filter<TSchema> = {}, options?: OperationOptions): Promise<number> {
    const pipeline: Document[] = [{ $match: filter }];
    const skip: unknown = options?.['skip'];
    const limit: unknown = options?.['limit'];
    if (typeof skip === 'number') pipeline.push({ $skip: skip });
    if (typeof limit === 'number') pipeline.push({ $limit: limit });
    pipeline.push({ $group: { _id: 1, n: { $sum: 1 } } });
    const rest = { ...options };
    delete rest['skip'];
    delete rest['limit'];
    const [doc] = await this.aggregate<{ n: number }>(pipeline, rest).toArray();
    return doc?.n ?? 0;
  }

  async estimatedDocumentCount(options?: OperationOptions): Promise<number> {
    const r = await this.run({ count: this.collectionName, ...commandFields(options) }, options);
    return typeof r['n'] === 'number' ? r['n'] : 0;
  }

  async distinct(
    key: string,
    filter: Filter<TSchema> = {},
    options?: OperationOptions,
  ): Promise<unknown[]> {
    const r = await this.run(
      { distinct: this.collectionName, key, query: filter, ...commandFields(options) },
      options,
    );
    return Array.isArray(r['values']) ? (r['values'] as unknown[]) : [];
  }

  private async findAndModify(
    filter: Document,
    change: Document,
    options: OperationOptions | undefined,
  ): Promise<WithId<TSchema> | Document | null> {
    const cmd: Document = { findAndModify: this.collectionName, query: filter, ...change };
    const sort: unknown = options?.['sort'];
    if (sort !== undefined) cmd['sort'] = sortDocument(sort as Document);
    const projection: unknown = options?.['projection'];
    if (projection !== undefined) cmd['fields'] = projection;
    if (options?.['upsert'] !== undefined) cmd['upsert'] = options['upsert'];
    if (options?.['arrayFilters'] !== undefined) cmd['arrayFilters'] = options['arrayFilters'];
    Object.assign(cmd, commandFields(options));
    const r = await this.run(cmd, options);
    if (options?.['includeResultMetadata'] === true) return r;
    return (r['value'] ?? null) as WithId<TSchema> | null;
  }

  findOneAndUpdate(
    filter: Filter<TSchema>,
    update: UpdateFilter<TSchema> | Document[],
    options?: OperationOptions,
  ): Promise<WithId<TSchema> | null> {
    const after = options?.['returnDocument'] === 'after';
    return this.findAndModify(
      filter,
      { update: checkUpdate(update), new: after },
      options,
    ) as Promise<WithId<TSchema> | null>;
  }

  findOneAndReplace(
    filter: Filter<TSchema>,
    replacement: Document,
    options?: OperationOptions,
  ): Promise<WithId<TSchema> | null> {
    const after = options?.['returnDocument'] === 'after';
    return this.findAndModify(
      filter,
      { update: checkReplacement(replacement), new: after },
      options,
    ) as Promise<WithId<TSchema> | null>;
  }

  findOneAndDelete(
    filter: Filter<TSchema>,
    options?: OperationOptions,
  ): Promise<WithId<TSchema> | null> {
    return this.findAndModify(filter, { remove: true }, options) as Promise<WithId<TSchema> | null>;
  }

  async createIndex(spec: IndexSpecification, options?: OperationOptions): Promise<string> {
    const [name] = await this.createIndexes(
      [
        {
          ...commandFields(options, ['writeConcern', 'comment', 'commitQuorum', 'maxTimeMS']),
          key: indexKey(spec),
        },
      ],
      options,
    );
    return name ?? '';
  }

  /** Index descriptions ({key, name?, ...}); the names created. */
  async createIndexes(specs: Document[], options?: OperationOptions): Promise<string[]> {
    const indexes = specs.map((s) => {
      const key = s['key'] as Document;
      return { ...s, name: typeof s['name'] === 'string' ? s['name'] : indexName(key) };
    });
    const cmd: Document = { createIndexes: this.collectionName, indexes };
    for (const k of ['writeConcern', 'comment', 'commitQuorum', 'maxTimeMS'] as const)
      if (options?.[k] !== undefined) cmd[k] = options[k];
    await this.run(cmd, options);
    return indexes.map((i) => i.name as string);
  }

  listIndexes(options?: OperationOptions): CommandCursor<Document> {
    return new CommandCursor(this.target(options), {
      listIndexes: this.collectionName,
      ...commandFields(options, ['batchSize']),
    });
  }

  indexes(options?: OperationOptions): Promise<Document[]> {
    return this.listIndexes(options).toArray();
  }

  async indexExists(names: string | string[], options?: OperationOptions): Promise<boolean> {
    const have = new Set((await this.indexes(options)).map((i) => i['name'] as string));
    return (Array.isArray(names) ? names : [names]).every((n) => have.has(n));
  }

  async dropIndex(name: string, options?: OperationOptions): Promise<Document> {
    return this.run(
      { dropIndexes: this.collectionName, index: name, ...commandFields(options) },
      options,
    );
  }

  async dropIndexes(options?: OperationOptions): Promise<boolean> {
    await this.run(
      { dropIndexes: this.collectionName, index: '*', ...commandFields(options) },
      options,
    );
    return true;
  }

  async drop(options?: OperationOptions): Promise<boolean> {
    await this.run({ drop: this.collectionName, ...commandFields(options) }, options);
    return true;
  }

  async rename(newName: string, options?: OperationOptions): Promise<Collection<TSchema>> {
    const cmd: Document = {
      renameCollection: this.namespace,
      to: `${this.dbName}.${newName}`,
      ...commandFields(options),
    };
    options?.session?.applyTo(cmd);
    await this.transport.command('admin', cmd);
    return new Collection<TSchema>(this.transport, this.dbName, newName);
  }
}
