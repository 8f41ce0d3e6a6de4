// Test helpers for secantus-dump, secantus-restore, secantus-export and secantus-import: run a tool's main in-process with
// captured streams, and read a server's contents as raw bytes for exact comparison.

import { PassThrough, Readable } from 'node:stream';
import type { Writable } from 'node:stream';
import { BSON } from 'mongodb';
import type { Document, MongoClient } from 'mongodb';
import { dumpMain } from '../../src/tools/dump-cli.js';
import { exportMain } from '../../src/tools/export-cli.js';
import { importMain } from '../../src/tools/import-cli.js';
import { restoreMain } from '../../src/tools/restore-cli.js';

export interface ToolRun {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

export interface RunOptions {
  readonly stdin?: Buffer;
  /** Pretend standard error is a terminal (progress bars). */
  readonly tty?: boolean;
  /** Called with each chunk of standard error as it is written. */
  readonly onStderr?: (text: string) => void;
}

function collector(
  tty: boolean,
  onText?: (t: string) => void,
): { stream: Writable; chunks: Buffer[] } {
  const chunks: Buffer[] = [];
  const stream = new PassThrough();
  stream.on('data', (d: Buffer) => {
    chunks.push(d);
    onText?.(d.toString());
  });
  if (tty)
    Object.assign(stream, {
      isTTY: true,
      columns: 120,
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
    });
  return { stream, chunks };
}

async function run(
  main: typeof dumpMain,
  argv: readonly string[],
  options: RunOptions,
): Promise<ToolRun> {
  const out = collector(false);
  const err = collector(options.tty === true, options.onStderr);
  const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]);
  const code = await main(argv, {
    stdout: out.stream,
    stderr: err.stream,
    stdin: stdin as unknown as NodeJS.ReadableStream & AsyncIterable<unknown>,
  });
  await new Promise((r) => setImmediate(r));
  return { code, stdout: Buffer.concat(out.chunks), stderr: Buffer.concat(err.chunks).toString() };
}

export function dump(argv: readonly string[], options: RunOptions = {}): Promise<ToolRun> {
  return run(dumpMain, argv, options);
}

export function restore(argv: readonly string[], options: RunOptions = {}): Promise<ToolRun> {
  return run(restoreMain, argv, options);
}

/** secantus-export, in-process. */
export function exportTool(argv: readonly string[], options: RunOptions = {}): Promise<ToolRun> {
  return run(exportMain, argv, options);
}

/** secantus-import, in-process. */
export function importTool(argv: readonly string[], options: RunOptions = {}): Promise<ToolRun> {
  return run(importMain, argv, options);
}

const raw = {
  promoteValues: false,
  promoteLongs: false,
  promoteBuffers: false,
  bsonRegExp: true,
} as const;

/** Every document of a collection as its stored bytes, in _id order. */
export async function rawDocuments(
  client: MongoClient,
  db: string,
  collection: string,
): Promise<Buffer[]> {
  const docs = await client
    .db(db)
    .collection(collection)
    .find({}, { raw: true, sort: { _id: 1 } })
    .toArray();
  return docs.map((d) => Buffer.from(d as unknown as Uint8Array));
}

/** listCollections of a database without the UUIDs, names sorted, values in their BSON types. */
export async function collectionShapes(client: MongoClient, db: string): Promise<Document[]> {
  const list = await client
    .db(db)
    .listCollections({}, { raw: true } as Document)
    .toArray();
  return list
    .map((d) => BSON.deserialize(d as unknown as Uint8Array, raw))
    .map((d) => ({ name: d['name'], type: d['type'], options: d['options'] }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

/** listIndexes of a collection, values in their BSON types. */
export async function indexShapes(
  client: MongoClient,
  db: string,
  collection: string,
): Promise<Document[]> {
  const list = await client
    .db(db)
    .collection(collection)
    .listIndexes({ raw: true } as Document)
    .toArray();
  return list.map((d) => BSON.deserialize(d as unknown as Uint8Array, raw));
}

/** Names of the databases holding data, sorted. */
export async function databaseList(client: MongoClient): Promise<string[]> {
  const r = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
  return (r['databases'] as Document[]).map((d) => String(d['name'])).sort();
}

/** A collection schema for test data with any `_id` (the driver's default wants ObjectId). */
export type AnyDocument = { _id?: number | string | Document; [key: string]: unknown };
