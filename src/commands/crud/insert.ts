// insert: documents (body array or OP_MSG document sequence), ordered or not.

import { Int32 } from 'bson';
import { sequenceSourceBytes } from '../../bson/codec.js';
import { isPlainDocument } from '../../bson/types.js';
import type { BsonDocument } from '../../bson/types.js';
import { insertDocument } from '../../catalog/write-unit.js';
import { validateCollectionName } from '../../catalog/namespace.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import { targetCollection } from './target.js';
import { checkBatchSize, finishWriteReply, runWriteBatch } from './write-batch.js';
import type { StatementResultCodec } from './write-batch.js';
import { privileges, targetResource } from '../authorization.js';
import { privilege } from '../../auth/privileges.js';
import {
  bucketsTargetOf,
  insertBucket,
  MeasurementBatch,
  refuseTimeseriesWriteInTransaction,
  timeseriesTargetOf,
} from './timeseries-writes.js';

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
    // A time-series collection's buckets take direct inserts of whole buckets (mongorestore's
    // way of restoring one); any other system collection is refused as before.
    const name = targetCollection(inv);
    const buckets = bucketsTargetOf(services, op, db, name);
    if (buckets === undefined) validateCollectionName(db, name, { allowSystem: false });
    if (args.documents === undefined) {
      throw missingFieldError('insert.documents');
    }
    const docs = args.documents;
    checkBatchSize(docs.length);
    const ns = { db, name };
    const ts = timeseriesTargetOf(services, op, db, name);
    if (ts !== undefined) refuseTimeseriesWriteInTransaction(op, ts, 'insert into');
    // Measurements are grouped into buckets per chunk, each bucket written once.
    const measurements = ts === undefined ? undefined : new MeasurementBatch(ts);
    const outcome = await runWriteBatch(
      services,
      op,
      docs,
      {
        ordered: args.ordered ?? true,
        bypassDocumentValidation: args.bypassDocumentValidation,
        chunk:
          measurements === undefined
            ? undefined
            : { begin: () => measurements.begin(), end: () => measurements.flush() },
      },
      (w, raw, index) => {
        if (!isPlainDocument(raw)) {
          throw new CommandError(
            ErrorCode.TypeMismatch,
            `BSON field 'insert.documents' contains an element that is not an object`,
          );
        }
        if (buckets !== undefined)
          insertBucket(w, buckets, raw, sequenceSourceBytes(docs, index, raw));
        else if (measurements !== undefined) measurements.add(w, raw);
        else insertDocument(w, ns, raw, sequenceSourceBytes(docs, index, raw));
        return true;
      },
      insertCodec,
    );
    const n = outcome.results.filter((r) => r === true).length;
    const reply: BsonDocument = { n: new Int32(n) };
    return finishWriteReply(reply, outcome);
  },
});
