// Views as stored: a database's views are documents of its `system.views` collection,
// `{_id: "<db>.<view>", viewOn, pipeline}` (src/catalog/views.ts writes and checks them). The
// read side lives here, below the catalog, which asks it whether a name is a view before it
// creates a collection; it reads collections through the one method it needs.

import type { BsonDocument } from '../bson/types.js';
import { isArray, isPlainDocument } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import type { ReadView } from '../storage/engine.js';
import type { Collection } from './collection.js';
import { fullName } from './namespace.js';

/** The catalog's collection lookup (Catalog.get). */
export interface CollectionsByName {
  get(db: string, name: string): Collection | undefined;
}

export const systemViewsName = 'system.views';

export interface ViewDefinition {
  readonly db: string;
  readonly name: string;
  /** The collection or view read, in the same database. */
  readonly viewOn: string;
  readonly pipeline: readonly BsonDocument[];
  /** The view's default collation (its full specification); absent: the simple collation. */
  readonly collation?: BsonDocument | undefined;
}

/** The error every write, index and collection command on a view answers (mongod's wording). */
export function notACollection(db: string, name: string): CommandError {
  return new CommandError(
    ErrorCode.CommandNotSupportedOnView,
    `Namespace ${fullName(db, name)} is a view, not a collection`,
  );
}

function definitionOf(db: string, doc: BsonDocument): ViewDefinition | undefined {
  const id = doc['_id'];
  const viewOn = doc['viewOn'];
  const pipeline = doc['pipeline'];
  if (
    typeof id !== 'string' ||
    !id.startsWith(`${db}.`) ||
    typeof viewOn !== 'string' ||
    !isArray(pipeline)
  )
    return undefined;
  const collation = doc['collation'];
  return {
    db,
    name: id.slice(db.length + 1),
    viewOn,
    pipeline: pipeline.filter(isPlainDocument),
    ...(isPlainDocument(collation) ? { collation } : {}),
  };
}

/** The system.views document of a definition (mongod's field order). */
export function viewDocument(def: ViewDefinition): BsonDocument {
  const doc: BsonDocument = {
    _id: fullName(def.db, def.name),
    viewOn: def.viewOn,
    pipeline: [...def.pipeline],
  };
  if (def.collation !== undefined) doc['collation'] = def.collation;
  return doc;
}

/** The view `db.name` as of `view`, if there is one. */
export function lookupView(
  catalog: CollectionsByName,
  view: ReadView,
  db: string,
  name: string,
): ViewDefinition | undefined {
  const stored = catalog.get(db, systemViewsName)?.findById(view, fullName(db, name));
  return stored === undefined ? undefined : definitionOf(db, stored.doc);
}

/** Every view of a database, in name order. */
export function listViews(
  catalog: CollectionsByName,
  view: ReadView,
  db: string,
): ViewDefinition[] {
  const coll = catalog.get(db, systemViewsName);
  if (coll === undefined) return [];
  const out: ViewDefinition[] = [];
  for (const rec of coll.scanRecords(view)) {
    const def = definitionOf(db, rec.doc);
    if (def !== undefined) out.push(def);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
