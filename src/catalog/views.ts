// Views: read-only namespaces defined by an aggregation pipeline over another collection or view
// of the same database. As in mongod, a database's views are documents of its `system.views`
// collection, `{_id: "<db>.<view>", viewOn, pipeline}`: they are stored, logged (change streams
// turn those inserts, replacements and deletes into create, modify and drop events) and dropped
// with the database like any other documents, and a `find` on system.views shows them. Nothing
// is cached: a lookup reads the definition at the caller's snapshot, so a transaction sees the
// views of its snapshot and a write transaction its own changes.
//
// The dependency graph (viewOn plus the collections the pipeline reads: $lookup, $graphLookup,
// $unionWith, nested in $facet and sub-pipelines) must stay acyclic and no path through it
// longer than limits.viewDepthMax (mongod's ViewGraph).

import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isArray, isPlainDocument } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import type { ReadView, WriteTxn } from '../storage/engine.js';
import type { Catalog } from './catalog.js';
import type { Collection } from './collection.js';
import { fullName } from './namespace.js';
import { listViews, lookupView, systemViewsName, viewDocument } from './view-definitions.js';
import type { ViewDefinition } from './view-definitions.js';
import { deleteDocument, insertDocument, internalWrite, updateDocument } from './write-unit.js';
import { insertAll } from '../bson/arrays.js';

export {
  listViews,
  lookupView,
  notACollection,
  systemViewsName,
  viewDocument,
} from './view-definitions.js';
export type { ViewDefinition } from './view-definitions.js';

/**
 * Within a write transaction: store a view's definition, inserting it (system.views is created
 * on first use) or replacing the stored one, through the write unit like any document write.
 */
export function storeView(catalog: Catalog, txn: WriteTxn, def: ViewDefinition): void {
  const coll: Collection = catalog.getOrCreate(txn, def.db, systemViewsName);
  const doc = viewDocument(def);
  const existing = coll.findById(txn, doc['_id'] as string);
  const w = internalWrite(txn, catalog);
  if (existing === undefined) {
    insertDocument(w, { db: def.db, name: systemViewsName }, doc);
  } else {
    // A replacement, never a diff: change streams report it as a modify event with the new
    // definition (mongod logs the collMod of a view the same way).
    updateDocument(w, coll, existing, doc, undefined);
  }
}

/** Within a write transaction: remove a view's definition; false if there was none. */
export function removeView(catalog: Catalog, txn: WriteTxn, db: string, name: string): boolean {
  const coll = catalog.get(db, systemViewsName);
  const existing = coll?.findById(txn, fullName(db, name));
  if (coll === undefined || existing === undefined) return false;
  deleteDocument(internalWrite(txn, catalog), coll, existing);
  return true;
}

export interface ResolvedView {
  /** The collection finally read. */
  readonly collection: string;
  /** The views' pipelines, innermost view first, to run before the command's own pipeline. */
  readonly pipeline: BsonDocument[];
  /** The named view's default collation (undefined: simple); the views under it share it. */
  readonly collation: BsonDocument | undefined;
}

/**
 * A read on `db.name`: the collection it ends up reading and the pipeline in front of the
 * command's own, or undefined when `name` is not a view.
 */
export function resolveView(
  catalog: Catalog,
  view: ReadView,
  db: string,
  name: string,
): ResolvedView | undefined {
  let current = lookupView(catalog, view, db, name);
  if (current === undefined) return undefined;
  const collation = current.collation;
  const pipeline: BsonDocument[] = [];
  for (let depth = 0; depth < limits.viewDepthMax; depth++) {
    insertAll(pipeline, 0, current.pipeline);
    const next = lookupView(catalog, view, db, current.viewOn);
    if (next === undefined) return { collection: current.viewOn, pipeline, collation };
    current = next;
  }
  throw new CommandError(
    ErrorCode.ViewDepthLimitExceeded,
    `View depth too deep or view cycle detected; maximum depth is ${limits.viewDepthMax}`,
  );
}

// ---- the dependency graph ----------------------------------------------------------------------

/** Collections of `db` a pipeline reads besides its input ($lookup, $graphLookup, $unionWith, nested). */
export function involvedCollections(pipeline: readonly BsonValue[], db: string): Set<string> {
  const out = new Set<string>();
  const from = (v: BsonValue | undefined): void => {
    if (typeof v === 'string') out.add(v);
    else if (isPlainDocument(v) && v['db'] === db && typeof v['coll'] === 'string')
      out.add(v['coll']);
  };
  const walk = (stages: readonly BsonValue[]): void => {
    for (const stage of stages) {
      if (!isPlainDocument(stage)) continue;
      for (const [name, arg] of Object.entries(stage)) {
        if (name === '$unionWith' && typeof arg === 'string') out.add(arg);
        if (!isPlainDocument(arg)) continue;
        if (name === '$lookup' || name === '$graphLookup') from(arg['from']);
        if (name === '$unionWith') from(arg['coll']);
        if ((name === '$lookup' || name === '$unionWith') && isArray(arg['pipeline']))
          walk(arg['pipeline']);
        if (name === '$facet') for (const sub of Object.values(arg)) if (isArray(sub)) walk(sub);
      }
    }
  };
  walk(pipeline);
  return out;
}

/**
 * Checks that defining (or redefining) `def` keeps the database's view graph valid, as mongod's
 * ViewGraph::insertAndValidate: no cycle through `def` (GraphContainsCycle, naming the cycle),
 * and no chain of views through it longer than limits.viewDepthMax (ViewDepthLimitExceeded).
 */
export function checkViewGraph(catalog: Catalog, view: ReadView, def: ViewDefinition): void {
  const children = new Map<string, readonly string[]>();
  for (const v of listViews(catalog, view, def.db)) {
    if (v.name !== def.name) children.set(v.name, refsOf(v));
  }
  children.set(def.name, refsOf(def));
  const ns = (name: string): string => fullName(def.db, name);
  const depthError = (): CommandError =>
    new CommandError(
      ErrorCode.ViewDepthLimitExceeded,
      `View depth limit exceeded; maximum depth is ${limits.viewDepthMax}`,
    );

  // Downwards: a cycle back to the new view, and the height of what it reads (a collection is 1).
  const heights = new Map<string, number>();
  const path: string[] = [];
  const down = (name: string, depth: number): number => {
    path.push(name);
    if (depth > 0 && name === def.name) {
      // mongod names the cycle from its end: the repeated view, then the path walked backwards.
      const names = [...path].reverse().map(ns);
      throw new CommandError(
        ErrorCode.GraphContainsCycle,
        `View cycle detected: ${ns(name)} => ${names.join(' => ')}`,
      );
    }
    if (depth > limits.viewDepthMax) throw depthError();
    let height = 0;
    for (const child of children.get(name) ?? []) {
      height = Math.max(height, heights.get(child) ?? down(child, depth + 1));
    }
    path.pop();
    heights.set(name, height + 1);
    return height + 1;
  };
  const childrenHeight = down(def.name, 0) - 1;

  // Upwards: the longest chain of views reading the new one (the view itself counts 1).
  const parents = new Map<string, string[]>();
  for (const [name, refs] of children) {
    for (const r of refs) parents.set(r, [...(parents.get(r) ?? []), name]);
  }
  const upHeights = new Map<string, number>();
  const up = (name: string, depth: number): number => {
    if (depth > limits.viewDepthMax) throw depthError();
    let height = 0;
    for (const p of parents.get(name) ?? [])
      height = Math.max(height, upHeights.get(p) ?? up(p, depth + 1));
    upHeights.set(name, height + 1);
    return height + 1;
  };
  if (up(def.name, 0) + childrenHeight - 1 > limits.viewDepthMax) throw depthError();
}

function refsOf(def: ViewDefinition): string[] {
  const refs = involvedCollections(def.pipeline, def.db);
  refs.add(def.viewOn);
  return [...refs];
}
