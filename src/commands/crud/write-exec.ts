// Update and delete statements inside a storage write transaction, shared by update, delete,
// findAndModify and the TTL monitor: which documents a statement selects and what it makes of
// them; the changes themselves go through the write unit (src/catalog/write-unit.ts).
// Everything here is synchronous: it runs in the engine's write callback, so the reads that
// decide a write (which documents match, whether a key is taken) and the write itself see
// the same state — no check-then-act across an await.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import { compareBson } from '../../bson/compare.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { Collection } from '../../catalog/collection.js';
import { lookupView, notACollection } from '../../catalog/views.js';
import { checkIdValue } from '../../catalog/validate-document.js';
import {
  applyUpdates,
  checkUpdate,
  deleteDocument,
  insertDocument,
} from '../../catalog/write-unit.js';
import type { CheckedUpdate, Namespace, WriteContext } from '../../catalog/write-unit.js';
import { CommandError, ErrorCode } from '../../errors.js';
import type { DocumentFilter, MatchDetailsSink, RowComparator } from '../../query/exec/stages.js';
import { selectRecords } from '../../query/exec/select-records.js';
import type { MatchedRecord, RecordSelection } from '../../query/exec/select-records.js';
import { planQuery } from '../../query/planner/planner.js';
import { drainPlan } from '../../query/exec/drive.js';
import type { ExecControl } from '../../query/exec/drive.js';
import type { RecordId } from '../../catalog/record-id.js';
import { limits } from '../../limits.js';
import type { StorageEngine } from '../../storage/engine.js';
import type { Collator } from '../../bson/collation.js';
import { resolveHint } from './hint.js';
import type { ReadView } from '../../storage/engine.js';
import type { CompiledUpdate } from '../../update/index.js';

export interface UpdateSpec {
  readonly filter: BsonDocument;
  readonly matcher: DocumentFilter | undefined;
  readonly update: CompiledUpdate;
  readonly multi: boolean;
  readonly upsert: boolean;
  readonly sort?: RowComparator | undefined;
  /** A sort of {$natural: ±1}: record order, unless the hint names one. */
  readonly naturalSort?: 1 | -1 | undefined;
  /** The statement's collation (the matcher and sort already use it; the planner must know). */
  readonly collator?: Collator | undefined;
  /** The statement's hint: an index name or key pattern, or {$natural: ±1}. */
  readonly hint?: BsonValue | undefined;
}

export interface UpdateOutcome {
  readonly n: number;
  readonly nModified: number;
  readonly upsertedId?: BsonValue;
  /** For findAndModify: the first matched document before and after the update. */
  readonly before?: BsonDocument;
  readonly after?: BsonDocument;
}

function positionalOf(details: MatchDetailsSink): number | undefined {
  const key = details.elemMatchKey;
  if (key === undefined) return undefined;
  const n = Number(key);
  return Number.isInteger(n) ? n : undefined;
}

/** The collection a statement writes; undefined if there is none, CommandNotSupportedOnView for a view. */
function writableCollection(
  view: ReadView,
  catalog: Catalog,
  ns: Namespace,
): Collection | undefined {
  const coll = catalog.get(ns.db, ns.name, view);
  if (coll === undefined && lookupView(catalog, view, ns.db, ns.name) !== undefined)
    throw notACollection(ns.db, ns.name);
  return coll;
}

/** Apply an update statement. Throws a CommandError (nothing written by this statement). */
export function executeUpdate(w: WriteContext, ns: Namespace, spec: UpdateSpec): UpdateOutcome {
  const { txn } = w;
  const coll = writableCollection(txn, w.catalog, ns);
  const now = new Date();
  const matched =
    coll === undefined
      ? []
      : selectRecords(txn, coll, {
          filter: spec.filter,
          matcher: spec.matcher,
          limit: spec.multi ? undefined : 1,
          sort: spec.sort,
          collator: spec.collator,
          // The statement's hint picks the index (or {$natural: ±1} a collection scan), as for find.
          hint: spec.hint,
          natural: resolveHint(undefined, spec.hint).natural ?? spec.naturalSort,
        });
  if (matched.length === 0) {
    if (!spec.upsert) return { n: 0, nModified: 0 };
    return upsert(w, ns, spec, now);
  }
  return updateMatched(w, coll as Collection, matched, spec, now);
}

/**
 * Applies an update to the records selected for it: every new version is computed and checked
 * first, so that a failing document leaves nothing of these records written.
 */
function updateMatched(
  w: WriteContext,
  target: Collection,
  matched: readonly MatchedRecord[],
  spec: Pick<UpdateSpec, 'update'>,
  now: Date,
): UpdateOutcome {
  const changes: CheckedUpdate[] = [];
  let first: { before: BsonDocument; after: BsonDocument } | undefined;
  for (const { record, details } of matched) {
    const res = spec.update.apply(record.doc, {
      positional: positionalOf(details),
      isInsert: false,
      now,
    });
    if (first === undefined) first = { before: record.doc, after: res.doc };
    if (!res.modified) continue;
    checkIdUnchanged(record.doc, res.doc);
    changes.push(checkUpdate(w, target, record, res.doc, res.diff));
  }
  applyUpdates(w, target, changes);
  return { n: matched.length, nModified: changes.length, ...(first ?? {}) };
}

function upsert(w: WriteContext, ns: Namespace, spec: UpdateSpec, now: Date): UpdateOutcome {
  const { doc } = insertDocument(w, ns, spec.update.upsert(spec.filter, { now }).doc);
  return { n: 1, nModified: 0, upsertedId: getOwn(doc, '_id'), after: doc };
}

function checkIdUnchanged(before: BsonDocument, after: BsonDocument): void {
  const a = getOwn(before, '_id');
  const b = getOwn(after, '_id');
  if (b === undefined || compareBson(a, b) !== 0) {
    throw new CommandError(
      ErrorCode.ImmutableField,
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
  checkIdValue(b);
}

/** Delete the selected documents; returns them. */
export function executeDelete(
  w: WriteContext,
  ns: Namespace,
  spec: {
    filter: BsonDocument;
    matcher: DocumentFilter | undefined;
    limit: number;
    sort?: RowComparator | undefined;
    hint?: BsonValue | undefined;
    collator?: Collator | undefined;
  },
): BsonDocument[] {
  const coll = writableCollection(w.txn, w.catalog, ns);
  if (coll === undefined) return [];
  const matched = selectRecords(w.txn, coll, {
    filter: spec.filter,
    matcher: spec.matcher,
    limit: spec.limit > 0 ? spec.limit : undefined,
    sort: spec.sort,
    collator: spec.collator,
    hint: spec.hint,
    natural: resolveHint(undefined, spec.hint).natural,
  });
  for (const { record } of matched) deleteDocument(w, coll, record);
  return matched.map((m) => m.record.doc);
}

// ---- statements that change many documents, in slices -----------------------------------------

/**
 * An update or delete of many documents outside a transaction (updateMany, deleteMany, a TTL
 * pass), run as mongod runs it: not atomic, yielding. The records the filter selects are found
 * first on a snapshot, by a plan pulled in slices (src/query/exec/drive.ts); then they are
 * changed in slices of about limits.execSliceMs, each its own write transaction, re-reading
 * each record and matching it again (a record changed or removed since is left alone, as after
 * one of mongod's yields). Between slices the event loop is given back and the operation's kill
 * flag and deadline are checked: an interrupted statement keeps what its earlier slices did.
 * Records inserted after the selection are not seen (the selection is fixed, so no record is
 * changed twice). Returns how many records were changed (matched, for updates).
 */
export async function runSlicedWrite(
  deps: { readonly engine: StorageEngine; readonly catalog: Catalog },
  ctl: ExecControl,
  ns: Namespace,
  selection: RecordSelection,
  change: (w: WriteContext, coll: Collection, batch: readonly MatchedRecord[]) => void,
  options: { readonly durable: boolean; readonly bypassDocumentValidation: boolean },
): Promise<void> {
  const { engine, catalog } = deps;
  const ids: RecordId[] = [];
  const snap = engine.snapshot();
  let uuid: string;
  try {
    const coll = writableCollection(snap, catalog, ns);
    if (coll === undefined) return;
    uuid = coll.meta.uuid;
    const plan = planQuery(coll, { ...selection, allowDiskUse: true });
    await drainPlan(plan, snap, ctl, (row) => {
      if (row.recordId !== undefined) ids.push(row.recordId);
    });
  } finally {
    snap.release();
  }
  const matcher = selection.matcher;
  let next = 0;
  // What changing one matched record cost in the last slice (ms): an update with its index
  // and oplog work costs several times the lookup, so the lookup stops when what it found
  // would take the rest of the slice to change.
  let changeMsPerRecord = 0;
  while (next < ids.length) {
    const wrote = await engine.write(
      (txn) => {
        const coll = catalog.get(ns.db, ns.name);
        if (coll === undefined || coll.meta.uuid !== uuid) return false; // dropped meanwhile
        // At most half of the slice to find the records, and less when those found would
        // take the rest of the slice to change (at the cost measured in the last slice).
        const startMs = performance.now();
        const endMs = startMs + limits.execSliceMs;
        const findEndMs = startMs + limits.execSliceMs / 2;
        const batch: MatchedRecord[] = [];
        while (next < ids.length) {
          const record = coll.getRecord(txn, ids[next++] as RecordId);
          const details: MatchDetailsSink = {};
          if (
            record !== undefined &&
            (matcher === undefined || matcher.matches(record.doc, details))
          )
            batch.push({ record, details });
          const now = performance.now();
          if (now >= findEndMs || now + batch.length * changeMsPerRecord >= endMs) break;
        }
        const changeStartMs = performance.now();
        change(
          {
            txn,
            catalog,
            statement: undefined,
            bypassDocumentValidation: options.bypassDocumentValidation,
          },
          coll,
          batch,
        );
        if (batch.length > 0)
          changeMsPerRecord = (performance.now() - changeStartMs) / batch.length;
        return true;
      },
      { durable: false },
    );
    if (!wrote) break;
    if (next < ids.length) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      ctl.checkDeadline();
    }
  }
  if (options.durable) await engine.flush();
}

/** updateMany outside a transaction, in slices (runSlicedWrite): its n and nModified. */
export async function slicedUpdate(
  deps: { readonly engine: StorageEngine; readonly catalog: Catalog },
  ctl: ExecControl,
  ns: Namespace,
  spec: UpdateSpec,
  options: { readonly durable: boolean; readonly bypassDocumentValidation: boolean },
): Promise<UpdateOutcome> {
  const now = new Date();
  let n = 0;
  let nModified = 0;
  await runSlicedWrite(
    deps,
    ctl,
    ns,
    updateSelection(spec),
    (w, coll, batch) => {
      const r = updateMatched(w, coll, batch, spec, now);
      n += r.n;
      nModified += r.nModified;
    },
    options,
  );
  return { n, nModified };
}

/** deleteMany outside a transaction, in slices (runSlicedWrite): how many were deleted. */
export async function slicedDelete(
  deps: { readonly engine: StorageEngine; readonly catalog: Catalog },
  ctl: ExecControl,
  ns: Namespace,
  selection: RecordSelection,
  options: { readonly durable: boolean },
): Promise<number> {
  let n = 0;
  await runSlicedWrite(
    deps,
    ctl,
    ns,
    selection,
    (w, coll, batch) => {
      for (const { record } of batch) deleteDocument(w, coll, record);
      n += batch.length;
    },
    { ...options, bypassDocumentValidation: false },
  );
  return n;
}

function updateSelection(spec: UpdateSpec): RecordSelection {
  return {
    filter: spec.filter,
    matcher: spec.matcher,
    limit: undefined,
    sort: spec.sort,
    collator: spec.collator,
    hint: spec.hint,
    natural: resolveHint(undefined, spec.hint).natural,
  };
}
