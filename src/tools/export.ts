// secantus-export: mongoexport over the official driver, plus Parquet. One collection, read
// with a find (--query, --sort, --skip, --limit, --fields as projection), written to --out or
// standard output as
// - json: Extended JSON (relaxed, or canonical with --jsonFormat=canonical), one document a
//   line, or one array with --jsonArray; --pretty indents with tabs, as mongoexport;
// - csv: the --fields columns (dotted paths reach into documents and arrays), values printed
//   as mongoexport prints them (ObjectId(hex), ISO dates, JSON for documents and arrays);
// - parquet: see parquet-bson.ts. The schema is inferred from a first read of the same find
//   (every document, or the first --parquetSampleSize), then the find is read again and written
//   in row groups, so memory holds one row group. Both reads are at one snapshot (a snapshot
//   session) where the server has snapshot reads.
// Log lines on standard error as mongoexport's: "connected to: ...", "exported N records".

import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { BSON, MongoClient, MongoError } from 'mongodb';
import type { AggregateOptions, ClientSession, Collection, FindOptions } from 'mongodb';
import { limits } from '../limits.js';
import { rawDecodeOptions } from './bson.js';
import type { Document } from './bson.js';
import type { Connection } from './cli-options.js';
import { toolVersion } from './cli-options.js';
import { canonicalJson, goFloat, relaxedJson } from './ejson-text.js';
import { prepareOutputFile, sanitizeUri, writeOut } from './io-common.js';
import { bsonKind, columnData, metadataKey, parquetSchema, SchemaBuilder } from './parquet-bson.js';
import type { ColumnPlan } from './parquet-bson.js';
import { ToolError, withContext } from './tool-error.js';
import type { ToolLog, ToolStreams } from './tool-log.js';

export type ExportType = 'json' | 'csv' | 'parquet';

export interface ExportOptions {
  readonly connection: Connection;
  readonly db: string;
  readonly collection: string;
  readonly query: Document | undefined;
  /**
   * --pipeline / --pipelineFile: export what this aggregation returns instead of a find (our
   * extension: mongoexport has none). Exclusive with --query, --sort and --skip.
   */
  readonly pipeline?: readonly Document[] | undefined;
  readonly sort: Document | undefined;
  readonly skip: number;
  readonly limit: number;
  /** --fields / --fieldFile, as given (CSV columns; a projection for every type). */
  readonly fields: readonly string[] | undefined;
  readonly type: ExportType;
  readonly jsonArray: boolean;
  readonly pretty: boolean;
  readonly jsonFormat: 'relaxed' | 'canonical';
  readonly noHeaderLine: boolean;
  readonly out: string | undefined;
  readonly assertExists: boolean;
  /** Documents the Parquet schema is inferred from; 0: all of them. */
  readonly parquetSampleSize: number;
}

/** mongoexport's projection for --fields: each field's first part, and _id. */
export function projectionFor(fields: readonly string[]): Document {
  const p: Document = { _id: 1 };
  for (let f of fields) {
    const i = f.lastIndexOf('.');
    if (i !== -1 && f.slice(i + 1) !== '$') f = f.slice(0, f.indexOf('.'));
    p[f] = 1;
  }
  return p;
}

interface DocumentWriter {
  header(): Promise<void>;
  document(doc: Document, n: number): Promise<void>;
  footer(): Promise<void>;
}

// ----- JSON -----

/** Go's json.Indent(prefix "", indent "\t") of compact JSON text. */
export function indentJson(text: string): string {
  let out = '';
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        out += c;
        break;
      case '{':
      case '[': {
        const close = c === '{' ? '}' : ']';
        if (text[i + 1] === close) {
          out += c + close;
          i++;
          break;
        }
        depth++;
        out += `${c}\n${'\t'.repeat(depth)}`;
        break;
      }
      case '}':
      case ']':
        depth--;
        out += `\n${'\t'.repeat(depth)}${c}`;
        break;
      case ',':
        out += `,\n${'\t'.repeat(depth)}`;
        break;
      case ':':
        out += ': ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

class JsonWriter implements DocumentWriter {
  constructor(
    private readonly out: Writable,
    private readonly o: ExportOptions,
  ) {}

  async header(): Promise<void> {
    if (this.o.jsonArray) await writeOut(this.out, '[');
  }

  async document(doc: Document, n: number): Promise<void> {
    let text = this.o.jsonFormat === 'canonical' ? canonicalJson(doc) : relaxedJson(doc);
    if (this.o.pretty) text = indentJson(text);
    if (this.o.jsonArray || this.o.pretty) {
      let sep = '';
      if (n > 0) sep = (this.o.jsonArray ? ',' : '') + (this.o.pretty ? '\n' : '');
      await writeOut(this.out, sep + text);
    } else await writeOut(this.out, `${text}\n`);
  }

  async footer(): Promise<void> {
    if (this.o.jsonArray) await writeOut(this.out, ']\n');
    if (this.o.pretty) await writeOut(this.out, '\n');
  }
}

// ----- CSV -----

/** Go's encoding/csv quoting. */
export function csvField(s: string): string {
  if (s === '') return s;
  const needs = s === '\\.' || /[",\r\n]/.test(s) || /^[\s]/u.test(s);
  return needs ? `"${s.replace(/"/g, '""')}"` : s;
}

function hexUpper(b: Uint8Array): string {
  return Buffer.from(b).toString('hex').toUpperCase();
}

/** A value as mongoexport prints it in a CSV cell. */
export function csvValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return goFloat(v, false);
  if (Array.isArray(v)) return relaxedJson(v);
  if (v instanceof Date) {
    const y = v.getUTCFullYear();
    if (!Number.isNaN(v.getTime()) && y >= 0 && y <= 9999) return v.toISOString();
    return `{"$date":${JSON.stringify(String(v.getTime()))}}`;
  }
  const k = bsonKind(v);
  const any = v as Record<string, unknown> & { toString(): string };
  switch (k) {
    case 'double': {
      const f = (v as { value: number }).value;
      if (Number.isNaN(f)) return 'NaN';
      if (f === Infinity) return '+Inf';
      if (f === -Infinity) return '-Inf';
      return goFloat(f, false);
    }
    case 'int':
    case 'long':
    case 'decimal':
      return any.toString();
    case 'objectId':
      return `ObjectId(${any.toString()})`;
    case 'javascript':
    case 'javascriptWithScope':
      return String((v as { code: string }).code);
    case 'symbol':
      return String((v as { value: string }).value);
    case 'regex':
      return `/${String(any['pattern'])}/${String(any['options'])}`;
    case 'timestamp': {
      const t = v as { high: number; low: number };
      return `{ "$timestamp": { "t": ${t.high >>> 0}, "i": ${t.low >>> 0} } }`;
    }
    case 'minKey':
      return '$MinKey';
    case 'maxKey':
      return '$MaxKey';
    case 'object':
      return relaxedJson(v);
    default:
      if (k === 'uuid' || k.startsWith('binary:')) {
        const b = v as { sub_type: number; value(): Uint8Array };
        const data = b.value();
        return hexUpper(b.sub_type === 2 ? data.subarray(4) : data);
      }
      return relaxedJson(v);
  }
}

/** mongoexport's extractFieldByName: dotted paths through documents and array indexes. */
export function fieldByPath(doc: unknown, path: string): unknown {
  let at: unknown = doc;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return '';
    if (Array.isArray(at)) {
      if (!/^-?\d+$/.test(part)) return '';
      const i = Number(part);
      if (i < 0 || i >= at.length) return '';
      at = at[i];
    } else if (bsonKind(at) === 'object') {
      if (!Object.prototype.hasOwnProperty.call(at, part)) return '';
      at = (at as Document)[part];
    } else return '';
  }
  return at;
}

class CsvWriter implements DocumentWriter {
  private readonly columns: string[];

  constructor(
    private readonly out: Writable,
    private readonly o: ExportOptions,
  ) {
    if (o.fields === undefined || o.fields.length === 0)
      throw new ToolError('CSV mode requires a field list');
    this.columns = o.fields.map((f) => (f.endsWith('.$') ? f.slice(0, -2) : f));
  }

  async header(): Promise<void> {
    if (!this.o.noHeaderLine) await writeOut(this.out, `${this.columns.map(csvField).join(',')}\n`);
  }

  async document(doc: Document): Promise<void> {
    const row = this.columns.map((f) => csvField(csvValue(fieldByPath(doc, f))));
    await writeOut(this.out, `${row.join(',')}\n`);
  }

  async footer(): Promise<void> {}
}

// ----- Parquet -----

/** hyparquet-writer's writer, sending each row group's bytes to a stream. */
class StreamByteWriter extends ByteWriter {
  constructor(private readonly out: Writable) {
    super(1 << 20);
  }

  private drain(): Promise<void> {
    const bytes = new Uint8Array(this.buffer.slice(0, this.index));
    this.index = 0;
    return writeOut(this.out, bytes);
  }

  flush(): Promise<void> {
    return this.drain();
  }

  override finish(): void {
    // ParquetWriter.finish() returns what this returns; the promise is awaited by the caller.
    this.pending = this.drain();
  }

  pending: Promise<void> = Promise.resolve();
}

class ParquetDocumentWriter implements DocumentWriter {
  private readonly bytes: StreamByteWriter;
  private readonly writer: ParquetWriter;
  private rows: Document[] = [];
  private rowBytes = 0;
  private firstRow = 1;

  constructor(
    out: Writable,
    private readonly columns: ColumnPlan[],
  ) {
    this.bytes = new StreamByteWriter(out);
    this.writer = new ParquetWriter({
      writer: this.bytes,
      schema: parquetSchema(columns),
      kvMetadata: [{ key: metadataKey, value: JSON.stringify({ version: 1, columns }) }],
      createdBy: `secantus-export version ${toolVersion}`,
    });
  }

  async header(): Promise<void> {}

  async document(doc: Document): Promise<void> {
    this.rows.push(doc);
    this.rowBytes += BSON.calculateObjectSize(doc);
    if (
      this.rows.length >= limits.parquetRowGroupRowsMax ||
      this.rowBytes >= limits.parquetRowGroupBytesMax
    )
      await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.rows.length === 0) return;
    const rows = this.rows;
    this.rows = [];
    this.rowBytes = 0;
    const data = columnData(this.columns, rows, this.firstRow);
    this.firstRow += rows.length;
    await this.writer.write({
      columnData: data as Parameters<ParquetWriter['write']>[0]['columnData'],
      rowGroupSize: rows.length,
    });
  }

  async footer(): Promise<void> {
    await this.flush();
    // JSON columns are written from our own bytes (hyparquet-writer would JSON.stringify the
    // values of a column annotated JSON), and annotated in the footer only: readers such as
    // DuckDB go by the converted type, which does not change how the pages are encoded.
    for (const el of this.writer.schema)
      if (el.logical_type?.type === 'JSON') el.converted_type = 'JSON';
    await this.writer.finish();
    await this.bytes.pending;
  }
}

// ----- the run -----

export class Export {
  private readonly client: MongoClient;

  constructor(
    private readonly o: ExportOptions,
    private readonly log: ToolLog,
    private readonly io: ToolStreams,
  ) {
    this.client = new MongoClient(o.connection.uri, o.connection.clientOptions);
  }

  /** Parquet's two reads (schema, rows) share one snapshot where the server has them. */
  private session: ClientSession | undefined;

  private findOptions(limit: number): FindOptions {
    const o = this.o;
    const f: FindOptions = { ...rawDecodeOptions, batchSize: limits.dumpCursorBatchDocs };
    if (this.session !== undefined) f.session = this.session;
    if (o.sort !== undefined) f.sort = o.sort;
    if (o.skip > 0) f.skip = o.skip;
    if (limit > 0) f.limit = limit;
    if (o.fields !== undefined && o.fields.length > 0) f.projection = projectionFor(o.fields);
    return f;
  }

  /**
   * The documents to export: the find of --query/--sort/--skip/--limit/--fields, or the
   * aggregation of --pipeline (then --limit and --fields are a final $limit and $project).
   */
  private documents(coll: Collection<Document>, limit: number): AsyncIterable<Document> {
    const o = this.o;
    if (o.pipeline === undefined) return coll.find(o.query ?? {}, this.findOptions(limit));
    const stages: Document[] = [...o.pipeline];
    if (limit > 0) stages.push({ $limit: limit });
    if (o.fields !== undefined && o.fields.length > 0)
      stages.push({ $project: projectionFor(o.fields) });
    const options: AggregateOptions = {
      ...rawDecodeOptions,
      batchSize: limits.dumpCursorBatchDocs,
      allowDiskUse: true,
    };
    if (this.session !== undefined) options.session = this.session;
    return coll.aggregate(stages, options);
  }

  /** Reads the collection once to infer the Parquet columns. */
  private async inferColumns(coll: Collection<Document>): Promise<ColumnPlan[]> {
    const o = this.o;
    const sample = o.parquetSampleSize;
    const limit = sample > 0 && (o.limit === 0 || sample < o.limit) ? sample : o.limit;
    const schema = new SchemaBuilder();
    this.session = this.client.startSession({ snapshot: true });
    try {
      for await (const doc of this.documents(coll, limit)) schema.observe(doc);
      this.log.info('the schema and the rows are read at one snapshot');
    } catch (e) {
      if (!(e instanceof MongoError) || schema.count > 0) throw e;
      await this.session.endSession();
      this.session = undefined;
      this.log.always(
        `the server cannot read at a snapshot (${e.message}); the schema and the rows are read one after the other`,
      );
      for await (const doc of this.documents(coll, limit)) schema.observe(doc);
    }
    this.log.info(
      `inferred the Parquet schema from ${schema.count} document${schema.count === 1 ? '' : 's'}`,
    );
    return schema.build();
  }

  async run(): Promise<number> {
    const o = this.o;
    let out: Writable = this.io.stdout;
    let file: ReturnType<typeof createWriteStream> | undefined;
    try {
      await this.client.connect().catch((e: unknown) => {
        throw withContext(e, "can't create session: could not connect to server");
      });
      this.log.always(`connected to: ${sanitizeUri(o.connection.uri)}`);
      if (o.out !== undefined) {
        await prepareOutputFile(o.out);
        file = createWriteStream(o.out);
        await new Promise<void>((resolve, reject) => {
          file?.once('open', () => resolve());
          file?.once('error', (e) =>
            reject(new ToolError(`error opening output stream: ${e.message}`)),
          );
        });
        out = file;
      }
      const n = await this.exportTo(out);
      if (file !== undefined) {
        const f = file;
        file = undefined;
        await new Promise<void>((resolve, reject) => {
          f.end((e?: Error | null) => (e ? reject(e) : resolve()));
        });
      }
      this.log.always(`exported ${n} record${n === 1 ? '' : 's'}`);
      return n;
    } finally {
      this.log.stopBars();
      file?.destroy();
      await this.session?.endSession();
      await this.client.close();
    }
  }

  private async exportTo(out: Writable): Promise<number> {
    const o = this.o;
    const db = this.client.db(o.db);
    const infos = await db.listCollections({ name: o.collection }, { nameOnly: true }).toArray();
    if (infos.length === 0) {
      if (o.assertExists) throw new ToolError(`collection \`${o.collection}\` does not exist`);
      if (o.type !== 'parquet') return 0;
    }
    const coll = db.collection<Document>(o.collection);
    let total = o.limit;
    if (total === 0 && o.query === undefined && o.pipeline === undefined && infos.length > 0) {
      total = Math.max(0, (await coll.estimatedDocumentCount()) - o.skip);
    }
    let writer: DocumentWriter;
    if (o.type === 'csv') writer = new CsvWriter(out, o);
    else if (o.type === 'json') writer = new JsonWriter(out, o);
    else writer = new ParquetDocumentWriter(out, await this.inferColumns(coll));
    const bar = this.log.bar(`${o.db}.${o.collection}`, total);
    let n = 0;
    try {
      await writer.header();
      for await (const doc of this.documents(coll, o.limit)) {
        await writer.document(doc, n);
        n++;
        if (n % 1000 === 0) bar.update(n);
      }
      bar.update(n);
      await writer.footer();
    } finally {
      bar.stop();
    }
    return n;
  }
}

export async function runExport(o: ExportOptions, log: ToolLog, io: ToolStreams): Promise<number> {
  return new Export(o, log, io).run();
}
