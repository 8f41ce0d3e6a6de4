// The records a write selects (update, delete, findAndModify, $merge's match on its `on`
// fields): planned like a find, run inside the write's storage transaction, so the documents
// chosen and the write that changes them see the same state.

import type { Collection, StoredRecord } from '../../catalog/collection.js';
import type { ReadView } from '../../storage/engine.js';
import { planQuery } from '../planner/planner.js';
import type { QueryRequest } from '../planner/planner.js';
import type { MatchDetailsSink } from './stages.js';
import { pullSync } from './yield.js';

/**
 * What a write selects: its filter (the matcher and sort already use the statement's
 * collation; the planner must know it too), at most `limit` records in `sort` order, and the
 * statement's hint (an index, or `natural` for {$natural: ±1}).
 */
export type RecordSelection = Pick<
  QueryRequest,
  'filter' | 'matcher' | 'limit' | 'sort' | 'collator' | 'hint' | 'natural'
>;

export interface MatchedRecord {
  readonly record: StoredRecord;
  /** Where the filter matched inside an array (the positional `$` of an update). */
  readonly details: MatchDetailsSink;
}

/** The records `selection` picks in `view` (the write transaction), in plan order. */
export function selectRecords(
  view: ReadView,
  coll: Collection,
  selection: RecordSelection,
): MatchedRecord[] {
  const plan = planQuery(coll, { ...selection, allowDiskUse: true });
  const out: MatchedRecord[] = [];
  for (let row = pullSync(plan, view); row !== undefined; row = pullSync(plan, view)) {
    if (row.recordId === undefined) continue;
    out.push({
      record: { recordId: row.recordId, doc: row.doc, size: 0 },
      details: row.details ?? {},
    });
  }
  return out;
}
