// Change streams' event source: reading the oplog after a stream's position (through
// ./oplog-reader.ts) and turning its entries into change events (mongod's
// DocumentSourceChangeStreamTransform and friends), and where in the oplog a stream starts.
// The $changeStream stage (src/pipeline/stages/change-stream-stage.ts) is this source as the
// first stage of a pipeline; the command side (src/commands/crud/change-stream-cursor.ts)
// opens it, waits for new entries and replies with its resume tokens.
//
// A stream reads the oplog after a position. Each oplog entry yields zero or more events; the
// operations of a committed transaction (one applyOps entry) yield their events together, in
// order, each with its index in the transaction, so a resume token names an event uniquely by
// (clusterTime, txnOpIndex). Aborted transactions never reach the oplog.

import { Timestamp } from 'bson';
import type { Binary } from 'bson';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isArray, isPlainDocument, numericValue } from '../bson/types.js';
import { getOwn } from '../bson/document.js';
import { ErrorCode, fail } from '../errors.js';
import type { ReadView } from '../storage/engine.js';
import { OplogCursor, decodeOplogEntry, peekOpAndNs } from './oplog-reader.js';
import {
  encodeResumeToken,
  highWaterMarkToken,
  tokenTypeEvent,
  tokenTypeHighWaterMark,
} from './resume-token.js';
import { describeDiff } from './update-description.js';
import type { ResumeTokenData } from './resume-token.js';
import { appendAll } from '../bson/arrays.js';

export type FullDocumentMode = 'default' | 'updateLookup' | 'whenAvailable' | 'required';
export type BeforeChangeMode = 'off' | 'whenAvailable' | 'required';

export interface ChangeStreamTarget {
  /** undefined: the whole cluster. */
  readonly db: string | undefined;
  /** undefined: the whole database (or cluster). */
  readonly coll: string | undefined;
}

export interface ChangeStreamOptions extends ChangeStreamTarget {
  readonly fullDocument: FullDocumentMode;
  readonly fullDocumentBeforeChange: BeforeChangeMode;
  readonly showExpandedEvents: boolean;
  /** Update events carry the oplog entry's `o` as rawUpdateDescription instead of updateDescription. */
  readonly showRawUpdateDescription: boolean;
}

/** Where reading starts: entries after `after`, minus events at `skip.ts` up to `skip.index`. */
export interface StreamPosition {
  after: Timestamp;
  skip?: { readonly ts: Timestamp; readonly index: number } | undefined;
}

export interface ChangeEvent {
  readonly doc: BsonDocument;
  readonly token: BsonDocument;
  /** The stream ends after this event (an invalidate). */
  readonly invalidates: boolean;
}

/** Current version of a document, for fullDocument: 'updateLookup'. */
export type DocumentLookup = (
  db: string,
  coll: string,
  documentKey: BsonDocument,
) => BsonDocument | null;

/** The document with `documentKey` as `view` holds it (null: none). */
export type DocumentLookupIn = (
  view: ReadView,
  db: string,
  coll: string,
  documentKey: BsonDocument,
) => BsonDocument | null;

export function previousTimestamp(ts: Timestamp): Timestamp {
  if (ts.i > 0) return new Timestamp({ t: ts.t, i: ts.i - 1 });
  if (ts.t === 0) return ts;
  return new Timestamp({ t: ts.t - 1, i: 0xffffffff });
}

export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  return a.t !== b.t ? (a.t < b.t ? -1 : 1) : a.i !== b.i ? (a.i < b.i ? -1 : 1) : 0;
}

/** The position right after a resume token (resumeAfter / startAfter). */
export function positionAfterToken(tok: ResumeTokenData): StreamPosition {
  if (tok.tokenType === tokenTypeHighWaterMark) return { after: tok.clusterTime };
  return {
    after: previousTimestamp(tok.clusterTime),
    skip: { ts: tok.clusterTime, index: tok.txnOpIndex },
  };
}

const internalDbs = new Set(['admin', 'config', 'local']);

function splitNs(ns: string): { db: string; coll: string } {
  const dot = ns.indexOf('.');
  return dot < 0 ? { db: ns, coll: '' } : { db: ns.slice(0, dot), coll: ns.slice(dot + 1) };
}

export class ChangeEventBuilder {
  constructor(
    private readonly opts: ChangeStreamOptions,
    private readonly lookup: DocumentLookup,
  ) {}

  private dbMatches(db: string): boolean {
    if (this.opts.db === undefined) return !internalDbs.has(db);
    return db === this.opts.db;
  }

  /** Whether a collection's data changes are part of the stream. */
  private collMatches(db: string, coll: string): boolean {
    if (!this.dbMatches(db)) return false;
    if (this.opts.coll !== undefined) return coll === this.opts.coll;
    return !coll.startsWith('system.');
  }

  /** Whether an entry with this op and ns yields no event (judged before decoding the rest of it). */
  skipsEntry(op: string, ns: string): boolean {
    if (op !== 'i' && op !== 'u' && op !== 'd') return false;
    const { db, coll } = splitNs(ns);
    return !this.collMatches(db, coll) && !this.viewDefinitionsMatch(db, coll);
  }

  /**
   * Writes to `<db>.system.views` are view definitions: with showExpandedEvents, database and
   * cluster streams report them as create, modify and drop events on the view (mongod's
   * ChangeStreamViewDefinitionEventTransformation).
   */
  private viewDefinitionsMatch(db: string, coll: string): boolean {
    return (
      coll === 'system.views' &&
      this.opts.showExpandedEvents &&
      this.opts.coll === undefined &&
      this.dbMatches(db)
    );
  }

  private viewDefinitionEvent(
    kind: 'i' | 'u' | 'd',
    o: BsonDocument,
    head: (operationType: string, id: BsonDocument) => BsonDocument,
  ): ChangeEvent[] {
    const viewNs = getOwn(o, '_id');
    if (typeof viewNs !== 'string') return [];
    const { _id: _view, ...definition } = o;
    const operationType = kind === 'i' ? 'create' : kind === 'u' ? 'modify' : 'drop';
    const d = head(
      operationType,
      kind === 'd' ? { operationType } : { operationType, operationDescription: definition },
    );
    d['ns'] = splitNs(viewNs);
    if (kind !== 'd') d['operationDescription'] = definition;
    if (kind === 'i') {
      const on = definition['viewOn'];
      d['nsType'] =
        typeof on === 'string' && on.startsWith('system.buckets.') ? 'timeseries' : 'view';
    }
    return [{ doc: d, token: d['_id'] as BsonDocument, invalidates: false }];
  }

  /** All events of one oplog entry, after `skip` is applied. */
  eventsOf(entry: BsonDocument, skip: StreamPosition['skip']): ChangeEvent[] {
    const ts = entry['ts'];
    if (!(ts instanceof Timestamp)) return [];
    const wall = entry['wall'] instanceof Date ? entry['wall'] : new Date(0);
    const skipIndex = skip !== undefined && compareTimestamps(skip.ts, ts) === 0 ? skip.index : -1;
    const o = entry['o'];
    const out: ChangeEvent[] = [];
    if (entry['op'] === 'c' && isPlainDocument(o) && isArray(o['applyOps'])) {
      const session: BsonDocument = {};
      if (entry['lsid'] !== undefined) session['lsid'] = entry['lsid'];
      if (entry['txnNumber'] !== undefined) session['txnNumber'] = entry['txnNumber'];
      o['applyOps'].forEach((op, index) => {
        if (index <= skipIndex || !isPlainDocument(op)) return;
        appendAll(out, this.eventsOfOp(op, ts, wall, index, session));
      });
      return out;
    }
    if (skipIndex >= 0) return [];
    // lsid/txnNumber show only on events of multi-document transactions, as in mongod.
    return this.eventsOfOp(entry, ts, wall, 0, {});
  }

  private token(
    ts: Timestamp,
    index: number,
    ui: BsonValue | undefined,
    id: BsonDocument,
    fromInvalidate = false,
  ): BsonDocument {
    const uuid =
      ui !== undefined &&
      typeof ui === 'object' &&
      ui !== null &&
      (ui as { _bsontype?: string })._bsontype === 'Binary'
        ? (ui as Binary)
        : undefined;
    return encodeResumeToken({
      clusterTime: ts,
      tokenType: tokenTypeEvent,
      txnOpIndex: index,
      fromInvalidate,
      uuid,
      eventIdentifier: id,
    });
  }

  private eventsOfOp(
    op: BsonDocument,
    ts: Timestamp,
    wall: Date,
    index: number,
    session: BsonDocument,
  ): ChangeEvent[] {
    const kind = op['op'];
    const ns = typeof op['ns'] === 'string' ? op['ns'] : '';
    const o = isPlainDocument(op['o']) ? op['o'] : {};
    const ui = op['ui'];
    const head = (
      operationType: string,
      id: BsonDocument,
      fromInvalidate = false,
    ): BsonDocument => ({
      _id: this.token(ts, index, ui, id, fromInvalidate),
      operationType,
      clusterTime: ts,
      wallTime: wall,
    });
    const expanded = (d: BsonDocument): void => {
      if (this.opts.showExpandedEvents && ui !== undefined) d['collectionUUID'] = ui;
    };
    if (kind === 'i' || kind === 'u' || kind === 'd') {
      const { db, coll } = splitNs(ns);
      if (this.viewDefinitionsMatch(db, coll)) return this.viewDefinitionEvent(kind, o, head);
      if (!this.collMatches(db, coll)) return [];
      const nsDoc = { db, coll };
      const o2 = isPlainDocument(op['o2']) ? op['o2'] : undefined;
      if (kind === 'i') {
        const documentKey = o2 ?? { _id: getOwn(o, '_id') ?? null };
        const d = head('insert', { operationType: 'insert', documentKey });
        expanded(d);
        Object.assign(d, { fullDocument: o, ns: nsDoc, documentKey }, session);
        return [{ doc: d, token: d['_id'] as BsonDocument, invalidates: false }];
      }
      if (kind === 'd') {
        const documentKey = o;
        const d = head('delete', { operationType: 'delete', documentKey });
        expanded(d);
        Object.assign(d, { ns: nsDoc, documentKey }, session);
        this.addBeforeChange(d, op);
        return [{ doc: d, token: d['_id'] as BsonDocument, invalidates: false }];
      }
      const documentKey = o2 ?? { _id: getOwn(o, '_id') ?? null };
      const diff =
        numericValue(getOwn(o, '$v')) === 2 && isPlainDocument(getOwn(o, 'diff'))
          ? (getOwn(o, 'diff') as BsonDocument)
          : undefined;
      if (diff === undefined) {
        const d = head('replace', { operationType: 'replace', documentKey });
        expanded(d);
        Object.assign(d, { fullDocument: o, ns: nsDoc, documentKey }, session);
        this.addBeforeChange(d, op);
        return [{ doc: d, token: d['_id'] as BsonDocument, invalidates: false }];
      }
      const d = head('update', { operationType: 'update', documentKey });
      expanded(d);
      Object.assign(d, { ns: nsDoc, documentKey }, session);
      if (this.opts.showRawUpdateDescription) {
        d['rawUpdateDescription'] = o;
      } else {
        const { updatedFields, removedFields, truncatedArrays, disambiguatedPaths } =
          describeDiff(diff);
        const description: BsonDocument = { updatedFields, removedFields, truncatedArrays };
        // With showExpandedEvents mongod always includes it, empty when no path is ambiguous.
        if (this.opts.showExpandedEvents) description['disambiguatedPaths'] = disambiguatedPaths;
        d['updateDescription'] = description;
      }
      if (this.opts.fullDocument === 'updateLookup') {
        d['fullDocument'] = this.lookup(db, coll, documentKey);
      } else if (
        this.opts.fullDocument === 'whenAvailable' ||
        this.opts.fullDocument === 'required'
      ) {
        const post = op['postImage'];
        if (isPlainDocument(post)) d['fullDocument'] = post;
        else if (this.opts.fullDocument === 'whenAvailable') d['fullDocument'] = null;
        else
          fail(
            ErrorCode.NoMatchingDocument,
            `Change stream was configured to require a post-image for all update, delete and replace events, but the post-image was not found for event: ${JSON.stringify({ db, coll })}`,
          );
      }
      this.addBeforeChange(d, op);
      return [{ doc: d, token: d['_id'] as BsonDocument, invalidates: false }];
    }
    if (kind !== 'c') return [];
    const { db } = splitNs(ns);
    const out: ChangeEvent[] = [];
    const invalidate = (): void => {
      const d = head('invalidate', { operationType: 'invalidate' }, true);
      out.push({ doc: d, token: d['_id'] as BsonDocument, invalidates: true });
    };
    if (typeof o['drop'] === 'string') {
      const coll = o['drop'];
      if (!this.collMatches(db, coll)) return [];
      const d = head('drop', { operationType: 'drop' });
      expanded(d);
      Object.assign(d, { ns: { db, coll } }, session);
      out.push({ doc: d, token: d['_id'] as BsonDocument, invalidates: false });
      if (this.opts.coll !== undefined) invalidate();
      return out;
    }
    if (typeof o['renameCollection'] === 'string' && typeof o['to'] === 'string') {
      const from = splitNs(o['renameCollection']);
      const to = splitNs(o['to']);
      // Streams on either namespace see the rename; a collection stream on either is invalidated.
      if (!this.collMatches(from.db, from.coll) && !this.collMatches(to.db, to.coll)) return [];
      const d = head('rename', { operationType: 'rename', ns: { db: from.db, coll: from.coll } });
      expanded(d);
      Object.assign(d, { ns: from, to }, session);
      if (this.opts.showExpandedEvents) {
        // The entry's fields but the source and stayTemp, `to` as a namespace document (dropTarget: the UUID dropped).
        const { renameCollection: _from, stayTemp: _stayTemp, ...rest } = o;
        d['operationDescription'] = { ...rest, to };
      }
      out.push({ doc: d, token: d['_id'] as BsonDocument, invalidates: false });
      if (this.opts.coll !== undefined) invalidate();
      return out;
    }
    if (o['dropDatabase'] !== undefined) {
      if (this.opts.coll !== undefined || !this.dbMatches(db)) return [];
      const d = head('dropDatabase', { operationType: 'dropDatabase' });
      Object.assign(d, { ns: { db } }, session);
      out.push({ doc: d, token: d['_id'] as BsonDocument, invalidates: false });
      if (this.opts.db !== undefined) invalidate();
      return out;
    }
    if (!this.opts.showExpandedEvents) return [];
    if (typeof o['create'] === 'string' && this.collMatches(db, o['create'])) {
      const { create, ...rest } = o;
      const d = head('create', { operationType: 'create' });
      expanded(d);
      Object.assign(
        d,
        {
          ns: { db, coll: create },
          nsType: rest['viewOn'] !== undefined ? 'view' : 'collection',
          operationDescription: { idIndex: { v: 2, key: { _id: 1 }, name: '_id_' }, ...rest },
        },
        session,
      );
      if (rest['viewOn'] !== undefined) d['operationDescription'] = rest;
      out.push({ doc: d, token: d['_id'] as BsonDocument, invalidates: false });
      return out;
    }
    if (typeof o['createIndexes'] === 'string' && this.collMatches(db, o['createIndexes'])) {
      const { createIndexes, ...spec } = o;
      const d = head('createIndexes', { operationType: 'createIndexes' });
      expanded(d);
      Object.assign(
        d,
        { ns: { db, coll: createIndexes }, operationDescription: { indexes: [spec] } },
        session,
      );
      out.push({ doc: d, token: d['_id'] as BsonDocument, invalidates: false });
      return out;
    }
    if (typeof o['dropIndexes'] === 'string' && this.collMatches(db, o['dropIndexes'])) {
      const spec = isPlainDocument(op['o2']) ? op['o2'] : { name: o['index'] ?? null };
      const d = head('dropIndexes', { operationType: 'dropIndexes' });
      expanded(d);
      Object.assign(
        d,
        { ns: { db, coll: o['dropIndexes'] }, operationDescription: { indexes: [spec] } },
        session,
      );
      out.push({ doc: d, token: d['_id'] as BsonDocument, invalidates: false });
      return out;
    }
    if (typeof o['collMod'] === 'string' && this.collMatches(db, o['collMod'])) {
      const { collMod, ...rest } = o;
      const o2 = isPlainDocument(op['o2']) ? op['o2'] : {};
      const stateBeforeChange: BsonDocument = {
        collectionOptions: o2['collectionOptions_old'] ?? null,
      };
      if (o2['indexOptions_old'] !== undefined)
        stateBeforeChange['indexOptions'] = o2['indexOptions_old'];
      const d = head('modify', { operationType: 'modify' });
      expanded(d);
      Object.assign(
        d,
        { ns: { db, coll: collMod }, operationDescription: rest, stateBeforeChange },
        session,
      );
      out.push({ doc: d, token: d['_id'] as BsonDocument, invalidates: false });
      return out;
    }
    return [];
  }

  private addBeforeChange(d: BsonDocument, op: BsonDocument): void {
    const mode = this.opts.fullDocumentBeforeChange;
    if (mode === 'off') return;
    const pre = op['preImage'];
    if (isPlainDocument(pre)) d['fullDocumentBeforeChange'] = pre;
    else if (mode === 'whenAvailable') d['fullDocumentBeforeChange'] = null;
    else
      fail(
        ErrorCode.NoMatchingDocument,
        `Change stream was configured to require a pre-image for all update, delete and replace events, but the pre-image was not found for the event with clusterTime ${String(d['clusterTime'])}`,
      );
  }
}

/**
 * A change stream's events, read lazily from the oplog after its position: one entry at a
 * time, as the consumer asks, each batch on the view it is handed. Entries of collections
 * the stream does not watch are passed over without decoding more than their `op` and `ns`.
 */
export class ChangeEventSource {
  private readonly queue: ChangeEvent[] = [];
  private readonly builder: ChangeEventBuilder;
  private readonly cursor: OplogCursor;
  private view: ReadView | undefined;
  /** The token of the last event handed out. */
  lastToken: BsonDocument | undefined;
  private lastTokenTs: Timestamp | undefined;
  /** An invalidate event was produced: nothing follows it. */
  invalidated = false;
  /** Oplog entries read (explain's works). */
  entriesRead = 0;

  constructor(
    options: ChangeStreamOptions,
    private readonly position: StreamPosition,
    lookup: DocumentLookupIn,
  ) {
    this.cursor = new OplogCursor({ after: position.after });
    this.builder = new ChangeEventBuilder(options, (db, coll, key) =>
      this.view === undefined ? null : lookup(this.view, db, coll, key),
    );
  }

  /** No event read and not yet handed out. */
  get drained(): boolean {
    return this.queue.length === 0;
  }

  /** The postBatchResumeToken: the last event's token, or the high-water mark of the oplog read. */
  resumeToken(): BsonDocument {
    if (this.lastToken !== undefined) {
      if (this.queue.length > 0 || this.invalidated) return this.lastToken;
      // The last event came from the newest entry read: its token is the later position.
      if (
        this.lastTokenTs !== undefined &&
        compareTimestamps(this.lastTokenTs, this.position.after) === 0
      )
        return this.lastToken;
    }
    return highWaterMarkToken(this.position.after);
  }

  /** The next event in `view`; undefined when it has none yet (entries committed later are read from a later view). */
  next(view: ReadView): ChangeEvent | undefined {
    this.view = view;
    while (this.queue.length === 0) {
      if (this.invalidated) return undefined;
      const r = this.cursor.next(view);
      if (r === undefined) return undefined;
      this.entriesRead++;
      const head = peekOpAndNs(r.bytes);
      const events =
        head !== undefined && this.builder.skipsEntry(head.op, head.ns)
          ? []
          : this.builder.eventsOf(decodeOplogEntry(r), this.position.skip);
      this.position.after = r.ts;
      if (this.position.skip !== undefined && compareTimestamps(r.ts, this.position.skip.ts) >= 0)
        this.position.skip = undefined;
      for (const ev of events) {
        this.queue.push(ev);
        if (ev.invalidates) break;
      }
    }
    const ev = this.queue.shift();
    if (ev === undefined) return undefined;
    this.lastToken = ev.token;
    this.lastTokenTs =
      ev.doc['clusterTime'] instanceof Timestamp ? ev.doc['clusterTime'] : undefined;
    if (ev.invalidates) this.invalidated = true;
    return ev;
  }
}
