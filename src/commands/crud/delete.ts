// delete: a batch of delete statements {q, limit: 0 | 1, hint, collation}.

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { commandExpressions, compileQueryFilter, textSearchHook } from '../query-language.js';
import { parseCollation } from '../../bson/collation.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import { clusterTimeOf, scriptingOf, resolveCollation } from './operation-env.js';
import { targetCollection } from './target.js';
import { resolveHint } from './hint.js';
import { checkBatchSize, finishWriteReply, runWriteBatch } from './write-batch.js';
import type { StatementResultCodec } from './write-batch.js';
import { executeDelete, slicedDelete } from './write-exec.js';
import { onCollection } from '../authorization.js';
import type { StatementScope } from './update.js';
import type { DocumentFilter } from '../../query/exec/stages.js';
import type { Collator } from '../../bson/collation.js';
import {
  deleteMeasurements,
  refuseTimeseriesWriteInTransaction,
  slicedDeleteMeasurements,
  timeseriesTargetOf,
} from './timeseries-writes.js';

const statementFields = new Set(['q', 'limit', 'hint', 'collation']);

export interface DeleteStatement {
  readonly q: BsonDocument;
  readonly limit: number;
  readonly hint: BsonValue | undefined;
  /** The statement's collation document, checked up front (undefined: the collection's default). */
  readonly collation: BsonDocument | undefined;
}

function parseDeleteStatement(raw: BsonValue): DeleteStatement {
  if (!isPlainDocument(raw))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'delete.deletes' contains an element that is not an object",
    );
  for (const k of Object.keys(raw)) {
    if (!statementFields.has(k))
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'delete.deletes.${k}' is an unknown field.`,
      );
  }
  const q = raw['q'];
  if (q === undefined) throw missingFieldError('delete.deletes.q');
  if (!isPlainDocument(q))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      "BSON field 'delete.deletes.q' is the wrong type, expected type 'object'",
    );
  const limit = numericValue(raw['limit']);
  if (limit === undefined) throw missingFieldError('delete.deletes.limit');
  if (limit !== 0 && limit !== 1)
    throw new CommandError(
      ErrorCode.FailedToParse,
      `The limit field in delete objects must be 0 or 1. Got ${limit}`,
    );
  const collation = raw['collation'];
  if (collation !== undefined) parseCollation(collation);
  return { q, limit, hint: raw['hint'], collation: collation as BsonDocument | undefined };
}

/** Compiles a delete statement (delete, bulkWrite): its filter, collation and hint. */
export function deleteSpecOf(
  scope: StatementScope,
  st: DeleteStatement,
): {
  filter: BsonDocument;
  matcher: DocumentFilter | undefined;
  collator: Collator | undefined;
  hint: BsonValue | undefined;
} {
  const { services, op, db, name } = scope;
  // Each statement gets its own expression context (its own $$NOW), as mongod's do.
  const collator = resolveCollation(
    services.catalog.get(db, name, op.access.transaction),
    st.collation,
  );
  const expressions = commandExpressions({
    let: scope.let,
    clusterTime: scope.clusterTime,
    collator,
    scripting: scriptingOf(services, op),
  });
  const matcher = compileQueryFilter(st.q, {
    expressions,
    collator,
    textSearch: textSearchHook(
      `${db}.${name}`,
      services.catalog.get(db, name, op.access.transaction),
    ),
  });
  return { filter: st.q, matcher, collator, hint: st.hint };
}

const deleteCodec: StatementResultCodec<number> = {
  encode: (n) => ({ n: new Int32(n) }),
  decode: (d) => numericValue(d['n']) ?? 0,
};

export const deleteCommand = defineCommand({
  name: 'delete',
  auth: onCollection('remove'),
  args: { deletes: t.array, ordered: t.bool, let: t.document, stmtIds: t.array },
  traits: {
    isWrite: true,
    retryableWrite: true,
    counter: 'delete',
    allowedInTransaction: true,
    apiVersion1: true,
  },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const name = targetCollection(inv, { allowSystem: false });
    if (args.deletes === undefined) {
      throw missingFieldError('delete.deletes');
    }
    checkBatchSize(args.deletes.length);
    const ns = { db, name };
    // Statement structure is validated up front, as mongod's IDL does: a malformed statement
    // fails the whole command; execution errors become per-statement writeErrors.
    const statements = args.deletes.map(parseDeleteStatement);
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
    const specOf = (st: DeleteStatement) => deleteSpecOf(scope, st);
    const ts = timeseriesTargetOf(services, op, db, name);
    if (ts !== undefined) {
      refuseTimeseriesWriteInTransaction(op, ts, 'delete from');
      const outcome = await runWriteBatch(
        services,
        op,
        statements,
        { ordered: args.ordered ?? true },
        (w, st) => deleteMeasurements(w, ts, { ...specOf(st), limit: st.limit }),
        deleteCodec,
        (st) =>
          st.limit !== 0
            ? undefined
            : () =>
                slicedDeleteMeasurements(
                  services,
                  op,
                  ts,
                  { ...specOf(st), limit: 0 },
                  { durable: op.writeConcern.durable },
                ),
      );
      const n = outcome.results.reduce<number>((s, r) => s + (r ?? 0), 0);
      return finishWriteReply({ n: new Int32(n) }, outcome);
    }
    const outcome = await runWriteBatch(
      services,
      op,
      statements,
      { ordered: args.ordered ?? true },
      (w, st) => executeDelete(w, ns, { ...specOf(st), limit: st.limit }).length,
      deleteCodec,
      (st) => {
        if (st.limit !== 0) return undefined;
        return () =>
          slicedDelete(
            services,
            op,
            ns,
            { ...specOf(st), natural: resolveHint(undefined, st.hint).natural },
            { durable: op.writeConcern.durable },
          );
      },
    );
    const n = outcome.results.reduce<number>((s, r) => s + (r ?? 0), 0);
    const reply: BsonDocument = { n: new Int32(n) };
    return finishWriteReply(reply, outcome);
  },
});
