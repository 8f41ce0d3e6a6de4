// Explain output in mongod's shape (the parsed filter is serialize-filter.ts's): plan-stage
// trees for queryPlanner.winningPlan (stage, its parameters, inputStage/inputStages) and for
// executionStats.executionStages (the same plus the runtime counters).

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { drainPlan } from '../exec/drive.js';
import type { ExecControl } from '../exec/drive.js';
import type { PlanStage, StageStats } from '../exec/stages.js';
import type { ReadView } from '../../storage/engine.js';
import { plannedQueryInfo, prepareQueryPlan } from './planner.js';
import { queryHashes } from './query-shape.js';
import type { QueryHashes } from './query-shape.js';

const runtimeOnly = new Set([
  'seeks',
  'dupsTested',
  'dupsDropped',
  'totalDataSizeSorted',
  'usedDisk',
  'spills',
]);

export type ExplainMode = 'queryPlanner' | 'executionStats';

/** A stage tree as explain shows it. */
export function explainStage(stats: StageStats, mode: ExplainMode): BsonDocument {
  const out: BsonDocument = { stage: stats.stage };
  const extra = stats.extra ?? {};
  if (mode === 'executionStats') {
    const works = stats.works;
    out['nReturned'] = new Int32(stats.nReturned);
    out['executionTimeMillisEstimate'] = new Int32(0);
    out['works'] = new Int32(Math.max(works, stats.nReturned) + 1);
    out['advanced'] = new Int32(stats.nReturned);
    out['needTime'] = new Int32(Math.max(0, works - stats.nReturned));
    out['needYield'] = new Int32(0);
    out['saveState'] = new Int32(0);
    out['restoreState'] = new Int32(0);
    out['isEOF'] = new Int32(1);
  }
  for (const [k, v] of Object.entries(extra)) {
    if (mode === 'queryPlanner' && runtimeOnly.has(k)) continue;
    out[k] = v;
  }
  if (mode === 'executionStats') {
    if (stats.keysExamined !== undefined) out['keysExamined'] = new Int32(stats.keysExamined);
    if (stats.docsExamined !== undefined) out['docsExamined'] = new Int32(stats.docsExamined);
    if (stats.stage === 'FETCH') out['alreadyHasObj'] = new Int32(0);
  }
  const [child, ...more] = stats.children;
  if (child !== undefined && more.length === 0) out['inputStage'] = explainStage(child, mode);
  else if (child !== undefined)
    out['inputStages'] = stats.children.map((c) => explainStage(c, mode));
  return out;
}

/** Totals over a stage tree: keys and documents examined. */
export function examinedTotals(stats: StageStats): { keys: number; docs: number } {
  let keys = stats.keysExamined ?? 0;
  let docs = stats.docsExamined ?? 0;
  for (const c of stats.children) {
    const t = examinedTotals(c);
    keys += t.keys;
    docs += t.docs;
  }
  return { keys, docs };
}

// ---- explain sections ------------------------------------------------------------------------------

export type ExplainVerbosity = 'queryPlanner' | 'executionStats' | 'allPlansExecution';

export interface ExplainSections {
  readonly queryPlanner: BsonDocument;
  readonly executionStats?: BsonDocument;
}

export interface ExplainOptions {
  readonly namespace: string;
  readonly verbosity: ExplainVerbosity;
  /** Runs the query to its end (default: pull every row of the plan on the view), yielding. */
  readonly execute?: () => Promise<void>;
  /** Puts the query's plan under the command's own stage (COUNT, UPDATE, DELETE). */
  readonly wrap?: (root: StageStats) => StageStats;
  /** Extra parameters of the wrapping stage, known only after execution (nCounted, nWouldModify). */
  readonly afterExecution?: (root: StageStats) => void;
}

/** A stage tree node of our own (COUNT, UPDATE, DELETE) over a plan. */
export function wrapperStage(
  stage: string,
  child: StageStats,
  extra: Record<string, BsonValue> = {},
): StageStats {
  return { stage, nReturned: 0, works: child.works, children: [child], extra };
}

/**
 * queryPlanner and executionStats for a plan made by planQuery (planned on `view` if it has
 * not run yet). Execution runs on the same view, so what is counted is what was planned.
 */
export async function explainPlan(
  plan: PlanStage,
  view: ReadView,
  options: ExplainOptions,
  ctl: ExecControl,
): Promise<ExplainSections> {
  const info = prepareQueryPlan(plan.stats, view);
  const started = Date.now();
  const executed = options.verbosity !== 'queryPlanner';
  if (executed) {
    if (options.execute !== undefined) await options.execute();
    else await drainPlan(plan, view, ctl, () => undefined);
  }
  const elapsed = Date.now() - started;
  const rootStats = info?.winningPlan ?? plan.stats;
  const wrapped = options.wrap === undefined ? rootStats : options.wrap(rootStats);
  if (executed) options.afterExecution?.(wrapped);
  const queryPlanner: BsonDocument = {
    namespace: options.namespace,
    indexFilterSet: false,
    parsedQuery: info?.parsedQuery ?? {},
    ...(info?.hashes ?? queryHashes({ tree: undefined }, [])),
    maxIndexedOrSolutionsReached: false,
    maxIndexedAndSolutionsReached: false,
    maxScansToExplodeReached: false,
    winningPlan: explainStage(wrapped, 'queryPlanner'),
    rejectedPlans: (info?.rejectedPlans ?? []).map((s) => explainStage(s, 'queryPlanner')),
  };
  if (!executed) return { queryPlanner };
  const totals = examinedTotals(wrapped);
  const executionStats: BsonDocument = {
    executionSuccess: true,
    nReturned: new Int32(rootStats.nReturned),
    executionTimeMillis: new Int32(elapsed),
    totalKeysExamined: new Int32(totals.keys),
    totalDocsExamined: new Int32(totals.docs),
    executionStages: explainStage(wrapped, 'executionStats'),
  };
  if (options.verbosity === 'allPlansExecution') {
    executionStats['allPlansExecution'] =
      (info?.trials.length ?? 0) > 1
        ? (info?.trials ?? []).map((t) => {
            const tt = examinedTotals(t.stats);
            return {
              nReturned: new Int32(t.produced),
              executionTimeMillisEstimate: new Int32(0),
              totalKeysExamined: new Int32(tt.keys),
              totalDocsExamined: new Int32(tt.docs),
              executionStages: explainStage(t.stats, 'executionStats'),
            };
          })
        : [];
  }
  return { queryPlanner, executionStats };
}

/**
 * The queryHash and planCacheKey of a plan that ran (the slow-query line, the profiler), the
 * same as its explain shows; undefined when no query was planned in it.
 */
export function ranQueryHashes(stats: StageStats): QueryHashes | undefined {
  return plannedQueryInfo(stats)?.hashes;
}
