// insert: documents (body array or OP_MSG document sequence), ordered or not.

import { Int32 } from 'bson';
import { isPlainDocument } from '../../bson/types.js';
import type { BsonDocument } from '../../bson/types.js';
import { prepareForInsert } from '../../catalog/validate-document.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import { ensureCollectionOutsideTransaction, targetCollection } from './common.js';
import { checkBatchSize, finishWriteReply, runWriteBatch } from './write-batch.js';
import type { StatementResultCodec } from './write-batch.js';
import { insertOne } from './write-exec.js';
import { privileges, targetResource } from '../authorization.js';
import { privilege } from '../../auth/privileges.js';

const insertCodec: StatementResultCodec<boolean> = { encode: () => ({}), decode: () => true };

export const insert = defineCommand({
  name: 'insert',
  auth: privileges('insert on the collection (and bypassDocumentValidation)', (input) => [
    [
      privilege(
        targetResource(input),
        'insert',
        ...(input.args.bypassDocumentValidation === true
          ? (['bypassDocumentValidation'] as const)
          : []),
      ),
    ],
  ]),
  args: {
    documents: t.array,
    ordered: t.bool,
    bypassDocumentValidation: t.safeBool,
    stmtIds: t.array,
  },
  traits: {
    isWrite: true,
    retryableWrite: true,
    counter: 'insert',
    allowedInTransaction: true,
    apiVersion1: true,
  },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const name = targetCollection(inv, { allowSystem: false });
    if (args.documents === undefined) {
      throw new CommandError(
        ErrorCode.Location40414,
        "BSON field 'insert.documents' is missing but a required field",
      );
    }
    const docs = args.documents;
    checkBatchSize(docs.length);
    const ns = { db, name };
    await ensureCollectionOutsideTransaction(services, op, db, name);
    const validation = { bypass: args.bypassDocumentValidation === true, logger: services.logger };
    const outcome = await runWriteBatch(
      services,
      op,
      docs,
      args.ordered ?? true,
      (txn, raw) => {
        if (!isPlainDocument(raw)) {
          throw new CommandError(
            ErrorCode.TypeMismatch,
            `BSON field 'insert.documents' contains an element that is not an object`,
          );
        }
        insertOne(txn, services.catalog, ns, prepareForInsert(raw), validation);
        return true;
      },
      insertCodec,
    );
    const n = outcome.results.filter((r) => r === true).length;
    const reply: BsonDocument = { n: new Int32(n) };
    return finishWriteReply(reply, outcome);
  },
});
