// Change streams, the command side: an aggregate whose pipeline starts with $changeStream
// checks where the stream starts or resumes and opens a tailable ChangeStreamCursor over its
// events (src/repl/change-events.ts); getMore on it waits (maxAwaitTimeMS) for new oplog
// entries instead of ending the cursor. Every reply carries postBatchResumeToken.

import { calculateObjectSize } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument, numericValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { fullName } from '../../catalog/namespace.js';
import { ServerCursor } from '../../query/exec/cursor.js';
import type { CursorOptions } from '../../query/exec/cursor.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { pullSync } from '../../query/exec/yield.js';
import { buildPipeline, newEnv, newScope, parsePipeline } from '../../pipeline/index.js';
import type { PipelineContext, Runtime } from '../../pipeline/index.js';
import { ChangeStreamStage } from '../../pipeline/stages/change-stream-stage.js';
import {
  compareTimestamps,
  positionAfterToken,
  previousTimestamp,
} from '../../repl/change-events.js';
import type { ChangeEventSource, StreamPosition } from '../../repl/change-events.js';
import { decodeResumeToken, encodeResumeToken, tokenTypeEvent } from '../../repl/resume-token.js';
import { splitChangeEvent } from '../../repl/split-event.js';
import {
  SplitLargeEventStage,
  splitLargeEventName,
} from '../../pipeline/stages/split-large-event.js';
import type { Oplog as OplogType } from '../../repl/oplog.js';
import type { OperationContext, ServerServices } from '../context.js';
import { interruptedError } from '../operations.js';
import { cursorReply } from './cursor-reply.js';

/** Stages mongod allows after $changeStream. */
const allowedAfter = new Set([
  '$match',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
  '$redact',
  '$changeStreamSplitLargeEvent',
]);
/** A getMore on an awaitData cursor without maxAwaitTimeMS waits this long (mongod's default). */
const defaultAwaitMs = 1000;

export function isChangeStreamPipeline(pipeline: readonly BsonValue[] | undefined): boolean {
  const first = pipeline?.[0];
  return isPlainDocument(first) && Object.keys(first)[0] === '$changeStream';
}

interface AggregateLikeArgs {
  readonly pipeline?: BsonValue[] | undefined;
  readonly cursor?: BsonDocument | undefined;
  readonly explain?: boolean | undefined;
  readonly autocommit?: unknown;
  readonly comment?: unknown;
}

/** With $changeStreamSplitLargeEvent: where a stream resumed from a fragment's token picks up. */
interface SplitEvents {
  resumeFrom?: { readonly data: string; readonly fragmentNum: number } | undefined;
}

export class ChangeStreamCursor extends ServerCursor {
  private invalidatedDone = false;
  /** Fragments of a split event not sent yet. */
  private fragments: BsonDocument[] = [];
  /** The token of the last document sent, when it was a fragment (the postBatchResumeToken). */
  private lastFragmentToken: BsonValue | undefined;
  constructor(
    plan: PlanStage,
    readonly source: ChangeEventSource,
    private readonly oplog: OplogType,
    options: CursorOptions,
    private readonly split?: SplitEvents,
  ) {
    super(plan, options);
  }

  override get isExhausted(): boolean {
    return this.invalidatedDone;
  }

  /** A drop or rename of the watched collection is an event (then invalidate), not an end. */
  override get outlivesNamespace(): boolean {
    return true;
  }

  /** A change stream reads the oplog lazily, one entry at a time, in place. */
  override nextBatch(batchSize: number | undefined): Promise<BsonDocument[]> {
    return Promise.resolve(this.eventBatch(batchSize));
  }

  eventBatch(batchSize: number | undefined): BsonDocument[] {
    const out: BsonDocument[] = [];
    const max = batchSize === undefined || batchSize <= 0 ? Infinity : batchSize;
    if (this.invalidatedDone) return out;
    const lease = this.options.views();
    try {
      let bytes = 0;
      while (out.length < max) {
        const pending = this.fragments.shift();
        if (pending !== undefined) {
          out.push(pending);
          this.lastFragmentToken = pending['_id'];
          bytes += calculateObjectSize(pending);
          if (bytes > limits.batchSizeBytesMax / 2) break;
          continue;
        }
        const row = pullSync(this.plan, lease.view);
        if (row === undefined) break;
        const token = this.source.lastToken;
        const id = row.doc['_id'];
        if (
          token === undefined ||
          !isPlainDocument(id) ||
          Object.keys(id).length !== 1 ||
          id['_data'] !== token['_data']
        ) {
          fail(
            ErrorCode.ChangeStreamFatalError,
            'Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed.',
            { labels: ['NonResumableChangeStreamError'] },
          );
        }
        const doc = this.split === undefined ? row.doc : this.splitIfLarge(row.doc, this.split);
        this.lastFragmentToken = doc === row.doc ? undefined : doc['_id'];
        out.push(doc);
        bytes += calculateObjectSize(doc);
        if (bytes > limits.batchSizeBytesMax / 2) break;
      }
    } finally {
      lease.release();
    }
    if (this.source.invalidated && this.source.drained && this.fragments.length === 0)
      this.invalidatedDone = true;
    this.nReturned += out.length;
    this.lastUsedMs = Date.now();
    return out;
  }

  /**
   * getMore: a batch, waiting up to `awaitMs` for new oplog entries when there is none. A kill
   * of the operation (killOp, aborting `signal`) ends the wait with Interrupted.
   */
  async awaitBatch(
    batchSize: number | undefined,
    awaitMs: number,
    signal?: AbortSignal,
  ): Promise<BsonDocument[]> {
    let batch = this.eventBatch(batchSize);
    const until = Date.now() + awaitMs;
    const interrupted = (): boolean => signal?.aborted === true;
    while (batch.length === 0 && !this.isExhausted && !this.killed) {
      if (interrupted()) throw interruptedError();
      const remaining = until - Date.now();
      if (remaining <= 0) break;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          off();
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, remaining);
        const off = this.oplog.onChange(done);
        signal?.addEventListener('abort', done, { once: true });
      });
      // killSessions kills both the operation and its cursor: the operation's kill wins.
      if (interrupted()) throw interruptedError();
      if (this.killed) break;
      batch = this.eventBatch(batchSize);
    }
    return batch;
  }

  /**
   * An event over 16 MiB: its first fragment (the rest queued). Resumed from a fragment's
   * token, the fragments up to that one are left out, as mongod's split stage does.
   */
  private splitIfLarge(doc: BsonDocument, split: SplitEvents): BsonDocument {
    const size = calculateObjectSize(doc);
    let skip = 0;
    const resume = split.resumeFrom;
    if (resume !== undefined) {
      split.resumeFrom = undefined;
      const id = doc['_id'];
      if (isPlainDocument(id) && id['_data'] === resume.data) {
        if (size <= limits.bsonObjectSizeMax)
          fail(
            ErrorCode.ChangeStreamFatalError,
            'Attempted to resume from a split event fragment, but the event in the resumed stream was not large enough to be split',
          );
        skip = resume.fragmentNum + 1;
      }
    }
    if (size <= limits.bsonObjectSizeMax) return doc;
    // Room is left for the postBatchResumeToken in the reply.
    const tokenBytes = calculateObjectSize(doc['_id'] as BsonDocument);
    const fragments = splitChangeEvent(doc, limits.bsonObjectSizeMax - tokenBytes, skip);
    const first = fragments.shift();
    if (first === undefined)
      fail(
        ErrorCode.ChangeStreamFatalError,
        'Attempted to resume from a split event, but the resumed stream produced a different split. Ensure that the pipeline used to resume is the same as the original',
      );
    this.fragments = fragments;
    return first;
  }

  reply(ns: string, batch: BsonDocument[], first: boolean): BsonDocument {
    const reply = cursorReply(this, ns, batch, first);
    const c = reply['cursor'];
    if (isPlainDocument(c))
      c['postBatchResumeToken'] =
        batch.length > 0 && this.lastFragmentToken !== undefined
          ? this.lastFragmentToken
          : this.source.resumeToken();
    return reply;
  }
}

/** getMore on a change stream cursor (find.ts's getMore hands these over). */
export async function changeStreamGetMore(
  cursor: ChangeStreamCursor,
  ns: string,
  batchSize: number | undefined,
  maxAwaitTimeMS: BsonValue | undefined,
  op: OperationContext,
): Promise<BsonDocument> {
  const n = maxAwaitTimeMS === undefined ? undefined : numericValue(maxAwaitTimeMS);
  if (maxAwaitTimeMS !== undefined && (n === undefined || n < 0))
    fail(ErrorCode.BadValue, 'maxAwaitTimeMS must be a non-negative number');
  let awaitMs = n ?? defaultAwaitMs;
  if (op.deadlineMs !== undefined)
    awaitMs = Math.min(awaitMs, Math.max(0, op.deadlineMs - Date.now() - 5));
  const batch = await cursor.awaitBatch(batchSize, awaitMs, op.signal);
  return cursor.reply(ns, batch, false);
}

/** The aggregate command when its pipeline starts with $changeStream. */
export function runChangeStreamAggregate(
  inv: {
    readonly services: ServerServices;
    readonly args: AggregateLikeArgs;
    readonly db: string;
    readonly op: OperationContext;
  },
  collName: string | undefined,
  batchSize: number | undefined,
): BsonDocument {
  const services = inv.services;
  const { args, db } = inv;
  const oplog = services.oplog;
  if (oplog === undefined)
    fail(ErrorCode.Location40573, 'The $changeStream stage is only supported on replica sets');
  if (args.autocommit === false)
    fail(
      ErrorCode.OperationNotSupportedInTransaction,
      'Operation not permitted in transaction :: caused by :: $changeStream cannot run in a transaction',
    );
  if (args.explain === true)
    fail(ErrorCode.NotImplemented, 'explain of a $changeStream pipeline is not supported yet');
  const pipeline = args.pipeline ?? [];
  const env = newEnv({ now: new Date(), clusterTime: undefined });
  const ctx: PipelineContext = {
    env,
    scope: newScope(undefined),
    db,
    collection: collName,
    allowDiskUse: false,
    subPipelineDepth: 0,
    inFacet: false,
    inLookup: false,
  };
  const parsed = parsePipeline(isArray(pipeline) ? pipeline : [], ctx);
  const stage = parsed.stages[0];
  if (!(stage instanceof ChangeStreamStage))
    fail(ErrorCode.InternalError, 'expected $changeStream first');
  for (const s of parsed.stages.slice(1)) {
    if (!allowedAfter.has(s.name))
      fail(ErrorCode.IllegalOperation, `${s.name} is not permitted in a $changeStream pipeline`);
  }
  const splitAt = parsed.stages.findIndex((s) => s instanceof SplitLargeEventStage);
  if (splitAt >= 0 && splitAt !== parsed.stages.length - 1)
    fail(
      ErrorCode.Location7182802,
      `${splitLargeEventName} must be the last stage in the pipeline`,
    );
  const split: SplitEvents | undefined = splitAt >= 0 ? {} : undefined;
  const spec = stage.spec;
  let target: { db: string | undefined; coll: string | undefined };
  if (spec.allChangesForCluster) {
    if (db !== 'admin' || collName !== undefined) {
      fail(
        ErrorCode.InvalidOptions,
        "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name",
      );
    }
    target = { db: undefined, coll: undefined };
  } else {
    if (db === 'admin' || db === 'config' || db === 'local')
      fail(
        ErrorCode.InvalidNamespace,
        `$changeStream may not be opened on the internal ${db} database`,
      );
    if (collName !== undefined && collName.startsWith('system.'))
      fail(
        ErrorCode.InvalidNamespace,
        `$changeStream may not be opened on the internal ${db}.${collName} collection`,
      );
    target = { db, coll: collName };
  }

  const rt: Runtime = {
    catalog: services.catalog,
    db,
    frame: env.frame,
    allowDiskUse: false,
    interrupt: () => undefined,
  };
  const built = buildPipeline(parsed, { collection: undefined }, rt);
  const source = stage.source;
  if (source === undefined) fail(ErrorCode.InternalError, 'the $changeStream source was not built');

  const lease = inv.op.access.acquireView();
  let position: StreamPosition;
  try {
    const view = lease.view;
    // History before this is gone: pruned, or lost in a crash with --oplog-async/nonlogged.
    const oldest = oplog.reader.historyStart(view);
    const token = spec.resumeAfter ?? spec.startAfter;
    if (token !== undefined) {
      const tok = decodeResumeToken(token);
      if (spec.resumeAfter !== undefined && tok.fromInvalidate) {
        fail(
          ErrorCode.InvalidResumeToken,
          "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification.",
        );
      }
      if (oldest !== undefined && compareTimestamps(tok.clusterTime, oldest) < 0) {
        fail(
          ErrorCode.ChangeStreamHistoryLost,
          'Resume of change stream was not possible, as the resume point may no longer be in the oplog.',
        );
      }
      if (tok.tokenType === tokenTypeEvent && !oplog.reader.hasEntryAt(view, tok.clusterTime)) {
        fail(
          ErrorCode.ChangeStreamFatalError,
          'cannot resume stream; the resume token was not found.',
        );
      }
      if (tok.fragmentNum === undefined) {
        position = positionAfterToken(tok);
      } else {
        // A fragment's token: the stream starts at its event again, and leaves out the
        // fragments up to that one.
        if (split === undefined)
          fail(
            ErrorCode.ChangeStreamFatalError,
            `To resume from a split event, the $changeStream pipeline must end with ${splitLargeEventName}`,
          );
        split.resumeFrom = {
          data: String(encodeResumeToken({ ...tok, fragmentNum: undefined })['_data']),
          fragmentNum: tok.fragmentNum,
        };
        position = {
          after: previousTimestamp(tok.clusterTime),
          skip: { ts: tok.clusterTime, index: tok.txnOpIndex - 1 },
        };
      }
    } else if (spec.startAtOperationTime !== undefined) {
      if (
        oldest !== undefined &&
        compareTimestamps(spec.startAtOperationTime, oldest) < 0 &&
        spec.startAtOperationTime.t !== 0
      ) {
        fail(
          ErrorCode.ChangeStreamHistoryLost,
          'Resume of change stream was not possible, as the resume point may no longer be in the oplog.',
        );
      }
      position = { after: previousTimestamp(spec.startAtOperationTime) };
    } else {
      position = { after: oplog.reader.startPosition(view) };
    }
  } finally {
    lease.release();
  }
  const events = source.start(
    {
      ...target,
      fullDocument: spec.fullDocument,
      fullDocumentBeforeChange: spec.fullDocumentBeforeChange,
      showExpandedEvents: spec.showExpandedEvents,
      showRawUpdateDescription: spec.showRawUpdateDescription,
    },
    position,
  );

  const ns = collName === undefined ? `${db}.$cmd.aggregate` : fullName(db, collName);
  const cursor = new ChangeStreamCursor(
    built.plan,
    events,
    oplog,
    {
      ns,
      owner: { sessionKey: inv.op.session?.session.key },
      comment: args.comment,
      views: () => inv.op.access.acquireView(),
      tailable: true,
      awaitData: true,
    },
    split,
  );
  const batch = batchSize === 0 ? [] : cursor.eventBatch(batchSize ?? limits.firstBatchDocsDefault);
  if (!cursor.isExhausted) services.cursors.register(cursor);
  return cursor.reply(ns, batch, true);
}

/** Codes after which a driver may resume a change stream (mongod's isResumableChangeStreamError). */
const resumableCodes = new Set<number>([
  6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436, 63, 150, 234, 133, 43,
]);

/** The labels of an error injected into getMore: the failpoint's, plus mongod's change stream label. */
export function failPointLabels(cursor: ServerCursor, data: BsonDocument): string[] {
  const given = data['errorLabels'];
  const labels = isArray(given) ? given.filter((l): l is string => typeof l === 'string') : [];
  const code = numericValue(data['errorCode']);
  if (
    cursor instanceof ChangeStreamCursor &&
    code !== undefined &&
    resumableCodes.has(code) &&
    !labels.includes('ResumableChangeStreamError')
  ) {
    labels.push('ResumableChangeStreamError');
  }
  return labels;
}
