// findAndModify: update or remove one document and return it (before or after).

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { checkIdValue } from '../../catalog/validate-document.js';
import { CommandError, ErrorCode } from '../../errors.js';
import {
  commandExpressions,
  compileQueryFilter,
  textSearchHook,
  compileQueryProjection,
  compileQuerySort,
  compileQueryUpdate,
} from '../query-language.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import { clusterTimeOf, scriptingOf, resolveCollation } from './operation-env.js';
import { targetCollection } from './target.js';
import { resolveHint } from './hint.js';
import { runWriteBatch } from './write-batch.js';
import type { StatementResultCodec } from './write-batch.js';
import { executeDelete, executeUpdate } from './write-exec.js';
import { privileges, targetResource } from '../authorization.js';
import { privilege } from '../../auth/privileges.js';
import type { ActionType } from '../../auth/actions.js';

interface FamResult {
  readonly n: number;
  readonly value: BsonDocument | undefined;
  readonly updatedExisting: boolean | undefined;
  readonly upserted: BsonValue | undefined;
}

/** The whole result is kept so a retried findAndModify returns the same document. */
const famCodec: StatementResultCodec<FamResult> = {
  encode: (r) => ({
    n: new Int32(r.n),
    ...(r.value === undefined ? {} : { value: r.value }),
    ...(r.updatedExisting === undefined ? {} : { updatedExisting: r.updatedExisting }),
    ...(r.upserted === undefined ? {} : { upserted: r.upserted }),
  }),
  decode: (d) => ({
    n: numericValue(d['n']) ?? 0,
    value: isPlainDocument(d['value']) ? d['value'] : undefined,
    updatedExisting: typeof d['updatedExisting'] === 'boolean' ? d['updatedExisting'] : undefined,
    upserted: d['upserted'],
  }),
};

export const findAndModify = defineCommand({
  name: 'findAndModify',
  auth: privileges(
    'find, and update or remove, on the collection (insert for upserts)',
    (input) => {
      const actions: ActionType[] = ['find', input.args.remove === true ? 'remove' : 'update'];
      if (input.args.upsert === true) actions.push('insert');
      if (input.args.bypassDocumentValidation === true) actions.push('bypassDocumentValidation');
      return [[privilege(targetResource(input), ...actions)]];
    },
  ),
  aliases: ['findandmodify'],
  args: {
    query: t.document,
    sort: t.document,
    remove: t.safeBool,
    update: t.any,
    new: t.safeBool,
    fields: t.document,
    upsert: t.safeBool,
    bypassDocumentValidation: t.safeBool,
    collation: t.document,
    arrayFilters: t.array,
    hint: t.any,
    let: t.document,
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
    const remove = args.remove === true;
    const hasUpdate = args.update !== undefined;
    if (remove && hasUpdate)
      throw new CommandError(
        ErrorCode.FailedToParse,
        'Cannot specify both an update and remove=true',
      );
    if (!remove && !hasUpdate)
      throw new CommandError(
        ErrorCode.FailedToParse,
        'Either an update or remove=true must be specified',
      );
    if (remove && args.new === true) {
      throw new CommandError(
        ErrorCode.FailedToParse,
        "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document",
      );
    }
    if (remove && args.upsert === true)
      throw new CommandError(
        ErrorCode.FailedToParse,
        'Cannot specify both upsert=true and remove=true',
      );
    if (remove && args.arrayFilters !== undefined)
      throw new CommandError(
        ErrorCode.FailedToParse,
        'Cannot specify arrayFilters and remove=true',
      );
    const updateSpec = args.update;
    if (hasUpdate && !isPlainDocument(updateSpec) && !Array.isArray(updateSpec)) {
      throw new CommandError(
        ErrorCode.FailedToParse,
        'Update argument must be either an object or an array',
      );
    }
    const collator = resolveCollation(
      services.catalog.get(db, name, inv.op.access.transaction),
      args.collation,
    );
    const expressions = commandExpressions({
      let: args.let,
      clusterTime: clusterTimeOf(services),
      collator,
      scripting: scriptingOf(services, inv.op),
    });
    const filter = args.query ?? {};
    const matcher = compileQueryFilter(filter, {
      expressions,
      collator,
      textSearch: textSearchHook(
        `${db}.${name}`,
        services.catalog.get(db, name, inv.op.access.transaction),
      ),
    });
    const sort = compileQuerySort(args.sort, collator).comparator;
    // A positional projection takes the position the query matched in the document returned:
    // the one found (remove, new: false); the new one may no longer match (mongod: BadValue).
    const projection = compileQueryProjection(args.fields, { expressions, matcher, collator });
    if (projection?.positional === true && hasUpdate && args.new === true) {
      throw new CommandError(
        ErrorCode.BadValue,
        'cannot use a positional projection and return the new document',
      );
    }
    resolveHint(services.catalog.get(db, name, inv.op.access.transaction), args.hint);
    const arrayFilters = args.arrayFilters;
    if (arrayFilters !== undefined && !arrayFilters.every(isPlainDocument)) {
      throw new CommandError(ErrorCode.TypeMismatch, 'arrayFilters must be an array of objects');
    }
    const compiled = hasUpdate
      ? compileQueryUpdate(updateSpec as BsonDocument | BsonDocument[], {
          arrayFilters: arrayFilters as BsonDocument[] | undefined,
          expressions,
          collator,
        })
      : undefined;
    const ns = { db, name };
    const outcome = await runWriteBatch(
      services,
      op,
      [null],
      { ordered: true, bypassDocumentValidation: args.bypassDocumentValidation },
      (w): FamResult => {
        if (compiled === undefined) {
          const removed = executeDelete(w, ns, {
            filter,
            matcher,
            limit: 1,
            sort,
            hint: args.hint,
            collator,
          });
          return {
            n: removed.length,
            value: removed[0],
            updatedExisting: undefined,
            upserted: undefined,
          };
        }
        const r = executeUpdate(w, ns, {
          filter,
          matcher,
          update: compiled,
          multi: false,
          upsert: args.upsert === true,
          sort,
          hint: args.hint,
          collator,
        });
        const value =
          r.upsertedId !== undefined
            ? args.new === true
              ? r.after
              : undefined
            : args.new === true
              ? r.after
              : r.before;
        return {
          n: r.n,
          value,
          updatedExisting: r.upsertedId === undefined && r.n > 0,
          upserted: r.upsertedId,
        };
      },
      famCodec,
    );
    const err = outcome.writeErrors[0];
    if (err !== undefined) {
      const code = Number((err['code'] as Int32).value);
      const info: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(err))
        if (k !== 'index' && k !== 'code' && k !== 'errmsg') info[k] = v;
      throw new CommandError(code, String(err['errmsg']), { info });
    }
    const r = outcome.results[0];
    if (r === undefined)
      throw new CommandError(ErrorCode.InternalError, 'findAndModify produced no result');
    const lastErrorObject: BsonDocument = { n: new Int32(r.n) };
    if (r.updatedExisting !== undefined) lastErrorObject['updatedExisting'] = r.updatedExisting;
    if (r.upserted !== undefined) {
      checkIdValue(r.upserted);
      lastErrorObject['upserted'] = r.upserted;
    }
    const value =
      r.value === undefined
        ? null
        : projection === undefined
          ? r.value
          : projection.transform({ doc: r.value });
    const reply: BsonDocument = { lastErrorObject, value };
    if (outcome.wcError !== undefined) reply['writeConcernError'] = outcome.wcError;
    return reply;
  },
});
