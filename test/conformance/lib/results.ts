// "Converting Returned Model Objects to Documents": driver result objects become the documents
// the CRUD spec describes, without driver-specific extras (so that strict matching of nested
// documents judges the server, not the Node driver's result classes).

import { type Doc, isDocument } from './bson-values.js';

export function insertOneResult(r: unknown): Doc | undefined {
  if (!isObject(r)) return undefined;
  return { insertedId: r.insertedId };
}

export function insertManyResult(r: unknown): Doc | undefined {
  if (!isObject(r)) return undefined;
  return { insertedIds: indexMap(r.insertedIds) };
}

export function updateResult(r: unknown): Doc | undefined {
  if (!isObject(r)) return undefined;
  const out: Doc = {
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    upsertedCount: r.upsertedCount,
  };
  if (r.upsertedId !== null && r.upsertedId !== undefined) out.upsertedId = r.upsertedId;
  return out;
}

export function deleteResult(r: unknown): Doc | undefined {
  if (!isObject(r)) return undefined;
  return { deletedCount: r.deletedCount };
}

/** Collection-level BulkWriteResult (also the `result` of a MongoBulkWriteError). */
export function bulkWriteResult(r: unknown): Doc | undefined {
  if (!isObject(r)) return undefined;
  return {
    deletedCount: r.deletedCount,
    insertedCount: r.insertedCount,
    insertedIds: indexMap(r.insertedIds),
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    upsertedCount: r.upsertedCount,
    upsertedIds: indexMap(r.upsertedIds),
  };
}

/** MongoClient.bulkWrite result; the verbose maps are absent for summary-only results. */
export function clientBulkWriteResult(r: unknown): Doc | undefined {
  if (!isObject(r)) return undefined;
  const out: Doc = {
    insertedCount: r.insertedCount,
    upsertedCount: r.upsertedCount,
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    deletedCount: r.deletedCount,
  };
  if (r.insertResults !== undefined) {
    out.insertResults = mapEntries(r.insertResults, (v) => ({ insertedId: v.insertedId }));
  }
  if (r.updateResults !== undefined) {
    out.updateResults = mapEntries(r.updateResults, (v) => {
      const u: Doc = { matchedCount: v.matchedCount, modifiedCount: v.modifiedCount };
      if (v.upsertedId !== undefined && v.upsertedId !== null) u.upsertedId = v.upsertedId;
      return u;
    });
  }
  if (r.deleteResults !== undefined) {
    out.deleteResults = mapEntries(r.deleteResults, (v) => ({ deletedCount: v.deletedCount }));
  }
  return out;
}

/** WriteError of a client bulk write: code, message, details. */
export function clientWriteError(v: unknown): Doc {
  if (!isObject(v)) return {};
  const out: Doc = { code: v.code, message: v.message };
  if (v.details !== undefined) out.details = v.details;
  return out;
}

/** A write concern error as a document with `code`, `codeName`, `message`, `details`. */
export function writeConcernErrorDoc(v: unknown): Doc {
  if (!isObject(v)) return {};
  const out: Doc = { ...v };
  if (out.message === undefined && typeof v.errmsg === 'string') out.message = v.errmsg;
  if (out.details === undefined && v.errInfo !== undefined) out.details = v.errInfo;
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** `{0: id, 1: id}` objects and Maps keyed by index become documents with string keys. */
function indexMap(v: unknown): Doc | undefined {
  if (v instanceof Map) {
    const out: Doc = {};
    for (const [k, val] of v) out[String(k)] = val;
    return out;
  }
  if (isDocument(v)) return { ...v };
  return undefined;
}

function mapEntries(v: unknown, f: (x: Record<string, unknown>) => Doc): Doc {
  const out: Doc = {};
  const entries: Iterable<[unknown, unknown]> =
    v instanceof Map ? v : isObject(v) ? Object.entries(v) : [];
  for (const [k, val] of entries) out[String(k)] = isObject(val) ? f(val) : val;
  return out;
}
