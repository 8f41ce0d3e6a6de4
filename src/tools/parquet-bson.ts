// BSON documents as Parquet rows and back (docs/export-import.md has the table).
//
// Each top-level field is one column. A field whose values (in the documents the schema is
// inferred from) are all of one BSON type gets a typed column of that type: a double is a
// DOUBLE, a date a TIMESTAMP(MILLIS), an ObjectId its hex string, a UUID a 16-byte UUID, and so
// on. Anything else is a JSON column (Parquet logical type JSON) holding each value's canonical
// Extended JSON: nested documents and arrays, the types with no Parquet equivalent (regex,
// MinKey, ...), and fields of mixed types, which is the rule for them. A Parquet null is a
// missing field; in a typed column that is never missing but sometimes null it is a BSON null
// (said so in the metadata); a field both missing and null somewhere is a JSON column, where
// null is the JSON text `null`. The BSON type of every column is written in the file's
// key-value metadata (`secantus.bson`), so that secantus-import gets every value back with its
// type; Parquet files from elsewhere are read by their Parquet types.

import type { SchemaElement } from 'hyparquet';
import {
  Binary,
  BSONSymbol,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  ObjectId,
  Timestamp,
} from 'mongodb';
import type { Document } from './bson.js';
import { bsonTypeName } from '../bson/types.js';
import type { BsonValue } from '../bson/types.js';
import { canonicalJson, parseExtendedJson } from './ejson-text.js';
import { ToolError } from './tool-error.js';
import { limits } from '../limits.js';

/** Sets a field as data, whatever its name (`__proto__` included). */
export function setField(doc: Document, name: string, value: unknown): void {
  Object.defineProperty(doc, name, { value, enumerable: true, writable: true, configurable: true });
}

/** Key of the file metadata entry describing the columns' BSON types. */
export const metadataKey = 'secantus.bson';

export type ColumnKind =
  | 'double'
  | 'int'
  | 'long'
  | 'bool'
  | 'string'
  | 'javascript'
  | 'symbol'
  | 'objectId'
  | 'decimal'
  | 'date'
  | 'uuid'
  | 'binary'
  | 'timestamp'
  | 'json';

export interface ColumnPlan {
  readonly name: string;
  readonly kind: ColumnKind;
  /** Binary subtype of a `binary` column. */
  readonly subtype?: number;
  /** What a Parquet null stands for in a typed column. */
  readonly nulls: 'missing' | 'null';
}

export interface FileDescription {
  readonly version: 1;
  readonly columns: readonly ColumnPlan[];
}

/**
 * A value's BSON type as the schema rule sees it: the `$type` name of bsonTypeName, except that
 * a missing value is 'null', a JS number is an int when integer-valued (else a double), a bigint
 * a long, a 16-byte subtype-4 binary 'uuid' and any other binary 'binary:<subtype>'.
 */
export function bsonKind(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (typeof v === 'bigint') return 'long';
  if (typeof v === 'function' || typeof v === 'symbol') return 'object';
  if (typeof v === 'object' && (v as { _bsontype?: unknown })._bsontype === 'Binary') {
    const b = v as Binary;
    return b.sub_type === 4 && b.length() === 16 ? 'uuid' : `binary:${b.sub_type}`;
  }
  return bsonTypeName(v as BsonValue);
}

/** Kinds with a typed column of their own. */
const typedKinds = new Set<string>([
  'double',
  'int',
  'long',
  'bool',
  'string',
  'javascript',
  'symbol',
  'objectId',
  'decimal',
  'date',
  'uuid',
  'timestamp',
]);

interface FieldStats {
  kinds: Set<string>;
  present: number;
  nulls: number;
}

/** Infers the columns from documents, one at a time. */
export class SchemaBuilder {
  private readonly fields = new Map<string, FieldStats>();
  private docs = 0;

  observe(doc: Document): void {
    this.docs++;
    for (const [name, v] of Object.entries(doc)) {
      if (v === undefined) continue;
      let s = this.fields.get(name);
      if (s === undefined) {
        if (this.fields.size >= limits.parquetColumnsMax)
          throw new ToolError(
            `a Parquet export has at most ${limits.parquetColumnsMax} columns (distinct top-level fields)`,
          );
        s = { kinds: new Set(), present: 0, nulls: 0 };
        this.fields.set(name, s);
      }
      s.present++;
      const k = bsonKind(v);
      if (k === 'null') s.nulls++;
      else s.kinds.add(k);
    }
  }

  get count(): number {
    return this.docs;
  }

  build(): ColumnPlan[] {
    const out: ColumnPlan[] = [];
    for (const [name, s] of this.fields) {
      const missing = s.present < this.docs;
      const only = s.kinds.size === 1 ? ([...s.kinds][0] as string) : undefined;
      const ambiguous = missing && s.nulls > 0;
      const nulls = s.nulls > 0 ? 'null' : 'missing';
      if (only !== undefined && !ambiguous) {
        if (typedKinds.has(only)) {
          out.push({ name, kind: only as ColumnKind, nulls });
          continue;
        }
        if (only.startsWith('binary:')) {
          out.push({ name, kind: 'binary', subtype: Number(only.slice(7)), nulls });
          continue;
        }
      }
      out.push({ name, kind: 'json', nulls: 'missing' });
    }
    return out;
  }
}

/** The Parquet schema of the columns (all optional). */
export function parquetSchema(columns: readonly ColumnPlan[]): SchemaElement[] {
  const root: SchemaElement = { name: 'root', num_children: columns.length };
  return [
    root,
    ...columns.map((c): SchemaElement => {
      const base = { name: c.name, repetition_type: 'OPTIONAL' as const };
      switch (c.kind) {
        case 'double':
          return { ...base, type: 'DOUBLE' };
        case 'int':
          return { ...base, type: 'INT32' };
        case 'long':
          return { ...base, type: 'INT64' };
        case 'bool':
          return { ...base, type: 'BOOLEAN' };
        case 'string':
        case 'javascript':
        case 'symbol':
        case 'objectId':
        case 'decimal':
          return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
        case 'date':
          return { ...base, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS' };
        case 'uuid':
          return {
            ...base,
            type: 'FIXED_LEN_BYTE_ARRAY',
            type_length: 16,
            logical_type: { type: 'UUID' },
          };
        case 'binary':
          return { ...base, type: 'BYTE_ARRAY' };
        case 'timestamp':
          return { ...base, type: 'INT64', converted_type: 'UINT_64' };
        case 'json':
          return { ...base, type: 'BYTE_ARRAY', logical_type: { type: 'JSON' } };
      }
    }),
  ];
}

const encoder = new TextEncoder();

function mismatch(c: ColumnPlan, v: unknown, row: number): ToolError {
  return new ToolError(
    `document #${row}: field ${JSON.stringify(c.name)} is ${bsonKind(v)}, but its Parquet column ` +
      `was inferred as ${c.kind} from the documents sampled; export with --parquetSampleSize=0 ` +
      `to infer the schema from every document`,
  );
}

/** One column's Parquet value for a document's field value. */
function toParquet(c: ColumnPlan, v: unknown, row: number): unknown {
  if (v === undefined) return null;
  if (c.kind === 'json')
    return encoder.encode(v === null ? 'null' : canonicalJson({ v }).slice(5, -1));
  if (v === null) {
    if (c.nulls === 'null') return null;
    throw mismatch(c, v, row);
  }
  const kind = bsonKind(v);
  if (c.kind === 'binary' ? kind !== `binary:${c.subtype}` : kind !== c.kind)
    throw mismatch(c, v, row);
  switch (c.kind) {
    case 'double':
      return (v as Double).valueOf();
    case 'int':
      return (v as Int32).valueOf();
    case 'long':
      return (v as Long).toBigInt();
    case 'bool':
      return v;
    case 'string':
      return v;
    case 'javascript':
      return (v as Code).code;
    case 'symbol':
      return (v as BSONSymbol).valueOf();
    case 'objectId':
      return (v as ObjectId).toHexString();
    case 'decimal':
      return (v as Decimal128).toString();
    case 'date':
      return BigInt((v as Date).getTime());
    case 'uuid':
    case 'binary':
      return new Uint8Array((v as Binary).value());
    case 'timestamp': {
      const t = v as Timestamp;
      return (BigInt(t.high >>> 0) << 32n) | BigInt(t.low >>> 0); // UINT_64: unsigned
    }
  }
}

/** The column arrays of a batch of documents (row numbers from `firstRow`, for messages). */
export function columnData(
  columns: readonly ColumnPlan[],
  docs: readonly Document[],
  firstRow: number,
): Array<{ name: string; data: unknown[] }> {
  const names = new Set(columns.map((c) => c.name));
  docs.forEach((d, i) => {
    for (const k of Object.keys(d))
      if (!names.has(k) && d[k] !== undefined)
        throw new ToolError(
          `document #${firstRow + i}: field ${JSON.stringify(k)} is not in the Parquet schema inferred ` +
            `from the documents sampled; export with --parquetSampleSize=0 to infer it from every document`,
        );
  });
  return columns.map((c) => ({
    name: c.name,
    data: docs.map((d, i) =>
      toParquet(
        c,
        Object.prototype.hasOwnProperty.call(d, c.name) ? d[c.name] : undefined,
        firstRow + i,
      ),
    ),
  }));
}

// ----- reading -----

const decoder = new TextDecoder();

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return decoder.decode(v);
  return String(v);
}

function bytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return encoder.encode(v);
  throw new ToolError(`expected bytes in a Parquet column, found ${typeof v}`);
}

function bigint(v: unknown): bigint {
  return typeof v === 'bigint' ? v : BigInt(v as number);
}

/** A field value of one of our columns, or undefined for a missing field. */
export function fromOurColumn(c: ColumnPlan, v: unknown): unknown {
  if (v === null || v === undefined)
    return c.nulls === 'null' && c.kind !== 'json' ? null : undefined;
  switch (c.kind) {
    case 'json':
      return parseExtendedJson(text(v));
    case 'double':
      return new Double(Number(v));
    case 'int':
      return new Int32(Number(v));
    case 'long':
      return Long.fromBigInt(BigInt.asIntN(64, bigint(v)));
    case 'bool':
      return v === true;
    case 'string':
      return text(v);
    case 'javascript':
      return new Code(text(v));
    case 'symbol':
      return new BSONSymbol(text(v));
    case 'objectId':
      return ObjectId.createFromHexString(text(v));
    case 'decimal':
      return Decimal128.fromString(text(v));
    case 'date':
      return new Date(Number(bigint(v)));
    case 'uuid':
      return new Binary(bytes(v), 4);
    case 'binary':
      return new Binary(bytes(v), c.subtype ?? 0);
    case 'timestamp': {
      const u = BigInt.asUintN(64, bigint(v));
      return new Timestamp({ t: Number(u >> 32n), i: Number(u & 0xffffffffn) });
    }
  }
}

/** A value of a Parquet file written elsewhere, by its JavaScript shape. */
export function fromForeignValue(v: unknown, element: SchemaElement | undefined): unknown {
  if (v === null || v === undefined) return undefined;
  const type = element?.type;
  if (type === 'DOUBLE' || type === 'FLOAT') return new Double(Number(v));
  if (element?.converted_type === 'DECIMAL' && typeof v === 'number')
    return Decimal128.fromString(String(v));
  if (element?.converted_type === 'JSON' || element?.logical_type?.type === 'JSON')
    return typeof v === 'string' || v instanceof Uint8Array
      ? parseExtendedJson(text(v))
      : jsToBson(v);
  if (element?.logical_type?.type === 'UUID' && typeof v === 'string')
    return new Binary(Buffer.from(v.replace(/-/g, ''), 'hex'), 4);
  return jsToBson(v);
}

function jsToBson(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= -2147483648 && v <= 2147483647) return new Int32(v);
    if (Number.isSafeInteger(v)) return Long.fromNumber(v);
    return new Double(v);
  }
  if (typeof v === 'bigint') {
    if (v >= -(2n ** 63n) && v < 2n ** 63n) return Long.fromBigInt(v);
    return new Double(Number(v));
  }
  if (typeof v === 'string' || typeof v === 'boolean' || v instanceof Date) return v;
  if (v instanceof Uint8Array) return new Binary(v, 0);
  if (Array.isArray(v)) return v.map(jsToBson);
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<unknown>, jsToBson);
  if (typeof v === 'object') {
    const out: Document = {};
    for (const [k, x] of Object.entries(v as Document)) setField(out, k, jsToBson(x));
    return out;
  }
  return String(v);
}

/** Reads our metadata entry, if the file has one. */
export function describedColumns(
  kv: ReadonlyArray<{ key: string; value?: string }> | undefined,
): ColumnPlan[] | undefined {
  const entry = kv?.find((e) => e.key === metadataKey);
  if (entry?.value === undefined) return undefined;
  let parsed: FileDescription;
  try {
    parsed = JSON.parse(entry.value) as FileDescription;
  } catch {
    throw new ToolError(`the Parquet file's ${metadataKey} metadata is not valid JSON`);
  }
  if (parsed.version !== 1 || !Array.isArray(parsed.columns))
    throw new ToolError(`the Parquet file's ${metadataKey} metadata is of an unknown version`);
  return [...parsed.columns];
}
