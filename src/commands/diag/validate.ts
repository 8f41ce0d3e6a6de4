// validate: checks a collection's records against its indexes, as mongod's collection
// validation does. Over one snapshot it reads every record (a record that is not valid BSON is
// a corrupt record), derives the keys each index should hold for it and looks each one up
// (missing index entries), and counts each index's entries; when an index holds more entries
// than its records produce, its entries are checked one by one against their records (extra
// index entries). With {full: true} every document's BSON is also checked in full and the
// collection's validator applied (documents that fail it are counted, a warning, as mongod's
// nNonCompliantDocuments). {repair: true} (standalone only, as mongod) then inserts the missing
// entries and removes the extra ones. The work runs in slices of a few milliseconds, giving the
// event loop back between them and stopping at killOp or maxTimeMS.

import { Binary, Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { numericValue } from '../../bson/types.js';
import { documentFrom, getOwn } from '../../bson/document.js';
import { decodeDocument } from '../../bson/codec.js';
import { decodeKey } from '../../bson/keystring.js';
import type { Collection } from '../../catalog/collection.js';
import type { IndexAccess, IndexKey } from '../../catalog/index-access.js';
import { decodeRecordId, encodeRecordId } from '../../catalog/record-id.js';
import type { RecordId } from '../../catalog/record-id.js';
import { lookupView } from '../../catalog/views.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { ReadView } from '../../storage/engine.js';
import { t } from '../args.js';
import type { OperationContext, ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { onCollection } from '../authorization.js';
import { targetCollection } from '../crud/target.js';
import { conformsToValidator } from '../crud/document-validation.js';

/** BSONElement::trueValue. */
function trueValue(v: BsonValue | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  const n = numericValue(v);
  return n === undefined ? true : n !== 0;
}

/** Gives the event loop back every few milliseconds; checks killOp and maxTimeMS each time. */
class Slicer {
  private sliceEndMs = performance.now() + limits.diagnosticSliceMs;
  constructor(private readonly op: OperationContext) {}

  async tick(): Promise<void> {
    if (performance.now() < this.sliceEndMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.op.checkDeadline();
    this.sliceEndMs = performance.now() + limits.diagnosticSliceMs;
  }
}

interface IndexResult {
  readonly index: IndexAccess;
  /** Entries the records produce. */
  expected: number;
  /** Entries the index holds. */
  found: number;
  missing: number;
  extra: number;
  readonly errors: string[];
}

interface Inconsistency {
  readonly index: IndexAccess;
  readonly recordId: RecordId;
  readonly key: IndexKey | undefined;
  /** An extra entry's stored key, and the type information stored with it. */
  readonly storedKey?: Uint8Array;
  readonly typeInfo?: Uint8Array;
}

function keyDocument(index: IndexAccess, values: readonly BsonValue[]): BsonDocument {
  return documentFrom(index.fields.map((f, i) => [f.path, values[i] ?? null] as const));
}

interface ValidateOptions {
  readonly full: boolean;
}

interface ValidateOutcome {
  nrecords: number;
  nInvalidDocuments: number;
  nNonCompliantDocuments: number;
  readonly corruptRecords: RecordId[];
  readonly indexes: IndexResult[];
  readonly missing: Inconsistency[];
  readonly extra: Inconsistency[];
  readonly warnings: string[];
  readonly errors: string[];
}

async function validateCollection(
  coll: Collection,
  view: ReadView,
  slicer: Slicer,
  options: ValidateOptions,
): Promise<ValidateOutcome> {
  const out: ValidateOutcome = {
    nrecords: 0,
    nInvalidDocuments: 0,
    nNonCompliantDocuments: 0,
    corruptRecords: [],
    indexes: coll.indexes.map((index) => ({
      index,
      expected: 0,
      found: 0,
      missing: 0,
      extra: 0,
      errors: [],
    })),
    missing: [],
    extra: [],
    warnings: [],
    errors: [],
  };

  // Records: each one's keys must be in each index.
  for (const { key, value } of view.scan(coll.recordTable)) {
    await slicer.tick();
    out.nrecords++;
    const recordId = decodeRecordId(key);
    let doc: BsonDocument;
    try {
      doc = decodeDocument(value);
      if (getOwn(doc, '_id') === undefined) throw new Error('document has no _id');
    } catch {
      out.nInvalidDocuments++;
      if (out.corruptRecords.length < limits.validateInconsistenciesListedMax)
        out.corruptRecords.push(recordId);
      continue;
    }
    if (options.full && !conformsToValidator(coll, doc)) out.nNonCompliantDocuments++;
    for (const r of out.indexes) {
      const keys = r.index.keysFor(doc, view);
      r.expected += keys.length;
      for (const k of keys) {
        if (r.index.hasEntry(view, k, recordId)) continue;
        r.missing++;
        if (out.missing.length < limits.validateInconsistenciesListedMax)
          out.missing.push({ index: r.index, recordId, key: k });
      }
    }
  }
  // Indexes: count the entries. Every expected entry was found, so when the counts agree the
  // entries are exactly the expected ones; otherwise each entry is checked against its record.
  for (const r of out.indexes) {
    for (const _entry of r.index.scan(view, { start: new Uint8Array(0), end: undefined }, false)) {
      await slicer.tick();
      r.found++;
    }
    if (r.found === r.expected - r.missing) continue;
    for (const entry of r.index.scan(view, { start: new Uint8Array(0), end: undefined }, false)) {
      await slicer.tick();
      const bytes = view.get(coll.recordTable, encodeRecordId(entry.recordId));
      let ok = false;
      if (bytes !== undefined) {
        try {
          ok = r.index
            .keysFor(decodeDocument(bytes), view)
            .some((k) => Buffer.compare(k.bytes, entry.key) === 0);
        } catch {
          ok = false;
        }
      }
      if (ok) continue;
      r.extra++;
      if (out.extra.length < limits.validateInconsistenciesListedMax)
        out.extra.push({
          index: r.index,
          recordId: entry.recordId,
          key: undefined,
          // Copies: a scan's bytes may be the engine's, reused by its next read.
          storedKey: Buffer.from(entry.storedKey),
          typeInfo: Buffer.from(entry.typeInfo),
        });
    }
  }
  for (const r of out.indexes) {
    if (r.missing > 0 || r.extra > 0)
      r.errors.push(`Index with name '${r.index.meta.name}' has inconsistencies.`);
  }
  if (out.nInvalidDocuments > 0) out.errors.push('Detected one or more invalid documents.');
  const missing = out.indexes.reduce((n, r) => n + r.missing, 0);
  const extra = out.indexes.reduce((n, r) => n + r.extra, 0);
  if (missing > 0) out.errors.push(`Detected ${missing} missing index entries.`);
  if (extra > 0) out.errors.push(`Detected ${extra} extra index entries.`);
  if (out.nNonCompliantDocuments > 0)
    out.warnings.push(
      `Detected one or more documents in this collection not conformant to the schema validation rules. Please see the validation error for more details.`,
    );
  if (out.missing.length < missing || out.extra.length < extra)
    out.errors.push('Not all index entry inconsistencies are listed due to size limitations.');
  return out;
}

/** Repair: write the missing entries, remove the extra ones, in one transaction. */
async function repairIndexes(
  services: ServerServices,
  outcome: ValidateOutcome,
): Promise<{ inserted: number; removed: number }> {
  return services.engine.write(
    (txn) => {
      let inserted = 0;
      let removed = 0;
      for (const m of outcome.missing) {
        if (m.key === undefined) continue;
        m.index.addEntries(txn, [m.key], m.recordId);
        inserted++;
      }
      for (const e of outcome.extra) {
        if (e.storedKey === undefined) continue;
        if (txn.delete(e.index.table, e.storedKey)) removed++;
      }
      return { inserted, removed };
    },
    { durable: true },
  );
}

function uuidOf(coll: Collection): Binary {
  return new Binary(Buffer.from(coll.meta.uuid, 'hex'), Binary.SUBTYPE_UUID);
}

function entryDocument(e: Inconsistency, coll: Collection, view: ReadView): BsonDocument {
  const doc: BsonDocument = {
    indexName: e.index.meta.name,
    recordId: Long.fromNumber(e.recordId),
  };
  if (e.key !== undefined) {
    const rec = coll.getRecord(view, e.recordId);
    doc['idKey'] = rec === undefined ? null : { _id: getOwn(rec.doc, '_id') ?? null };
    doc['indexKey'] = keyDocument(e.index, e.key.values);
  } else if (e.storedKey !== undefined) {
    let values: BsonValue[] = [];
    try {
      values = decodeKey(e.storedKey, e.index.directions, e.typeInfo);
    } catch {
      values = [];
    }
    doc['indexKey'] = keyDocument(e.index, values);
  }
  return doc;
}

export const validate = defineCommand({
  name: 'validate',
  auth: onCollection('validate'),
  // mongod's validate is not an IDL command: its options are read by truthiness and other
  // fields are ignored.
  args: {
    full: t.any,
    repair: t.any,
    background: t.any,
    metadata: t.any,
    checkBSONConformance: t.any,
    enforceFastCount: t.any,
    scandata: t.any,
    logDiagnostics: t.any,
  },
  strict: false,
  help: 'Validate contents of a namespace by scanning its data structures for correctness.\nThis is a slow operation.\n\tAdd {full: true} option to do a more thorough check.\n\tAdd {repair: true} to run repair mode (standalone only).',
  run: async (inv) => {
    const { services, db, body, op } = inv;
    const name = targetCollection(inv);
    const background = trueValue(body['background']);
    const full = trueValue(body['full']);
    const enforceFastCount = trueValue(body['enforceFastCount']);
    const repair = trueValue(body['repair']);
    const metadata = trueValue(body['metadata']);
    const checkBSON = body['checkBSONConformance'];
    const replSet = services.config.replSet !== '';
    const invalid = (msg: string): CommandError => new CommandError(ErrorCode.InvalidOptions, msg);
    if (background && full)
      throw invalid(
        'Running the validate command with both { background: true } and { full: true } is not supported.',
      );
    if (background && enforceFastCount)
      throw invalid(
        'Running the validate command with both { background: true } and { enforceFastCount: true } is not supported.',
      );
    if (checkBSON !== undefined && !trueValue(checkBSON) && (full || enforceFastCount))
      throw invalid(
        "Cannot explicitly set 'checkBSONConformance: false' with full validation set.",
      );
    if (background && repair)
      throw invalid(
        'Running the validate command with both { background: true } and { repair: true } is not supported.',
      );
    if (enforceFastCount && repair)
      throw invalid(
        'Running the validate command with both { enforceFastCount: true } and { repair: true } is not supported.',
      );
    if (trueValue(checkBSON) && repair)
      throw invalid(
        'Running the validate command with both { checkBSONConformance: true } and { repair: true } is not supported.',
      );
    if (repair && replSet)
      throw invalid(
        'Running the validate command with { repair: true } can only be performed in standalone mode.',
      );
    if (metadata && (background || full || enforceFastCount || trueValue(checkBSON) || repair))
      throw invalid(
        'Running the validate command with { metadata: true } is not supported with any other options',
      );
    if (background && !replSet)
      throw new CommandError(
        ErrorCode.CommandNotSupported,
        'Running the validate command with { background: true } is not supported in standalone mode',
      );
    const coll = services.catalog.get(db, name);
    const snap = services.engine.snapshot();
    try {
      if (coll === undefined) {
        if (lookupView(services.catalog, snap, db, name) !== undefined)
          throw new CommandError(ErrorCode.CommandNotSupportedOnView, 'Cannot validate a view');
        throw new CommandError(
          ErrorCode.NamespaceNotFound,
          `Collection '${db}.${name}' does not exist to validate.`,
        );
      }
      if (!services.logger.settings.quiet)
        services.logger.info('COMMAND', 20514, 'CMD: validate', {
          namespace: coll.ns,
          background,
          full,
          enforceFastCount,
          checkBSONConformance: trueValue(checkBSON) || full,
          repair,
        });
      const reply: BsonDocument = { ns: coll.ns, uuid: uuidOf(coll) };
      if (metadata) {
        return {
          ...reply,
          nIndexes: new Int32(coll.indexes.length),
          valid: true,
          repaired: false,
          warnings: [],
          errors: [],
          extraIndexEntries: [],
          missingIndexEntries: [],
          corruptRecords: [],
        };
      }
      const outcome = await validateCollection(coll, snap, new Slicer(op), { full });
      const valid = outcome.errors.length === 0;
      const keysPerIndex: BsonDocument = {};
      const indexDetails: BsonDocument = {};
      for (const r of outcome.indexes) {
        keysPerIndex[r.index.meta.name] = new Int32(r.found);
        const details: BsonDocument = { valid: r.errors.length === 0 };
        if (r.errors.length > 0) {
          details['warnings'] = [];
          details['errors'] = r.errors;
        }
        indexDetails[r.index.meta.name] = details;
      }
      Object.assign(reply, {
        nInvalidDocuments: new Int32(outcome.nInvalidDocuments),
        nNonCompliantDocuments: new Int32(outcome.nNonCompliantDocuments),
        nrecords: new Int32(outcome.nrecords),
        nIndexes: new Int32(coll.indexes.length),
        keysPerIndex,
        indexDetails,
      });
      let repaired = false;
      let fixed = { inserted: 0, removed: 0 };
      if (repair && (outcome.missing.length > 0 || outcome.extra.length > 0)) {
        fixed = await repairIndexes(services, outcome);
        repaired = true;
      }
      const errors = repaired ? [] : outcome.errors;
      Object.assign(reply, {
        valid: repaired ? true : valid,
        repaired,
        warnings: repaired
          ? [...outcome.warnings, ...outcome.errors.map((e) => `${e} (repaired)`)]
          : outcome.warnings,
        errors,
        extraIndexEntries: outcome.extra.map((e) => entryDocument(e, coll, snap)),
        missingIndexEntries: outcome.missing.map((e) => entryDocument(e, coll, snap)),
        corruptRecords: outcome.corruptRecords.map((r) => Long.fromNumber(r)),
      });
      if (repaired) {
        reply['numRemovedCorruptRecords'] = Long.ZERO;
        reply['numRemovedExtraIndexEntries'] = Long.fromNumber(fixed.removed);
        reply['numInsertedMissingIndexEntries'] = Long.fromNumber(fixed.inserted);
        reply['numDocumentsMovedToLostAndFound'] = Long.ZERO;
        reply['numOutdatedMissingIndexEntry'] = Long.ZERO;
      }
      if (!(repaired ? true : valid))
        reply['advice'] =
          'A corrupt namespace has been detected. See http://dochub.mongodb.org/core/data-recovery for recovery steps.';
      return reply;
    } finally {
      snap.release();
    }
  },
});

export const validateCommands: CommandDefinition[] = [validate];
