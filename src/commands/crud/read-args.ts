// The arguments of find, count and distinct: declared once, below the commands, explain and
// the view rewrites (view-reads.ts) that all parse them, and the IDL check of their counts.

import { CommandError, ErrorCode } from '../../errors.js';
import { t } from '../args.js';

export const findArgs = {
  filter: t.document,
  sort: t.document,
  projection: t.document,
  hint: t.any,
  skip: t.int64,
  limit: t.int64,
  batchSize: t.int64,
  singleBatch: t.bool,
  max: t.document,
  min: t.document,
  returnKey: t.bool,
  showRecordId: t.bool,
  tailable: t.bool,
  oplogReplay: t.bool,
  noCursorTimeout: t.bool,
  awaitData: t.bool,
  allowPartialResults: t.bool,
  collation: t.document,
  allowDiskUse: t.bool,
  let: t.document,
  readOnce: t.bool,
  term: t.ignored,
  $_requestResumeToken: t.bool,
  $_resumeAfter: t.document,
};

export const countArgs = {
  query: t.document,
  limit: t.int64,
  skip: t.int64,
  hint: t.any,
  collation: t.document,
  fields: t.ignored,
};

export const distinctArgs = {
  key: t.string,
  query: t.document,
  collation: t.document,
  hint: t.any,
};

/** mongod's IDL check for `>= 0` fields (skip, limit, batchSize). */
export function requireNonNegative(
  command: string,
  field: string,
  v: number | undefined,
): number | undefined {
  if (v !== undefined && v < 0) {
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field '${field}' value must be >= 0, actual value '${v}'`,
    );
  }
  return v;
}
