// update: a batch of update statements {q, u, upsert, multi, arrayFilters, hint, collation, c}.

import { Int32 } from 'bson';
import type { Timestamp } from 'bson';
import type { OperationContext, ServerServices } from '../context.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { parseCollation } from '../../bson/collation.js';
import {
  commandExpressions,
  compileQueryFilter,
  textSearchHook,
  compileQueryUpdate,
  compileQuerySort,
  updateStatementExpressions,
} from '../query-language.js';
import { t, typeNameOf } from '../args.js';
import { defineCommand } from '../registry.js';
import { clusterTimeOf, scriptingOf, resolveCollation } from './operation-env.js';
import { targetCollection } from './target.js';
import { resolveHint } from './hint.js';
import { checkBatchSize, finishWriteReply, runWriteBatch } from './write-batch.js';
import type { StatementResultCodec } from './write-batch.js';
import { executeUpdate, slicedUpdate } from './write-exec.js';
import {
  bucketsUpdateStatement,
  refuseTimeseriesWriteInTransaction,
  timeseriesTargetOf,
} from './timeseries-writes.js';
import type { UpdateSpec } from './write-exec.js';
import type { UpdateOutcome } from './write-exec.js';
import { privileges, targetResource } from '../authorization.js';
import { privilege } from '../../auth/privileges.js';
import type { ActionType } from '../../auth/actions.js';
import { supports } from '../version.js';

// MongoDB 7.0 has no `sort` in update statements (8.0 added it): reporting 7.0 it is an
// unknown field (version.ts decides).
const statementFields = new Set([
  'q',
  'u',
  'upsert',
  'multi',
  'arrayFilters',
  'hint',
  'collation',
  'c',
  'upsertSupplied',
]);

export interface ParsedUpdateStatement {
  readonly q: BsonDocument;
  readonly u: BsonDocument | BsonDocument[];
  readonly upsert: boolean;
  readonly multi: boolean;
  readonly arrayFilters: BsonDocument[] | undefined;
  readonly hint: BsonValue | undefined;
  /** The statement's collation document, checked up front (undefined: the collection's default). */
  readonly collation: BsonDocument | undefined;
  /** Constants for a pipeline update (`c`). */
  readonly c: BsonDocument | undefined;
  /** 8.0: the first matched document in this order is the one updated (multi: false only). */
  readonly sort: BsonDocument | undefined;
}

export interface StatementParseOptions {
  /** `sort` is a field of the statement (the server reports 8.0). */
  readonly sort: boolean;
}

function parseStatement(raw: BsonValue, options: StatementParseOptions): ParsedUpdateStatement {
  if (!isPlainDocument(raw))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'update.updates' contains an element that is not an object",
    );
  for (const k of Object.keys(raw)) {
    if (!statementFields.has(k) && !(k === 'sort' && options.sort))
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'update.updates.${k}' is an unknown field.`,
      );
  }
  const q = raw['q'];
  const u = raw['u'];
  if (q === undefined) throw missingFieldError('update.updates.q');
  if (u === undefined) throw missingFieldError('update.updates.u');
  if (!isPlainDocument(q))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'update.updates.q' is the wrong type, expected type 'object'",
    );
  if (!isPlainDocument(u) && !Array.isArray(u)) {
    throw new CommandError(
      ErrorCode.FailedToParse,
      'Update argument must be either an object or an array',
    );
  }
  const arrayFilters = raw['arrayFilters'];
  if (
    arrayFilters !== undefined &&
    (!Array.isArray(arrayFilters) || !arrayFilters.every(isPlainDocument))
  ) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'update.updates.arrayFilters' is the wrong type, expected type 'array'",
    );
  }
  const c = raw['c'];
  if (c !== undefined && !isPlainDocument(c)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'update.updates.c' is the wrong type '${typeNameOf(c)}', expected type 'object'`,
    );
  }
  const collation = raw['collation'];
  if (collation !== undefined) parseCollation(collation);
  // A replacement with multi: true is refused per statement (a writeError, code 9) by the
  // update compiler, as mongod does; it is not a malformed command.
  const multi = raw['multi'] === true;
  const sort = raw['sort'];
  if (sort !== undefined && !isPlainDocument(sort)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'update.updates.sort' is the wrong type '${typeNameOf(sort)}', expected type 'object'`,
    );
  }
  // mongod checks this before running the batch's statements: the command fails (code 9).
  if (sort !== undefined && multi)
    throw new CommandError(ErrorCode.FailedToParse, 'Cannot specify sort with multi=true');
  return {
    q,
    u: u as BsonDocument | BsonDocument[],
    upsert: raw['upsert'] === true,
    multi,
    arrayFilters: arrayFilters as BsonDocument[] | undefined,
    hint: raw['hint'],
    collation: collation as BsonDocument | undefined,
    c,
    sort,
  };
}

/** What a statement's filter and update are compiled against: the command and its target. */
export interface StatementScope {
  readonly services: ServerServices;
  readonly op: OperationContext;
  readonly db: string;
  /** The collection as the client named it (a time-series view's name, not its buckets'). */
  readonly name: string;
  readonly let: BsonDocument | undefined;
  readonly clusterTime: Timestamp | undefined;
}

/** Compiles an update statement (update, bulkWrite): filter, update, sort, collation. */
export function updateSpecOf(scope: StatementScope, stmt: ParsedUpdateStatement): UpdateSpec {
  const { services, op, db, name } = scope;
  // One expression context per statement, as mongod's: `let`, then the statement's `c`
  // (pipelines only), shared by the update and the filter, parsed in that order.
  const collator = resolveCollation(
    services.catalog.get(db, name, op.access.transaction),
    stmt.collation,
  );
  const expressions = updateStatementExpressions(
    commandExpressions({
      let: scope.let,
      clusterTime: scope.clusterTime,
      collator,
      scripting: scriptingOf(services, op),
    }),
    stmt.u,
    stmt.c,
  );
  const compiled = compileQueryUpdate(stmt.u, {
    arrayFilters: stmt.arrayFilters,
    multi: stmt.multi,
    expressions,
    collator,
  });
  const sort = compileQuerySort(stmt.sort, collator);
  return {
    filter: stmt.q,
    sort: sort.comparator,
    naturalSort: sort.natural,
    matcher: compileQueryFilter(stmt.q, {
      expressions,
      collator,
      textSearch: textSearchHook(
        `${db}.${name}`,
        services.catalog.get(db, name, op.access.transaction),
      ),
    }),
    collator,
    update: compiled,
    multi: stmt.multi,
    upsert: stmt.upsert,
    hint: stmt.hint,
  };
}

const updateCodec: StatementResultCodec<UpdateOutcome> = {
  encode: (r) => ({
    n: new Int32(r.n),
    nModified: new Int32(r.nModified),
    ...(r.upsertedId === undefined ? {} : { upsertedId: r.upsertedId }),
  }),
  decode: (d) => ({
    n: numericValue(d['n']) ?? 0,
    nModified: numericValue(d['nModified']) ?? 0,
    ...(d['upsertedId'] === undefined ? {} : { upsertedId: d['upsertedId'] }),
  }),
};

export const update = defineCommand({
  name: 'update',
  auth: privileges(
    'update on the collection (insert for upserts, bypassDocumentValidation)',
    (input) => {
      const updates = input.body['updates'];
      const upsert =
        Array.isArray(updates) && updates.some((u) => isPlainDocument(u) && u['upsert'] === true);
      const actions: ActionType[] = ['update'];
      if (upsert) actions.push('insert');
      if (input.args.bypassDocumentValidation === true) actions.push('bypassDocumentValidation');
      return [[privilege(targetResource(input), ...actions)]];
    },
  ),
  args: {
    updates: t.array,
    ordered: t.bool,
    bypassDocumentValidation: t.safeBool,
    let: t.document,
    stmtIds: t.array,
  },
  traits: {
    isWrite: true,
    retryableWrite: true,
    counter: 'update',
    allowedInTransaction: true,
    apiVersion1: true,
  },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const name = targetCollection(inv, { allowSystem: false });
    if (args.updates === undefined) {
      throw missingFieldError('update.updates');
    }
    checkBatchSize(args.updates.length);
    // Statement structure is validated up front, as mongod's IDL does: a malformed statement
    // fails the whole command; execution errors become per-statement writeErrors.
    const parseOptions = { sort: supports(services.config.reported, 'updateSort') };
    const parsed = args.updates.map((raw) => parseStatement(raw, parseOptions));
    // A time-series collection: the statements 7.0 allows become updates of its buckets' meta.
    const ts = timeseriesTargetOf(services, op, db, name);
    if (ts !== undefined) refuseTimeseriesWriteInTransaction(op, ts, 'update');
    const ns = ts === undefined ? { db, name } : ts.buckets;
    const statements: Array<ParsedUpdateStatement & { refusal?: CommandError }> =
      ts === undefined
        ? parsed
        : parsed.map((st) => {
            const r = bucketsUpdateStatement(ts.options, st);
            return r instanceof CommandError ? { ...st, refusal: r } : r;
          });
    const coll = services.catalog.get(db, name, op.access.transaction);
    for (const st of statements) resolveHint(coll, st.hint);
    const scope: StatementScope = {
      services,
      op,
      db,
      name,
      let: args.let,
      clusterTime: clusterTimeOf(services),
    };
    const specOf = (stmt: (typeof statements)[number]): UpdateSpec => {
      if (stmt.refusal !== undefined) throw stmt.refusal;
      return updateSpecOf(scope, stmt);
    };
    const outcome = await runWriteBatch(
      services,
      op,
      statements,
      {
        ordered: args.ordered ?? true,
        bypassDocumentValidation: args.bypassDocumentValidation,
      },
      (w, stmt): UpdateOutcome => {
        const r = executeUpdate(w, ns, specOf(stmt));
        // Only the counts and the upserted _id are kept (and replayed for a retry).
        return {
          n: r.n,
          nModified: r.nModified,
          ...(r.upsertedId === undefined ? {} : { upsertedId: r.upsertedId }),
        };
      },
      updateCodec,
      (stmt, options) =>
        stmt.multi && !stmt.upsert
          ? () =>
              slicedUpdate(services, op, ns, specOf(stmt), {
                durable: op.writeConcern.durable,
                ...options,
              })
          : undefined,
    );
    let n = 0;
    let nModified = 0;
    const upserted: BsonDocument[] = [];
    outcome.results.forEach((r, index) => {
      if (r === undefined) return;
      n += r.n;
      nModified += r.nModified;
      if (r.upsertedId !== undefined) upserted.push({ index: new Int32(index), _id: r.upsertedId });
    });
    const reply: BsonDocument = { n: new Int32(n), nModified: new Int32(nModified) };
    if (upserted.length > 0) reply['upserted'] = upserted;
    return finishWriteReply(reply, outcome);
  },
});
