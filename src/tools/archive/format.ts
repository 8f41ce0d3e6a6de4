// The mongodump archive format (mongo-tools, common/archive/spec.md), version "0.1":
//
//   archive    = magic prelude *(segment | eof)
//   magic      = 0x8199e26d as 4 little-endian bytes (6d e2 99 81)
//   prelude    = header *collection-metadata terminator
//   segment    = namespace-header *document terminator
//   eof        = eof-header terminator
//   terminator = ff ff ff ff
//
// header: {concurrent_collections: int32, version: "0.1", server_version, tool_version}.
// collection-metadata: {db, collection, metadata: <the .metadata.json text>, size: int,
// type: "collection" | "view" | "timeseries" | ""}. namespace-header: {db, collection,
// EOF: false, CRC: int64 0}; eof-header: {db, collection, EOF: true, CRC: int64 CRC-64 of
// every document of the namespace}. A namespace's documents may be split over several
// segments, interleaved with other namespaces'. The oplog is the namespace db "", collection
// "oplog". Every namespace of the prelude ends with an eof-header, views and empty
// collections too (after a segment without documents, as mongodump writes them).

import {
  deserialize,
  Double,
  Int32,
  Long,
  rawDecodeOptions as decodeOptions,
  serialize,
} from '../bson.js';
import { ToolError } from '../tool-error.js';

export const archiveMagic = 0x8199e26d;
export const archiveTerminator = 0xffffffff;
export const archiveFormatVersion = '0.1';

export interface ArchiveHeader {
  readonly concurrentCollections: number;
  readonly version: string;
  readonly serverVersion: string;
  readonly toolVersion: string;
}

export interface ArchiveCollection {
  readonly db: string;
  readonly collection: string;
  /** The collection's metadata as canonical Extended JSON; empty for the oplog. */
  readonly metadata: string;
  readonly size: number;
  readonly type: string;
}

/**
 * The namespace an entry's documents come under: a time-series collection's entry names the
 * collection, its segments its buckets collection (mongo-tools' DataCollection).
 */
export function dataCollectionOf(c: Pick<ArchiveCollection, 'collection' | 'type'>): string {
  return c.type === 'timeseries' ? `system.buckets.${c.collection}` : c.collection;
}

export interface NamespaceHeader {
  readonly db: string;
  readonly collection: string;
  readonly eof: boolean;
  /** Unsigned 64-bit CRC (stored as the int64 with the same bits). */
  readonly crc: bigint;
}

export function magicBytes(): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(archiveMagic, 0);
  return b;
}

export function terminatorBytes(): Buffer {
  return Buffer.from([0xff, 0xff, 0xff, 0xff]);
}

export function encodeHeader(h: ArchiveHeader): Buffer {
  return Buffer.from(
    serialize({
      concurrent_collections: new Int32(h.concurrentCollections),
      version: h.version,
      server_version: h.serverVersion,
      tool_version: h.toolVersion,
    }),
  );
}

export function encodeCollection(c: ArchiveCollection): Buffer {
  // Go encodes an int as int32 when it fits.
  const size =
    Number.isSafeInteger(c.size) && Math.abs(c.size) < 2 ** 31
      ? new Int32(c.size)
      : Long.fromNumber(c.size);
  return Buffer.from(
    serialize({ db: c.db, collection: c.collection, metadata: c.metadata, size, type: c.type }),
  );
}

export function encodeNamespaceHeader(h: NamespaceHeader): Buffer {
  return Buffer.from(
    serialize({
      db: h.db,
      collection: h.collection,
      EOF: h.eof,
      CRC: Long.fromBigInt(BigInt.asIntN(64, h.crc)),
    }),
  );
}

function decoded(bytes: Buffer, what: string): Record<string, unknown> {
  try {
    return deserialize(bytes, decodeOptions) as Record<string, unknown>;
  } catch (e) {
    throw new ToolError(`${what} is not valid BSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function integer(v: unknown): number | undefined {
  if (v instanceof Int32) return v.value;
  if (v instanceof Long) return v.toNumber();
  if (v instanceof Double) return Number.isInteger(v.value) ? v.value : undefined;
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

function stringField(
  doc: Record<string, unknown>,
  key: string,
  what: string,
  required: boolean,
): string {
  const v = Object.prototype.hasOwnProperty.call(doc, key) ? doc[key] : undefined;
  if (v === undefined && !required) return '';
  if (typeof v !== 'string') throw new ToolError(`${what}: field "${key}" is not a string`);
  return v;
}

export function decodeHeader(bytes: Buffer): ArchiveHeader {
  const what = 'archive header';
  const d = decoded(bytes, what);
  const concurrent = integer(d['concurrent_collections']);
  if (d['concurrent_collections'] !== undefined && concurrent === undefined)
    throw new ToolError(`${what}: field "concurrent_collections" is not an integer`);
  return {
    concurrentCollections: concurrent ?? 0,
    version: stringField(d, 'version', what, false),
    serverVersion: stringField(d, 'server_version', what, false),
    toolVersion: stringField(d, 'tool_version', what, false),
  };
}

export function decodeCollection(bytes: Buffer): ArchiveCollection {
  const what = 'archive prelude collection metadata';
  const d = decoded(bytes, what);
  const size = integer(d['size']);
  if (d['size'] !== undefined && size === undefined)
    throw new ToolError(`${what}: field "size" is not an integer`);
  return {
    db: stringField(d, 'db', what, false),
    collection: stringField(d, 'collection', what, true),
    metadata: stringField(d, 'metadata', what, false),
    size: size ?? 0,
    type: stringField(d, 'type', what, false),
  };
}

/** A namespace or EOF header; unknown fields and wrong types are errors, as in mongorestore. */
export function decodeNamespaceHeader(bytes: Buffer): NamespaceHeader {
  const what = 'namespace header';
  const d = decoded(bytes, what);
  let db = '';
  let collection = '';
  let eof = false;
  let crc = 0n;
  for (const [k, v] of Object.entries(d)) {
    if (k === 'db' || k === 'collection') {
      if (typeof v !== 'string') throw new ToolError(`${what}: field "${k}" is not a string`);
      if (k === 'db') db = v;
      else collection = v;
    } else if (k === 'EOF') {
      if (typeof v !== 'boolean') throw new ToolError(`${what}: field "EOF" is not a boolean`);
      eof = v;
    } else if (k === 'CRC') {
      if (!(v instanceof Long)) throw new ToolError(`${what}: field "CRC" is not an int64`);
      crc = BigInt.asUintN(64, v.toBigInt());
    } else throw new ToolError(`${what}: unknown field "${k}"`);
  }
  if (collection === '') throw new ToolError('collection header is missing a collection name');
  return { db, collection, eof, crc };
}

export function namespaceOf(db: string, collection: string): string {
  return `${db}.${collection}`;
}
