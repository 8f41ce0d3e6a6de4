// bulkWrite (MongoDB 8.0, admin only; the driver's client.bulkWrite): inserts, updates and
// deletes against several namespaces in one command. `ops` name their namespace by index into
// `nsInfo`. The operations run through the same write batch as insert, update and delete
// (write-batch.ts runWriteBatch, write-exec.ts): one storage transaction per chunk, each
// operation all-or-nothing, ordered batches stop at the first error, retryable writes keep
// one result per statement. The per-operation results come back in a cursor on
// `admin.$cmd.bulkWrite` (getMore when they do not fit the first batch).

import { Binary, Double, Int32, Long, calculateObjectSize } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import { formatDocument } from '../../bson/format.js';
import { parseCollation } from '../../bson/collation.js';
import { insertDocument } from '../../catalog/write-unit.js';
import type { Namespace, WriteContext } from '../../catalog/write-unit.js';
import { validateCollectionName, validateDatabaseName } from '../../catalog/namespace.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import { RowsStage } from '../../query/exec/stages.js';
import { ServerCursor } from '../../query/exec/cursor.js';
import { privilege } from '../../auth/privileges.js';
import type { Privilege } from '../../auth/privileges.js';
import type { ActionType } from '../../auth/actions.js';
import { namespaceResource } from '../../auth/resource.js';
import { t, typeNameOf } from '../args.js';
import { defineCommand } from '../registry.js';
import { privileges } from '../authorization.js';
import type { OperationContext, ServerServices } from '../context.js';
import { clusterTimeOf } from './operation-env.js';
import { requireNonNegative } from './read-args.js';
import { resolveHint } from './hint.js';
import { checkBatchSize, runWriteBatch } from './write-batch.js';
import type { StatementResultCodec } from './write-batch.js';
import { executeDelete, executeUpdate, slicedDelete, slicedUpdate } from './write-exec.js';
import { updateSpecOf } from './update.js';
import type { ParsedUpdateStatement, StatementScope } from './update.js';
import { deleteSpecOf } from './delete.js';
import type { DeleteStatement } from './delete.js';
import {
  bucketsUpdateStatement,
  deleteMeasurements,
  insertMeasurement,
  refuseTimeseriesWriteInTransaction,
  timeseriesTargetOf,
} from './timeseries-writes.js';
import type { TimeseriesTarget } from './timeseries-writes.js';

/** The namespace of the results cursor, as mongod names it. */
export const bulkWriteCursorNs = 'admin.$cmd.bulkWrite';

interface NsEntry {
  readonly db: string;
  readonly name: string;
  /** collectionUUID: the operation fails unless the collection has this UUID (hex). */
  readonly uuid: string | undefined;
}

type BulkOp =
  | { readonly kind: 'insert'; readonly ns: number; readonly document: BsonDocument }
  | { readonly kind: 'update'; readonly ns: number; readonly statement: ParsedUpdateStatement }
  | {
      readonly kind: 'delete';
      readonly ns: number;
      readonly statement: DeleteStatement;
      readonly multi: boolean;
    };

/** One operation's result, as kept for a retried retryable write. */
interface OpResult {
  readonly n: number;
  readonly nModified?: number;
  readonly upsertedId?: BsonValue;
}

const opCodec: StatementResultCodec<OpResult> = {
  encode: (r) => ({
    n: new Int32(r.n),
    ...(r.nModified === undefined ? {} : { nModified: new Int32(r.nModified) }),
    ...(r.upsertedId === undefined ? {} : { upsertedId: r.upsertedId }),
  }),
  decode: (d) => {
    const nModified = numericValue(d['nModified']);
    return {
      n: numericValue(d['n']) ?? 0,
      ...(nModified === undefined ? {} : { nModified }),
      ...(d['upsertedId'] === undefined ? {} : { upsertedId: d['upsertedId'] }),
    };
  },
};

// ---- parsing, as mongod's IDL (bulk_write.idl): strict, field paths 'bulkWrite.ops.<f>' ----

const opFields = {
  insert: new Set(['insert', 'document']),
  update: new Set([
    'update',
    'filter',
    'multi',
    'updateMods',
    'upsert',
    'upsertSupplied',
    'arrayFilters',
    'hint',
    'constants',
    'collation',
    'sort',
  ]),
  delete: new Set(['delete', 'filter', 'multi', 'hint', 'collation']),
} as const;

function wrongType(path: string, v: BsonValue, expected: string): CommandError {
  return new CommandError(
    ErrorCode.TypeMismatch,
    `BSON field '${path}' is the wrong type '${typeNameOf(v)}', expected type '${expected}'`,
  );
}

function optionalBool(raw: BsonDocument, field: string): boolean {
  const v = getOwn(raw, field);
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw wrongType(`bulkWrite.ops.${field}`, v, 'bool');
  return v;
}

function optionalDocument(raw: BsonDocument, field: string): BsonDocument | undefined {
  const v = getOwn(raw, field);
  if (v === undefined) return undefined;
  if (!isPlainDocument(v)) throw wrongType(`bulkWrite.ops.${field}`, v, 'object');
  return v;
}

function requiredDocument(raw: BsonDocument, field: string): BsonDocument {
  const v = optionalDocument(raw, field);
  if (v === undefined) throw missingFieldError(`bulkWrite.ops.${field}`);
  return v;
}

/** The op's namespace index (IDL safeInt, >= 0). */
function nsIndexOf(raw: BsonDocument, field: string): number {
  const v = getOwn(raw, field) as BsonValue;
  const n = numericValue(v);
  if (n === undefined || !Number.isInteger(n))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'bulkWrite.ops.${field}' is the wrong type '${typeNameOf(v)}', expected types '[long, int, decimal, double]'`,
    );
  if (n < 0)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field '${field}' value must be >= 0, actual value '${n}'`,
    );
  return n;
}

function parseHint(raw: BsonDocument): BsonValue | undefined {
  const hint = getOwn(raw, 'hint');
  if (hint === undefined || typeof hint === 'string' || isPlainDocument(hint)) return hint;
  throw new CommandError(
    ErrorCode.FailedToParse,
    `BSON field 'bulkWrite.ops.hint' is the wrong type '${typeNameOf(hint)}', expected types '[string, object]'`,
  );
}

function parseCollationField(raw: BsonDocument): BsonDocument | undefined {
  const collation = optionalDocument(raw, 'collation');
  if (collation !== undefined) parseCollation(collation);
  return collation;
}

function parseOp(raw: BsonValue): BulkOp {
  if (!isPlainDocument(raw))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'bulkWrite.ops' contains an element that is not an object",
    );
  // The first field names the operation, as mongod's variant parser decides.
  const kind = Object.keys(raw)[0];
  if (kind !== 'insert' && kind !== 'update' && kind !== 'delete')
    throw new CommandError(
      ErrorCode.Location40415,
      `BSON field 'bulkWrite.ops.${kind ?? ''}' is an unknown field.`,
    );
  for (const k of Object.keys(raw)) {
    if (!opFields[kind].has(k))
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'bulkWrite.ops.${k}' is an unknown field.`,
      );
  }
  const ns = nsIndexOf(raw, kind);
  if (kind === 'insert') return { kind, ns, document: requiredDocument(raw, 'document') };
  const filter = requiredDocument(raw, 'filter');
  const multi = optionalBool(raw, 'multi');
  const hint = parseHint(raw);
  const collation = parseCollationField(raw);
  if (kind === 'delete')
    return {
      kind,
      ns,
      multi,
      statement: { q: filter, limit: multi ? 0 : 1, hint, collation },
    };
  const u = getOwn(raw, 'updateMods');
  if (u === undefined) throw missingFieldError('bulkWrite.ops.updateMods');
  if (!isPlainDocument(u) && !Array.isArray(u))
    throw new CommandError(
      ErrorCode.FailedToParse,
      'Update argument must be either an object or an array',
    );
  const arrayFilters = getOwn(raw, 'arrayFilters');
  if (
    arrayFilters !== undefined &&
    (!Array.isArray(arrayFilters) || !arrayFilters.every(isPlainDocument))
  )
    throw wrongType('bulkWrite.ops.arrayFilters', arrayFilters, 'array');
  optionalBool(raw, 'upsertSupplied');
  return {
    kind,
    ns,
    statement: {
      q: filter,
      u: u as BsonDocument | BsonDocument[],
      upsert: optionalBool(raw, 'upsert'),
      multi,
      arrayFilters: arrayFilters as BsonDocument[] | undefined,
      hint,
      collation,
      c: optionalDocument(raw, 'constants'),
      sort: optionalDocument(raw, 'sort'),
    },
  };
}

const nsInfoFields = new Set([
  'ns',
  'collectionUUID',
  'encryptionInformation',
  'isTimeseriesNamespace',
  'shardVersion',
  'databaseVersion',
]);

function parseNsInfo(raw: BsonValue): NsEntry {
  if (!isPlainDocument(raw))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'bulkWrite.nsInfo' contains an element that is not an object",
    );
  for (const k of Object.keys(raw)) {
    if (!nsInfoFields.has(k))
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'bulkWrite.nsInfo.${k}' is an unknown field.`,
      );
  }
  const ns = getOwn(raw, 'ns');
  if (ns === undefined) throw missingFieldError('bulkWrite.nsInfo.ns');
  if (typeof ns !== 'string') throw wrongType('bulkWrite.nsInfo.ns', ns, 'string');
  const dot = ns.indexOf('.');
  const invalid = new CommandError(
    ErrorCode.InvalidNamespace,
    `Invalid namespace specified for bulkWrite: '${ns}'`,
  );
  if (dot <= 0 || dot === ns.length - 1) throw invalid;
  const db = ns.slice(0, dot);
  const name = ns.slice(dot + 1);
  try {
    validateDatabaseName(db);
    validateCollectionName(db, name, { allowSystem: true });
  } catch {
    throw invalid;
  }
  if (getOwn(raw, 'encryptionInformation') !== undefined)
    throw new CommandError(
      ErrorCode.NotImplemented,
      'bulkWrite with encryptionInformation (Queryable Encryption) is not supported',
    );
  const ts = getOwn(raw, 'isTimeseriesNamespace');
  if (ts !== undefined && ts !== false)
    throw new CommandError(
      ErrorCode.Location7934201,
      "'isTimeseriesNamespace' parameter can only be set when the request is sent on 'system.buckets' namespace to each shard",
    );
  const uuid = getOwn(raw, 'collectionUUID');
  if (uuid !== undefined && !(uuid instanceof Binary && uuid.sub_type === Binary.SUBTYPE_UUID))
    throw wrongType('bulkWrite.nsInfo.collectionUUID', uuid, 'binData');
  return {
    db,
    name,
    uuid:
      uuid === undefined
        ? undefined
        : Buffer.from(uuid.buffer.subarray(0, uuid.position)).toString('hex'),
  };
}

function parseStmtIds(stmtIds: BsonValue[] | undefined, count: number, hasStmtId: boolean): void {
  if (stmtIds === undefined) return;
  if (hasStmtId)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'May not specify both stmtId and stmtIds in bulkWrite command',
    );
  if (stmtIds.length !== count)
    throw new CommandError(
      ErrorCode.InvalidLength,
      `Number of statement ids must match the number of batch entries. Got ${stmtIds.length} statement ids but ${count} operations.`,
    );
  for (const id of stmtIds)
    if (!(id instanceof Int32)) throw wrongType('bulkWrite.stmtIds', id, 'int');
}

/** The privileges: on each namespace, the actions its operations need (mongod's getPrivileges). */
function requiredPrivileges(body: BsonDocument, bypass: boolean): Privilege[] {
  const nsInfo = getOwn(body, 'nsInfo');
  const ops = getOwn(body, 'ops');
  if (!Array.isArray(nsInfo) || !Array.isArray(ops)) return [];
  const actions: Array<Set<ActionType>> = nsInfo.map(
    () => new Set<ActionType>(bypass ? ['bypassDocumentValidation'] : []),
  );
  for (const op of ops) {
    if (!isPlainDocument(op)) continue;
    const kind = Object.keys(op)[0];
    const idx = numericValue(kind === undefined ? undefined : getOwn(op, kind));
    const set = idx === undefined ? undefined : actions[idx];
    if (set === undefined) continue;
    if (kind === 'insert') set.add('insert');
    else if (kind === 'update') {
      set.add('update');
      if (getOwn(op, 'upsert') === true) set.add('insert');
    } else if (kind === 'delete') set.add('remove');
  }
  const out: Privilege[] = [];
  nsInfo.forEach((entry, i) => {
    const ns = isPlainDocument(entry) ? getOwn(entry, 'ns') : undefined;
    const set = actions[i];
    if (typeof ns !== 'string' || set === undefined) return;
    const dot = ns.indexOf('.');
    out.push(privilege(namespaceResource(ns.slice(0, dot), ns.slice(dot + 1)), ...set));
  });
  return out;
}

// ---- execution -------------------------------------------------------------------------------

interface Target {
  readonly entry: NsEntry;
  readonly ns: Namespace;
  readonly ts: TimeseriesTarget | undefined;
  readonly scope: StatementScope;
}

function uuidMismatch(
  services: ServerServices,
  op: OperationContext,
  entry: NsEntry,
): CommandError | undefined {
  if (entry.uuid === undefined) return undefined;
  const coll = services.catalog.get(entry.db, entry.name, op.access.transaction);
  if (coll !== undefined && coll.meta.uuid === entry.uuid) return undefined;
  const actual = services.catalog.collections(entry.db).find((c) => c.meta.uuid === entry.uuid);
  return new CommandError(
    ErrorCode.CollectionUUIDMismatch,
    `Collection UUID ${entry.uuid} does not match that of the collection ${entry.db}.${entry.name}`,
    {
      info: {
        db: entry.db,
        collectionUUID: new Binary(Buffer.from(entry.uuid, 'hex'), Binary.SUBTYPE_UUID),
        expectedCollection: entry.name,
        actualCollection: actual === undefined ? null : actual.meta.name,
      },
    },
  );
}

/** A multi update or delete cannot be retried (one statement may write many documents). */
function refuseMultiInRetryableWrite(op: OperationContext): void {
  if (op.session?.retryableWrite === true && op.access.transaction === undefined)
    throw new CommandError(ErrorCode.InvalidOptions, 'Cannot use retryable writes with multi=true');
}

function runOp(
  w: WriteContext,
  services: ServerServices,
  op: OperationContext,
  target: Target,
  bulkOp: BulkOp,
): OpResult {
  const { entry, ns, ts, scope } = target;
  validateCollectionName(entry.db, entry.name, { allowSystem: false });
  const mismatch = uuidMismatch(services, op, entry);
  if (mismatch !== undefined) throw mismatch;
  switch (bulkOp.kind) {
    case 'insert':
      if (ts !== undefined) {
        refuseTimeseriesWriteInTransaction(op, ts, 'insert into');
        insertMeasurement(w, ts, bulkOp.document);
      } else insertDocument(w, ns, bulkOp.document);
      return { n: 1 };
    case 'update': {
      const st = bulkOp.statement;
      if (st.sort !== undefined && st.multi)
        throw new CommandError(ErrorCode.FailedToParse, 'Cannot specify sort with multi=true');
      if (st.multi) refuseMultiInRetryableWrite(op);
      let statement = st;
      let into = ns;
      if (ts !== undefined) {
        refuseTimeseriesWriteInTransaction(op, ts, 'update');
        const onBuckets = bucketsUpdateStatement(ts.options, st);
        if (onBuckets instanceof CommandError) throw onBuckets;
        statement = onBuckets;
        into = ts.buckets;
      }
      resolveHint(services.catalog.get(into.db, into.name, op.access.transaction), statement.hint);
      const r = executeUpdate(w, into, updateSpecOf(scope, statement));
      return {
        n: r.n,
        nModified: r.nModified,
        ...(r.upsertedId === undefined ? {} : { upsertedId: r.upsertedId }),
      };
    }
    case 'delete': {
      if (bulkOp.multi) refuseMultiInRetryableWrite(op);
      const st = bulkOp.statement;
      const spec = { ...deleteSpecOf(scope, st), limit: st.limit };
      if (ts !== undefined) {
        refuseTimeseriesWriteInTransaction(op, ts, 'delete from');
        return { n: deleteMeasurements(w, ts, spec) };
      }
      resolveHint(services.catalog.get(ns.db, ns.name, op.access.transaction), st.hint);
      return { n: executeDelete(w, ns, spec).length };
    }
  }
}

/** An operation's entry in the results cursor (mongod's BulkWriteReplyItem). */
function replyItem(bulkOp: BulkOp, index: number, r: OpResult): BsonDocument {
  const item: BsonDocument = { ok: new Double(1), idx: new Int32(index), n: new Int32(r.n) };
  if (bulkOp.kind === 'update') {
    item['nModified'] = new Int32(r.nModified ?? 0);
    if (r.upsertedId !== undefined) item['upserted'] = { _id: r.upsertedId };
  }
  return item;
}

function errorItem(bulkOp: BulkOp | undefined, writeError: BsonDocument): BsonDocument {
  const item: BsonDocument = { ok: new Double(0), idx: writeError['index'] ?? new Int32(0) };
  for (const [k, v] of Object.entries(writeError)) if (k !== 'index') item[k] = v;
  item['n'] = new Int32(0);
  if (bulkOp?.kind === 'update') item['nModified'] = new Int32(0);
  return item;
}

/** Approximate bytes an operation's reply entry takes: what the replies cap counts. */
const replyItemBytesBase = 48;

export const bulkWrite = defineCommand({
  name: 'bulkWrite',
  auth: privileges(
    'on each namespace of nsInfo, insert / update / remove as its operations need (and bypassDocumentValidation)',
    (input) => [requiredPrivileges(input.body, input.args.bypassDocumentValidation === true)],
  ),
  args: {
    ops: t.array,
    nsInfo: t.array,
    cursor: t.document,
    bypassDocumentValidation: t.safeBool,
    ordered: t.bool,
    stmtIds: t.array,
    let: t.document,
    errorsOnly: t.bool,
  },
  traits: {
    isWrite: true,
    retryableWrite: true,
    counter: 'bulkWrite',
    allowedInTransaction: true,
    adminOnly: true,
    apiVersion1: true,
  },
  help: 'command to apply inserts, updates and deletes in bulk',
  run: async (inv) => {
    const { services, args, op, body } = inv;
    if (args.ops === undefined) throw missingFieldError('bulkWrite.ops');
    if (args.nsInfo === undefined) throw missingFieldError('bulkWrite.nsInfo');
    const batchSize =
      args.cursor === undefined
        ? undefined
        : requireNonNegative(
            'bulkWrite',
            'cursor.batchSize',
            numericValue(args.cursor['batchSize']),
          );
    // Everything is checked before anything runs, as mongod's parser and validateRequest do.
    const ops = args.ops.map(parseOp);
    const entries = args.nsInfo.map(parseNsInfo);
    checkBatchSize(ops.length);
    parseStmtIds(args.stmtIds, ops.length, getOwn(body, 'stmtId') !== undefined);
    for (const [i, bulkOp] of ops.entries()) {
      if (bulkOp.ns >= entries.length)
        throw new CommandError(
          ErrorCode.BadValue,
          `BulkWrite ops entry ${formatDocument(args.ops[i] as BsonDocument)} has an invalid nsInfo index.`,
        );
    }
    const clusterTime = clusterTimeOf(services);
    const targets: Target[] = entries.map((entry) => {
      const ts = timeseriesTargetOf(services, op, entry.db, entry.name);
      return {
        entry,
        ns: { db: entry.db, name: entry.name },
        ts,
        scope: { services, op, db: entry.db, name: entry.name, let: args.let, clusterTime },
      };
    });
    let replyBytes = 0;
    const repliesFull = (): CommandError =>
      new CommandError(
        ErrorCode.ExceededMemoryLimit,
        `BulkWrite response size exceeded limit (${limits.bulkWriteRepliesBytesMax} bytes)`,
      );
    const outcome = await runWriteBatch<BulkOp, OpResult>(
      services,
      op,
      ops,
      {
        ordered: args.ordered ?? true,
        bypassDocumentValidation: args.bypassDocumentValidation,
        endsBatch: (e) =>
          e.code === ErrorCode.ExceededMemoryLimit && replyBytes >= limits.bulkWriteRepliesBytesMax,
      },
      (w, bulkOp): OpResult => {
        if (replyBytes >= limits.bulkWriteRepliesBytesMax) throw repliesFull();
        const target = targets[bulkOp.ns] as Target;
        try {
          const r = runOp(w, services, op, target, bulkOp);
          if (args.errorsOnly !== true)
            replyBytes +=
              replyItemBytesBase +
              (r.upsertedId === undefined ? 0 : calculateObjectSize({ _id: r.upsertedId }));
          return r;
        } catch (e) {
          if (e instanceof CommandError) replyBytes += replyItemBytesBase + e.message.length;
          throw e;
        }
      },
      opCodec,
      (bulkOp, options) => {
        if (bulkOp.kind === 'insert') return undefined;
        const target = targets[bulkOp.ns] as Target;
        if (target.ts !== undefined || target.entry.uuid !== undefined) return undefined;
        if (bulkOp.kind === 'update') {
          const st = bulkOp.statement;
          if (!st.multi || st.upsert || st.sort !== undefined) return undefined;
          return async () => {
            validateCollectionName(target.entry.db, target.entry.name, { allowSystem: false });
            resolveHint(
              services.catalog.get(target.ns.db, target.ns.name, op.access.transaction),
              st.hint,
            );
            const r = await slicedUpdate(services, op, target.ns, updateSpecOf(target.scope, st), {
              durable: op.writeConcern.durable,
              ...options,
            });
            return { n: r.n, nModified: r.nModified };
          };
        }
        if (!bulkOp.multi) return undefined;
        return async () => {
          validateCollectionName(target.entry.db, target.entry.name, { allowSystem: false });
          const st = bulkOp.statement;
          resolveHint(
            services.catalog.get(target.ns.db, target.ns.name, op.access.transaction),
            st.hint,
          );
          const n = await slicedDelete(
            services,
            op,
            target.ns,
            {
              ...deleteSpecOf(target.scope, st),
              natural: resolveHint(undefined, st.hint).natural,
            },
            { durable: op.writeConcern.durable },
          );
          return { n };
        };
      },
    );
    // Counts, and the reply entries in operation order (results and errors interleave when
    // the batch is unordered).
    const errorsByIndex = new Map<number, BsonDocument>();
    for (const e of outcome.writeErrors) errorsByIndex.set(numericValue(e['index']) ?? 0, e);
    const counts = { nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 0, nDeleted: 0 };
    const items: BsonDocument[] = [];
    ops.forEach((bulkOp, i) => {
      const r = outcome.results[i];
      if (r !== undefined) {
        if (bulkOp.kind === 'insert') counts.nInserted += r.n;
        else if (bulkOp.kind === 'delete') counts.nDeleted += r.n;
        else {
          counts.nModified += r.nModified ?? 0;
          if (r.upsertedId !== undefined) counts.nUpserted += 1;
          else counts.nMatched += r.n;
        }
        if (args.errorsOnly !== true) items.push(replyItem(bulkOp, i, r));
        return;
      }
      const err = errorsByIndex.get(i);
      if (err !== undefined) items.push(errorItem(bulkOp, err));
    });
    // The slow-query line, the profiler and serverStatus count what the operations did.
    op.debug.ninserted = counts.nInserted;
    op.debug.nMatched = counts.nMatched;
    op.debug.nModified = counts.nModified;
    op.debug.nUpserted = counts.nUpserted;
    op.debug.ndeleted = counts.nDeleted;
    const reply: BsonDocument = {
      cursor: await resultsCursor(inv, items, batchSize),
      nErrors: new Int32(outcome.writeErrors.length),
      nInserted: new Int32(counts.nInserted),
      nMatched: new Int32(counts.nMatched),
      nModified: new Int32(counts.nModified),
      nUpserted: new Int32(counts.nUpserted),
      nDeleted: new Int32(counts.nDeleted),
    };
    if (outcome.retriedStmtIds.length > 0)
      reply['retriedStmtIds'] = outcome.retriedStmtIds.map((n) => new Int32(n));
    if (outcome.wcError !== undefined) reply['writeConcernError'] = outcome.wcError;
    return reply;
  },
});

/**
 * The results as mongod returns them: as many as fit the first batch (cursor.batchSize, else
 * all, within the reply size cap), the rest in a cursor that getMore drains.
 */
async function resultsCursor(
  inv: { readonly services: ServerServices; readonly op: OperationContext },
  items: BsonDocument[],
  batchSize: number | undefined,
): Promise<BsonDocument> {
  const { services, op } = inv;
  const done = (firstBatch: BsonDocument[], id: Long): BsonDocument => ({
    id,
    firstBatch,
    ns: bulkWriteCursorNs,
  });
  if (items.length === 0) return done([], Long.ZERO);
  const cursor = new ServerCursor(new RowsStage(items.map((doc) => ({ doc }))), {
    ns: bulkWriteCursorNs,
    // The rows are in memory: a batch reads nothing, but a cursor wants a view to read from.
    views: () => {
      const view = services.engine.snapshot();
      return { view, release: () => view.release() };
    },
    owner: { sessionKey: op.session?.session.key },
    comment: op.comment,
  });
  if (batchSize === 0) {
    services.cursors.register(cursor);
    return done([], cursor.id);
  }
  const batch = await cursor.nextBatch(batchSize, op);
  if (cursor.isExhausted) {
    cursor.close();
    return done(batch, Long.ZERO);
  }
  services.cursors.register(cursor);
  return done(batch, cursor.id);
}
