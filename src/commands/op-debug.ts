// What one operation did, for its slow-operation log line (id 51803) and its system.profile
// entry: mongod's OpDebug. Commands fill it as they run (keys and documents examined, documents
// returned, the plan); the dispatcher fills the write counts from the reply and reports it when
// the operation ends (commands/profiler.ts). Nothing here runs unless the operation is
// reported, except the few field writes the commands make.

import { Double, Int32, Long } from 'bson';
import type { BsonDocument } from '../bson/types.js';
import { isPlainDocument, numericValue } from '../bson/types.js';
import { formatDocument } from '../bson/format.js';
import type { ServerCursor } from '../query/exec/cursor.js';
import type { StageStats } from '../query/exec/stages.js';
import { ranQueryHashes } from '../query/planner/explain.js';
import { plannedQueryInfo } from '../query/planner/planner.js';

/**
 * The query engine an operation's plan ran in, as mongod names it: plans here are trees of
 * stages pulled one document at a time, what mongod calls the classic engine (it has no SBE).
 */
export const queryFramework = 'classic';

/** Leaf stages whose key pattern mongod's plan summary shows. */
const keyedStages = new Set(['IXSCAN', 'COUNT_SCAN', 'DISTINCT_SCAN']);

/** Explain::getPlanSummary: the leaf stages, an index scan with its key pattern. */
export function planSummaryOf(stats: StageStats): string {
  const leaves: string[] = [];
  const walk = (s: StageStats): void => {
    if (s.children.length === 0) {
      const key = s.extra?.['keyPattern'];
      leaves.push(
        keyedStages.has(s.stage) && isPlainDocument(key)
          ? `${s.stage} ${formatDocument(key)}`
          : s.stage,
      );
      return;
    }
    for (const c of s.children) walk(c);
  };
  walk(stats);
  return leaves.join(', ');
}

/**
 * The plan summary of a plan still running ($currentOp): only once its query has been planned,
 * as mongod's CurOp has one only once its executor exists. A plan without a query (a command
 * cursor, $currentOp itself) has none.
 */
export function runningPlanSummary(stats: StageStats): string | undefined {
  return plannedQueryInfo(stats) === undefined ? undefined : planSummaryOf(stats);
}

function hasStage(stats: StageStats, name: string): boolean {
  return stats.stage === name || stats.children.some((c) => hasStage(c, name));
}

export class OpDebug {
  keysExamined: number | undefined;
  docsExamined: number | undefined;
  nreturned: number | undefined;
  nMatched: number | undefined;
  nModified: number | undefined;
  ninserted: number | undefined;
  ndeleted: number | undefined;
  nUpserted: number | undefined;
  cursorid: Long | undefined;
  cursorExhausted = false;
  /** Times the operation's reads gave the event loop back (mongod's numYields). */
  numYields = 0;
  /** The plan the operation ran (its summary is computed only if the operation is reported). */
  plan: StageStats | undefined;
  /** The cursor a getMore runs on ($currentOp's `cursor`, the slow-query line's originatingCommand). */
  cursor: ServerCursor | undefined;
  /** Set by the dispatcher when the operation ends. */
  micros = 0;
  responseLength = 0;
  error: { code: number; codeName: string; errmsg: string } | undefined;

  get millis(): number {
    return Math.floor(this.micros / 1000);
  }

  /** Counts the dispatcher reads from a write command's reply (insert, update, delete). */
  fromWriteReply(command: string, reply: BsonDocument): void {
    const n = numericValue(reply['n']);
    if (n === undefined) return;
    if (command === 'insert') this.ninserted = n;
    else if (command === 'delete') this.ndeleted = n;
    else if (command === 'update') {
      const upserted = Array.isArray(reply['upserted']) ? reply['upserted'].length : 0;
      this.nMatched = n - upserted;
      this.nModified = numericValue(reply['nModified']) ?? 0;
      this.nUpserted = upserted;
    }
  }

  /** findAndModify's lastErrorObject. */
  fromFindAndModifyReply(reply: BsonDocument): void {
    const le = reply['lastErrorObject'];
    if (!isPlainDocument(le)) return;
    const n = numericValue(le['n']) ?? 0;
    if (le['updatedExisting'] === true) {
      this.nMatched = n;
      this.nModified = n;
    } else if (le['upserted'] !== undefined) this.nUpserted = 1;
    else if (reply['value'] !== null && reply['value'] !== undefined) this.ndeleted = n;
  }

  /** queryHash and planCacheKey of the query the operation planned, as its explain shows them. */
  private queryHashes(): BsonDocument {
    const h = this.plan === undefined ? undefined : ranQueryHashes(this.plan);
    return h === undefined ? {} : { queryHash: h.queryHash, planCacheKey: h.planCacheKey };
  }

  private counters(): Array<[string, number | undefined]> {
    return [
      ['keysExamined', this.keysExamined],
      ['docsExamined', this.docsExamined],
      ['nMatched', this.nMatched],
      ['nModified', this.nModified],
      ['ninserted', this.ninserted],
      ['ndeleted', this.ndeleted],
      ['nUpserted', this.nUpserted],
    ];
  }

  /** The slow-query log line's attributes after `type`, `ns`, `appName` and `command` (OpDebug::report). */
  reportAttributes(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.plan !== undefined) out['planSummary'] = planSummaryOf(this.plan);
    if (this.cursorid !== undefined && !this.cursorid.isZero()) out['cursorid'] = this.cursorid;
    for (const [k, v] of this.counters()) if (v !== undefined) out[k] = v;
    if (this.plan !== undefined && hasStage(this.plan, 'SORT')) out['hasSortStage'] = true;
    if (this.cursorExhausted) out['cursorExhausted'] = true;
    out['numYields'] = this.numYields;
    if (this.nreturned !== undefined) out['nreturned'] = this.nreturned;
    Object.assign(out, this.queryHashes());
    if (this.plan !== undefined) out['queryFramework'] = queryFramework;
    if (this.error !== undefined) {
      out['ok'] = 0;
      out['errMsg'] = this.error.errmsg;
      out['errName'] = this.error.codeName;
      out['errCode'] = this.error.code;
    }
    if (this.responseLength > 0) out['reslen'] = this.responseLength;
    return out;
  }

  /** The system.profile fields after `op`, `ns` and `command` (OpDebug::append). */
  profileFields(): BsonDocument {
    const out: BsonDocument = {};
    if (this.cursorid !== undefined && !this.cursorid.isZero()) out['cursorid'] = this.cursorid;
    for (const [k, v] of this.counters()) if (v !== undefined) out[k] = Long.fromNumber(v);
    if (this.plan !== undefined && hasStage(this.plan, 'SORT')) out['hasSortStage'] = true;
    if (this.cursorExhausted) out['cursorExhausted'] = true;
    out['numYield'] = new Int32(this.numYields);
    if (this.nreturned !== undefined) out['nreturned'] = Long.fromNumber(this.nreturned);
    Object.assign(out, this.queryHashes());
    if (this.plan !== undefined) out['queryFramework'] = queryFramework;
    out['locks'] = {};
    out['flowControl'] = {};
    if (this.error !== undefined) {
      out['ok'] = new Double(0);
      out['errMsg'] = this.error.errmsg;
      out['errName'] = this.error.codeName;
      out['errCode'] = new Int32(this.error.code);
    }
    out['responseLength'] = Long.fromNumber(this.responseLength);
    out['protocol'] = 'op_msg';
    out['millis'] = Long.fromNumber(this.millis);
    if (this.plan !== undefined) out['planSummary'] = planSummaryOf(this.plan);
    return out;
  }

  /** The document a profile filter is matched against: the profile fields plus durationMillis. */
  filterDocument(head: BsonDocument): BsonDocument {
    const doc: BsonDocument = { ...head, ...this.profileFields() };
    doc['durationMillis'] = Long.fromNumber(this.millis);
    return doc;
  }
}
