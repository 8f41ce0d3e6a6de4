// Change streams of the embedded client: an aggregation with $changeStream first, read with
// awaiting getMores, and the resume token the change streams spec defines (the batch's
// postBatchResumeToken once its documents are returned, else the last document's _id).
// There is no network to fail, so there is no automatic resume; resumeAfter / startAfter
// with a saved token work as in the driver.

import type { Document } from 'mongodb';
import { MongoAPIError } from 'mongodb';
import { AggregationCursor } from './cursor.js';
import type { CursorTarget } from './cursor.js';

export class ChangeStream<T = Document> implements AsyncIterable<T> {
  private readonly cursor: AggregationCursor<Document>;
  private token: Document | undefined;

  constructor(
    target: CursorTarget,
    aggregate: string | 1,
    pipeline: Document[],
    options: Document,
  ) {
    const {
      resumeAfter,
      startAfter,
      startAtOperationTime,
      fullDocument,
      fullDocumentBeforeChange,
      showExpandedEvents,
      allChangesForCluster,
      ...rest
    } = options;
    const stage: Document = {};
    const put = (k: string, v: unknown): void => {
      if (v !== undefined) stage[k] = v;
    };
    put('allChangesForCluster', allChangesForCluster);
    put('fullDocument', fullDocument);
    put('fullDocumentBeforeChange', fullDocumentBeforeChange);
    put('resumeAfter', resumeAfter);
    put('startAfter', startAfter);
    put('startAtOperationTime', startAtOperationTime);
    put('showExpandedEvents', showExpandedEvents);
    this.token = (startAfter ?? resumeAfter) as Document | undefined;
    this.cursor = new AggregationCursor(
      target,
      aggregate,
      [{ $changeStream: stage }, ...pipeline],
      rest,
    );
  }

  /** The token to resume after the last change returned (or the start position). */
  get resumeToken(): Document | undefined {
    return this.token;
  }

  get closed(): boolean {
    return this.cursor.closed;
  }

  private track(doc: Document | null): void {
    const pbrt = this.cursor.postBatchResumeToken;
    if (doc !== null && this.cursor.bufferedCount() > 0) {
      this.token = doc['_id'] as Document;
    } else if (pbrt !== undefined) {
      this.token = pbrt;
    } else if (doc !== null) {
      this.token = doc['_id'] as Document;
    }
  }

  /** The next change, waiting for one. */
  async next(): Promise<T> {
    for (;;) {
      const doc = await this.cursor.tryNext();
      this.track(doc);
      if (doc !== null) return doc as T;
      if (this.cursor.closed) throw new MongoAPIError('ChangeStream is closed');
    }
  }

  /** The next change if there is one now (after at most one getMore), else null. */
  async tryNext(): Promise<T | null> {
    const doc = await this.cursor.tryNext();
    this.track(doc);
    return doc as T | null;
  }

  async hasNext(): Promise<boolean> {
    return this.cursor.hasNext();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, void> {
    try {
      while (!this.cursor.closed) yield await this.next();
    } finally {
      await this.close();
    }
  }

  close(): Promise<void> {
    return this.cursor.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
