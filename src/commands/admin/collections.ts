// Databases and collections: create, drop, dropDatabase, listDatabases, listCollections,
// renameCollection, collMod, dbStats, collStats.

import { Binary, Double, Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import type { Collection } from '../../catalog/collection.js';
import { validateCollectionName, validateDatabaseName } from '../../catalog/namespace.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import { compileQueryFilter } from '../query-language.js';
import type { WriteTxn } from '../../storage/engine.js';
import { writeConflictError } from '../../txn/conflicts.js';
import { parseCollation } from '../../bson/collation.js';
import { t } from '../args.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import { collectionSizes, storageStatsOf } from '../../catalog/sizes.js';
import { statfsSync } from 'node:fs';
import type { CommandDefinition } from '../registry.js';
import { withWriteConcernError } from '../write-concern.js';
import { parseCursorOption, queuedCursorReply } from '../crud/cursor-reply.js';
import { collectionCollation } from '../crud/operation-env.js';
import { targetCollection } from '../crud/target.js';
import { checkValidationEnums, checkValidator } from '../crud/document-validation.js';
import { modifyIndex, scanUniqueConversion } from './indexes.js';
import type { ScannedConversion } from './indexes.js';
import { parseClusteredIndex, parseCollectionTtl } from './clustered.js';
import { listViews, lookupView, notACollection, removeView } from '../../catalog/views.js';
import type { ViewDefinition } from '../../catalog/views.js';
import { checkViewDefinition, checkViewName, createViewIn, modifyViewIn } from './views.js';
import {
  bucketsBehind,
  checkTimeseriesCreate,
  createTimeseriesIn,
  parseTimeseriesOptions,
  timeseriesInfo,
} from './timeseries.js';
import {
  allowed,
  authenticatedOnly,
  currentPrivileges,
  onCollection,
  onDatabase,
  pipelinePrivileges,
  privileges,
  targetResource,
} from '../authorization.js';
import { privilege } from '../../auth/privileges.js';
import type { PrivilegeSet } from '../../auth/privileges.js';
import { actionTypes } from '../../auth/actions.js';
import type { ArgType } from '../args.js';
import { clusterResource, databaseResource, namespaceResource } from '../../auth/resource.js';

/** create options we store and honour; the others are refused until they work. */
const notImplementedCreateOptions = ['encryptedFields'];

// --- Access control (mongod's checkAuthForCreate, checkAuthForCollMod,
// checkAuthorizedToListCollections, checkAuthForRenameCollectionCommand) ---

/** create: createCollection (or insert) on the namespace; a view also what its pipeline reads. */
const createAuth = privileges<{
  readonly viewOn: ArgType<string>;
  readonly pipeline: ArgType<BsonValue[]>;
}>(
  'createCollection or insert on the collection; for a view, createCollection and find on what it reads',
  (input) => {
    const own = targetResource(input);
    if (input.args.viewOn === undefined)
      return [[privilege(own, 'createCollection')], [privilege(own, 'insert')]];
    return [
      [
        privilege(own, 'createCollection'),
        ...pipelinePrivileges(
          { db: input.db, coll: input.args.viewOn, bypassDocumentValidation: false },
          input.args.pipeline ?? [],
        ),
      ],
    ];
  },
);

/** collMod: collMod on the namespace; a new view definition also what it reads. */
const collModAuth = privileges<{
  readonly viewOn: ArgType<string>;
  readonly pipeline: ArgType<BsonValue[]>;
}>('collMod on the collection; for a view definition, find on what it reads', (input) => {
  const own = targetResource(input);
  const coll = typeof input.target === 'string' ? input.target : '';
  const source = input.args.viewOn ?? (input.args.pipeline === undefined ? undefined : coll);
  return [
    [
      privilege(own, 'collMod'),
      ...(source === undefined
        ? []
        : pipelinePrivileges(
            { db: input.db, coll: source, bypassDocumentValidation: false },
            input.args.pipeline ?? [],
          )),
    ],
  ];
});

/** listCollections on the database, or authorizedCollections + nameOnly with any right in it. */
const listCollectionsAuth = privileges<{
  readonly nameOnly: ArgType<boolean>;
  readonly authorizedCollections: ArgType<boolean>;
}>('listCollections on the database (authorizedCollections: any privilege in it)', (input) => {
  const db = databaseResource(input.db);
  const held = currentPrivileges(input.services, input.connection);
  if (
    input.args.authorizedCollections === true &&
    input.args.nameOnly === true &&
    held?.anyInDatabase(input.db) === true
  )
    return [[]];
  return [[privilege(db, 'listCollections')]];
});

/**
 * renameCollection: within one database, renameCollectionSameDB there (with dropCollection on
 * the target for dropTarget) for a user who can read the source or cannot read the target;
 * otherwise find and dropCollection on the source, insert and createIndex on the target.
 */
const renameAuth = privileges<{
  readonly to: ArgType<string>;
  readonly dropTarget: ArgType<BsonValue>;
}>(
  'renameCollectionSameDB, or find + dropCollection on the source and insert + createIndex on the target',
  (input) => {
    const from = splitNamespace(input.target);
    const to = splitNamespace(input.args.to);
    if (from === undefined || to === undefined)
      return [[privilege(clusterResource, 'renameCollection')]];
    const src = namespaceResource(from.db, from.name);
    const dst = namespaceResource(to.db, to.name);
    const dropTarget =
      input.args.dropTarget !== undefined &&
      input.args.dropTarget !== false &&
      input.args.dropTarget !== null;
    const drop = dropTarget ? [privilege(dst, 'dropCollection')] : [];
    const general = [
      privilege(src, 'find', 'dropCollection'),
      privilege(dst, 'insert', 'createIndex'),
      ...drop,
    ];
    if (from.db !== to.db || from.name.startsWith('system.') || to.name.startsWith('system.'))
      return [general];
    const sameDb = [privilege(databaseResource(from.db), 'renameCollectionSameDB'), ...drop];
    const canReadDest = allowed(input.services, input.connection, dst, 'find');
    return [[...sameDb, privilege(src, 'find')], ...(canReadDest ? [] : [sameDb]), general];
  },
);

function splitNamespace(v: BsonValue | undefined): { db: string; name: string } | undefined {
  if (typeof v !== 'string') return undefined;
  const dot = v.indexOf('.');
  return dot <= 0 ? undefined : { db: v.slice(0, dot), name: v.slice(dot + 1) };
}

export const create = defineCommand({
  name: 'create',
  auth: createAuth,
  args: {
    capped: t.safeBool,
    size: t.int64,
    max: t.int64,
    autoIndexId: t.bool,
    idIndex: t.document,
    validator: t.document,
    validationLevel: t.string,
    validationAction: t.string,
    viewOn: t.string,
    pipeline: t.array,
    collation: t.document,
    changeStreamPreAndPostImages: t.document,
    clusteredIndex: t.any,
    timeseries: t.document,
    expireAfterSeconds: t.number,
    storageEngine: t.document,
    indexOptionDefaults: t.document,
    encryptedFields: t.document,
    flags: t.ignored,
    temp: t.ignored,
  },
  traits: { isWrite: true, allowedInTransaction: true, apiVersion1: true },
  run: async (inv) => {
    const { services, args, db, body, op } = inv;
    if (args.viewOn !== undefined) checkViewName(String(inv.target));
    const name = targetCollection(inv, { allowSystem: false });
    if (body['timeseries'] !== undefined) {
      checkTimeseriesCreate(db, name, body, op.access.transaction !== undefined);
      const options = parseTimeseriesOptions(body['timeseries']);
      const expireAfterSeconds =
        body['expireAfterSeconds'] === undefined
          ? undefined
          : parseCollectionTtl(body['expireAfterSeconds'], 'create');
      const collation =
        args.collation === undefined ? undefined : parseCollation(args.collation)?.spec;
      await services.engine.write(
        (txn) =>
          createTimeseriesIn(txn, services.catalog, {
            db,
            name,
            options,
            expireAfterSeconds,
            collation,
          }),
        { durable: op.writeConcern.durable },
      );
      return withWriteConcernError({}, op.writeConcern, services.config.replSet);
    }
    if (args.pipeline !== undefined && args.viewOn === undefined) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        "'pipeline' requires 'viewOn' to also be specified",
      );
    }
    const clustered = parseClusteredIndex(body['clusteredIndex']);
    if (clustered !== undefined) {
      if (args.size !== undefined)
        throw new CommandError(
          ErrorCode.Location6049200,
          "'size' field for capped collections is not allowed on clustered collections. Did you mean 'capped: true' with 'expireAfterSeconds'?",
        );
      if (args.max !== undefined)
        throw new CommandError(
          ErrorCode.Location6049204,
          "'max' field for capped collections is not allowed on clustered collections. Did you mean 'capped: true' with 'expireAfterSeconds'?",
        );
      if (args.capped === true)
        throw new CommandError(
          ErrorCode.NotImplemented,
          'capped clustered collections are not supported yet',
        );
      if (args.idIndex !== undefined)
        throw new CommandError(
          ErrorCode.InvalidOptions,
          "The 'clusteredIndex' option is not supported with the 'idIndex' option",
        );
      if (args.viewOn !== undefined)
        throw new CommandError(
          ErrorCode.Location6026500,
          "The 'clusteredIndex' option is not supported with views",
        );
    }
    if (body['expireAfterSeconds'] !== undefined && clustered === undefined)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        "'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified",
      );
    const ttl =
      body['expireAfterSeconds'] === undefined
        ? undefined
        : parseCollectionTtl(body['expireAfterSeconds'], 'create');
    const capped = cappedOptions(args);
    for (const opt of notImplementedCreateOptions) {
      const v = body[opt];
      if (v === undefined || v === false) continue;
      throw new CommandError(ErrorCode.NotImplemented, `create with '${opt}' is not supported yet`);
    }
    const collator = args.collation === undefined ? undefined : parseCollation(args.collation);
    const viewOn = args.viewOn;
    if (viewOn !== undefined) {
      if (op.access.transaction !== undefined) {
        throw new CommandError(
          ErrorCode.OperationNotSupportedInTransaction,
          'Cannot create a view in a multi-document transaction.',
        );
      }
      if (
        isPlainDocument(args.changeStreamPreAndPostImages) &&
        args.changeStreamPreAndPostImages['enabled'] === true
      ) {
        throw new CommandError(
          ErrorCode.InvalidOptions,
          'option not supported on a view: changeStreamPreAndPostImages',
        );
      }
      if (args.validator !== undefined && Object.keys(args.validator).length > 0) {
        throw new CommandError(
          ErrorCode.NotImplemented,
          "create of a view with 'validator' is not supported yet",
        );
      }
      const pipeline = checkViewDefinition(services, 'create', {
        db,
        name,
        viewOn,
        pipeline: args.pipeline ?? [],
      });
      await services.engine.write(
        (txn) =>
          createViewIn(txn, services, {
            db,
            name,
            viewOn,
            pipeline,
            ...(collator === undefined ? {} : { collation: collator.spec }),
          }),
        { durable: op.writeConcern.durable },
      );
      return withWriteConcernError({}, op.writeConcern, services.config.replSet);
    }
    checkValidationEnums('create', args);
    if (args.validator !== undefined) checkValidator(db, name, args.validator, collator);
    const options: BsonDocument = { ...capped };
    if (args.changeStreamPreAndPostImages !== undefined)
      options['changeStreamPreAndPostImages'] = args.changeStreamPreAndPostImages;
    if (args.validator !== undefined && Object.keys(args.validator).length > 0)
      options['validator'] = args.validator;
    if (args.validationLevel !== undefined) options['validationLevel'] = args.validationLevel;
    if (args.validationAction !== undefined) options['validationAction'] = args.validationAction;
    // The default collation of the collection's operations, stored in full as mongod shows it.
    if (collator !== undefined) options['collation'] = collator.spec;
    if (clustered !== undefined) options['clusteredIndex'] = clustered;
    if (ttl !== undefined) options['expireAfterSeconds'] = ttl;
    // In a transaction the collection is the transaction's until it commits (src/catalog).
    const inTransaction = op.access.transaction !== undefined;
    const write = <T>(fn: (txn: WriteTxn) => T): Promise<T> =>
      inTransaction
        ? op.access.write(fn)
        : services.engine.write(fn, { durable: op.writeConcern.durable });
    await write((txn) => {
      const existing = services.catalog.get(db, name, txn);
      if (existing !== undefined) {
        // Created by another session after the transaction's snapshot: mongod's transaction
        // would create its own and fail to commit.
        if (!services.catalog.visibleIn(txn, existing)) throw writeConflictError();
        // Creating an existing collection with the same options succeeds, as in mongod 7.0
        // (not in a transaction).
        if (!inTransaction && sameOptions(existing.meta.options, options)) return;
        throw new CommandError(
          ErrorCode.NamespaceExists,
          `Collection ${db}.${name} already exists.`,
        );
      }
      const view = lookupView(services.catalog, txn, db, name);
      if (view !== undefined) {
        // mongod compares the requested options with the view's: a collection has no viewOn.
        throw new CommandError(
          ErrorCode.NamespaceExists,
          `namespace ${db}.${name} already exists, but is a view on ${db}.${view.viewOn} rather than ${db}.`,
        );
      }
      services.catalog.create(txn, db, name, { options });
    });
    return withWriteConcernError({}, op.writeConcern, services.config.replSet);
  },
});

/**
 * create's capped, size and max (mongod's create command and CollectionOptions): the stored
 * options, {} for an uncapped collection. The size is rounded up to a multiple of 256 bytes; a
 * max of 0 or less means "no maximum" and is stored as 2^31-1, as mongod shows it.
 */
export function cappedOptions(args: {
  readonly capped?: boolean | undefined;
  readonly size?: number | undefined;
  readonly max?: number | undefined;
}): BsonDocument {
  if (args.capped === true && args.size === undefined)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "the 'size' field is required when 'capped' is true",
    );
  if ((args.size !== undefined || args.max !== undefined) && args.capped !== true)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "the 'capped' field needs to be true when either the 'size' or 'max' fields are present",
    );
  if (args.capped !== true || args.size === undefined) return {};
  if (args.size < 1)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'size' value must be >= 1, actual value '${args.size}'`,
    );
  if (args.size > limits.cappedSizeBytesMax)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'size' value must be <= ${limits.cappedSizeBytesMax}, actual value '${args.size}'`,
    );
  const out: BsonDocument = { capped: true, size: bsonNumber(Math.ceil(args.size / 256) * 256) };
  if (args.max !== undefined) {
    if (args.max >= 2 ** 31)
      throw new CommandError(
        ErrorCode.BadValue,
        'max in a capped collection has to be < 2^31 or not set',
      );
    out['max'] = bsonNumber(args.max <= 0 ? 0x7fffffff : args.max);
  }
  return out;
}

/** mongod's appendNumber: an int32 up to 2^30, else a long. */
function bsonNumber(n: number): Int32 | Long {
  return Math.abs(n) <= 2 ** 30 ? new Int32(n) : Long.fromNumber(n);
}

/** The order mongod's CollectionOptions serializes the options we store in. */
const optionsOrder = [
  'capped',
  'size',
  'max',
  'changeStreamPreAndPostImages',
  'validator',
  'validationLevel',
  'validationAction',
  'collation',
  'clusteredIndex',
  'expireAfterSeconds',
];

/** The options in mongod's order (a collMod that adds one keeps listCollections' order, and create's same-options check). */
function inOptionsOrder(options: BsonDocument): BsonDocument {
  const out: BsonDocument = {};
  for (const k of optionsOrder) if (options[k] !== undefined) out[k] = options[k];
  for (const [k, v] of Object.entries(options)) if (!optionsOrder.includes(k)) out[k] = v;
  return out;
}

function sameOptions(a: BsonDocument, b: BsonDocument): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export const drop = defineCommand({
  name: 'drop',
  auth: onCollection('dropCollection'),
  args: {},
  traits: { isWrite: true, apiVersion1: true },
  run: async (inv) => {
    const { services, db, op } = inv;
    const name = targetCollection(inv);
    const nIndexesWas = await services.engine.write(
      (txn) => {
        const coll = services.catalog.get(db, name);
        const view = coll === undefined ? lookupView(services.catalog, txn, db, name) : undefined;
        const buckets = view === undefined ? undefined : bucketsBehind(services.catalog, view);
        if (buckets !== undefined) {
          // A time-series collection: its view and its buckets go together.
          removeView(services.catalog, txn, db, name);
          services.catalog.drop(txn, buckets);
          return buckets.indexes.length;
        }
        // A view's drop removes its definition and reports no index count (mongod's _dropView).
        if (coll === undefined)
          return removeView(services.catalog, txn, db, name) ? 'view' : undefined;
        services.catalog.drop(txn, coll);
        return coll.indexes.length;
      },
      { durable: op.writeConcern.durable },
    );
    // A view's cursors read its underlying collection, which is still there.
    if (typeof nIndexesWas === 'number') {
      services.cursors.killForNamespace(`${db}.${name}`);
      services.cursors.killForNamespace(`${db}.system.buckets.${name}`);
    }
    const reply: BsonDocument =
      nIndexesWas === undefined
        ? {}
        : nIndexesWas === 'view'
          ? { ns: `${db}.${name}` }
          : { nIndexesWas: new Int32(nIndexesWas), ns: `${db}.${name}` };
    return withWriteConcernError(reply, op.writeConcern, services.config.replSet);
  },
});

export const dropDatabase = defineCommand({
  name: 'dropDatabase',
  auth: onDatabase('dropDatabase'),
  args: {},
  traits: { isWrite: true, apiVersion1: true },
  run: async ({ services, db, op }) => {
    const dropped = await services.engine.write(
      (txn) => {
        const colls = services.catalog.collections(db);
        for (const c of colls) services.catalog.drop(txn, c);
        if (colls.length > 0) services.oplog?.logDropDatabase(txn, db);
        return colls;
      },
      { durable: op.writeConcern.durable },
    );
    for (const c of dropped) services.cursors.killForNamespace(c.ns);
    return withWriteConcernError(
      dropped.length > 0 ? { dropped: db } : {},
      op.writeConcern,
      services.config.replSet,
    );
  },
});

function databaseInfo(
  services: ServerServices,
  db: string,
): { name: string; sizeOnDisk: Long; empty: boolean } {
  let size = 0;
  let docs = 0;
  for (const c of services.catalog.collections(db)) {
    const s = collectionSizes(services.engine, c);
    size += s.storageBytes + s.totalIndexBytes;
    docs += s.count;
  }
  return { name: db, sizeOnDisk: Long.fromNumber(size + 4096), empty: docs === 0 };
}

export const listDatabases = defineCommand({
  name: 'listDatabases',
  auth: authenticatedOnly,
  args: { filter: t.document, nameOnly: t.bool, authorizedDatabases: t.bool },
  traits: { adminOnly: true, apiVersion1: true },
  run: ({ services, args, connection }) => {
    const matcher = args.filter === undefined ? undefined : compileQueryFilter(args.filter);
    const nameOnly = args.nameOnly === true;
    const databases: BsonDocument[] = [];
    let total = 0;
    // mongod: without listDatabases, only the databases the user holds a privilege in.
    const mayListAll = allowed(services, connection, clusterResource, 'listDatabases');
    if (args.authorizedDatabases === false && !mayListAll)
      throw new CommandError(
        ErrorCode.Unauthorized,
        'Insufficient permissions to list all databases',
      );
    const held = mayListAll ? undefined : currentPrivileges(services, connection);
    for (const db of services.catalog.databaseNames()) {
      if (held !== undefined && !held.anyInDatabase(db)) continue;
      const info = databaseInfo(services, db);
      const doc: BsonDocument = nameOnly ? { name: db } : { ...info };
      if (matcher !== undefined && !matcher.matches({ ...info })) continue;
      total += info.sizeOnDisk.toNumber();
      databases.push(doc);
    }
    if (nameOnly) return { databases };
    return {
      databases,
      totalSize: new Double(total),
      totalSizeMb: Long.fromNumber(Math.floor(total / 1048576)),
    };
  },
});

function collectionInfo(coll: Collection): BsonDocument {
  return {
    name: coll.meta.name,
    type: 'collection',
    options: coll.meta.options,
    info: {
      readOnly: false,
      uuid: new Binary(Buffer.from(coll.meta.uuid, 'hex'), Binary.SUBTYPE_UUID),
    },
    // A clustered collection has no separate _id index (mongod shows none).
    ...(coll.meta.options['clusteredIndex'] === undefined
      ? { idIndex: coll.idIndex.meta.spec }
      : {}),
  };
}

/** A view as listCollections reports it (mongod: no uuid, no idIndex, readOnly). */
function viewInfo(view: ViewDefinition): BsonDocument {
  const options: BsonDocument = { viewOn: view.viewOn, pipeline: [...view.pipeline] };
  if (view.collation !== undefined) options['collation'] = view.collation;
  return { name: view.name, type: 'view', options, info: { readOnly: true } };
}

export const listCollections = defineCommand({
  name: 'listCollections',
  auth: listCollectionsAuth,
  args: {
    filter: t.document,
    nameOnly: t.bool,
    authorizedCollections: t.bool,
    cursor: t.document,
    includePendingDrops: t.ignored,
  },
  traits: { allowedInTransaction: false, apiVersion1: true },
  run: (inv) => {
    const { services, args, db, op, connection } = inv;
    const batchSize = parseCursorOption('listCollections', args.cursor);
    const matcher = args.filter === undefined ? undefined : compileQueryFilter(args.filter);
    const nameOnly = args.nameOnly === true;
    // authorizedCollections without listCollections: the collections the user holds a right on.
    const onlyAuthorized =
      args.authorizedCollections === true &&
      nameOnly &&
      !allowed(services, connection, databaseResource(db), 'listCollections');
    const held = onlyAuthorized ? currentPrivileges(services, connection) : undefined;
    const lease = op.access.acquireView();
    let infos: BsonDocument[];
    try {
      infos = [
        ...services.catalog.collections(db).map(collectionInfo),
        ...listViews(services.catalog, lease.view, db).map((v) => {
          const buckets = bucketsBehind(services.catalog, v);
          return buckets === undefined ? viewInfo(v) : timeseriesInfo(v.name, buckets);
        }),
      ];
    } finally {
      lease.release();
    }
    infos.sort((a, b) => ((a['name'] as string) < (b['name'] as string) ? -1 : 1));
    const batch: BsonDocument[] = [];
    for (const info of infos) {
      if (matcher !== undefined && !matcher.matches(info)) continue;
      if (held !== undefined && !anyActionOn(held, db, String(info['name']))) continue;
      batch.push(nameOnly ? { name: info['name'] as string, type: info['type'] as string } : info);
    }
    return queuedCursorReply(inv, `${db}.$cmd.listCollections`, batch, batchSize);
  },
});

/** Whether the privileges allow something on db.coll. */
function anyActionOn(held: PrivilegeSet, db: string, coll: string): boolean {
  const target = namespaceResource(db, coll);
  return actionTypes.some((a) => held.allows(target, a));
}

function parseNamespace(v: BsonValue | undefined, field: string): { db: string; name: string } {
  if (typeof v !== 'string')
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'renameCollection.${field}' is the wrong type, expected type 'string'`,
    );
  const dot = v.indexOf('.');
  if (dot <= 0 || dot === v.length - 1)
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid ${field} namespace: ${v}`);
  const db = v.slice(0, dot);
  const name = v.slice(dot + 1);
  validateDatabaseName(db);
  validateCollectionName(db, name, { allowSystem: true });
  return { db, name };
}

export const renameCollection = defineCommand({
  name: 'renameCollection',
  auth: renameAuth,
  args: { to: t.string, dropTarget: t.any, stayTemp: t.bool },
  traits: { isWrite: true, adminOnly: true, apiVersion1: false },
  run: async ({ services, args, target, op }) => {
    const from = parseNamespace(target, 'renameCollection');
    const to = parseNamespace(args.to, 'to');
    if (from.db === to.db && from.name === to.name) {
      throw new CommandError(ErrorCode.IllegalOperation, "Can't rename a collection to itself");
    }
    if (to.name.startsWith('system.'))
      throw new CommandError(
        ErrorCode.IllegalOperation,
        `Invalid target namespace: ${to.db}.${to.name}`,
      );
    if (from.name.startsWith('system.buckets.'))
      throw new CommandError(
        ErrorCode.IllegalOperation,
        'Renaming system.buckets collections is not allowed',
      );
    const dropTarget =
      args.dropTarget === true ||
      (args.dropTarget !== undefined && args.dropTarget !== false && args.dropTarget !== null);
    await services.engine.write(
      (txn) => {
        const source = services.catalog.get(from.db, from.name);
        if (
          source === undefined &&
          lookupView(services.catalog, txn, from.db, from.name) !== undefined
        ) {
          throw new CommandError(
            ErrorCode.CommandNotSupportedOnView,
            `cannot rename view: ${from.db}.${from.name}`,
          );
        }
        if (source === undefined)
          throw new CommandError(
            ErrorCode.NamespaceNotFound,
            `Source collection ${from.db}.${from.name} does not exist`,
          );
        const existing = services.catalog.get(to.db, to.name);
        if (
          existing === undefined &&
          lookupView(services.catalog, txn, to.db, to.name) !== undefined
        ) {
          throw new CommandError(
            ErrorCode.NamespaceExists,
            `a view already exists with that name: ${to.db}.${to.name}`,
          );
        }
        if (existing !== undefined && !dropTarget)
          throw new CommandError(ErrorCode.NamespaceExists, 'target namespace exists');
        services.catalog.rename(txn, source, to.db, to.name, existing);
      },
      { durable: op.writeConcern.durable },
    );
    services.cursors.killForNamespace(
      `${from.db}.${from.name}`,
      `collection renamed from '${from.db}.${from.name}' to '${to.db}.${to.name}'`,
    );
    return withWriteConcernError({}, op.writeConcern, services.config.replSet);
  },
});

export const collMod = defineCommand({
  name: 'collMod',
  auth: collModAuth,
  args: {
    changeStreamPreAndPostImages: t.document,
    validator: t.document,
    validationLevel: t.string,
    validationAction: t.string,
    index: t.document,
    expireAfterSeconds: t.any,
    viewOn: t.string,
    pipeline: t.array,
    dryRun: t.bool,
    cappedSize: t.int64,
    cappedMax: t.int64,
  },
  traits: { isWrite: true, apiVersion1: true },
  run: async (inv) => {
    const { services, args, db, op, body } = inv;
    const name = targetCollection(inv);
    const dryRun = args.dryRun === true;
    if (dryRun && args.index === undefined)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'dry run mode requires an valid index modification.',
      );
    // A unique conversion scans the index for duplicates first, on a snapshot, yielding.
    let scanned: ScannedConversion | undefined;
    const target = services.catalog.get(db, name);
    const alone =
      collectionModifications.every((k) => args[k] === undefined) &&
      args.pipeline === undefined &&
      args.viewOn === undefined;
    if (target !== undefined && args.index !== undefined && alone) {
      const snap = services.engine.snapshot();
      try {
        scanned = await scanUniqueConversion(snap, target, args.index, op);
      } finally {
        snap.release();
      }
    }
    const indexReply = await services.engine.write(
      (txn) => {
        const found = services.catalog.get(db, name);
        if (found === undefined) {
          const view = lookupView(services.catalog, txn, db, name);
          if (view === undefined)
            throw new CommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${db}.${name}`);
          modifyViewIn(txn, services, view, body);
          return {};
        }
        for (const opt of ['pipeline', 'viewOn'] as const) {
          if (args[opt] !== undefined)
            throw new CommandError(
              ErrorCode.InvalidOptions,
              `option only supported on a view: ${opt}`,
            );
        }
        const ttl = collModTtl(found, args.expireAfterSeconds);
        const cappedLimits = collModCappedLimits(found, args.cappedSize, args.cappedMax);
        checkValidationEnums('collMod', args);
        if (args.validator !== undefined)
          checkValidator(db, name, args.validator, collectionCollation(found));
        const oldOptions = found.meta.options;
        const index =
          args.index === undefined
            ? undefined
            : modifyIndex(txn, services.catalog, found, args.index, {
                dryRun,
                otherModifications: collectionModifications.filter((k) => args[k] !== undefined)
                  .length,
                interrupt: () => op.checkDeadline(),
                ...(scanned === undefined ? {} : { scanned }),
              });
        // A dry run checks a unique conversion and changes nothing (no oplog entry either).
        if (dryRun) return {};
        const coll = services.catalog.get(db, name) ?? found;
        const options: BsonDocument = { ...coll.meta.options };
        if (args.changeStreamPreAndPostImages !== undefined)
          options['changeStreamPreAndPostImages'] = args.changeStreamPreAndPostImages;
        // An empty validator removes it, as mongod (which never shows an empty one).
        if (args.validator !== undefined) {
          if (Object.keys(args.validator).length > 0) options['validator'] = args.validator;
          else delete options['validator'];
        }
        if (args.validationLevel !== undefined) options['validationLevel'] = args.validationLevel;
        if (args.validationAction !== undefined)
          options['validationAction'] = args.validationAction;
        if (ttl === 'off') delete options['expireAfterSeconds'];
        else if (ttl !== undefined) options['expireAfterSeconds'] = ttl;
        Object.assign(options, cappedLimits);
        const logged = collModEntry(name, body, index);
        services.catalog.updateMeta(
          txn,
          coll,
          { ...coll.meta, options: inOptionsOrder(options) },
          {
            op: 'collMod',
            command: logged.command,
            oldOptions,
            oldIndexOptions: logged.oldIndexOptions,
          },
        );
        return index?.reply ?? {};
      },
      { durable: op.writeConcern.durable },
    );
    return withWriteConcernError({ ...indexReply }, op.writeConcern, services.config.replSet);
  },
});

/** collMod's collection-level modifications (each counts against prepareUnique and dryRun). */
const collectionModifications = [
  'changeStreamPreAndPostImages',
  'validator',
  'validationLevel',
  'validationAction',
  'expireAfterSeconds',
  'cappedSize',
  'cappedMax',
] as const;

/**
 * collMod's expireAfterSeconds (a clustered collection's TTL): a number of seconds or "off";
 * undefined when not given.
 */
function collModTtl(coll: Collection, value: BsonValue | undefined): Long | 'off' | undefined {
  if (value === undefined) return undefined;
  if (coll.meta.options['clusteredIndex'] === undefined)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "'expireAfterSeconds' option is only supported on collections clustered by _id",
    );
  if (value === 'off') return 'off';
  if (typeof value === 'string')
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `Invalid value for 'expireAfterSeconds': expected "off" or a number, got "${value}"`,
    );
  return parseCollectionTtl(value, 'collMod');
}

/**
 * collMod's cappedSize / cappedMax (mongod 6.0+ resizes a capped collection): the IDL bounds
 * (cappedSize in [1, 1 PB], cappedMax below 2^31), then the stored values as create stores
 * them (a size rounded up to 256 bytes, a max <= 0 meaning none). Nothing is deleted now: the
 * next insert evicts down to the new limits, as in mongod.
 */
function collModCappedLimits(
  coll: Collection,
  size: number | undefined,
  max: number | undefined,
): BsonDocument {
  if (size === undefined && max === undefined) return {};
  if (size !== undefined && size < 1)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'cappedSize' value must be >= 1, actual value '${size}'`,
    );
  if (size !== undefined && size > limits.cappedSizeBytesMax)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'cappedSize' value must be <= ${limits.cappedSizeBytesMax}, actual value '${size}'`,
    );
  if (max !== undefined && max >= 2 ** 31)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'cappedMax' value must be < ${2 ** 31}, actual value '${max}'`,
    );
  if (coll.capped === undefined)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `option only supported on a capped collection: ${size !== undefined ? 'cappedSize' : 'cappedMax'}`,
    );
  const out: BsonDocument = {};
  if (size !== undefined) out['size'] = bsonNumber(Math.ceil(size / 256) * 256);
  if (max !== undefined) out['max'] = bsonNumber(max <= 0 ? 0x7fffffff : max);
  return out;
}

/** collMod's own fields, in the order given: what the oplog entry holds besides `collMod`. */
const collModFields = new Set([
  'changeStreamPreAndPostImages',
  'validator',
  'validationLevel',
  'validationAction',
  'index',
  'expireAfterSeconds',
  'viewOn',
  'pipeline',
  'cappedSize',
  'cappedMax',
]);

/**
 * The oplog entry's `o` for a collMod (mongod's makeCollModCmdObj): the command's fields, with
 * `index` named by the index's name and holding its new values; and the index's old values.
 */
function collModEntry(
  name: string,
  body: BsonDocument,
  index: { name: string; reply: BsonDocument } | undefined,
): { command: BsonDocument; oldIndexOptions: BsonDocument | undefined } {
  const command: BsonDocument = { collMod: name };
  let oldIndexOptions: BsonDocument | undefined;
  for (const [k, v] of Object.entries(body)) {
    if (!collModFields.has(k)) continue;
    if (k !== 'index' || index === undefined) {
      command[k] = v;
      continue;
    }
    const r = index.reply;
    const now: BsonDocument = { name: index.name };
    oldIndexOptions = {};
    if (r['expireAfterSeconds_new'] !== undefined) {
      now['expireAfterSeconds'] = r['expireAfterSeconds_new'];
      const old = numericValue(r['expireAfterSeconds_old']);
      if (old !== undefined) oldIndexOptions['expireAfterSeconds'] = Long.fromNumber(old);
    }
    if (r['hidden_new'] !== undefined) {
      now['hidden'] = r['hidden_new'];
      oldIndexOptions['hidden'] = r['hidden_old'] ?? false;
    }
    if (r['prepareUnique_new'] !== undefined) {
      now['prepareUnique'] = r['prepareUnique_new'];
      oldIndexOptions['prepareUnique'] = r['prepareUnique_old'] ?? false;
    }
    if (r['unique_new'] === true) now['unique'] = true;
    if (r['forceNonUnique_new'] === true) now['forceNonUnique'] = true;
    command['index'] = now;
  }
  return { command, oldIndexOptions };
}

/** `scale` of dbStats and collStats: a whole number >= 1 (IDL safeInt with a gte validator). */
function parseScale(v: number | undefined): number {
  if (v === undefined) return 1;
  if (v < 1)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'scale' value must be >= 1, actual value '${v}'`,
    );
  return v;
}

/** Used and total bytes of the file system holding the data (dbStats fsUsedSize, fsTotalSize). */
function fileSystemSizes(path: string | undefined): { used: number; total: number } | undefined {
  if (path === undefined) return undefined;
  try {
    const fs = statfsSync(path);
    return { used: (fs.blocks - fs.bfree) * fs.bsize, total: fs.blocks * fs.bsize };
  } catch {
    return undefined;
  }
}

export const dbStats = defineCommand({
  name: 'dbStats',
  aliases: ['dbstats'],
  auth: onDatabase('dbStats'),
  args: { scale: t.int64, freeStorage: t.safeBool },
  run: ({ services, args, db }) => {
    const scale = parseScale(args.scale);
    const snap = services.engine.snapshot();
    try {
      let objects = 0;
      let dataSize = 0;
      let storageSize = 0;
      let indexSize = 0;
      let indexes = 0;
      const colls = services.catalog.collections(db);
      for (const c of colls) {
        const s = collectionSizes(services.engine, c);
        objects += s.count;
        dataSize += s.dataBytes;
        storageSize += s.storageBytes;
        indexSize += s.totalIndexBytes;
        indexes += c.indexes.length;
      }
      const scaled = (n: number): Double => new Double(Math.trunc(n / scale));
      const reply: BsonDocument = {
        db,
        collections: Long.fromNumber(colls.length),
        views: Long.fromNumber(listViews(services.catalog, snap, db).length),
        objects: Long.fromNumber(objects),
        avgObjSize: new Double(objects === 0 ? 0 : dataSize / objects),
        dataSize: scaled(dataSize),
        storageSize: scaled(storageSize),
        indexes: Long.fromNumber(indexes),
        indexSize: scaled(indexSize),
        totalSize: scaled(storageSize + indexSize),
        scaleFactor: Long.fromNumber(scale),
      };
      if (args.freeStorage === true) {
        reply['freeStorageSize'] = new Double(0);
        reply['indexFreeStorageSize'] = new Double(0);
        reply['totalFreeStorageSize'] = new Double(0);
      }
      const fs = fileSystemSizes(services.config.dbPath);
      if (fs !== undefined) {
        reply['fsUsedSize'] = scaled(fs.used);
        reply['fsTotalSize'] = scaled(fs.total);
      }
      return reply;
    } finally {
      snap.release();
    }
  },
});

export const collStats = defineCommand({
  name: 'collStats',
  aliases: ['collstats'],
  auth: onCollection('collStats'),
  args: { scale: t.int64, verbose: t.safeBool, waitForLock: t.safeBool, numericOnly: t.safeBool },
  run: (inv) => {
    const { services, args, db } = inv;
    const name = targetCollection(inv);
    const scale = parseScale(args.scale);
    const coll = services.catalog.get(db, name);
    if (coll === undefined) {
      const snap = services.engine.snapshot();
      try {
        if (lookupView(services.catalog, snap, db, name) !== undefined)
          throw notACollection(db, name);
      } finally {
        snap.release();
      }
    }
    // As mongod: a missing collection answers zeros, not an error.
    return { ns: `${db}.${name}`, ...storageStatsOf(services.engine, coll, scale) };
  },
});

export const collectionCommands: CommandDefinition[] = [
  create,
  drop,
  dropDatabase,
  listDatabases,
  listCollections,
  renameCollection,
  collMod,
  dbStats,
  collStats,
];
