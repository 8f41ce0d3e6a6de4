// delete: a batch of delete statements {q, limit: 0 | 1, hint, collation}.

import { Int32 } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { compileQueryFilter } from '../../query/language.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import { checkCollation, checkLetVariables, resolveHint, targetCollection } from './common.js';
import { checkBatchSize, finishWriteReply, runWriteBatch } from './write-batch.js';
import { executeDelete } from './write-exec.js';

const statementFields = new Set(['q', 'limit', 'hint', 'collation']);

export const deleteCommand = defineCommand({
  name: 'delete',
  args: { deletes: t.array, ordered: t.bool, let: t.document },
  traits: { isWrite: true, counter: 'delete', allowedInTransaction: true, apiVersion1: true },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const name = targetCollection(inv, { allowSystem: false });
    if (args.deletes === undefined) {
      throw new CommandError(ErrorCode.Location40414, "BSON field 'delete.deletes' is missing but a required field");
    }
    checkBatchSize(args.deletes.length);
    checkLetVariables(args.let);
    const ns = { db, name };
    const outcome = await runWriteBatch(services, op, args.deletes, args.ordered ?? true, (txn, raw) => {
      if (!isPlainDocument(raw)) throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'delete.deletes' contains an element that is not an object");
      for (const k of Object.keys(raw)) {
        if (!statementFields.has(k)) throw new CommandError(ErrorCode.Location40415, `BSON field 'delete.deletes.${k}' is an unknown field.`);
      }
      const q = raw['q'];
      if (!isPlainDocument(q)) throw new CommandError(ErrorCode.Location40414, "BSON field 'delete.deletes.q' is missing but a required field");
      const limit = numericValue(raw['limit']);
      if (limit === undefined) throw new CommandError(ErrorCode.Location40414, "BSON field 'delete.deletes.limit' is missing but a required field");
      if (limit !== 0 && limit !== 1) throw new CommandError(ErrorCode.FailedToParse, `The limit field in delete objects must be 0 or 1. Got ${limit}`);
      checkCollation(isPlainDocument(raw['collation']) ? raw['collation'] : undefined);
      resolveHint(services.catalog.get(db, name), raw['hint']);
      return executeDelete(txn, services.catalog, ns, { filter: q, matcher: compileQueryFilter(q), limit }).length;
    });
    const n = outcome.results.reduce<number>((s, r) => s + (r ?? 0), 0);
    const reply: BsonDocument = { n: new Int32(n) };
    return finishWriteReply(reply, outcome);
  },
});
