// Pieces shared by the CRUD commands: the target namespace, numeric argument checks,
// cursor replies, and the storage write with the operation's write concern.

import { Binary, Long } from 'bson';
import type { Timestamp } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { bsonTypeName, isPlainDocument, numericValue } from '../../bson/types.js';
import { parseCollation } from '../../bson/collation.js';
import type { Collator } from '../../bson/collation.js';
import type { Collection } from '../../catalog/collection.js';
import { isReplicatedNamespace, validateCollectionName } from '../../catalog/namespace.js';
import { lookupView, resolveView } from '../../catalog/views.js';
import type { ResolvedView, ViewDefinition } from '../../catalog/views.js';
import { CommandError, ErrorCode, fail } from '../../errors.js';
import type { ReadView, WriteTxn } from '../../storage/engine.js';
import { ServerCursor } from '../../query/exec/cursor.js';
import { RowsStage } from '../../query/exec/stages.js';
import type { ExecControl, RestoreCheck } from '../../query/exec/drive.js';
import { maxTimeOverride } from '../testing/failpoints.js';
import type { Catalog, CatalogScope } from '../../catalog/catalog.js';
import type { OperationContext, ServerServices } from '../context.js';
import type { ArgSpec } from '../args.js';
import type { Invocation } from '../registry.js';
import { writeConcernError } from '../write-concern.js';
import { supports } from '../version.js';
import { examinedTotals } from '../../query/planner/explain.js';
import { scriptHost } from '../../js/engine.js';
import type { ScriptHost } from '../../js/engine.js';

/** The collection a command names with its first field (a string, or a UUID for some). */
export function targetCollection(
  inv: Invocation<ArgSpec>,
  options: { allowSystem?: boolean } = {},
): string {
  const target = inv.target;
  if (typeof target === 'string') {
    validateCollectionName(inv.db, target, { allowSystem: options.allowSystem ?? true });
    return target;
  }
  if (target instanceof Binary && target.sub_type === Binary.SUBTYPE_UUID) {
    const hex = Buffer.from(target.buffer.subarray(0, target.position)).toString('hex');
    const coll = inv.services.catalog.collections(inv.db).find((c) => c.meta.uuid === hex);
    if (coll === undefined)
      throw new CommandError(ErrorCode.NamespaceNotFound, `UUID ${hex} not found`);
    return coll.meta.name;
  }
  throw new CommandError(
    ErrorCode.InvalidNamespace,
    `collection name has invalid type ${target === null ? 'null' : typeof target === 'object' ? 'object' : typeof target}`,
  );
}

/** mongod's IDL check for `>= 0` fields (skip, limit, batchSize). */
export function requireNonNegative(
  command: string,
  field: string,
  v: number | undefined,
): number | undefined {
  if (v !== undefined && v < 0) {
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field '${field}' value must be >= 0, actual value '${v}'`,
    );
  }
  return v;
}

/** What a cursor's batches examined before the current one (a getMore reports its own part). */
const examinedBefore = new WeakMap<ServerCursor, { keys: number; docs: number }>();

/** Records a batch in the operation's debug info: documents returned, keys and documents examined, plan. */
export function noteBatch(
  op: OperationContext,
  cursor: ServerCursor,
  batch: readonly unknown[],
): void {
  const debug = op.debug;
  const stats = cursor.plan.stats;
  const now = examinedTotals(stats);
  const before = examinedBefore.get(cursor);
  debug.keysExamined = now.keys - (before?.keys ?? 0);
  debug.docsExamined = now.docs - (before?.docs ?? 0);
  debug.nreturned = batch.length;
  debug.plan = stats;
  debug.cursorExhausted = cursor.isExhausted;
  if (!cursor.isExhausted) {
    debug.cursorid = cursor.id;
    examinedBefore.set(cursor, now);
  }
}

/** `cursor: {batchSize}`, validated as mongod's IDL does (unknown fields 40415, >= 0 51024). */
export function parseCursorOption(
  command: string,
  cursor: BsonDocument | undefined,
): number | undefined {
  if (cursor === undefined) return undefined;
  let batchSize: number | undefined;
  for (const [k, v] of Object.entries(cursor)) {
    if (k === 'batchSize') {
      const n = numericValue(v);
      if (n === undefined)
        fail(
          ErrorCode.TypeMismatch,
          `BSON field '${command}.cursor.batchSize' is the wrong type '${bsonTypeName(v)}', expected types '[long, int, decimal, double]'`,
        );
      batchSize = Math.trunc(n);
      if (batchSize < 0)
        fail(
          ErrorCode.Location51024,
          `BSON field 'batchSize' value must be >= 0, actual value '${batchSize}'`,
        );
    } else if (k !== 'singleBatch') {
      fail(ErrorCode.Location40415, `BSON field '${command}.cursor.${k}' is an unknown field.`);
    }
  }
  return batchSize;
}

/**
 * The reply of a command whose documents are computed up front (listCollections,
 * listIndexes): the first `batchSize` of them (all when absent), and a cursor over the rest
 * that getMore reads, as mongod's queued-data cursors.
 */
export async function queuedCursorReply(
  inv: Invocation<ArgSpec>,
  ns: string,
  docs: readonly BsonDocument[],
  batchSize: number | undefined,
): Promise<BsonDocument> {
  const cursor = new ServerCursor(new RowsStage(docs.map((doc) => ({ doc }))), {
    ns,
    owner: { sessionKey: inv.op.session?.session.key },
    views: () => inv.op.access.acquireView(),
  });
  const batch = batchSize === 0 ? [] : await cursor.nextBatch(batchSize, inv.op);
  if (!cursor.isExhausted) inv.services.cursors.register(cursor);
  return cursorReply(cursor, ns, batch, true);
}

/** After a batch: what the cursor's time limit has left (none for tailable cursors). */
export function keepTimeLeft(cursor: ServerCursor, deadlineMs: number | undefined): void {
  if (deadlineMs === undefined || cursor.options.tailable === true) return;
  cursor.maxTimeLeftMs = Math.max(1, deadlineMs - Date.now());
}

/**
 * A getMore's control: a cursor opened with maxTimeMS runs its batch within what is left of
 * that limit (MaxTimeMSExpired past it; the maxTime failpoints act on it as on any limit).
 */
export function cursorTimeLimit(
  services: ServerServices,
  op: OperationContext,
  cursor: ServerCursor,
): ExecControl {
  const left = cursor.maxTimeLeftMs;
  if (left === undefined) return op;
  const override = maxTimeOverride(services.failPoints);
  if (override === 'expired') throw maxTimeExpired();
  if (override === 'unlimited') return op;
  const deadlineMs = Math.min(op.deadlineMs ?? Infinity, Date.now() + left);
  return {
    signal: op.signal,
    deadlineMs,
    noteYield: () => op.noteYield(),
    checkDeadline: () => {
      op.checkDeadline();
      if (Date.now() > deadlineMs) throw maxTimeExpired();
    },
  };
}

function maxTimeExpired(): CommandError {
  return new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
}

export function cursorReply(
  cursor: ServerCursor | undefined,
  ns: string,
  batch: BsonDocument[],
  first: boolean,
  atClusterTime?: Timestamp,
): BsonDocument {
  const id = cursor === undefined || cursor.isExhausted ? Long.ZERO : cursor.id;
  if (cursor !== undefined) cursor.nBatchesReturned++;
  const c: BsonDocument = { [first ? 'firstBatch' : 'nextBatch']: batch, id, ns };
  if (atClusterTime !== undefined) c['atClusterTime'] = atClusterTime;
  return { cursor: c };
}

/**
 * Run `fn` in one storage write transaction and wait as the write concern asks. Returns
 * the callback's result and the writeConcernError to report, if any.
 */
export async function writeWithConcern<T>(
  services: ServerServices,
  op: OperationContext,
  fn: (txn: WriteTxn) => T,
): Promise<{ result: T; wcError: BsonDocument | undefined }> {
  const result = await op.access.write(fn);
  return { result, wcError: writeConcernError(op.writeConcern, services.config.replSet) };
}

/** The collection `db.name` as the operation sees it (with its transaction's own changes). */
export function lookupCollection(
  services: ServerServices,
  op: OperationContext,
  db: string,
  name: string,
): Collection | undefined {
  return services.catalog.get(db, name, op.access.transaction);
}

/** Whether the operation reads at readConcern snapshot (in a transaction or not). */
function readsAtSnapshot(op: OperationContext): boolean {
  return (
    op.atClusterTime !== undefined || op.access.transaction?.readConcern?.['level'] === 'snapshot'
  );
}

/**
 * The collection a read command reads (find, aggregate, count, distinct), checked as mongod
 * checks a read's collection: a snapshot read of a capped collection is SnapshotUnavailable
 * under 7.0; 8.0 allows it, except on a collection that is not replicated (system.profile).
 */
export function readCollection(
  services: ServerServices,
  op: OperationContext,
  db: string,
  name: string,
): Collection | undefined {
  const coll = lookupCollection(services, op, db, name);
  if (coll?.capped === undefined || !readsAtSnapshot(op)) return coll;
  if (!supports(services.config.reported, 'snapshotReadsOnCapped'))
    fail(
      ErrorCode.SnapshotUnavailable,
      'Reading from capped collections with readConcern snapshot is not supported',
    );
  if (!isReplicatedNamespace(name))
    fail(
      ErrorCode.SnapshotUnavailable,
      'Reading from non replicated capped collections with readConcern snapshot is not supported',
    );
  return coll;
}

/** Runs `fn` on the operation's read view (its transaction's snapshot, or the latest). */
function atOperationView<T>(op: OperationContext, fn: (view: ReadView) => T): T {
  const lease = op.access.acquireView();
  try {
    return fn(lease.view);
  } finally {
    lease.release();
  }
}

/**
 * What a read checks when it resumes after a yield (mongod's restoreState): the collection it
 * planned on is still there, not dropped or renamed meanwhile. A read of a collection that did
 * not exist has nothing to lose.
 */
export function collectionRestoreCheck(
  catalog: Catalog,
  db: string,
  name: string,
  coll: Collection | undefined,
  scope: CatalogScope,
): RestoreCheck | undefined {
  if (coll === undefined) return undefined;
  return () => {
    if (catalog.get(db, name, scope) !== coll)
      throw new CommandError(
        ErrorCode.QueryPlanKilled,
        `collection dropped :: caused by :: ${db}.${name} was dropped or renamed while the query ran`,
      );
  };
}

/** The view `db.name` as the operation sees it. */
export function viewOf(
  services: ServerServices,
  op: OperationContext,
  db: string,
  name: string,
): ViewDefinition | undefined {
  if (services.catalog.get(db, name, op.access.transaction) !== undefined) return undefined;
  return atOperationView(op, (view) => lookupView(services.catalog, view, db, name));
}

/** Whether a read command (find, count, distinct) names a view: it then runs as an aggregate. */
export function isViewRead(inv: Invocation<ArgSpec>): boolean {
  return (
    typeof inv.target === 'string' &&
    viewOf(inv.services, inv.op, inv.db, targetCollection(inv)) !== undefined
  );
}

/** What a read of `db.name` runs on when it names a view: the collection and the views' pipeline. */
export function resolvedViewOf(
  services: ServerServices,
  op: OperationContext,
  db: string,
  name: string,
): ResolvedView | undefined {
  if (services.catalog.get(db, name, op.access.transaction) !== undefined) return undefined;
  return atOperationView(op, (view) => resolveView(services.catalog, view, db, name));
}

/** $$CLUSTER_TIME for expressions: the cluster time of a replica set member; a standalone has none. */
export function clusterTimeOf(services: ServerServices): Timestamp | undefined {
  return services.config.replSet === '' ? undefined : services.clock.now();
}

/** The command's server-side JavaScript ($where, $function, ...); undefined when scripting is off. */
export function scriptingOf(
  services: ServerServices,
  op: OperationContext,
): ScriptHost | undefined {
  return scriptHost(services.scriptEngine, op);
}

/**
 * The collation an operation runs with: its own `collation` (checked as mongod does; {locale:
 * "simple"} is binary comparison), else the collection's default. Undefined means simple.
 */
export function resolveCollation(
  coll: Collection | undefined,
  collation: BsonDocument | undefined,
): Collator | undefined {
  if (collation !== undefined) return parseCollation(collation);
  return collectionCollation(coll);
}

const defaultCollators = new WeakMap<BsonDocument, Collator>();

/** A collection's default collation (create's `collation`), parsed once per stored spec. */
export function collectionCollation(coll: Collection | undefined): Collator | undefined {
  const spec = coll?.meta.options['collation'];
  if (!isPlainDocument(spec)) return undefined;
  let collator = defaultCollators.get(spec);
  if (collator === undefined) {
    collator = parseCollation(spec);
    if (collator === undefined) return undefined;
    defaultCollators.set(spec, collator);
  }
  return collator;
}
