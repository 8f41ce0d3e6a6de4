// $changeStream: parses the stage's options, and at run time is the source of the pipeline:
// a PlanStage that reads the oplog after the stream's position and yields change events
// (src/repl/change-stream.ts builds them). The aggregate command drives it through a
// ChangeStreamCursor (src/commands/crud/change-stream.ts), which waits for new entries.

import { Timestamp } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import { ErrorCode, fail } from '../../errors.js';
import type { PlanStage, Row, StageStats } from '../../query/exec/stages.js';
import type { ReadView } from '../../storage/engine.js';
import { ChangeEventBuilder, compareTimestamps } from '../../repl/change-stream.js';
import type {
  BeforeChangeMode,
  ChangeEvent,
  ChangeStreamOptions,
  FullDocumentMode,
  StreamPosition,
} from '../../repl/change-stream.js';
import { OplogCursor, decodeOplogEntry, peekOpAndNs } from '../../repl/oplog-reader.js';
import { highWaterMarkToken } from '../../repl/resume-token.js';
import type { Runtime, Stage, StageDefinition } from './types.js';

/** The $changeStream stage's argument, validated. */
export interface ChangeStreamSpec {
  readonly resumeAfter?: BsonValue;
  readonly startAfter?: BsonValue;
  readonly startAtOperationTime?: Timestamp;
  readonly fullDocument: FullDocumentMode;
  readonly fullDocumentBeforeChange: BeforeChangeMode;
  readonly allChangesForCluster: boolean;
  readonly showExpandedEvents: boolean;
  readonly showRawUpdateDescription: boolean;
}

const fullDocumentModes = new Set(['default', 'updateLookup', 'whenAvailable', 'required']);
const beforeChangeModes = new Set(['off', 'whenAvailable', 'required']);
const ignoredOptions = new Set([
  'allowToRunOnConfigDB',
  'allowToRunOnSystemNS',
  'showMigrationEvents',
  'showSystemEvents',
  '$_generateV2ResumeTokens',
]);

function typeError(field: string, expected: string): never {
  fail(
    ErrorCode.TypeMismatch,
    `BSON field '$changeStream.${field}' is the wrong type, expected type '${expected}'`,
  );
}

export function parseChangeStreamSpec(arg: BsonValue): ChangeStreamSpec {
  if (!isPlainDocument(arg))
    fail(
      ErrorCode.FailedToParse,
      `the $changeStream stage expects an object, but found ${typeof arg}`,
    );
  let fullDocument: FullDocumentMode = 'default';
  let fullDocumentBeforeChange: BeforeChangeMode = 'off';
  let allChangesForCluster = false;
  let showExpandedEvents = false;
  let showRawUpdateDescription = false;
  let resumeAfter: BsonValue | undefined;
  let startAfter: BsonValue | undefined;
  let startAtOperationTime: Timestamp | undefined;
  for (const [k, v] of Object.entries(arg)) {
    switch (k) {
      case 'fullDocument':
        if (typeof v !== 'string') typeError(k, 'string');
        if (!fullDocumentModes.has(v))
          fail(ErrorCode.BadValue, `unrecognized fullDocument option '${v}'`);
        fullDocument = v as FullDocumentMode;
        break;
      case 'fullDocumentBeforeChange':
        if (typeof v !== 'string') typeError(k, 'string');
        if (!beforeChangeModes.has(v))
          fail(ErrorCode.BadValue, `unrecognized fullDocumentBeforeChange option '${v}'`);
        fullDocumentBeforeChange = v as BeforeChangeMode;
        break;
      case 'allChangesForCluster':
        if (typeof v !== 'boolean') typeError(k, 'bool');
        allChangesForCluster = v;
        break;
      case 'showExpandedEvents':
        if (typeof v !== 'boolean') typeError(k, 'bool');
        showExpandedEvents = v;
        break;
      case 'showRawUpdateDescription':
        if (typeof v !== 'boolean') typeError(k, 'bool');
        showRawUpdateDescription = v;
        break;
      case 'resumeAfter':
        if (!isPlainDocument(v)) typeError(k, 'object');
        resumeAfter = v;
        break;
      case 'startAfter':
        if (!isPlainDocument(v)) typeError(k, 'object');
        startAfter = v;
        break;
      case 'startAtOperationTime':
        if (!(v instanceof Timestamp)) typeError(k, 'timestamp');
        startAtOperationTime = v;
        break;
      default:
        if (!ignoredOptions.has(k))
          fail(ErrorCode.Location40415, `BSON field '$changeStream.${k}' is an unknown field.`);
    }
  }
  const starts = [resumeAfter, startAfter, startAtOperationTime].filter(
    (x) => x !== undefined,
  ).length;
  if (starts > 1)
    fail(
      ErrorCode.Location40674,
      'Only one type of resume option is allowed, but multiple were found.',
    );
  return {
    resumeAfter,
    startAfter,
    startAtOperationTime,
    fullDocument,
    fullDocumentBeforeChange,
    allChangesForCluster,
    showExpandedEvents,
    showRawUpdateDescription,
  };
}

/** The source of a change stream pipeline: change events read from the oplog. */
export class ChangeEventSource implements PlanStage {
  readonly stats: StageStats = { stage: 'CHANGE_STREAM', nReturned: 0, works: 0, children: [] };
  private readonly queue: ChangeEvent[] = [];
  private builder: ChangeEventBuilder | undefined;
  private position: StreamPosition = { after: new Timestamp({ t: 0, i: 0 }) };
  private view: ReadView | undefined;
  private cursor: OplogCursor | undefined;
  /** The token of the last event handed to the pipeline. */
  lastToken: BsonDocument | undefined;
  private lastTokenTs: Timestamp | undefined;
  /** An invalidate event was produced: nothing follows it. */
  invalidated = false;

  constructor(private readonly rt: Runtime) {}

  /** Sets what the stream watches and where it starts (before the first batch). */
  start(options: ChangeStreamOptions, position: StreamPosition): void {
    this.position = position;
    this.cursor = new OplogCursor({ after: position.after });
    this.builder = new ChangeEventBuilder(options, (db, coll, key) => {
      const c = this.rt.catalog?.get(db, coll);
      if (c === undefined || this.view === undefined) return null;
      return c.findById(this.view, getOwn(key, '_id') ?? null)?.doc ?? null;
    });
  }

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

  next(view: ReadView): Row | undefined {
    this.view = view;
    while (this.queue.length === 0) {
      if (this.invalidated || this.builder === undefined || this.cursor === undefined)
        return undefined;
      // Entries committed later are read by a later batch (on a new snapshot).
      const r = this.cursor.next(view);
      if (r === undefined) return undefined;
      this.stats.works++;
      const ts = r.ts;
      // Entries of collections the stream does not watch are passed over undecoded.
      const head = peekOpAndNs(r.bytes);
      const events =
        head !== undefined && this.builder.skipsEntry(head.op, head.ns)
          ? []
          : this.builder.eventsOf(decodeOplogEntry(r), this.position.skip);
      this.position.after = ts;
      if (this.position.skip !== undefined && compareTimestamps(ts, this.position.skip.ts) >= 0)
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
    this.stats.nReturned++;
    return { doc: ev.doc };
  }
}

export class ChangeStreamStage implements Stage {
  readonly name = '$changeStream';
  readonly constraints = {
    first: true,
    collectionless: true,
    notInFacet: true,
    notInLookup: true,
  } as const;
  source: ChangeEventSource | undefined;
  constructor(
    private readonly arg: BsonValue,
    readonly spec: ChangeStreamSpec,
  ) {}
  serialize(): BsonDocument {
    return { $changeStream: this.arg };
  }
  attach(_input: PlanStage, rt: Runtime): PlanStage {
    this.source = new ChangeEventSource(rt);
    return this.source;
  }
}

export const $changeStream: StageDefinition = {
  name: '$changeStream',
  parse(arg) {
    return new ChangeStreamStage(arg, parseChangeStreamSpec(arg));
  },
};
