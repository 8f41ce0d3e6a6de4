// Entity operations (client, database, collection, session, bucket, cursor) and the special
// test runner operations. Each proxies the Node driver's API; results are converted to the
// documents the specs describe. An operation not listed here fails the test.

import type { Db, GridFSBucket, MongoClient } from 'mongodb';
import {
  ChangeStream,
  ClientSession,
  Collection,
  MongoRuntimeError,
  type AbstractCursor,
  type AnyBulkWriteOperation,
  type ClientBulkWriteModel,
  type Document,
  type SearchIndexDescription,
} from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Doc, isDocument, show, toJsNumber } from './bson-values.js';
import { driverArgs, withCommonOptions } from './args.js';
import {
  type ClientEntity,
  type EntityMap,
  UnsupportedError,
  transactionOptions,
  type ClientDefaults,
} from './entities.js';
import { countMatchingEvents } from './expect-events.js';
import { MatchError, TestFileError } from './match.js';
import {
  bulkWriteResult,
  clientBulkWriteResult,
  deleteResult,
  insertManyResult,
  insertOneResult,
  updateResult,
} from './results.js';

export interface OperationResult {
  value: unknown;
  /** The value is the documents of an iterable (find, aggregate, ...): elements match as root documents. */
  rootElements?: boolean;
}

export interface TestScope {
  readonly entities: EntityMap;
  readonly internal: MongoClient;
  readonly defaults: ClientDefaults;
  /** Records a fail point so it is turned off after the test. */
  recordFailPoint(client: MongoClient, name: string): void;
  /** Runs one operation with its assertions (used by withTransaction, loop and threads). */
  execute(op: unknown, opts: { inCallback: boolean }): Promise<void>;
  /** Assertion failures raised inside callbacks that the driver may have swallowed. */
  readonly callbackFailures: unknown[];
  /** Milliseconds left before the test's deadline. */
  timeLeft(): number;
}

type Args = Doc;
type Op<T> = (target: T, args: Args, scope: TestScope) => Promise<OperationResult>;

const result = (value: unknown, rootElements = false): OperationResult =>
  rootElements ? { value, rootElements } : { value };
const none: OperationResult = { value: undefined };

/** Resolves `session` and (unless `plain`) the common read/write options; converts option numbers. */
function prepare(raw: unknown, scope: TestScope, plain = false): Args {
  const converted = driverArgs(raw);
  const args = plain ? converted : withCommonOptions(converted);
  if (args.session !== undefined) args.session = scope.entities.getAs(args.session, 'session');
  return args;
}

function take<K extends string>(
  args: Args,
  required: readonly K[],
  op: string,
): Record<K, unknown> & { rest: Args } {
  const rest: Args = { ...args };
  const out = {} as Record<K, unknown>;
  for (const k of required) {
    out[k] = rest[k];
    delete rest[k];
  }
  for (const k of required) {
    if (out[k] === undefined && !OPTIONAL_POSITIONAL.has(`${op}.${k}`))
      throw new TestFileError(`${op} requires argument ${k}`);
  }
  return Object.assign(out, { rest });
}

const OPTIONAL_POSITIONAL = new Set([
  'find.filter',
  'findOne.filter',
  'countDocuments.filter',
  'count.filter',
  'createFindCursor.filter',
  'listCollections.filter',
  'listCollectionNames.filter',
  'createChangeStream.pipeline',
  'aggregate.pipeline',
  'deleteMany.filter',
  'distinct.filter',
  'listCollectionObjects.filter',
  'listSearchIndexes.name',
  'listSearchIndexes.aggregationOptions',
]);

/** The spec's cursorType option → the driver's tailable / awaitData options. */
function cursorTypeOptions(rest: Args): void {
  const t = rest.cursorType;
  delete rest.cursorType;
  if (t === undefined || t === 'nonTailable') return;
  if (t === 'tailable') rest.tailable = true;
  else if (t === 'tailableAwait') Object.assign(rest, { tailable: true, awaitData: true });
  else throw new TestFileError(`unknown cursorType ${show(t)}`);
}

function returnDocument(rest: Args): void {
  if (rest.returnDocument === undefined) return;
  const v = String(rest.returnDocument).toLowerCase();
  if (v !== 'before' && v !== 'after')
    throw new TestFileError(
      `returnDocument must be Before or After, got ${show(rest.returnDocument)}`,
    );
  rest.returnDocument = v;
}

/** Creates the server-side cursor without advancing the driver cursor (spec: createFindCursor etc.). */
async function initCursor(cursor: AbstractCursor): Promise<void> {
  const init = (cursor as unknown as { cursorInit?: () => Promise<void> }).cursorInit;
  if (typeof init !== 'function')
    throw new UnsupportedError('this driver version does not expose cursorInit()');
  await init.call(cursor);
}

async function createChangeStream(
  watchable: MongoClient | Db | Collection,
  args: Args,
): Promise<OperationResult> {
  const { pipeline, rest } = take(args, ['pipeline'], 'createChangeStream');
  const stream = watchable.watch((pipeline ?? []) as Document[], rest);
  try {
    await initCursor((stream as unknown as { cursor: AbstractCursor }).cursor);
  } catch (e) {
    await stream.close().catch(() => undefined);
    throw e;
  }
  return result(stream);
}

// ---------------------------------------------------------------------------------------------
// Collection

function bulkModels(requests: unknown): AnyBulkWriteOperation[] {
  if (!Array.isArray(requests)) throw new TestFileError('requests must be an array');
  return requests.map((r) => {
    if (!isDocument(r) || Object.keys(r).length !== 1)
      throw new TestFileError(`malformed write model ${show(r)}`);
    const [name] = Object.keys(r);
    if (
      !['insertOne', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany'].includes(
        name ?? '',
      )
    ) {
      throw new TestFileError(`unknown write model ${String(name)}`);
    }
    return r as unknown as AnyBulkWriteOperation;
  });
}

const collectionOps: Record<string, Op<Collection>> = {
  async aggregate(c, a) {
    const { pipeline, rest } = take(a, ['pipeline'], 'aggregate');
    return result(await c.aggregate((pipeline ?? []) as Document[], rest).toArray(), true);
  },
  async bulkWrite(c, a) {
    const { requests, rest } = take(a, ['requests'], 'bulkWrite');
    return result(bulkWriteResult(await c.bulkWrite(bulkModels(requests), rest)));
  },
  async countDocuments(c, a) {
    const { filter, rest } = take(a, ['filter'], 'countDocuments');
    return result(await c.countDocuments((filter ?? {}) as Document, rest));
  },
  async count(c, a) {
    const { filter, rest } = take(a, ['filter'], 'count');
    return result(await c.count((filter ?? {}) as Document, rest));
  },
  async estimatedDocumentCount(c, a) {
    return result(await c.estimatedDocumentCount(a));
  },
  async deleteMany(c, a) {
    const { filter, rest } = take(a, ['filter'], 'deleteMany');
    return result(deleteResult(await c.deleteMany((filter ?? {}) as Document, rest)));
  },
  async deleteOne(c, a) {
    const { filter, rest } = take(a, ['filter'], 'deleteOne');
    return result(deleteResult(await c.deleteOne(filter as Document, rest)));
  },
  async distinct(c, a) {
    const { fieldName, filter, rest } = take(a, ['fieldName', 'filter'], 'distinct');
    if (typeof fieldName !== 'string')
      throw new TestFileError('distinct.fieldName must be a string');
    return result(await c.distinct(fieldName, (filter ?? {}) as Document, rest));
  },
  async find(c, a) {
    const { filter, rest } = take(a, ['filter'], 'find');
    cursorTypeOptions(rest);
    return result(await c.find((filter ?? {}) as Document, rest).toArray(), true);
  },
  async findOne(c, a) {
    const { filter, rest } = take(a, ['filter'], 'findOne');
    return result(await c.findOne((filter ?? {}) as Document, rest));
  },
  async findOneAndDelete(c, a) {
    const { filter, rest } = take(a, ['filter'], 'findOneAndDelete');
    return result(
      await c.findOneAndDelete(filter as Document, { ...rest, includeResultMetadata: false }),
    );
  },
  async findOneAndReplace(c, a) {
    const { filter, replacement, rest } = take(a, ['filter', 'replacement'], 'findOneAndReplace');
    returnDocument(rest);
    return result(
      await c.findOneAndReplace(filter as Document, replacement as Document, {
        ...rest,
        includeResultMetadata: false,
      }),
    );
  },
  async findOneAndUpdate(c, a) {
    const { filter, update, rest } = take(a, ['filter', 'update'], 'findOneAndUpdate');
    returnDocument(rest);
    return result(
      await c.findOneAndUpdate(filter as Document, update as Document, {
        ...rest,
        includeResultMetadata: false,
      }),
    );
  },
  async insertMany(c, a) {
    const { documents, rest } = take(a, ['documents'], 'insertMany');
    if (!Array.isArray(documents)) throw new TestFileError('insertMany.documents must be an array');
    return result(insertManyResult(await c.insertMany(documents as Document[], rest)));
  },
  async insertOne(c, a) {
    const { document, rest } = take(a, ['document'], 'insertOne');
    return result(insertOneResult(await c.insertOne(document as Document, rest)));
  },
  async replaceOne(c, a) {
    const { filter, replacement, rest } = take(a, ['filter', 'replacement'], 'replaceOne');
    return result(
      updateResult(await c.replaceOne(filter as Document, replacement as Document, rest)),
    );
  },
  async updateMany(c, a) {
    const { filter, update, rest } = take(a, ['filter', 'update'], 'updateMany');
    return result(updateResult(await c.updateMany(filter as Document, update as Document, rest)));
  },
  async updateOne(c, a) {
    const { filter, update, rest } = take(a, ['filter', 'update'], 'updateOne');
    return result(updateResult(await c.updateOne(filter as Document, update as Document, rest)));
  },
  async createChangeStream(c, a) {
    return createChangeStream(c, a);
  },
  async createFindCursor(c, a) {
    const { filter, rest } = take(a, ['filter'], 'createFindCursor');
    cursorTypeOptions(rest);
    const cursor = c.find((filter ?? {}) as Document, rest);
    await initCursor(cursor);
    return result(cursor);
  },
  async createIndex(c, a) {
    const { keys, rest } = take(a, ['keys'], 'createIndex');
    return result(await c.createIndex(keys as Document, rest));
  },
  async dropIndex(c, a) {
    const { name, rest } = take(a, ['name'], 'dropIndex');
    return result(await c.dropIndex(name as string, rest));
  },
  async dropIndexes(c, a) {
    await c.dropIndexes(a);
    return none;
  },
  async listIndexes(c, a) {
    return result(await c.listIndexes(a).toArray(), true);
  },
  async listIndexNames(c, a) {
    return result((await c.listIndexes(a).toArray()).map((i) => i.name));
  },
  async createSearchIndex(c, a) {
    const { model } = take(a, ['model'], 'createSearchIndex');
    return result(await c.createSearchIndex(model as SearchIndexDescription));
  },
  async createSearchIndexes(c, a) {
    const { models } = take(a, ['models'], 'createSearchIndexes');
    return result(await c.createSearchIndexes(models as SearchIndexDescription[]));
  },
  async dropSearchIndex(c, a) {
    const { name } = take(a, ['name'], 'dropSearchIndex');
    await c.dropSearchIndex(name as string);
    return none;
  },
  async updateSearchIndex(c, a) {
    const { name, definition } = take(a, ['name', 'definition'], 'updateSearchIndex');
    await c.updateSearchIndex(name as string, definition as Document);
    return none;
  },
  async listSearchIndexes(c, a) {
    const { name, aggregationOptions, rest } = take(
      a,
      ['name', 'aggregationOptions'],
      'listSearchIndexes',
    );
    const options = { ...rest, ...((aggregationOptions ?? {}) as Document) };
    const cursor =
      name === undefined
        ? c.listSearchIndexes(options)
        : c.listSearchIndexes(name as string, options);
    return result(await cursor.toArray(), true);
  },
  async rename(c, a) {
    const { to, rest } = take(a, ['to'], 'rename');
    await c.rename(to as string, rest);
    return none;
  },
  async drop(c, a) {
    await c.drop(a);
    return none;
  },
  async mapReduce(c, a) {
    // The Node driver dropped its mapReduce helper; this sends the command the helper sent.
    const { map, reduce, out, rest } = take(a, ['map', 'reduce', 'out'], 'mapReduce');
    const { session, ...fields } = rest;
    const db = (c as unknown as { s: { db: Db } }).s.db;
    const reply = await db.command(
      { mapReduce: c.collectionName, map, reduce, out, ...fields },
      session instanceof ClientSession ? { session } : {},
    );
    return result(isDocument(out) && 'inline' in out ? reply.results : reply);
  },
};

// ---------------------------------------------------------------------------------------------
// Database

async function cursorCommand(db: Db, a: Args, name: string): Promise<AbstractCursor> {
  const { command, commandName, rest } = take(a, ['command', 'commandName'], name);
  if (!isDocument(command)) throw new TestFileError(`${name}.command must be a document`);
  if (typeof commandName !== 'string')
    throw new TestFileError(`${name}.commandName must be a string`);
  const { batchSize, maxTimeMS, comment, cursorType, timeoutMode, ...options } = rest;
  const opts: Doc = { ...options };
  if (timeoutMode !== undefined) opts.timeoutMode = timeoutMode;
  if (cursorType !== undefined) {
    if (cursorType === 'tailable') opts.tailable = true;
    else if (cursorType === 'tailableAwait')
      Object.assign(opts, { tailable: true, awaitData: true });
    else if (cursorType !== 'nonTailable')
      throw new TestFileError(`unknown cursorType ${show(cursorType)}`);
  }
  const cursor = db.runCursorCommand(command, opts);
  if (typeof batchSize === 'number') cursor.setBatchSize(batchSize);
  if (typeof maxTimeMS === 'number') cursor.setMaxTimeMS(maxTimeMS);
  if (comment !== undefined) cursor.setComment(comment);
  return cursor;
}

const databaseOps: Record<string, Op<Db>> = {
  async runCommand(db, a) {
    const { command, commandName, rest } = take(a, ['command', 'commandName'], 'runCommand');
    if (!isDocument(command)) throw new TestFileError('runCommand.command must be a document');
    if (typeof commandName !== 'string')
      throw new TestFileError('runCommand.commandName must be a string');
    return result(await db.command(command, rest));
  },
  async runCursorCommand(db, a) {
    return result(await (await cursorCommand(db, a, 'runCursorCommand')).toArray(), true);
  },
  async createCommandCursor(db, a) {
    const cursor = await cursorCommand(db, a, 'createCommandCursor');
    await initCursor(cursor);
    return result(cursor);
  },
  async aggregate(db, a) {
    const { pipeline, rest } = take(a, ['pipeline'], 'aggregate');
    return result(await db.aggregate((pipeline ?? []) as Document[], rest).toArray(), true);
  },
  async createChangeStream(db, a) {
    return createChangeStream(db, a);
  },
  async createCollection(db, a) {
    const { collection, rest } = take(a, ['collection'], 'createCollection');
    // Some tests save the new collection as an entity and use it.
    return result(await db.createCollection(collection as string, rest));
  },
  async dropCollection(db, a) {
    const { collection, rest } = take(a, ['collection'], 'dropCollection');
    await db.dropCollection(collection as string, rest);
    return none;
  },
  async listCollections(db, a) {
    const { filter, rest } = take(a, ['filter'], 'listCollections');
    return result(await db.listCollections((filter ?? {}) as Document, rest).toArray(), true);
  },
  async listCollectionObjects(db, a) {
    // Drivers with collection objects return them; the Node driver's closest is the documents.
    const { filter, rest } = take(a, ['filter'], 'listCollectionObjects');
    return result(await db.listCollections((filter ?? {}) as Document, rest).toArray(), true);
  },
  async listCollectionNames(db, a) {
    const { filter, rest } = take(a, ['filter'], 'listCollectionNames');
    return result(
      (
        await db.listCollections((filter ?? {}) as Document, { ...rest, nameOnly: true }).toArray()
      ).map((c) => c.name),
    );
  },
  async modifyCollection(db, a) {
    // No driver helper: the collMod command with the given fields.
    const { collection, rest } = take(a, ['collection'], 'modifyCollection');
    const { session, ...fields } = rest;
    return result(
      await db.command(
        { collMod: collection, ...fields },
        session instanceof ClientSession ? { session } : {},
      ),
    );
  },
  async dropDatabase(db, a) {
    await db.dropDatabase(a);
    return none;
  },
};

// ---------------------------------------------------------------------------------------------
// Client

function clientModels(models: unknown): ClientBulkWriteModel[] {
  if (!Array.isArray(models)) throw new TestFileError('models must be an array');
  return models.map((m) => {
    if (!isDocument(m) || Object.keys(m).length !== 1)
      throw new TestFileError(`malformed write model ${show(m)}`);
    const [name] = Object.keys(m);
    const body = m[name as string];
    if (
      !['insertOne', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany'].includes(
        name ?? '',
      ) ||
      !isDocument(body)
    ) {
      throw new TestFileError(`unknown write model ${String(name)}`);
    }
    return { name, ...body } as unknown as ClientBulkWriteModel;
  });
}

const clientOps: Record<string, Op<ClientEntity>> = {
  async createChangeStream(c, a) {
    return createChangeStream(c.client, a);
  },
  async listDatabases(c, a) {
    const r = await c.client.db('admin').admin().listDatabases(a);
    return result(r.databases, true);
  },
  async listDatabaseObjects(c, a) {
    const r = await c.client.db('admin').admin().listDatabases(a);
    return result(r.databases, true);
  },
  async listDatabaseNames(c, a) {
    const r = await c.client
      .db('admin')
      .admin()
      .listDatabases({ ...a, nameOnly: true });
    return result(r.databases.map((d) => d.name));
  },
  async dropDatabase(c, a) {
    const { database, rest } = take(a, ['database'], 'dropDatabase');
    await c.client.db(database as string).dropDatabase(rest);
    return none;
  },
  async clientBulkWrite(c, a) {
    const { models, rest } = take(a, ['models'], 'clientBulkWrite');
    return result(clientBulkWriteResult(await c.client.bulkWrite(clientModels(models), rest)));
  },
  async close(c) {
    await c.close();
    return none;
  },
};

// ---------------------------------------------------------------------------------------------
// Session

const sessionOps: Record<string, Op<ClientSession>> = {
  async startTransaction(s, a) {
    s.startTransaction(transactionOptions(stripSession(a)));
    return none;
  },
  async commitTransaction(s, a) {
    await s.commitTransaction(stripSession(a));
    return none;
  },
  async abortTransaction(s, a) {
    await s.abortTransaction(stripSession(a));
    return none;
  },
  async endSession(s) {
    await s.endSession();
    return none;
  },
  async getSnapshotTime(s) {
    return result((s as unknown as { snapshotTime?: unknown }).snapshotTime);
  },
  async withTransaction(s, a, scope) {
    const { callback, rest } = take(a, ['callback'], 'withTransaction');
    if (!Array.isArray(callback))
      throw new TestFileError('withTransaction.callback must be an array of operations');
    await s.withTransaction(
      async () => {
        for (const op of callback) await scope.execute(op, { inCallback: true });
      },
      transactionOptions(stripSession(rest)),
    );
    return none;
  },
};

/** Transaction options as the test file wrote them (transactionOptions() converts them). */
function stripSession(a: Args): Args {
  const { session: _session, ...rest } = a;
  return rest;
}

// ---------------------------------------------------------------------------------------------
// GridFS bucket

function hexSource(source: unknown): Buffer {
  if (
    !isDocument(source) ||
    typeof source.$$hexBytes !== 'string' ||
    Object.keys(source).length !== 1
  ) {
    throw new TestFileError(`upload source must be {$$hexBytes: <string>}, got ${show(source)}`);
  }
  const hex = source.$$hexBytes;
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex))
    throw new TestFileError(`malformed $$hexBytes ${show(hex)}`);
  return Buffer.from(hex, 'hex');
}

async function writeStream(stream: NodeJS.WritableStream, bytes: Buffer): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    stream.once('error', reject);
    stream.once('finish', () => resolve());
    stream.end(bytes);
  });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

async function filesNamed(b: GridFSBucket, filename: unknown, session: unknown): Promise<Doc[]> {
  const opts = session instanceof ClientSession ? { session } : {};
  return (await b.find({ filename: filename as string }, opts).toArray()) as unknown as Doc[];
}

const bucketOps: Record<string, Op<GridFSBucket>> = {
  async upload(b, a) {
    const { filename, source, rest } = take(a, ['filename', 'source'], 'upload');
    const { disableMD5: _md5, ...opts } = rest;
    const stream = b.openUploadStream(filename as string, opts);
    await writeStream(stream, hexSource(source));
    return result(stream.id);
  },
  async uploadWithId(b, a) {
    const { id, filename, source, rest } = take(a, ['id', 'filename', 'source'], 'uploadWithId');
    const { disableMD5: _md5, ...opts } = rest;
    const stream = b.openUploadStreamWithId(id as never, filename as string, opts);
    await writeStream(stream, hexSource(source));
    return none;
  },
  async download(b, a) {
    const { id, rest } = take(a, ['id'], 'download');
    return result(await readAll(b.openDownloadStream(id as never, rest)));
  },
  async downloadByName(b, a) {
    const { filename, rest } = take(a, ['filename'], 'downloadByName');
    return result(await readAll(b.openDownloadStreamByName(filename as string, rest)));
  },
  async delete(b, a) {
    const { id, rest } = take(a, ['id'], 'delete');
    await b.delete(id as never, rest);
    return none;
  },
  async deleteByName(b, a) {
    // The Node driver has no deleteByName; delete every revision, as the GridFS spec describes.
    const { filename, rest } = take(a, ['filename'], 'deleteByName');
    const files = await filesNamed(b, filename, rest.session);
    if (files.length === 0)
      throw new MongoRuntimeError(`File not found for filename: ${String(filename)}`);
    for (const f of files) await b.delete(f._id as never, rest);
    return none;
  },
  async rename(b, a) {
    const { id, newFilename, rest } = take(a, ['id', 'newFilename'], 'rename');
    await b.rename(id as never, newFilename as string, rest);
    return none;
  },
  async renameByName(b, a) {
    // The Node driver has no renameByName; rename every revision, as the GridFS spec describes.
    const { filename, newFilename, rest } = take(a, ['filename', 'newFilename'], 'renameByName');
    const files = await filesNamed(b, filename, rest.session);
    if (files.length === 0)
      throw new MongoRuntimeError(`File not found for filename: ${String(filename)}`);
    for (const f of files) await b.rename(f._id as never, newFilename as string, rest);
    return none;
  },
  async drop(b, a) {
    await b.drop(a);
    return none;
  },
  async find(b, a) {
    const { filter, rest } = take(a, ['filter'], 'find');
    return result(await b.find((filter ?? {}) as Document, rest).toArray(), true);
  },
};

// ---------------------------------------------------------------------------------------------
// Cursors and change streams

type Iterable =
  { kind: 'changeStream'; value: ChangeStream } | { kind: 'cursor'; value: AbstractCursor };

const cursorOps: Record<string, Op<Iterable>> = {
  async iterateUntilDocumentOrError(c) {
    if (c.kind === 'changeStream') return result(await c.value.next());
    // A plain cursor: next() fetches batches until it has a document or the cursor is exhausted.
    return result(await c.value.next());
  },
  async iterateOnce(c) {
    return result(await c.value.tryNext());
  },
  async close(c) {
    await c.value.close().catch(() => undefined);
    return none;
  },
};

// ---------------------------------------------------------------------------------------------
// Special test runner operations

function sessionOf(scope: TestScope, name: unknown): ClientSession {
  return scope.entities.getAs(name, 'session');
}

function txnState(s: ClientSession): string {
  return String((s as unknown as { transaction: { state: string } }).transaction.state);
}

const STATE_NAMES: Record<string, string> = {
  none: 'NO_TRANSACTION',
  starting: 'STARTING_TRANSACTION',
  in_progress: 'TRANSACTION_IN_PROGRESS',
  committed: 'TRANSACTION_COMMITTED',
  aborted: 'TRANSACTION_ABORTED',
};

function assertion(ok: boolean, what: string, message: string): void {
  if (!ok) throw new MatchError(what, message);
}

async function collectionNames(scope: TestScope, dbName: unknown): Promise<string[]> {
  const list = await scope.internal
    .db(String(dbName))
    .listCollections({}, { nameOnly: true })
    .toArray();
  return list.map((c) => c.name);
}

async function indexNames(scope: TestScope, dbName: unknown, collName: unknown): Promise<string[]> {
  try {
    const list = await scope.internal
      .db(String(dbName))
      .collection(String(collName))
      .listIndexes()
      .toArray();
    return list.map((i) => String(i.name));
  } catch (e) {
    if ((e as { code?: unknown }).code === 26) return [];
    throw e;
  }
}

function lastTwoLsids(scope: TestScope, clientName: unknown): [unknown, unknown] {
  const client = scope.entities.getAs(clientName, 'client');
  const started = client.commandStartedEvents();
  const last = started.at(-1);
  const prev = started.at(-2);
  if (last === undefined || prev === undefined)
    throw new MatchError('lsid', `fewer than two commandStartedEvents observed on ${client.id}`);
  const l1 = (prev.command as Doc | undefined)?.lsid;
  const l2 = (last.command as Doc | undefined)?.lsid;
  if (l1 === undefined || l2 === undefined)
    throw new MatchError('lsid', 'one of the last two commands has no lsid');
  return [l1, l2];
}

function sameLsid(a: unknown, b: unknown): boolean {
  const ha = Buffer.from(((a as Doc).id as { buffer: Uint8Array }).buffer).toString('hex');
  const hb = Buffer.from(((b as Doc).id as { buffer: Uint8Array }).buffer).toString('hex');
  return ha === hb;
}

async function enableFailPoint(
  scope: TestScope,
  client: MongoClient,
  failPoint: unknown,
): Promise<void> {
  if (!isDocument(failPoint) || typeof failPoint.configureFailPoint !== 'string')
    throw new TestFileError('failPoint must be a configureFailPoint command');
  await client.db('admin').command(failPoint, { readPreference: 'primary' });
  scope.recordFailPoint(client, failPoint.configureFailPoint);
}

const runnerOps: Record<string, (args: Doc, scope: TestScope) => Promise<OperationResult>> = {
  async failPoint(a, scope) {
    const client = scope.entities.getAs(a.client, 'client');
    await enableFailPoint(scope, client.client, a.failPoint);
    return none;
  },
  async targetedFailPoint(a, scope) {
    const session = sessionOf(scope, a.session);
    if (!session.isPinned)
      throw new MatchError('targetedFailPoint', 'the session is not pinned to a mongos');
    const client = scope.entities.session(a.session).client;
    await enableFailPoint(scope, client.client, a.failPoint);
    return none;
  },
  async assertSessionTransactionState(a, scope) {
    const want = STATE_NAMES[String(a.state)];
    if (want === undefined) throw new TestFileError(`unknown transaction state ${show(a.state)}`);
    const got = txnState(sessionOf(scope, a.session));
    // The driver distinguishes a commit of an empty transaction; the spec's "committed" covers both.
    const ok =
      got === want || (want === 'TRANSACTION_COMMITTED' && got === 'TRANSACTION_COMMITTED_EMPTY');
    assertion(
      ok,
      'assertSessionTransactionState',
      `expected ${String(a.state)}, session is ${got}`,
    );
    return none;
  },
  async assertSessionPinned(a, scope) {
    assertion(sessionOf(scope, a.session).isPinned, 'assertSessionPinned', 'session is not pinned');
    return none;
  },
  async assertSessionUnpinned(a, scope) {
    assertion(!sessionOf(scope, a.session).isPinned, 'assertSessionUnpinned', 'session is pinned');
    return none;
  },
  async assertSessionDirty(a, scope) {
    const dirty =
      (sessionOf(scope, a.session).serverSession as unknown as { isDirty?: boolean } | undefined)
        ?.isDirty === true;
    assertion(dirty, 'assertSessionDirty', 'session is not dirty');
    return none;
  },
  async assertSessionNotDirty(a, scope) {
    const dirty =
      (sessionOf(scope, a.session).serverSession as unknown as { isDirty?: boolean } | undefined)
        ?.isDirty === true;
    assertion(!dirty, 'assertSessionNotDirty', 'session is dirty');
    return none;
  },
  async assertSameLsidOnLastTwoCommands(a, scope) {
    const [x, y] = lastTwoLsids(scope, a.client);
    assertion(
      sameLsid(x, y),
      'assertSameLsidOnLastTwoCommands',
      `lsids differ: ${show(x)} vs ${show(y)}`,
    );
    return none;
  },
  async assertDifferentLsidOnLastTwoCommands(a, scope) {
    const [x, y] = lastTwoLsids(scope, a.client);
    assertion(
      !sameLsid(x, y),
      'assertDifferentLsidOnLastTwoCommands',
      `both commands used lsid ${show(x)}`,
    );
    return none;
  },
  async assertCollectionExists(a, scope) {
    const names = await collectionNames(scope, a.databaseName);
    assertion(
      names.includes(String(a.collectionName)),
      'assertCollectionExists',
      `${String(a.databaseName)}.${String(a.collectionName)} does not exist (have ${names.join(', ')})`,
    );
    return none;
  },
  async assertCollectionNotExists(a, scope) {
    const names = await collectionNames(scope, a.databaseName);
    assertion(
      !names.includes(String(a.collectionName)),
      'assertCollectionNotExists',
      `${String(a.databaseName)}.${String(a.collectionName)} exists`,
    );
    return none;
  },
  async assertIndexExists(a, scope) {
    const names = await indexNames(scope, a.databaseName, a.collectionName);
    assertion(
      names.includes(String(a.indexName)),
      'assertIndexExists',
      `index ${String(a.indexName)} does not exist (have ${names.join(', ')})`,
    );
    return none;
  },
  async assertIndexNotExists(a, scope) {
    const names = await indexNames(scope, a.databaseName, a.collectionName);
    assertion(
      !names.includes(String(a.indexName)),
      'assertIndexNotExists',
      `index ${String(a.indexName)} exists`,
    );
    return none;
  },
  async assertNumberConnectionsCheckedOut(a, scope) {
    const client = scope.entities.getAs(a.client, 'client');
    const want = toJsNumber(a.connections);
    assertion(
      client.checkedOut === want,
      'assertNumberConnectionsCheckedOut',
      `expected ${String(want)} connections checked out, have ${client.checkedOut}`,
    );
    return none;
  },
  async createEntities(a, scope) {
    await scope.entities.create(a.entities, scope.defaults);
    return none;
  },
  async wait(a) {
    await sleep(Number(toJsNumber(a.ms)));
    return none;
  },
  async waitForEvent(a, scope) {
    const client = scope.entities.getAs(a.client, 'client');
    const want = Number(toJsNumber(a.count));
    const until = Date.now() + Math.min(10_000, scope.timeLeft());
    for (;;) {
      const n = countMatchingEvents(a.event, client, scope.entities);
      if (n >= want) return none;
      if (Date.now() > until)
        throw new MatchError('waitForEvent', `waited for ${want} ${show(a.event)}, observed ${n}`);
      await sleep(20);
    }
  },
  async assertEventCount(a, scope) {
    const client = scope.entities.getAs(a.client, 'client');
    const want = Number(toJsNumber(a.count));
    const n = countMatchingEvents(a.event, client, scope.entities);
    assertion(n === want, 'assertEventCount', `expected ${want} ${show(a.event)}, observed ${n}`);
    return none;
  },
  async runOnThread(a, scope) {
    const thread = scope.entities.getAs(a.thread, 'thread');
    thread.schedule(() => scope.execute(a.operation, { inCallback: false }));
    return none;
  },
  async waitForThread(a, scope) {
    const thread = scope.entities.getAs(a.thread, 'thread');
    const errors = await Promise.race([
      thread.join(),
      sleep(Math.min(10_000, scope.timeLeft())).then(() => {
        throw new MatchError('waitForThread', 'thread did not finish within 10 s');
      }),
    ]);
    if (errors.length > 0) throw errors[0];
    return none;
  },
  async loop(a, scope) {
    // Loops run until told to stop; this runner stops them after a short, fixed time.
    if (!Array.isArray(a.operations)) throw new TestFileError('loop.operations must be an array');
    const store = (name: unknown, init: () => unknown): void => {
      if (name === undefined) return;
      if (!scope.entities.has(String(name)))
        scope.entities.set(String(name), { kind: 'bson', value: init() });
    };
    store(a.storeErrorsAsEntity, () => []);
    store(a.storeFailuresAsEntity, () => []);
    const errors = a.storeErrorsAsEntity ?? a.storeFailuresAsEntity;
    const failures = a.storeFailuresAsEntity ?? a.storeErrorsAsEntity;
    let iterations = 0;
    let successes = 0;
    const until = Date.now() + Math.min(2_000, Math.max(0, scope.timeLeft() - 1_000));
    while (Date.now() < until) {
      iterations++;
      for (const op of a.operations) {
        try {
          await scope.execute(op, { inCallback: false });
          successes++;
        } catch (e) {
          const target = e instanceof MatchError ? failures : errors;
          if (target === undefined) throw e;
          (scope.entities.entityValue(String(target)) as Doc[]).push({
            error: String((e as Error).message ?? e),
            time: Date.now() / 1000,
          });
          break;
        }
      }
    }
    if (a.storeIterationsAsEntity !== undefined)
      scope.entities.set(String(a.storeIterationsAsEntity), { kind: 'bson', value: iterations });
    if (a.storeSuccessesAsEntity !== undefined)
      scope.entities.set(String(a.storeSuccessesAsEntity), { kind: 'bson', value: successes });
    return none;
  },
};

// ---------------------------------------------------------------------------------------------
// Dispatch

/** Runs one operation and returns its (converted) result; throws what the operation throws. */
export async function runOperation(
  name: string,
  object: string,
  rawArgs: unknown,
  scope: TestScope,
): Promise<OperationResult> {
  if (object === 'testRunner') {
    const f = runnerOps[name];
    if (f === undefined) throw new UnsupportedError(`unsupported test runner operation ${name}`);
    if (rawArgs !== undefined && !isDocument(rawArgs))
      throw new TestFileError('arguments must be a document');
    return f(rawArgs ?? {}, scope);
  }
  const entity = scope.entities.get(object);
  const args = (): Args => prepare(rawArgs, scope);
  switch (entity.kind) {
    case 'collection':
      return dispatch(collectionOps, name, 'collection', entity.value, args(), scope);
    case 'database':
      return dispatch(databaseOps, name, 'database', entity.value, args(), scope);
    case 'client':
      return dispatch(clientOps, name, 'client', entity.value, args(), scope);
    case 'session':
      return dispatch(
        sessionOps,
        name,
        'session',
        entity.value,
        prepare(rawArgs, scope, true),
        scope,
      );
    case 'bucket':
      return dispatch(bucketOps, name, 'bucket', entity.value, args(), scope);
    case 'changeStream':
      return dispatch(
        cursorOps,
        name,
        'change stream',
        { kind: 'changeStream', value: entity.value },
        args(),
        scope,
      );
    case 'cursor':
      return dispatch(
        cursorOps,
        name,
        'cursor',
        { kind: 'cursor', value: entity.value },
        args(),
        scope,
      );
    default:
      throw new UnsupportedError(`operations on ${entity.kind} entities are not supported`);
  }
}

function dispatch<T>(
  table: Record<string, Op<T>>,
  name: string,
  what: string,
  target: T,
  args: Args,
  scope: TestScope,
): Promise<OperationResult> {
  const f = Object.hasOwn(table, name) ? table[name] : undefined;
  if (f === undefined) throw new UnsupportedError(`unsupported ${what} operation ${name}`);
  return f(target, args, scope);
}

/** Whether a result value may be stored as an entity, and as which kind. */
export function entityForResult(
  value: unknown,
):
  | { kind: 'changeStream'; value: ChangeStream }
  | { kind: 'cursor'; value: AbstractCursor }
  | { kind: 'collection'; value: Collection }
  | { kind: 'bson'; value: unknown } {
  if (value instanceof ChangeStream) return { kind: 'changeStream', value };
  if (value instanceof Collection) return { kind: 'collection', value };
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { tryNext?: unknown }).tryNext === 'function' &&
    typeof (value as { close?: unknown }).close === 'function'
  ) {
    return { kind: 'cursor', value: value as AbstractCursor };
  }
  if (value === undefined) throw new TestFileError('the operation returned no result to save');
  return { kind: 'bson', value };
}
