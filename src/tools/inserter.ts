// Inserts one collection's documents in batches, as mongorestore does: unordered insert
// commands of up to 1000 documents (ordered with --maintainInsertionOrder), continuing
// through duplicate keys and validation failures (counted and logged) unless --stopOnError;
// any other error stops the restore. One batch is in flight per collection, and a semaphore
// shared by all collections bounds the batches in flight overall, so memory stays bounded.
//
// A document with a top-level Timestamp(0, 0) would get the current time from the server on
// insert; as mongorestore, it is inserted alone and then set back to its exact content with a
// pipeline update (which leaves timestamps alone).

import type { Document } from './bson.js';
import { MongoServerError } from 'mongodb';
import type { Db } from 'mongodb';
import { limits } from '../limits.js';
import type { Semaphore } from './pool.js';
import { hasTopLevelZeroTimestamp, orderedDocument } from './raw-bson.js';
import { ToolError } from './tool-error.js';
import type { ToolLog } from './tool-log.js';

export interface InsertSettings {
  readonly ordered: boolean;
  readonly stopOnError: boolean;
  readonly bypassDocumentValidation: boolean;
  readonly writeConcern: Document | undefined;
}

/** mongorestore continues through these write errors unless --stopOnError. */
const ignorableCodes = new Set([11000, 121]);

export interface InsertCounts {
  successes: number;
  failures: number;
}

export class Inserter {
  private batch: Buffer[] = [];
  private bytes = 0;
  private inFlight: Promise<void> = Promise.resolve();
  private failure: unknown;
  readonly counts: InsertCounts = { successes: 0, failures: 0 };

  constructor(
    private readonly db: Db,
    private readonly collection: string,
    private readonly settings: InsertSettings,
    private readonly slots: Semaphore,
    private readonly log: ToolLog,
  ) {}

  /** Queues a document; waits while the previous batch of this collection is in flight. */
  async add(doc: Buffer): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (hasTopLevelZeroTimestamp(doc)) {
      await this.flush();
      await this.inFlight;
      await this.insertExact(doc);
      return;
    }
    if (this.batch.length > 0 && this.bytes + doc.length > limits.restoreInsertBatchBytesMax)
      await this.flush();
    this.batch.push(doc);
    this.bytes += doc.length;
    if (this.batch.length >= limits.restoreInsertBatchDocsMax) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const docs = this.batch;
    this.batch = [];
    this.bytes = 0;
    await this.inFlight;
    if (this.failure !== undefined) throw this.failure;
    await this.slots.acquire();
    this.inFlight = this.insert(docs)
      .catch((e: unknown) => {
        this.failure ??= e;
      })
      .finally(() => this.slots.release());
    if (this.settings.ordered) await this.inFlight;
  }

  /** Sends what is queued and waits for every batch; throws the first failure. */
  async finish(): Promise<InsertCounts> {
    await this.flush();
    await this.inFlight;
    if (this.failure !== undefined) throw this.failure;
    return this.counts;
  }

  private command(docs: unknown[]): Document {
    const cmd: Document = {
      insert: this.collection,
      documents: docs,
      ordered: this.settings.ordered,
    };
    if (this.settings.bypassDocumentValidation) cmd['bypassDocumentValidation'] = true;
    if (this.settings.writeConcern !== undefined) cmd['writeConcern'] = this.settings.writeConcern;
    return cmd;
  }

  private async insert(docs: Buffer[]): Promise<void> {
    const reply = await this.db.command(this.command(docs.map((d) => orderedDocument(d))));
    this.count(reply, docs.length);
  }

  private count(reply: Document, sent: number): void {
    const n = Number(reply['n'] ?? 0);
    this.counts.successes += n;
    const errors = Array.isArray(reply['writeErrors']) ? (reply['writeErrors'] as Document[]) : [];
    for (const e of errors) {
      const code = Number(e['code']);
      const message = String(e['errmsg'] ?? `error ${code}`);
      if (!ignorableCodes.has(code) || this.settings.stopOnError)
        throw new ToolError(
          `error restoring into ${this.db.databaseName}.${this.collection}: ${message}`,
        );
      this.counts.failures++;
      this.log.always(`continuing through error: ${message}`);
    }
    const wce = reply['writeConcernError'] as Document | undefined;
    if (wce !== undefined) throw new ToolError(`write concern error: ${String(wce['errmsg'])}`);
    if (errors.length === 0 && n !== sent && this.settings.writeConcern?.['w'] !== 0)
      throw new ToolError(`the server inserted ${n} of ${sent} documents into ${this.collection}`);
  }

  private async insertExact(doc: Buffer): Promise<void> {
    const ordered = orderedDocument(doc);
    await this.slots.acquire();
    try {
      const reply = await this.db.command(this.command([ordered]));
      this.count(reply, 1);
      if (Number(reply['n'] ?? 0) === 0) return;
      const update: Document = {
        update: this.collection,
        updates: [{ q: { _id: ordered.get('_id') }, u: [{ $replaceWith: { $literal: ordered } }] }],
      };
      if (this.settings.bypassDocumentValidation) update['bypassDocumentValidation'] = true;
      await this.db.command(update);
    } catch (e) {
      if (e instanceof MongoServerError)
        throw new ToolError(
          `failed to insert document with empty timestamp into ${this.collection}: ${e.message}`,
        );
      throw e;
    } finally {
      this.slots.release();
    }
  }
}
