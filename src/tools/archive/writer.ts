// Writes an archive as mongodump's multiplexer does: the prelude, then segments that
// collection dumpers hand in concurrently (a namespace header only when the namespace
// changes, a terminator before the next header), then for each namespace an EOF header with
// its CRC. Calls are serialized here, so segments never interleave inside each other.

import { Crc64 } from '../crc64.js';
import type { OutputSink } from '../sinks.js';
import {
  encodeCollection,
  encodeHeader,
  encodeNamespaceHeader,
  magicBytes,
  namespaceOf,
  terminatorBytes,
} from './format.js';
import type { ArchiveCollection, ArchiveHeader } from './format.js';

export class ArchiveWriter {
  private current: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly crcs = new Map<string, Crc64>();

  constructor(private readonly out: OutputSink) {}

  private serialized(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work);
    // A failure reaches the caller; later writes still run (and fail on the broken sink).
    this.queue = next.catch(() => undefined);
    return next;
  }

  writePrelude(header: ArchiveHeader, collections: readonly ArchiveCollection[]): Promise<void> {
    return this.serialized(async () => {
      await this.out.write(magicBytes());
      await this.out.write(encodeHeader(header));
      for (const c of collections) await this.out.write(encodeCollection(c));
      await this.out.write(terminatorBytes());
    });
  }

  /** Documents of one namespace, in order; an empty list still opens a segment, as mongodump's flush does. */
  writeSegment(db: string, collection: string, docs: readonly Buffer[]): Promise<void> {
    const ns = namespaceOf(db, collection);
    let crc = this.crcs.get(ns);
    if (crc === undefined) {
      crc = new Crc64();
      this.crcs.set(ns, crc);
    }
    const sum = crc;
    return this.serialized(async () => {
      if (this.current !== ns) {
        if (this.current !== undefined) await this.out.write(terminatorBytes());
        await this.out.write(encodeNamespaceHeader({ db, collection, eof: false, crc: 0n }));
        this.current = ns;
      }
      for (const d of docs) sum.update(d);
      if (docs.length > 0)
        await this.out.write(docs.length === 1 ? (docs[0] as Buffer) : Buffer.concat(docs));
    });
  }

  writeEof(db: string, collection: string): Promise<void> {
    const ns = namespaceOf(db, collection);
    return this.serialized(async () => {
      const crc = this.crcs.get(ns)?.value() ?? 0n;
      this.crcs.delete(ns);
      if (this.current !== undefined) await this.out.write(terminatorBytes());
      await this.out.write(encodeNamespaceHeader({ db, collection, eof: true, crc }));
      await this.out.write(terminatorBytes());
      this.current = undefined;
    });
  }

  /** Waits for every write handed in so far. */
  async drain(): Promise<void> {
    await this.queue;
  }
}
