// explain: {explain: <find | count | distinct | aggregate | update | delete | findAndModify>,
// verbosity}. The inner command is parsed and planned exactly as it would run; with
// executionStats / allPlansExecution its plan then runs on one snapshot — writes only count
// what they would change, as mongod's explain of a write never writes.

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, fail, missingFieldError } from '../../errors.js';
import type { PlanStage, StageStats } from '../../query/exec/stages.js';
import {
  commandExpressions,
  compileQueryFilter,
  textSearchHook,
  compileQuerySort,
  compileQueryUpdate,
  updateStatementExpressions,
} from '../query-language.js';
import { planQuery } from '../../query/planner/planner.js';
import { asksForTextScore } from '../../query/planner/text-plan.js';

import { drainPlan } from '../../query/exec/drive.js';
import { explainPlan, wrapperStage } from '../../query/planner/explain.js';
import type { ExplainSections, ExplainVerbosity } from '../../query/planner/explain.js';
import { fullName } from '../../catalog/namespace.js';
import type { ReadView } from '../../storage/engine.js';
import { parseArgs, t } from '../args.js';
import type { ArgSpec } from '../args.js';
import { defineCommand } from '../registry.js';
import type { Invocation } from '../registry.js';
import { aggregateArgs, runAggregate } from './aggregate.js';
import { clusterTimeOf, scriptingOf, resolveCollation } from './operation-env.js';
import { isViewRead, targetCollection } from './target.js';
import { resolveHint } from './hint.js';
import { runCountOnView, runDistinctOnView, runFindOnView } from './view-reads.js';
import { prepareCount, prepareDistinct } from './count-distinct.js';
import { prepareFind } from './find.js';
import { countArgs, distinctArgs, findArgs } from './read-args.js';
import { explainServerInfo, explainServerParameters } from './explain-server.js';
import { privileges } from '../authorization.js';

const verbosities: readonly ExplainVerbosity[] = [
  'queryPlanner',
  'executionStats',
  'allPlansExecution',
];

export function parseVerbosity(v: string | undefined): ExplainVerbosity {
  if (v === undefined) return 'allPlansExecution';
  const found = verbosities.find((x) => x === v);
  if (found === undefined)
    throw new CommandError(
      ErrorCode.BadValue,
      `Enumeration value '${v}' for field 'explain.verbosity' is not a valid value.`,
    );
  return found;
}

type InnerInvocation<S extends ArgSpec> = Invocation<S>;

function innerInvocation<S extends ArgSpec>(
  inv: Invocation<ArgSpec>,
  body: BsonDocument,
  name: string,
  spec: S,
): InnerInvocation<S> {
  const args = parseArgs(name, body, spec, name);
  return { ...inv, target: body[name], body, args, name } as InnerInvocation<S>;
}

async function withView<T>(
  inv: Invocation<ArgSpec>,
  fn: (view: ReadView) => Promise<T>,
): Promise<T> {
  const lease = inv.op.access.acquireView();
  try {
    return await fn(lease.view);
  } finally {
    lease.release();
  }
}

function reply(
  inv: Invocation<ArgSpec>,
  sections: ExplainSections,
  command: BsonDocument,
): BsonDocument {
  return {
    explainVersion: '1',
    queryPlanner: sections.queryPlanner,
    ...(sections.executionStats === undefined ? {} : { executionStats: sections.executionStats }),
    command,
    serverInfo: explainServerInfo(inv.services),
    serverParameters: explainServerParameters(inv.services.parameters),
  };
}

function setExtra(stats: StageStats, values: Record<string, BsonValue>): void {
  Object.assign(stats.extra as Record<string, BsonValue>, values);
}

/** The first statement of an update / delete batch (mongod explains batches of one). */
function singleStatement(body: BsonDocument, field: string, command: string): BsonDocument {
  const list = body[field];
  if (!Array.isArray(list)) throw missingFieldError(`${command}.${field}`);
  if (list.length !== 1)
    throw new CommandError(ErrorCode.InvalidLength, 'explained write batches must be of size 1');
  const s = list[0];
  if (!isPlainDocument(s))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${command}.${field}' contains an element that is not an object`,
    );
  return s;
}

async function explainWrite(
  inv: Invocation<ArgSpec>,
  body: BsonDocument,
  name: string,
  verbosity: ExplainVerbosity,
  stmt: {
    filter: BsonDocument;
    hint: BsonValue;
    sort?: BsonDocument | undefined;
    limitOne: boolean;
    update?: BsonDocument | BsonDocument[] | undefined;
    upsert: boolean;
    arrayFilters?: BsonDocument[] | undefined;
    /** An update statement's constants (`c`). */
    constants?: BsonDocument | undefined;
    collation?: BsonDocument | undefined;
  },
): Promise<BsonDocument> {
  const db = inv.db;
  const collName =
    typeof body[name] === 'string'
      ? (body[name] as string)
      : targetCollection({ ...inv, target: body[name] });
  const coll = inv.services.catalog.get(db, collName);
  const collator = resolveCollation(coll, stmt.collation);
  const command = commandExpressions({
    let: isPlainDocument(body['let']) ? body['let'] : undefined,
    clusterTime: clusterTimeOf(inv.services),
    collator,
    scripting: scriptingOf(inv.services, inv.op),
  });
  const expressions =
    stmt.update === undefined
      ? command
      : updateStatementExpressions(command, stmt.update, stmt.constants);
  const matcher = compileQueryFilter(stmt.filter, {
    expressions,
    collator,
    textSearch: textSearchHook(fullName(db, collName), coll),
  });
  const sort = compileQuerySort(stmt.sort, collator);
  const update =
    stmt.update === undefined
      ? undefined
      : compileQueryUpdate(stmt.update, {
          ...(stmt.arrayFilters === undefined ? {} : { arrayFilters: stmt.arrayFilters }),
          multi: !stmt.limitOne,
          expressions,
          collator,
        });
  const hint = resolveHint(coll, stmt.hint);
  const plan = planQuery(coll, {
    filter: stmt.filter,
    matcher,
    collator,
    sort: sort.comparator,
    sortSpec: sort.comparator === undefined ? undefined : stmt.sort,
    natural: hint.natural ?? sort.natural,
    limit: stmt.limitOne ? 1 : undefined,
    allowDiskUse: true,
    hint: stmt.hint,
    wantTextScore: asksForTextScore(stmt.sort),
  });
  const stage = update === undefined ? 'DELETE' : 'UPDATE';
  let matched = 0;
  let modified = 0;
  const sections = await withView(inv, (view) =>
    explainPlan(
      plan,
      view,
      {
        namespace: fullName(db, collName),
        verbosity,
        execute: () => {
          const now = new Date();
          return drainPlan(plan, view, inv.op, (row) => {
            matched++;
            if (update !== undefined) {
              const pos =
                row.details?.elemMatchKey === undefined
                  ? undefined
                  : Number(row.details.elemMatchKey);
              if (update.apply(row.doc, { positional: pos, isInsert: false, now }).modified)
                modified++;
            }
          });
        },
        wrap: (root) => wrapperStage(stage, root),
        afterExecution: (w) =>
          setExtra(
            w,
            update === undefined
              ? { nWouldDelete: new Int32(matched) }
              : {
                  nMatched: new Int32(matched),
                  nWouldModify: new Int32(modified),
                  nWouldUpsert: matched === 0 && stmt.upsert,
                },
          ),
      },
      inv.op,
    ),
  );
  return reply(inv, sections, { ...body, $db: db });
}

export const explain = defineCommand({
  name: 'explain',
  auth: privileges('what the explained command needs', (input) =>
    isPlainDocument(input.target) ? input.requirementOf(input.target, input.db) : [[]],
  ),
  args: { verbosity: t.string },
  traits: { apiVersion1: false },
  run: async (inv) => {
    const inner = inv.target;
    if (!isPlainDocument(inner)) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `BSON field 'explain.explain' is the wrong type, expected type 'object'`,
      );
    }
    const verbosity = parseVerbosity(inv.args.verbosity);
    const name = Object.keys(inner)[0];
    if (name === undefined)
      throw new CommandError(ErrorCode.FailedToParse, 'explain command requires a nested object');
    const innerDb = inner['$db'];
    if (innerDb !== undefined && innerDb !== inv.db) {
      throw new CommandError(
        ErrorCode.InvalidNamespace,
        `Mismatched $db in explain command. Expected ${inv.db} but got ${String(innerDb)}`,
      );
    }
    const body: BsonDocument = { ...inner };
    delete body['$db'];
    const command = { ...body, $db: inv.db };
    switch (name) {
      case 'find': {
        const fi = innerInvocation(inv, body, name, findArgs);
        if (isViewRead(fi)) return runFindOnView(fi, verbosity);
        const prepared = prepareFind(fi);
        try {
          const sections = await withView(inv, (view) =>
            explainPlan(prepared.plan, view, { namespace: prepared.ns, verbosity }, inv.op),
          );
          return reply(inv, sections, command);
        } finally {
          prepared.release();
        }
      }
      case 'count': {
        const ci = innerInvocation(inv, body, name, countArgs);
        if (isViewRead(ci)) return runCountOnView(ci, verbosity);
        const { coll, plan } = prepareCount(ci);
        const ns = fullName(inv.db, targetCollection(ci));
        const query = ci.args.query ?? {};
        // A count without a filter reads the record count: mongod's RECORD_STORE_FAST_COUNT.
        const counted: PlanStage =
          plan ?? planQuery(coll, { filter: query, matcher: undefined, allowDiskUse: true });
        let n = 0;
        const sections = await withView(inv, (view) =>
          explainPlan(
            counted,
            view,
            {
              namespace: ns,
              verbosity,
              execute: async () => {
                if (plan === undefined) n = coll === undefined ? 0 : coll.count(view);
                else await drainPlan(plan, view, inv.op, () => n++);
              },
              wrap: (root) =>
                plan === undefined
                  ? {
                      stage: 'RECORD_STORE_FAST_COUNT',
                      nReturned: 0,
                      works: 0,
                      children: [],
                      extra: {},
                    }
                  : wrapperStage('COUNT', root),
              afterExecution: (w) =>
                setExtra(
                  w,
                  plan === undefined
                    ? { nCounted: new Int32(n) }
                    : { nCounted: new Int32(n), nSkipped: new Int32(ci.args.skip ?? 0) },
                ),
            },
            inv.op,
          ),
        );
        return reply(inv, sections, command);
      }
      case 'distinct': {
        const di = innerInvocation(inv, body, name, distinctArgs);
        if (isViewRead(di)) return runDistinctOnView(di, verbosity);
        const { plan } = prepareDistinct(di);
        const ns = fullName(inv.db, targetCollection(di));
        const sections = await withView(inv, (view) =>
          explainPlan(plan, view, { namespace: ns, verbosity }, inv.op),
        );
        return reply(inv, sections, command);
      }
      case 'aggregate': {
        if (body['explain'] !== undefined)
          fail(
            ErrorCode.FailedToParse,
            "The 'explain' option is illegal when a explain verbosity is also provided",
          );
        const ai = innerInvocation(inv, body, name, aggregateArgs);
        return runAggregate(ai, verbosity);
      }
      case 'update': {
        const s = singleStatement(body, 'updates', 'update');
        const u = s['u'];
        if (!isPlainDocument(u) && !Array.isArray(u))
          throw new CommandError(
            ErrorCode.FailedToParse,
            'Update argument must be either an object or an array',
          );
        return explainWrite(inv, body, name, verbosity, {
          filter: isPlainDocument(s['q']) ? s['q'] : {},
          hint: s['hint'],
          collation: s['collation'] as BsonDocument | undefined,
          limitOne: s['multi'] !== true,
          update: u as BsonDocument | BsonDocument[],
          upsert: s['upsert'] === true,
          arrayFilters: Array.isArray(s['arrayFilters'])
            ? (s['arrayFilters'].filter(isPlainDocument) as BsonDocument[])
            : undefined,
          constants: isPlainDocument(s['c']) ? s['c'] : undefined,
        });
      }
      case 'delete': {
        const s = singleStatement(body, 'deletes', 'delete');
        return explainWrite(inv, body, name, verbosity, {
          filter: isPlainDocument(s['q']) ? s['q'] : {},
          hint: s['hint'],
          collation: s['collation'] as BsonDocument | undefined,
          limitOne: numericValue(s['limit']) === 1,
          upsert: false,
        });
      }
      case 'findAndModify':
      case 'findandmodify': {
        const remove = body['remove'] === true || (numericValue(body['remove']) ?? 0) !== 0;
        const update = body['update'];
        if (!remove && !isPlainDocument(update) && !Array.isArray(update)) {
          throw new CommandError(
            ErrorCode.FailedToParse,
            'Either an update or remove=true must be specified',
          );
        }
        return explainWrite(inv, body, name, verbosity, {
          filter: isPlainDocument(body['query']) ? body['query'] : {},
          hint: body['hint'],
          sort: isPlainDocument(body['sort']) ? body['sort'] : undefined,
          collation: body['collation'] as BsonDocument | undefined,
          limitOne: true,
          update: remove ? undefined : (update as BsonDocument | BsonDocument[]),
          upsert: body['upsert'] === true,
          arrayFilters: Array.isArray(body['arrayFilters'])
            ? (body['arrayFilters'].filter(isPlainDocument) as BsonDocument[])
            : undefined,
        });
      }
      case 'bulkWrite':
        // TODO(#21): mongod explains a bulkWrite of one update or delete.
        throw new CommandError(ErrorCode.NotImplemented, 'explain of bulkWrite is not supported');
      default:
        throw new CommandError(
          ErrorCode.CommandNotFound,
          `Explain failed due to unknown command: ${name}`,
        );
    }
  },
});
