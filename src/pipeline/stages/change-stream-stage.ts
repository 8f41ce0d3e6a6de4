// $changeStream, the aggregation stage: parses the stage's options, and at run time is the
// source of the pipeline, a PlanStage yielding the events of the stream's ChangeEventSource
// (src/repl/change-events.ts reads the oplog and builds them). The aggregate command drives it
// through a ChangeStreamCursor (src/commands/crud/change-stream-cursor.ts), which waits for
// new entries.

import { Timestamp } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import { ErrorCode, fail } from '../../errors.js';
import type { PlanStage, Row, StageStats } from '../../query/exec/stages.js';
import type { ReadView } from '../../storage/engine.js';
import { ChangeEventSource } from '../../repl/change-events.js';
import type {
  BeforeChangeMode,
  ChangeStreamOptions,
  FullDocumentMode,
  StreamPosition,
} from '../../repl/change-events.js';
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

/**
 * The first stage of a change stream pipeline: the stream's events (a ChangeEventSource of
 * src/repl/change-events.ts, set up by the command with start()) as rows.
 */
export class ChangeStreamSourceStage implements PlanStage {
  readonly stats: StageStats = { stage: 'CHANGE_STREAM', nReturned: 0, works: 0, children: [] };
  private events: ChangeEventSource | undefined;

  constructor(private readonly rt: Runtime) {}

  /** Sets what the stream watches and where it starts (before the first batch). */
  start(options: ChangeStreamOptions, position: StreamPosition): ChangeEventSource {
    this.events = new ChangeEventSource(options, position, (view, db, coll, key) => {
      const c = this.rt.catalog?.get(db, coll);
      return c?.findById(view, getOwn(key, '_id') ?? null)?.doc ?? null;
    });
    return this.events;
  }

  next(view: ReadView): Row | undefined {
    const events = this.events;
    if (events === undefined) return undefined;
    const ev = events.next(view);
    this.stats.works = events.entriesRead;
    if (ev === undefined) return undefined;
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
  source: ChangeStreamSourceStage | undefined;
  constructor(
    private readonly arg: BsonValue,
    readonly spec: ChangeStreamSpec,
  ) {}
  serialize(): BsonDocument {
    return { $changeStream: this.arg };
  }
  attach(_input: PlanStage, rt: Runtime): PlanStage {
    this.source = new ChangeStreamSourceStage(rt);
    return this.source;
  }
}

export const $changeStream: StageDefinition = {
  name: '$changeStream',
  parse(arg) {
    return new ChangeStreamStage(arg, parseChangeStreamSpec(arg));
  },
};
