// find, getMore and killCursors.

import { Long } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { numericValue } from '../../bson/types.js';
import { interruptedError, redactCommand } from '../operations.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import { ServerCursor } from '../../query/exec/cursor.js';
import type { RestoreCheck } from '../../query/exec/drive.js';
import type { PlanStage, Row } from '../../query/exec/stages.js';
import {
  commandExpressions,
  compileQueryFilter,
  textSearchHook,
  compileQueryProjection,
  compileQuerySort,
} from '../query-language.js';
import { planQuery } from '../../query/planner/planner.js';
import { asksForTextScore, requireTextScore } from '../../query/planner/text-plan.js';
import { planOplogQuery } from '../../query/exec/oplog-scan.js';
import { fullName } from '../../catalog/namespace.js';
import { t, typeNameOf } from '../args.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition, Invocation } from '../registry.js';
import { cursorReply, noteBatch, keepTimeLeft, cursorTimeLimit } from './cursor-reply.js';
import { clusterTimeOf, scriptingOf, resolveCollation } from './operation-env.js';
import { collectionRestoreCheck, isViewRead, readCollection, targetCollection } from './target.js';
import { resolveHint } from './hint.js';
import {
  ChangeStreamCursor,
  changeStreamGetMore,
  failPointLabels,
} from './change-stream-cursor.js';
import { diskUseFor } from './disk-use.js';
import { runFindOnView } from './view-reads.js';
import { findArgs, requireNonNegative } from './read-args.js';
import {
  authenticatedOnly,
  checkCursorOwner,
  mayKillCursor,
  onCollection,
  unauthorized,
} from '../authorization.js';

/** What a find runs: its plan and how rows become the documents sent (shared with explain). */
export interface PreparedFind {
  readonly ns: string;
  readonly plan: PlanStage;
  readonly output: ((row: Row) => BsonDocument) | undefined;
  readonly limit: number | undefined;
  readonly batchSize: number | undefined;
  /** Deletes the spill files of a blocking sort (the cursor's onClose). */
  readonly release: () => void;
  /** Checked when the read resumes after a yield: the collection is still the one planned on. */
  readonly restore: RestoreCheck | undefined;
}

export function prepareFind(inv: Invocation<typeof findArgs>): PreparedFind {
  const { services, args, db } = inv;
  const name = targetCollection(inv);
  const ns = fullName(db, name);
  const skip = requireNonNegative('find', 'skip', args.skip);
  const limit = requireNonNegative('find', 'limit', args.limit);
  const batchSize = requireNonNegative('find', 'batchSize', args.batchSize);
  const coll = readCollection(services, inv.op, db, name);
  const collator = resolveCollation(coll, args.collation);
  const expressions = commandExpressions({
    let: args.let,
    clusterTime: clusterTimeOf(services),
    collator,
    scripting: scriptingOf(services, inv.op),
  });
  const tailable = args.tailable === true;
  if (tailable) checkTailable(inv, ns, coll?.capped !== undefined || coll === undefined);
  else if (args.awaitData === true) {
    throw new CommandError(ErrorCode.FailedToParse, 'Cannot set awaitData without tailable');
  }
  const filter = args.filter ?? {};
  const matcher = compileQueryFilter(filter, {
    expressions,
    collator,
    textSearch: textSearchHook(ns, coll),
  });
  const sort = compileQuerySort(args.sort, collator);
  const hint = resolveHint(coll, args.hint);
  const disk = diskUseFor(services, args.allowDiskUse);
  const projection = compileQueryProjection(args.projection, { expressions, collator });
  // After the sort and projection parse (their own errors come first, as in mongod).
  const wantTextScore = asksForTextScore(args.projection) || asksForTextScore(args.sort);
  if (wantTextScore) requireTextScore(matcher);
  if (db === 'local' && name === 'oplog.rs' && services.oplog !== undefined) {
    // The oplog is a table of its own, not a catalog collection: read it in natural order.
    const oplogPlan = planOplogQuery({
      matcher,
      sort: sort.comparator,
      natural: hint.natural ?? sort.natural,
      skip,
      limit,
      projection: projection?.transform,
      allowDiskUse: args.allowDiskUse === true,
    });
    return {
      ns,
      plan: oplogPlan,
      output: outputFor(false, false),
      limit,
      batchSize,
      release: () => undefined,
      restore: undefined,
    };
  }
  const plan = planQuery(coll, {
    filter,
    matcher,
    collator,
    sort: sort.comparator,
    sortSpec: sort.comparator === undefined ? undefined : args.sort,
    natural: tailable ? 1 : (hint.natural ?? sort.natural),
    tailable,
    skip,
    limit,
    projection: projection?.transform,
    projectionSpec: args.projection,
    projectionFields: projection?.coveredFields,
    allowDiskUse: disk.allowDiskUse,
    memory: disk.memory,
    interrupt: () => inv.op.checkDeadline(),
    hint: args.hint,
    min: args.min,
    max: args.max,
    returnKey: args.returnKey === true,
    wantTextScore,
  });
  return {
    ns,
    plan,
    output: outputFor(args.returnKey === true, args.showRecordId === true),
    limit,
    batchSize,
    release: disk.release,
    restore: collectionRestoreCheck(services.catalog, db, name, coll, inv.op.access.transaction),
  };
}

/**
 * A tailable find (mongod's query_request_helper and find command checks): only on a capped
 * collection, in natural order, not as a single batch, not in a transaction.
 */
function checkTailable(inv: Invocation<typeof findArgs>, ns: string, capped: boolean): void {
  const { args } = inv;
  const sort = args.sort;
  if (sort !== undefined && Object.keys(sort).length > 0) {
    const keys = Object.keys(sort);
    if (keys.length !== 1 || keys[0] !== '$natural' || numericValue(sort['$natural']) !== 1)
      throw new CommandError(
        ErrorCode.BadValue,
        'cannot use tailable option with a sort other than {$natural: 1}',
      );
  }
  if (args.singleBatch === true)
    throw new CommandError(
      ErrorCode.BadValue,
      "cannot use tailable option with the 'singleBatch' option",
    );
  if (inv.op.access.transaction !== undefined)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'It is illegal to open a tailable cursor in a transaction',
    );
  if (!capped)
    throw new CommandError(
      ErrorCode.BadValue,
      `error processing query: ${ns} tailable cursor requested on non capped collection`,
    );
}

export const find = defineCommand({
  name: 'find',
  auth: onCollection('find'),
  args: findArgs,
  traits: { counter: 'query', allowedInTransaction: true, snapshotReads: true, apiVersion1: true },
  run: async (inv) => {
    const { services, args } = inv;
    if (isViewRead(inv)) return runFindOnView(inv);
    const { ns, plan, output, limit, batchSize, release, restore } = prepareFind(inv);
    const tailable = args.tailable === true;
    // Known from now on to $currentOp (planSummary) as mongod's CurOp knows its executor's.
    inv.op.debug.plan = plan.stats;
    const cursor = new ServerCursor(plan, {
      ns,
      onClose: release,
      restore,
      views: () => inv.op.access.acquireView(),
      owner: { sessionKey: inv.op.session?.session.key },
      ...(output === undefined ? {} : { output }),
      comment: args.comment,
      sendStoredBytes: true,
      noCursorTimeout: args.noCursorTimeout === true,
      originatingCommand: redactCommand(inv.body),
      ...(tailable ? { tailable, awaitData: args.awaitData === true } : {}),
    });
    // mongod keeps no tailable cursor on an empty (or missing) collection: it has no position.
    if (tailable && isEmptyCollection(inv)) {
      cursor.close();
      return cursorReply(undefined, ns, [], true, inv.op.atClusterTime);
    }
    const firstBatchSize =
      args.singleBatch === true
        ? (limit ?? batchSize ?? 0)
        : (batchSize ?? limits.firstBatchDocsDefault);
    if (batchSize === 0 && args.singleBatch !== true) {
      // batchSize 0: open the cursor and return nothing yet.
      services.cursors.register(cursor);
      return cursorReply(cursor, ns, [], true, inv.op.atClusterTime);
    }
    const batch = await cursor.nextBatch(firstBatchSize === 0 ? undefined : firstBatchSize, inv.op);
    noteBatch(inv.op, cursor, batch);
    keepTimeLeft(cursor, inv.op.deadlineMs);
    if (args.singleBatch === true || cursor.isExhausted) {
      cursor.close();
      return cursorReply(undefined, ns, batch, true, inv.op.atClusterTime);
    }
    services.cursors.register(cursor);
    return cursorReply(cursor, ns, batch, true, inv.op.atClusterTime);
  },
});

function isEmptyCollection(inv: Invocation<typeof findArgs>): boolean {
  const coll = inv.services.catalog.get(inv.db, targetCollection(inv), inv.op.access.transaction);
  if (coll === undefined) return true;
  const lease = inv.op.access.acquireView();
  try {
    return coll.count(lease.view) === 0;
  } finally {
    lease.release();
  }
}

/**
 * getMore on a tailable cursor: the documents inserted since its last batch. An awaitData
 * cursor with nothing new waits for an insert into the collection, up to the getMore's
 * maxTimeMS (the driver's maxAwaitTimeMS; 1 s by default, as mongod), and then answers an
 * empty batch; the cursor stays open either way.
 */
async function tailableGetMore(
  inv: Invocation<typeof getMoreArgs>,
  cursor: ServerCursor,
  batchSize: number | undefined,
): Promise<BsonDocument[]> {
  const { services, args, op } = inv;
  if (cursor.options.awaitData !== true) return cursor.nextBatch(batchSize, op);
  const given = args.maxTimeMS ?? args.maxAwaitTimeMS;
  const n = given === undefined ? undefined : numericValue(given);
  if (given !== undefined && (n === undefined || n < 0))
    throw new CommandError(ErrorCode.BadValue, 'maxTimeMS must be a non-negative number');
  let awaitMs = n ?? limits.tailableAwaitMsDefault;
  if (op.deadlineMs !== undefined)
    awaitMs = Math.min(awaitMs, Math.max(0, op.deadlineMs - Date.now() - 5));
  const until = Date.now() + awaitMs;
  let inserted = false;
  let wake: (() => void) | undefined;
  const off = services.catalog.onCappedInsert(cursor.ns, () => {
    inserted = true;
    wake?.();
  });
  try {
    for (;;) {
      inserted = false;
      const batch = await cursor.nextBatch(batchSize, op);
      const remaining = until - Date.now();
      if (batch.length > 0 || cursor.killed || remaining <= 0) return batch;
      if (!inserted) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            op.signal.removeEventListener('abort', done);
            wake = undefined;
            resolve();
          };
          const timer = setTimeout(done, remaining);
          wake = done;
          op.signal.addEventListener('abort', done, { once: true });
        });
      }
      if (op.signal.aborted) throw interruptedError();
      if (Date.now() >= until && !inserted) return [];
    }
  } finally {
    off();
  }
}

function outputFor(
  returnKey: boolean,
  showRecordId: boolean,
): ((row: Row) => BsonDocument) | undefined {
  if (returnKey) return (row) => row.indexKey ?? {};
  if (showRecordId) {
    return (row) =>
      row.recordId === undefined
        ? row.doc
        : { ...row.doc, $recordId: Long.fromNumber(row.recordId) };
  }
  return undefined;
}

const getMoreArgs = {
  collection: t.string,
  batchSize: t.int64,
  term: t.ignored,
  lastKnownCommittedOpTime: t.ignored,
  maxTimeMS: t.any,
  maxAwaitTimeMS: t.any,
};

export const getMore = defineCommand({
  name: 'getMore',
  auth: authenticatedOnly,
  args: getMoreArgs,
  traits: { counter: 'getmore', allowedInTransaction: true, apiVersion1: true },
  run: async (inv) => {
    const { services, args, db, target } = inv;
    if (!(target instanceof Long)) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `BSON field 'getMore.getMore' is the wrong type '${typeNameOf(target)}', expected type 'long'`,
      );
    }
    if (args.collection === undefined) {
      throw missingFieldError('getMore.collection');
    }
    const batchSize = requireNonNegative('getMore', 'batchSize', args.batchSize);
    const cursor = services.cursors.get(target);
    if (cursor === undefined)
      throw new CommandError(ErrorCode.CursorNotFound, `cursor id ${target.toString()} not found`);
    checkCursorOwner(services, inv.connection, cursor);
    const ns = fullName(db, args.collection);
    if (cursor.ns !== ns) {
      throw new CommandError(
        ErrorCode.Unauthorized,
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
      );
    }
    if (cursor.inUse)
      throw new CommandError(
        ErrorCode.CursorInUse,
        `Cursor already in use (namespace: '${ns}', id: ${target.toString()}).`,
      );
    if (cursor.invalidation !== undefined) {
      services.cursors.remove(target);
      throw new CommandError(
        ErrorCode.QueryPlanKilled,
        `Executor error during getMore :: caused by :: ${cursor.invalidation}`,
      );
    }
    const fp = services.failPoints.check('failGetMoreAfterCursorCheckout');
    if (fp !== undefined) {
      const code = fp['errorCode'];
      const labels = failPointLabels(cursor, fp);
      throw new CommandError(
        typeof code === 'object' && code !== null
          ? Number(code.valueOf())
          : ErrorCode.InternalError,
        'Failing getMore due to failGetMoreAfterCursorCheckout failpoint',
        { labels },
      );
    }
    cursor.inUse = true;
    // What $currentOp shows of the getMore (its cursor, the plan) and the slow-query line's originatingCommand.
    inv.op.debug.cursor = cursor;
    if (!(cursor instanceof ChangeStreamCursor)) inv.op.debug.plan = cursor.plan.stats;
    try {
      if (cursor instanceof ChangeStreamCursor)
        return await changeStreamGetMore(cursor, ns, batchSize, args.maxAwaitTimeMS, inv.op);
      let batch: BsonDocument[];
      if (cursor.options.tailable === true) {
        batch = await tailableGetMore(inv, cursor, batchSize);
      } else {
        const ctl = cursorTimeLimit(services, inv.op, cursor);
        batch = await cursor.nextBatch(batchSize, ctl);
        if (ctl !== inv.op) keepTimeLeft(cursor, ctl.deadlineMs);
      }
      noteBatch(inv.op, cursor, batch);
      if (cursor.isExhausted) services.cursors.remove(cursor.id);
      return cursorReply(cursor, ns, batch, false);
    } catch (e) {
      services.cursors.remove(cursor.id);
      throw e;
    } finally {
      cursor.inUse = false;
    }
  },
});

/** The collection part of the namespaces that commands not reading a collection open cursors on. */
function isCommandCursorNamespace(name: string): boolean {
  return (
    name === '$cmd.aggregate' ||
    name === '$cmd.bulkWrite' ||
    name === '$cmd.listCollections' ||
    name.startsWith('$cmd.listIndexes.')
  );
}

export const killCursors = defineCommand({
  name: 'killCursors',
  auth: authenticatedOnly,
  args: { cursors: t.array },
  traits: { allowedInTransaction: true, apiVersion1: true },
  run: (inv) => {
    const { services, args, db } = inv;
    // Cursors of collection-less commands live on `<db>.$cmd.<command>` (a database-level
    // change stream, listCollections); mongod kills them by that namespace too.
    const name =
      typeof inv.target === 'string' && isCommandCursorNamespace(inv.target)
        ? inv.target
        : targetCollection(inv);
    const ns = fullName(db, name);
    if (args.cursors === undefined) {
      throw missingFieldError('killCursors.cursors');
    }
    const killed: Long[] = [];
    const notFound: Long[] = [];
    const alive: Long[] = [];
    for (const v of args.cursors) {
      if (!(v instanceof Long)) {
        throw new CommandError(
          ErrorCode.TypeMismatch,
          `BSON field 'killCursors.cursors' contains an element of the wrong type, expected type 'long'`,
        );
      }
      const c = services.cursors.get(v);
      // Another user's cursor needs killAnyCursor on its namespace (mongod's checkAuthForKillCursors).
      if (c !== undefined && c.ns === ns && !mayKillCursor(services, inv.connection, c))
        throw unauthorized(db, inv.body);
      if (c === undefined || c.ns !== ns) notFound.push(v);
      else if (c.inUse) alive.push(v);
      else {
        services.cursors.remove(v);
        killed.push(v);
      }
    }
    return {
      cursorsKilled: killed,
      cursorsNotFound: notFound,
      cursorsAlive: alive,
      cursorsUnknown: [],
    };
  },
});

export const findCommands: CommandDefinition[] = [find, getMore, killCursors];
