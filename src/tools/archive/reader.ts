// Reads an archive as mongorestore's demultiplexer does, one document at a time, holding
// nothing but the current document: checks the magic number, parses the prelude, then
// follows the segments, checking what mongorestore checks (no data without a namespace
// header, no header for a namespace already finished, each namespace's CRC at its EOF, every
// namespace of the prelude finished before the end) with its messages.

import type { ByteReader } from '../byte-reader.js';
import { Crc64 } from '../crc64.js';
import { ToolError } from '../tool-error.js';
import {
  dataCollectionOf,
  archiveMagic,
  decodeCollection,
  decodeHeader,
  decodeNamespaceHeader,
  namespaceOf,
} from './format.js';
import type { ArchiveCollection, ArchiveHeader } from './format.js';

export interface ArchivePrelude {
  readonly header: ArchiveHeader;
  readonly collections: readonly ArchiveCollection[];
}

export type ArchiveEvent =
  | {
      readonly kind: 'document';
      readonly db: string;
      readonly collection: string;
      readonly doc: Buffer;
    }
  | { readonly kind: 'end'; readonly db: string; readonly collection: string };

function corrupt(message: string): ToolError {
  return new ToolError(`corruption found in archive; ${message}`);
}

async function nextBlockItem(input: ByteReader): Promise<Buffer | 'terminator' | undefined> {
  try {
    return await input.readDocument(true);
  } catch (e) {
    if (e instanceof ToolError) throw corrupt(e.message);
    throw e;
  }
}

export async function readPrelude(input: ByteReader): Promise<ArchivePrelude> {
  const magic = await input.read(4).catch(() => undefined);
  if (magic === undefined || magic.readUInt32LE(0) !== archiveMagic)
    throw new ToolError('stream or file does not appear to be a mongodump archive');
  const first = await nextBlockItem(input);
  if (first === undefined) throw corrupt('the archive ends before its prelude');
  if (first === 'terminator')
    throw corrupt('consecutive terminators / headerless blocks are not allowed');
  const header = decodeHeader(first);
  const collections: ArchiveCollection[] = [];
  for (;;) {
    const item = await nextBlockItem(input);
    if (item === undefined) throw corrupt('the archive ends inside its prelude');
    if (item === 'terminator') break;
    collections.push(decodeCollection(item));
  }
  return { header, collections };
}

/** The documents of the archive after its prelude, namespace by namespace as they come. */
export async function* readArchiveBody(
  input: ByteReader,
  prelude: ArchivePrelude,
): AsyncGenerator<ArchiveEvent> {
  const expected = new Set(prelude.collections.map((c) => namespaceOf(c.db, dataCollectionOf(c))));
  const open = new Map<string, Crc64>();
  const closed = new Set<string>();
  for (;;) {
    const head = await nextBlockItem(input);
    if (head === undefined) break;
    if (head === 'terminator')
      throw corrupt('consecutive terminators / headerless blocks are not allowed');
    const h = decodeNamespaceHeader(head);
    const ns = namespaceOf(h.db, h.collection);
    if (!expected.has(ns)) throw new ToolError(`no intent for collection in archive: ${ns}`);
    if (closed.has(ns))
      throw new ToolError(
        `error demultiplexing archive; namespace header for already opened namespace ${ns}`,
      );
    let crc = open.get(ns);
    if (crc === undefined) {
      crc = new Crc64();
      open.set(ns, crc);
    }
    if (h.eof) {
      const sum = crc.value();
      if (sum !== h.crc) throw new ToolError(`CRC mismatch for namespace ${ns}, ${sum}!=${h.crc}`);
      open.delete(ns);
      closed.add(ns);
      const end = await nextBlockItem(input);
      if (end === undefined) throw corrupt(`the archive ends after the EOF header of ${ns}`);
      if (end !== 'terminator')
        throw new ToolError(
          'error demultiplexing archive; collection data without a collection header',
        );
      yield { kind: 'end', db: h.db, collection: h.collection };
      continue;
    }
    for (;;) {
      const item = await nextBlockItem(input);
      if (item === undefined) throw corrupt(`the archive ends inside a block of ${ns}`);
      if (item === 'terminator') break;
      crc.update(item);
      yield { kind: 'document', db: h.db, collection: h.collection, doc: item };
    }
  }
  if (open.size > 0)
    throw new ToolError(
      `error demultiplexing archive; archive finished but contained files were unfinished (${[...open.keys()].join(', ')})`,
    );
  for (const ns of expected)
    if (!closed.has(ns))
      throw new ToolError(
        `error demultiplexing archive; archive finished before all collections were seen (${ns})`,
      );
}
