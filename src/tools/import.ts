// secantus-import: mongoimport over the official driver, plus Parquet. Reads a file (or
// standard input) of one of the types below into one collection:
// - json: Extended JSON documents one after another (one a line, as mongoexport writes them),
//   or one array of them with --jsonArray;
// - csv / tsv: one record a line; the field names from --fields, --fieldFile or the first line
//   (--headerline); dotted names make nested documents; values typed as mongoimport types them
//   (int32, else int64, else double, else the string); more values than names are `field<N>`;
// - parquet: a Parquet file, from secantus-export (every BSON type back as it was) or from
//   elsewhere (by its Parquet types), read a row group at a time.
// Writes go in batches of up to 1000 (--numInsertionWorkers at once): inserts, or with --mode
// upsert (replace by --upsertFields, default _id), merge ($set) or delete, which are ordered
// and stop at the first error, as mongoimport's. Duplicate keys and validation failures are
// counted and skipped unless --stopOnError. Bad input stops the import with the document's
// number and line; what was read before it is written.

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Transform } from 'node:stream';
import { parse as csvParse } from 'csv-parse';
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead, parquetSchema } from 'hyparquet';
import type { AsyncBuffer, FileMetaData, SchemaElement } from 'hyparquet';
import { BSON, MongoBulkWriteError, MongoClient, MongoServerError } from 'mongodb';
import type {
  AnyBulkWriteOperation,
  BulkWriteResult,
  Collection,
  WriteConcernSettings,
} from 'mongodb';
import { limits } from '../limits.js';
import type { Document } from './bson.js';
import type { Connection } from './cli-options.js';
import { parseExtendedJsonDocument } from './ejson-text.js';
import { sanitizeUri, validateFields } from './io-common.js';
import { InputError, jsonPieces, pieceError } from './json-stream.js';
import { describedColumns, fromForeignValue, fromOurColumn, setField } from './parquet-bson.js';
import { Semaphore } from './pool.js';
import { ToolError, withContext } from './tool-error.js';
import type { ProgressBar, ToolLog, ToolStreams } from './tool-log.js';

export type ImportType = 'json' | 'csv' | 'tsv' | 'parquet';
export type ImportMode = 'insert' | 'upsert' | 'merge' | 'delete';

export interface ImportOptions {
  readonly connection: Connection;
  readonly db: string;
  readonly collection: string;
  /** undefined: standard input. */
  readonly file: string | undefined;
  readonly type: ImportType;
  readonly jsonArray: boolean;
  readonly headerline: boolean;
  readonly fields: readonly string[] | undefined;
  readonly ignoreBlanks: boolean;
  readonly mode: ImportMode;
  readonly upsertFields: readonly string[];
  readonly drop: boolean;
  readonly stopOnError: boolean;
  readonly ordered: boolean;
  readonly workers: number;
  readonly bypassDocumentValidation: boolean;
  readonly writeConcern: WriteConcernSettings | undefined;
}

/** A document read from the input and where it was. */
interface InputDocument {
  readonly doc: Document;
  readonly number: number;
}

// ----- reading -----

/** Counts the bytes read (for the progress bar). */
class Counted extends Transform {
  bytes = 0;
  override _transform(
    chunk: Buffer,
    _enc: BufferEncoding,
    done: (e?: Error | null, d?: Buffer) => void,
  ): void {
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

async function* jsonDocuments(
  input: AsyncIterable<unknown>,
  array: boolean,
): AsyncGenerator<InputDocument> {
  for await (const piece of jsonPieces(input, array)) {
    let doc: Document;
    try {
      doc = parseExtendedJsonDocument(piece.text);
    } catch (e) {
      throw pieceError(piece, e);
    }
    yield { doc, number: piece.number };
  }
}

/** mongoimport's autoParse: int32, else int64, else double, else the string. */
export function autoParse(token: string): unknown {
  if (/^[+-]?\d+$/.test(token)) {
    const n = BigInt(token);
    if (n >= -2147483648n && n <= 2147483647n) return new BSON.Int32(Number(n));
    if (n >= -(2n ** 63n) && n < 2n ** 63n) return BSON.Long.fromBigInt(n);
  }
  const t = token.trim() === token ? token : '';
  if (t !== '' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|infinity|nan)$/i.test(t)) {
    const lower = t.toLowerCase().replace(/^\+/, '');
    const f = lower.endsWith('nan')
      ? NaN
      : lower.endsWith('inf') || lower.endsWith('infinity')
        ? lower.startsWith('-')
          ? -Infinity
          : Infinity
        : Number(t);
    return new BSON.Double(f);
  }
  return token;
}

/** One CSV/TSV record as a document (mongoimport's tokensToBSON). */
export function recordToDocument(
  fields: readonly string[],
  tokens: readonly string[],
  ignoreBlanks: boolean,
  number: number,
): Document {
  const doc: Document = {};
  tokens.forEach((token, i) => {
    if (token === '' && ignoreBlanks) return;
    const value = autoParse(token);
    const name = fields[i];
    if (name === undefined) {
      const key = `field${i}`;
      if (fields.includes(key))
        throw new InputError(
          `duplicate field name - on ${key} - for token #${i + 1} (\`${token}\`) in document #${number}`,
        );
      setField(doc, key, value);
      return;
    }
    const parts = name.split('.');
    let at = doc;
    for (const p of parts.slice(0, -1)) {
      const next = (Object.prototype.hasOwnProperty.call(at, p) ? at[p] : undefined) as unknown;
      if (next === undefined) {
        const sub: Document = {};
        setField(at, p, sub);
        at = sub;
      } else if (typeof next === 'object' && next !== null && !('_bsontype' in next))
        at = next as Document;
      else
        throw new InputError(
          `can't set value for key \`${name}\`: Expected document element to be an document, but element has already been set as another value`,
        );
    }
    setField(at, parts[parts.length - 1] as string, value);
  });
  return doc;
}

async function* csvDocuments(
  input: AsyncIterable<unknown>,
  o: ImportOptions,
  log: ToolLog,
): AsyncGenerator<InputDocument> {
  const parser = csvParse({
    bom: true,
    ltrim: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: limits.importRecordTextMax,
  });
  const feed = (async () => {
    try {
      for await (const chunk of input)
        if (!parser.write(chunk as Buffer)) await new Promise((r) => parser.once('drain', r));
      parser.end();
    } catch (e) {
      parser.destroy(e as Error);
    }
  })();
  let fields = o.fields;
  let number = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (fields === undefined) {
        fields = record;
        validateHeader(fields, log);
        continue;
      }
      number++;
      yield { doc: recordToDocument(fields, record, o.ignoreBlanks, number), number };
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    const info = e as { message?: string; lines?: number };
    throw new InputError(
      `read error on entry #${number + 1}${info.lines !== undefined ? ` (line ${info.lines})` : ''}: ${info.message ?? String(e)}`,
    );
  } finally {
    await feed;
  }
  if (fields === undefined && o.headerline) throw new InputError('EOF');
}

function validateHeader(fields: readonly string[], log: ToolLog): void {
  try {
    validateFields(fields);
  } catch (e) {
    throw new InputError(e instanceof Error ? e.message : String(e));
  }
  log.info(fields.length === 1 ? `using field: ${fields[0]}` : `using fields: ${fields.join(',')}`);
}

async function* tsvDocuments(
  input: AsyncIterable<unknown>,
  o: ImportOptions,
  log: ToolLog,
): AsyncGenerator<InputDocument> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  let fields = o.fields;
  let number = 0;
  let rest = '';
  const records = function* (text: string, final: boolean): Generator<string> {
    rest += text;
    let from = 0;
    let nl: number;
    while ((nl = rest.indexOf('\n', from)) >= 0) {
      yield rest.slice(from, nl);
      from = nl + 1;
    }
    rest = rest.slice(from);
    if (rest.length > limits.importRecordTextMax)
      throw new InputError(
        `read error on entry #${number + 1}: a record is at most ${limits.importRecordTextMax} characters`,
      );
    if (final && rest !== '') {
      yield rest;
      rest = '';
    }
  };
  const handle = function* (recordText: string): Generator<InputDocument> {
    const clean = recordText.replace(/\r$/, '');
    if (clean === '') return;
    const tokens = clean.split('\t');
    if (fields === undefined) {
      fields = tokens;
      validateHeader(fields, log);
      return;
    }
    number++;
    yield { doc: recordToDocument(fields, tokens, o.ignoreBlanks, number), number };
  };
  for await (const chunk of input) {
    const text =
      typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    for (const r of records(text, false)) yield* handle(r);
  }
  for (const r of records(decoder.decode(), true)) yield* handle(r);
}

async function* parquetDocuments(
  file: AsyncBuffer,
  onRows: (done: number, total: number) => void,
): AsyncGenerator<InputDocument> {
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (e) {
    throw new InputError(`not a Parquet file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const ours = describedColumns(metadata.key_value_metadata);
  const top = parquetSchema(metadata).children.map((c) => c.element);
  const names = top.map((el) => el.name);
  const elements = new Map<string, SchemaElement>(top.map((el) => [el.name, el]));
  const parsers =
    ours === undefined
      ? {}
      : {
          timestampFromMilliseconds: (ms: bigint) => ms as unknown as Date,
          jsonFromBytes: (b: Uint8Array) => b as unknown,
          uuidFromBytes: (b: Uint8Array) => b as unknown as string,
        };
  const total = Number(metadata.num_rows);
  const byName = new Map((ours ?? []).map((c) => [c.name, c]));
  let rowStart = 0;
  let number = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    // Rows as arrays in column order: an object row would lose a column named __proto__.
    const rows = await new Promise<unknown[][]>((resolve, reject) => {
      parquetRead({
        file,
        metadata,
        rowStart,
        rowEnd,
        utf8: false,
        parsers,
        onComplete: (r) => resolve(r as unknown[][]),
      }).catch(reject);
    });
    for (const row of rows) {
      number++;
      const doc: Document = {};
      try {
        row.forEach((v, i) => {
          const name = names[i] as string;
          const plan = byName.get(name);
          const value =
            plan !== undefined ? fromOurColumn(plan, v) : fromForeignValue(v, elements.get(name));
          if (value !== undefined) setField(doc, name, value);
        });
      } catch (e) {
        throw new InputError(
          `error processing document #${number} (row ${number}): ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      yield { doc, number };
    }
    rowStart = rowEnd;
    onRows(rowStart, total);
  }
}

// ----- writing -----

/** mongoimport continues through these write errors unless --stopOnError. */
const ignorableCodes = new Set([11000, 11001, 12582, 121]);

export interface ImportCounts {
  succeeded: number;
  failed: number;
}

/** mongoimport's constructUpsertDocument: the --upsertFields values, or undefined if none is there. */
export function upsertSelector(fields: readonly string[], doc: Document): Document | undefined {
  const selector: Document = {};
  let found = false;
  for (const f of fields) {
    let at: unknown = doc;
    for (const p of f.split('.')) {
      if (at === null || typeof at !== 'object' || Array.isArray(at) || '_bsontype' in at) {
        at = undefined;
        break;
      }
      at = Object.prototype.hasOwnProperty.call(at, p) ? (at as Document)[p] : undefined;
    }
    if (at !== undefined) found = true;
    setField(selector, f, at === undefined ? null : at);
  }
  return found ? selector : undefined;
}

class Writer {
  private batch: AnyBulkWriteOperation<Document>[] = [];
  private bytes = 0;
  private readonly slots: Semaphore;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;
  readonly counts: ImportCounts = { succeeded: 0, failed: 0 };

  constructor(
    private readonly coll: Collection<Document>,
    private readonly o: ImportOptions,
    private readonly log: ToolLog,
  ) {
    this.slots = new Semaphore(o.ordered ? 1 : o.workers);
  }

  async add(doc: Document): Promise<void> {
    if (this.failure !== undefined) throw this.failure.error;
    const op = this.operation(doc);
    if (op === undefined) return;
    const size = BSON.calculateObjectSize(doc);
    if (this.batch.length > 0 && this.bytes + size > limits.importBatchBytesMax) await this.flush();
    this.batch.push(op);
    this.bytes += size;
    if (this.batch.length >= limits.importBatchDocsMax) await this.flush();
  }

  private operation(doc: Document): AnyBulkWriteOperation<Document> | undefined {
    const o = this.o;
    if (o.mode === 'insert') return { insertOne: { document: doc } };
    const selector = upsertSelector(o.upsertFields, doc);
    if (selector === undefined) {
      if (o.mode === 'delete') {
        this.log.info(
          `Could not construct selector from ${o.upsertFields.join(',')}, skipping document`,
        );
        return undefined;
      }
      this.log.info(
        `Could not construct selector from ${o.upsertFields.join(',')}, falling back to insert mode`,
      );
      return { insertOne: { document: doc } };
    }
    if (o.mode === 'upsert')
      return { replaceOne: { filter: selector, replacement: doc, upsert: true } };
    if (o.mode === 'merge')
      return { updateOne: { filter: selector, update: { $set: doc }, upsert: true } };
    return { deleteOne: { filter: selector } };
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const ops = this.batch;
    this.batch = [];
    this.bytes = 0;
    await this.slots.acquire();
    if (this.failure !== undefined) {
      this.slots.release();
      throw this.failure.error;
    }
    const p: Promise<void> = this.write(ops)
      .catch((e: unknown) => {
        this.failure ??= { error: e };
      })
      .finally(() => {
        this.slots.release();
        this.inFlight.delete(p);
      });
    this.inFlight.add(p);
    if (this.o.ordered) await p;
  }

  private count(r: BulkWriteResult | undefined): void {
    if (r === undefined) return;
    this.counts.succeeded += r.insertedCount + r.modifiedCount + r.upsertedCount + r.deletedCount;
  }

  private async write(ops: AnyBulkWriteOperation<Document>[]): Promise<void> {
    try {
      const r = await this.coll.bulkWrite(ops, {
        ordered: this.o.ordered,
        bypassDocumentValidation: this.o.bypassDocumentValidation || undefined,
        ...(this.o.writeConcern !== undefined ? { writeConcern: this.o.writeConcern } : {}),
      });
      this.count(r);
    } catch (e) {
      if (!(e instanceof MongoBulkWriteError)) {
        if (e instanceof MongoServerError) throw new ToolError(e.message);
        throw e;
      }
      this.count(e.result);
      const errors = Array.isArray(e.writeErrors) ? e.writeErrors : [e.writeErrors];
      this.counts.failed += errors.length;
      for (const w of errors) {
        if (this.o.stopOnError || !ignorableCodes.has(w.code))
          throw new ToolError(w.errmsg ?? e.message);
        this.log.info(`continuing through error: ${w.errmsg ?? ''}`);
      }
      if (e.writeConcernError !== undefined)
        throw new ToolError(`write concern error: ${e.message}`);
    }
  }

  async finish(): Promise<void> {
    if (this.failure === undefined) await this.flush().catch(() => undefined);
    await Promise.all([...this.inFlight]);
    if (this.failure !== undefined) throw this.failure.error;
  }
}

// ----- the run -----

export class Import {
  private readonly client: MongoClient;
  counts: ImportCounts = { succeeded: 0, failed: 0 };

  constructor(
    private readonly o: ImportOptions,
    private readonly log: ToolLog,
    private readonly io: ToolStreams,
  ) {
    this.client = new MongoClient(o.connection.uri, o.connection.clientOptions);
  }

  private async source(
    bar: (total: number) => ProgressBar,
  ): Promise<AsyncGenerator<InputDocument>> {
    const o = this.o;
    if (o.type === 'parquet') {
      let file: AsyncBuffer;
      if (o.file !== undefined) file = await asyncBufferFromFile(o.file);
      else {
        this.log.info('reading from stdin');
        const chunks: Buffer[] = [];
        for await (const c of this.io.stdin) chunks.push(Buffer.from(c as Uint8Array));
        const all = Buffer.concat(chunks);
        const ab = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
        file = { byteLength: ab.byteLength, slice: (s: number, e?: number) => ab.slice(s, e) };
      }
      let b: ProgressBar | undefined;
      return parquetDocuments(file, (done, total) => {
        b ??= bar(total);
        b.update(done);
        if (done >= total) b.stop();
      });
    }
    const read = (input: AsyncIterable<unknown>): AsyncGenerator<InputDocument> =>
      o.type === 'json'
        ? jsonDocuments(input, o.jsonArray)
        : o.type === 'csv'
          ? csvDocuments(input, o, this.log)
          : tsvDocuments(input, o, this.log);
    if (o.file === undefined) {
      this.log.info('reading from stdin');
      return read(this.io.stdin);
    }
    this.log.info(`filesize: ${(await stat(o.file)).size} bytes`);
    const counted = new Counted();
    const docs = read(createReadStream(o.file).pipe(counted));
    const b = bar((await stat(o.file)).size);
    return (async function* () {
      try {
        for await (const d of docs) {
          b.update(counted.bytes);
          yield d;
        }
        b.update(counted.bytes);
      } finally {
        b.stop();
      }
    })();
  }

  async run(): Promise<ImportCounts> {
    const o = this.o;
    try {
      if (o.file !== undefined)
        await stat(o.file).catch((e: unknown) => {
          throw new ToolError(
            `open ${o.file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : String(e)}`,
          );
        });
      await this.client.connect().catch((e: unknown) => {
        throw withContext(e, 'error connecting to host');
      });
      this.log.always(`connected to: ${sanitizeUri(o.connection.uri)}`);
      this.log.info(`ns: \`${o.db}.${o.collection}\``);
      const coll = this.client.db(o.db).collection<Document>(o.collection);
      if (o.drop) {
        this.log.always(`dropping: \`${o.db}.${o.collection}\``);
        await coll.drop().catch((e: unknown) => {
          if (e instanceof MongoServerError && e.code === 26) return;
          throw withContext(e, 'error dropping collection');
        });
      }
      const writer = new Writer(coll, o, this.log);
      this.counts = writer.counts;
      const docs = await this.source((total) =>
        this.log.bar(
          `${o.db}.${o.collection}`,
          total,
          o.type === 'parquet' ? 'documents' : 'bytes',
        ),
      );
      let inputError: unknown;
      try {
        for await (const d of docs) await writer.add(d.doc);
      } catch (e) {
        if (!(e instanceof InputError)) {
          await writer.finish().catch(() => undefined);
          throw e;
        }
        inputError = e;
      }
      await writer.finish();
      if (inputError !== undefined) throw inputError;
      return this.counts;
    } finally {
      this.log.stopBars();
      await this.client.close();
    }
  }
}

/** For `import` of a file: the collection named after it, as mongoimport. */
export function collectionFromFile(file: string): string {
  const base = basename(file);
  const dot = base.lastIndexOf('.');
  return dot === -1 ? base : base.slice(0, dot);
}
