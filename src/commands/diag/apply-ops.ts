// applyOps in the form mongod 7.0 accepts from users: a list of oplog-entry-shaped CRUD
// operations on existing collections — insert ('i', document in `o`), update ('u', `o2: {_id}`,
// `o` a replacement or a `$v: 2` diff; `b: true` or alwaysUpsert, the default, upserts), delete
// ('d', `o: {_id}`), no-op ('n') — applied all together in one storage transaction (mongod's
// atomic applyOps), each through the same write path as the CRUD commands, with optional
// preconditions checked first. An insert of an _id already there replaces that document, as
// mongod's oplog application does. Command operations ('c': create, drop, nested applyOps...)
// are not supported here (NotImplemented). The checks and error codes are mongod's
// (OplogApplicationChecks, applyOperation_inlock).

import { Double, Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { bsonTypeName, isPlainDocument, numericValue } from '../../bson/types.js';
import { EJSON } from 'bson';
import { getOwn } from '../../bson/document.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { compileFilter } from '../../query/match/index.js';
import { applyDiff } from '../../update/apply-diff.js';
import { compileUpdate } from '../../update/index.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { privileges } from '../authorization.js';
import { privilege } from '../../auth/privileges.js';
import { clusterResource, namespaceResource } from '../../auth/resource.js';
import { writeWithConcern } from '../crud/operation-env.js';
import { executeDelete, executeUpdate } from '../crud/write-exec.js';
import { insertDocument } from '../../catalog/write-unit.js';
import type { Namespace, WriteContext } from '../../catalog/write-unit.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { WriteTxn } from '../../storage/engine.js';

/** mongod's checkBSONType message. */
function wrongType(field: string, expected: string, v: BsonValue | undefined): CommandError {
  return new CommandError(
    ErrorCode.TypeMismatch,
    `Wrong type for '${field}'. Expected a ${expected}, got a ${v === undefined ? 'missing' : bsonTypeName(v)}.`,
  );
}

function opText(op: BsonDocument): string {
  return JSON.stringify(EJSON.serialize(op, { relaxed: true }));
}

interface Operation {
  readonly type: 'i' | 'u' | 'd' | 'n';
  readonly ns: Namespace;
  readonly doc: BsonDocument;
  readonly o: BsonDocument;
  readonly o2: BsonDocument | undefined;
  readonly upsert: boolean;
}

/** OplogApplicationChecks::checkOperation, then what applying the entry needs. */
function parseOperation(e: BsonValue, index: number, alwaysUpsert: boolean): Operation {
  if (!isPlainDocument(e))
    throw new CommandError(ErrorCode.FailedToParse, `op not an object: ${index}`);
  const op = getOwn(e, 'op');
  if (op === undefined)
    throw new CommandError(
      ErrorCode.IllegalOperation,
      `op does not contain required "op" field: ${index}`,
    );
  if (typeof op !== 'string')
    throw new CommandError(ErrorCode.IllegalOperation, `"op" field is not a string: ${index}`);
  if (op === '')
    throw new CommandError(
      ErrorCode.IllegalOperation,
      `"op" field value cannot be empty: ${index}`,
    );
  const ns = getOwn(e, 'ns');
  if (ns === undefined)
    throw new CommandError(
      ErrorCode.IllegalOperation,
      `op does not contain required "ns" field: ${index}`,
    );
  if (typeof ns !== 'string')
    throw new CommandError(ErrorCode.IllegalOperation, `"ns" field is not a string: ${index}`);
  if (ns.includes('\0'))
    throw new CommandError(
      ErrorCode.IllegalOperation,
      'namespaces cannot have embedded null characters',
    );
  if (op !== 'n' && ns === '')
    throw new CommandError(
      ErrorCode.IllegalOperation,
      `"ns" field value cannot be empty when op type is not 'n': ${index}`,
    );
  if (op === 'c')
    throw new CommandError(
      ErrorCode.NotImplemented,
      'applyOps: command operations (op "c") are not supported',
    );
  if (op !== 'i' && op !== 'u' && op !== 'd' && op !== 'n')
    throw new CommandError(
      ErrorCode.BadValue,
      `Enumeration value '${op}' for field 'applyOps.op' is not a valid value.`,
    );
  const o = getOwn(e, 'o');
  if (!isPlainDocument(o)) throw wrongType('o', 'object', o);
  const o2 = getOwn(e, 'o2');
  if (o2 !== undefined && !isPlainDocument(o2)) throw wrongType('o2', 'object', o2);
  const b = getOwn(e, 'b');
  if (b !== undefined && typeof b !== 'boolean') throw wrongType('b', 'bool', b);
  const dot = ns.indexOf('.');
  return {
    type: op,
    ns: { db: dot < 0 ? ns : ns.slice(0, dot), name: dot < 0 ? '' : ns.slice(dot + 1) },
    doc: e,
    o,
    o2,
    upsert: b === true || alwaysUpsert,
  };
}

function byId(id: BsonValue): { filter: BsonDocument; matcher: ReturnType<typeof compileFilter> } {
  const filter: BsonDocument = { _id: id };
  return { filter, matcher: compileFilter(filter) };
}

/** applyOperation_inlock for one CRUD entry, inside the shared transaction. */
function applyOne(w: WriteContext, op: Operation): void {
  if (op.type === 'n') return;
  const { txn, catalog } = w;
  const coll = catalog.get(op.ns.db, op.ns.name);
  const what = op.type === 'i' ? 'insert' : op.type === 'u' ? 'update' : 'delete';
  if (coll === undefined)
    throw new CommandError(
      ErrorCode.NamespaceNotFound,
      `Failed to apply ${what} due to missing collection: ${opText(op.doc)}`,
    );
  if (op.type === 'i') {
    // As mongod's oplog application: an insert whose _id is taken replaces that document (an
    // upsert), so replaying entries already in the data is idempotent.
    const id = getOwn(op.o, '_id');
    if (id === undefined || coll.findById(txn, id) === undefined) {
      insertDocument(w, op.ns, op.o);
      return;
    }
    executeUpdate(w, op.ns, {
      ...byId(id),
      update: compileUpdate(op.o),
      multi: false,
      upsert: true,
    });
    return;
  }
  if (op.type === 'd') {
    const id = getOwn(op.o, '_id');
    if (id === undefined)
      throw new CommandError(
        ErrorCode.NoSuchKey,
        `Failed to apply delete due to missing _id: ${opText(op.doc)}`,
      );
    executeDelete(w, op.ns, { ...byId(id), limit: 1 });
    return;
  }
  const id = op.o2 === undefined ? undefined : getOwn(op.o2, '_id');
  if (id === undefined)
    throw new CommandError(
      ErrorCode.NoSuchKey,
      `Failed to apply update due to missing _id: ${opText(op.doc)}`,
    );
  const isReplacement = getOwn(op.o, '_id') !== undefined;
  const v = getOwn(op.o, '$v');
  if (!isReplacement && numericValue(v ?? null) !== 2)
    throw new CommandError(
      ErrorCode.Location4772600,
      `Expected _id field or $v:2, but got: ${v === undefined ? 'EOO' : JSON.stringify(EJSON.serialize({ $v: v }))}`,
    );
  const diff = getOwn(op.o, 'diff');
  if (!isReplacement && !isPlainDocument(diff))
    throw new CommandError(
      ErrorCode.Location4772601,
      `Expected 'diff' field to be an object, instead got type: ${diff === undefined ? 'missing' : bsonTypeName(diff)}`,
    );
  const current = coll.findById(txn, id);
  const base = current?.doc ?? { _id: id };
  const after = isReplacement ? op.o : applyDiff(base, diff as BsonDocument);
  if (current === undefined && !op.upsert)
    throw new CommandError(
      ErrorCode.UpdateOperationFailed,
      `${isReplacement ? 'Update of non-mod failed' : 'Failed to apply update'}: ${opText(op.doc)}`,
    );
  executeUpdate(w, op.ns, {
    ...byId(id),
    update: compileUpdate(after),
    multi: false,
    upsert: op.upsert,
  });
}

/** mongod's preCondition: each {ns, q, res}: the first document matching q must match res. */
function checkPreconditions(txn: WriteTxn, catalog: Catalog, list: readonly BsonValue[]): void {
  for (const p of list) {
    if (!isPlainDocument(p)) throw wrongType('preCondition', 'object', p);
    const ns = getOwn(p, 'ns');
    if (typeof ns !== 'string') throw wrongType('ns', 'string', ns);
    const q = getOwn(p, 'q') ?? {};
    const res = getOwn(p, 'res') ?? {};
    if (!isPlainDocument(q)) throw wrongType('q', 'object', q);
    if (!isPlainDocument(res)) throw wrongType('res', 'object', res);
    const dot = ns.indexOf('.');
    const coll = catalog.get(ns.slice(0, dot), ns.slice(dot + 1));
    const matcher = compileFilter(q);
    let found: BsonDocument = {};
    if (coll !== undefined) {
      for (const r of coll.scanRecords(txn)) {
        if (!matcher.matches(r.doc)) continue;
        found = r.doc;
        break;
      }
    }
    if (!compileFilter(res).matches(found))
      throw new CommandError(ErrorCode.BadValue, 'preCondition failed', {
        info: { got: found, whatFailed: p },
      });
  }
}

export const applyOps = defineCommand({
  name: 'applyOps',
  // As mongod's OplogApplicationChecks: applyOps on the cluster, and each entry's own action on
  // its namespace.
  auth: privileges('applyOps on the cluster and each operation on its namespace', ({ target }) => {
    const needed = [privilege(clusterResource, 'applyOps')];
    if (Array.isArray(target)) {
      for (const e of target) {
        if (!isPlainDocument(e) || typeof e['ns'] !== 'string') continue;
        const op = e['op'];
        const action =
          op === 'i' ? 'insert' : op === 'u' ? 'update' : op === 'd' ? 'remove' : undefined;
        const dot = e['ns'].indexOf('.');
        if (action !== undefined)
          needed.push(
            privilege(namespaceResource(e['ns'].slice(0, dot), e['ns'].slice(dot + 1)), action),
          );
        else if (op === 'n') needed.push(privilege(clusterResource, 'appendOplogNote'));
      }
    }
    return [needed];
  }),
  args: {
    preCondition: t.array,
    alwaysUpsert: t.safeBool,
    allowAtomic: t.safeBool,
    bypassDocumentValidation: t.safeBool,
    oplogApplicationMode: t.string,
  },
  strict: false,
  traits: { isWrite: true },
  help: 'internal command to apply oplog entries\n{ applyOps : [ ] }',
  run: async (inv) => {
    const { services, target, args, op } = inv;
    if (!Array.isArray(target)) throw wrongType('applyOps', 'array', target);
    if (
      args.oplogApplicationMode !== undefined &&
      args.oplogApplicationMode !== 'ApplyOps' &&
      args.oplogApplicationMode !== 'InitialSync' &&
      args.oplogApplicationMode !== 'Recovering' &&
      args.oplogApplicationMode !== 'Secondary'
    )
      throw new CommandError(
        ErrorCode.FailedToParse,
        `Could not parse oplogApplicationMode :: caused by :: Invalid oplog application mode provided: ${args.oplogApplicationMode}`,
      );
    const alwaysUpsert = args.alwaysUpsert ?? true;
    const ops = target.map((e, i) => parseOperation(e, i, alwaysUpsert));
    const { wcError } = await writeWithConcern(services, op, (txn) => {
      if (args.preCondition !== undefined)
        checkPreconditions(txn, services.catalog, args.preCondition);
      const w: WriteContext = {
        txn,
        catalog: services.catalog,
        statement: undefined,
        bypassDocumentValidation: args.bypassDocumentValidation === true,
      };
      for (const o of ops) applyOne(w, o);
    });
    const reply: BsonDocument = {
      applied: new Int32(ops.length),
      results: ops.map(() => true),
    };
    if (wcError !== undefined) reply['writeConcernError'] = wcError;
    reply['ok'] = new Double(1);
    return reply;
  },
});

export const applyOpsCommands: CommandDefinition[] = [applyOps];
