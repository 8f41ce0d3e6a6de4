// Cursors of the embedded client, as the driver's: lazy (the command runs at the first
// next/toArray/iteration), batches fetched with getMore, killCursors on close() before the end.
// FindCursor and AggregationCursor add the driver's builder methods.

import { Long } from 'mongodb';
import type { BSON } from 'mongodb';
import type { Document } from 'mongodb';
import { MongoCursorExhaustedError, MongoInvalidArgumentError } from 'mongodb';
import type { Sort } from 'mongodb';
import type { EmbeddedSession } from './session.js';
import type { Transport } from './transport.js';
import { appendAll } from '../../bson/arrays.js';

/** Where a cursor's commands go and in which session. */
export interface CursorTarget {
  readonly transport: Transport;
  readonly dbName: string;
  readonly session: EmbeddedSession | undefined;
  /** The BSON decoding options of the operation (promoteValues, ...). */
  readonly decode?: BSON.DeserializeOptions;
}

interface CursorReply {
  id: Long;
  ns: string;
  batch: Document[];
  postBatchResumeToken: Document | undefined;
}

function cursorId(v: unknown): Long {
  if (v instanceof Long) return v;
  if (typeof v === 'number') return Long.fromNumber(v);
  return Long.ZERO;
}

function readCursor(reply: Document, first: boolean): CursorReply {
  const c: unknown = reply['cursor'];
  if (typeof c !== 'object' || c === null)
    throw new MongoInvalidArgumentError('reply has no cursor');
  const cursor = c as Document;
  const batch: unknown = cursor[first ? 'firstBatch' : 'nextBatch'];
  const pbrt: unknown = cursor['postBatchResumeToken'];
  return {
    id: cursorId(cursor['id']),
    ns: typeof cursor['ns'] === 'string' ? cursor['ns'] : '',
    batch: Array.isArray(batch) ? (batch as Document[]) : [],
    postBatchResumeToken:
      typeof pbrt === 'object' && pbrt !== null ? (pbrt as Document) : undefined,
  };
}

/** Normalize a driver-style sort (object, [field, dir] pairs, a field name) to a document. */
export function sortDocument(sort: Sort | undefined): Document | undefined {
  if (sort === undefined) return undefined;
  const dir = (d: unknown): unknown => {
    if (d === 'asc' || d === 'ascending') return 1;
    if (d === 'desc' || d === 'descending') return -1;
    return d;
  };
  if (typeof sort === 'string') return { [sort]: 1 };
  if (sort instanceof Map) return Object.fromEntries([...sort].map(([k, v]) => [k, dir(v)]));
  if (Array.isArray(sort)) {
    if (sort.length === 2 && typeof sort[0] === 'string' && !Array.isArray(sort[1]))
      return { [sort[0]]: dir(sort[1]) };
    const out: Document = {};
    for (const item of sort as unknown[]) {
      if (typeof item === 'string') out[item] = 1;
      else if (Array.isArray(item)) out[String(item[0])] = dir(item[1]);
    }
    return out;
  }
  const out: Document = {};
  for (const [k, v] of Object.entries(sort as Document)) out[k] = dir(v);
  return out;
}

export abstract class AbstractEmbeddedCursor<T = Document> implements AsyncIterable<T> {
  private buffer: Document[] = [];
  private id: Long | undefined;
  private ns = '';
  private done = false;
  private killed = false;
  private transform: ((doc: Document) => unknown) | undefined;
  protected batchSizeValue: number | undefined;
  protected maxAwaitTimeMSValue: number | undefined;
  /** The resume token after the latest batch (change streams). */
  postBatchResumeToken: Document | undefined;

  protected constructor(protected readonly target: CursorTarget) {}

  /** The command that opens the cursor, built when it first runs. */
  protected abstract initialCommand(): Document;

  get closed(): boolean {
    return this.killed || (this.done && this.buffer.length === 0);
  }

  /** Documents already fetched and not yet returned. */
  bufferedCount(): number {
    return this.buffer.length;
  }

  protected assertNotStarted(): void {
    if (this.id !== undefined || this.done)
      throw new MongoCursorExhaustedError('Cursor is already initialized');
  }

  batchSize(n: number): this {
    this.batchSizeValue = n;
    return this;
  }

  /** Apply `fn` to each document returned (the driver's cursor.map). */
  map<U>(fn: (doc: T) => U): AbstractEmbeddedCursor<U> {
    const prev = this.transform;
    this.transform = prev === undefined ? (d) => fn(d as T) : (d) => fn(prev(d) as T);
    return this as unknown as AbstractEmbeddedCursor<U>;
  }

  private run(command: Document): Promise<Document> {
    this.target.session?.applyTo(command, command['getMore'] !== undefined);
    return this.target.transport.command(this.target.dbName, command, this.target.decode);
  }

  /** Fetch the next batch into the buffer; false when the cursor has no more. */
  protected async fetch(): Promise<boolean> {
    if (this.done || this.killed) return false;
    let r: CursorReply;
    if (this.id === undefined) {
      r = readCursor(await this.run(this.initialCommand()), true);
    } else {
      const collection = this.ns.slice(this.ns.indexOf('.') + 1);
      const cmd: Document = { getMore: this.id, collection };
      if (this.batchSizeValue !== undefined && this.batchSizeValue > 0)
        cmd['batchSize'] = this.batchSizeValue;
      if (this.maxAwaitTimeMSValue !== undefined) cmd['maxTimeMS'] = this.maxAwaitTimeMSValue;
      r = readCursor(await this.run(cmd), false);
    }
    this.id = r.id;
    if (r.ns !== '') this.ns = r.ns;
    if (r.postBatchResumeToken !== undefined) this.postBatchResumeToken = r.postBatchResumeToken;
    if (r.id.isZero()) this.done = true;
    appendAll(this.buffer, r.batch);
    return r.batch.length > 0 || !this.done;
  }

  /** The next document before any transform, or null at the end; `wait` false: one fetch at most. */
  protected async nextRaw(wait = true): Promise<Document | null> {
    for (;;) {
      const doc = this.buffer.shift();
      if (doc !== undefined) return doc;
      if (this.done || this.killed) return null;
      await this.fetch();
      if (!wait && this.buffer.length === 0) return null;
    }
  }

  private out(doc: Document): T {
    return (this.transform === undefined ? doc : this.transform(doc)) as T;
  }

  async hasNext(): Promise<boolean> {
    while (this.buffer.length === 0) {
      if (this.done || this.killed) return false;
      await this.fetch();
    }
    return true;
  }

  async next(): Promise<T | null> {
    const doc = await this.nextRaw();
    return doc === null ? null : this.out(doc);
  }

  /** The next document if one is available after at most one fetch, else null. */
  async tryNext(): Promise<T | null> {
    const doc = await this.nextRaw(false);
    return doc === null ? null : this.out(doc);
  }

  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for (;;) {
      while (this.buffer.length > 0) all.push(this.out(this.buffer.shift() as Document));
      if (this.done || this.killed) return all;
      await this.fetch();
    }
  }

  async forEach(fn: (doc: T) => boolean | void): Promise<void> {
    for await (const doc of this) if (fn(doc) === false) break;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, void> {
    try {
      for (;;) {
        const doc = await this.next();
        if (doc === null) return;
        yield doc;
      }
    } finally {
      await this.close();
    }
  }

  /** Kill the server cursor if it is still open; the cursor returns nothing more. */
  async close(): Promise<void> {
    if (this.killed) return;
    this.killed = true;
    this.buffer = [];
    const id = this.id;
    if (id === undefined || id.isZero() || this.target.transport.isClosed) return;
    const collection = this.ns.slice(this.ns.indexOf('.') + 1);
    await this.run({ killCursors: collection, cursors: [id] }).catch(() => undefined);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** A cursor over a command's reply (listIndexes, listCollections, ...). */
export class CommandCursor<T = Document> extends AbstractEmbeddedCursor<T> {
  constructor(
    target: CursorTarget,
    private readonly command: Document,
  ) {
    super(target);
  }

  protected initialCommand(): Document {
    const cmd = { ...this.command };
    if (this.batchSizeValue !== undefined) cmd['cursor'] = { batchSize: this.batchSizeValue };
    return cmd;
  }
}

export class AggregationCursor<T = Document> extends AbstractEmbeddedCursor<T> {
  constructor(
    target: CursorTarget,
    /** The collection name, or 1 for a database-level aggregation. */
    private readonly aggregate: string | 1,
    private readonly pipeline: Document[],
    private readonly options: Document,
  ) {
    super(target);
    const bs: unknown = options['batchSize'];
    if (typeof bs === 'number') this.batchSizeValue = bs;
    const maxAwait: unknown = options['maxAwaitTimeMS'];
    if (typeof maxAwait === 'number') this.maxAwaitTimeMSValue = maxAwait;
  }

  protected initialCommand(): Document {
    const cmd: Document = { aggregate: this.aggregate, pipeline: this.pipeline };
    const { batchSize, session, maxAwaitTimeMS, ...rest } = this.options;
    void session;
    void maxAwaitTimeMS;
    void batchSize;
    Object.assign(cmd, rest);
    cmd['cursor'] = this.batchSizeValue === undefined ? {} : { batchSize: this.batchSizeValue };
    return cmd;
  }
}

export class FindCursor<T = Document> extends AbstractEmbeddedCursor<T> {
  private readonly spec: Document;

  constructor(
    target: CursorTarget,
    private readonly collection: string,
    filter: Document,
    options: Document,
  ) {
    super(target);
    const { session, sort, batchSize, limit, ...rest } = options;
    void session;
    this.spec = { filter, ...rest };
    if (sort !== undefined) this.spec['sort'] = sortDocument(sort as Sort);
    if (typeof batchSize === 'number') this.batchSizeValue = batchSize;
    if (typeof limit === 'number') this.limit(limit);
  }

  protected initialCommand(): Document {
    const cmd: Document = { find: this.collection };
    for (const [k, v] of Object.entries(this.spec)) if (v !== undefined) cmd[k] = v;
    if (this.batchSizeValue !== undefined) cmd['batchSize'] = this.batchSizeValue;
    return cmd;
  }

  filter(filter: Document): this {
    this.assertNotStarted();
    this.spec['filter'] = filter;
    return this;
  }

  sort(sort: Sort): this {
    this.assertNotStarted();
    this.spec['sort'] = sortDocument(sort);
    return this;
  }

  /** A negative limit, as in the driver, asks for one batch of at most |n|. */
  limit(n: number): this {
    this.assertNotStarted();
    if (n < 0) {
      this.spec['limit'] = -n;
      this.spec['singleBatch'] = true;
    } else {
      this.spec['limit'] = n;
    }
    return this;
  }

  skip(n: number): this {
    this.assertNotStarted();
    this.spec['skip'] = n;
    return this;
  }

  project<U = Document>(projection: Document): FindCursor<U> {
    this.assertNotStarted();
    this.spec['projection'] = projection;
    return this as unknown as FindCursor<U>;
  }

  hint(hint: string | Document): this {
    this.assertNotStarted();
    this.spec['hint'] = hint;
    return this;
  }

  collation(collation: Document): this {
    this.assertNotStarted();
    this.spec['collation'] = collation;
    return this;
  }

  comment(comment: unknown): this {
    this.assertNotStarted();
    this.spec['comment'] = comment;
    return this;
  }

  maxTimeMS(ms: number): this {
    this.assertNotStarted();
    this.spec['maxTimeMS'] = ms;
    return this;
  }

  /** The find command's explain, at `verbosity` (the driver's default: allPlansExecution). */
  async explain(verbosity = 'allPlansExecution'): Promise<Document> {
    const cmd: Document = { explain: this.initialCommand(), verbosity };
    this.target.session?.applyTo(cmd);
    return this.target.transport.command(this.target.dbName, cmd);
  }
}
