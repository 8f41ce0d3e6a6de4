// What a CRUD command names: its collection (by name or UUID) or view, looked up as the
// operation sees the catalog, and the check a read makes when it resumes after a yield.

import { Binary } from 'bson';
import type { Collection } from '../../catalog/collection.js';
import { isReplicatedNamespace, validateCollectionName } from '../../catalog/namespace.js';
import { lookupView, resolveView } from '../../catalog/views.js';
import type { ResolvedView, ViewDefinition } from '../../catalog/views.js';
import type { Catalog, CatalogScope } from '../../catalog/catalog.js';
import { CommandError, ErrorCode, fail } from '../../errors.js';
import type { ReadView } from '../../storage/engine.js';
import type { RestoreCheck } from '../../query/exec/drive.js';
import type { OperationContext, ServerServices } from '../context.js';
import type { ArgSpec } from '../args.js';
import type { Invocation } from '../registry.js';
import { supports } from '../version.js';

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

/** The collection `db.name` as the operation sees it (with its transaction's own changes). */
function lookupCollection(
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
