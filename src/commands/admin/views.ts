// Defining views: `create` with viewOn/pipeline, `collMod` of a view, and the checks mongod makes
// of a definition before storing it (src/catalog/views.ts stores it in system.views).

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { fullName } from '../../catalog/namespace.js';
import { checkViewGraph, lookupView, storeView } from '../../catalog/views.js';
import type { ViewDefinition } from '../../catalog/views.js';
import { CommandError, ErrorCode, isCommandError } from '../../errors.js';
import { newEnv, newScope, parsePipeline } from '../../pipeline/index.js';
import type { WriteTxn } from '../../storage/engine.js';
import { typeNameOf } from '../args.js';
import type { ServerServices } from '../context.js';
import { clusterTimeOf } from '../crud/operation-env.js';

/** A view name must not be system.views itself (mongod's own message for it). */
export function checkViewName(name: string): void {
  if (name === 'system.views')
    throw new CommandError(ErrorCode.InvalidNamespace, `Cannot create a view called '${name}'`);
}

/**
 * Checks a view's definition as mongod does before storing it: viewOn not empty, the pipeline an
 * array of stage documents that parses (an unknown stage is reported as such, other parse errors
 * "Invalid pipeline for view ..."), no stage that writes, no $changeStream.
 */
export function checkViewDefinition(
  services: ServerServices,
  command: string,
  def: { db: string; name: string; viewOn: string; pipeline: readonly BsonValue[] },
): BsonDocument[] {
  if (def.viewOn === '') throw new CommandError(ErrorCode.BadValue, "'viewOn' cannot be empty");
  if (def.viewOn.includes('$') || def.viewOn.includes('\0') || def.viewOn.startsWith('.')) {
    throw new CommandError(ErrorCode.InvalidNamespace, `invalid name for 'viewOn': ${def.viewOn}`);
  }
  const stages: BsonDocument[] = def.pipeline.map((s, i) => {
    if (!isPlainDocument(s)) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `BSON field '${command}.pipeline.${i}' is the wrong type '${typeNameOf(s)}', expected type 'object'`,
      );
    }
    return s;
  });
  const ns = fullName(def.db, def.name);
  const invalid = (code: number, why: string): CommandError =>
    new CommandError(code, `Invalid pipeline for view ${ns} :: caused by :: ${why}`);
  if (stages[0] !== undefined && Object.keys(stages[0])[0] === '$changeStream') {
    throw invalid(
      ErrorCode.OptionNotSupportedOnView,
      '$changeStream cannot be used in a view definition',
    );
  }
  const env = newEnv({ now: new Date(), clusterTime: clusterTimeOf(services) });
  let parsed;
  try {
    parsed = parsePipeline(stages, {
      env,
      scope: newScope(undefined),
      db: def.db,
      collection: def.viewOn,
      allowDiskUse: false,
      subPipelineDepth: 0,
      inFacet: false,
      inLookup: false,
    });
  } catch (e) {
    // mongod's lite parse reports an unknown stage as is; the full parse's errors carry context.
    if (!isCommandError(e) || e.code === ErrorCode.Location40324) throw e;
    throw invalid(e.code, e.message);
  }
  parsed.stages.forEach((stage, i) => {
    if (stage.constraints?.writes === true) {
      throw invalid(
        ErrorCode.OptionNotSupportedOnView,
        `The aggregation stage ${stage.name} in location ${i} of the pipeline cannot be used in the view definition of ${ns} because it writes to disk`,
      );
    }
    if (stage.constraints?.collectionless === true) {
      throw invalid(
        ErrorCode.InvalidNamespace,
        `'${stage.name}' cannot be used in a view definition`,
      );
    }
  });
  return stages;
}

function samePipeline(a: readonly BsonDocument[], b: readonly BsonDocument[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Within a write transaction: create the view `def`. Creating an identical view again succeeds
 * (as mongod 7.0); a collection or a different view of that name is NamespaceExists.
 */
export function createViewIn(txn: WriteTxn, services: ServerServices, def: ViewDefinition): void {
  const ns = fullName(def.db, def.name);
  if (services.catalog.get(def.db, def.name) !== undefined) {
    throw new CommandError(
      ErrorCode.NamespaceExists,
      `namespace ${ns} already exists, but with different options: {}`,
    );
  }
  const existing = lookupView(services.catalog, txn, def.db, def.name);
  if (existing !== undefined) {
    if (existing.viewOn !== def.viewOn) {
      throw new CommandError(
        ErrorCode.NamespaceExists,
        `namespace ${ns} already exists, but is a view on ${fullName(def.db, existing.viewOn)} rather than ${fullName(def.db, def.viewOn)}`,
      );
    }
    if (!samePipeline(existing.pipeline, def.pipeline)) {
      throw new CommandError(
        ErrorCode.NamespaceExists,
        `namespace ${ns} already exists, but with pipeline ${JSON.stringify(existing.pipeline)} rather than ${JSON.stringify(def.pipeline)}`,
      );
    }
    if (!sameCollationSpec(existing.collation, def.collation)) {
      throw new CommandError(
        ErrorCode.NamespaceExists,
        `namespace ${ns} already exists, but with a different collation`,
      );
    }
    return;
  }
  checkViewCollation(services, txn, def);
  checkViewGraph(services.catalog, txn, def);
  storeView(services.catalog, txn, def);
}

function sameCollationSpec(a: BsonDocument | undefined, b: BsonDocument | undefined): boolean {
  return formatBson(a ?? { locale: 'simple' }) === formatBson(b ?? { locale: 'simple' });
}

/** A view on a view shares its collation (mongod's ViewCatalog: 167 otherwise). */
function checkViewCollation(services: ServerServices, txn: WriteTxn, def: ViewDefinition): void {
  const under = lookupView(services.catalog, txn, def.db, def.viewOn);
  if (under !== undefined && !sameCollationSpec(under.collation, def.collation)) {
    throw new CommandError(
      ErrorCode.OptionNotSupportedOnView,
      `View ${fullName(def.db, def.name)} has conflicting collation with view ${fullName(def.db, def.viewOn)}`,
    );
  }
}

/** collMod options other than viewOn/pipeline, in the order mongod refuses them on a view. */
const collModOptionsNotOnViews = [
  'index',
  'validator',
  'validationLevel',
  'validationAction',
  'changeStreamPreAndPostImages',
  'expireAfterSeconds',
];

/**
 * Within a write transaction: collMod of a view. viewOn and pipeline each replace their own part
 * of the definition; the new definition is checked as a new view's would be.
 */
export function modifyViewIn(
  txn: WriteTxn,
  services: ServerServices,
  view: ViewDefinition,
  body: BsonDocument,
): void {
  for (const opt of collModOptionsNotOnViews) {
    if (body[opt] !== undefined)
      throw new CommandError(ErrorCode.InvalidOptions, `option not supported on a view: ${opt}`);
  }
  const viewOn = typeof body['viewOn'] === 'string' ? body['viewOn'] : view.viewOn;
  const pipelineSpec = Array.isArray(body['pipeline'])
    ? (body['pipeline'] as BsonValue[])
    : view.pipeline;
  const pipeline = checkViewDefinition(services, 'collMod', {
    db: view.db,
    name: view.name,
    viewOn,
    pipeline: pipelineSpec,
  });
  const def: ViewDefinition = {
    db: view.db,
    name: view.name,
    viewOn,
    pipeline,
    ...(view.collation === undefined ? {} : { collation: view.collation }),
  };
  checkViewCollation(services, txn, def);
  checkViewGraph(services.catalog, txn, def);
  storeView(services.catalog, txn, def);
}
