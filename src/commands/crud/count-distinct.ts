// count and distinct.

import { calculateObjectSize, Int32 } from 'bson';
import { compareBson } from '../../bson/compare.js';
import { getOwn } from '../../bson/document.js';
import type { Collator } from '../../bson/collation.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { asDocument, isArray } from '../../bson/types.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import { commandExpressions, compileQueryFilter, textSearchHook } from '../query-language.js';
import { planQuery } from '../../query/planner/planner.js';
import { defineCommand } from '../registry.js';
import type { Invocation } from '../registry.js';
import type { Collection } from '../../catalog/collection.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { drainPlan } from '../../query/exec/drive.js';
import type { RestoreCheck } from '../../query/exec/drive.js';
import { clusterTimeOf, scriptingOf, resolveCollation } from './operation-env.js';
import { collectionRestoreCheck, isViewRead, targetCollection, readCollection } from './target.js';
import { resolveHint } from './hint.js';
import { runCountOnView, runDistinctOnView } from './view-reads.js';
import { countArgs, distinctArgs } from './read-args.js';
import { onCollection } from '../authorization.js';
import { appendAll } from '../../bson/arrays.js';

/** A count's plan (undefined: no filter, the record count answers), shared with explain. */
export function prepareCount(inv: Invocation<typeof countArgs>): {
  coll: Collection | undefined;
  plan: PlanStage | undefined;
  skip: number;
  limit: number;
} {
  const { services, args, db } = inv;
  const name = targetCollection(inv);
  const skip = args.skip ?? 0;
  if (skip < 0)
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field 'skip' value must be >= 0, actual value '${skip}'`,
    );
  // A negative limit counts like its absolute value (the shell's legacy behaviour).
  const limit = Math.abs(args.limit ?? 0);
  const coll = services.catalog.get(db, name, inv.op.access.transaction);
  const collator = resolveCollation(coll, args.collation);
  const hint = resolveHint(coll, args.hint);
  const filter = args.query ?? {};
  if (coll === undefined || (Object.keys(filter).length === 0 && args.hint === undefined))
    return { coll, plan: undefined, skip, limit };
  // Rows need no document: an index that holds every filtered field counts without FETCH.
  const plan = planQuery(coll, {
    filter,
    matcher: compileQueryFilter(filter, {
      expressions: commandExpressions({
        clusterTime: clusterTimeOf(services),
        collator,
        scripting: scriptingOf(services, inv.op),
      }),
      collator,
      textSearch: textSearchHook(`${db}.${name}`, coll),
    }),
    collator,
    skip,
    limit,
    natural: hint.natural,
    allowDiskUse: true,
    hint: args.hint,
    needsDocument: false,
  });
  return { coll, plan, skip, limit };
}

export const count = defineCommand({
  name: 'count',
  auth: onCollection('find'),
  args: countArgs,
  traits: { apiVersion1: true, allowedInTransaction: false },
  run: async (inv) => {
    if (isViewRead(inv)) return runCountOnView(inv);
    const { coll, plan, skip, limit } = prepareCount(inv);
    const lease = inv.op.access.acquireView();
    const snap = lease.view;
    try {
      if (coll === undefined) return { n: new Int32(0) };
      if (plan === undefined) {
        const total = coll.count(snap);
        return {
          n: new Int32(Math.max(0, limit > 0 ? Math.min(total - skip, limit) : total - skip)),
        };
      }
      let n = 0;
      const restore = collectionRestoreCheck(
        inv.services.catalog,
        inv.db,
        coll.meta.name,
        coll,
        inv.op.access.transaction,
      );
      await drainPlan(plan, snap, inv.op, () => n++, restore);
      return { n: new Int32(n) };
    } finally {
      lease.release();
    }
  },
});

/** Values at a dotted path for distinct: arrays along the path and at its end are expanded. */
function collectValues(v: BsonValue, parts: readonly string[], at: number, out: BsonValue[]): void {
  if (at === parts.length) {
    if (isArray(v)) appendAll(out, v);
    else out.push(v);
    return;
  }
  if (isArray(v)) {
    for (const e of v) {
      if (asDocument(e) !== undefined || isArray(e)) collectValues(e, parts, at, out);
    }
    return;
  }
  const doc = asDocument(v);
  if (doc === undefined) return;
  const next = getOwn(doc, parts[at] as string);
  if (next !== undefined) collectValues(next, parts, at + 1, out);
}

/** A distinct's plan and key path, shared with explain. */
export function prepareDistinct(inv: Invocation<typeof distinctArgs>): {
  plan: PlanStage;
  parts: string[];
  collator: Collator | undefined;
  restore: RestoreCheck | undefined;
} {
  const { services, args, db } = inv;
  const name = targetCollection(inv);
  if (args.key === undefined) throw missingFieldError('distinct.key');
  if (args.key === '')
    throw new CommandError(ErrorCode.BadValue, 'FieldPath cannot be constructed with empty string');
  const coll = readCollection(services, inv.op, db, name);
  const collator = resolveCollation(coll, args.collation);
  const hint = resolveHint(coll, args.hint);
  const filter = args.query ?? {};
  const plan = planQuery(coll, {
    filter,
    matcher: compileQueryFilter(filter, {
      expressions: commandExpressions({
        clusterTime: clusterTimeOf(services),
        collator,
        scripting: scriptingOf(services, inv.op),
      }),
      collator,
      textSearch: textSearchHook(`${db}.${name}`, coll),
    }),
    collator,
    natural: hint.natural,
    allowDiskUse: true,
    hint: args.hint,
  });
  return {
    plan,
    parts: args.key.split('.'),
    collator,
    restore: collectionRestoreCheck(services.catalog, db, name, coll, inv.op.access.transaction),
  };
}

/**
 * distinct's values: collected into a buffer that is sorted and merged into the distinct
 * values so far whenever it holds as many, so memory does not grow with duplicates.
 * Under a collation, values it equates are one value (the first met in that order).
 */
class DistinctValues {
  private unique: BsonValue[] = [];
  private pending: BsonValue[] = [];

  constructor(private readonly collator: Collator | undefined) {}

  add(doc: BsonDocument, parts: readonly string[]): void {
    collectValues(doc, parts, 0, this.pending);
    // Merging costs the values held so far: wait for as many new ones (amortised n log n).
    if (this.pending.length >= Math.max(limits.sortRunItemsMax, this.unique.length)) this.merge();
  }

  finish(): BsonValue[] {
    this.merge();
    return this.unique;
  }

  private merge(): void {
    if (this.pending.length === 0) return;
    const cmp = (a: BsonValue, b: BsonValue): number => compareBson(a, b, this.collator);
    // Stable: among equal values the first met stays first.
    const batch = this.pending.sort(cmp);
    this.pending = [];
    const out: BsonValue[] = [];
    let i = 0;
    let j = 0;
    const push = (v: BsonValue): void => {
      if (out.length === 0 || cmp(out[out.length - 1], v) !== 0) out.push(v);
    };
    while (i < this.unique.length || j < batch.length) {
      if (j >= batch.length || (i < this.unique.length && cmp(this.unique[i], batch[j]) <= 0))
        push(this.unique[i++]);
      else push(batch[j++]);
    }
    this.unique = out;
  }
}

export const distinct = defineCommand({
  name: 'distinct',
  auth: onCollection('find'),
  args: distinctArgs,
  traits: { allowedInTransaction: true, snapshotReads: true, apiVersion1: false },
  run: async (inv) => {
    if (isViewRead(inv)) return runDistinctOnView(inv);
    const { plan, parts, collator, restore } = prepareDistinct(inv);
    // Values are sorted and deduplicated in runs as they come, so memory holds each distinct
    // value about once and no single step sorts everything.
    const distinct = new DistinctValues(collator);
    const lease = inv.op.access.acquireView();
    const snap = lease.view;
    try {
      await drainPlan(plan, snap, inv.op, (row) => distinct.add(row.doc, parts), restore);
    } finally {
      lease.release();
    }
    const unique = distinct.finish();
    const reply: BsonDocument = { values: unique };
    if (inv.op.atClusterTime !== undefined) reply['atClusterTime'] = inv.op.atClusterTime;
    if (calculateObjectSize(reply) > limits.bsonObjectSizeMax) {
      throw new CommandError(ErrorCode.Location17217, 'distinct too big, 16mb cap');
    }
    return reply;
  },
});
